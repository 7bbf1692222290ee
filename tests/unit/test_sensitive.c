// SPDX-License-Identifier: GPL-2.0
/* Secrets, files.read and signals outside the run, through the pure core:
 * the class of secret paths, reconcile, judge and the log codec. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "judge.h"
#include "logcodec.h"
#include "policy.h"
#include "reads_fixture.h"
#include "reconcile.h"
#include "secrets.h"
#include "sensitive.h"
#include "unit_util.h"

static char *homes[] = { "/srv/ci-home", "/var/lib/builder" };

static const char *cls(const char *p)
{
	return fp_secret_class(p, strlen(p), homes, 2);
}

Test(secrets, home_classes)
{
	cr_assert_str_eq(cls("/home/alice/.ssh/id_ed25519"), "ssh_key");
	cr_assert_str_eq(cls("/root/.ssh/id_rsa"), "ssh_key");
	cr_assert_str_eq(cls("/srv/ci-home/.ssh/deploy"), "ssh_key");
	cr_assert_str_eq(cls("/var/lib/builder/.aws/credentials"),
			 "aws_credentials");
	cr_assert_str_eq(cls("/home/a/.config/gcloud/creds.db"), "gcloud");
	cr_assert_str_eq(cls("/home/a/.kube/config"), "kube_config");
	cr_assert_str_eq(cls("/home/a/.docker/config.json"), "docker_config");
	cr_assert_str_eq(cls("/home/a/.netrc"), "netrc");
	cr_assert_str_eq(cls("/home/a/.git-credentials"), "git_credentials");
	cr_assert_str_eq(cls("/home/a/.gnupg/private-keys-v1.d/x.key"),
			 "gnupg");
	cr_assert_str_eq(cls("/home/a/.mozilla/firefox/p.default/key4.db"),
			 "browser_profile");
	cr_assert_str_eq(cls("/home/a/.config/google-chrome/Default/Cookies"),
			 "browser_profile");
	cr_assert_str_eq(cls("/home/a/.config/chromium/Default/Login Data"),
			 "browser_profile");
}

Test(secrets, not_secret)
{
	const char *no[] = {
		"/home/alice/.ssh/id_ed25519.pub",
		"/home/alice/.ssh/known_hosts",
		"/home/alice/.ssh/config",
		"/home/alice/.ssh/authorized_keys",
		"/home/alice/.ssh/",
		"/home/alice/.aws/config",
		"/home/.ssh/id_rsa", /* /home itself is no home */
		"/tmp/x/.ssh/id_rsa", /* not a home directory */
		"/srv/ci-home2/.netrc", /* a prefix of a name is not a home */
		"/home/a/.gnupg", /* the directory itself */
		"/home/a/.config/gcloud/",
		"/etc/passwd",
		"/etc/shadowx",
		"/root/.bashrc",
	};
	size_t i;

	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_assert_null(cls(no[i]), "%s", no[i]);
}

Test(secrets, etc_classes)
{
	cr_assert_str_eq(cls("/etc/shadow"), "shadow");
	cr_assert_str_eq(cls("/etc/gshadow-"), "shadow");
	cr_assert_str_eq(cls("/etc/sudoers"), "sudoers");
	cr_assert_str_eq(cls("/etc/sudoers.d/90-cloud"), "sudoers");
}

Test(secrets, proc_pid)
{
	const char *c = NULL;

	cr_assert_eq(fp_secret_proc_pid("/proc/123/environ", 17, &c), 123);
	cr_assert_str_eq(c, "proc_environ");
	cr_assert_eq(fp_secret_proc_pid("/proc/9/task/10/mem", 19, &c), 9);
	cr_assert_str_eq(c, "proc_mem");
	cr_assert_eq(fp_secret_proc_pid("/proc/self/environ", 18, &c), 0);
	cr_assert_eq(fp_secret_proc_pid("/proc/12/cmdline", 16, &c), 0);
	cr_assert_eq(fp_secret_proc_pid("/proc/012/mem", 13, &c), 0);
	cr_assert_eq(fp_secret_proc_pid("/proc/1/x/environ", 17, &c), 0);
}

