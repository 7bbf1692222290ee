// SPDX-License-Identifier: GPL-2.0
/* decode.c: ring-buffer records -> struct fp_event */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "decode.h"

#define COMM "0123456789abcdef" /* all 16 bytes, no NUL */

static void fill_hdr(struct fp_hdr *h, uint32_t type, uint32_t size)
{
	h->type = type;
	h->size = size;
	h->ts_ns = 123456789012345ULL;
	h->pid = 4242;
	h->tid = 4243;
	h->ppid = 1;
	h->uid = 1000;
	h->gid = 1001;
	h->_pad = 0;
	h->cgroup_id = 0xabcdef0123ULL;
	memcpy(h->comm, COMM, FP_COMM_LEN);
}

static void check_hdr(const struct fp_event *ev, uint32_t type)
{
	cr_assert_eq(ev->type, type);
	cr_assert_eq(ev->ts_ns, 123456789012345ULL);
	cr_assert_eq(ev->pid, 4242);
	cr_assert_eq(ev->tid, 4243);
	cr_assert_eq(ev->ppid, 1);
	cr_assert_eq(ev->uid, 1000);
	cr_assert_eq(ev->gid, 1001);
	cr_assert_eq(ev->cgroup_id, 0xabcdef0123ULL);
	cr_assert_str_eq(ev->comm, COMM);
}

static void check_bytes(const struct fp_bytes *b, const char *want,
			size_t want_len)
{
	cr_assert_not_null(b->data);
	cr_assert_eq(b->len, want_len, "len %zu, want %zu (\"%.*s\")", b->len,
		     want_len, (int)b->len, b->data);
	cr_assert(memcmp(b->data, want, want_len) == 0, "got \"%.*s\"",
		  (int)b->len, b->data);
}

#define CHECK_BYTES(b, lit) check_bytes(b, lit, sizeof(lit) - 1)

/* ---- record builders ---- */

struct path_spec {
	const char *raw;
	uint32_t raw_len;
	const char *base;
	uint32_t base_len;
	uint32_t flags;
	int32_t dirfd;
};

/* an fp_file with its paths' bytes, sized exactly; *size gets the size */
static struct fp_file *make_file(uint32_t sys, uint32_t npaths,
				 const struct path_spec *ps, size_t *size)
{
	size_t data = 0, off = 0, n = npaths < 2 ? npaths : 2, i;
	struct fp_file *f;

	for (i = 0; i < n; i++)
		data += ps[i].raw_len + ps[i].base_len;
	*size = sizeof(*f) + data;
	f = calloc(1, *size);
	cr_assert_not_null(f);
	fill_hdr(&f->hdr, FP_EV_FILE, *size);
	f->sys = sys;
	f->npaths = npaths;
	for (i = 0; i < n; i++) {
		f->path[i].raw_len = ps[i].raw_len;
		f->path[i].base_len = ps[i].base_len;
		f->path[i].flags = ps[i].flags;
		f->path[i].dirfd = ps[i].dirfd;
		memcpy(f->data + off, ps[i].raw, ps[i].raw_len);
		off += ps[i].raw_len;
		memcpy(f->data + off, ps[i].base, ps[i].base_len);
		off += ps[i].base_len;
	}
	return f;
}

/* raw and base literals; raw_len includes the NUL, like the BPF side */
#define PATH(raw, base, flags, dirfd)                                  \
	{                                                              \
		raw, sizeof(raw), base, sizeof(base) - 1, flags, dirfd \
	}

static struct fp_exec *make_exec(const char *exe, uint32_t exe_len,
				 const char *fn, uint32_t fn_len,
				 uint32_t argv_len, uint32_t chunks,
				 size_t *size)
{
	struct fp_exec *e;

	*size = sizeof(*e) + exe_len + fn_len;
	e = calloc(1, *size);
	cr_assert_not_null(e);
	fill_hdr(&e->hdr, FP_EV_EXEC, *size);
	e->old_pid = 4242;
	e->exe_len = exe_len;
	e->filename_len = fn_len;
	e->argv_len = argv_len;
	e->argv_chunks = chunks;
	memcpy(e->data, exe, exe_len);
	memcpy(e->data + exe_len, fn, fn_len);
	return e;
}

static struct fp_bind make_bind(const void *addr, uint32_t addrlen)
{
	struct fp_bind b;

	memset(&b, 0, sizeof(b));
	fill_hdr(&b.hdr, FP_EV_BIND, sizeof(b));
	b.ret = 0;
	b.fd = 3;
	b.addrlen = addrlen;
	b.sock_type = SOCK_STREAM;
	b.protocol = IPPROTO_TCP;
	memcpy(b.addr, addr,
	       addrlen < sizeof(b.addr) ? addrlen : sizeof(b.addr));
	return b;
}

/* ---- file ---- */

Test(decode, file_relative_to_cwd)
{
	struct path_spec ps[] = { PATH("foo", "b\0a\0", 0, -100) };
	struct fp_event ev;
	size_t size;
	struct fp_file *f = make_file(FP_SYS_OPENAT, 1, ps, &size);

	f->ret = -ENOENT;
	f->created = 0;
	f->flags = 01101; /* O_WRONLY|O_CREAT|O_TRUNC */
	f->mode = 0644;
	f->resolve = 0x8;
	cr_assert_eq(fp_decode(f, size, &ev), 0);
	check_hdr(&ev, FP_EV_FILE);
	cr_assert_eq(ev.file.sys, FP_SYS_OPENAT);
	cr_assert_eq(ev.file.ret, -ENOENT);
	cr_assert_eq(ev.file.created, false);
	cr_assert_eq(ev.file.flags, 01101);
	cr_assert_eq(ev.file.mode, 0644);
	cr_assert_eq(ev.file.resolve, 0x8);
	cr_assert_eq(ev.file.npaths, 1);
	CHECK_BYTES(&ev.file.path[0].path, "/a/b/foo");
	cr_assert_eq(ev.file.path[0].path.data[8], '\0');
	cr_assert_eq(ev.file.path[0].dirfd, -100);
	cr_assert_eq(ev.file.path[0].truncated, false);
	cr_assert_eq(ev.file.path[0].base_unknown, false);
	cr_assert_null(ev.file.path[1].path.data);
	fp_event_free(&ev);
	free(f);
}

