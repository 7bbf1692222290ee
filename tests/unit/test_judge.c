// SPDX-License-Identifier: GPL-2.0
/* fp_judge on hand-built findings and policies */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "judge.h"
#include "policy.h"
#include "procops.h"
#include "unit_util.h"

static struct fp_findings F;
static struct fp_policy P;
static struct fp_verdict V;
static struct fp_outcome O;
static char *roots[] = { "/root" };

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	memset(&P, 0, sizeof(P));
	memset(&V, 0, sizeof(V));
	O = (struct fp_outcome){ .exit_code = 0, .complete = true };
}

static void teardown(void)
{
	fp_verdict_free(&V);
	fp_findings_free(&F);
	fp_policy_free(&P);
}

TestSuite(judge, .init = setup, .fini = teardown, .timeout = 10);

static struct fp_file_finding *file_n(enum fp_file_list l, const char *p,
				      size_t len)
{
	struct fp_file_finding *x = fp_vec_push(&F.files[l], sizeof(*x));

	cr_assert_not_null(x);
	x->path = bytes(p, len);
	x->what = l;
	return x;
}

static struct fp_file_finding *file(enum fp_file_list l, const char *p)
{
	return file_n(l, p, strlen(p));
}

static struct fp_proc_finding *proc(enum fp_proc_list l, pid_t pid,
				    const char *exe, const char *argv,
				    size_t alen)
{
	struct fp_proc_finding *x = fp_vec_push(&F.procs[l], sizeof(*x));

	cr_assert_not_null(x);
	x->p.pid = pid;
	x->p.ppid = 1;
	x->p.exe = bytes(exe, strlen(exe));
	x->p.argv = bytes(argv, alen);
	return x;
}

static struct fp_net_finding *net(enum fp_net_list l, pid_t pid, int family,
				  int proto, const char *addr, uint16_t port)
{
	struct fp_net_finding *x = fp_vec_push(&F.net[l], sizeof(*x));

	cr_assert_not_null(x);
	x->pid = pid;
	x->family = family;
	x->protocol = proto;
	snprintf(x->address, sizeof(x->address), "%s", addr);
	x->port = port;
	return x;
}

static void rule(const char *line)
{
	policy_rule(&P, roots, 1, line);
}

static void judge(void)
{
	fp_verdict_free(&V);
	cr_assert_eq(fp_judge(&P, &F, &O, &V), 0);
}

static const char *reason(size_t i)
{
	cr_assert_lt(i, V.reasons.n, "only %zu reasons", V.reasons.n);
	return ((char **)V.reasons.v)[i];
}

static const char *suggestion(size_t i)
{
	cr_assert_lt(i, V.suggestions.n, "only %zu suggestions",
		     V.suggestions.n);
	return ((char **)V.suggestions.v)[i];
}

static void dump(void)
{
	size_t i;

	for (i = 0; i < V.reasons.n; i++)
		cr_log_info("reason: %s", ((char **)V.reasons.v)[i]);
	for (i = 0; i < V.suggestions.n; i++)
		cr_log_info("suggestion: %s", ((char **)V.suggestions.v)[i]);
}

#define assert_reason(s)                                                  \
	do {                                                              \
		if (!has_str(&V.reasons, s))                              \
			dump();                                           \
		cr_assert(has_str(&V.reasons, s), "no reason \"%s\"", s); \
	} while (0)

#define assert_suggestion(s)                                                \
	do {                                                                \
		if (!has_str(&V.suggestions, s))                            \
			dump();                                             \
		cr_assert(has_str(&V.suggestions, s), "no suggestion '%s'", \
			  s);                                               \
	} while (0)

/* ---- files ---- */

Test(judge, nothing_happened_is_ok)
{
	judge();
	cr_assert(V.ok);
	cr_assert_eq(V.reasons.n, 0);
	cr_assert_eq(V.suggestions.n, 0);
	cr_assert_eq(V.failing, 0);
}

Test(judge, default_strict_added_fails)
{
	struct fp_file_finding *x = file(FP_F_ADDED, "/root/x");

	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 1);
	cr_assert_eq(V.reasons.n, 1);
	cr_assert_str_eq(reason(0), "files.added: /root/x");
	cr_assert(strstr(reason(0), "files.added") &&
		  strstr(reason(0), "/root/x"));
	cr_assert_eq(V.suggestions.n, 1);
	cr_assert_str_eq(suggestion(0), "allow /root/x");
	x = &FP_FILES(&F, FP_F_ADDED)[0];
	cr_assert_not(x->allowed);
	cr_assert_not(x->forbidden);
	cr_assert_null(x->rule);
}

/* what the run created shapes the rule a failing file gets: a directory
 * it made, with what is in it, is one rule */
Test(judge, created_directory_is_one_suggestion)
{
	static const struct fp_fentry dir = { .type = 'd' };

	file(FP_F_ADDED, "/root/out")->after = &dir;
	file(FP_F_ADDED, "/root/out/a.o");
	file(FP_F_ADDED, "/root/out/sub/b.o");
	file(FP_F_CHANGED, "/root/config");
	judge();
	cr_assert_eq(V.failing, 4);
	cr_assert_eq(V.suggestions.n, 2);
	assert_suggestion("allow /root/out/");
	assert_suggestion("allow /root/config");
}

