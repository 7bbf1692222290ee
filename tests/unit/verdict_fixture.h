/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state the summary tests build a verdict in: findings, the verdict,
 * a policy and the text written. verdict_fixture_free() is their suite's
 * .fini.
 */
#ifndef FP_VERDICT_FIXTURE_H
#define FP_VERDICT_FIXTURE_H

#include <stdlib.h>

#include "findings.h"
#include "judge.h"
#include "policy.h"

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

#endif
