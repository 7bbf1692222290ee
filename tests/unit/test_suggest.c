// SPDX-License-Identifier: GPL-2.0
/* Suggestions that generalise (suggest.c), port-0 binds, learn's merge */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "judge.h"
#include "policy.h"
#include "suggest.h"
#include "suggest_fixture.h"

TestSuite(suggest, .init = suggest_fixture_setup, .fini = suggest_fixture_free,
	  .timeout = 20);

static void start(unsigned int nruns, const char *root)
{
	S = fp_suggester_new(nruns);
	cr_assert_not_null(S);
	if (root)
		cr_assert_eq(fp_suggester_root(S, root, strlen(root)), 0);
}

static void assert_sugg(size_t i, const char *line, size_t count)
{
	cr_assert_str_eq(sugg(i)->line, line);
	cr_assert_eq(sugg(i)->count, count, "%s covers %zu, not %zu", line,
		     sugg(i)->count, count);
}

/* the suggestions as a policy, each line as a file would hold it */
static void as_policy(struct fp_policy *p)
{
	char err[256] = "", line[8192];
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < OUT.n; i++) {
		/* with the count as a comment, as the summary prints it */
		snprintf(line, sizeof(line), "%s  # covers %zu\n",
			 sugg(i)->line, sugg(i)->count);
		cr_assert_eq(fp_policy_parse_line(p, line, strlen(line), NULL,
						  0, err, sizeof(err)),
			     0, "'%s': %s", line, err);
	}
}

static bool allows_n(const char *s, size_t len)
{
	struct fp_policy p;
	bool ok;

	as_policy(&p);
	ok = fp_policy_decide(&p, FP_T_PATH, s, len, NULL) == FP_DEC_ALLOW;
	fp_policy_free(&p);
	return ok;
}

static bool allows(const char *s)
{
	return allows_n(s, strlen(s));
}

Test(suggest, created_directory_becomes_one_rule)
{
	start(1, "/srv/app");
	made("/tmp/build", true);
	need("/tmp/build", true);
	need("/tmp/build/a.o", true);
	need("/tmp/build/sub/b.o", true);
	need("/srv/app/config", false);
	finish();
	cr_assert_eq(OUT.n, 2);
	assert_sugg(0, "allow /tmp/build/", 3);
	assert_sugg(1, "allow /srv/app/config", 1);
	cr_assert(allows("/tmp/build/other/file"));
	cr_assert_not(allows("/tmp/buildx"));
}

Test(suggest, random_temp_names_become_globs)
{
	start(1, "/srv/app");
	need("/tmp/cc0bQBWU.s", true);
	need("/tmp/ccX9yZ1a.s", true);
	need("/tmp/ccabQBWU.o", true);
	made("/tmp/pip-target-t2h881yr", true);
	need("/tmp/pip-target-t2h881yr/lib/x.py", true);
	need("/tmp/pip-target-t2h881yr/lib/y.py", true);
	need("/tmp/tmpk3j_x9a1", true);
	need("/tmp/tmp.Qw3rTy9Zx1", true);
	finish();
	assert_sugg(0, "allow /tmp/cc*.s", 2);
	assert_sugg(1, "allow /tmp/pip-target-*/", 2);
	/* Python's tmpXXXXXXXX covers mktemp's tmp.XXXXXXXXXX too */
	assert_sugg(2, "allow /tmp/tmp*", 2);
	assert_sugg(3, "allow /tmp/cc*.o", 1);
	cr_assert_eq(OUT.n, 4);
	/* the next run's names */
	cr_assert(allows("/tmp/ccZZ11aa.s"));
	cr_assert(allows("/tmp/pip-target-0a9b8c7d/lib/z.py"));
	cr_assert_not(allows("/tmp/ccZZ11aa.c"));
	cr_assert_not(allows("/tmp/x/cc0bQBWU.s"));
}

