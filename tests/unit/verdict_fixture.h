/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state the summary tests build a verdict in: findings, the verdict,
 * a policy and the text written. verdict_fixture_free() is their suite's
 * .fini.
 */
#ifndef FP_VERDICT_FIXTURE_H
#define FP_VERDICT_FIXTURE_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "judge.h"
#include "policy.h"
#include "receipt.h"

static struct fp_findings F;
static struct fp_verdict V;
static struct fp_policy P;
static char *out;
static size_t outlen;

static void verdict_fixture_free(void)
{
	fp_verdict_free(&V);
	fp_findings_free(&F);
	fp_policy_free(&P);
	free(out);
	out = NULL;
}

/* F judged by P into V, for a run that ended well and was traced whole */
static inline void verdict_judge(void)
{
	struct fp_outcome o = { .exit_code = 0, .complete = true };

	cr_assert_eq(fp_judge(&P, &F, &o, &V), 0);
}

/* the stderr summary of F and V, at most max lines a list, into out */
static inline void summary(size_t max)
{
	FILE *f = open_memstream(&out, &outlen);
	struct fp_summary_opts so = { false, max };

	fp_summary_write_opts(f, &F, &V, &so);
	fclose(f);
}

/* out holds line as a whole line */
static inline bool has_line(const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = strstr(out, line); p; p = strstr(p + 1, line))
		if ((p == out || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#endif