/* ---- reconcile and judge ---- */

static struct fp_reads_conf C = { roots, 1, homes, 2, &P, false };

TestSuite(sensitive, .init = reads_fixture_setup, .fini = reads_fixture_free,
	  .timeout = 10);

static void exec_of(pid_t pid, const char *exe)
{
	struct fp_event ev = exec_event_of(pid, 0, exe, exe, strlen(exe) + 1);

	feed(&ev);
}

static void open_of(pid_t pid, const char *path, uint64_t flags, int64_t ret)
{
	struct fp_event ev = file_event_of(pid, FP_SYS_OPENAT, path, NULL,
					   flags, false, ret);

	feed(&ev);
}

static void signal_of(pid_t pid, uint32_t sys, int sig, uint32_t target,
		      int64_t ret)
{
	struct fp_event ev = { .type = FP_EV_SIGNAL, .pid = pid, .tid = pid };

	ev.signal.sys = sys;
	ev.signal.sig = sig;
	ev.signal.target = target;
	ev.signal.target_tgid = target;
	ev.signal.request = sys == FP_SYS_PTRACE ? 0x4206 : 0;
	ev.signal.ret = ret;
	feed(&ev);
}

static const struct fp_read_finding *read_at(const char *path)
{
	return find_read(&F, path, NULL);
}

Test(sensitive, secret_read_fails_and_names_reader)
{
	const struct fp_read_finding *x;

	fp_recon_set_reads(R, &C);
	exec_of(10, "/usr/bin/cat");
	open_of(10, "/home/a/.ssh/id_ed25519", O_RDONLY, 3);
	open_of(10, "/home/a/.ssh/id_ed25519", O_RDONLY, 3);
	open_of(10, "/home/a/.ssh/id_ed25519.pub", O_RDONLY, 3);
	open_of(10, "/usr/lib/libc.so.6", O_RDONLY, 3);
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(F.reads.n, 1, "only the secret: %zu", F.reads.n);
	x = read_at("/home/a/.ssh/id_ed25519");
	cr_assert_not_null(x);
	cr_assert_str_eq(x->secret, "ssh_key");
	cr_assert_eq(x->opens, 2);
	cr_assert(x->failing);
	cr_assert_eq(x->by.pid, 10);
	cr_assert_str_eq(x->by.exe.data, "/usr/bin/cat");
}

Test(sensitive, public_key_alone_passes)
{
	fp_recon_set_reads(R, &C);
	exec_of(10, "/usr/bin/cat");
	open_of(10, "/home/a/.ssh/id_ed25519.pub", O_RDONLY, 3);
	judge();
	cr_assert(V.ok);
	cr_assert_eq(F.reads.n, 0);
}

Test(sensitive, attempts)
{
	const struct fp_read_finding *x;

	fp_recon_set_reads(R, &C);
	exec_of(10, "/usr/bin/cat");
	open_of(10, "/etc/shadow", O_RDONLY, -EACCES);
	open_of(10, "/home/a/.netrc", O_RDONLY, -ENOENT);
	judge();
	x = read_at("/etc/shadow");
	cr_assert_not_null(x);
	cr_assert_eq(x->err, EACCES);
	cr_assert_not(x->failing, "a denied attempt is reported");
	x = read_at("/home/a/.netrc");
	cr_assert_not_null(x);
	cr_assert_eq(x->err, ENOENT);
	cr_assert_not(x->failing, "nothing was there to read");
	cr_assert_eq(V.failing, 0);
	cr_assert(V.ok);
}

