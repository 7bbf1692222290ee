// SPDX-License-Identifier: GPL-2.0
/*
 * Suggestions that generalise on real caches (suggest_churn.c): package
 * caches, UUID, hash and numbered names collapsed into one rule, rules
 * relative to each run's own root, and secret reads scoped by program.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "suggest.h"
#include "suggest_fixture.h"

TestSuite(churn, .init = suggest_fixture_setup, .fini = suggest_fixture_free,
	  .timeout = 30);

static void start(unsigned int nruns, bool relative)
{
	S = fp_suggester_new(nruns);
	cr_assert_not_null(S);
	if (relative)
		fp_suggester_relative(S);
}

static void root(const char *r)
{
	cr_assert_eq(fp_suggester_root(S, r, strlen(r)), 0);
}

static void end_run(void)
{
	cr_assert_eq(fp_suggester_end_run(S), 0);
}

static const char *line(size_t i)
{
	return sugg(i)->line;
}

static bool has(const char *l)
{
	size_t i;

	for (i = 0; i < OUT.n; i++)
		if (!strcmp(((struct fp_sugg *)OUT.v)[i].line, l))
			return true;
	return false;
}

/* the suggestions as a policy under root r (NULL: none) */
static enum fp_decision decide(const char *r, enum fp_rule_target t,
			       const char *s)
{
	char *roots[] = { (char *)r };
	struct fp_policy p = { 0 };
	enum fp_decision d;
	char err[256];
	size_t i;

	for (i = 0; i < OUT.n; i++) {
		const char *l = line(i);

		cr_assert_eq(fp_policy_parse_line(&p, l, strlen(l), roots,
						  r ? 1 : 0, err, sizeof(err)),
			     0, "%s: %s", l, err);
	}
	d = fp_policy_decide(&p, t, s, strlen(s), NULL);
	fp_policy_free(&p);
	return d;
}

static bool allows(const char *r, const char *s)
{
	return decide(r, FP_T_PATH, s) == FP_DEC_ALLOW;
}

#define NPM "/home/u/.npm/_cacache"

/* npm install --offline, three times: the cache index rewritten in
 * place, a UUID temp file per package, a debug log per run */
Test(churn, npm_cache_is_one_rule)
{
	static const char *const hex[] = {
		"03/c6/b08c3c1e7780180f5329e1963e92ea160416e9dbbfab749b",
		"06/4b/6c1d4325f34a83acf333ab8a7d0e98a29bb01013836bc053",
		"0e/bc/3e860ac298a0e1f2ebc7443600688e9009766fff3e45268",
	};
	static const char *const uuid[] = {
		"057554d6-5a87-42cf-8a51-29ddcbd05621",
		"cc2e1f00-dd3a-4abc-bf16-0123456789ab",
		"97910801-2a27-43a0-b1f1-fedcba987654",
	};
	char p[256];
	int r, k;

	start(3, true);
	for (r = 0; r < 3; r++) {
		snprintf(p, sizeof(p), "/home/u/p%d", r);
		root(p);
		snprintf(p, sizeof(p), "/home/u/p%d/node_modules", r);
		made(p, true);
		snprintf(p, sizeof(p), "/home/u/p%d/node_modules/a/i.js", r);
		need(p, true);
		snprintf(p, sizeof(p), "/home/u/p%d/package-lock.json", r);
		need(p, true);
		for (k = 0; k < 3; k++) {
			snprintf(p, sizeof(p), NPM "/index-v5/%s", hex[k]);
			need(p, false);
			snprintf(p, sizeof(p), NPM "/tmp/%s",
				 uuid[(k + r) % 3]);
			need(p, true);
		}
		snprintf(
			p, sizeof(p),
			"/home/u/.npm/_logs/2026-12-0%dT10_41_27_549Z-debug-0.log",
			r + 1);
		need(p, true);
		end_run();
	}
	finish();
	cr_assert_eq(OUT.n, 4);
	cr_assert_str_eq(line(0), "allow " NPM "/");
	cr_assert(has("allow node_modules/"));
	cr_assert(has("allow package-lock.json"));
	cr_assert(has("allow /home/u/.npm/_logs/"));
	/* a fourth checkout, and the cache's other names */
	cr_assert(allows("/w/p4", "/w/p4/node_modules/z/y.js"));
	cr_assert(allows("/w/p4", NPM "/content-v2/sha512/ab/cd/ef"));
	cr_assert_not(allows("/w/p4", "/home/u/.bashrc"));
	cr_assert_not(allows("/w/p4", "/home/u/.npm/other"));
}

