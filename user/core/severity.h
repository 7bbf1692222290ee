/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How severe a finding is, by the receipt list it is in ("files.read",
 * "network.connected", "tamper", ...): what a reviewer should read first.
 * One table, issue 31's levels (docs/policy.md, "Severity"): critical for
 * a secret read, a privilege rise, tamper, a set-ID file and a fileless
 * exec; high for egress, a write outside the roots or through a /proc
 * magic link, a leftover process, a signal or ptrace aimed outside the
 * run; medium for an unexplained change, a bind, a listener, an accepted
 * connection, a DNS lookup, a mount, a namespace, a file made and removed
 * again, a missing expected change; low for the files in the roots and
 * the lists that only report. A policy's "severity KIND LEVEL" lines
 * change a kind's level (struct fp_sevmap).
 *
 * The stderr summary, the markdown job summary, the annotations, the
 * receipt's "severity" and "by_severity", `policy check`, the verdict's
 * list of reasons and the fleet all rank by it.
 */
#ifndef FP_SEVERITY_H
#define FP_SEVERITY_H

#include <stddef.h>
#include <stdint.h>

/* ordered: a larger value is more severe */
enum fp_severity {
	FP_SEV_LOW = 1,
	FP_SEV_MEDIUM = 2,
	FP_SEV_HIGH = 3,
	FP_SEV_CRITICAL = 4,
};

/* the kinds of the table, for struct fp_sevmap */
#define FP_SEV_KINDS 32

/* a policy's levels: sev[kind] (fp_severity_kind()), 0 for the table's */
struct fp_sevmap {
	uint8_t sev[FP_SEV_KINDS];
};

/*
 * The severity of a finding of list ("files.read", "processes.leftover",
 * "tamper"; a tamper kind "tamper.signal" too), as m sets it (NULL: the
 * table). A list the table does not know is high: a kind added later is
 * never ranked below the ones known to matter.
 */
enum fp_severity fp_severity_of(const char *list);
enum fp_severity fp_severity_in(const struct fp_sevmap *m, const char *list,
				size_t len);
/* the table's index of list (len bytes), or -1 */
int fp_severity_kind(const char *list, size_t len);
/* the kind of index k ("files.read"), or NULL past the table */
const char *fp_severity_kind_name(int k);
/* the table's kinds, ", "-separated, for an error message */
const char *fp_severity_kinds(void);
/* "critical", "high", "medium", "low" */
const char *fp_severity_name(enum fp_severity s);
/* the reverse, of len bytes: 0, or -1 if s names none */
int fp_severity_parse(const char *s, size_t len, enum fp_severity *out);

/*
 * A verdict's reasons in the same order: a rank sorts ascending, most
 * severe first, after what is not a finding (the command failed, the
 * trace was lost) and before "... and N more failing findings".
 */
enum fp_rank {
	FP_RANK_VERDICT = 0,
	FP_RANK_CRITICAL, /* 5 - FP_SEV_CRITICAL */
	FP_RANK_HIGH,
	FP_RANK_MEDIUM,
	FP_RANK_LOW,
	FP_RANK_LAST,
};

/* A verdict's reason ("files.read: /etc/shadow ..."): its rank, by m. */
enum fp_rank fp_reason_rank_in(const struct fp_sevmap *m, const char *reason);
enum fp_rank fp_reason_rank(const char *reason);
/* Order reasons most severe first; those of one rank keep their order. */
void fp_reasons_by_rank(const struct fp_sevmap *m, char **v, size_t n);
/* "critical", "high", "medium", "low" (and "verdict", "more") */
const char *fp_rank_name(enum fp_rank r);

#endif