Test(judge, every_file_list_fails_by_default)
{
	size_t l;
	char want[64];

	for (l = 0; l < FP_F_NLISTS; l++) {
		snprintf(want, sizeof(want), "/root/%s", fp_file_list_names[l]);
		file(l, want);
	}
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, FP_F_NLISTS);
	for (l = 0; l < FP_F_NLISTS; l++) {
		if (l == FP_F_CUT || l == FP_F_MAGIC)
			continue;
		snprintf(want, sizeof(want), "files.%s: /root/%s",
			 fp_file_list_names[l], fp_file_list_names[l]);
		assert_reason(want);
	}
	assert_reason("files.cut: .../root/cut (path longer than PATH_MAX, "
		      "cut; no rule can allow it)");
	assert_reason("files.magic_link: /root/magic_link (through a /proc "
		      "magic link; no rule can allow it)");
	assert_reason("files.outside_roots: /root/outside_roots");
	assert_reason("files.unexplained: /root/unexplained");
}

Test(judge, allow_passes)
{
	struct fp_file_finding *x = file(FP_F_ADDED, "/root/x");

	rule("allow /root/x");
	judge();
	dump();
	cr_assert(V.ok);
	cr_assert_eq(V.failing, 0);
	cr_assert_eq(V.suggestions.n, 0);
	x = &FP_FILES(&F, FP_F_ADDED)[0];
	cr_assert(x->allowed);
	cr_assert_not(x->forbidden);
	cr_assert_str_eq(x->rule, "allow /root/x");
}

Test(judge, allow_relative_dir_and_glob)
{
	file(FP_F_ADDED, "/root/build/obj/a.o");
	file(FP_F_CHANGED, "/root/app.log");
	file(FP_F_REMOVED, "/root/build");
	file(FP_F_ADDED, "/root/builds");
	rule("allow build/");
	rule("allow *.log");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 1);
	cr_assert_str_eq(reason(0), "files.added: /root/builds");
	cr_assert(FP_FILES(&F, FP_F_ADDED)[0].allowed);
	cr_assert_str_eq(FP_FILES(&F, FP_F_ADDED)[0].rule, "allow build/");
	cr_assert(FP_FILES(&F, FP_F_CHANGED)[0].allowed);
	cr_assert(FP_FILES(&F, FP_F_REMOVED)[0].allowed);
}

Test(judge, forbid_beats_allow)
{
	struct fp_file_finding *x;

	file(FP_F_ADDED, "/root/x");
	file(FP_F_ADDED, "/root/y");
	rule("allow /root/");
	rule("forbid /root/x");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 1);
	cr_assert_str_eq(reason(0), "files.added: /root/x (forbidden)");
	cr_assert_eq(V.suggestions.n, 0, "no suggestion for forbidden");
	x = &FP_FILES(&F, FP_F_ADDED)[0];
	cr_assert(x->forbidden);
	cr_assert_not(x->allowed);
	cr_assert_str_eq(x->rule, "forbid /root/x");
	x = &FP_FILES(&F, FP_F_ADDED)[1];
	cr_assert(x->allowed);
	cr_assert_str_eq(x->rule, "allow /root/");
}

Test(judge, forbid_beats_allow_in_any_order)
{
	file(FP_F_CHANGED, "/root/etc/passwd");
	rule("forbid /root/etc/");
	rule("allow /root/etc/passwd");
	rule("ignore /root/etc/passwd");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(F.files[FP_F_CHANGED].n, 1, "forbid beats ignore too");
	cr_assert(FP_FILES(&F, FP_F_CHANGED)[0].forbidden);
	cr_assert_str_eq(reason(0),
			 "files.changed: /root/etc/passwd (forbidden)");
}

Test(judge, ignore_drops_finding)
{
	file(FP_F_ADDED, "/root/cache/a");
	file(FP_F_ADDED, "/root/keep");
	file(FP_F_ADDED, "/root/cache/b/c");
	file(FP_F_UNEXPLAINED, "/root/cache/a");
	rule("ignore cache/");
	rule("allow /root/keep");
	judge();
	cr_assert(V.ok);
	cr_assert_eq(F.files[FP_F_ADDED].n, 1);
	cr_assert_str_eq(FP_FILES(&F, FP_F_ADDED)[0].path.data, "/root/keep");
	cr_assert_eq(F.files[FP_F_UNEXPLAINED].n, 0);
}

Test(judge, ignore_beats_allow)
{
	file(FP_F_ADDED, "/root/x");
	rule("allow /root/x");
	rule("ignore /root/x");
	judge();
	cr_assert(V.ok);
	cr_assert_eq(F.files[FP_F_ADDED].n, 0);
}

Test(judge, noise_dropped_unless_noise_off)
{
	file(FP_F_OUTSIDE, "/dev/null");
	file(FP_F_OUTSIDE, "/dev/pts/3");
	file(FP_F_OUTSIDE, "/proc/self/uid_map");
	judge();
	cr_assert(V.ok);
	cr_assert_eq(F.files[FP_F_OUTSIDE].n, 0);

	file(FP_F_OUTSIDE, "/dev/null");
	file(FP_F_OUTSIDE, "/dev/sda");
	rule("noise off");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 2);
	assert_reason("files.outside_roots: /dev/null");
	assert_reason("files.outside_roots: /dev/sda");
}

/* /proc/self/fd/3 is whatever fd 3 is: never noise */
Test(judge, magic_link_path_is_not_noise)
{
	file(FP_F_OUTSIDE, "/proc/self/fd/3");
	file(FP_F_OUTSIDE, "/proc/thread-self/cwd/x");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 2);
	assert_reason("files.outside_roots: /proc/self/fd/3");
	assert_reason("files.outside_roots: /proc/thread-self/cwd/x");
}