Test(suggest, gcc_temp_name_without_digits_is_random_on_its_own)
{
	/* mixed case but a long lower-case run: gcc's cc + six of mkstemp */
	start(1, "/srv/app");
	need("/tmp/cciZvobw.o", true);
	/* all lower case or all upper case: still gcc's six */
	need("/tmp/ccqzvobw.s", true);
	need("/tmp/ccQZVOBW.s", true);
	finish();
	cr_assert_eq(OUT.n, 2);
	assert_sugg(0, "allow /tmp/cc*.s", 2);
	assert_sugg(1, "allow /tmp/cc*.o", 1);
	cr_assert(allows("/tmp/ccQ1aBcD.o"));
}

Test(suggest, mktemp_suffix_of_letters_is_random)
{
	/* mktemp NAME.XXXXXX: two capitals and a lower-case run of four */
	start(1, "/srv/app");
	need("/srv/app/tmp/fpjobf.FVpubk", true);
	/* an extension, and a capitalised word after a dot, are not */
	need("/srv/app/data.backup", true);
	need("/srv/app/notes.Backup", true);
	finish();
	cr_assert_eq(OUT.n, 3);
	cr_assert(allows("/srv/app/tmp/fpjobf.Qz9abc"));
	cr_assert_not(allows("/srv/app/data.backuq"));
	cr_assert_not(allows("/srv/app/notes.Backuq"));
}

Test(suggest, mktemp_suffix_with_one_capital_or_inner_digits_is_random)
{
	/* one capital, not first; digits inside letters: mktemp's */
	start(1, "/srv/app");
	need("/srv/app/tmp/fpjob.mvitClwp", true);
	need("/srv/app/tmp/fpjobf.q7vobw", true);
	/* a numbered extension keeps its digits at the end */
	need("/srv/app/data.backup2", true);
	finish();
	cr_assert_eq(OUT.n, 3);
	cr_assert(allows("/srv/app/tmp/fpjob.Q1abcdef"));
	cr_assert(allows("/srv/app/tmp/fpjobf.ZZ1abc"));
	cr_assert_not(allows("/srv/app/data.backup3"));
}

Test(suggest, python_temp_names_of_letters_only_in_the_temp_dir)
{
	start(1, "/srv/app");
	need("/tmp/qzvobwkt", true);
	need("/srv/app2/settings", true);
	finish();
	cr_assert_eq(OUT.n, 2);
	/* eight letters right in /tmp: tempfile's; elsewhere: a word */
	cr_assert(allows("/tmp/a1b2c3d4"));
	cr_assert(allows("/srv/app2/settings"));
	cr_assert_not(allows("/srv/app2/settingz"));
}

Test(suggest, words_and_versions_stay_literal)
{
	start(1, "/srv/app");
	need("/srv/app/main.o", true);
	need("/srv/app/util.o", true);
	need("/srv/app/x86_64.o", true);
	need("/srv/app/sha256sum", true);
	need("/srv/app/CMakeFiles.txt", true);
	need("/srv/app/Makefile", true);
	need("/srv/app/file1.txt", true);
	need("/srv/app/file2.txt", true);
	finish();
	cr_assert_eq(OUT.n, 8);
	cr_assert_str_eq(sugg(0)->line, "allow /srv/app/main.o");
	cr_assert_str_eq(sugg(7)->line, "allow /srv/app/file2.txt");
}

/* a name that existed before the run is not random for the next one */
Test(suggest, names_not_made_by_the_run_stay_literal)
{
	start(1, NULL);
	need("/tmp/cc0bQBWU.s", false);
	need("/tmp/ccX9yZ1a.s", false);
	finish();
	cr_assert_eq(OUT.n, 2);
	assert_sugg(0, "allow /tmp/cc0bQBWU.s", 1);
}

Test(suggest, a_glob_keeps_two_fixed_bytes)
{
	start(1, NULL);
	need("/tmp/AbC12xQ", true);
	need("/tmp/a.Zq81Kp", true);
	finish();
	assert_sugg(0, "allow /tmp/AbC12xQ", 1);
	assert_sugg(1, "allow /tmp/a.*", 1);
}

