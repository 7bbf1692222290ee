// SPDX-License-Identifier: GPL-2.0
/* fp_reconcile on hand-built snapshots and events: no BPF, no live system */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "judge.h"
#include "policy.h"
#include "reconcile.h"
#include "procops.h"
#include "recon_fixture.h"
#include "sensitive.h"
#include "unit_util.h"

static struct fp_recon *R;
static struct fp_fs_snapshot B, A;
static struct fp_findings F;
static struct fp_proc_table PB, PA;
static struct fp_sock_table SB, SA;
static bool have_procs, have_socks;
static pid_t leftover[8];
static size_t nleftover;
static const char *run_cgroup;
static uint64_t now_ns = 1000;
static char *roots[] = { "/r" };

static void setup(void)
{
	R = fp_recon_new();
	cr_assert_not_null(R);
}

static void teardown(void)
{
	fp_findings_free(&F);
	fp_recon_free(R);
	fp_fs_snapshot_free(&B);
	fp_fs_snapshot_free(&A);
}

TestSuite(reconcile, .init = setup, .fini = teardown, .timeout = 10);

/* ---- snapshots ---- */

/* Valid until the next call on the same snapshot. */
static struct fp_fentry *fent(struct fp_fs_snapshot *s, const char *path,
			      char type)
{
	struct fp_fentry *ne = realloc(s->e, (s->n + 1) * sizeof(*ne));
	struct fp_fentry *e;

	cr_assert_not_null(ne);
	s->e = ne;
	e = &s->e[s->n++];
	memset(e, 0, sizeof(*e));
	e->path = str(path);
	e->type = type;
	e->mode = type == 'd' ? 0755 : 0644;
	e->size = type == 'f' ? 3 : 0;
	e->mtime_ns = e->ctime_ns = 500;
	e->ino = 1000 + s->n;
	e->hashed = type == 'f';
	if (type == 'f')
		memset(e->sha256, 0xaa, sizeof(e->sha256));
	return e;
}

/* the same entry in both snapshots */
static void both(const char *path, char type)
{
	fent(&B, path, type);
	fent(&A, path, type);
}

static struct fp_fentry *link_to(struct fp_fs_snapshot *s, const char *path,
				 const char *target)
{
	struct fp_fentry *e = fent(s, path, 'l');

	e->target = str(target);
	return e;
}

static int ent_cmp(const void *x, const void *y)
{
	const struct fp_fentry *a = x, *b = y;

	return fp_bytes_cmp(a->path.data, a->path.len, b->path.data,
			    b->path.len);
}

/* ---- events ---- */

static void feed(struct fp_event *ev)
{
	recon_feed(R, &now_ns, ev);
}

static void ev_exec(pid_t pid, pid_t ppid, const char *exe, const char *argv,
		    size_t argvlen)
{
	struct fp_event ev = exec_event_of(pid, ppid, exe, argv, argvlen);

	feed(&ev);
}

static void ev_fork(pid_t pid, pid_t ppid)
{
	struct fp_event ev = fork_event_of(pid, ppid);

	feed(&ev);
}

static void ev_exit(pid_t pid, int code, int sig)
{
	struct fp_event ev = { .type = FP_EV_EXIT, .pid = pid, .tid = pid };

	ev.exit.code = code;
	ev.exit.signal = sig;
	feed(&ev);
}

static void ev_file(pid_t pid, uint32_t sys, const char *p0, const char *p1,
		    uint64_t flags, bool created, int64_t ret)
{
	struct fp_event ev =
		file_event_of(pid, sys, p0, p1, flags, created, ret);

	feed(&ev);
}

static void ev_create(pid_t pid, const char *path)
{
	ev_file(pid, FP_SYS_OPENAT, path, NULL, O_WRONLY | O_CREAT | O_TRUNC,
		true, 3);
}

static void ev_write(pid_t pid, const char *path)
{
	ev_file(pid, FP_SYS_OPENAT, path, NULL, O_WRONLY | O_TRUNC, false, 3);
}

static void ev_unlink(pid_t pid, const char *path)
{
	ev_file(pid, FP_SYS_UNLINKAT, path, NULL, 0, false, 0);
}

static void ev_rename(pid_t pid, const char *from, const char *to)
{
	ev_file(pid, FP_SYS_RENAMEAT2, from, to, 0, false, 0);
}

static void ev_bind(pid_t pid, int family, int proto, const char *addr,
		    uint16_t port, uint16_t bound, const char *unix_path,
		    int64_t ret)
{
	struct fp_event ev = { .type = FP_EV_BIND, .pid = pid, .tid = pid };

	ev.bind.ret = ret;
	ev.bind.fd = 3;
	ev.bind.family = family;
	snprintf(ev.bind.address, sizeof(ev.bind.address), "%s", addr);
	if (unix_path)
		ev.bind.unix_path = str(unix_path);
	ev.bind.port = port;
	ev.bind.bound_port = bound;
	ev.bind.sock_type = proto == IPPROTO_UDP ? SOCK_DGRAM : SOCK_STREAM;
	ev.bind.protocol = proto;
	feed(&ev);
}

/* outside writers at the after snapshot (snapshot_holders.h) */
static struct fp_holder_table HOLDERS;

/* ---- running ---- */

static void reconcile(void)
{
	struct fp_recon_input in = {
		.fs_before = &B,
		.fs_after = &A,
		.proc_before = have_procs ? &PB : NULL,
		.proc_after = have_procs ? &PA : NULL,
		.sock_before = have_socks ? &SB : NULL,
		.sock_after = have_socks ? &SA : NULL,
		.roots = roots,
		.nroots = 1,
		.leftover = leftover,
		.nleftover = nleftover,
		.run_cgroup = run_cgroup,
		.holders = &HOLDERS,
	};

	if (B.n)
		qsort(B.e, B.n, sizeof(*B.e), ent_cmp);
	if (A.n)
		qsort(A.e, A.n, sizeof(*A.e), ent_cmp);
	cr_assert_eq(fp_reconcile(R, &in, &F), 0);
}

static size_t nfiles(enum fp_file_list l)
{
	return F.files[l].n;
}

static void assert_bytes(const struct fp_bytes *b, const char *want, size_t len)
{
	cr_assert_not_null(b->data, "want \"%.*s\", got NULL", (int)len, want);
	cr_assert(b->len == len && !memcmp(b->data, want, len),
		  "got \"%.*s\" (%zu), want \"%.*s\" (%zu)", (int)b->len,
		  b->data, b->len, (int)len, want, len);
}

static void assert_str(const struct fp_bytes *b, const char *want)
{
	assert_bytes(b, want, strlen(want));
}

static const struct fp_file_finding *file_at(enum fp_file_list l, size_t i)
{
	cr_assert_lt(i, F.files[l].n, "list %d has %zu entries, want > %zu",
		     (int)l, F.files[l].n, i);
	return &FP_FILES(&F, l)[i];
}

static const struct fp_file_finding *find_file(enum fp_file_list l,
					       const char *path)
{
	size_t i;

	for (i = 0; i < F.files[l].n; i++) {
		const struct fp_file_finding *x = &FP_FILES(&F, l)[i];

		if (x->path.len == strlen(path) &&
		    !memcmp(x->path.data, path, x->path.len))
			return x;
	}
	return NULL;
}

static void assert_sorted(void)
{
	size_t l, i;

	for (l = 0; l < FP_F_NLISTS; l++)
		for (i = 1; i < F.files[l].n; i++) {
			const struct fp_file_finding *a = &FP_FILES(&F,
								    l)[i - 1],
						     *b = &FP_FILES(&F, l)[i];

			cr_assert_lt(fp_bytes_cmp(a->path.data, a->path.len,
						  b->path.data, b->path.len),
				     0, "list %zu: %s before %s", l,
				     a->path.data, b->path.data);
		}
}

/* every file list not in mask is empty */
static void assert_only(unsigned int mask)
{
	size_t l;

	for (l = 0; l < FP_F_NLISTS; l++)
		if (!(mask & (1U << l)))
			cr_assert_eq(F.files[l].n, 0,
				     "list %zu has %zu entries, first %s", l,
				     F.files[l].n,
				     F.files[l].n ?
					     FP_FILES(&F, l)[0].path.data :
					     "");
}

#define L(l) (1U << (l))

/* ---- files: added ---- */

Test(reconcile, added_explained_by_create)
{
	static const char argv[] = "touch\0/r/new";
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&A, "/r/new", 'f');
	ev_exec(100, 1, "/usr/bin/touch", argv, sizeof(argv));
	ev_create(100, "/r/new");
	reconcile();
	assert_only(L(FP_F_ADDED));
	cr_assert_eq(nfiles(FP_F_ADDED), 1);
	x = file_at(FP_F_ADDED, 0);
	assert_str(&x->path, "/r/new");
	cr_assert(x->explained);
	cr_assert_null(x->before);
	cr_assert_not_null(x->after);
	cr_assert_eq(x->after->type, 'f');
	cr_assert_eq(x->by.pid, 100);
	cr_assert_eq(x->by.ppid, 1);
	assert_str(&x->by.exe, "/usr/bin/touch");
	assert_bytes(&x->by.argv, argv, sizeof(argv));
	cr_assert_eq(x->what, FP_F_ADDED);
}

Test(reconcile, added_unexplained)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&A, "/r/new", 'f');
	reconcile();
	assert_only(L(FP_F_ADDED) | L(FP_F_UNEXPLAINED));
	x = file_at(FP_F_ADDED, 0);
	cr_assert_not(x->explained);
	cr_assert_eq(x->by.pid, 0);
	x = file_at(FP_F_UNEXPLAINED, 0);
	assert_str(&x->path, "/r/new");
	cr_assert_eq(x->what, FP_F_ADDED);
	cr_assert_not_null(x->after);
	cr_assert_null(x->before);
}

Test(reconcile, added_not_explained_by_read_only_open)
{
	both("/r", 'd');
	fent(&A, "/r/new", 'f');
	ev_file(7, FP_SYS_OPENAT, "/r/new", NULL, O_RDONLY, false, 3);
	reconcile();
	cr_assert_eq(nfiles(FP_F_ADDED), 1);
	cr_assert_not(file_at(FP_F_ADDED, 0)->explained);
	cr_assert_eq(nfiles(FP_F_UNEXPLAINED), 1);
	cr_assert_not(fp_recon_touched(R, "/r/new", 6));
}

Test(reconcile, added_in_new_directory_explained_by_create)
{
	/* no mkdir event: the directory stays unexplained, the file not */
	both("/r", 'd');
	fent(&A, "/r/d", 'd');
	fent(&A, "/r/d/f", 'f');
	ev_create(5, "/r/d/f");
	reconcile();
	cr_assert_eq(nfiles(FP_F_ADDED), 2);
	cr_assert_not(find_file(FP_F_ADDED, "/r/d")->explained);
	cr_assert(find_file(FP_F_ADDED, "/r/d/f")->explained);
	cr_assert_eq(nfiles(FP_F_UNEXPLAINED), 1);
	assert_str(&file_at(FP_F_UNEXPLAINED, 0)->path, "/r/d");
}

/* ---- files: removed ---- */

Test(reconcile, removed_explained_by_unlink)
{
	static const char argv[] = "rm\0/r/old";
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&B, "/r/old", 'f');
	ev_exec(9, 2, "/usr/bin/rm", argv, sizeof(argv));
	ev_unlink(9, "/r/old");
	reconcile();
	assert_only(L(FP_F_REMOVED));
	x = file_at(FP_F_REMOVED, 0);
	assert_str(&x->path, "/r/old");
	cr_assert(x->explained);
	cr_assert_not_null(x->before);
	cr_assert_null(x->after);
	cr_assert_eq(x->by.pid, 9);
	assert_str(&x->by.exe, "/usr/bin/rm");
}

Test(reconcile, removed_unexplained)
{
	both("/r", 'd');
	fent(&B, "/r/old", 'f');
	ev_write(9, "/r/old"); /* writing it does not explain its absence */
	reconcile();
	assert_only(L(FP_F_REMOVED) | L(FP_F_UNEXPLAINED));
	cr_assert_not(file_at(FP_F_REMOVED, 0)->explained);
	cr_assert_eq(file_at(FP_F_UNEXPLAINED, 0)->what, FP_F_REMOVED);
}