Test(decode, file_two_paths_and_flags)
{
	struct path_spec ps[] = {
		PATH("../x", "d\0c\0", FP_PATH_BASE_UNKNOWN, 5),
		/* raw cut by the kernel: no NUL */
		{ "/y/z", 4, "", 0, FP_PATH_RAW_TRUNC, -100 },
	};
	struct fp_event ev;
	size_t size;
	struct fp_file *f = make_file(FP_SYS_RENAMEAT2, 2, ps, &size);

	f->flags = 2; /* RENAME_EXCHANGE */
	cr_assert_eq(fp_decode(f, size, &ev), 0);
	check_hdr(&ev, FP_EV_FILE);
	cr_assert_eq(ev.file.sys, FP_SYS_RENAMEAT2);
	cr_assert_eq(ev.file.flags, 2);
	cr_assert_eq(ev.file.npaths, 2);
	/* without its directory the path stays as given */
	CHECK_BYTES(&ev.file.path[0].path, "../x");
	cr_assert_eq(ev.file.path[0].dirfd, 5);
	cr_assert_eq(ev.file.path[0].truncated, false);
	cr_assert_eq(ev.file.path[0].base_unknown, true);
	CHECK_BYTES(&ev.file.path[1].path, "/y/z");
	cr_assert_eq(ev.file.path[1].dirfd, -100);
	cr_assert_eq(ev.file.path[1].truncated, true);
	cr_assert_eq(ev.file.path[1].base_unknown, false);
	fp_event_free(&ev);
	free(f);
}

/* path[1] of an open: the file behind the fd, leaf-first names, no raw */
#define OPENED(base, flags)                                           \
	{                                                             \
		"", 0, base, sizeof(base) - 1,                        \
			FP_PATH_FROM_FD | FP_PATH_OPENED | (flags), 4 \
	}

static void decode_open(struct path_spec *ps, uint32_t flags,
			struct fp_event *ev)
{
	size_t size;
	struct fp_file *f = make_file(FP_SYS_OPENAT, 2, ps, &size);

	f->flags = flags;
	f->ret = 4;
	cr_assert_eq(fp_decode(f, size, ev), 0);
	free(f);
}

/* a write through /proc/self/fd/3 is reported under the file it reached */
Test(decode, open_reports_the_file_reached)
{
	struct path_spec ps[] = {
		PATH("/proc/self/fd/3", "", 0, -100),
		OPENED("f\0u\0home\0", 0),
	};
	struct fp_event ev;

	decode_open(ps, 01 /* O_WRONLY */, &ev);
	cr_assert_eq(ev.file.npaths, 2);
	CHECK_BYTES(&ev.file.path[0].path, "/home/u/f");
	cr_assert_not(ev.file.path[0].magic);
	cr_assert_not(ev.file.path[0].named);
	cr_assert_not(ev.file.path[0].from_fd);
	cr_assert_not(ev.file.path[0].truncated);
	cr_assert_eq(ev.file.path[0].dirfd, -100);
	CHECK_BYTES(&ev.file.path[1].path, "/proc/self/fd/3");
	cr_assert(ev.file.path[1].named);
	cr_assert(ev.file.path[1].magic);
	fp_event_free(&ev);
}

Test(decode, open_of_the_same_path_keeps_one)
{
	struct path_spec ps[] = {
		PATH("f", "d\0", 0, 7),
		OPENED("f\0d\0", 0),
	};
	struct fp_event ev;

	decode_open(ps, 0, &ev);
	cr_assert_eq(ev.file.npaths, 1);
	CHECK_BYTES(&ev.file.path[0].path, "/d/f");
	cr_assert_eq(ev.file.path[0].dirfd, 7);
	cr_assert_not(ev.file.path[0].named);
	cr_assert_null(ev.file.path[1].path.data);
	fp_event_free(&ev);
}

/* echo > /dev/stdout into a pipe: the pipe has no name; keep the given one */
Test(decode, open_of_a_pipe_keeps_the_name_and_says_so)
{
	struct path_spec ps[] = {
		PATH("/dev/stdout", "", 0, -100),
		OPENED("", FP_PATH_ANON | FP_PATH_BASE_DETACHED),
	};
	struct fp_event ev;

	decode_open(ps, 01, &ev);
	cr_assert_eq(ev.file.npaths, 1);
	CHECK_BYTES(&ev.file.path[0].path, "/dev/stdout");
	cr_assert(ev.file.path[0].anonymous);
	fp_event_free(&ev);
}

/* a walk that found no name (a detached mount's root): keep the name */
Test(decode, open_reaching_no_name_keeps_the_given_one)
{
	struct path_spec ps[] = {
		PATH("/proc/self/fd/5", "", 0, -100),
		OPENED("", FP_PATH_BASE_DETACHED),
	};
	struct fp_event ev;

	decode_open(ps, 01, &ev);
	cr_assert_eq(ev.file.npaths, 1);
	CHECK_BYTES(&ev.file.path[0].path, "/proc/self/fd/5");
	cr_assert(ev.file.path[0].magic);
	cr_assert_not(ev.file.path[0].anonymous);
	fp_event_free(&ev);
}

