/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How severe a failing finding is, by the list it is in, so that what a
 * reviewer reads first is the worst: `policy check` orders its reasons by
 * it, and the verdict keeps the most severe reasons when there are more
 * than it lists. The table follows issue 31's levels (docs/policy.md,
 * "Severity"); a shared table of severities may replace it later, behind
 * the same two functions.
 */
#ifndef FP_FINDING_RANK_H
#define FP_FINDING_RANK_H

#include <stddef.h>

enum fp_rank {
	FP_RANK_VERDICT =
		0, /* not a finding: the command failed, a lost trace */
	FP_RANK_CRITICAL,
	FP_RANK_HIGH,
	FP_RANK_MEDIUM,
	FP_RANK_LOW,
	FP_RANK_LAST, /* "... and N more failing findings" */
};

/* A finding's list as the receipt names it ("files.outside_roots",
 * "processes.privileged", "tamper"): its rank; an unknown one is medium. */
enum fp_rank fp_list_rank(const char *list, size_t len);
/* A verdict's reason ("files.read: /etc/shadow ..."): its rank. */
enum fp_rank fp_reason_rank(const char *reason);
/* Order reasons most severe first; those of one rank keep their order. */
void fp_reasons_by_rank(char **v, size_t n);
/* "critical", "high", "medium", "low" (and "verdict", "more") */
const char *fp_rank_name(enum fp_rank r);

#endif