/*
 * The tail of a deep path can look like anything: no allow, ignore, expect
 * or noise rule applies to a cut path, and it is never suggested.
 */
Test(judge, cut_path_matches_no_allow_ignore_or_expect)
{
	struct fp_file_finding *x = file(FP_F_CUT, "/tmp/scratch/x");

	file(FP_F_CUT, "/dev/null");
	rule("allow /tmp/scratch/");
	rule("allow /dev/null");
	rule("ignore /tmp/**");
	rule("expect /tmp/scratch/x");
	rule("allow /");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(F.files[FP_F_CUT].n, 2, "cut findings were dropped");
	x = &FP_FILES(&F, FP_F_CUT)[0];
	cr_assert_not(x->allowed);
	cr_assert(x->failing);
	cr_assert_null(x->rule);
	assert_reason("files.cut: .../tmp/scratch/x (path longer than "
		      "PATH_MAX, cut; no rule can allow it)");
	assert_reason("files.cut: .../dev/null (path longer than PATH_MAX, "
		      "cut; no rule can allow it)");
	/* the expect rule was not met by the cut path */
	assert_reason("expected change missing: expect /tmp/scratch/x");
	cr_assert_not(has_str(&V.suggestions, "allow /tmp/scratch/x"));
	cr_assert_not(has_str(&V.suggestions, "allow /dev/null"));
}

Test(judge, cut_path_can_be_forbidden)
{
	struct fp_file_finding *x = file(FP_F_CUT, "/etc/passwd");

	rule("allow /etc/");
	rule("forbid /etc/**");
	judge();
	cr_assert_not(V.ok);
	x = &FP_FILES(&F, FP_F_CUT)[0];
	cr_assert(x->forbidden);
	cr_assert(x->failing);
	cr_assert_str_eq(x->rule, "forbid /etc/**");
	assert_reason("files.cut: .../etc/passwd (forbidden)");
}

Test(judge, magic_link_finding_matches_no_allow)
{
	struct fp_file_finding *x = file(FP_F_MAGIC, "/proc/self/fd/3/x");

	rule("allow /proc/");
	rule("ignore /proc/**");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 1);
	x = &FP_FILES(&F, FP_F_MAGIC)[0];
	cr_assert_not(x->allowed);
	cr_assert_eq(V.suggestions.n, 0);
	assert_reason("files.magic_link: /proc/self/fd/3/x (through a /proc "
		      "magic link; no rule can allow it)");
}

Test(judge, expect_met)
{
	struct fp_expect *e;

	file(FP_F_ADDED, "/root/out.txt");
	rule("expect out.txt");
	judge();
	dump();
	cr_assert(V.ok);
	cr_assert_eq(V.expects.n, 1);
	e = &((struct fp_expect *)V.expects.v)[0];
	cr_assert(e->met);
	cr_assert_str_eq(e->rule->text, "expect out.txt");
	/* the expected change is allowed by being expected */
	cr_assert(FP_FILES(&F, FP_F_ADDED)[0].allowed);
}

Test(judge, expect_met_by_changed_and_removed)
{
	file(FP_F_CHANGED, "/root/a/config");
	file(FP_F_REMOVED, "/root/old.lock");
	rule("expect /root/a/");
	rule("expect *.lock");
	judge();
	cr_assert(V.ok);
	cr_assert_eq(V.expects.n, 2);
	cr_assert(((struct fp_expect *)V.expects.v)[0].met);
	cr_assert(((struct fp_expect *)V.expects.v)[1].met);
}

Test(judge, expect_not_met)
{
	struct fp_expect *e;

	rule("expect /root/missing");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 1);
	cr_assert_str_eq(reason(0),
			 "expected change missing: expect /root/missing");
	e = &((struct fp_expect *)V.expects.v)[0];
	cr_assert_not(e->met);
}

Test(judge, expect_does_not_beat_forbid)
{
	file(FP_F_ADDED, "/root/x");
	rule("expect /root/x");
	rule("forbid /root/x");
	judge();
	cr_assert_not(V.ok);
	cr_assert(FP_FILES(&F, FP_F_ADDED)[0].forbidden);
}

Test(judge, duplicate_suggestions_merged)
{
	file(FP_F_ADDED, "/root/x");
	file(FP_F_UNEXPLAINED, "/root/x");
	judge();
	cr_assert_eq(V.failing, 2);
	cr_assert_eq(V.reasons.n, 2);
	cr_assert_eq(V.suggestions.n, 1);
	cr_assert_str_eq(suggestion(0), "allow /root/x");
}

Test(judge, reasons_capped)
{
	char p[32];
	int i;

	for (i = 0; i < 60; i++) {
		snprintf(p, sizeof(p), "/root/f%02d", i);
		file(FP_F_ADDED, p);
	}
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 60);
	cr_assert_eq(V.reasons.n, 51);
	cr_assert_str_eq(reason(50), "... and 10 more failing findings");
	cr_assert_eq(V.suggestions.n, 60);
}

/* ---- processes ---- */

static const char sleep_argv[] = "sleep\0"
				 "100";