/* /proc/self/uid_map stays /proc/self/uid_map, not /proc/PID/uid_map */
Test(decode, open_of_a_proc_file_named_in_proc_keeps_the_name)
{
	struct path_spec ps[] = {
		PATH("/proc/self/uid_map", "", 0, -100),
		OPENED("uid_map\0"
		       "123\0"
		       "proc\0",
		       FP_PATH_PROCFS),
	};
	struct fp_event ev;

	decode_open(ps, 01, &ev);
	cr_assert_eq(ev.file.npaths, 1);
	CHECK_BYTES(&ev.file.path[0].path, "/proc/self/uid_map");
	fp_event_free(&ev);
}

/* a symlink elsewhere that leads into /proc: the proc file is named */
Test(decode, open_of_a_proc_file_through_a_symlink_names_it)
{
	struct path_spec ps[] = {
		PATH("/home/u/l", "", 0, -100),
		OPENED("mem\0"
		       "123\0"
		       "proc\0",
		       FP_PATH_PROCFS),
	};
	struct fp_event ev;

	decode_open(ps, 02, &ev);
	cr_assert_eq(ev.file.npaths, 2);
	CHECK_BYTES(&ev.file.path[0].path, "/proc/123/mem");
	CHECK_BYTES(&ev.file.path[1].path, "/home/u/l");
	fp_event_free(&ev);
}

/* the file reached is deeper than the walk: its path is cut */
Test(decode, open_reaching_a_cut_path_is_cut)
{
	struct path_spec ps[] = {
		PATH("/proc/self/fd/3", "", 0, -100),
		OPENED("f\0scratch\0tmp\0", FP_PATH_BASE_TRUNC),
	};
	struct fp_event ev;

	decode_open(ps, 01, &ev);
	cr_assert_eq(ev.file.npaths, 2);
	CHECK_BYTES(&ev.file.path[0].path, "/tmp/scratch/f");
	cr_assert(ev.file.path[0].truncated);
	fp_event_free(&ev);
}

/* only opens carry a reached file: the flag means nothing elsewhere */
Test(decode, opened_flag_ignored_on_other_syscalls)
{
	struct path_spec ps[] = {
		PATH("/a", "", 0, -100),
		OPENED("b\0", 0),
	};
	struct fp_event ev;
	size_t size;
	struct fp_file *f = make_file(FP_SYS_RENAME, 2, ps, &size);

	cr_assert_eq(fp_decode(f, size, &ev), 0);
	cr_assert_eq(ev.file.npaths, 2);
	CHECK_BYTES(&ev.file.path[0].path, "/a");
	CHECK_BYTES(&ev.file.path[1].path, "/b");
	cr_assert_not(ev.file.path[1].named);
	fp_event_free(&ev);
	free(f);
}

Test(decode, file_truncation_flags)
{
	static const uint32_t trunc[] = { FP_PATH_RAW_TRUNC, FP_PATH_BASE_TRUNC,
					  FP_PATH_RAW_FAULT };
	struct fp_event ev;
	size_t size, i;

	for (i = 0; i < 3; i++) {
		struct path_spec ps[] = { PATH("f", "a\0", trunc[i], -100) };
		struct fp_file *f = make_file(FP_SYS_OPEN, 1, ps, &size);

		cr_assert_eq(fp_decode(f, size, &ev), 0);
		CHECK_BYTES(&ev.file.path[0].path, "/a/f");
		cr_assert_eq(ev.file.path[0].truncated, true, "flag %u",
			     trunc[i]);
		cr_assert_eq(ev.file.path[0].base_unknown, false);
		fp_event_free(&ev);
		free(f);
	}
}

Test(decode, file_fault_empty_raw)
{
	/* unreadable pointer: nothing but the base */
	struct path_spec ps[] = {
		{ "", 0, "b\0a\0", 4, FP_PATH_RAW_FAULT, -100 },
	};
	struct fp_event ev;
	size_t size;
	struct fp_file *f = make_file(FP_SYS_UNLINKAT, 1, ps, &size);

	f->ret = -EFAULT;
	cr_assert_eq(fp_decode(f, size, &ev), 0);
	cr_assert_eq(ev.file.ret, -EFAULT);
	CHECK_BYTES(&ev.file.path[0].path, "/a/b");
	cr_assert_eq(ev.file.path[0].truncated, true);
	fp_event_free(&ev);
	free(f);
}

Test(decode, file_unusual_bytes)
{
	struct path_spec ps[] = { PATH("q\"\n", "n\xff\0", 0, -100) };
	struct fp_event ev;
	size_t size;
	struct fp_file *f = make_file(FP_SYS_CREAT, 1, ps, &size);

	f->ret = 3;
	f->created = 1;
	cr_assert_eq(fp_decode(f, size, &ev), 0);
	cr_assert_eq(ev.file.ret, 3);
	cr_assert_eq(ev.file.created, true);
	CHECK_BYTES(&ev.file.path[0].path, "/n\xff/q\"\n");
	fp_event_free(&ev);
	free(f);
}

Test(decode, record_may_be_larger_than_hdr_size)
{
	/* the ring-buffer sample may be padded: hdr.size rules */
	struct path_spec ps[] = { PATH("/etc/hosts", "", 0, -100) };
	struct fp_event ev;
	size_t size;
	struct fp_file *f = make_file(FP_SYS_OPEN, 1, ps, &size);
	char *big = calloc(1, size + 64);

	memcpy(big, f, size);
	memset(big + size, 'Z', 64);
	cr_assert_eq(fp_decode(big, size + 64, &ev), 0);
	CHECK_BYTES(&ev.file.path[0].path, "/etc/hosts");
	fp_event_free(&ev);
	free(big);
	free(f);
}

