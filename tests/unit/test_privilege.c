// SPDX-License-Identifier: GPL-2.0
/*
 * Privilege changes at exec: the pure comparison, the executed chain as
 * reconciliation sees it, the rule that allows one, the judge, and the
 * credentials' way through the event log's codec.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "logcodec.h"
#include "policy.h"
#include "capnames.h"
#include "privilege.h"
#include "receipt.h"
#include "recon_fixture.h"
#include "reconcile.h"
#include "unit_util.h"

#define ALL_CAPS 0x1ffffffffffULL
#define CAP_NET_RAW (1ULL << 13)
#define CAP_SETUID (1ULL << 7)

static struct fp_privs user(uint32_t id)
{
	return (struct fp_privs){ .known = true,
				  .uid = id,
				  .euid = id,
				  .suid = id,
				  .gid = id,
				  .egid = id,
				  .sgid = id };
}

static struct fp_privs root(void)
{
	struct fp_privs c = user(0);

	c.cap_eff = c.cap_prm = ALL_CAPS;
	return c;
}

/* what a setuid-root binary run by id gets */
static struct fp_privs setuid_root(uint32_t id)
{
	struct fp_privs c = user(id);

	c.euid = c.suid = 0;
	c.cap_eff = c.cap_prm = ALL_CAPS;
	c.secure_exec = true;
	return c;
}

Test(privs_rose, setuid_root_from_user)
{
	struct fp_privs b = user(65534), n = setuid_root(65534);

	cr_assert_eq(fp_privs_rose(&b, &n), FP_PRIV_IDS | FP_PRIV_CAPS);
}

Test(privs_rose, same_user_is_not_a_rise)
{
	struct fp_privs b = user(65534), n = user(65534);

	cr_assert_eq(fp_privs_rose(&b, &n), 0);
}

Test(privs_rose, root_baseline_gains_nothing)
{
	struct fp_privs b = root(), n = root(), d = user(65534);

	n.secure_exec = false;
	cr_assert_eq(fp_privs_rose(&b, &n), 0);
	/* dropping to another user is no rise, even as a secure exec */
	d.secure_exec = true;
	cr_assert_eq(fp_privs_rose(&b, &d), 0);
}

Test(privs_rose, file_capability)
{
	struct fp_privs b = user(1000), n = user(1000);

	n.cap_prm = n.cap_eff = CAP_NET_RAW;
	cr_assert_eq(fp_privs_rose(&b, &n), FP_PRIV_CAPS);
	/* permitted alone is enough: it can be raised at will */
	n.cap_eff = 0;
	cr_assert_eq(fp_privs_rose(&b, &n), FP_PRIV_CAPS);
	/* a capability already held is no rise */
	b.cap_prm = CAP_NET_RAW;
	cr_assert_eq(fp_privs_rose(&b, &n), 0);
}

Test(privs_rose, setgid_binary)
{
	struct fp_privs b = user(1000), n = user(1000);

	n.egid = n.sgid = 42;
	cr_assert_eq(fp_privs_rose(&b, &n), FP_PRIV_IDS);
}

/* sudo's own image holds euid 0 and every capability: what it runs as
 * root after setuid(0) rose above nothing */
Test(privs_rose, sudo_child_is_not_a_second_rise)
{
	struct fp_privs sudo = setuid_root(1000), child = root();

	cr_assert_eq(fp_privs_rose(&sudo, &child), 0);
}

/* ids the process could already switch to: real, effective, saved */
Test(privs_rose, switching_among_own_ids)
{
	struct fp_privs b = setuid_root(1000), n = user(0);

	b.cap_eff = b.cap_prm = 0; /* a setuid binary under no_new_privs */
	n.uid = 1000;
	n.gid = n.egid = n.sgid = 1000;
	cr_assert_eq(fp_privs_rose(&b, &n), 0);
	n.suid = 7;
	cr_assert_eq(fp_privs_rose(&b, &n), FP_PRIV_IDS);
	/* CAP_SETUID may take any uid */
	b.cap_prm = CAP_SETUID;
	cr_assert_eq(fp_privs_rose(&b, &n), 0);
}

Test(privs_rose, user_namespace_caps_are_not_the_hosts)
{
	struct fp_privs b = user(65534), n = user(65534);

	n.cap_prm = n.cap_eff = ALL_CAPS;
	n.userns_level = 1;
	cr_assert_eq(fp_privs_rose(&b, &n), 0);
	n.userns_level = 0;
	cr_assert_eq(fp_privs_rose(&b, &n), FP_PRIV_CAPS);
}