Test(sensitive, allow_and_forbid_read)
{
	rule("allow read /home/*/.ssh/id_ed25519");
	rule("forbid read /etc/passwd");
	rule("forbid read /etc/gshadow");
	rule("forbid read /etc/nope");
	fp_recon_set_reads(R, &C);
	exec_of(10, "/usr/bin/cat");
	open_of(10, "/home/a/.ssh/id_ed25519", O_RDONLY, 3);
	open_of(10, "/etc/passwd", O_RDONLY, 3);
	open_of(10, "/etc/gshadow", O_RDONLY, -EACCES);
	open_of(10, "/etc/nope", O_RDONLY, -ENOENT);
	judge();
	cr_assert(read_at("/home/a/.ssh/id_ed25519")->allowed);
	cr_assert_not(read_at("/home/a/.ssh/id_ed25519")->failing);
	cr_assert(read_at("/etc/passwd")->forbidden);
	cr_assert(read_at("/etc/passwd")->failing);
	/* a forbidden path: a denied attempt fails too, a missing one not */
	cr_assert(read_at("/etc/gshadow")->failing);
	cr_assert(read_at("/etc/nope")->forbidden);
	cr_assert_not(read_at("/etc/nope")->failing);
	cr_assert_eq(V.failing, 2);
}

Test(sensitive, expect_read_is_refused)
{
	char err[300];

	cr_assert_neq(fp_policy_parse_line(&P, "expect read /x", 14, roots, 1,
					   err, sizeof(err)),
		      0);
	cr_assert(strstr(err, "expect read"), "%s", err);
	cr_assert_neq(fp_policy_parse_line(&P, "expect ptrace *", 15, roots, 1,
					   err, sizeof(err)),
		      0);
	cr_assert(strstr(err, "expect ptrace"), "%s", err);
}

Test(sensitive, reads_in_roots_are_listed_with_hash)
{
	const struct fp_read_finding *x;
	struct fp_fentry e = { .type = 'f', .hashed = true };

	e.path = bytes("/r/src.c", 8);
	memset(e.sha256, 0x5a, sizeof(e.sha256));
	B.e = A.e = &e;
	B.n = A.n = 1;
	fp_recon_set_reads(R, &C);
	exec_of(10, "/usr/bin/cc");
	open_of(10, "/r/src.c", O_RDONLY, 3);
	open_of(10, "/r/missing.h", O_RDONLY, -ENOENT);
	open_of(10, "/usr/include/stdio.h", O_RDONLY, 3);
	judge();
	cr_assert(V.ok);
	cr_assert_eq(F.reads.n, 1);
	x = read_at("/r/src.c");
	cr_assert_eq(x->before, &e);
	cr_assert_not(x->failing);
	B.e = A.e = NULL;
	B.n = A.n = 0;
	free(e.path.data);
}

Test(sensitive, report_all_is_bounded_and_counted)
{
	struct fp_reads_conf all = C;
	char path[64];
	size_t i;

	all.report_all = true;
	fp_recon_set_reads(R, &all);
	exec_of(10, "/usr/bin/find");
	for (i = 0; i < FP_READS_MAX + 5; i++) {
		snprintf(path, sizeof(path), "/usr/share/f%zu", i);
		open_of(10, path, O_RDONLY, 3);
	}
	/* a secret past the bound is still kept */
	open_of(10, "/etc/shadow", O_RDONLY, 3);
	judge();
	cr_assert_eq(F.reads.n, FP_READS_MAX + 1);
	cr_assert_eq(F.reads_omitted, 5);
	cr_assert_not_null(read_at("/etc/shadow"));
}

Test(sensitive, proc_environ_outside_the_run)
{
	fp_recon_set_reads(R, &C);
	exec_of(10, "/usr/bin/cat");
	exec_of(11, "/usr/bin/sleep");
	open_of(10, "/proc/11/environ", O_RDONLY, 3); /* a process of the run */
	open_of(10, "/proc/10/environ", O_RDONLY, 3); /* its own */
	open_of(10, "/proc/1/environ", O_RDONLY, 3);
	open_of(10, "/proc/1/mem", O_WRONLY, 3);
	judge();
	cr_assert_eq(F.reads.n, 2);
	cr_assert_str_eq(read_at("/proc/1/environ")->secret, "proc_environ");
	cr_assert_str_eq(read_at("/proc/1/mem")->secret, "proc_mem");
}