Test(reconcile, removed_tree_explained_by_unlinks)
{
	both("/r", 'd');
	fent(&B, "/r/d", 'd');
	fent(&B, "/r/d/a", 'f');
	ev_unlink(4, "/r/d/a");
	ev_file(4, FP_SYS_UNLINKAT, "/r/d", NULL, 0x200 /* AT_REMOVEDIR */,
		false, 0);
	reconcile();
	assert_only(L(FP_F_REMOVED));
	cr_assert_eq(nfiles(FP_F_REMOVED), 2);
	cr_assert(file_at(FP_F_REMOVED, 0)->explained);
	cr_assert(file_at(FP_F_REMOVED, 1)->explained);
}

/* ---- files: changed ---- */

Test(reconcile, content_change_explained_by_write_open)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	fent(&A, "/r/f", 'f')->sha256[31] = 0x01;
	ev_write(11, "/r/f");
	reconcile();
	assert_only(L(FP_F_CHANGED));
	x = file_at(FP_F_CHANGED, 0);
	assert_str(&x->path, "/r/f");
	cr_assert_eq(x->changes, FP_CH_CONTENT);
	cr_assert(x->explained);
	cr_assert_eq(x->by.pid, 11);
	cr_assert_not_null(x->before);
	cr_assert_not_null(x->after);
}

Test(reconcile, content_change_unexplained)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	fent(&A, "/r/f", 'f')->sha256[0] = 0x01;
	ev_file(11, FP_SYS_OPENAT, "/r/f", NULL, O_RDONLY, false, 3);
	reconcile();
	assert_only(L(FP_F_CHANGED) | L(FP_F_UNEXPLAINED));
	cr_assert_not(file_at(FP_F_CHANGED, 0)->explained);
	x = file_at(FP_F_UNEXPLAINED, 0);
	cr_assert_eq(x->what, FP_F_CHANGED);
	cr_assert_eq(x->changes, FP_CH_CONTENT);
}

Test(reconcile, same_hash_other_mtime_is_unchanged)
{
	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	fent(&A, "/r/f", 'f')->mtime_ns = 99999;
	reconcile();
	assert_only(0);
}

Test(reconcile, unhashed_content_compared_by_size_and_mtime)
{
	struct fp_fentry *e;

	both("/r", 'd');
	fent(&B, "/r/f", 'f')->hashed = false;
	e = fent(&A, "/r/f", 'f');
	e->hashed = false;
	e->size = 4;
	reconcile();
	cr_assert_eq(nfiles(FP_F_CHANGED), 1);
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->changes, FP_CH_CONTENT);
}

Test(reconcile, mode_only_change_is_unexplained)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	fent(&A, "/r/f", 'f')->mode = 0755;
	/* even though the file was opened for writing */
	ev_write(11, "/r/f");
	reconcile();
	assert_only(L(FP_F_CHANGED) | L(FP_F_UNEXPLAINED));
	x = file_at(FP_F_CHANGED, 0);
	cr_assert_eq(x->changes, FP_CH_MODE);
	cr_assert_not(x->explained);
	cr_assert_eq(x->before->mode, 0644);
	cr_assert_eq(x->after->mode, 0755);
	x = file_at(FP_F_UNEXPLAINED, 0);
	assert_str(&x->path, "/r/f");
	cr_assert_eq(x->what, FP_F_CHANGED);
	cr_assert_eq(x->changes, FP_CH_MODE);
}

Test(reconcile, owner_only_change_is_unexplained)
{
	struct fp_fentry *e;

	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	e = fent(&A, "/r/f", 'f');
	e->uid = 1000;
	reconcile();
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->changes, FP_CH_OWNER);
	cr_assert_eq(file_at(FP_F_UNEXPLAINED, 0)->what, FP_F_CHANGED);

	fp_findings_free(&F);
	fp_fs_snapshot_free(&A);
	fent(&A, "/r", 'd');
	fent(&A, "/r/f", 'f')->gid = 100;
	reconcile();
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->changes, FP_CH_OWNER);
}

Test(reconcile, mode_and_content_change_needs_write_and_chmod)
{
	struct fp_fentry *e;

	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	e = fent(&A, "/r/f", 'f');
	e->mode = 0600;
	e->sha256[5] = 0;
	ev_write(3, "/r/f");
	reconcile();
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->changes,
		     FP_CH_CONTENT | FP_CH_MODE);
	cr_assert_not(file_at(FP_F_CHANGED, 0)->explained,
		      "a write does not explain a chmod");

	fp_findings_free(&F);
	ev_file(4, FP_SYS_FCHMODAT, "/r/f", NULL, 0, false, 0);
	reconcile();
	assert_only(L(FP_F_CHANGED));
	cr_assert(file_at(FP_F_CHANGED, 0)->explained);
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->by.pid, 4);
}

Test(reconcile, chmod_explains_mode_change)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	fent(&A, "/r/f", 'f')->mode = 0755;
	ev_file(12, FP_SYS_FCHMODAT, "/r/f", NULL, 0, false, 0);
	reconcile();
	assert_only(L(FP_F_CHANGED));
	x = file_at(FP_F_CHANGED, 0);
	cr_assert_eq(x->changes, FP_CH_MODE);
	cr_assert(x->explained);
	cr_assert_eq(x->by.pid, 12);
	cr_assert(fp_recon_touched(R, "/r/f", 4));
}

Test(reconcile, fchmod_and_chown_explain)
{
	struct fp_event ev = { .type = FP_EV_FILE, .pid = 13, .tid = 13 };

	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	fent(&A, "/r/f", 'f')->mode = 0600;
	fent(&B, "/r/g", 'f');
	fent(&A, "/r/g", 'f')->uid = 1000;
	/* fchmod: the path is that of the fd */
	ev.file.sys = FP_SYS_FCHMOD;
	ev.file.mode = 0600;
	ev.file.npaths = 1;
	ev.file.path[0].path = str("/r/f");
	ev.file.path[0].dirfd = 3;
	ev.file.path[0].from_fd = true;
	feed(&ev);
	ev = (struct fp_event){ .type = FP_EV_FILE, .pid = 14, .tid = 14 };
	ev.file.sys = FP_SYS_FCHOWNAT;
	ev.file.arg[0] = 1000;
	ev.file.arg[1] = (uint64_t)-1;
	ev.file.npaths = 1;
	ev.file.path[0].path = str("/r/g");
	ev.file.path[0].dirfd = AT_FDCWD;
	feed(&ev);
	reconcile();
	assert_only(L(FP_F_CHANGED));
	cr_assert(file_at(FP_F_CHANGED, 0)->explained);
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->by.pid, 13);
	cr_assert_eq(file_at(FP_F_CHANGED, 1)->changes, FP_CH_OWNER);
	cr_assert(file_at(FP_F_CHANGED, 1)->explained);
	cr_assert_eq(file_at(FP_F_CHANGED, 1)->by.pid, 14);
}

Test(reconcile, chmod_does_not_explain_content)
{
	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	fent(&A, "/r/f", 'f')->sha256[0] = 0;
	ev_file(12, FP_SYS_CHMOD, "/r/f", NULL, 0, false, 0);
	ev_file(12, FP_SYS_CHOWN, "/r/f", NULL, 0, false, 0);
	reconcile();
	assert_only(L(FP_F_CHANGED) | L(FP_F_UNEXPLAINED));
	cr_assert_not(file_at(FP_F_CHANGED, 0)->explained);
}

Test(reconcile, failed_chmod_explains_nothing)
{
	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	fent(&A, "/r/f", 'f')->mode = 0755;
	ev_file(12, FP_SYS_FCHMODAT, "/r/f", NULL, 0, false, -EPERM);
	reconcile();
	cr_assert_not(file_at(FP_F_CHANGED, 0)->explained);
	cr_assert_not(fp_recon_touched(R, "/r/f", 4));
}

Test(reconcile, replaced_by_rename_explains_mode_and_content)
{
	struct fp_fentry *e;

	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	e = fent(&A, "/r/f", 'f');
	e->mode = 0600;
	e->uid = 7;
	e->sha256[0] = 0;
	ev_create(5, "/r/f.tmp");
	ev_rename(5, "/r/f.tmp", "/r/f");
	reconcile();
	assert_only(L(FP_F_CHANGED));
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->changes,
		     FP_CH_CONTENT | FP_CH_MODE | FP_CH_OWNER);
	cr_assert(file_at(FP_F_CHANGED, 0)->explained);
}

Test(reconcile, truncate_explains_content)
{
	struct fp_event ev = { .type = FP_EV_FILE, .pid = 9, .tid = 9 };

	both("/r", 'd');
	fent(&B, "/r/f", 'f');
	fent(&A, "/r/f", 'f')->sha256[0] = 0;
	fent(&B, "/r/g", 'f');
	fent(&A, "/r/g", 'f')->sha256[0] = 0;
	ev_file(8, FP_SYS_TRUNCATE, "/r/f", NULL, 0, false, 0);
	ev.file.sys = FP_SYS_FTRUNCATE;
	ev.file.npaths = 1;
	ev.file.path[0].path = str("/r/g");
	ev.file.path[0].dirfd = 4;
	ev.file.path[0].from_fd = true;
	feed(&ev);
	reconcile();
	assert_only(L(FP_F_CHANGED));
	cr_assert(file_at(FP_F_CHANGED, 0)->explained);
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->by.pid, 8);
	cr_assert(file_at(FP_F_CHANGED, 1)->explained);
	cr_assert_eq(file_at(FP_F_CHANGED, 1)->by.pid, 9);
}

Test(reconcile, mkdir_mknod_symlink_link_explain_added)
{
	struct fp_event ev = { .type = FP_EV_FILE, .pid = 6, .tid = 6 };
	const struct fp_reads_conf in_roots = { .roots = roots, .nroots = 1 };
	size_t i;

	fp_recon_set_reads(R, &in_roots);
	both("/r", 'd');
	both("/r/orig", 'f');
	fent(&A, "/r/dir", 'd');
	fent(&A, "/r/fifo", 'p');
	link_to(&A, "/r/sym", "/etc/shadow");
	fent(&A, "/r/hard", 'f');
	ev_file(6, FP_SYS_MKDIRAT, "/r/dir", NULL, 0, false, 0);
	ev_file(6, FP_SYS_MKNODAT, "/r/fifo", NULL, 0, false, 0);
	/* symlink: the link first, then the target as given */
	ev.file.sys = FP_SYS_SYMLINKAT;
	ev.file.npaths = 2;
	ev.file.path[0].path = str("/r/sym");
	ev.file.path[0].dirfd = AT_FDCWD;
	ev.file.path[1].path = str("/etc/shadow");
	ev.file.path[1].dirfd = FP_DIRFD_NONE;
	ev.file.path[1].unresolved = true;
	feed(&ev);
	ev_file(6, FP_SYS_LINKAT, "/r/orig", "/r/hard", 0, false, 0);
	reconcile();
	assert_only(L(FP_F_ADDED));
	cr_assert_eq(nfiles(FP_F_ADDED), 4);
	for (i = 0; i < 4; i++) {
		cr_assert(file_at(FP_F_ADDED, i)->explained, "%s",
			  file_at(FP_F_ADDED, i)->path.data);
		cr_assert_eq(file_at(FP_F_ADDED, i)->by.pid, 6);
	}
	/* neither a symlink's target nor a link's source was touched */
	cr_assert_not(fp_recon_touched(R, "/etc/shadow", 11));
	cr_assert_not(fp_recon_touched(R, "/r/orig", 7));
	cr_assert(fp_recon_touched(R, "/r/hard", 7));
	cr_assert(fp_recon_touched(R, "/r/sym", 6));
}

Test(reconcile, mkdir_then_rmdir_is_transient)
{
	both("/r", 'd');
	ev_file(6, FP_SYS_MKDIR, "/r/t", NULL, 0, false, 0);
	ev_file(7, FP_SYS_RMDIR, "/r/t", NULL, 0, false, 0);
	reconcile();
	assert_only(L(FP_F_TRANSIENT));
	cr_assert_eq(fp_ff_actor(file_at(FP_F_TRANSIENT, 0), created_by)->pid,
		     6);
	cr_assert_eq(fp_ff_actor(file_at(FP_F_TRANSIENT, 0), removed_by)->pid,
		     7);
}