Test(suggest, siblings_of_one_shape_are_random_together)
{
	start(1, NULL);
	/* each alone is only weakly random: one digit, one case */
	need("/tmp/w.abcdef1", true);
	need("/tmp/w.ghijkl2", true);
	/* another length: not a sibling */
	need("/tmp/v.abcdef1", true);
	need("/tmp/v.mnop3", true);
	need("/tmp/tmp.Qw3rTy9Zx1", true);
	finish();
	assert_sugg(0, "allow /tmp/w.*", 2);
	assert_sugg(1, "allow /tmp/v.abcdef1", 1);
	assert_sugg(2, "allow /tmp/v.mnop3", 1);
	assert_sugg(3, "allow /tmp/tmp.*", 1);
	cr_assert_eq(OUT.n, 4);
}

Test(suggest, hostile_names_are_quoted_and_escaped)
{
	static const char nl[] = "/tmp/new\nline AbC12x.txt";
	static const char bad[] = "/tmp/bad\xff\xfe Zq81Kp9";
	size_t i;

	start(1, NULL);
	made("/tmp/a*b", true);
	need("/tmp/a*b/x", true);
	need("/tmp/q?Ab12Cd", true);
	need("/tmp/sp ace", true);
	need_n(nl, sizeof(nl) - 1, true);
	need_n(bad, sizeof(bad) - 1, true);
	need("/tmp/[x]Qw3rTy9", true);
	need("/tmp/back\\slash", true);
	need("/tmp/#hash", true);
	finish();
	for (i = 0; i < OUT.n; i++) {
		const char *l = sugg(i)->line;

		for (; *l; l++)
			cr_assert((unsigned char)*l >= 0x20 &&
					  (unsigned char)*l < 0x7f,
				  "raw byte in %s", sugg(i)->line);
	}
	cr_assert(allows("/tmp/a*b/x"));
	cr_assert(allows("/tmp/a*b/y"));
	cr_assert_not(allows("/tmp/aXb/x"), "'*' in a name is no glob");
	cr_assert(allows("/tmp/q?Ab12Cd"));
	cr_assert(allows("/tmp/q?Zz99Yy"));
	cr_assert_not(allows("/tmp/qXAb12Cd"), "'?' in a name is no glob");
	cr_assert(allows("/tmp/sp ace"));
	cr_assert_not(allows("/tmp/sp"));
	cr_assert(allows_n(nl, sizeof(nl) - 1));
	cr_assert(allows("/tmp/new\nline Zz99yY.txt"));
	cr_assert(allows_n(bad, sizeof(bad) - 1));
	cr_assert(allows("/tmp/[x]Qw3rTy9"));
	cr_assert_not(allows("/tmp/xQw3rTy9"), "'[x]' in a name is no class");
	cr_assert(allows("/tmp/back\\slash"));
	cr_assert_not(allows("/tmp/backslash"));
	cr_assert(allows("/tmp/#hash"));
}

Test(suggest, never_a_root_or_above_one)
{
	start(1, "/tmp/fpit-ab12CD34/root");
	/* the run removed and made again the root's parent */
	made("/tmp/fpit-ab12CD34", true);
	need("/tmp/fpit-ab12CD34/root/new", true);
	need("/tmp/fpit-ab12CD34/other", true);
	/* a sibling whose glob would cover the root's parent */
	made("/tmp/fpit-zz98YY76", true);
	need("/tmp/fpit-zz98YY76/x", true);
	need("/tmp/fpit-zz98YY76/y", true);
	finish();
	assert_sugg(0, "allow /tmp/fpit-zz98YY76/", 2);
	assert_sugg(1, "allow /tmp/fpit-ab12CD34/root/new", 1);
	assert_sugg(2, "allow /tmp/fpit-ab12CD34/other", 1);
	cr_assert_eq(OUT.n, 3);
	cr_assert_not(allows("/tmp/fpit-ab12CD34/root/else"));
	cr_assert_not(allows("/tmp/fpit-ab12CD34"));
	cr_assert_not(allows("/tmp"));
}