/* ---- exec ---- */

Test(decode, exec)
{
	struct fp_event ev;
	size_t size;
	struct fp_exec *e =
		make_exec("bash\0bin\0usr\0", 13, "/bin/sh", 8, 4321, 2, &size);

	e->old_pid = 4250;
	cr_assert_eq(fp_decode(e, size, &ev), 0);
	check_hdr(&ev, FP_EV_EXEC);
	CHECK_BYTES(&ev.exec.exe, "/usr/bin/bash");
	cr_assert_eq(ev.exec.exe_truncated, false);
	CHECK_BYTES(&ev.exec.filename, "/bin/sh");
	cr_assert_eq(ev.exec.filename.data[7], '\0');
	cr_assert_null(ev.exec.argv.data);
	cr_assert_eq(ev.exec.argv.len, 0);
	cr_assert_eq(ev.exec.argv_total, 4321);
	/* nothing delivered yet: the collector appends the argv records */
	cr_assert_eq(ev.exec.argv_dropped, 4321);
	cr_assert_eq(ev.exec.old_pid, 4250);
	fp_event_free(&ev);
	free(e);
}

Test(decode, exec_truncated_and_odd_filename)
{
	struct fp_event ev;
	size_t size;
	/* filename cut without its NUL, and relative */
	struct fp_exec *e =
		make_exec("sh\0bin\0", 7, "./run\xff", 6, 0, 0, &size);

	e->exe_flags = FP_PATH_BASE_TRUNC;
	cr_assert_eq(fp_decode(e, size, &ev), 0);
	CHECK_BYTES(&ev.exec.exe, "/bin/sh");
	cr_assert_eq(ev.exec.exe_truncated, true);
	CHECK_BYTES(&ev.exec.filename, "./run\xff");
	cr_assert_eq(ev.exec.argv_total, 0);
	cr_assert_eq(ev.exec.argv_dropped, 0);
	fp_event_free(&ev);
	free(e);
}

Test(decode, exec_empty_exe_and_filename)
{
	struct fp_event ev;
	size_t size;
	struct fp_exec *e = make_exec("", 0, "", 0, 0, 0, &size);

	cr_assert_eq(fp_decode(e, size, &ev), 0);
	CHECK_BYTES(&ev.exec.exe, "/");
	cr_assert_not_null(ev.exec.filename.data);
	cr_assert_eq(ev.exec.filename.len, 0);
	fp_event_free(&ev);
	free(e);
}

static void check_err(const void *rec, size_t size, int want);

/* a step name follows the filename; its NUL ends it, as read by the BPF side */
static struct fp_exec *make_step_exec(const char *name, uint32_t len,
				      size_t *size)
{
	struct fp_exec *e = make_exec("sh\0bin\0", 7, "/bin/sh", 8, 0, 0, size);
	struct fp_exec *n = realloc(e, *size + len);

	cr_assert_not_null(n);
	memcpy((char *)n + *size, name, len);
	*size += len;
	n->hdr.size = *size;
	n->step_len = len;
	return n;
}

Test(decode, exec_step_name)
{
	struct fp_event ev;
	size_t size;
	struct fp_exec *e = make_step_exec("build_step", 11, &size);

	cr_assert_eq(fp_decode(e, size, &ev), 0);
	CHECK_BYTES(&ev.exec.filename, "/bin/sh");
	CHECK_BYTES(&ev.exec.step_name, "build_step");
	fp_event_free(&ev);
	free(e);
}

Test(decode, exec_step_name_empty_or_absent_is_none)
{
	struct fp_event ev;
	size_t size;
	struct fp_exec *e = make_step_exec("", 1, &size);

	cr_assert_eq(fp_decode(e, size, &ev), 0);
	cr_assert_null(ev.exec.step_name.data);
	cr_assert_eq(ev.exec.step_name.len, 0);
	fp_event_free(&ev);
	free(e);
	e = make_exec("sh\0", 3, "sh", 3, 0, 0, &size);
	cr_assert_eq(fp_decode(e, size, &ev), 0);
	cr_assert_null(ev.exec.step_name.data);
	fp_event_free(&ev);
	free(e);
}

Test(decode, exec_step_name_cut_or_past_record)
{
	struct fp_event ev;
	size_t size;
	/* cut without a NUL (at FP_STEP_NAME_MAX): what there is */
	struct fp_exec *e = make_step_exec("abc", 3, &size);

	cr_assert_eq(fp_decode(e, size, &ev), 0);
	CHECK_BYTES(&ev.exec.step_name, "abc");
	fp_event_free(&ev);
	/* a NUL inside ends it */
	memcpy((char *)e + size - 3, "a\0c", 3);
	cr_assert_eq(fp_decode(e, size, &ev), 0);
	CHECK_BYTES(&ev.exec.step_name, "a");
	fp_event_free(&ev);
	e->step_len = 4;
	check_err(e, size, -EINVAL);
	e->step_len = 0xffffffff;
	check_err(e, size, -EINVAL);
	free(e);
}

/* ---- tamper ---- */

static struct fp_tamper make_tamper(uint32_t kind)
{
	struct fp_tamper t;

	memset(&t, 0, sizeof(t));
	fill_hdr(&t.hdr, FP_EV_TAMPER, sizeof(t));
	t.kind = kind;
	return t;
}