Test(reconcile, rmdir_explains_removed_dir)
{
	both("/r", 'd');
	fent(&B, "/r/d", 'd');
	ev_file(7, FP_SYS_RMDIR, "/r/d", NULL, 0, false, 0);
	reconcile();
	assert_only(L(FP_F_REMOVED));
	cr_assert(file_at(FP_F_REMOVED, 0)->explained);
}

Test(reconcile, outside_roots_chmod)
{
	both("/r", 'd');
	ev_file(7, FP_SYS_FCHMODAT, "/etc/passwd", NULL, 0, false, 0);
	reconcile();
	assert_only(L(FP_F_OUTSIDE));
	cr_assert_eq(file_at(FP_F_OUTSIDE, 0)->changes, FP_OP_ATTRS);
}

Test(reconcile, symlink_target_change)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	link_to(&B, "/r/l", "a");
	link_to(&A, "/r/l", "b");
	link_to(&B, "/r/same", "x");
	link_to(&A, "/r/same", "x");
	reconcile();
	assert_only(L(FP_F_CHANGED) | L(FP_F_UNEXPLAINED));
	cr_assert_eq(nfiles(FP_F_CHANGED), 1);
	x = file_at(FP_F_CHANGED, 0);
	assert_str(&x->path, "/r/l");
	cr_assert_eq(x->changes, FP_CH_TARGET);
	cr_assert_not(x->explained);
	assert_str(&x->before->target, "a");
	assert_str(&x->after->target, "b");
}

Test(reconcile, symlink_target_change_explained_by_rename)
{
	/* ln -sf: symlink to a temporary name, rename over the link */
	both("/r", 'd');
	link_to(&B, "/r/l", "a");
	link_to(&A, "/r/l", "b");
	ev_rename(8, "/r/l.tmp", "/r/l");
	reconcile();
	assert_only(L(FP_F_CHANGED));
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->changes, FP_CH_TARGET);
	cr_assert(file_at(FP_F_CHANGED, 0)->explained);
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->by.pid, 8);
}

Test(reconcile, type_change_file_to_dir)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&B, "/r/x", 'f');
	fent(&A, "/r/x", 'd')->mode = 0700;
	reconcile();
	assert_only(L(FP_F_CHANGED) | L(FP_F_UNEXPLAINED));
	x = file_at(FP_F_CHANGED, 0);
	cr_assert_eq(x->changes, FP_CH_TYPE);
	cr_assert_not(x->explained);
	cr_assert_eq(x->before->type, 'f');
	cr_assert_eq(x->after->type, 'd');
	cr_assert_eq(file_at(FP_F_UNEXPLAINED, 0)->what, FP_F_CHANGED);
}

Test(reconcile, type_change_explained_by_unlink)
{
	both("/r", 'd');
	fent(&B, "/r/x", 'f');
	fent(&A, "/r/x", 'd');
	ev_unlink(3, "/r/x");
	reconcile();
	assert_only(L(FP_F_CHANGED));
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->changes, FP_CH_TYPE);
	cr_assert(file_at(FP_F_CHANGED, 0)->explained);
}

/* ---- files: renames ---- */

Test(reconcile, directory_rename_explains_tree)
{
	size_t i;

	both("/r", 'd');
	fent(&B, "/r/d", 'd');
	fent(&B, "/r/d/a", 'f');
	fent(&B, "/r/d/sub", 'd');
	fent(&B, "/r/d/sub/b", 'f');
	fent(&A, "/r/e", 'd');
	fent(&A, "/r/e/a", 'f');
	fent(&A, "/r/e/sub", 'd');
	fent(&A, "/r/e/sub/b", 'f');
	ev_rename(21, "/r/d", "/r/e");
	reconcile();
	assert_only(L(FP_F_ADDED) | L(FP_F_REMOVED));
	cr_assert_eq(nfiles(FP_F_ADDED), 4);
	cr_assert_eq(nfiles(FP_F_REMOVED), 4);
	for (i = 0; i < 4; i++) {
		cr_assert(file_at(FP_F_ADDED, i)->explained, "%s",
			  file_at(FP_F_ADDED, i)->path.data);
		cr_assert(file_at(FP_F_REMOVED, i)->explained, "%s",
			  file_at(FP_F_REMOVED, i)->path.data);
		cr_assert_eq(file_at(FP_F_ADDED, i)->by.pid, 21);
	}
	assert_str(&file_at(FP_F_ADDED, 3)->path, "/r/e/sub/b");
	assert_str(&file_at(FP_F_REMOVED, 0)->path, "/r/d");
	assert_sorted();
}

Test(reconcile, rename_of_sibling_prefix_explains_nothing)
{
	/* /r/d renamed says nothing about /r/dd/x */
	both("/r", 'd');
	fent(&B, "/r/dd", 'd');
	fent(&B, "/r/dd/x", 'f');
	fent(&A, "/r/dd", 'd');
	ev_rename(3, "/r/d", "/r/e");
	reconcile();
	cr_assert_eq(nfiles(FP_F_REMOVED), 1);
	cr_assert_not(file_at(FP_F_REMOVED, 0)->explained);
}

Test(reconcile, file_rename_explains_added_and_removed)
{
	both("/r", 'd');
	fent(&B, "/r/a", 'f');
	fent(&A, "/r/b", 'f');
	ev_rename(3, "/r/a", "/r/b");
	reconcile();
	assert_only(L(FP_F_ADDED) | L(FP_F_REMOVED));
	cr_assert(file_at(FP_F_ADDED, 0)->explained);
	cr_assert(file_at(FP_F_REMOVED, 0)->explained);
}

Test(reconcile, rename_exchange_explains_both)
{
	both("/r", 'd');
	fent(&B, "/r/a", 'f');
	fent(&B, "/r/b", 'f')->sha256[0] = 1;
	fent(&A, "/r/a", 'f')->sha256[0] = 1;
	fent(&A, "/r/b", 'f');
	ev_file(3, FP_SYS_RENAMEAT2, "/r/a", "/r/b", 2 /* RENAME_EXCHANGE */,
		false, 0);
	reconcile();
	assert_only(L(FP_F_CHANGED));
	cr_assert_eq(nfiles(FP_F_CHANGED), 2);
	cr_assert(file_at(FP_F_CHANGED, 0)->explained);
	cr_assert(file_at(FP_F_CHANGED, 1)->explained);
}

Test(reconcile, rename_out_of_roots)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&B, "/r/a", 'f');
	ev_rename(3, "/r/a", "/tmp/a");
	reconcile();
	assert_only(L(FP_F_REMOVED) | L(FP_F_OUTSIDE));
	cr_assert(file_at(FP_F_REMOVED, 0)->explained);
	x = file_at(FP_F_OUTSIDE, 0);
	assert_str(&x->path, "/tmp/a");
	cr_assert_eq(x->changes, FP_OP_RENAMED_TO);
}

/* ---- files: transient ---- */

Test(reconcile, transient_create_then_unlink)
{
	static const char sh[] = "sh\0-c\0x";
	static const char rm[] = "rm\0/r/tmp";
	const struct fp_file_finding *x;

	both("/r", 'd');
	ev_exec(200, 1, "/bin/sh", sh, sizeof(sh));
	ev_create(200, "/r/tmp");
	ev_fork(201, 200);
	ev_exec(201, 200, "/usr/bin/rm", rm, sizeof(rm));
	ev_unlink(201, "/r/tmp");
	reconcile();
	assert_only(L(FP_F_TRANSIENT));
	x = file_at(FP_F_TRANSIENT, 0);
	assert_str(&x->path, "/r/tmp");
	cr_assert_eq(fp_ff_actor(x, created_by)->pid, 200);
	assert_str(&fp_ff_actor(x, created_by)->exe, "/bin/sh");
	assert_bytes(&fp_ff_actor(x, created_by)->argv, sh, sizeof(sh));
	cr_assert_eq(fp_ff_actor(x, removed_by)->pid, 201);
	cr_assert_eq(fp_ff_actor(x, removed_by)->ppid, 200);
	assert_str(&fp_ff_actor(x, removed_by)->exe, "/usr/bin/rm");
	assert_bytes(&fp_ff_actor(x, removed_by)->argv, rm, sizeof(rm));
	cr_assert_eq(x->by.pid, 201);
	cr_assert(x->explained);
}

Test(reconcile, transient_by_forked_child_uses_parent_exec)
{
	static const char py[] = "python3\0x.py";
	const struct fp_file_finding *x;

	both("/r", 'd');
	ev_exec(300, 1, "/usr/bin/python3", py, sizeof(py));
	ev_fork(301, 300);
	ev_create(301, "/r/t");
	ev_unlink(300, "/r/t");
	reconcile();
	x = file_at(FP_F_TRANSIENT, 0);
	cr_assert_eq(fp_ff_actor(x, created_by)->pid, 301);
	cr_assert_eq(fp_ff_actor(x, created_by)->ppid, 300);
	assert_str(&fp_ff_actor(x, created_by)->exe, "/usr/bin/python3");
	cr_assert_eq(fp_ff_actor(x, removed_by)->pid, 300);
	assert_str(&fp_ff_actor(x, removed_by)->exe, "/usr/bin/python3");
}

Test(reconcile, created_then_renamed_away_is_not_transient)
{
	both("/r", 'd');
	fent(&A, "/r/final", 'f');
	ev_create(5, "/r/final.tmp");
	ev_rename(5, "/r/final.tmp", "/r/final");
	reconcile();
	assert_only(L(FP_F_ADDED));
	assert_str(&file_at(FP_F_ADDED, 0)->path, "/r/final");
	cr_assert(file_at(FP_F_ADDED, 0)->explained);
}

Test(reconcile, created_renamed_then_unlinked_is_transient_at_new_name)
{
	both("/r", 'd');
	ev_create(5, "/r/a");
	ev_rename(6, "/r/a", "/r/b");
	ev_unlink(7, "/r/b");
	reconcile();
	assert_only(L(FP_F_TRANSIENT));
	cr_assert_eq(nfiles(FP_F_TRANSIENT), 1);
	assert_str(&file_at(FP_F_TRANSIENT, 0)->path, "/r/b");
	cr_assert_eq(fp_ff_actor(file_at(FP_F_TRANSIENT, 0), created_by)->pid,
		     5);
	cr_assert_eq(fp_ff_actor(file_at(FP_F_TRANSIENT, 0), removed_by)->pid,
		     7);
}

Test(reconcile, preexisting_file_unlinked_is_not_transient)
{
	both("/r", 'd');
	fent(&B, "/r/old", 'f');
	ev_write(5, "/r/old");
	ev_unlink(5, "/r/old");
	reconcile();
	assert_only(L(FP_F_REMOVED));
}

Test(reconcile, created_unlinked_recreated_is_added_not_transient)
{
	both("/r", 'd');
	fent(&A, "/r/x", 'f');
	ev_create(5, "/r/x");
	ev_unlink(5, "/r/x");
	ev_create(6, "/r/x");
	reconcile();
	assert_only(L(FP_F_ADDED));
	cr_assert_eq(file_at(FP_F_ADDED, 0)->by.pid, 6);
}

/* ---- files: outside the roots ---- */

Test(reconcile, outside_roots_lists_ops)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	ev_create(5, "/etc/new.conf");
	ev_write(5, "/etc/passwd");
	ev_unlink(6, "/var/old");
	ev_rename(7, "/tmp/a", "/tmp/b");
	ev_file(8, FP_SYS_OPENAT, "/etc/hosts", NULL, O_RDONLY, false, 3);
	ev_create(9, "/r/inside");
	ev_create(9, "/rr/not-inside");
	fent(&A, "/r/inside", 'f');
	reconcile();
	assert_only(L(FP_F_OUTSIDE) | L(FP_F_ADDED));
	cr_assert_eq(nfiles(FP_F_OUTSIDE), 6);
	assert_sorted();
	x = file_at(FP_F_OUTSIDE, 0);
	assert_str(&x->path, "/etc/new.conf");
	cr_assert_eq(x->changes, FP_OP_CREATED | FP_OP_WRITTEN);
	cr_assert_eq(x->by.pid, 5);
	cr_assert(x->explained);
	x = file_at(FP_F_OUTSIDE, 1);
	assert_str(&x->path, "/etc/passwd");
	cr_assert_eq(x->changes, FP_OP_WRITTEN);
	x = file_at(FP_F_OUTSIDE, 2);
	assert_str(&x->path, "/rr/not-inside");
	x = file_at(FP_F_OUTSIDE, 3);
	assert_str(&x->path, "/tmp/a");
	cr_assert_eq(x->changes, FP_OP_RENAMED_FROM);
	x = file_at(FP_F_OUTSIDE, 4);
	assert_str(&x->path, "/tmp/b");
	cr_assert_eq(x->changes, FP_OP_RENAMED_TO);
	x = file_at(FP_F_OUTSIDE, 5);
	assert_str(&x->path, "/var/old");
	cr_assert_eq(x->changes, FP_OP_REMOVED);
	cr_assert_eq(x->by.pid, 6);
	/* one process each, none run: no actors apart (a run writing
	 * outside its roots makes thousands of these) */
	for (size_t i = 0; i < 6; i++)
		cr_assert_null(file_at(FP_F_OUTSIDE, i)->more, "%zu", i);
}