Test(privs_rose, unknown_baseline_takes_secure_exec)
{
	struct fp_privs n = setuid_root(65534), unk = { 0 };

	cr_assert_eq(fp_privs_rose(NULL, &n), FP_PRIV_SECURE);
	cr_assert_eq(fp_privs_rose(&unk, &n), FP_PRIV_SECURE);
	n.secure_exec = false;
	cr_assert_eq(fp_privs_rose(NULL, &n), 0);
}

Test(privs_rose, unknown_creds_are_never_a_finding)
{
	struct fp_privs b = user(65534), n = setuid_root(65534);

	n.known = false;
	cr_assert_eq(fp_privs_rose(&b, &n), 0);
	cr_assert_eq(fp_privs_rose(NULL, &n), 0);
}

Test(privs_names, caps_and_bits)
{
	char buf[16];

	cr_assert_str_eq(fp_cap_name(0, buf, sizeof(buf)), "CAP_CHOWN");
	cr_assert_str_eq(fp_cap_name(13, buf, sizeof(buf)), "CAP_NET_RAW");
	cr_assert_str_eq(fp_cap_name(40, buf, sizeof(buf)),
			 "CAP_CHECKPOINT_RESTORE");
	cr_assert_str_eq(fp_cap_name(41, buf, sizeof(buf)), "CAP_41");
	cr_assert_str_eq(fp_priv_bit_name(0), "ids");
	cr_assert_str_eq(fp_priv_bit_name(2), "secure_exec");
}

/* ---- reconciliation: the baseline is the image before ---- */

static struct fp_recon *R;
static struct fp_findings F;
static uint64_t now_ns = 1000;

static void rsetup(void)
{
	R = fp_recon_new();
	cr_assert_not_null(R);
	memset(&F, 0, sizeof(F));
}

static void rteardown(void)
{
	fp_findings_free(&F);
	fp_recon_free(R);
}

static void feed(struct fp_event *ev)
{
	recon_feed(R, &now_ns, ev);
}

static void ev_exec(pid_t pid, pid_t ppid, const char *exe,
		    struct fp_privs creds)
{
	struct fp_event ev =
		exec_event_of(pid, ppid, exe, exe, strlen(exe) + 1);

	ev.exec.creds = creds;
	feed(&ev);
}

static void ev_fork(pid_t pid, pid_t ppid)
{
	struct fp_event ev = fork_event_of(pid, ppid);

	feed(&ev);
}

static void reconcile(void)
{
	static struct fp_fs_snapshot B, A;
	static char *roots[] = { "/r" };
	struct fp_recon_input in = recon_input(&B, &A, roots, 1);

	cr_assert_eq(fp_reconcile(R, &in, &F), 0);
}

static const struct fp_proc_finding *priv(size_t i)
{
	return &FP_PRIVILEGED(&F)[i];
}

TestSuite(privs_recon, .init = rsetup, .fini = rteardown, .timeout = 10);

Test(privs_recon, setuid_child_against_its_parents_image)
{
	ev_fork(10, 1); /* the command, forked by the untraced launcher */
	ev_exec(10, 1, "/usr/bin/sh", user(65534));
	ev_fork(11, 10);
	ev_exec(11, 10, "/tmp/t/helper", setuid_root(65534));
	ev_fork(12, 10);
	ev_exec(12, 10, "/usr/bin/ls", user(65534));
	reconcile();
	cr_assert_eq(F.procs[FP_P_EXECUTED].n, 3);
	cr_assert_eq(FP_PROCS(&F, FP_P_EXECUTED)[1].creds.euid, 0);
	cr_assert_eq(F.privileged.n, 1);
	cr_assert_eq(priv(0)->p.pid, 11);
	cr_assert_eq(priv(0)->p.exe.len, strlen("/tmp/t/helper"));
	cr_assert_eq(memcmp(priv(0)->p.exe.data, "/tmp/t/helper", 13), 0);
	cr_assert(priv(0)->base.known);
	cr_assert_eq(priv(0)->base.euid, 65534);
	cr_assert_eq(priv(0)->rose, FP_PRIV_IDS | FP_PRIV_CAPS);
}

/* a run as root from the start: the first image is the baseline */
Test(privs_recon, root_run_has_no_finding)
{
	struct fp_privs r = root();

	ev_fork(10, 1);
	ev_exec(10, 1, "/usr/bin/sh", r);
	ev_fork(11, 10);
	ev_exec(11, 10, "/usr/bin/passwd", r);
	ev_exec(10, 1, "/usr/bin/ls", r);
	reconcile();
	cr_assert_eq(F.privileged.n, 0);
}