Test(decode, tamper_kinds)
{
	struct fp_tamper t = make_tamper(FP_TAMPER_SIGNAL);
	struct fp_event ev;

	t.sig = 9;
	t.target_pid = 777;
	t.arg = 0;
	cr_assert_eq(fp_decode(&t, sizeof(t), &ev), 0);
	check_hdr(&ev, FP_EV_TAMPER);
	cr_assert_eq(ev.tamper.kind, FP_TAMPER_SIGNAL);
	cr_assert_eq(ev.tamper.sig, 9);
	cr_assert_eq(ev.tamper.target_pid, 777);
	fp_event_free(&ev);

	t = make_tamper(FP_TAMPER_BPF);
	t.arg = 34; /* BPF_LINK_DETACH */
	cr_assert_eq(fp_decode(&t, sizeof(t), &ev), 0);
	cr_assert_eq(ev.tamper.kind, FP_TAMPER_BPF);
	cr_assert_eq(ev.tamper.arg, 34);
	fp_event_free(&ev);

	t = make_tamper(FP_TAMPER_PTRACE);
	t.arg = 0x4206;
	t.target_pid = 778;
	cr_assert_eq(fp_decode(&t, sizeof(t), &ev), 0);
	cr_assert_eq(ev.tamper.arg, 0x4206);
	cr_assert_eq(ev.tamper.target_pid, 778);
	fp_event_free(&ev);
}

Test(decode, tamper_bad)
{
	struct fp_tamper t = make_tamper(FP_TAMPER_SIGNAL);

	t.hdr.size = sizeof(t) - 1;
	check_err(&t, sizeof(t), -EINVAL);
	/* the heartbeat is the tracer's own finding, never the kernel's */
	t = make_tamper(FP_TAMPER_HEARTBEAT);
	check_err(&t, sizeof(t), -EINVAL);
	t = make_tamper(0);
	check_err(&t, sizeof(t), -EINVAL);
}

/* ---- fork, exit ---- */

Test(decode, fork)
{
	struct fp_fork k;
	struct fp_event ev;

	memset(&k, 0, sizeof(k));
	fill_hdr(&k.hdr, FP_EV_FORK, sizeof(k));
	k.parent_tid = 777;
	cr_assert_eq(fp_decode(&k, sizeof(k), &ev), 0);
	check_hdr(&ev, FP_EV_FORK);
	cr_assert_eq(ev.fork.parent_tid, 777);
	fp_event_free(&ev);
}

Test(decode, exit_code)
{
	struct fp_exit x;
	struct fp_event ev;

	memset(&x, 0, sizeof(x));
	fill_hdr(&x.hdr, FP_EV_EXIT, sizeof(x));
	x.status = 3 << 8;
	x.start_ns = 987654321;
	cr_assert_eq(fp_decode(&x, sizeof(x), &ev), 0);
	check_hdr(&ev, FP_EV_EXIT);
	cr_assert_eq(ev.exit.code, 3);
	cr_assert_eq(ev.exit.signal, 0);
	cr_assert_eq(ev.exit.core_dumped, false);
	cr_assert_eq(ev.exit.start_ns, 987654321);

	x.status = 255 << 8;
	cr_assert_eq(fp_decode(&x, sizeof(x), &ev), 0);
	cr_assert_eq(ev.exit.code, 255);
	cr_assert_eq(ev.exit.signal, 0);

	x.status = 0;
	cr_assert_eq(fp_decode(&x, sizeof(x), &ev), 0);
	cr_assert_eq(ev.exit.code, 0);
	cr_assert_eq(ev.exit.signal, 0);
}

Test(decode, exit_signal)
{
	struct fp_exit x;
	struct fp_event ev;

	memset(&x, 0, sizeof(x));
	fill_hdr(&x.hdr, FP_EV_EXIT, sizeof(x));
	x.status = 9 | 0x80;
	x.start_ns = 55;
	cr_assert_eq(fp_decode(&x, sizeof(x), &ev), 0);
	check_hdr(&ev, FP_EV_EXIT);
	cr_assert_eq(ev.exit.code, -1);
	cr_assert_eq(ev.exit.signal, 9);
	cr_assert_eq(ev.exit.core_dumped, true);
	cr_assert_eq(ev.exit.start_ns, 55);

	x.status = 15;
	cr_assert_eq(fp_decode(&x, sizeof(x), &ev), 0);
	cr_assert_eq(ev.exit.code, -1);
	cr_assert_eq(ev.exit.signal, 15);
	cr_assert_eq(ev.exit.core_dumped, false);
}

/* ---- bind ---- */

Test(decode, bind_inet)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(8080) };
	struct fp_bind b;
	struct fp_event ev;

	sin.sin_addr.s_addr = htonl(0x7f000001);
	b = make_bind(&sin, sizeof(sin));
	b.ret = 0;
	b.fd = 7;
	b.bound_port = 8080;
	cr_assert_eq(fp_decode(&b, sizeof(b), &ev), 0);
	check_hdr(&ev, FP_EV_BIND);
	cr_assert_eq(ev.bind.ret, 0);
	cr_assert_eq(ev.bind.fd, 7);
	cr_assert_eq(ev.bind.family, AF_INET);
	cr_assert_str_eq(ev.bind.address, "127.0.0.1");
	cr_assert_eq(ev.bind.port, 8080);
	cr_assert_eq(ev.bind.bound_port, 8080);
	cr_assert_eq(ev.bind.sock_type, SOCK_STREAM);
	cr_assert_eq(ev.bind.protocol, IPPROTO_TCP);
	cr_assert_null(ev.bind.unix_path.data);
	fp_event_free(&ev);
}