Test(suggest, very_many_files)
{
	char p[64];
	size_t i;

	start(1, "/srv/app");
	made("/srv/app/build", true);
	for (i = 0; i < 100000; i++) {
		snprintf(p, sizeof(p), "/srv/app/build/f%06zu.o", i);
		need(p, true);
	}
	for (i = 0; i < 20000; i++) {
		/* mkstemp-like: the index spelt in mixed case and digits */
		snprintf(p, sizeof(p), "/tmp/cc%c%c%zuQx.s",
			 'a' + (int)(i % 26), 'A' + (int)(i / 26 % 26),
			 1000 + i);
		need(p, true);
	}
	finish();
	cr_assert_eq(OUT.n, 2);
	assert_sugg(0, "allow /srv/app/build/", 100000);
	assert_sugg(1, "allow /tmp/cc*.s", 20000);
}

Test(suggest, learn_merges_runs)
{
	start(3, "/srv/app");
	need("/tmp/cc0bQBWU.s", true);
	need("/srv/app/a", true);
	cr_assert_eq(fp_suggester_need(S, FP_T_BIND, "udp/[::1]:0", 11, false),
		     0);
	cr_assert_eq(fp_suggester_end_run(S), 0);
	need("/tmp/ccQ1w2E3.s", true);
	need("/srv/app/a", true);
	need("/tmp/w.abcdef1", true);
	cr_assert_eq(fp_suggester_end_run(S), 0);
	need("/tmp/ccZ9x8Y7.s", true);
	need("/srv/app/b", true);
	need("/tmp/w.ghijkl2", true);
	cr_assert_eq(fp_suggester_need(S, FP_T_BIND, "udp/[::1]:0", 11, false),
		     0);
	finish();
	assert_sugg(0, "allow /tmp/cc*.s", 3);
	cr_assert_eq(memcmp(sugg(0)->runs, "\1\1\1", 3), 0);
	assert_sugg(1, "allow /srv/app/a", 2);
	cr_assert_eq(memcmp(sugg(1)->runs, "\1\1\0", 3), 0);
	assert_sugg(2, "allow bind udp/[::1]:0", 2);
	cr_assert_eq(memcmp(sugg(2)->runs, "\1\0\1", 3), 0);
	/* the same shape in two runs: random */
	assert_sugg(3, "allow /tmp/w.*", 2);
	cr_assert_eq(memcmp(sugg(3)->runs, "\0\1\1", 3), 0);
	assert_sugg(4, "allow /srv/app/b", 1);
	cr_assert_eq(OUT.n, 5);
}

/* ---- policy syntax the suggestions rely on ---- */

static struct fp_policy P;

static int parse(const char *line)
{
	char err[256];

	return fp_policy_parse_line(&P, line, strlen(line), NULL, 0, err,
				    sizeof(err));
}

Test(suggest, policy_takes_a_comment_after_a_rule)
{
	memset(&P, 0, sizeof(P));
	cr_assert_eq(parse("allow /a  # covers 3"), 0);
	cr_assert_eq(parse("allow \"/b c\" # covers 1"), 0);
	cr_assert_eq(parse("allow /d#e"), 0);
	cr_assert_eq(parse("allow bind tcp/127.0.0.1:0\t# covers 2"), 0);
	cr_assert_neq(parse("allow \"/b c\" junk"), 0);
	cr_assert_eq(P.n, 4);
	cr_assert_str_eq(P.rules[0].pattern, "/a");
	cr_assert_str_eq(P.rules[1].pattern, "/b c");
	cr_assert_str_eq(P.rules[2].pattern, "/d#e");
	cr_assert_str_eq(P.rules[3].pattern, "tcp/127.0.0.1:0");
	fp_policy_free(&P);
}