Test(reconcile, outside_roots_sorted_by_bytes)
{
	char p[64];
	int i;

	both("/r", 'd');
	/* enough paths to spread over the hash table, in a scrambled order */
	for (i = 0; i < 100; i++) {
		snprintf(p, sizeof(p), "/tmp/f%03d", (i * 37) % 100);
		ev_write(5, p);
	}
	ev_write(5, "/tmp/\xff");
	ev_write(5, "/tmp/F");
	reconcile();
	cr_assert_eq(nfiles(FP_F_OUTSIDE), 102);
	assert_sorted();
	assert_str(&file_at(FP_F_OUTSIDE, 0)->path, "/tmp/F");
	assert_str(&file_at(FP_F_OUTSIDE, 1)->path, "/tmp/f000");
	assert_str(&file_at(FP_F_OUTSIDE, 101)->path, "/tmp/\xff");
}

/* ---- files: an open for writing is not a write ---- */

static void changed_log(void)
{
	both("/r", 'd');
	fent(&B, "/r/log", 'f');
	fent(&A, "/r/log", 'f')->sha256[0] = 1;
}

static void ev_append(pid_t pid, const char *path)
{
	ev_file(pid, FP_SYS_OPENAT, path, NULL, O_WRONLY | O_APPEND, false, 3);
}

Test(reconcile, an_open_for_appending_is_not_called_the_writer)
{
	const struct fp_file_finding *x;

	changed_log();
	ev_append(5, "/r/log");
	reconcile();
	assert_only(L(FP_F_CHANGED));
	x = file_at(FP_F_CHANGED, 0);
	cr_assert(x->explained);
	cr_assert(x->by_open);
	cr_assert_eq(x->by.pid, 5);
}

Test(reconcile, a_truncating_open_is_a_write)
{
	changed_log();
	ev_write(5, "/r/log");
	reconcile();
	cr_assert(file_at(FP_F_CHANGED, 0)->explained);
	cr_assert_not(file_at(FP_F_CHANGED, 0)->by_open);
}

Test(reconcile, a_change_after_the_run_ended_is_not_the_openers)
{
	changed_log();
	/* every process of the run ended before the after snapshot began;
	 * the file was modified after that */
	A.started_ns = 10000;
	A.e[1].mtime_ns = 10001;
	ev_append(5, "/r/log");
	reconcile();
	assert_only(L(FP_F_CHANGED) | L(FP_F_UNEXPLAINED));
	cr_assert_not(file_at(FP_F_CHANGED, 0)->explained);
	cr_assert_not(file_at(FP_F_CHANGED, 0)->by_open);
	cr_assert_eq(file_at(FP_F_CHANGED, 0)->by.pid, 0);
}

Test(reconcile, a_change_before_the_after_snapshot_stays_the_openers)
{
	changed_log();
	A.started_ns = 10000;
	A.e[1].mtime_ns = 9999;
	ev_append(5, "/r/log");
	reconcile();
	assert_only(L(FP_F_CHANGED));
	cr_assert(file_at(FP_F_CHANGED, 0)->by_open);
}

Test(reconcile, a_late_change_with_a_leftover_cannot_be_decided)
{
	changed_log();
	A.started_ns = 10000;
	A.e[1].mtime_ns = 10001;
	leftover[nleftover++] = 5;
	ev_append(5, "/r/log");
	reconcile();
	cr_assert(file_at(FP_F_CHANGED, 0)->explained);
	cr_assert(file_at(FP_F_CHANGED, 0)->by_open);
}

Test(reconcile, a_late_change_the_run_made_surely_is_the_runs)
{
	changed_log();
	A.started_ns = 10000;
	A.e[1].mtime_ns = 10001;
	ev_write(5, "/r/log");
	reconcile();
	cr_assert(file_at(FP_F_CHANGED, 0)->explained);
}

Test(reconcile, outside_roots_open_only_is_by_open)
{
	both("/r", 'd');
	ev_append(5, "/var/log/x");
	ev_write(5, "/var/log/y");
	reconcile();
	cr_assert(find_file(FP_F_OUTSIDE, "/var/log/x")->by_open);
	cr_assert_not(find_file(FP_F_OUTSIDE, "/var/log/y")->by_open);
}

static void ev_mkdir(pid_t pid, const char *path)
{
	ev_file(pid, FP_SYS_MKDIRAT, path, NULL, 0755, false, 0);
}

/* pip: a tree built under /tmp, then its directory renamed into the root */
Test(reconcile, files_of_a_directory_renamed_into_a_root_are_reported_once)
{
	both("/r", 'd');
	fent(&A, "/r/pkg", 'd');
	fent(&A, "/r/pkg/a.py", 'f');
	fent(&A, "/r/pkg/sub", 'd');
	fent(&A, "/r/pkg/sub/b.py", 'f');
	ev_mkdir(5, "/tmp/pip-x");
	ev_mkdir(5, "/tmp/pip-x/pkg");
	ev_create(5, "/tmp/pip-x/pkg/a.py");
	ev_mkdir(5, "/tmp/pip-x/pkg/sub");
	ev_create(5, "/tmp/pip-x/pkg/sub/b.py");
	ev_rename(5, "/tmp/pip-x/pkg", "/r/pkg");
	reconcile();
	assert_only(L(FP_F_ADDED) | L(FP_F_OUTSIDE));
	cr_assert_eq(nfiles(FP_F_ADDED), 4);
	/* only the directory that stays outside: nothing else ended there */
	cr_assert_eq(nfiles(FP_F_OUTSIDE), 1);
	assert_str(&file_at(FP_F_OUTSIDE, 0)->path, "/tmp/pip-x");
}

Test(reconcile, a_renamed_directory_takes_only_what_it_held_then)
{
	both("/r", 'd');
	fent(&A, "/r/d", 'd');
	fent(&A, "/r/d/old", 'f');
	ev_create(5, "/tmp/d/old");
	ev_rename(5, "/tmp/d", "/r/d");
	/* made after the rename, in a new /tmp/d: it stays there */
	ev_create(5, "/tmp/d/new");
	reconcile();
	cr_assert_not_null(find_file(FP_F_OUTSIDE, "/tmp/d/new"));
	cr_assert_null(find_file(FP_F_OUTSIDE, "/tmp/d/old"));
	/* /tmp/d was there before the run: its move is a change there */
	cr_assert_not_null(find_file(FP_F_OUTSIDE, "/tmp/d"));
}

Test(reconcile, renames_of_directories_are_followed_to_the_end)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	ev_create(5, "/tmp/a/f");
	ev_rename(5, "/tmp/a", "/tmp/b");
	ev_rename(5, "/tmp/b", "/var/c");
	reconcile();
	/* /tmp/a and /tmp/b were there before (not made by the run) */
	x = find_file(FP_F_OUTSIDE, "/var/c/f");
	cr_assert_not_null(x);
	cr_assert_eq(x->changes,
		     FP_OP_CREATED | FP_OP_WRITTEN | FP_OP_RENAMED_TO);
	cr_assert_null(find_file(FP_F_OUTSIDE, "/tmp/a/f"));
	cr_assert_null(find_file(FP_F_OUTSIDE, "/tmp/b/f"));
}

Test(reconcile, created_outside_moved_in_and_removed_is_transient_there)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	ev_create(5, "/tmp/d/f");
	ev_rename(6, "/tmp/d", "/r/d");
	ev_unlink(7, "/r/d/f");
	reconcile();
	cr_assert_null(find_file(FP_F_OUTSIDE, "/tmp/d/f"));
	x = find_file(FP_F_TRANSIENT, "/r/d/f");
	cr_assert_not_null(x);
	cr_assert_eq(fp_ff_actor(x, created_by)->pid, 5);
	cr_assert_eq(fp_ff_actor(x, removed_by)->pid, 7);
}

Test(reconcile, a_file_made_outside_and_renamed_in_is_reported_once)
{
	both("/r", 'd');
	fent(&A, "/r/f", 'f');
	ev_create(5, "/tmp/f.tmp");
	ev_rename(5, "/tmp/f.tmp", "/r/f");
	reconcile();
	assert_only(L(FP_F_ADDED));
	cr_assert(file_at(FP_F_ADDED, 0)->explained);
}

Test(reconcile, a_file_there_before_and_renamed_away_stays_a_change)
{
	both("/r", 'd');
	fent(&A, "/r/f", 'f');
	ev_rename(5, "/etc/f", "/r/f");
	reconcile();
	cr_assert_not_null(find_file(FP_F_OUTSIDE, "/etc/f"));
}

Test(reconcile, root_slash_has_no_outside)
{
	static char *slash[] = { "/" };
	struct fp_recon_input in = {
		.fs_before = &B, .fs_after = &A, .roots = slash, .nroots = 1
	};

	ev_write(5, "/etc/passwd");
	cr_assert_eq(fp_reconcile(R, &in, &F), 0);
	cr_assert_eq(nfiles(FP_F_OUTSIDE), 0);
}

/* ---- failed syscalls ---- */

Test(reconcile, failed_syscalls_change_nothing)
{
	both("/r", 'd');
	both("/r/keep", 'f');
	fent(&A, "/r/new", 'f');
	fent(&B, "/r/gone", 'f');
	ev_file(5, FP_SYS_OPENAT, "/r/new", NULL, O_WRONLY | O_CREAT, true,
		-EEXIST);
	ev_file(5, FP_SYS_UNLINKAT, "/r/gone", NULL, 0, false, -EACCES);
	ev_file(5, FP_SYS_UNLINKAT, "/r/keep", NULL, 0, false, -EBUSY);
	ev_file(5, FP_SYS_RENAMEAT, "/r/keep", "/r/x", 0, false, -EXDEV);
	ev_file(5, FP_SYS_OPENAT, "/etc/x", NULL, O_WRONLY | O_CREAT, true,
		-EACCES);
	ev_file(5, FP_SYS_OPENAT, "/r/t", NULL, O_WRONLY | O_CREAT, true,
		-ENOSPC);
	ev_file(5, FP_SYS_UNLINKAT, "/r/t", NULL, 0, false, -ENOENT);
	reconcile();
	assert_only(L(FP_F_ADDED) | L(FP_F_REMOVED) | L(FP_F_UNEXPLAINED));
	cr_assert_not(file_at(FP_F_ADDED, 0)->explained);
	cr_assert_not(file_at(FP_F_REMOVED, 0)->explained);
	cr_assert_eq(nfiles(FP_F_TRANSIENT), 0);
	cr_assert_eq(nfiles(FP_F_OUTSIDE), 0);
	cr_assert_not(fp_recon_touched(R, "/r/new", 6));
	cr_assert_not(fp_recon_touched(R, "/r/gone", 7));
	cr_assert_not(fp_recon_touched(R, "/r/keep", 7));
	cr_assert_not(fp_recon_touched(R, "/r/x", 4));
	cr_assert_not(fp_recon_touched(R, "/etc/x", 6));
}