Test(judge, leftover_fails)
{
	struct fp_proc_finding *x;

	proc(FP_P_LEFTOVER, 300, "/usr/bin/sleep", sleep_argv,
	     sizeof(sleep_argv));
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 1);
	cr_assert_str_eq(reason(0),
			 "processes.leftover: pid 300 /usr/bin/sleep");
	cr_assert_eq(V.suggestions.n, 1);
	cr_assert_str_eq(suggestion(0), "allow process /usr/bin/sleep");
	x = &FP_PROCS(&F, FP_P_LEFTOVER)[0];
	cr_assert_not(x->allowed);
}

Test(judge, leftover_allowed_by_exe)
{
	struct fp_proc_finding *x;

	proc(FP_P_LEFTOVER, 300, "/usr/bin/sleep", sleep_argv,
	     sizeof(sleep_argv));
	rule("allow process /usr/bin/sleep");
	judge();
	cr_assert(V.ok);
	x = &FP_PROCS(&F, FP_P_LEFTOVER)[0];
	cr_assert(x->allowed);
	cr_assert_str_eq(x->rule, "allow process /usr/bin/sleep");
}

Test(judge, leftover_allowed_by_cmdline)
{
	proc(FP_P_LEFTOVER, 300, "/usr/bin/sleep", sleep_argv,
	     sizeof(sleep_argv));
	rule("allow process \"sleep 100\"");
	judge();
	cr_assert(V.ok);
	cr_assert_str_eq(FP_PROCS(&F, FP_P_LEFTOVER)[0].rule,
			 "allow process \"sleep 100\"");
}

Test(judge, leftover_allowed_by_glob_and_synonyms)
{
	proc(FP_P_LEFTOVER, 300, "/usr/bin/sleep", sleep_argv,
	     sizeof(sleep_argv));
	proc(FP_P_LEFTOVER, 301, "/usr/sbin/nginx", "nginx", 6);
	proc(FP_P_LEFTOVER, 302, "/opt/x/bin/worker", "worker\0-v", 10);
	rule("allow leftover sleep*");
	rule("allow exec /usr/sbin/*");
	rule("ignore process /opt/**");
	judge();
	dump();
	cr_assert(V.ok);
}

Test(judge, leftover_other_cmdline_not_allowed)
{
	proc(FP_P_LEFTOVER, 300, "/usr/bin/sleep", sleep_argv,
	     sizeof(sleep_argv));
	rule("allow process \"sleep 1\"");
	rule("allow process /usr/bin/slee");
	judge();
	cr_assert_not(V.ok);
}

Test(judge, process_forbid_beats_allow)
{
	proc(FP_P_LEFTOVER, 300, "/usr/bin/sleep", sleep_argv,
	     sizeof(sleep_argv));
	proc(FP_P_LEFTOVER, 301, "/usr/bin/sleep",
	     "sleep\0"
	     "5",
	     8);
	rule("allow process /usr/bin/sleep");
	rule("forbid process \"sleep 100\"");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 1);
	cr_assert_str_eq(
		reason(0),
		"processes.leftover: pid 300 /usr/bin/sleep (forbidden)");
	cr_assert(FP_PROCS(&F, FP_P_LEFTOVER)[0].forbidden);
	cr_assert_str_eq(FP_PROCS(&F, FP_P_LEFTOVER)[0].rule,
			 "forbid process \"sleep 100\"");
	cr_assert(FP_PROCS(&F, FP_P_LEFTOVER)[1].allowed);
	cr_assert_eq(V.suggestions.n, 0);
}

Test(judge, process_forbid_exe_beats_allow_cmdline)
{
	proc(FP_P_LEFTOVER, 300, "/usr/bin/sleep", sleep_argv,
	     sizeof(sleep_argv));
	rule("allow process \"sleep 100\"");
	rule("forbid process /usr/bin/sleep");
	judge();
	cr_assert_not(V.ok);
	cr_assert(FP_PROCS(&F, FP_P_LEFTOVER)[0].forbidden);
}

Test(judge, other_process_lists_fail_only_if_forbidden)
{
	proc(FP_P_EXECUTED, 10, "/bin/sh", "sh", 3);
	proc(FP_P_EXECUTED, 11, "/bin/rm", "rm\0-rf\0/", 9);
	proc(FP_P_SHORT_LIVED, 11, "/bin/rm", "rm\0-rf\0/", 9);
	proc(FP_P_NEW_OUTSIDE, 500, "/usr/sbin/cron", "cron", 5);
	proc(FP_P_DISAPPEARED, 600, "/usr/sbin/d", "d", 2);
	judge();
	cr_assert(V.ok);
	cr_assert_eq(V.failing, 0);

	rule("forbid exec /bin/rm");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 2);
	assert_reason("processes.executed: pid 11 /bin/rm (forbidden)");
	assert_reason("processes.short_lived: pid 11 /bin/rm (forbidden)");
	cr_assert_eq(V.suggestions.n, 0);
	cr_assert(FP_PROCS(&F, FP_P_EXECUTED)[0].allowed == false);
	cr_assert_not(FP_PROCS(&F, FP_P_EXECUTED)[0].forbidden);
}

Test(judge, process_rules_do_not_match_paths)
{
	file(FP_F_ADDED, "/usr/bin/sleep");
	proc(FP_P_LEFTOVER, 300, "/usr/bin/sleep", sleep_argv,
	     sizeof(sleep_argv));
	rule("allow /usr/bin/sleep");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 1);
	cr_assert(FP_FILES(&F, FP_F_ADDED)[0].allowed);
}

/* ---- network ---- */

