// SPDX-License-Identifier: GPL-2.0
/* event_json.c: one event -> one NDJSON line (docs/events.md) */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "event_json.h"
#include "privs_json.h"

static struct fp_event base_event(uint32_t type)
{
	struct fp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.ts_ns = 1000;
	ev.pid = 42;
	ev.tid = 43;
	ev.ppid = 1;
	ev.uid = 1000;
	ev.gid = 1001;
	strcpy(ev.comm, "bash");
	ev.cgroup_id = 7;
	return ev;
}

static struct fp_bytes bytes(const char *s, size_t len)
{
	return (struct fp_bytes){ (char *)s, len };
}

#define BYTES(lit) bytes(lit, sizeof(lit) - 1)

static void check_json(const struct fp_event *ev, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	fp_event_write_json(f, ev);
	cr_assert_eq(fclose(f), 0);
	cr_assert_str_eq(buf, want);
	/* exactly one line */
	cr_assert_eq(strchr(buf, '\n'), buf + len - 1);
	free(buf);
}

static struct fp_event_path evpath(const char *s, size_t len, int dirfd)
{
	struct fp_event_path p;

	memset(&p, 0, sizeof(p));
	p.path = bytes(s, len);
	p.dirfd = dirfd;
	return p;
}

#define EVPATH(lit, dirfd) evpath(lit, sizeof(lit) - 1, dirfd)

/*
 * The line for an event from base_event(): the common fields, then tail
 * (starting with its comma), then "}\n".
 */
static void check_line(const struct fp_event *ev, const char *type,
		       const char *tail)
{
	char want[2048];

	snprintf(want, sizeof(want),
		 "{\"type\":\"%s\",\"ts_ns\":1000,\"pid\":42,\"tid\":43,"
		 "\"ppid\":1,\"uid\":1000,\"gid\":1001,\"comm\":\"bash\","
		 "\"cgroup_id\":7%s}\n",
		 type, tail);
	check_json(ev, want);
}

/* ---- exec, fork, exit ---- */

Test(event_json, exec)
{
	struct fp_event ev = base_event(FP_EV_EXEC);

	ev.exec.exe = BYTES("/usr/bin/bash");
	ev.exec.filename = BYTES("/bin/sh");
	ev.exec.argv = BYTES("sh\0-c\0echo \"hi\"\0");
	ev.exec.argv_total = 17;
	ev.exec.argv_dropped = 0;
	ev.exec.old_pid = 42;
	check_line(&ev, "exec",
		   ",\"exe\":\"/usr/bin/bash\",\"filename\":\"/bin/sh\","
		   "\"argv\":[\"sh\",\"-c\",\"echo \\\"hi\\\"\"],"
		   "\"argv_bytes\":17,\"argv_dropped\":0"
		   ",\"creds\":null");
}

Test(event_json, exec_step_name)
{
	struct fp_event ev = base_event(FP_EV_EXEC);

	ev.exec.exe = BYTES("/usr/bin/bash");
	ev.exec.filename = BYTES("/bin/sh");
	ev.exec.old_pid = 42;
	ev.exec.step_name = BYTES("__actions_checkout");
	check_line(&ev, "exec",
		   ",\"exe\":\"/usr/bin/bash\",\"filename\":\"/bin/sh\","
		   "\"argv\":[],\"argv_bytes\":0,\"argv_dropped\":0,"
		   "\"step_name\":\"__actions_checkout\""
		   ",\"creds\":null");
}

Test(event_json, exec_creds)
{
	struct fp_event ev = base_event(FP_EV_EXEC);

	ev.exec.exe = BYTES("/usr/bin/sudo");
	ev.exec.filename = BYTES("/usr/bin/sudo");
	ev.exec.old_pid = 42;
	ev.exec.creds =
		(struct fp_privs){ .known = true,
				   .secure_exec = true,
				   .uid = 1000,
				   .gid = 1000,
				   .egid = 1000,
				   .sgid = 1000,
				   .cap_eff = 1ULL << 13,
				   .cap_prm = (1ULL << 13) | (1ULL << 50) };
	check_line(&ev, "exec",
		   ",\"exe\":\"/usr/bin/sudo\",\"filename\":\"/usr/bin/sudo\","
		   "\"argv\":[],\"argv_bytes\":0,\"argv_dropped\":0,"
		   "\"creds\":{\"uid\":1000,\"euid\":0,\"suid\":0,\"gid\":1000,"
		   "\"egid\":1000,\"sgid\":1000,\"cap_eff\":[\"CAP_NET_RAW\"],"
		   "\"cap_prm\":[\"CAP_NET_RAW\",\"CAP_50\"],"
		   "\"no_new_privs\":false,\"secure_exec\":true,"
		   "\"userns_level\":0}");
}