Test(reconcile, failed_syscalls_leave_unexplained)
{
	both("/r", 'd');
	fent(&A, "/r/new", 'f');
	fent(&B, "/r/gone", 'f');
	ev_file(5, FP_SYS_OPENAT, "/r/new", NULL, O_WRONLY | O_CREAT, true,
		-EEXIST);
	ev_file(5, FP_SYS_UNLINKAT, "/r/gone", NULL, 0, false, -EACCES);
	reconcile();
	cr_assert_eq(nfiles(FP_F_UNEXPLAINED), 2);
	cr_assert_eq(find_file(FP_F_UNEXPLAINED, "/r/new")->what, FP_F_ADDED);
	cr_assert_eq(find_file(FP_F_UNEXPLAINED, "/r/gone")->what,
		     FP_F_REMOVED);
	cr_assert_eq(F.procs[FP_P_SHORT_LIVED].n, 0);
}

Test(reconcile, failed_bind_not_listed)
{
	ev_bind(5, AF_INET, IPPROTO_TCP, "127.0.0.1", 80, 0, NULL, -EACCES);
	reconcile();
	cr_assert_eq(F.net[FP_N_BOUND].n, 0);
}

/* ---- touched ---- */

Test(reconcile, touched)
{
	ev_write(5, "/r/w");
	ev_create(5, "/r/c");
	ev_unlink(5, "/r/u");
	ev_rename(5, "/r/from", "/r/to");
	ev_file(5, FP_SYS_OPENAT, "/r/ro", NULL, O_RDONLY, false, 3);
	ev_file(5, FP_SYS_OPEN, "/r/rw", NULL, O_RDWR, false, 3);
	ev_file(5, FP_SYS_CREAT, "/r/creat", NULL, O_WRONLY | O_CREAT, false,
		3);
	ev_file(5, FP_SYS_OPENAT, "/r/trunc", NULL, O_RDONLY | O_TRUNC, false,
		3);
	ev_file(5, FP_SYS_OPENAT, "/r", NULL, O_RDWR | O_TMPFILE, false, 3);
	ev_bind(5, AF_UNIX, 0, "/r/sock", 0, 0, "/r/sock", 0);
	cr_assert(fp_recon_touched(R, "/r/w", 4));
	cr_assert(fp_recon_touched(R, "/r/c", 4));
	cr_assert(fp_recon_touched(R, "/r/u", 4));
	cr_assert(fp_recon_touched(R, "/r/from", 7));
	cr_assert(fp_recon_touched(R, "/r/to", 5));
	cr_assert(fp_recon_touched(R, "/r/rw", 5));
	cr_assert(fp_recon_touched(R, "/r/creat", 8));
	cr_assert(fp_recon_touched(R, "/r/trunc", 8));
	cr_assert(fp_recon_touched(R, "/r/sock", 7));
	cr_assert_not(fp_recon_touched(R, "/r/ro", 5));
	cr_assert_not(fp_recon_touched(R, "/r", 2), "O_TMPFILE names no file");
	cr_assert_not(fp_recon_touched(R, "/r/never", 8));
	/* length, not NUL, ends the path */
	cr_assert_not(fp_recon_touched(R, "/r/wx", 3));
	cr_assert(fp_recon_touched(R, "/r/wx", 4));
}

Test(reconcile, touched_on_empty_state)
{
	cr_assert_not(fp_recon_touched(R, "/r/x", 4));
}

/* ---- unreadable ---- */

Test(reconcile, unreadable_dir_hides_children)
{
	struct fp_fentry *e;

	both("/r", 'd');
	fent(&B, "/r/secret", 'd');
	fent(&B, "/r/secret/f", 'f');
	e = fent(&A, "/r/secret", 'd');
	e->err = EACCES;
	reconcile();
	assert_only(L(FP_F_UNREADABLE));
	cr_assert_eq(file_at(FP_F_UNREADABLE, 0)->err, EACCES);
	assert_str(&file_at(FP_F_UNREADABLE, 0)->path, "/r/secret");
}

Test(reconcile, dir_readable_only_after_adds_nothing)
{
	both("/r", 'd');
	fent(&B, "/r/secret", 'd')->err = EACCES;
	fent(&A, "/r/secret", 'd');
	fent(&A, "/r/secret/f", 'f');
	reconcile();
	assert_only(L(FP_F_UNREADABLE));
	cr_assert_eq(file_at(FP_F_UNREADABLE, 0)->err, EACCES);
}

/* ---- processes ---- */

static void procs(struct fp_proc_table *t, struct fp_proc *p, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		cr_assert_lt(p[i - 1].pid, p[i].pid, "proc table not sorted");
	t->procs = p;
	t->n = n;
	have_procs = true;
}

#define B_(s)                              \
	{                                  \
		(char *)(s), sizeof(s) - 1 \
	}

static const struct fp_proc_finding *proc_at(enum fp_proc_list l, size_t i)
{
	cr_assert_lt(i, F.procs[l].n, "proc list %d has %zu entries", (int)l,
		     F.procs[l].n);
	return &FP_PROCS(&F, l)[i];
}

Test(reconcile, executed_lists_each_exec)
{
	static const char a1[] = "sh\0-c\0ls";
	static const char a2[] = "ls";
	const struct fp_proc_finding *p;

	ev_exec(10, 1, "/bin/sh", a1, sizeof(a1));
	ev_fork(11, 10);
	ev_exec(11, 10, "/bin/ls", a2, sizeof(a2));
	ev_exec(11, 10, "/bin/true", "", 0);
	reconcile();
	cr_assert_eq(F.procs[FP_P_EXECUTED].n, 3);
	p = proc_at(FP_P_EXECUTED, 0);
	cr_assert_eq(p->p.pid, 10);
	cr_assert_eq(p->p.ppid, 1);
	assert_str(&p->p.exe, "/bin/sh");
	assert_bytes(&p->p.argv, a1, sizeof(a1));
	cr_assert_gt(p->ts_ns, 0);
	p = proc_at(FP_P_EXECUTED, 1);
	cr_assert_eq(p->p.pid, 11);
	cr_assert_eq(p->p.ppid, 10);
	assert_str(&p->p.exe, "/bin/ls");
	cr_assert_lt(proc_at(FP_P_EXECUTED, 0)->ts_ns, p->ts_ns);
	assert_str(&proc_at(FP_P_EXECUTED, 2)->p.exe, "/bin/true");
	assert_str(&proc_at(FP_P_EXECUTED, 2)->p.argv, "");
}

Test(reconcile, short_lived)
{
	static const char a1[] = "sh";
	static const char a2[] = "sleep\0001";
	const struct fp_proc_finding *p;

	ev_exec(10, 1, "/bin/sh", a1, sizeof(a1));
	ev_fork(11, 10);
	ev_exec(11, 10, "/bin/sleep", a2, sizeof(a2));
	ev_exit(11, 0, 0);
	ev_fork(12, 10);
	ev_exit(12, -1, 9);
	ev_exit(999, 0, 0); /* never seen starting: not ours to list */
	reconcile();
	cr_assert_eq(F.procs[FP_P_SHORT_LIVED].n, 2);
	p = proc_at(FP_P_SHORT_LIVED, 0);
	cr_assert_eq(p->p.pid, 11);
	cr_assert_eq(p->p.ppid, 10);
	assert_str(&p->p.exe, "/bin/sleep");
	assert_bytes(&p->p.argv, a2, sizeof(a2));
	cr_assert_eq(p->exit_code, 0);
	cr_assert_eq(p->signal, 0);
	p = proc_at(FP_P_SHORT_LIVED, 1);
	cr_assert_eq(p->p.pid, 12);
	assert_str(&p->p.exe, "/bin/sh");
	cr_assert_eq(p->exit_code, -1);
	cr_assert_eq(p->signal, 9);
}

Test(reconcile, duplicate_exit_listed_once)
{
	ev_fork(11, 10);
	ev_exit(11, 0, 0);
	ev_exit(11, 0, 0);
	reconcile();
	cr_assert_eq(F.procs[FP_P_SHORT_LIVED].n, 1);
}

Test(reconcile, leftover_details_from_after_table)
{
	static const char argv[] = "sleep\0100";
	struct fp_proc pa[] = {
		{ .pid = 1, .start_ticks = 1, .exe = B_("/sbin/init") },
		{ .pid = 300,
		  .ppid = 1,
		  .start_ticks = 50,
		  .exe = B_("/usr/bin/sleep"),
		  .argv = { (char *)argv, sizeof(argv) },
		  .cgroup = B_("/footprint/run-1-2") },
	};
	struct fp_proc pb[] = {
		{ .pid = 1, .start_ticks = 1, .exe = B_("/sbin/init") },
	};
	const struct fp_proc_finding *p;

	procs(&PB, pb, 1);
	procs(&PA, pa, 2);
	leftover[0] = 300;
	leftover[1] = 301; /* gone from the table: details from its exec */
	nleftover = 2;
	run_cgroup = "/footprint/run-1-2";
	ev_exec(301, 300, "/usr/bin/yes", "yes", 4);
	reconcile();
	cr_assert_eq(F.procs[FP_P_LEFTOVER].n, 2);
	p = proc_at(FP_P_LEFTOVER, 0);
	cr_assert_eq(p->p.pid, 300);
	cr_assert_eq(p->p.ppid, 1);
	assert_str(&p->p.exe, "/usr/bin/sleep");
	assert_bytes(&p->p.argv, argv, sizeof(argv));
	p = proc_at(FP_P_LEFTOVER, 1);
	cr_assert_eq(p->p.pid, 301);
	cr_assert_eq(p->p.ppid, 300);
	assert_str(&p->p.exe, "/usr/bin/yes");
	cr_assert_eq(F.procs[FP_P_NEW_OUTSIDE].n, 0);
	cr_assert_eq(F.procs[FP_P_DISAPPEARED].n, 0);
}

Test(reconcile, new_outside_and_disappeared)
{
	struct fp_proc pb[] = {
		{ .pid = 1, .start_ticks = 1, .exe = B_("/sbin/init") },
		{ .pid = 3, .start_ticks = 2, .kernel_thread = true },
		{ .pid = 600, .start_ticks = 10, .exe = B_("/usr/sbin/d") },
		{ .pid = 700, .start_ticks = 11, .exe = B_("/usr/bin/gone") },
	};
	struct fp_proc pa[] = {
		{ .pid = 1, .start_ticks = 1, .exe = B_("/sbin/init") },
		{ .pid = 2, .start_ticks = 40, .kernel_thread = true },
		{ .pid = 300,
		  .start_ticks = 50,
		  .exe = B_("/usr/bin/sleep"),
		  .cgroup = B_("/system.slice/escaped") },
		{ .pid = 400,
		  .start_ticks = 51,
		  .exe = B_("/bin/cat"),
		  .cgroup = B_("/footprint/run-1-2/inner") },
		{ .pid = 401,
		  .start_ticks = 52,
		  .exe = B_("/bin/cat"),
		  .cgroup = B_("/footprint/run-1-2") },
		{ .pid = 500,
		  .ppid = 1,
		  .start_ticks = 53,
		  .exe = B_("/usr/sbin/cron"),
		  .argv = B_("cron\0-f\0"),
		  .cgroup = B_("/system.slice/cron.service") },
		{ .pid = 501,
		  .start_ticks = 54,
		  .exe = B_("/bin/x"),
		  .cgroup = B_("/footprint/run-1-20") },
		{ .pid = 600, .start_ticks = 99, .exe = B_("/usr/sbin/d") },
	};
	const struct fp_proc_finding *p;

	procs(&PB, pb, 4);
	procs(&PA, pa, 8);
	leftover[0] = 300;
	nleftover = 1;
	run_cgroup = "/footprint/run-1-2";
	reconcile();
	cr_assert_eq(F.procs[FP_P_NEW_OUTSIDE].n, 3);
	p = proc_at(FP_P_NEW_OUTSIDE, 0);
	cr_assert_eq(p->p.pid, 500);
	cr_assert_eq(p->p.ppid, 1);
	assert_str(&p->p.exe, "/usr/sbin/cron");
	assert_bytes(&p->p.argv, "cron\0-f\0", 8);
	/* a sibling cgroup whose name merely starts like ours */
	cr_assert_eq(proc_at(FP_P_NEW_OUTSIDE, 1)->p.pid, 501);
	/* same pid, other start time: a new process */
	cr_assert_eq(proc_at(FP_P_NEW_OUTSIDE, 2)->p.pid, 600);

	cr_assert_eq(F.procs[FP_P_DISAPPEARED].n, 2);
	cr_assert_eq(proc_at(FP_P_DISAPPEARED, 0)->p.pid, 600);
	p = proc_at(FP_P_DISAPPEARED, 1);
	cr_assert_eq(p->p.pid, 700);
	assert_str(&p->p.exe, "/usr/bin/gone");
	cr_assert_eq(F.procs[FP_P_LEFTOVER].n, 1);
}