Test(judge, net_subject)
{
	struct fp_net_finding n = { .family = AF_INET,
				    .protocol = IPPROTO_TCP,
				    .address = "127.0.0.1",
				    .port = 8080 };
	char buf[256];

	fp_net_subject(&n, buf, sizeof(buf));
	cr_assert_str_eq(buf, "tcp/127.0.0.1:8080");
	n.family = AF_INET6;
	n.protocol = IPPROTO_UDP;
	strcpy(n.address, "::1");
	n.port = 53;
	fp_net_subject(&n, buf, sizeof(buf));
	cr_assert_str_eq(buf, "udp/[::1]:53");
	n.family = AF_UNIX;
	n.protocol = 0;
	n.unix_path.data = "/run/x.sock";
	n.unix_path.len = 11;
	fp_net_subject(&n, buf, sizeof(buf));
	cr_assert_str_eq(buf, "unix//run/x.sock");
	n.family = AF_INET;
	strcpy(n.address, "10.0.0.1");
	n.port = 0;
	fp_net_subject(&n, buf, sizeof(buf));
	cr_assert_str_eq(buf, "ip/10.0.0.1:0");
}

Test(judge, bound_fails_and_suggests)
{
	net(FP_N_BOUND, 10, AF_INET, IPPROTO_TCP, "127.0.0.1", 8080);
	judge();
	cr_assert_not(V.ok);
	cr_assert_str_eq(reason(0),
			 "network.bound: tcp/127.0.0.1:8080 by pid 10");
	cr_assert_str_eq(suggestion(0), "allow bind tcp/127.0.0.1:8080");
}

/* a family footprint has no address syntax for is named, and fails */
Test(judge, bound_other_family_named)
{
	char buf[64];

	net(FP_N_BOUND, 10, AF_PACKET, 0, "", 0);
	net(FP_N_BOUND, 11, 4242, 0, "", 0);
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 2);
	assert_reason("network.bound: packet/ by pid 10");
	assert_reason("network.bound: family-4242/ by pid 11");
	fp_net_subject(&FP_NETS(&F, FP_N_BOUND)[0], buf, sizeof(buf));
	cr_assert_str_eq(buf, "packet/");
}

Test(judge, bound_other_family_allowed_by_name)
{
	net(FP_N_BOUND, 10, AF_PACKET, 0, "", 0);
	rule("allow bind packet/*");
	judge();
	cr_assert(V.ok);
	cr_assert(FP_NETS(&F, FP_N_BOUND)[0].allowed);
}

Test(judge, bind_rules)
{
	net(FP_N_BOUND, 10, AF_INET, IPPROTO_TCP, "127.0.0.1", 8080);
	net(FP_N_LISTENING, 10, AF_INET, IPPROTO_TCP, "127.0.0.1", 8080);
	net(FP_N_BOUND, 11, AF_INET6, IPPROTO_UDP, "::1", 53);
	rule("allow bind tcp/127.0.0.1:8080");
	rule("allow bind udp/*:53");
	judge();
	dump();
	cr_assert(V.ok);
	cr_assert(FP_NETS(&F, FP_N_BOUND)[0].allowed);
	cr_assert_str_eq(FP_NETS(&F, FP_N_BOUND)[0].rule,
			 "allow bind tcp/127.0.0.1:8080");
	cr_assert(FP_NETS(&F, FP_N_LISTENING)[0].allowed);
	cr_assert(FP_NETS(&F, FP_N_BOUND)[1].allowed);
}

Test(judge, bind_forbid_and_mismatch)
{
	net(FP_N_BOUND, 10, AF_INET, IPPROTO_TCP, "127.0.0.1", 8081);
	net(FP_N_LISTENING, 11, AF_INET6, IPPROTO_UDP, "::1", 53);
	rule("allow bind tcp/127.0.0.1:8080");
	rule("allow bind udp/**");
	rule("forbid bind \"udp/\\\\[::1]:53\"");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 2);
	assert_reason("network.bound: tcp/127.0.0.1:8081 by pid 10");
	assert_reason("network.listening: udp/[::1]:53 by pid 11 (forbidden)");
	cr_assert_eq(V.suggestions.n, 1);
	cr_assert_str_eq(suggestion(0), "allow bind tcp/127.0.0.1:8081");
}

/* a listener of a process outside the run's cgroup, begun during the run
 * (another run's, issue 29) or before it, is information: it fails only
 * when a rule forbids it, and then the reason says whose it is */
Test(judge, listener_of_a_new_outside_process_is_information)
{
	net(FP_N_LISTENING, 12, AF_INET, IPPROTO_UDP, "0.0.0.0", 323)
		->new_outside = true;
	net(FP_N_LISTENING, 13, AF_INET, IPPROTO_TCP, "0.0.0.0", 22)
		->outside_run = true;
	net(FP_N_LISTENING, 14, AF_INET, IPPROTO_TCP, "0.0.0.0", 25)
		->new_outside = true;
	rule("forbid bind tcp/*:25");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 1);
	assert_reason("network.listening: tcp/0.0.0.0:25 by pid 14 (a process "
		      "outside the run, begun during it) (forbidden)");
	cr_assert_not(FP_NETS(&F, FP_N_LISTENING)[0].failing);
	cr_assert_not(FP_NETS(&F, FP_N_LISTENING)[1].failing);
}

Test(judge, bind_rules_do_not_match_paths)
{
	net(FP_N_BOUND, 10, AF_INET, IPPROTO_TCP, "127.0.0.1", 8080);
	rule("allow tcp/127.0.0.1:8080");
	rule("allow process tcp/127.0.0.1:8080");
	judge();
	cr_assert_not(V.ok);
}

