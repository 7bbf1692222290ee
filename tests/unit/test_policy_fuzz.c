// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c: what tests/fuzz/fuzz_policy.c and fuzz_cli.c found. The glob
 * matcher took exponential time (and stack) in the number of stars, and a
 * pattern named like a target word did not survive the trip through its
 * rule text that a recorded run makes.
 */
#include <criterion/criterion.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

static char root[] = "/r";
static char *roots[] = { root };

static char *repeat(const char *piece, size_t n, const char *tail)
{
	size_t pl = strlen(piece), tl = strlen(tail), i;
	char *s = malloc(pl * n + tl + 1);

	cr_assert_not_null(s);
	for (i = 0; i < n; i++)
		memcpy(s + i * pl, piece, pl);
	memcpy(s + n * pl, tail, tl + 1);
	return s;
}

static bool glob(const char *p, const char *s, bool slash_special)
{
	return fp_glob_match(p, strlen(p), s, strlen(s), slash_special);
}

/* 24 stars against 200 bytes: about 200^24 splits for a backtracker */
Test(policy_fuzz, stars_take_polynomial_time, .timeout = 10)
{
	char *p = repeat("*a", 24, "b"), *s = repeat("a", 200, "");

	cr_assert_not(glob(p, s, true));
	cr_assert_not(glob(p, s, false));
	s[199] = 'b';
	cr_assert(glob(p, s, true));
	free(p);
	free(s);
	p = repeat("**/", 24, "x");
	s = repeat("a/", 200, "y");
	cr_assert_not(glob(p, s, true));
	s[400] = 'x';
	cr_assert(glob(p, s, true));
	free(p);
	free(s);
}

/* one recursion per star used to overflow the stack */
Test(policy_fuzz, a_hundred_thousand_stars, .timeout = 10)
{
	char *p = repeat("*/", 100000, ""), *q = repeat("**", 100000, "x");

	cr_assert_not(glob(p, "a/b/c", true));
	cr_assert(glob(q, "abcx", true));
	cr_assert_not(glob(q, "abcy", true));
	free(p);
	free(q);
}

/* the subtleties the old matcher had, kept */
Test(policy_fuzz, semantics_kept)
{
	cr_assert(glob("/a/*", "/a/", true));
	cr_assert_not(glob("/a/*", "/a/b/c", true));
	cr_assert(glob("/a/**", "/a/b/c", true));
	cr_assert(glob("/a/***", "/a/b/c", true));
	cr_assert(glob("/a/[b-d]/?", "/a/c/x", true));
	cr_assert_not(glob("/a/[!/]x", "/a//x", true));
	cr_assert(glob("/a/[", "/a/[", true), "a malformed class is literal");
	cr_assert(glob("/a/\\*", "/a/*", true));
	cr_assert_not(glob("/a/\\*", "/a/b", true));
	cr_assert(glob("/a/x\\", "/a/x\\", true), "a trailing \\ is literal");
	cr_assert(glob("a?b", "a/b", false));
	cr_assert(glob("", "", true));
	cr_assert_not(glob("", "x", true));
}

/*
 * A rule's text is what a recorded run keeps and replay parses again: a
 * path rule for a file named "process" was written "allow process" and
 * came back as a process rule without a pattern, so replay failed.
 */
Test(policy_fuzz, target_words_stay_patterns)
{
	static const char *const words[] = { "process", "leftover", "exec",
					     "bind" };
	struct fp_policy p = { 0 }, again = { 0 };
	char err[600];
	size_t i;

	for (i = 0; i < 4; i++) {
		fp_policy_free(&p);
		fp_policy_free(&again);
		cr_assert_eq(fp_policy_add(&p, FP_ALLOW, FP_T_PATH, words[i],
					   strlen(words[i]), roots, 1, err,
					   sizeof(err)),
			     0, "%s", err);
		cr_assert_eq(fp_policy_parse_line(&again, p.rules[0].text,
						  strlen(p.rules[0].text),
						  roots, 1, err, sizeof(err)),
			     0, "'%s': %s", p.rules[0].text, err);
		cr_assert_eq(again.n, 1);
		cr_assert_eq(again.rules[0].target, FP_T_PATH, "%s",
			     p.rules[0].text);
		cr_assert_str_eq(again.rules[0].pattern, p.rules[0].pattern);
	}
	fp_policy_free(&p);
	fp_policy_free(&again);
}

/*
 * The matcher against glibc's fnmatch(FNM_PATHNAME), over every pattern
 * and subject the random walk below makes of a small alphabet: the two
 * agree where their languages do (no "**", no class, no escaped slash),
 * which covers the literal prefix glob_match checks before it compiles.
 */
static void random_word(char *out, size_t max, const char *alphabet,
			unsigned int *seed)
{
	size_t n = (size_t)rand_r(seed) % max, i, k = strlen(alphabet);

	for (i = 0; i < n; i++)
		out[i] = alphabet[(size_t)rand_r(seed) % k];
	out[n] = '\0';
}

static bool fnmatch_comparable(const char *p)
{
	const char *c;

	/* glibc's star does not stop at an escaped slash */
	if (strstr(p, "**") || strstr(p, "\\/"))
		return false;
	/* a class: whole and simple, or not at all */
	for (c = p; *c; c++) {
		if (*c == '\\' && c[1])
			c++;
		else if (*c == '[')
			return false;
	}
	return true;
}

Test(policy_fuzz, agrees_with_fnmatch)
{
	unsigned int seed = 20261201;
	char p[12], s[12];
	int i, checked = 0;

	for (i = 0; i < 200000; i++) {
		/* '[' only escaped: a class makes the pair incomparable */
		random_word(p, sizeof(p) - 1, "ab/*?\\[", &seed);
		random_word(s, sizeof(s) - 1, "ab/*[", &seed);
		if (!fnmatch_comparable(p))
			continue;
		checked++;
		cr_assert_eq(glob(p, s, true), fnmatch(p, s, FNM_PATHNAME) == 0,
			     "pattern '%s' subject '%s'", p, s);
	}
	cr_assert_gt(checked, 50000);
}