/* the first exec known of a tree rose only if the kernel said so */
Test(privs_recon, first_image_by_secure_exec)
{
	ev_exec(10, 1, "/usr/bin/sudo", setuid_root(1000));
	reconcile();
	cr_assert_eq(F.privileged.n, 1);
	cr_assert_not(priv(0)->base.known);
	cr_assert_eq(priv(0)->rose, FP_PRIV_SECURE);
}

/* an exec's own previous image, then a child after sudo's setuid(0) */
Test(privs_recon, exec_chain_in_one_process)
{
	ev_fork(10, 1);
	ev_exec(10, 1, "/usr/bin/sh", user(1000));
	ev_exec(10, 1, "/usr/bin/sudo", setuid_root(1000));
	ev_fork(11, 10);
	ev_exec(11, 10, "/usr/bin/true", root());
	reconcile();
	cr_assert_eq(F.privileged.n, 1);
	cr_assert_eq(priv(0)->p.pid, 10);
	cr_assert_eq(priv(0)->base.uid, 1000);
}

/* an old log's execs: no credentials, no finding, never a guess */
Test(privs_recon, unknown_creds)
{
	struct fp_privs none = { 0 };

	ev_fork(10, 1);
	ev_exec(10, 1, "/usr/bin/sh", none);
	ev_fork(11, 10);
	ev_exec(11, 10, "/usr/bin/sudo", none);
	reconcile();
	cr_assert_eq(F.privileged.n, 0);
	cr_assert_not(FP_PROCS(&F, FP_P_EXECUTED)[1].creds.known);
}

/* ---- rules and the judge ---- */

static struct fp_policy P;
static struct fp_verdict V;

static void jsetup(void)
{
	memset(&F, 0, sizeof(F));
	memset(&P, 0, sizeof(P));
	memset(&V, 0, sizeof(V));
}

static void jteardown(void)
{
	fp_verdict_free(&V);
	fp_findings_free(&F);
	fp_policy_free(&P);
}

static int rule(const char *line, char *err, size_t errlen)
{
	static char *roots[] = { "/root" };

	return fp_policy_parse_line(&P, line, strlen(line), roots, 1, err,
				    errlen);
}

static void privileged(pid_t pid, const char *exe)
{
	struct fp_proc_finding *x = fp_vec_push(&F.privileged, sizeof(*x));

	cr_assert_not_null(x);
	x->p.pid = pid;
	x->p.exe = bytes(exe, strlen(exe));
	x->p.argv = bytes(exe, strlen(exe) + 1);
	x->creds = setuid_root(65534);
	x->base = user(65534);
	x->rose = FP_PRIV_IDS | FP_PRIV_CAPS;
}

static void judge(void)
{
	judge_run(&P, &F, &V);
}

static bool has_reason(const char *want)
{
	return has_str(&V.reasons, want);
}

TestSuite(privs_judge, .init = jsetup, .fini = jteardown, .timeout = 10);

Test(privs_judge, fails_without_a_rule)
{
	privileged(12, "/usr/bin/sudo");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 1);
	cr_assert(has_reason("processes.privileged: pid 12 /usr/bin/sudo"));
	cr_assert(priv(0)->failing);
}