Test(suggest, glob_directory_rule)
{
	memset(&P, 0, sizeof(P));
	cr_assert_eq(parse("allow /tmp/pip-*/"), 0);
	cr_assert(fp_rule_matches(&P.rules[0], "/tmp/pip-x", 10));
	cr_assert(fp_rule_matches(&P.rules[0], "/tmp/pip-x/a/b", 14));
	cr_assert_not(fp_rule_matches(&P.rules[0], "/tmp/pipx/a", 11));
	cr_assert_not(fp_rule_matches(&P.rules[0], "/tmp/o/pip-x", 12));
	cr_assert_not(fp_rule_matches(&P.rules[0], "/tmp", 4));
	fp_policy_free(&P);
}

/* ---- binds that asked for port 0 ---- */

static struct fp_findings F;
static struct fp_verdict V;

static struct fp_net_finding *net(enum fp_net_list l, int family,
				  const char *addr, uint16_t port, bool any)
{
	struct fp_net_finding *x = fp_vec_push(&F.net[l], sizeof(*x));

	cr_assert_not_null(x);
	x->pid = 10;
	x->family = family;
	x->protocol = IPPROTO_TCP;
	snprintf(x->address, sizeof(x->address), "%s", addr);
	x->port = port;
	x->any_port = any;
	return x;
}

static void judge(void)
{
	struct fp_outcome o = { .complete = true };

	fp_verdict_free(&V);
	cr_assert_eq(fp_judge(&P, &F, &o, &V), 0);
}

static void net_done(void)
{
	fp_verdict_free(&V);
	fp_findings_free(&F);
	fp_policy_free(&P);
}

TestSuite(port0, .fini = net_done, .timeout = 10);

Test(port0, suggested_as_port_0)
{
	net(FP_N_BOUND, AF_INET6, "::1", 41051, true);
	net(FP_N_LISTENING, AF_INET6, "::1", 41051, false);
	net(FP_N_BOUND, AF_INET, "127.0.0.1", 8080, false);
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.suggestions.n, 2);
	cr_assert_str_eq(((char **)V.suggestions.v)[0],
			 "allow bind tcp/[::1]:0");
	cr_assert_eq(((size_t *)V.suggestion_counts.v)[0], 2);
	cr_assert_str_eq(((char **)V.suggestions.v)[1],
			 "allow bind tcp/127.0.0.1:8080");
	/* the reasons name the port the kernel chose */
	cr_assert_str_eq(((char **)V.reasons.v)[0],
			 "network.bound: tcp/[::1]:41051 by pid 10");
}

Test(port0, rule_matches_any_chosen_port_only)
{
	net(FP_N_BOUND, AF_INET, "127.0.0.1", 41051, true);
	net(FP_N_LISTENING, AF_INET, "127.0.0.1", 41051, false);
	net(FP_N_BOUND, AF_INET, "127.0.0.1", 41052, false);
	cr_assert_eq(parse("allow bind tcp/127.0.0.1:0"), 0);
	judge();
	cr_assert(FP_NETS(&F, FP_N_BOUND)[0].allowed);
	cr_assert_str_eq(FP_NETS(&F, FP_N_BOUND)[0].rule,
			 "allow bind tcp/127.0.0.1:0");
	cr_assert(FP_NETS(&F, FP_N_LISTENING)[0].allowed);
	/* asked for 41052 itself: port 0 does not allow it */
	cr_assert_not(FP_NETS(&F, FP_N_BOUND)[1].allowed);
	cr_assert_eq(V.failing, 1);
}

Test(port0, forbid_wins)
{
	net(FP_N_BOUND, AF_INET, "127.0.0.1", 41051, true);
	cr_assert_eq(parse("allow bind tcp/127.0.0.1:41051"), 0);
	cr_assert_eq(parse("forbid bind *:0"), 0);
	judge();
	cr_assert(FP_NETS(&F, FP_N_BOUND)[0].forbidden);
	cr_assert_eq(V.suggestions.n, 0);
}

/* issue 29: under the one watched root, a rule is written relative to it,
 * and pasted back with that root it allows what it did */
