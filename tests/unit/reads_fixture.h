/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state the tests of what a run read (sensitive.h) reconcile and
 * judge in: the reconciler R and its clock, the findings, the verdict,
 * the policy, empty snapshots under the one root /r and one process
 * table for before and after. reads_fixture_setup() and
 * reads_fixture_free() make and free it; each file keeps its own
 * fp_reads_conf (its homes).
 */
#ifndef FP_READS_FIXTURE_H
#define FP_READS_FIXTURE_H

#include "recon_fixture.h"

static struct fp_recon *R;
static struct fp_findings F;
static struct fp_verdict V;
static struct fp_policy P;
static struct fp_fs_snapshot B, A;
static struct fp_proc_table PT;
static char *roots[] = { "/r" };
static uint64_t now = 1000;

static inline void reads_fixture_setup(void)
{
	R = fp_recon_new();
	cr_assert_not_null(R);
}

static inline void reads_fixture_free(void)
{
	fp_verdict_free(&V);
	fp_findings_free(&F);
	fp_policy_free(&P);
	fp_recon_free(R);
}

/* line, a rule under /r, added to P */
static inline void rule(const char *line)
{
	policy_rule(&P, roots, 1, line);
}

static inline void feed(struct fp_event *ev)
{
	recon_feed(R, &now, ev);
}

/* what R was fed, reconciled into F and judged by P into V */
static inline void judge(void)
{
	struct fp_recon_input in = recon_input(&B, &A, roots, 1);

	in.proc_before = in.proc_after = &PT;
	recon_judge(R, &in, &F, &P, &V);
}

#endif