Test(reconcile, no_proc_tables_no_proc_diff)
{
	leftover[0] = 42;
	nleftover = 1;
	reconcile();
	cr_assert_eq(F.procs[FP_P_LEFTOVER].n, 1);
	cr_assert_eq(proc_at(FP_P_LEFTOVER, 0)->p.pid, 42);
	assert_str(&proc_at(FP_P_LEFTOVER, 0)->p.exe, "");
	cr_assert_eq(F.procs[FP_P_NEW_OUTSIDE].n, 0);
	cr_assert_eq(F.procs[FP_P_DISAPPEARED].n, 0);
}

/* ---- network ---- */

static void socks(struct fp_sock_table *t, struct fp_sock *s, size_t n)
{
	t->socks = s;
	t->n = n;
	have_socks = true;
}

Test(reconcile, bound_from_bind_events)
{
	const struct fp_net_finding *n;

	both("/r", 'd');
	fent(&A, "/r/sock", 's');
	ev_bind(10, AF_INET, IPPROTO_TCP, "127.0.0.1", 0, 41234, NULL, 0);
	ev_bind(10, AF_INET6, IPPROTO_UDP, "::1", 53, 53, NULL, 0);
	ev_bind(11, AF_UNIX, 0, "/r/sock", 0, 0, "/r/sock", 0);
	reconcile();
	cr_assert_eq(F.net[FP_N_BOUND].n, 3);
	n = &FP_NETS(&F, FP_N_BOUND)[0];
	cr_assert_eq(n->pid, 10);
	cr_assert_eq(n->family, AF_INET);
	cr_assert_str_eq(n->address, "127.0.0.1");
	cr_assert_eq(n->port, 41234, "bound_port is what was bound");
	cr_assert_eq(n->protocol, IPPROTO_TCP);
	n = &FP_NETS(&F, FP_N_BOUND)[1];
	cr_assert_eq(n->family, AF_INET6);
	cr_assert_str_eq(n->address, "::1");
	cr_assert_eq(n->port, 53);
	cr_assert_eq(n->protocol, IPPROTO_UDP);
	n = &FP_NETS(&F, FP_N_BOUND)[2];
	cr_assert_eq(n->family, AF_UNIX);
	assert_str(&n->unix_path, "/r/sock");
	cr_assert_eq(n->protocol, 0);
	/* the socket file it made explains the added entry */
	cr_assert_eq(nfiles(FP_F_ADDED), 1);
	cr_assert(file_at(FP_F_ADDED, 0)->explained);
	cr_assert_eq(nfiles(FP_F_UNEXPLAINED), 0);
}

Test(reconcile, bind_port_used_when_bound_port_unknown)
{
	ev_bind(10, AF_INET, IPPROTO_UDP, "0.0.0.0", 5353, 0, NULL, 0);
	reconcile();
	cr_assert_eq(FP_NETS(&F, FP_N_BOUND)[0].port, 5353);
}

/* glibc's getaddrinfo binds a netlink socket: the kernel's, no port */
Test(reconcile, netlink_bind_is_not_bound)
{
	ev_bind(10, AF_NETLINK, 0, "", 0, 0, NULL, 0);
	ev_bind(10, AF_PACKET, 0, "", 0, 768, NULL, 0);
	reconcile();
	cr_assert_eq(F.net[FP_N_BOUND].n, 1);
	cr_assert_eq(FP_NETS(&F, FP_N_BOUND)[0].family, AF_PACKET);
	/* what the kernel left in skc_num is no port of a packet socket */
	cr_assert_eq(FP_NETS(&F, FP_N_BOUND)[0].port, 0);
}

Test(reconcile, listening_new_by_inode)
{
	struct fp_sock sb[] = {
		{ AF_INET, IPPROTO_TCP, "0.0.0.0", 22, 100, 1 },
		{ AF_INET, IPPROTO_TCP, "127.0.0.1", 631, 101, 1 },
	};
	struct fp_sock sa[] = {
		{ AF_INET, IPPROTO_TCP, "0.0.0.0", 22, 100, 1 },
		{ AF_INET, IPPROTO_TCP, "127.0.0.1", 631, 300, 9 },
		{ AF_INET, IPPROTO_TCP, "127.0.0.1", 8080, 200, 10 },
		{ AF_INET6, IPPROTO_UDP, "::1", 53, 201, 11 },
	};
	const struct fp_net_finding *n;

	socks(&SB, sb, 2);
	socks(&SA, sa, 4);
	reconcile();
	cr_assert_eq(F.net[FP_N_LISTENING].n, 3);
	n = &FP_NETS(&F, FP_N_LISTENING)[0];
	cr_assert_str_eq(n->address, "127.0.0.1");
	cr_assert_eq(n->port, 631, "same address, new inode: a new socket");
	cr_assert_eq(n->pid, 9);
	n = &FP_NETS(&F, FP_N_LISTENING)[1];
	cr_assert_eq(n->port, 8080);
	cr_assert_eq(n->pid, 10);
	cr_assert_eq(n->family, AF_INET);
	cr_assert_eq(n->protocol, IPPROTO_TCP);
	n = &FP_NETS(&F, FP_N_LISTENING)[2];
	cr_assert_eq(n->family, AF_INET6);
	cr_assert_eq(n->protocol, IPPROTO_UDP);
	cr_assert_str_eq(n->address, "::1");
}

/* whose a new listener is: the run's, an old daemon's, or a new outsider's */
Test(reconcile, listener_owner_outside_old_or_new)
{
	struct fp_proc pb[] = {
		{ .pid = 600, .start_ticks = 10, .exe = B_("/usr/sbin/d") },
	};
	struct fp_proc pa[] = {
		{ .pid = 400,
		  .start_ticks = 51,
		  .exe = B_("/bin/nc"),
		  .cgroup = B_("/footprint/run-1-2") },
		{ .pid = 500,
		  .start_ticks = 53,
		  .exe = B_("/usr/sbin/chronyd"),
		  .cgroup = B_("/system.slice/chrony.service") },
		{ .pid = 600, .start_ticks = 10, .exe = B_("/usr/sbin/d") },
	};
	struct fp_sock sa[] = {
		{ AF_INET, IPPROTO_TCP, "0.0.0.0", 4444, 100, 400 },
		{ AF_INET, IPPROTO_UDP, "0.0.0.0", 323, 101, 500 },
		{ AF_INET, IPPROTO_TCP, "0.0.0.0", 8080, 102, 600 },
	};
	const struct fp_net_finding *n;

	procs(&PB, pb, 1);
	procs(&PA, pa, 3);
	socks(&SB, NULL, 0);
	socks(&SA, sa, 3);
	run_cgroup = "/footprint/run-1-2";
	reconcile();
	cr_assert_eq(F.net[FP_N_LISTENING].n, 3);
	n = &FP_NETS(&F, FP_N_LISTENING)[0];
	cr_assert_eq(n->pid, 400);
	cr_assert(!n->outside_run && !n->new_outside, "the run's own");
	n = &FP_NETS(&F, FP_N_LISTENING)[1];
	cr_assert_eq(n->pid, 500);
	cr_assert(!n->outside_run && n->new_outside, "begun during the run");
	n = &FP_NETS(&F, FP_N_LISTENING)[2];
	cr_assert_eq(n->pid, 600);
	cr_assert(n->outside_run && !n->new_outside, "predates the run");
	/* each with its owner's command line, from the snapshot */
	cr_assert_eq(FP_NETS(&F, FP_N_LISTENING)[1].by.pid, 500);
	cr_assert_eq(fp_bytes_cmp(FP_NETS(&F, FP_N_LISTENING)[1].by.exe.data,
				  FP_NETS(&F, FP_N_LISTENING)[1].by.exe.len,
				  "/usr/sbin/chronyd", 17),
		     0);
}

/* an owner that began after the process snapshot: the run's only if an
 * event of the run named it (issue 29: another run's listener) */
Test(reconcile, listener_owner_after_the_process_snapshot)
{
	struct fp_sock sa[] = {
		{ AF_INET, IPPROTO_TCP, "0.0.0.0", 4444, 100, 700 },
		{ AF_INET, IPPROTO_UDP, "0.0.0.0", 5555, 101, 42 },
	};
	const struct fp_net_finding *n;

	procs(&PB, NULL, 0);
	procs(&PA, NULL, 0);
	socks(&SB, NULL, 0);
	socks(&SA, sa, 2);
	run_cgroup = "/footprint/run-1-2";
	ev_exec(42, 1, "/bin/nc",
		"nc\0-lu\0"
		"5555",
		14);
	reconcile();
	cr_assert_eq(F.net[FP_N_LISTENING].n, 2);
	n = &FP_NETS(&F, FP_N_LISTENING)[0];
	cr_assert_eq(n->pid, 700);
	cr_assert(!n->outside_run && n->new_outside, "not the run's");
	n = &FP_NETS(&F, FP_N_LISTENING)[1];
	cr_assert_eq(n->pid, 42);
	cr_assert(!n->outside_run && !n->new_outside, "the run's own");
	cr_assert_eq(n->by.pid, 42);
	cr_assert_eq(fp_bytes_cmp(n->by.exe.data, n->by.exe.len, "/bin/nc", 7),
		     0);
}

/* ---- determinism ---- */

Test(reconcile, same_input_same_output_across_feed_order_of_unrelated)
{
	struct fp_findings g;
	size_t i;

	both("/r", 'd');
	ev_write(1, "/tmp/z");
	ev_write(1, "/tmp/a");
	ev_write(1, "/tmp/m");
	reconcile();
	g = F;
	memset(&F, 0, sizeof(F));
	fp_recon_free(R);
	R = fp_recon_new();
	ev_write(1, "/tmp/m");
	ev_write(1, "/tmp/a");
	ev_write(1, "/tmp/z");
	reconcile();
	cr_assert_eq(g.files[FP_F_OUTSIDE].n, F.files[FP_F_OUTSIDE].n);
	for (i = 0; i < g.files[FP_F_OUTSIDE].n; i++)
		cr_assert_str_eq(FP_FILES(&g, FP_F_OUTSIDE)[i].path.data,
				 FP_FILES(&F, FP_F_OUTSIDE)[i].path.data);
	fp_findings_free(&g);
}

/* ---- bounds: what a command's activity may make footprint keep ---- */

/* an argv of len bytes: 'a's in arguments of 100000 bytes */
static char *big_argv(size_t len)
{
	char *a = malloc(len);
	size_t i;

	cr_assert_not_null(a);
	memset(a, 'a', len);
	for (i = 99999; i < len; i += 100000)
		a[i] = '\0';
	a[len - 1] = '\0';
	return a;
}

Test(reconcile, read_only_opens_are_not_kept)
{
	char p[64];
	int i;

	both("/r", 'd');
	for (i = 0; i < 20000; i++) {
		snprintf(p, sizeof(p), "/usr/lib/x/%d", i);
		ev_file(1, FP_SYS_OPENAT, p, NULL, O_RDONLY, false, 3);
	}
	cr_assert_eq(fp_recon_used(R), 0, "read-only opens cost %llu bytes",
		     (unsigned long long)fp_recon_used(R));
	cr_assert_eq(fp_recon_unfolded(R), 0);
	ev_write(1, "/tmp/w");
	cr_assert_gt(fp_recon_used(R), 0);
	reconcile();
	cr_assert_eq(nfiles(FP_F_OUTSIDE), 1);
	assert_str(&file_at(FP_F_OUTSIDE, 0)->path, "/tmp/w");
}