Test(judge, doc_examples)
{
	file(FP_F_ADDED, "/root/weird\nname\xff");
	file(FP_F_CHANGED, "/root/logs/run.log");
	file(FP_F_ADDED, "/root/.cache/x/y");
	file(FP_F_OUTSIDE, "/etc/ssl/certs/new.pem");
	net(FP_N_BOUND, 10, AF_INET, IPPROTO_TCP, "127.0.0.1", 40000);
	net(FP_N_LISTENING, 11, AF_INET, IPPROTO_TCP, "0.0.0.0", 22);
	rule("allow .cache/");
	rule("allow logs/run.log");
	rule("forbid /etc/**");
	rule("allow bind tcp/127.0.0.1:*");
	rule("forbid bind *:22");
	rule("allow \"weird\\nname\\xff\"");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 2);
	assert_reason(
		"files.outside_roots: /etc/ssl/certs/new.pem (forbidden)");
	assert_reason(
		"network.listening: tcp/0.0.0.0:22 by pid 11 (forbidden)");
	cr_assert(FP_FILES(&F, FP_F_ADDED)[0].allowed);
	cr_assert(FP_FILES(&F, FP_F_ADDED)[1].allowed);
	cr_assert(FP_NETS(&F, FP_N_BOUND)[0].allowed);
}

/* docs/policy.md: a matching ignore rule drops the finding from the
 * receipt, for every kind of finding */
Test(judge, ignore_drops_process_finding)
{
	proc(FP_P_NEW_OUTSIDE, 500, "/usr/sbin/cron", "cron", 5);
	proc(FP_P_LEFTOVER, 300, "/usr/bin/sleep", sleep_argv,
	     sizeof(sleep_argv));
	rule("ignore process /usr/sbin/cron");
	rule("ignore process /usr/bin/sleep");
	judge();
	cr_assert(V.ok);
	cr_assert_eq(F.procs[FP_P_NEW_OUTSIDE].n, 0,
		     "ignored new_outside process still listed");
	cr_assert_eq(F.procs[FP_P_LEFTOVER].n, 0,
		     "ignored leftover process still listed");
}

Test(judge, ignore_drops_bind_finding)
{
	net(FP_N_BOUND, 10, AF_INET, IPPROTO_UDP, "0.0.0.0", 5353);
	rule("ignore bind udp/*:5353");
	judge();
	cr_assert(V.ok);
	cr_assert_eq(F.net[FP_N_BOUND].n, 0, "ignored bind still listed");
}

/* ---- how the command ended ---- */

Test(judge, nonzero_exit)
{
	O.exit_code = 3;
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.reasons.n, 1);
	cr_assert_str_eq(reason(0), "command exited 3");
}

Test(judge, killed_by_signal)
{
	O.exit_code = -1;
	O.signal = SIGKILL;
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.reasons.n, 1);
	cr_assert_str_eq(reason(0), "command was killed by SIGKILL");
}

Test(judge, timed_out)
{
	O.exit_code = -1;
	O.signal = SIGKILL;
	O.timed_out = true;
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.reasons.n, 1);
	cr_assert_str_eq(reason(0), "command timed out");
}

Test(judge, timed_out_alone)
{
	O.timed_out = true;
	judge();
	cr_assert_not(V.ok);
	cr_assert_str_eq(reason(0), "command timed out");
}

Test(judge, signal_alone)
{
	O.signal = SIGTERM;
	judge();
	cr_assert_not(V.ok);
	cr_assert_str_eq(reason(0), "command was killed by SIGTERM");
}

Test(judge, interrupted)
{
	O.interrupted = true;
	judge();
	cr_assert_not(V.ok);
	cr_assert_str_eq(reason(0), "footprint was interrupted");
}

Test(judge, incomplete_trace)
{
	O.complete = false;
	O.lost = 7;
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.reasons.n, 1);
	cr_assert_str_eq(reason(0), "trace incomplete: 7 events lost");
	cr_assert_eq(V.failing, 0);
}

Test(judge, incomplete_trace_why)
{
	O.complete = false;
	O.incomplete_why = "log ends mid-record at byte 4096";
	judge();
	cr_assert_not(V.ok);
	cr_assert_str_eq(reason(0),
			 "trace incomplete: log ends mid-record at byte 4096");
}

Test(judge, bad_outcome_and_findings_both_reported)
{
	O.exit_code = 1;
	file(FP_F_ADDED, "/root/x");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.reasons.n, 2);
	cr_assert_str_eq(reason(0), "command exited 1");
	cr_assert_str_eq(reason(1), "files.added: /root/x");
	cr_assert_eq(V.failing, 1);
}

/* ---- suggestions round trip through the policy parser ---- */

/* Judge, take the single suggestion, parse it as a policy line, judge
 * again: the finding must now be allowed. */
static void roundtrip(const char *want)
{
	static char s[32768];

	judge();
	cr_assert_not(V.ok);
	dump();
	cr_assert_eq(V.suggestions.n, 1);
	cr_assert_lt(strlen(suggestion(0)), sizeof(s));
	strcpy(s, suggestion(0));
	if (want)
		cr_assert_str_eq(s, want);
	rule(s);
	judge();
	if (!V.ok)
		dump();
	cr_assert(V.ok, "'%.200s' (%zu bytes) did not allow the finding", s,
		  strlen(s));
}

