// SPDX-License-Identifier: GPL-2.0
/*
 * Reads scoped by program ("allow read /etc/shadow by /usr/sbin/x"), a
 * secret read per program, and the system's authentication programs
 * reading their own configuration (authprog.h), through the pure core.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "authprog.h"
#include "judge.h"
#include "logcodec.h"
#include "policy.h"
#include "reads_fixture.h"
#include "reconcile.h"
#include "sensitive.h"
#include "unit_util.h"

/* ---- the rule ---- */

static int parse(const char *line, char *err, size_t n)
{
	return fp_policy_parse_line(&P, line, strlen(line), roots, 1, err, n);
}

static enum fp_decision by(const char *path, const char *exe)
{
	return fp_policy_decide_by(&P, FP_T_READ, path, strlen(path), exe,
				   exe ? strlen(exe) : 0, NULL);
}

Test(read_by, parse_and_decide)
{
	bool scoped;

	rule("allow read /etc/shadow by /usr/sbin/unix_chkpwd");
	cr_assert_eq(P.n, 1);
	cr_assert_str_eq(P.rules[0].pattern, "/etc/shadow");
	cr_assert_str_eq(P.rules[0].by, "/usr/sbin/unix_chkpwd");
	cr_assert_str_eq(P.rules[0].text,
			 "allow read /etc/shadow by /usr/sbin/unix_chkpwd");
	cr_assert_eq(by("/etc/shadow", "/usr/sbin/unix_chkpwd"), FP_DEC_ALLOW);
	cr_assert_eq(by("/etc/shadow", "/usr/bin/cat"), FP_DEC_NONE);
	cr_assert_eq(by("/etc/gshadow", "/usr/sbin/unix_chkpwd"), FP_DEC_NONE);
	/* without a process, a scoped rule decides nothing */
	cr_assert_eq(fp_policy_decide(&P, FP_T_READ, "/etc/shadow", 11, NULL),
		     FP_DEC_NONE);
	cr_assert(fp_policy_names(&P, FP_T_READ, "/etc/shadow", 11, &scoped));
	cr_assert(scoped);
	fp_policy_free(&P);
}

Test(read_by, globs_quotes_comments_and_forbid)
{
	rule("allow read /home/*/.ssh/id_* by /usr/bin/ssh*  # covers 2");
	rule("forbid read \"/etc/my shadow\" by \"/opt/my tool\"");
	rule("ignore read /etc/sudoers.d/ by /usr/bin/sudo");
	rule("allow read \"/x by y\"");
	cr_assert_eq(by("/home/a/.ssh/id_rsa", "/usr/bin/ssh-add"),
		     FP_DEC_ALLOW);
	cr_assert_eq(by("/home/a/.ssh/id_rsa", "/usr/bin/cat"), FP_DEC_NONE);
	cr_assert_eq(by("/etc/my shadow", "/opt/my tool"), FP_DEC_FORBID);
	cr_assert_eq(by("/etc/my shadow", "/opt/other"), FP_DEC_NONE);
	cr_assert_eq(by("/etc/sudoers.d/README", "/usr/bin/sudo"),
		     FP_DEC_IGNORE);
	/* a quoted pattern with " by " in it is a pattern, not a scope */
	cr_assert_eq(by("/x by y", "/bin/cat"), FP_DEC_ALLOW);
	cr_assert_null(P.rules[3].by);
	/* the text parses back to the same rule (logs record it) */
	cr_assert_str_eq(P.rules[1].text,
			 "forbid read \"/etc/my shadow\" by \"/opt/my tool\"");
	fp_policy_free(&P);
}