/* a loop that made ol.0 ... ol.99990: one rule, wherever it was */
Test(churn, numbered_names_are_one_glob)
{
	char p[64];
	int i;

	start(1, true);
	root("/w");
	for (i = 0; i < 100000; i += 10) {
		snprintf(p, sizeof(p), "/w/ol.%d", i);
		need(p, true);
		snprintf(p, sizeof(p), "/tmp/ol.%d", i);
		need(p, true);
	}
	finish();
	cr_assert_eq(OUT.n, 2);
	cr_assert(has("allow ol.[0-9]*"));
	cr_assert(has("allow /tmp/ol.[0-9]*"));
	cr_assert(allows("/w", "/w/ol.123456"));
	cr_assert_not(allows("/w", "/w/ol.x"));
	cr_assert_not(allows("/w", "/tmp/other"));
}

Test(churn, two_numbered_names_stay_exact)
{
	start(1, false);
	root("/w");
	need("/w/docs/ol.1", true);
	need("/w/docs/ol.2", true);
	need("/w/docs/ol.1.txt", true);
	finish();
	cr_assert_eq(OUT.n, 3);
	cr_assert(has("allow /w/docs/ol.1"));
	cr_assert(has("allow /w/docs/ol.2"));
}

/* a content store: hashes below fan-out directories of hex */
Test(churn, hashes_below_fan_out_are_their_store)
{
	start(1, true);
	root("/w");
	need("/w/.git/objects/ab/cdef0123456789abcdef0123456789abcdef01", true);
	made("/w/.git/objects/12", true);
	need("/w/.git/objects/12/3456789abcdef0123456789abcdef0123456789",
	     true);
	need("/w/.git/index", false);
	need("/var/cache/fp/7f/3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d", true);
	finish();
	cr_assert(has("allow .git/objects/"), "%s", line(0));
	cr_assert(has("allow .git/index"));
	cr_assert(has("allow /var/cache/fp/"));
	cr_assert_eq(OUT.n, 3);
}

/* churn right in /tmp, a home, or a root keeps its glob */
Test(churn, no_rule_for_a_directory_that_matters)
{
	char uuid_glob[64] = "allow /tmp/";
	size_t i, at = strlen(uuid_glob);

	for (i = 0; i < 36; i++)
		uuid_glob[at + i] =
			i == 8 || i == 13 || i == 18 || i == 23 ? '-' : '?';
	uuid_glob[at + 36] = '\0';
	start(1, false);
	root("/w");
	need("/tmp/057554d6-5a87-42cf-8a51-29ddcbd05621", true);
	need("/tmp/cc2e1f00-dd3a-4abc-bf16-0123456789ab", true);
	need("/tmp/ccQ1aBcD.s", true);
	need("/home/u/7f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d", true);
	need("/home/u/.cache/aaaa1111bbbb2222cccc3333dddd", true);
	need("/home/u/.cache/eeee1111bbbb2222cccc3333dddd", true);
	need("/w/fe3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d", true);
	need("/w/ee3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d.o", true);
	need("/etc/app/aaaa1111bbbb2222cccc3333dddd", true);
	need("/etc/app/bbbb1111bbbb2222cccc3333dddd", true);
	finish();
	/* a UUID's glob keeps its dashes: "????????-????-..." */
	cr_assert(has(uuid_glob));
	cr_assert_not(has("allow /tmp/"));
	cr_assert_not(has("allow /home/u/"));
	cr_assert_not(has("allow /home/u/.cache/"));
	cr_assert_not(has("allow /w/"));
	cr_assert_not(has("allow /etc/app/"));
	cr_assert_not(allows("/w", "/tmp/payload"));
	cr_assert_not(allows("/w", "/home/u/.bashrc"));
	cr_assert_not(allows("/w", "/w/src/main.c"));
	cr_assert_not(allows("/w", "/etc/app/config"));
}