static void roundtrip_file(const char *p, size_t len, const char *want)
{
	file_n(FP_F_ADDED, p, len);
	roundtrip(want);
	cr_assert(FP_FILES(&F, FP_F_ADDED)[0].allowed);
}

Test(judge, roundtrip_plain)
{
	roundtrip_file("/root/x", 7, "allow /root/x");
}

Test(judge, roundtrip_newline)
{
	roundtrip_file("/root/a\nb", 9, "allow \"/root/a\\x0ab\"");
}

Test(judge, roundtrip_high_byte)
{
	roundtrip_file("/root/\xff", 7, "allow \"/root/\\xff\"");
}

Test(judge, roundtrip_control_and_utf8)
{
	roundtrip_file("/root/\x01\t\x7f\xc3\xa9", 11,
		       "allow \"/root/\\x01\\x09\\x7f\\xc3\\xa9\"");
}

Test(judge, roundtrip_glob_chars_escaped)
{
	roundtrip_file("/root/a*b", 9, "allow \"/root/a\\\\*b\"");
}

Test(judge, roundtrip_glob_suggestion_matches_only_itself)
{
	file(FP_F_ADDED, "/root/a*b");
	roundtrip(NULL);
	file(FP_F_ADDED, "/root/aXb");
	judge();
	cr_assert_not(V.ok, "the suggestion for /root/a*b allowed /root/aXb");
	cr_assert_eq(V.failing, 1);
}

Test(judge, roundtrip_class_and_question)
{
	roundtrip_file("/root/[x]?", 10, "allow \"/root/\\\\[x]\\\\?\"");
}

Test(judge, roundtrip_quote_hash_space)
{
	roundtrip_file("/root/a\"b", 9, "allow \"/root/a\\\"b\"");
}

Test(judge, roundtrip_hash)
{
	roundtrip_file("/root/#x", 8, "allow \"/root/#x\"");
}

Test(judge, roundtrip_space)
{
	roundtrip_file("/root/a b ", 10, "allow \"/root/a b \"");
}

Test(judge, roundtrip_leading_quote_only)
{
	roundtrip_file("/root/\"", 7, "allow \"/root/\\\"\"");
}

Test(judge, roundtrip_backslash)
{
	/* a literal backslash in a file name */
	roundtrip_file("/root/a\\b", 9, NULL);
}

Test(judge, roundtrip_backslash_does_not_allow_other_file)
{
	file(FP_F_ADDED, "/root/a\\b");
	judge();
	rule(suggestion(0));
	fp_findings_free(&F);
	file(FP_F_ADDED, "/root/ab");
	judge();
	cr_assert_not(V.ok, "the suggestion for /root/a\\b allowed /root/ab");
}

Test(judge, roundtrip_long_escaped_path)
{
	/* 12 components of 250 bytes 0xff: 3 KiB, 12 KiB once escaped */
	char p[4096];
	size_t len = 5, i;

	memcpy(p, "/root", 5);
	for (i = 0; i < 12; i++) {
		p[len++] = '/';
		memset(p + len, 0xff, 250);
		len += 250;
	}
	roundtrip_file(p, len, NULL);
}

Test(judge, roundtrip_process)
{
	proc(FP_P_LEFTOVER, 300, "/usr/bin/sleep", sleep_argv,
	     sizeof(sleep_argv));
	roundtrip("allow process /usr/bin/sleep");
}

Test(judge, roundtrip_process_odd_exe)
{
	proc(FP_P_LEFTOVER, 300, "/opt/my app/b*n (deleted)", "x", 2);
	roundtrip("allow process \"/opt/my app/b\\\\*n (deleted)\"");
}

Test(judge, roundtrip_process_without_exe)
{
	/* a leftover whose /proc/PID/exe could not be read (a zombie) */
	proc(FP_P_LEFTOVER, 300, "", sleep_argv, sizeof(sleep_argv));
	roundtrip(NULL);
}

Test(judge, roundtrip_bind_tcp)
{
	net(FP_N_BOUND, 10, AF_INET, IPPROTO_TCP, "127.0.0.1", 8080);
	roundtrip("allow bind tcp/127.0.0.1:8080");
}

Test(judge, roundtrip_bind_udp6)
{
	net(FP_N_BOUND, 10, AF_INET6, IPPROTO_UDP, "::1", 53);
	roundtrip("allow bind udp/[::1]:53");
	/* and it does not allow another address */
	net(FP_N_BOUND, 10, AF_INET6, IPPROTO_UDP, "::", 53);
	judge();
	cr_assert_not(V.ok);
}

Test(judge, roundtrip_bind_unix)
{
	struct fp_net_finding *n =
		net(FP_N_BOUND, 10, AF_UNIX, 0, "/tmp/a b.sock", 0);

	n->unix_path = bytes("/tmp/a b.sock", 13);
	roundtrip("allow bind \"unix//tmp/a b.sock\"");
}

/* ---- sidecar: tamper and steps ---- */

static struct fp_tamper_finding *tamper(uint32_t kind, pid_t by)
{
	struct fp_tamper_finding *t = fp_vec_push(&F.tamper, sizeof(*t));

	cr_assert_not_null(t);
	t->kind = kind;
	t->sig = SIGKILL;
	t->target_pid = 9;
	t->by.pid = by;
	return t;
}