static char *privs_text(uint64_t eff, uint64_t prm)
{
	struct fp_privs c = { .known = true, .cap_eff = eff, .cap_prm = prm };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_out j = { .f = f };

	cr_assert_not_null(f);
	json_begin_object(&j);
	fp_json_privs(&j, "c", &c);
	json_end_object(&j);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/* a set's text is remembered: a first use, a reuse and an evicted one agree */
Test(event_json, privs_sets_remembered)
{
	static const struct {
		uint64_t set;
		const char *names;
	} sets[] = {
		{ 0, "[]" },
		{ 1ULL << 13, "[\"CAP_NET_RAW\"]" },
		{ 1ULL | 1ULL << 63, "[\"CAP_CHOWN\",\"CAP_63\"]" },
		{ 1ULL << 7 | 1ULL << 21,
		  "[\"CAP_SETUID\",\"CAP_SYS_ADMIN\"]" },
		{ 3ULL << 40, "[\"CAP_CHECKPOINT_RESTORE\",\"CAP_41\"]" },
		{ 1ULL << 5, "[\"CAP_KILL\"]" },
	};
	const size_t n = sizeof(sets) / sizeof(sets[0]);
	char want[512], *got, *all;
	size_t round, i;

	for (round = 0; round < 3; round++) {
		for (i = 0; i < n; i++) {
			size_t e = (i + round) % n, p = (2 * i + 1) % n;

			snprintf(want, sizeof(want),
				 "{\"c\":{\"uid\":0,\"euid\":0,\"suid\":0,"
				 "\"gid\":0,\"egid\":0,\"sgid\":0,"
				 "\"cap_eff\":%s,\"cap_prm\":%s,"
				 "\"no_new_privs\":false,\"secure_exec\":false,"
				 "\"userns_level\":0}}",
				 sets[e].names, sets[p].names);
			got = privs_text(sets[e].set, sets[p].set);
			cr_assert_str_eq(got, want);
			free(got);
		}
	}
	/* every bit: the longest text, the same from the memo as fresh */
	all = privs_text(~0ULL, 0);
	cr_assert_not_null(strstr(all, "\"CAP_CHOWN\",\"CAP_DAC_OVERRIDE\""));
	cr_assert_not_null(
		strstr(all, "\"CAP_62\",\"CAP_63\"],\"cap_prm\":[]"));
	got = privs_text(~0ULL, 0);
	cr_assert_str_eq(got, all);
	free(got);
	free(all);
}

Test(event_json, tamper)
{
	struct fp_event ev = base_event(FP_EV_TAMPER);

	ev.tamper.kind = FP_TAMPER_SIGNAL;
	ev.tamper.sig = SIGKILL;
	ev.tamper.target_pid = 77;
	check_line(&ev, "tamper",
		   ",\"kind\":\"signal\",\"signal\":9,\"signal_name\":\"KILL\","
		   "\"target_pid\":77");
	ev.tamper.kind = FP_TAMPER_BPF;
	ev.tamper.arg = 34;
	check_line(&ev, "tamper",
		   ",\"kind\":\"bpf\",\"bpf_cmd\":34,"
		   "\"bpf_cmd_name\":\"BPF_LINK_DETACH\"");
	ev.tamper.arg = 1000;
	check_line(&ev, "tamper", ",\"kind\":\"bpf\",\"bpf_cmd\":1000");
	ev.tamper.kind = FP_TAMPER_PTRACE;
	ev.tamper.arg = 16;
	check_line(&ev, "tamper",
		   ",\"kind\":\"ptrace\",\"request\":16,"
		   "\"request_name\":\"PTRACE_ATTACH\",\"target_pid\":77");
	ev.tamper.kind = FP_TAMPER_HEARTBEAT;
	check_line(&ev, "tamper", ",\"kind\":\"heartbeat\"");
	ev.tamper.kind = 99;
	check_line(&ev, "tamper", ",\"kind\":\"unknown\"");
}

Test(event_json, exec_odd)
{
	struct fp_event ev = base_event(FP_EV_EXEC);

	/* a thread exec'd (old_pid), path cut, bytes that are not UTF-8 */
	ev.exec.exe = BYTES("/opt/\xff");
	ev.exec.exe_truncated = true;
	ev.exec.filename = BYTES("./x\n");
	ev.exec.argv = BYTES("a\xff\0\0");
	ev.exec.argv_total = 9000;
	ev.exec.argv_dropped = 8996;
	ev.exec.old_pid = 44;
	check_line(&ev, "exec",
		   ",\"exe\":\"/opt/\\ufffd\",\"exe_b64\":\"L29wdC//\","
		   "\"exe_truncated\":true,\"filename\":\"./x\\n\","
		   "\"argv\":[\"a\\ufffd\",\"\"],\"argv_b64\":[\"Yf8=\","
		   "\"\"],\"argv_bytes\":9000,\"argv_dropped\":8996,"
		   "\"old_pid\":44"
		   ",\"creds\":null");
}

Test(event_json, exec_empty)
{
	struct fp_event ev = base_event(FP_EV_EXEC);

	ev.exec.old_pid = 42;
	check_line(&ev, "exec",
		   ",\"exe\":\"\",\"filename\":\"\",\"argv\":[],"
		   "\"argv_bytes\":0,\"argv_dropped\":0"
		   ",\"creds\":null");
}

Test(event_json, fork)
{
	struct fp_event ev = base_event(FP_EV_FORK);

	ev.fork.parent_tid = 41;
	check_line(&ev, "fork", ",\"parent_tid\":41");
}

Test(event_json, exit_by_signal)
{
	struct fp_event ev = base_event(FP_EV_EXIT);

	ev.exit.code = -1;
	ev.exit.signal = SIGKILL;
	ev.exit.core_dumped = false;
	ev.exit.start_ns = 5;
	check_line(&ev, "exit",
		   ",\"signal\":9,\"signal_name\":\"KILL\","
		   "\"core_dumped\":false");
	ev.exit.signal = SIGSEGV;
	ev.exit.core_dumped = true;
	check_line(&ev, "exit",
		   ",\"signal\":11,\"signal_name\":\"SEGV\","
		   "\"core_dumped\":true");
}

Test(event_json, exit_code)
{
	struct fp_event ev = base_event(FP_EV_EXIT);

	ev.exit.code = 3;
	check_line(&ev, "exit", ",\"exit_code\":3");
	ev.exit.code = 0;
	check_line(&ev, "exit", ",\"exit_code\":0");
}

/* ---- files ---- */

Test(event_json, open_failed_enoent)
{
	struct fp_event ev = base_event(FP_EV_FILE);

	ev.file.sys = FP_SYS_OPENAT;
	ev.file.ret = -ENOENT;
	ev.file.flags = O_RDONLY | O_CLOEXEC;
	ev.file.mode = 0;
	ev.file.npaths = 1;
	ev.file.path[0] = EVPATH("/etc/nope", -100);
	check_line(
		&ev, "open",
		",\"syscall\":\"openat\",\"path\":\"/etc/nope\","
		"\"flags\":524288,\"flags_text\":\"O_RDONLY|O_CLOEXEC\","
		"\"mode\":\"0000\",\"created\":false,\"ret\":-2,\"ok\":false,"
		"\"errno\":\"ENOENT\"");
}

Test(event_json, open_ok_dirfd_truncated_openat2)
{
	struct fp_event ev = base_event(FP_EV_FILE);

	ev.file.sys = FP_SYS_OPENAT2;
	ev.file.ret = 3;
	ev.file.flags = O_WRONLY | O_CREAT | O_TRUNC;
	ev.file.mode = 0644;
	ev.file.resolve = 0x10;
	ev.file.npaths = 1;
	ev.file.path[0] = EVPATH("/d/f", 5);
	ev.file.path[0].truncated = true;
	ev.file.path[0].base_unknown = true;
	check_line(
		&ev, "open",
		",\"syscall\":\"openat2\",\"path\":\"/d/f\","
		"\"path_dirfd\":5,\"path_truncated\":true,"
		"\"path_base_unknown\":true,\"flags\":577,"
		"\"flags_text\":\"O_WRONLY|O_CREAT|O_TRUNC\","
		"\"mode\":\"0644\",\"resolve\":16,\"created\":false,\"ret\":3,"
		"\"ok\":true");
}

Test(event_json, open_path_not_utf8)
{
	struct fp_event ev = base_event(FP_EV_FILE);

	ev.file.sys = FP_SYS_CREAT;
	ev.file.ret = 4;
	ev.file.flags = O_WRONLY | O_CREAT | O_TRUNC;
	ev.file.mode = 0600;
	ev.file.created = true;
	ev.file.npaths = 1;
	ev.file.path[0] = EVPATH("/tmp/a\xff"
				 "b",
				 -100);
	check_line(&ev, "open",
		   ",\"syscall\":\"creat\",\"path\":\"/tmp/a\\ufffdb\","
		   "\"path_b64\":\"L3RtcC9h/2I=\",\"flags\":577,"
		   "\"flags_text\":\"O_WRONLY|O_CREAT|O_TRUNC\","
		   "\"mode\":\"0600\",\"created\":true,\"ret\":4,\"ok\":true");
}

Test(event_json, rename_exchange)
{
	struct fp_event ev = base_event(FP_EV_FILE);

	ev.file.sys = FP_SYS_RENAMEAT2;
	ev.file.ret = 0;
	ev.file.flags = RENAME_EXCHANGE;
	ev.file.npaths = 2;
	ev.file.path[0] = EVPATH("/a/x", -100);
	ev.file.path[1] = EVPATH("/b/y", 7);
	check_line(&ev, "rename",
		   ",\"syscall\":\"renameat2\",\"old_path\":\"/a/x\","
		   "\"new_path\":\"/b/y\",\"new_path_dirfd\":7,\"flags\":2,"
		   "\"flags_text\":\"RENAME_EXCHANGE\",\"ret\":0,\"ok\":true");
}

Test(event_json, rename_plain_failed)
{
	struct fp_event ev = base_event(FP_EV_FILE);

	ev.file.sys = FP_SYS_RENAME;
	ev.file.ret = -EXDEV;
	ev.file.npaths = 2;
	ev.file.path[0] = EVPATH("/a", -100);
	ev.file.path[1] = EVPATH("/b", -100);
	check_line(&ev, "rename",
		   ",\"syscall\":\"rename\",\"old_path\":\"/a\","
		   "\"new_path\":\"/b\",\"flags\":0,\"flags_text\":\"\","
		   "\"ret\":-18,\"ok\":false,\"errno\":\"EXDEV\"");
}

Test(event_json, unlink_removedir)
{
	struct fp_event ev = base_event(FP_EV_FILE);

	ev.file.sys = FP_SYS_UNLINKAT;
	ev.file.ret = -ENOTEMPTY;
	ev.file.flags = AT_REMOVEDIR;
	ev.file.npaths = 1;
	ev.file.path[0] = EVPATH("/tmp/d", -100);
	check_line(&ev, "unlink",
		   ",\"syscall\":\"unlinkat\",\"path\":\"/tmp/d\","
		   "\"flags\":512,\"flags_text\":\"AT_REMOVEDIR\","
		   "\"ret\":-39,\"ok\":false,\"errno\":\"ENOTEMPTY\"");
}

/* ---- bind ---- */

Test(event_json, bind_inet)
{
	struct fp_event ev = base_event(FP_EV_BIND);

	ev.bind.ret = 0;
	ev.bind.fd = 3;
	ev.bind.family = AF_INET;
	strcpy(ev.bind.address, "0.0.0.0");
	ev.bind.port = 0;
	ev.bind.bound_port = 41234;
	ev.bind.sock_type = SOCK_STREAM;
	ev.bind.protocol = 6;
	check_line(&ev, "bind",
		   ",\"fd\":3,\"family\":\"inet\",\"address\":\"0.0.0.0\","
		   "\"port\":0,\"bound_port\":41234,"
		   "\"sock_type\":\"stream\",\"protocol\":\"tcp\",\"ret\":0,"
		   "\"ok\":true");
}

Test(event_json, bind_inet6_failed)
{
	struct fp_event ev = base_event(FP_EV_BIND);

	ev.bind.ret = -EADDRINUSE;
	ev.bind.fd = 5;
	ev.bind.family = AF_INET6;
	strcpy(ev.bind.address, "::1");
	ev.bind.port = 8080;
	ev.bind.bound_port = 0;
	ev.bind.sock_type = SOCK_DGRAM;
	ev.bind.protocol = 17;
	check_line(&ev, "bind",
		   ",\"fd\":5,\"family\":\"inet6\",\"address\":\"::1\","
		   "\"port\":8080,\"bound_port\":0,\"sock_type\":\"dgram\","
		   "\"protocol\":\"udp\",\"ret\":-98,\"ok\":false,"
		   "\"errno\":\"EADDRINUSE\"");
}

Test(event_json, bind_unix)
{
	struct fp_event ev = base_event(FP_EV_BIND);

	ev.bind.fd = 4;
	ev.bind.family = AF_UNIX;
	ev.bind.sock_type = SOCK_STREAM;
	ev.bind.unix_path = BYTES("/run/s.sock");
	check_line(&ev, "bind",
		   ",\"fd\":4,\"family\":\"unix\","
		   "\"address\":\"/run/s.sock\",\"sock_type\":\"stream\","
		   "\"protocol\":0,\"ret\":0,\"ok\":true");
}

Test(event_json, bind_unix_abstract)
{
	struct fp_event ev = base_event(FP_EV_BIND);

	ev.bind.fd = 4;
	ev.bind.family = AF_UNIX;
	ev.bind.sock_type = SOCK_DGRAM;
	ev.bind.unix_path = BYTES("\0name\0x");
	check_line(&ev, "bind",
		   ",\"fd\":4,\"family\":\"unix\",\"abstract\":true,"
		   "\"address\":\"name\\u0000x\",\"sock_type\":\"dgram\","
		   "\"protocol\":0,\"ret\":0,\"ok\":true");
}

Test(event_json, bind_unix_unnamed_and_other_family)
{
	struct fp_event ev = base_event(FP_EV_BIND);

	ev.bind.fd = 4;
	ev.bind.family = AF_UNIX;
	ev.bind.sock_type = SOCK_SEQPACKET;
	check_line(&ev, "bind",
		   ",\"fd\":4,\"family\":\"unix\",\"address\":\"\","
		   "\"sock_type\":\"seqpacket\",\"protocol\":0,\"ret\":0,"
		   "\"ok\":true");
	ev.bind.family = 40; /* AF_VSOCK: no name */
	ev.bind.sock_type = 99;
	ev.bind.protocol = 3;
	check_line(&ev, "bind",
		   ",\"fd\":4,\"family\":40,\"address\":\"\",\"port\":0,"
		   "\"bound_port\":0,\"sock_type\":99,\"protocol\":3,"
		   "\"ret\":0,\"ok\":true");
}

/* ---- common fields ---- */

Test(event_json, comm_not_utf8)
{
	struct fp_event ev = base_event(FP_EV_FORK);

	strcpy(ev.comm, "w\xff\"k");
	ev.pid = 4294967295U;
	ev.cgroup_id = 18446744073709551615ULL;
	ev.fork.parent_tid = 1;
	check_json(&ev, "{\"type\":\"fork\",\"ts_ns\":1000,"
			"\"pid\":4294967295,\"tid\":43,\"ppid\":1,"
			"\"uid\":1000,\"gid\":1001,"
			"\"comm\":\"w\\ufffd\\\"k\",\"comm_b64\":\"d/8iaw==\","
			"\"cgroup_id\":18446744073709551615,"
			"\"parent_tid\":1}\n");
}

/* ---- flags_text ---- */

static void check_flags(uint64_t flags, const char *want)
{
	char buf[256];

	memset(buf, 'Z', sizeof(buf));
	fp_open_flags_text(buf, sizeof(buf), flags);
	cr_assert_str_eq(buf, want, "flags 0%llo", (unsigned long long)flags);
}

Test(event_json, open_flags_text)
{
	check_flags(O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC");
	check_flags(0, "O_RDONLY");
	check_flags(O_RDWR, "O_RDWR");
	check_flags(O_RDWR | O_APPEND | O_EXCL, "O_RDWR|O_EXCL|O_APPEND");
	check_flags(O_DIRECTORY | O_NOFOLLOW,
		    "O_RDONLY|O_DIRECTORY|O_NOFOLLOW");
	/* multi-bit flags win over their parts */
	check_flags(O_RDWR | O_TMPFILE, "O_RDWR|O_TMPFILE");
	check_flags(O_WRONLY | O_SYNC, "O_WRONLY|O_SYNC");
	check_flags(O_WRONLY | O_DSYNC, "O_WRONLY|O_DSYNC");
	check_flags(O_PATH | O_CLOEXEC, "O_RDONLY|O_CLOEXEC|O_PATH");
	check_flags(0100000, "O_RDONLY|O_LARGEFILE");
	/* unknown bits are kept as a number */
	check_flags(0x40000000 | O_CREAT, "O_RDONLY|O_CREAT|0x40000000");
	check_flags(3, "O_ACCMODE");
}

Test(event_json, open_flags_text_small_buffer)
{
	char buf[16];

	memset(buf, 'Z', sizeof(buf));
	fp_open_flags_text(buf, 10, O_WRONLY | O_CREAT | O_TRUNC);
	/* cut, NUL-terminated, nothing written past len */
	cr_assert_lt(strlen(buf), 10);
	cr_assert_eq(strncmp(buf, "O_WRONLY", 8), 0);
	cr_assert_eq(buf[10], 'Z');
	cr_assert_eq(buf[15], 'Z');
}