Test(sensitive, signals_and_ptrace)
{
	const struct fp_signal_finding *s;

	exec_of(10, "/usr/bin/kill");
	signal_of(10, FP_SYS_KILL, SIGTERM, 500, 0);
	signal_of(10, FP_SYS_KILL, SIGTERM, 500, 0);
	signal_of(10, FP_SYS_KILL, 0, 501, 0);
	signal_of(10, FP_SYS_KILL, SIGKILL, 1, -EPERM);
	signal_of(10, FP_SYS_PTRACE, 0, 502, 0);
	signal_of(10, FP_SYS_PTRACE, 0, 502, 0);
	judge();
	cr_assert_eq(F.signalled.n, 3);
	cr_assert_eq(F.ptraced.n, 1);
	s = &FP_SIGNALLED(&F)[0];
	cr_assert_eq(s->target_pid, 500);
	cr_assert_eq(s->count, 2);
	cr_assert(s->failing);
	cr_assert_str_eq(s->by.exe.data, "/usr/bin/kill");
	cr_assert_not(FP_SIGNALLED(&F)[1].failing, "kill -0 asks, sends none");
	cr_assert_eq(FP_SIGNALLED(&F)[2].err, EPERM);
	cr_assert_not(FP_SIGNALLED(&F)[2].failing, "a denied one is reported");
	cr_assert_eq(FP_PTRACED(&F)[0].count, 2);
	cr_assert_eq(V.failing, 2);
	cr_assert_not(V.ok);
}

Test(sensitive, signal_rules_by_target_exe)
{
	struct fp_proc procs[2] = { { .pid = 500 }, { .pid = 501 } };

	procs[0].exe = bytes("/usr/sbin/nginx", 15);
	procs[1].exe = bytes("/usr/bin/sleep", 14);
	PT.procs = procs;
	PT.n = 2;
	rule("allow signal /usr/sbin/*");
	rule("forbid ptrace /usr/bin/sleep");
	exec_of(10, "/usr/bin/kill");
	signal_of(10, FP_SYS_KILL, SIGHUP, 500, 0);
	signal_of(10, FP_SYS_KILL, SIGHUP, 501, 0);
	signal_of(10, FP_SYS_PTRACE, 0, 501, -EPERM);
	judge();
	cr_assert_str_eq(FP_SIGNALLED(&F)[0].target_exe.data,
			 "/usr/sbin/nginx");
	cr_assert(FP_SIGNALLED(&F)[0].allowed);
	cr_assert_not(FP_SIGNALLED(&F)[0].failing);
	cr_assert(FP_SIGNALLED(&F)[1].failing);
	cr_assert(FP_PTRACED(&F)[0].forbidden);
	cr_assert(FP_PTRACED(&F)[0].failing, "a forbidden attempt fails");
	cr_assert_eq(V.failing, 2);
	PT.procs = NULL;
	PT.n = 0;
	free(procs[0].exe.data);
	free(procs[1].exe.data);
}

Test(sensitive, signal_event_roundtrip)
{
	struct fp_event in = { .type = FP_EV_SIGNAL, .pid = 7, .tid = 7 }, out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t ts = 0;

	in.signal.sys = FP_SYS_TGKILL;
	in.signal.sig = SIGUSR1;
	in.signal.ret = -ESRCH;
	in.signal.target = 4000001;
	in.signal.target_tgid = 4000000;
	fp_enc_event(&e, &in, &ts);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	ts = 0;
	cr_assert_eq(fp_dec_event(&d, &out, &ts), 0);
	cr_assert_eq(d.pos, d.len);
	cr_assert_eq(out.type, FP_EV_SIGNAL);
	cr_assert_eq(out.signal.sys, FP_SYS_TGKILL);
	cr_assert_eq(out.signal.sig, SIGUSR1);
	cr_assert_eq(out.signal.ret, -ESRCH);
	cr_assert_eq(out.signal.target, 4000001);
	cr_assert_eq(out.signal.target_tgid, 4000000);
	fp_event_free(&out);
	/* a syscall that is not a signal's is damage */
	in.signal.sys = FP_SYS_OPEN;
	fp_enc_reset(&e);
	ts = 0;
	fp_enc_event(&e, &in, &ts);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	ts = 0;
	cr_assert_neq(fp_dec_event(&d, &out, &ts), 0);
	fp_enc_free(&e);
}