Test(judge, tamper_fails_whatever_the_rules)
{
	struct fp_tamper_finding *t = tamper(FP_TAMPER_SIGNAL, 44);

	t = tamper(0, 45);
	t->what = FP_TAMPER_STATE_DIR;
	t->path = bytes("/run/fp/x", 9);
	rule("allow /**");
	rule("ignore /run/**");
	rule("forbid /run/**");
	rule("allow process /**");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 2);
	cr_assert_eq(F.tamper.n, 2, "an ignore rule dropped one");
	cr_assert(FP_TAMPER(&F)[0].failing && FP_TAMPER(&F)[1].failing);
	cr_assert_str_eq(reason(0),
			 "tamper.signal: SIGKILL to footprint's pid 9 by pid "
			 "44 (no rule can allow it)");
	cr_assert_str_eq(reason(1), "tamper.state_dir: /run/fp/x by pid 45 "
				    "(no rule can allow it)");
	/* nothing to paste that would allow it */
	cr_assert_eq(V.suggestions.n, 0);
}

Test(judge, a_heartbeat_names_no_process)
{
	tamper(FP_TAMPER_HEARTBEAT, 0);
	judge();
	cr_assert_not(V.ok);
	cr_assert_str_eq(reason(0), "tamper.heartbeat: footprint's programs "
				    "stopped answering (no rule can allow it)");
}

Test(judge, reasons_name_the_step)
{
	struct fp_step *st = fp_vec_push(&F.steps, sizeof(*st));
	struct fp_file_finding *x;

	st->index = 1;
	st->name = bytes("build", 5);
	x = file(FP_F_OUTSIDE, "/etc/x");
	x->by.pid = 7;
	x->by.step = 1;
	file(FP_F_OUTSIDE, "/etc/y");
	judge();
	cr_assert_str_eq(reason(0), "files.outside_roots: /etc/x in step 1 "
				    "(build)");
	/* a finding of no step reads as in a run */
	cr_assert_str_eq(reason(1), "files.outside_roots: /etc/y");
}

/* ---- mounts, namespaces, fileless execs, set-ID files (procops.h) ---- */

static struct fp_procop_finding *procop(enum fp_procop_kind k, uint32_t sys,
					const char *path, uint64_t flags)
{
	struct fp_procop_finding *x = fp_vec_push(&F.procops[k], sizeof(*x));

	cr_assert_not_null(x);
	x->kind = k;
	x->sys = sys;
	x->path = bytes(path, strlen(path));
	x->flags = flags;
	x->count = 1;
	x->by.pid = 7;
	return x;
}

Test(judge, setuid_mount_fileless_fail_namespace_is_reported)
{
	procop(FP_PO_SETID, FP_SYS_FCHMODAT, "/root/t", 0)->mode = 04755;
	procop(FP_PO_MOUNT, FP_SYS_MOUNT, "/root/m", 4096 /* MS_BIND */);
	/* MS_REC | MS_PRIVATE, as unshare -m does to "/" */
	procop(FP_PO_MOUNT, FP_SYS_MOUNT, "/", 0x44000);
	procop(FP_PO_NAMESPACE, FP_SYS_UNSHARE, "", 0x10020000);
	procop(FP_PO_FILELESS, 0, "memfd:payload", 0);
	judge();
	cr_assert_not(V.ok);
	cr_assert(FP_PROCOPS(&F, FP_PO_SETID)[0].failing);
	cr_assert(FP_PROCOPS(&F, FP_PO_MOUNT)[0].failing);
	cr_assert_not(FP_PROCOPS(&F, FP_PO_MOUNT)[1].failing);
	cr_assert_not(FP_PROCOPS(&F, FP_PO_NAMESPACE)[0].failing);
	cr_assert(FP_PROCOPS(&F, FP_PO_FILELESS)[0].failing);
	cr_assert(has_str(&V.reasons,
			  "files.setuid: fchmodat 4755 /root/t by pid 7 ?"));
	cr_assert(has_str(&V.reasons,
			  "processes.mounts: mount /root/m by pid 7 ?"));
	cr_assert(has_str(&V.reasons, "processes.fileless_exec: exec of "
				      "memfd:payload by pid 7 ?"));
	cr_assert_eq(V.reasons.n, 3, "%zu", V.reasons.n);
}

Test(judge, procop_rules_allow_and_forbid)
{
	procop(FP_PO_SETID, FP_SYS_FCHMODAT, "/root/bin/helper", 0)->mode =
		02755;
	procop(FP_PO_MOUNT, FP_SYS_MOUNT, "/tmp/job-1/m", 4096);
	procop(FP_PO_NAMESPACE, FP_SYS_SETNS, "", 0);
	procop(FP_PO_FILELESS, 0, "memfd:jit-1", 0);
	rule("allow setuid bin/helper");
	rule("allow mount /tmp/job-*/");
	rule("forbid namespace setns");
	rule("allow fileless memfd:jit-*");
	judge();
	cr_assert(FP_PROCOPS(&F, FP_PO_SETID)[0].allowed);
	cr_assert(FP_PROCOPS(&F, FP_PO_MOUNT)[0].allowed);
	cr_assert(FP_PROCOPS(&F, FP_PO_FILELESS)[0].allowed);
	cr_assert(FP_PROCOPS(&F, FP_PO_NAMESPACE)[0].forbidden);
	cr_assert(FP_PROCOPS(&F, FP_PO_NAMESPACE)[0].failing);
	cr_assert_eq(V.reasons.n, 1, "%zu", V.reasons.n);
	cr_assert(
		has_str(&V.reasons,
			"processes.namespaces: setns by pid 7 ? (forbidden)"));
}