Test(decode, bind_inet6)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
				     .sin6_port = htons(443) };
	struct fp_bind b;
	struct fp_event ev;

	inet_pton(AF_INET6, "fe80::1:2", &sin6.sin6_addr);
	b = make_bind(&sin6, sizeof(sin6));
	b.ret = -EADDRINUSE;
	b.sock_type = SOCK_DGRAM;
	b.protocol = IPPROTO_UDP;
	cr_assert_eq(fp_decode(&b, sizeof(b), &ev), 0);
	cr_assert_eq(ev.bind.ret, -EADDRINUSE);
	cr_assert_eq(ev.bind.family, AF_INET6);
	cr_assert_str_eq(ev.bind.address, "fe80::1:2");
	cr_assert_eq(ev.bind.port, 443);
	cr_assert_eq(ev.bind.bound_port, 0);
	cr_assert_eq(ev.bind.sock_type, SOCK_DGRAM);
	cr_assert_eq(ev.bind.protocol, IPPROTO_UDP);
	fp_event_free(&ev);
}

Test(decode, bind_inet_short_addrlen)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(80) };
	struct fp_bind b = make_bind(&sin, 8);
	struct fp_event ev;

	cr_assert_eq(fp_decode(&b, sizeof(b), &ev), 0);
	cr_assert_eq(ev.bind.family, AF_INET);
	cr_assert_str_eq(ev.bind.address, "");
	cr_assert_eq(ev.bind.port, 0);
	fp_event_free(&ev);
}

Test(decode, bind_unix_path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct fp_bind b;
	struct fp_event ev;

	strcpy(sun.sun_path, "/tmp/s\xffock");
	b = make_bind(&sun, offsetof(struct sockaddr_un, sun_path) + 11);
	cr_assert_eq(fp_decode(&b, sizeof(b), &ev), 0);
	cr_assert_eq(ev.bind.family, AF_UNIX);
	CHECK_BYTES(&ev.bind.unix_path, "/tmp/s\xffock");

	/* addrlen past the NUL, as sizeof(struct sockaddr_un) often is */
	fp_event_free(&ev);
	b = make_bind(&sun, sizeof(sun));
	cr_assert_eq(fp_decode(&b, sizeof(b), &ev), 0);
	CHECK_BYTES(&ev.bind.unix_path, "/tmp/s\xffock");
	fp_event_free(&ev);
}

Test(decode, bind_unix_abstract)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct fp_bind b;
	struct fp_event ev;

	/* "\0name\0x": abstract names may hold NULs; addrlen is the end */
	memcpy(sun.sun_path, "\0name\0x", 7);
	b = make_bind(&sun, offsetof(struct sockaddr_un, sun_path) + 7);
	cr_assert_eq(fp_decode(&b, sizeof(b), &ev), 0);
	cr_assert_eq(ev.bind.family, AF_UNIX);
	CHECK_BYTES(&ev.bind.unix_path, "\0name\0x");
	fp_event_free(&ev);
}

Test(decode, bind_unix_unnamed_and_oversized)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char big[200];
	struct fp_bind b;
	struct fp_event ev;

	/* autobind: only the family */
	b = make_bind(&sun, sizeof(sa_family_t));
	cr_assert_eq(fp_decode(&b, sizeof(b), &ev), 0);
	cr_assert_eq(ev.bind.family, AF_UNIX);
	cr_assert_null(ev.bind.unix_path.data);
	cr_assert_eq(ev.bind.unix_path.len, 0);
	fp_event_free(&ev);

	/* addrlen larger than what the record holds: clamped to it */
	memset(big, 'p', sizeof(big));
	memcpy(big, &(sa_family_t){ AF_UNIX }, sizeof(sa_family_t));
	b = make_bind(big, FP_SOCKADDR_MAX);
	b.addrlen = 4000;
	cr_assert_eq(fp_decode(&b, sizeof(b), &ev), 0);
	cr_assert_eq(ev.bind.unix_path.len, FP_SOCKADDR_MAX - 2);
	fp_event_free(&ev);
}

/* ---- malformed ---- */

static void check_err(const void *rec, size_t size, int want)
{
	struct fp_event ev;
	int rc;

	/* garbage in ev beforehand must not matter */
	memset(&ev, 0x5a, sizeof(ev));
	rc = fp_decode(rec, size, &ev);
	if (!rc)
		fp_event_free(&ev);
	cr_assert_eq(rc, want, "fp_decode = %d, want %d", rc, want);
}

Test(decode, short_records)
{
	struct fp_exit x;
	struct fp_fork k;
	struct fp_bind b;

	memset(&x, 0, sizeof(x));
	fill_hdr(&x.hdr, FP_EV_EXIT, sizeof(x));
	check_err(&x, 0, -EINVAL);
	check_err(&x, sizeof(struct fp_hdr) - 1, -EINVAL);
	/* hdr.size larger than the buffer */
	check_err(&x, sizeof(x) - 1, -EINVAL);
	x.hdr.size = sizeof(x) + 1;
	check_err(&x, sizeof(x), -EINVAL);
	/* buffer fine, but hdr.size says the record is short */
	x.hdr.size = sizeof(x) - 1;
	check_err(&x, sizeof(x), -EINVAL);
	x.hdr.size = 0;
	check_err(&x, sizeof(x), -EINVAL);

	memset(&k, 0, sizeof(k));
	fill_hdr(&k.hdr, FP_EV_FORK, sizeof(k) - 4);
	check_err(&k, sizeof(k), -EINVAL);
	check_err(&k, sizeof(struct fp_hdr), -EINVAL);

	memset(&b, 0, sizeof(b));
	fill_hdr(&b.hdr, FP_EV_BIND, sizeof(b) - 1);
	check_err(&b, sizeof(b), -EINVAL);
}