Test(privs_judge, allow_privileged_by_exe_glob)
{
	char err[256] = "";

	cr_assert_eq(rule("allow privileged /usr/bin/su*", err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(P.rules[0].target, FP_T_PRIV);
	cr_assert_str_eq(P.rules[0].text, "allow privileged /usr/bin/su*");
	privileged(12, "/usr/bin/sudo");
	judge();
	cr_assert(V.ok);
	cr_assert(priv(0)->allowed);
	cr_assert_str_eq(priv(0)->rule, "allow privileged /usr/bin/su*");
}

Test(privs_judge, other_exe_still_fails)
{
	char err[256] = "";

	cr_assert_eq(rule("allow privileged /usr/bin/sudo", err, sizeof(err)),
		     0);
	privileged(12, "/usr/bin/pkexec");
	judge();
	cr_assert_not(V.ok);
}

/* a process rule (allow, ignore) is no licence to raise privileges */
Test(privs_judge, process_rules_do_not_reach_it)
{
	char err[256] = "";

	cr_assert_eq(rule("allow process /usr/bin/sudo", err, sizeof(err)), 0);
	cr_assert_eq(rule("ignore process /usr/bin/sudo", err, sizeof(err)), 0);
	privileged(12, "/usr/bin/sudo");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(F.privileged.n, 1);
}

Test(privs_judge, forbid_privileged)
{
	char err[256] = "";

	cr_assert_eq(rule("forbid privileged /usr/bin/sudo", err, sizeof(err)),
		     0);
	privileged(12, "/usr/bin/sudo");
	judge();
	cr_assert_not(V.ok);
	cr_assert(priv(0)->forbidden);
	cr_assert(has_reason(
		"processes.privileged: pid 12 /usr/bin/sudo (forbidden)"));
}

Test(privs_judge, ignore_and_expect_are_refused)
{
	char err[256] = "";

	cr_assert_neq(rule("ignore privileged /usr/bin/sudo", err, sizeof(err)),
		      0);
	cr_assert(strstr(err, "use allow or forbid"), "%s", err);
	cr_assert_neq(rule("expect privileged /usr/bin/sudo", err, sizeof(err)),
		      0);
	cr_assert_eq(P.n, 0);
}

/* the stderr summary names it once, as a finding, and the rule to allow it */
Test(privs_judge, summary_line_and_suggestion)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	privileged(12, "/usr/bin/sudo");
	judge();
	f = open_memstream(&out, &len);
	cr_assert_not_null(f);
	fp_summary_write(f, &F, &V, false);
	fclose(f);
	cr_assert(strstr(out, "FAIL (1 failing finding)"), "%s", out);
	cr_assert(strstr(out, "  processes.privileged pid 12 /usr/bin/sudo\n"),
		  "%s", out);
	/* once: the reason is not repeated as a line of its own */
	cr_assert_null(strstr(out, "processes.privileged:"), "%s", out);
	cr_assert_eq(V.suggestions.n, 1);
	cr_assert_str_eq(((char **)V.suggestions.v)[0],
			 "allow privileged /usr/bin/sudo");
	free(out);
}

/* ---- the event log ---- */

static struct fp_event exec_event(const struct fp_privs *c)
{
	struct fp_event ev = {
		.type = FP_EV_EXEC, .pid = 5, .tid = 5, .ts_ns = 9
	};

	ev.exec.exe = bytes("/bin/x", 6);
	ev.exec.filename = bytes("/bin/x", 6);
	ev.exec.argv = bytes("x", 2);
	ev.exec.creds = *c;
	return ev;
}

Test(privs_log, creds_round_trip)
{
	struct fp_privs c = setuid_root(65534);
	struct fp_event in = exec_event(&c), out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t t0 = 0, t1 = 0;

	c.no_new_privs = true;
	c.userns_level = 2;
	in.exec.creds = c;
	fp_enc_event(&e, &in, &t0);
	cr_assert_eq(e.err, 0);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	cr_assert_eq(fp_dec_event(&d, &out, &t1), 0);
	cr_assert_eq(d.pos, d.len);
	cr_assert(out.exec.creds.known);
	cr_assert_eq(out.exec.creds.uid, 65534);
	cr_assert_eq(out.exec.creds.euid, 0);
	cr_assert_eq(out.exec.creds.suid, 0);
	cr_assert_eq(out.exec.creds.gid, 65534);
	cr_assert_eq(out.exec.creds.egid, 65534);
	cr_assert_eq(out.exec.creds.sgid, 65534);
	cr_assert_eq(out.exec.creds.cap_eff, ALL_CAPS);
	cr_assert_eq(out.exec.creds.cap_prm, ALL_CAPS);
	cr_assert(out.exec.creds.no_new_privs);
	cr_assert(out.exec.creds.secure_exec);
	cr_assert_eq(out.exec.creds.userns_level, 2);
	fp_event_free(&in);
	fp_event_free(&out);
	fp_enc_free(&e);
}

/* a version 3 or 4 exec ends after its step name: unknown credentials */
Test(privs_log, old_exec_reads_as_unknown)
{
	struct fp_privs none = { 0 };
	struct fp_event in = exec_event(&none), out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t t0 = 0, t1 = 0;

	fp_enc_event(&e, &in, &t0);
	/* unknown is the flag 0 alone; without it the record is a v4 one */
	cr_assert_eq(e.p[e.len - 1], 0);
	e.len--;
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	cr_assert_eq(fp_dec_event(&d, &out, &t1), 0);
	cr_assert_eq(d.pos, d.len);
	cr_assert_not(out.exec.creds.known);
	cr_assert_eq(out.exec.exe.len, 6);
	fp_event_free(&in);
	fp_event_free(&out);
	fp_enc_free(&e);
}

Test(privs_log, bad_flag_is_damage)
{
	struct fp_privs c = { 0 };
	struct fp_event in = exec_event(&c), out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t t0 = 0, t1 = 0;

	fp_enc_event(&e, &in, &t0);
	cr_assert_eq(e.p[e.len - 1], 0); /* the flag: unknown */
	e.p[e.len - 1] = 2;
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	cr_assert_neq(fp_dec_event(&d, &out, &t1), 0);
	fp_event_free(&in);
	fp_enc_free(&e);
}
