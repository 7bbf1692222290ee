// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the policy parser: the input is a policy file, cut
 * into lines as fp_policy_load does, and parsed line by line with
 * fp_policy_parse_line. The rules are then matched against the lines
 * themselves, and every rule must survive the trip a recorded run makes:
 * its text, parsed again, gives the same rule (replay depends on it).
 * Build and run it with scripts/fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

static char root_a[] = "/srv/app", root_b[] = "/";
static char *roots[] = { root_a, root_b };

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_policy: %s\n", what);
		abort();
	}
}

/* The text of a rule parses back into the rules it was made from. */
static void round_trip(const struct fp_rule *r, char *const *rt, size_t nroots)
{
	struct fp_policy again = { 0 };
	char err[600];
	size_t i;

	check(!fp_policy_parse_line(&again, r->text, strlen(r->text), rt,
				    nroots, err, sizeof(err)),
	      "the text of a rule does not parse");
	check(again.n >= 1, "the text of a rule gives no rule");
	for (i = 0; i < again.n; i++)
		if (again.rules[i].len == r->len &&
		    !memcmp(again.rules[i].pattern, r->pattern, r->len))
			break;
	check(i < again.n, "the text of a rule gives another pattern");
	check(again.rules[i].kind == r->kind &&
		      again.rules[i].target == r->target,
	      "the text of a rule gives another kind or target");
	fp_policy_free(&again);
}

static void decide_all(const struct fp_policy *p, const char *s, size_t len)
{
	static const enum fp_rule_target targets[] = { FP_T_PATH, FP_T_PROCESS,
						       FP_T_BIND };
	const struct fp_rule *rule;
	size_t t;

	for (t = 0; t < 3; t++) {
		enum fp_decision d =
			fp_policy_decide(p, targets[t], s, len, &rule);

		check(d == FP_DEC_NONE || rule || d == FP_DEC_IGNORE,
		      "a decision without a rule");
	}
}

/* What judge.c suggests for a path must be a rule for that very path. */
static void suggest(const char *path, size_t len)
{
	struct fp_policy p = { 0 };
	char *q, *line, err[600];

	if (!len || path[0] != '/' || memchr(path, '\0', len))
		return;
	q = fp_policy_quote_dup(path, len, true);
	check(q && asprintf(&line, "allow %s", q) > 0, "out of memory");
	check(!fp_policy_parse_line(&p, line, strlen(line), NULL, 0, err,
				    sizeof(err)),
	      "a suggested rule does not parse");
	check(p.n == 1 && p.rules[0].target == FP_T_PATH,
	      "a suggested rule is not one path rule");
	check(fp_rule_matches(&p.rules[0], path, len),
	      "a suggested rule does not match its path");
	fp_policy_free(&p);
	free(line);
	free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_policy pol = { 0 };
	const char *s = (const char *)data, *end = s + size, *nl;
	size_t nroots = size ? data[0] % 3 : 0, i, nlines = 0;
	char err[600];
	int ret;

	while (s < end) {
		nl = memchr(s, '\n', end - s);
		if (!nl)
			nl = end;
		err[0] = '\0';
		ret = fp_policy_parse_line(&pol, s, nl - s, roots, nroots, err,
					   sizeof(err));
		check(!ret || err[0], "a rejected line without a message");
		/* subjects are paths, which footprint cuts at PATH_MAX */
		if (nlines++ < 8 && nl - s <= 4096)
			decide_all(&pol, s, nl - s);
		suggest(s, nl - s);
		s = nl + 1;
	}
	for (i = 0; i < pol.n && i < 64; i++)
		round_trip(&pol.rules[i], roots, nroots);
	fp_policy_free(&pol);
	return 0;
}