static bool allows_in_root(const char *root, const char *s)
{
	char err[256] = "", line[8192], *roots[] = { (char *)root };
	struct fp_policy p = { 0 };
	bool ok;
	size_t i;

	for (i = 0; i < OUT.n; i++) {
		snprintf(line, sizeof(line), "%s\n", sugg(i)->line);
		cr_assert_eq(fp_policy_parse_line(&p, line, strlen(line), roots,
						  1, err, sizeof(err)),
			     0, "'%s': %s", line, err);
	}
	ok = fp_policy_decide(&p, FP_T_PATH, s, strlen(s), NULL) ==
	     FP_DEC_ALLOW;
	fp_policy_free(&p);
	return ok;
}

Test(suggest, relative_to_the_one_root)
{
	start(1, "/srv/app");
	fp_suggester_relative(S);
	made("/srv/app/node_modules", true);
	need("/srv/app/node_modules/a/index.js", true);
	need("/srv/app/node_modules/b/index.js", true);
	need("/srv/app/config", false);
	need("/srv/app/process", false);
	need("/srv/app/#x", false);
	need("/srv/app/tmp/cc0bQBWU.s", true);
	need("/srv/app/tmp/ccX9yZ1a.s", true);
	need("/tmp/outside", false);
	finish();
	assert_sugg(0, "allow node_modules/", 2);
	assert_sugg(1, "allow tmp/cc*.s", 2);
	assert_sugg(2, "allow config", 1);
	/* a target word and a comment sign are quoted, as names always are */
	assert_sugg(3, "allow \"process\"", 1);
	assert_sugg(4, "allow \"#x\"", 1);
	assert_sugg(5, "allow /tmp/outside", 1);
	cr_assert(allows_in_root("/srv/app", "/srv/app/node_modules/c/d"));
	cr_assert(allows_in_root("/srv/app", "/srv/app/process"));
	cr_assert(allows_in_root("/srv/app", "/srv/app/#x"));
	cr_assert(allows_in_root("/srv/app", "/srv/app/tmp/ccAAAAAA.s"));
	cr_assert(allows_in_root("/srv/app", "/tmp/outside"));
	cr_assert_not(allows_in_root("/srv/app", "/srv/app/configx"));
}

Test(suggest, relative_keeps_a_glob_root_escaped)
{
	start(1, "/w/a*b");
	fp_suggester_relative(S);
	need("/w/a*b/out/cc0bQBWU.s", true);
	need("/w/a*b/out/ccX9yZ1a.s", true);
	need("/w/a*b/x", false);
	finish();
	assert_sugg(0, "allow out/cc*.s", 2);
	assert_sugg(1, "allow x", 1);
	cr_assert(allows_in_root("/w/a*b", "/w/a*b/out/ccQQQQQQ.s"));
	cr_assert_not(allows_in_root("/w/a*b", "/w/aXb/x"));
}

Test(suggest, absolute_with_two_roots_or_none_asked)
{
	start(1, "/srv/app");
	cr_assert_eq(fp_suggester_root(S, "/srv/other", 10), 0);
	fp_suggester_relative(S);
	need("/srv/app/config", false);
	finish();
	assert_sugg(0, "allow /srv/app/config", 1);
	fp_suggester_free(S);
	fp_suggs_free(&OUT);
	start(1, "/srv/app");
	need("/srv/app/config", false);
	finish();
	assert_sugg(0, "allow /srv/app/config", 1);
}

/* npm's cache: "_cacache" is a name, not Python's tempfile (issue 29) */
Test(suggest, a_leading_underscore_is_a_name)
{
	start(1, "/srv/app");
	made("/home/u/.npm/_cacache", true);
	need("/home/u/.npm/_cacache/index-v5/aa/bb", true);
	need("/home/u/.npm/_cacache/content-v2/sha512/cc", true);
	finish();
	cr_assert_eq(OUT.n, 1);
	assert_sugg(0, "allow /home/u/.npm/_cacache/", 2);
}