/* a directory named tmp or temp is a temp directory too: globs */
Test(churn, temp_named_directories_keep_globs)
{
	start(1, true);
	root("/w");
	need("/w/tmp/057554d6-5a87-42cf-8a51-29ddcbd05621", true);
	need("/w/tmp/job.K7abcdef", true);
	need("/home/runner/work/_temp/aaaa1111bbbb2222cccc3333dddd.sh", true);
	need("/home/runner/work/_temp/bbbb1111bbbb2222cccc3333dddd.sh", true);
	finish();
	cr_assert_not(has("allow tmp/"));
	cr_assert_not(has("allow /home/runner/work/_temp/"));
	cr_assert(has("allow /home/runner/work/_temp/*.sh"));
	cr_assert_not(allows("/w", "/w/tmp/payload"));
}

/* the cache of a program is one rule, even in a root */
Test(churn, caches_in_a_root_or_not)
{
	start(1, true);
	root("/w");
	need("/w/.npm/_cacache/tmp/x1", true);
	need("/w/.npm/_cacache/index-v5/aa/bb", false);
	need("/home/u/.cache/pip/http-v2/a/b/c/d/e/0123456789abcdef0123", true);
	need("/home/u/.cargo/registry/index/x/.cache/se/rd/serde", true);
	need("/etc/.npm/_cacache/x", true);
	finish();
	cr_assert(has("allow .npm/_cacache/"));
	cr_assert(has("allow /home/u/.cache/pip/"));
	cr_assert(has("allow /home/u/.cargo/registry/"));
	cr_assert(has("allow /etc/.npm/_cacache/x"));
	cr_assert_eq(OUT.n, 4);
}

/* one run per checkout: the rules are the same relative ones */
Test(churn, relative_rules_from_runs_in_two_checkouts)
{
	start(3, true);
	root("/ci/a");
	need("/ci/a/build/app", true);
	need("/ci/a/out.txt", false);
	end_run();
	root("/home/dev/src/b");
	need("/home/dev/src/b/build/app", true);
	need("/home/dev/src/b/out.txt", false);
	end_run();
	/* several roots in one run: absolute, as before */
	root("/x");
	root("/y");
	need("/x/out.txt", false);
	end_run();
	finish();
	cr_assert_str_eq(line(0), "allow build/app");
	cr_assert_eq(((struct fp_sugg *)OUT.v)[0].count, 2);
	cr_assert(((struct fp_sugg *)OUT.v)[0].runs[0] &&
		  ((struct fp_sugg *)OUT.v)[0].runs[1]);
	cr_assert(has("allow out.txt"));
	cr_assert(has("allow /x/out.txt"));
	cr_assert_eq(OUT.n, 3);
	cr_assert(allows("/third", "/third/build/app"));
}

Test(churn, absolute_when_asked)
{
	start(2, false);
	root("/ci/a");
	need("/ci/a/out.txt", false);
	end_run();
	root("/ci/b");
	need("/ci/b/out.txt", false);
	end_run();
	finish();
	cr_assert(has("allow /ci/a/out.txt"));
	cr_assert(has("allow /ci/b/out.txt"));
	cr_assert_eq(OUT.n, 2);
}

Test(churn, secret_reads_by_program)
{
	start(1, true);
	root("/w");
	cr_assert_eq(fp_suggester_need_by(S, FP_T_READ, "/etc/shadow", 11,
					  false, "/usr/bin/cat", 12),
		     0);
	cr_assert_eq(fp_suggester_need_by(S, FP_T_READ, "/etc/shadow", 11,
					  false, "/opt/my tool", 12),
		     0);
	cr_assert_eq(fp_suggester_need_by(S, FP_T_READ, "/etc/shadow", 11,
					  false, "/usr/bin/cat", 12),
		     0);
	finish();
	cr_assert_eq(OUT.n, 2);
	cr_assert_str_eq(line(0), "allow read /etc/shadow by /usr/bin/cat");
	cr_assert_str_eq(line(1), "allow read /etc/shadow by \"/opt/my tool\"");
}