Test(reconcile, argv_is_kept_once_and_capped)
{
	const size_t len = 1 << 20;
	char *argv = big_argv(len);
	const struct fp_proc_finding *e, *s;
	const struct fp_file_finding *o;
	pid_t pid;
	size_t i;

	both("/r", 'd');
	for (pid = 10; pid < 410; pid++) {
		ev_fork(pid, 1);
		ev_exec(pid, 1, "/bin/true", argv, len);
		if (pid == 10)
			ev_create(pid, "/tmp/o");
		ev_exit(pid, 0, 0);
	}
	/* 400 MiB of argv came in; a few KiB per exec stay */
	cr_assert_lt(fp_recon_used(R), 400 * 8192, "%llu bytes kept",
		     (unsigned long long)fp_recon_used(R));
	cr_assert_eq(fp_recon_unfolded(R), 0);
	reconcile();
	cr_assert_eq(F.procs[FP_P_EXECUTED].n, 400);
	cr_assert_eq(F.procs[FP_P_SHORT_LIVED].n, 400);
	for (i = 0; i < 400; i++) {
		e = proc_at(FP_P_EXECUTED, i);
		s = proc_at(FP_P_SHORT_LIVED, i);
		cr_assert_eq(e->p.pid, s->p.pid);
		assert_bytes(&e->p.argv, argv, FP_ARGV_KEEP);
		cr_assert(e->p.argv_cut);
		/* the exiting child names the exec's copy: no copy of its own */
		cr_assert_not_null(e->p.cmd);
		cr_assert_eq(s->p.cmd, e->p.cmd);
		cr_assert_eq(s->p.argv.data, e->p.argv.data);
		cr_assert(s->p.argv_cut);
	}
	o = file_at(FP_F_OUTSIDE, 0);
	cr_assert_eq(o->by.cmd, proc_at(FP_P_EXECUTED, 0)->p.cmd);
	free(argv);
}

Test(reconcile, short_argv_is_whole)
{
	both("/r", 'd');
	ev_exec(10, 1, "/bin/echo", "echo\0hi\0", 8);
	reconcile();
	assert_bytes(&proc_at(FP_P_EXECUTED, 0)->p.argv, "echo\0hi\0", 8);
	cr_assert_not(proc_at(FP_P_EXECUTED, 0)->p.argv_cut);
}

Test(reconcile, argv_dropped_by_the_kernel_side_is_cut)
{
	struct fp_event ev = {
		.type = FP_EV_EXEC, .pid = 10, .tid = 10, .ppid = 1
	};

	both("/r", 'd');
	ev.exec.exe = str("/bin/echo");
	ev.exec.filename = str("/bin/echo");
	ev.exec.argv = bytes("echo\0hi\0", 8);
	ev.exec.argv_total = 100;
	ev.exec.argv_dropped = 92;
	feed(&ev);
	reconcile();
	cr_assert(proc_at(FP_P_EXECUTED, 0)->p.argv_cut);
}

Test(reconcile, argv_cut_keeps_utf8_characters_whole)
{
	char a[FP_ARGV_KEEP + 8];

	memset(a, 'a', sizeof(a));
	cr_assert_eq(fp_argv_keep_len(a, 10), 10);
	cr_assert_eq(fp_argv_keep_len(a, sizeof(a)), FP_ARGV_KEEP);
	/* "é" is c3 a9: a cut between them would leave invalid UTF-8 */
	a[FP_ARGV_KEEP - 1] = (char)0xc3;
	a[FP_ARGV_KEEP] = (char)0xa9;
	cr_assert_eq(fp_argv_keep_len(a, sizeof(a)), FP_ARGV_KEEP - 1);
	/* a 4-byte character cut after its first byte */
	a[FP_ARGV_KEEP - 1] = (char)0xf0;
	a[FP_ARGV_KEEP] = a[FP_ARGV_KEEP + 1] = a[FP_ARGV_KEEP + 2] =
		(char)0x9f;
	cr_assert_eq(fp_argv_keep_len(a, sizeof(a)), FP_ARGV_KEEP - 1);
}

Test(reconcile, snapshot_command_lines_are_capped)
{
	const size_t len = 1 << 20;
	char *argv = big_argv(len);
	struct fp_proc *p;
	const struct fp_proc_finding *f;

	both("/r", 'd');
	have_procs = true;
	PA.procs = calloc(1, sizeof(*PA.procs));
	cr_assert_not_null(PA.procs);
	PA.n = 1;
	p = &PA.procs[0];
	p->pid = 77;
	p->ppid = 1;
	p->exe = str("/bin/sleep");
	p->argv = bytes(argv, len);
	leftover[0] = 77;
	nleftover = 1;
	reconcile();
	f = proc_at(FP_P_LEFTOVER, 0);
	assert_bytes(&f->p.argv, argv, FP_ARGV_KEEP);
	cr_assert(f->p.argv_cut);
	nleftover = 0;
	have_procs = false;
	fp_proc_table_free(&PA);
	free(argv);
}

static void write_many(pid_t pid, int n)
{
	char p[64];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "/tmp/o/%d", i);
		ev_create(pid, p);
	}
}

Test(reconcile, budget_stops_growth_and_is_counted)
{
	const uint64_t budget = 64 << 10;

	fp_recon_set_budget(R, budget);
	both("/r", 'd');
	ev_exec(10, 1, "/bin/sh", "sh\0", 3);
	write_many(10, 10000);
	cr_assert_leq(fp_recon_used(R), budget);
	cr_assert_gt(fp_recon_unfolded(R), 0);
	cr_assert_not_null(fp_recon_budget_why(R));
	cr_assert_not_null(strstr(fp_recon_budget_why(R), "--memory-budget"));
	reconcile();
	cr_assert_gt(nfiles(FP_F_OUTSIDE), 0);
	cr_assert_lt(nfiles(FP_F_OUTSIDE), 10000);
}

Test(reconcile, no_budget_note_when_it_is_enough)
{
	both("/r", 'd');
	write_many(10, 1000);
	cr_assert_eq(fp_recon_unfolded(R), 0);
	cr_assert_null(fp_recon_budget_why(R));
}

/* live and replay fold the same events: they must stop at the same one */
Test(reconcile, budget_runs_out_at_the_same_event)
{
	uint64_t used, unfolded;
	char why[256];

	fp_recon_set_budget(R, 1 << 20);
	write_many(10, 20000);
	used = fp_recon_used(R);
	unfolded = fp_recon_unfolded(R);
	cr_assert_gt(unfolded, 0);
	snprintf(why, sizeof(why), "%s", fp_recon_budget_why(R));
	fp_recon_free(R);
	R = fp_recon_new();
	fp_recon_set_budget(R, 1 << 20);
	write_many(10, 20000);
	cr_assert_eq(fp_recon_used(R), used);
	cr_assert_eq(fp_recon_unfolded(R), unfolded);
	cr_assert_str_eq(fp_recon_budget_why(R), why);
}

/* past the budget nothing new is kept, but what is kept stays right */
Test(reconcile, budget_still_updates_what_is_kept)
{
	fp_recon_set_budget(R, 16 << 10);
	both("/r", 'd');
	ev_create(10, "/tmp/early");
	write_many(10, 1000);
	cr_assert_gt(fp_recon_unfolded(R), 0);
	ev_unlink(10, "/tmp/early");
	reconcile();
	cr_assert_not_null(find_file(FP_F_TRANSIENT, "/tmp/early"));
}

/* execs, forks and exits are charged too: a fork bomb hits the budget */
Test(reconcile, budget_bounds_processes)
{
	pid_t pid;

	fp_recon_set_budget(R, 1 << 20);
	for (pid = 2; pid < 100000; pid++) {
		ev_fork(pid, 1);
		ev_exit(pid, 0, 0);
	}
	cr_assert_leq(fp_recon_used(R), 1 << 20);
	cr_assert_gt(fp_recon_unfolded(R), 0);
}

/* the tail of a cut command line is unknown: no rule may allow it by it */
Test(reconcile, cut_command_line_is_never_allowed_by_it)
{
	const size_t len = 1 << 20;
	char *argv = big_argv(len);
	struct fp_policy pol = { 0 };
	struct fp_outcome o = { .complete = true };
	struct fp_verdict v = { 0 };
	const char *allow = "allow leftover \"sleep *\"";
	char err[256];

	memcpy(argv, "sleep\0", 6);
	cr_assert_eq(fp_policy_parse_line(&pol, allow, strlen(allow), roots, 1,
					  err, sizeof(err)),
		     0, "%s", err);
	both("/r", 'd');
	ev_exec(10, 1, "/bin/sleep", argv, len);
	ev_exec(11, 1, "/bin/sleep",
		"sleep\0"
		"30\0",
		9);
	leftover[0] = 10;
	leftover[1] = 11;
	nleftover = 2;
	reconcile();
	cr_assert_eq(fp_judge(&pol, &F, &o, &v), 0);
	cr_assert_eq(F.procs[FP_P_LEFTOVER].n, 2);
	cr_assert(proc_at(FP_P_LEFTOVER, 0)->p.argv_cut);
	cr_assert_not(proc_at(FP_P_LEFTOVER, 0)->allowed);
	cr_assert_null(proc_at(FP_P_LEFTOVER, 0)->rule);
	cr_assert(proc_at(FP_P_LEFTOVER, 0)->failing);
	cr_assert(proc_at(FP_P_LEFTOVER, 1)->allowed);
	cr_assert_eq(v.failing, 1);
	cr_assert_not(v.ok);
	nleftover = 0;
	fp_verdict_free(&v);
	fp_policy_free(&pol);
	free(argv);
}

/* a run has no step parent: what a sidecar's events say of steps is moot,
 * but tamper evidence still counts */
Test(reconcile, a_run_has_no_steps_but_sees_tamper)
{
	struct fp_event ev = { .type = FP_EV_MARK, .pid = 1, .tid = 1 };
	struct fp_event t = { .type = FP_EV_TAMPER, .pid = 10, .tid = 10 };

	ev.mark.name = str("deploy");
	feed(&ev);
	ev_fork(10, 1);
	ev_create(10, "/tmp/x");
	t.tamper.kind = FP_TAMPER_BPF;
	feed(&t);
	reconcile();
	cr_assert_eq(F.steps.n, 0);
	cr_assert_eq(file_at(FP_F_OUTSIDE, 0)->by.step, 0);
	cr_assert_eq(F.tamper.n, 1);
	cr_assert_eq(FP_TAMPER(&F)[0].by.pid, 10);
}

/* ---- hard links to files outside the roots, set-ID files, procops ---- */

Test(reconcile, link_from_outside_then_write_through_it)
{
	const struct fp_reads_conf in_roots = { .roots = roots, .nroots = 1 };
	const struct fp_file_finding *x;

	fp_recon_set_reads(R, &in_roots);
	both("/r", 'd');
	ev_file(6, FP_SYS_LINKAT, "/home/u/.bashrc", "/r/x", 0, false, 0);
	ev_file(6, FP_SYS_OPENAT, "/r/x", NULL, O_WRONLY | O_APPEND, false, 3);
	ev_unlink(6, "/r/x");
	/* a new file made at the name is not the linked one */
	ev_create(6, "/r/x");
	ev_write(6, "/r/x");
	ev_unlink(6, "/r/x");
	reconcile();
	cr_assert_eq(nfiles(FP_F_OUTSIDE), 1);
	x = file_at(FP_F_OUTSIDE, 0);
	cr_assert_str_eq(x->path.data, "/home/u/.bashrc");
	cr_assert_eq(x->changes, FP_OP_LINKED | FP_OP_WRITTEN);
	cr_assert_eq(x->by.pid, 6);
}

Test(reconcile, link_of_a_tmpfile_or_inside_source_is_no_outside_change)
{
	const struct fp_reads_conf in_roots = { .roots = roots, .nroots = 1 };

	fp_recon_set_reads(R, &in_roots);
	both("/r", 'd');
	both("/r/orig", 'f');
	fent(&A, "/r/a", 'f');
	fent(&A, "/r/b", 'f');
	ev_file(6, FP_SYS_LINKAT, "/tmp/#1234", "/r/a", 0x1000, false, 0);
	ev_file(6, FP_SYS_LINKAT, "/r/orig", "/r/b", 0, false, 0);
	ev_write(6, "/r/b");
	reconcile();
	cr_assert_eq(nfiles(FP_F_OUTSIDE), 0);
}