Test(read_by, bad_scopes_are_one_line_errors)
{
	const char *bad[] = {
		"allow read /etc/shadow by",
		"allow read /etc/shadow by   # nothing",
		"allow /etc/x by /usr/bin/cat", /* a path rule: "by" is a name */
		"allow process /usr/bin/x by /usr/bin/y",
		"allow read \"/etc/shadow\" by \"/usr/bin/x",
		"allow read \"/etc/shadow\" junk",
	};
	char err[300];
	size_t i;

	/* "allow /etc/x by /usr/bin/cat" is the path "/etc/x by ...":
	 * allowed as it always was, a pattern with blanks */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (i == 2 || i == 3) {
			cr_assert_eq(parse(bad[i], err, sizeof(err)), 0,
				     "%s: %s", bad[i], err);
			cr_assert_null(P.rules[P.n - 1].by, "%s", bad[i]);
			continue;
		}
		cr_assert_neq(parse(bad[i], err, sizeof(err)), 0, "%s", bad[i]);
		cr_assert(err[0], "%s: no message", bad[i]);
		cr_assert_null(strchr(err, '\n'));
	}
	cr_assert_neq(fp_policy_add_by(&P, FP_ALLOW, FP_T_PATH, "/x", 2, "/y",
				       2, NULL, 0, err, sizeof(err)),
		      0);
	cr_assert(strstr(err, "read rule"), "%s", err);
	fp_policy_free(&P);
}

/* ---- reconcile and judge: one finding per program ---- */

static char *homes[] = { "/home/a" };
static struct fp_reads_conf C = { roots, 1, homes, 1, &P, false };

static void setup(void)
{
	reads_fixture_setup();
	fp_recon_set_reads(R, &C);
}

TestSuite(reads, .init = setup, .fini = reads_fixture_free, .timeout = 10);

/* an exec of exe; owner uid, mode; secure: AT_SECURE */
static struct fp_event exec_ev(pid_t pid, pid_t ppid, const char *exe)
{
	struct fp_event ev =
		exec_event_of(pid, ppid, exe, exe, strlen(exe) + 1);

	ev.exec.creds = (struct fp_privs){ .known = true,
					   .uid = 1000,
					   .euid = 1000,
					   .suid = 1000,
					   .gid = 1000,
					   .egid = 1000,
					   .sgid = 1000 };
	return ev;
}

static void exec_plain(pid_t pid, const char *exe)
{
	struct fp_event ev = exec_ev(pid, 1, exe);

	ev.exec.exe_inode.known = true;
	ev.exec.exe_inode.mode = 0100755;
	feed(&ev);
}

/* sudo as a user runs it: setuid root, owned by root, a secure exec */
static void exec_auth(pid_t pid, const char *exe, uint32_t owner, uint32_t mode,
		      bool secure, bool known)
{
	struct fp_event ev = exec_ev(pid, 1, exe);

	ev.exec.creds.euid = ev.exec.creds.suid = 0;
	ev.exec.creds.secure_exec = secure;
	ev.exec.exe_inode.known = known;
	ev.exec.exe_inode.uid = owner;
	ev.exec.exe_inode.mode = mode;
	feed(&ev);
}

static void fork_of(pid_t child, pid_t parent)
{
	struct fp_event ev = fork_event_of(child, parent);

	feed(&ev);
}

static void open_of(pid_t pid, const char *path, int64_t ret)
{
	struct fp_event ev = file_event_of(pid, FP_SYS_OPENAT, path, NULL,
					   O_RDONLY, false, ret);

	feed(&ev);
}

/* the read of path by exe, or NULL */
static const struct fp_read_finding *read_by(const char *path, const char *exe)
{
	return find_read(&F, path, exe);
}

static bool suggested(const char *line)
{
	return has_str(&V.suggestions, line);
}

Test(reads, each_program_is_its_own_finding)
{
	const struct fp_read_finding *x;

	rule("allow read /etc/shadow by /usr/sbin/helper");
	exec_plain(10, "/usr/sbin/helper");
	open_of(10, "/etc/shadow", 3);
	exec_plain(11, "/usr/bin/cat");
	open_of(11, "/etc/shadow", 3);
	open_of(11, "/etc/shadow", 3);
	judge();
	cr_assert_eq(F.reads.n, 2);
	x = read_by("/etc/shadow", "/usr/sbin/helper");
	cr_assert_not_null(x);
	cr_assert(x->allowed);
	cr_assert_not(x->failing);
	x = read_by("/etc/shadow", "/usr/bin/cat");
	cr_assert_not_null(x, "the helper allowed must not hide cat");
	cr_assert_eq(x->opens, 2);
	cr_assert(x->failing);
	cr_assert_eq(V.failing, 1);
	/* the suggestion names the program, never every process */
	cr_assert(suggested("allow read /etc/shadow by /usr/bin/cat"));
	cr_assert_not(suggested("allow read /etc/shadow"));
}