Test(decode, short_file_and_exec)
{
	struct path_spec ps[] = { PATH("a", "", 0, -100) };
	size_t size;
	struct fp_file *f = make_file(FP_SYS_OPEN, 1, ps, &size);
	struct fp_exec *e = make_exec("", 0, "", 0, 0, 0, &size);

	f->hdr.size = sizeof(*f) - 1;
	check_err(f, sizeof(*f) + 2, -EINVAL);
	f->hdr.size = sizeof(struct fp_hdr);
	check_err(f, sizeof(*f) + 2, -EINVAL);
	e->hdr.size = sizeof(*e) - 1;
	check_err(e, sizeof(*e), -EINVAL);
	free(f);
	free(e);
}

Test(decode, unknown_type)
{
	struct fp_exit x;

	memset(&x, 0, sizeof(x));
	fill_hdr(&x.hdr, 99, sizeof(x));
	check_err(&x, sizeof(x), -ENOTSUP);
	x.hdr.type = 0;
	check_err(&x, sizeof(x), -ENOTSUP);
	/* argv records go to fp_decode_argv, not here */
	x.hdr.type = FP_EV_ARGV;
	check_err(&x, sizeof(x), -ENOTSUP);
	/* a bare header of an unknown type is still just unknown */
	x.hdr.type = 1000;
	x.hdr.size = sizeof(struct fp_hdr);
	check_err(&x, sizeof(struct fp_hdr), -ENOTSUP);
}

Test(decode, file_bad_npaths)
{
	struct path_spec ps[] = { PATH("a", "", 0, -100),
				  PATH("b", "", 0, -100) };
	size_t size;
	struct fp_file *f = make_file(FP_SYS_RENAME, 2, ps, &size);

	f->npaths = 0;
	check_err(f, size, -EINVAL);
	f->npaths = 3;
	check_err(f, size, -EINVAL);
	f->npaths = 0xffffffff;
	check_err(f, size, -EINVAL);
	f->npaths = 2;
	check_err(f, size, 0);
	free(f);
}

Test(decode, file_lengths_past_record)
{
	struct path_spec ps[] = { PATH("rel", "b\0a\0", 0, -100),
				  PATH("/abs", "", 0, -100) };
	size_t size;
	struct fp_file *f = make_file(FP_SYS_RENAMEAT, 2, ps, &size);

	check_err(f, size, 0);
	/* raw_len past the end */
	f->path[0].raw_len = size;
	check_err(f, size, -EINVAL);
	f->path[0].raw_len = 0xffffffff;
	check_err(f, size, -EINVAL);
	f->path[0].raw_len = 4;
	/* base_len past the end, and a sum that would wrap */
	f->path[0].base_len = size;
	check_err(f, size, -EINVAL);
	f->path[0].base_len = 0xfffffffe;
	check_err(f, size, -EINVAL);
	f->path[0].base_len = 4;
	/* second path one byte too long */
	f->path[1].raw_len = 6;
	check_err(f, size, -EINVAL);
	f->path[1].raw_len = 5;
	check_err(f, size, 0);
	/* the buffer is fine but hdr.size cuts the second path */
	f->hdr.size = size - 1;
	check_err(f, size, -EINVAL);
	free(f);
}

Test(decode, file_base_not_nul_terminated)
{
	struct path_spec ps[] = { { "rel", 4, "b\0a", 3, 0, -100 } };
	size_t size;
	struct fp_file *f = make_file(FP_SYS_OPENAT, 1, ps, &size);

	check_err(f, size, -EINVAL);
	free(f);
}

Test(decode, exec_lengths_past_record)
{
	size_t size;
	struct fp_exec *e =
		make_exec("sh\0bin\0", 7, "/bin/sh", 8, 10, 1, &size);

	check_err(e, size, 0);
	e->exe_len = 16;
	check_err(e, size, -EINVAL);
	e->exe_len = 0xffffffff;
	check_err(e, size, -EINVAL);
	e->exe_len = 7;
	e->filename_len = 9;
	check_err(e, size, -EINVAL);
	e->filename_len = 0xfffffffc;
	check_err(e, size, -EINVAL);
	e->filename_len = 8;
	/* exe names must end with a NUL */
	e->exe_len = 6;
	e->filename_len = 9;
	check_err(e, size, -EINVAL);
	free(e);
}

/* ---- fp_decode_argv ---- */

static struct fp_argv *make_argv(const char *s, uint32_t len, uint32_t off,
				 size_t *size)
{
	struct fp_argv *a;

	*size = sizeof(*a) + len;
	a = calloc(1, *size);
	cr_assert_not_null(a);
	fill_hdr(&a->hdr, FP_EV_ARGV, *size);
	a->seq = off / FP_ARGV_CHUNK;
	a->offset = off;
	a->len = len;
	memcpy(a->data, s, len);
	return a;
}

Test(decode, argv_ok)
{
	const struct fp_argv *out = NULL;
	size_t size;
	struct fp_argv *a = make_argv("ls\0-l\0", 6, 0, &size);

	cr_assert_eq(fp_decode_argv(a, size, &out), 0);
	cr_assert_eq(out, a);
	cr_assert_eq(out->len, 6);
	/* a failed read leaves an empty chunk */
	a->len = 0;
	cr_assert_eq(fp_decode_argv(a, size, &out), 0);
	free(a);
}

Test(decode, argv_malformed)
{
	const struct fp_argv *out = NULL;
	size_t size;
	struct fp_argv *a = make_argv("ls\0-l\0", 6, 0, &size);

	cr_assert_eq(fp_decode_argv(a, sizeof(struct fp_hdr), &out), -EINVAL);
	cr_assert_eq(fp_decode_argv(a, sizeof(*a) - 1, &out), -EINVAL);
	/* hdr.size past the buffer */
	cr_assert_eq(fp_decode_argv(a, size - 1, &out), -EINVAL);
	/* len past hdr.size */
	a->len = 7;
	cr_assert_eq(fp_decode_argv(a, size, &out), -EINVAL);
	a->len = 0xffffffff;
	cr_assert_eq(fp_decode_argv(a, size, &out), -EINVAL);
	cr_assert_null(out);
	free(a);
}