Test(reconcile, chmod_setuid_and_create_setgid_are_setid_findings)
{
	struct fp_event ev = { .type = FP_EV_FILE, .pid = 6, .tid = 6 };
	const struct fp_procop_finding *x;

	both("/r", 'd');
	both("/r/t", 'f');
	fent(&A, "/r/g", 'f');
	fent(&A, "/r/shared", 'd');
	both("/r/shared", 'd');
	ev.file.sys = FP_SYS_FCHMODAT;
	ev.file.mode = 04755;
	ev.file.npaths = 1;
	ev.file.path[0].path = str("/r/t");
	feed(&ev);
	ev = (struct fp_event){ .type = FP_EV_FILE, .pid = 6, .tid = 6 };
	ev.file.sys = FP_SYS_OPENAT;
	ev.file.flags = O_WRONLY | O_CREAT;
	ev.file.created = true;
	ev.file.ret = 3;
	ev.file.mode = 02755;
	ev.file.npaths = 1;
	ev.file.path[0].path = str("/r/g");
	feed(&ev);
	/* a set-group-ID directory only hands its group on */
	ev = (struct fp_event){ .type = FP_EV_FILE, .pid = 6, .tid = 6 };
	ev.file.sys = FP_SYS_CHMOD;
	ev.file.mode = 02775;
	ev.file.npaths = 1;
	ev.file.path[0].path = str("/r/shared");
	feed(&ev);
	/* a plain mode is none */
	ev_file(6, FP_SYS_FCHMODAT, "/r/t", NULL, 0, false, 0);
	reconcile();
	cr_assert_eq(F.procops[FP_PO_SETID].n, 2);
	x = &FP_PROCOPS(&F, FP_PO_SETID)[0];
	cr_assert_str_eq(x->path.data, "/r/t");
	cr_assert_eq(x->mode, 04755);
	x = &FP_PROCOPS(&F, FP_PO_SETID)[1];
	cr_assert_str_eq(x->path.data, "/r/g");
	cr_assert_eq(x->mode, 02755);
}

Test(reconcile, mount_by_the_command_not_by_the_launcher)
{
	struct fp_event ev = { .type = FP_EV_PROCOP, .pid = 7, .tid = 7 };

	both("/r", 'd');
	/* before its exec, the first process is footprint's launcher */
	ev.procop.sys = FP_SYS_UNSHARE;
	ev.procop.flags = 0x20000;
	feed(&ev);
	ev_exec(7, 1, "/usr/bin/unshare", "unshare", 8);
	ev = (struct fp_event){ .type = FP_EV_PROCOP, .pid = 7, .tid = 7 };
	ev.procop.sys = FP_SYS_MOUNT;
	ev.procop.flags = 4096;
	ev.procop.target = str("/r/m");
	ev.procop.source = str("/home/u/.ssh");
	feed(&ev);
	ev = (struct fp_event){ .type = FP_EV_EXEC, .pid = 7, .tid = 7 };
	ev.exec.exe = str("memfd:payload");
	ev.exec.filename = str("");
	feed(&ev);
	reconcile();
	cr_assert_eq(F.procops[FP_PO_NAMESPACE].n, 0);
	cr_assert_eq(F.procops[FP_PO_MOUNT].n, 1);
	cr_assert_str_eq(FP_PROCOPS(&F, FP_PO_MOUNT)[0].source.data,
			 "/home/u/.ssh");
	cr_assert_eq(FP_PROCOPS(&F, FP_PO_MOUNT)[0].by.pid, 7);
	cr_assert_eq(F.procops[FP_PO_FILELESS].n, 1);
	cr_assert_str_eq(FP_PROCOPS(&F, FP_PO_FILELESS)[0].path.data,
			 "memfd:payload");
}

/* ---- what a generated script did (issue 29) ---- */

static void ev_exec_file(pid_t pid, pid_t ppid, const char *exe,
			 const char *filename, const char *argv, size_t argvlen)
{
	struct fp_event ev = exec_event_of(pid, ppid, exe, argv, argvlen);

	/* the name execve was given, not what it ran */
	free(ev.exec.filename.data);
	ev.exec.filename = str(filename);
	feed(&ev);
}

static void ev_chmod(pid_t pid, const char *path, uint64_t mode)
{
	struct fp_event ev = { .type = FP_EV_FILE, .pid = pid, .tid = pid };

	ev.file.sys = FP_SYS_FCHMODAT;
	ev.file.mode = mode;
	ev.file.npaths = 1;
	ev.file.path[0].path = str(path);
	ev.file.path[0].dirfd = AT_FDCWD;
	feed(&ev);
}

static void ev_read(pid_t pid, const char *path)
{
	ev_file(pid, FP_SYS_OPENAT, path, NULL, O_RDONLY, false, 3);
}

/* /tmp/payload: written, chmod +x, run, deleted */
Test(reconcile, transient_payload_made_executable_and_run)
{
	static const char sh[] = "sh\0gen.sh";
	static const char run[] = "/bin/sh\0/tmp/payload";
	const struct fp_file_finding *x;

	both("/r", 'd');
	ev_exec(200, 1, "/usr/bin/dash", sh, sizeof(sh));
	ev_create(200, "/tmp/payload");
	ev_fork(201, 200);
	ev_exec(201, 200, "/usr/bin/chmod", "chmod\0+x\0/tmp/payload", 22);
	ev_chmod(201, "/tmp/payload", 0755);
	ev_fork(202, 200);
	/* a #! script: the exe is its interpreter, the file the name given */
	ev_exec_file(202, 200, "/usr/bin/dash", "/tmp/payload", run,
		     sizeof(run));
	ev_unlink(200, "/tmp/payload");
	reconcile();
	x = find_file(FP_F_TRANSIENT, "/tmp/payload");
	cr_assert_not_null(x);
	cr_assert(x->made_exec);
	cr_assert(x->ran);
	cr_assert_eq(fp_ff_actor(x, ran_by)->pid, 202);
	assert_bytes(&fp_ff_actor(x, ran_by)->argv, run, sizeof(run));
	cr_assert_eq(fp_ff_actor(x, created_by)->pid, 200);
}

/* /tmp/tool.sh: the shell made it, chmod touched it last, ./tool.sh ran
 * it (a relative name, found by the interpreter's open) */
Test(reconcile, outside_file_keeps_its_creator_and_runner)
{
	static const char sh[] = "sh\0gen.sh";
	static const char run[] = "/bin/sh\0./tool.sh";
	const struct fp_file_finding *x;

	both("/r", 'd');
	ev_exec(200, 1, "/usr/bin/dash", sh, sizeof(sh));
	ev_create(200, "/tmp/tool.sh");
	ev_fork(201, 200);
	ev_exec(201, 200, "/usr/bin/chmod", "chmod\0+x\0/tmp/tool.sh", 22);
	ev_chmod(201, "/tmp/tool.sh", 0755);
	ev_fork(202, 200);
	ev_exec_file(202, 200, "/usr/bin/dash", "./tool.sh", run, sizeof(run));
	ev_read(202, "/etc/ld.so.cache");
	ev_read(202, "/tmp/tool.sh");
	reconcile();
	x = find_file(FP_F_OUTSIDE, "/tmp/tool.sh");
	cr_assert_not_null(x);
	cr_assert_eq(x->by.pid, 201);
	assert_str(&x->by.exe, "/usr/bin/chmod");
	cr_assert_eq(fp_ff_actor(x, created_by)->pid, 200);
	assert_str(&fp_ff_actor(x, created_by)->exe, "/usr/bin/dash");
	cr_assert(x->made_exec);
	cr_assert(x->ran);
	cr_assert_eq(fp_ff_actor(x, ran_by)->pid, 202);
}

/* a binary the run built and ran; a file read, not run; a name that only
 * ends like the argument */
Test(reconcile, ran_only_what_an_exec_ran)
{
	static const char cc[] = "cc\0-o\0/r/a.out";
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&A, "/r/a.out", 'f');
	fent(&A, "/r/data.sh", 'f');
	fent(&A, "/r/xtool.sh", 'f');
	ev_exec(200, 1, "/usr/bin/cc", cc, sizeof(cc));
	ev_file(200, FP_SYS_OPENAT, "/r/a.out", NULL,
		O_WRONLY | O_CREAT | O_TRUNC, true, 3);
	ev_fork(201, 200);
	ev_exec(201, 200, "/r/a.out", "./a.out", 8);
	ev_create(200, "/r/data.sh");
	ev_create(200, "/r/xtool.sh");
	ev_fork(202, 200);
	ev_exec_file(202, 200, "/usr/bin/dash", "tool.sh",
		     "/bin/sh\0tool.sh\0data.sh", 24);
	ev_read(202, "/r/data.sh");
	ev_read(202, "/r/xtool.sh");
	reconcile();
	x = find_file(FP_F_ADDED, "/r/a.out");
	cr_assert(x->ran);
	cr_assert_eq(fp_ff_actor(x, ran_by)->pid, 201);
	cr_assert_not(x->made_exec);
	/* created and last touched by the same process: no created_by */
	cr_assert_eq(fp_ff_actor(x, created_by)->pid, 0);
	/* data.sh is argv[2], read as data: the name the exec was given
	 * (tool.sh) is argv[1]; and "/r/xtool.sh" does not end in "/tool.sh" */
	cr_assert_not(find_file(FP_F_ADDED, "/r/data.sh")->ran);
	cr_assert_not(find_file(FP_F_ADDED, "/r/xtool.sh")->ran);
}

/* ---- a writer outside the run (issue 29) ---- */

static void holder(const char *path, pid_t pid)
{
	HOLDERS.h = realloc(HOLDERS.h, (HOLDERS.n + 1) * sizeof(*HOLDERS.h));
	cr_assert_not_null(HOLDERS.h);
	HOLDERS.h[HOLDERS.n].path = str(path);
	HOLDERS.h[HOLDERS.n++].pid = pid;
	fp_holders_sort(&HOLDERS);
}

/* the run only opened the log for appending; a logger outside the run
 * held it open for writing: the change is not the run's to explain */
Test(reconcile, outside_writer_unexplains_an_open)
{
	struct fp_proc pa[] = {
		{ .pid = 900,
		  .start_ticks = 5,
		  .exe = B_("/usr/bin/logger"),
		  .argv = B_("logger\0-f"),
		  .cgroup = B_("/system.slice/x") },
	};
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&B, "/r/log", 'f');
	fent(&A, "/r/log", 'f')->sha256[0] = 1;
	fent(&B, "/r/other", 'f');
	fent(&A, "/r/other", 'f')->sha256[0] = 1;
	procs(&PB, pa, 1);
	procs(&PA, pa, 1);
	ev_exec(200, 1, "/bin/sh", "sh", 3);
	ev_file(200, FP_SYS_OPENAT, "/r/log", NULL, O_WRONLY | O_APPEND, false,
		3);
	ev_file(200, FP_SYS_OPENAT, "/r/other", NULL, O_WRONLY | O_APPEND,
		false, 3);
	holder("/r/log", 900);
	reconcile();
	x = find_file(FP_F_CHANGED, "/r/log");
	cr_assert_not(x->explained);
	cr_assert_not(x->by_open);
	cr_assert_eq(x->by.pid, 0);
	cr_assert_eq(fp_ff_actor(x, outside_writer)->pid, 900);
	assert_str(&fp_ff_actor(x, outside_writer)->exe, "/usr/bin/logger");
	x = find_file(FP_F_UNEXPLAINED, "/r/log");
	cr_assert_not_null(x);
	cr_assert_eq(fp_ff_actor(x, outside_writer)->pid, 900);
	/* no holder: the open explains it, as before */
	x = find_file(FP_F_CHANGED, "/r/other");
	cr_assert(x->explained);
	cr_assert(x->by_open);
	cr_assert_eq(fp_ff_actor(x, outside_writer)->pid, 0);
	cr_assert_null(find_file(FP_F_UNEXPLAINED, "/r/other"));
	fp_holder_table_free(&HOLDERS);
}

/* a truncating write is the run's, whoever else holds the file */
Test(reconcile, outside_holder_of_a_file_the_run_wrote)
{
	const struct fp_file_finding *x;

	both("/r", 'd');
	fent(&B, "/r/out", 'f');
	fent(&A, "/r/out", 'f')->sha256[0] = 1;
	ev_exec(200, 1, "/bin/sh", "sh", 3);
	ev_write(200, "/r/out");
	holder("/r/out", 900);
	reconcile();
	x = find_file(FP_F_CHANGED, "/r/out");
	cr_assert(x->explained);
	cr_assert_eq(fp_ff_actor(x, outside_writer)->pid, 0);
	fp_holder_table_free(&HOLDERS);
}