Test(reads, a_scoped_forbid_keeps_a_plain_read)
{
	rule("forbid read /etc/passwd by /usr/bin/curl");
	exec_plain(10, "/usr/bin/cat");
	open_of(10, "/etc/passwd", 3);
	exec_plain(11, "/usr/bin/curl");
	open_of(11, "/etc/passwd", 3);
	judge();
	cr_assert_eq(V.failing, 1);
	cr_assert(read_by("/etc/passwd", "/usr/bin/curl")->forbidden);
	cr_assert_not(read_by("/etc/passwd", "/usr/bin/cat")->failing);
}

/* sudo -n true: sudo reads shadow, sudoers and sudoers.d; none fails */
static void sudo_reads(pid_t pid)
{
	open_of(pid, "/etc/sudoers", 3);
	open_of(pid, "/etc/sudoers.d/README", 3);
	open_of(pid, "/etc/shadow", 3);
}

Test(reads, sudo_reading_its_configuration_is_no_secret_read)
{
	exec_auth(20, "/usr/bin/sudo", 0, 0104755, true, true);
	sudo_reads(20);
	judge();
	cr_assert_eq(F.reads.n, 0);
	/* what is judged is the privilege sudo gave */
	cr_assert_eq(V.failing, 1);
	cr_assert_eq(F.privileged.n, 1);
	cr_assert(!strncmp(((char **)V.reasons.v)[0], "processes.privileged",
			   20));
}

Test(reads, sudo_cat_shadow_still_reports_cat)
{
	const struct fp_read_finding *x;

	exec_auth(20, "/usr/bin/sudo", 0, 0104755, true, true);
	sudo_reads(20);
	fork_of(21, 20);
	exec_plain(21, "/usr/bin/cat");
	open_of(21, "/etc/shadow", 3);
	judge();
	cr_assert_eq(F.reads.n, 1);
	x = read_by("/etc/shadow", "/usr/bin/cat");
	cr_assert_not_null(x);
	cr_assert_eq(x->by.pid, 21);
	cr_assert(x->failing);
}

Test(reads, sudo_reading_a_users_key_is_a_secret_read)
{
	exec_auth(20, "/usr/bin/sudo", 0, 0104755, true, true);
	open_of(20, "/home/a/.ssh/id_rsa", 3);
	open_of(20, "/etc/shadow-", 3);
	judge();
	cr_assert_eq(F.reads.n, 2);
	cr_assert_eq(V.failing, 3, "two reads and the privilege");
}

/* a file that only says it is sudo: each condition on its own */
Test(reads, a_program_is_trusted_by_its_file_not_its_name)
{
	static const struct {
		const char *exe;
		uint32_t owner, mode;
		bool secure, known;
	} fake[] = {
		{ "/usr/bin/sudo", 1000, 0104755, true, true }, /* user's */
		{ "/usr/bin/sudo", 0, 0104757, true, true }, /* others write */
		{ "/usr/bin/sudo", 0, 0104775, true, true }, /* group write */
		{ "/usr/bin/sudo", 0, 0104755, false, true }, /* not secure */
		{ "/usr/bin/sudo", 0, 0104755, true, false }, /* old log */
		{ "/tmp/x/usr/bin/sudo", 0, 0104755, true, true },
		{ "/usr/bin/sudox", 0, 0104755, true, true },
		{ "/usr/bin/sudo", 0, 0020755, true, true }, /* not a file */
	};
	size_t i;

	for (i = 0; i < sizeof(fake) / sizeof(fake[0]); i++) {
		reads_fixture_free();
		memset(&F, 0, sizeof(F));
		memset(&V, 0, sizeof(V));
		setup();
		exec_auth(30, fake[i].exe, fake[i].owner, fake[i].mode,
			  fake[i].secure, fake[i].known);
		open_of(30, "/etc/shadow", 3);
		judge();
		cr_assert_eq(F.reads.n, 1, "fake %zu", i);
		cr_assert_str_eq(FP_READS(&F)[0].secret, "shadow");
		cr_assert(FP_READS(&F)[0].failing, "fake %zu", i);
	}
}