/*
 * hdr.size smaller than struct fp_argv itself: "a->hdr.size - sizeof(*a)"
 * wraps (size_t), so any len passes and the caller then copies len bytes
 * from a->data, past the record.
 */
Test(decode, argv_hdr_size_below_fixed_part)
{
	const struct fp_argv *out = NULL;
	size_t size;
	struct fp_argv *a = make_argv("ls\0-l\0", 6, 0, &size);
	int rc;

	a->hdr.size = sizeof(struct fp_hdr);
	rc = fp_decode_argv(a, size, &out);
	cr_expect_eq(rc, -EINVAL, "hdr.size %u, len 6: got %d", a->hdr.size,
		     rc);
	a->hdr.size = 0;
	a->len = 0xffffffff;
	rc = fp_decode_argv(a, size, &out);
	cr_expect_eq(rc, -EINVAL, "hdr.size 0, len 0xffffffff: got %d", rc);
	free(a);
}

/* ---- garbage ---- */

static uint32_t rnd(unsigned int *seed)
{
	return ((uint32_t)rand_r(seed) << 16) ^ (uint32_t)rand_r(seed);
}

/* a small length most of the time, anything now and then */
static uint32_t rnd_len(unsigned int *seed)
{
	switch (rnd(seed) % 4) {
	case 0:
		return rnd(seed);
	case 1:
		return 0;
	default:
		return rnd(seed) % 64;
	}
}

static void scramble(unsigned char *buf, size_t size, unsigned int *seed)
{
	size_t i;

	for (i = 0; i < size; i++)
		buf[i] = rnd(seed) % 3 ? rnd(seed) & 0xff : 0;
	if (size < sizeof(struct fp_hdr))
		return;
	/* mostly plausible headers, to get past the first checks */
	if (rnd(seed) % 8) {
		struct fp_hdr *h = (struct fp_hdr *)buf;

		h->type = rnd(seed) % 8;
		h->size = rnd(seed) % 4 ? size - rnd(seed) % 4 : rnd(seed);
	}
	if (size >= sizeof(struct fp_file) && rnd(seed) % 2) {
		struct fp_file *f = (struct fp_file *)buf;

		f->npaths = rnd(seed) % 4;
		f->path[0].raw_len = rnd_len(seed);
		f->path[0].base_len = rnd_len(seed);
		f->path[1].raw_len = rnd_len(seed);
		f->path[1].base_len = rnd_len(seed);
	} else if (size >= sizeof(struct fp_exec)) {
		struct fp_exec *e = (struct fp_exec *)buf;

		e->exe_len = rnd_len(seed);
		e->filename_len = rnd_len(seed);
	}
}

static void check_decoded(const struct fp_event *ev)
{
	unsigned int i;

	cr_assert_eq(ev->comm[FP_COMM_LEN], '\0');
	if (ev->type == FP_EV_FILE) {
		cr_assert(ev->file.npaths == 1 || ev->file.npaths == 2);
		for (i = 0; i < ev->file.npaths; i++) {
			const struct fp_event_path *ep = &ev->file.path[i];
			const struct fp_bytes *p = &ep->path;

			/* absolute unless it could not be made so */
			if (!ep->unresolved && !ep->base_unknown)
				cr_assert(p->len >= 1 && p->data[0] == '/');
			cr_assert_eq(p->data[p->len], '\0');
		}
	} else if (ev->type == FP_EV_EXEC) {
		/* an absolute path, or a file on no mount: one name */
		cr_assert(ev->exec.exe.len >= 1 &&
			  (ev->exec.exe.data[0] == '/' ||
			   !memchr(ev->exec.exe.data, '/', ev->exec.exe.len)));
	}
}

Test(decode, garbage_never_crashes)
{
	unsigned int seed = 4711;
	int iter;

	for (iter = 0; iter < 50000; iter++) {
		size_t size = rnd(&seed) % 400;
		/* exactly sized, so a sanitizer sees any over-read */
		unsigned char *buf = malloc(size ? size : 1);
		struct fp_event ev;
		int rc;

		scramble(buf, size, &seed);
		rc = fp_decode(buf, size, &ev);
		cr_assert(rc == 0 || rc == -EINVAL || rc == -ENOTSUP,
			  "iteration %d: fp_decode = %d", iter, rc);
		if (!rc) {
			check_decoded(&ev);
			fp_event_free(&ev);
		}
		free(buf);
	}
}

Test(decode, garbage_argv_stays_in_bounds)
{
	unsigned int seed = 815;
	int iter;

	for (iter = 0; iter < 50000; iter++) {
		size_t size = rnd(&seed) % 200;
		unsigned char *buf = malloc(size ? size : 1);
		const struct fp_argv *a = NULL;
		uint32_t hsize = 0, len = 0;
		int rc;

		scramble(buf, size, &seed);
		if (size >= sizeof(struct fp_argv) && rnd(&seed) % 2)
			((struct fp_argv *)buf)->len = rnd_len(&seed);
		rc = fp_decode_argv(buf, size, &a);
		if (!rc) {
			hsize = a->hdr.size;
			len = a->len;
		}
		free(buf);
		cr_assert(rc == 0 || rc == -EINVAL);
		/* what the collector will copy must be inside the buffer */
		if (!rc)
			cr_assert_leq(sizeof(*a) + (size_t)len, size,
				      "iteration %d: size %zu, hdr.size %u, "
				      "len %u accepted",
				      iter, size, hsize, len);
	}
}