Test(reads, each_program_reads_only_its_own_configuration)
{
	/* unix_chkpwd: /etc/shadow, not /etc/sudoers */
	exec_auth(40, "/usr/sbin/unix_chkpwd", 0, 0102755, true, true);
	open_of(40, "/etc/shadow", 3);
	open_of(40, "/etc/sudoers", 3);
	exec_auth(41, "/usr/bin/su", 0, 0104755, true, true);
	open_of(41, "/etc/shadow", 3);
	exec_auth(42, "/usr/bin/pkexec", 0, 0104755, true, true);
	open_of(42, "/etc/shadow", 3);
	judge();
	cr_assert_eq(F.reads.n, 1);
	cr_assert_not_null(read_by("/etc/sudoers", "/usr/sbin/unix_chkpwd"));
}

Test(reads, a_plain_read_list_keeps_the_auth_read_as_no_secret)
{
	static struct fp_reads_conf all = { roots, 1, homes, 1, &P, true };
	const struct fp_read_finding *x;

	fp_recon_set_reads(R, &all);
	exec_auth(20, "/usr/bin/sudo", 0, 0104755, true, true);
	open_of(20, "/etc/shadow", 3);
	judge();
	x = read_by("/etc/shadow", "/usr/bin/sudo");
	cr_assert_not_null(x, "--report-reads lists it");
	cr_assert_null(x->secret);
	cr_assert_not(x->failing);
}

Test(authprog, table)
{
	struct fp_event ev = exec_ev(1, 0, "/usr/bin/sudo");
	int k;

	ev.exec.creds.secure_exec = true;
	ev.exec.exe_inode.known = true;
	ev.exec.exe_inode.mode = 0104755;
	k = fp_auth_program(&ev);
	cr_assert_geq(k, 0);
	cr_assert(fp_auth_own_config(k, "/etc/sudoers.d/x", 16));
	cr_assert_not(fp_auth_own_config(k, "/etc/sudoers.d/", 15));
	cr_assert_not(fp_auth_own_config(k, "/etc/sudoers.dx", 15));
	cr_assert_not(fp_auth_own_config(-1, "/etc/shadow", 11));
	fp_event_free(&ev);
}

Test(authprog, exe_inode_roundtrip_and_old_records)
{
	struct fp_event in = exec_ev(7, 1, "/usr/bin/sudo"), out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t ts = 0;

	in.exec.exe_inode.known = true;
	in.exec.exe_inode.uid = 0;
	in.exec.exe_inode.mode = 0104755;
	fp_enc_event(&e, &in, &ts);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	ts = 0;
	cr_assert_eq(fp_dec_event(&d, &out, &ts), 0);
	cr_assert_eq(d.pos, d.len);
	cr_assert(out.exec.exe_inode.known);
	cr_assert_eq(out.exec.exe_inode.uid, 0);
	cr_assert_eq(out.exec.exe_inode.mode, 0104755);
	fp_event_free(&out);
	/* a record of before: the bytes end after the credentials */
	d = (struct fp_dec){ .p = e.p, .len = e.len - 5 };
	ts = 0;
	cr_assert_eq(fp_dec_event(&d, &out, &ts), 0);
	cr_assert_not(out.exec.exe_inode.known);
	fp_event_free(&out);
	fp_enc_free(&e);
	fp_event_free(&in);
}
