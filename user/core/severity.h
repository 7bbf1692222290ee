/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How severe a finding is, by the receipt list it is in ("files.read",
 * "network.connected", "tamper", ...): what a reviewer should read first.
 * Following issue 31's table: critical for a secret read, a privilege
 * rise, tamper, a set-ID file and a fileless exec; high for egress, a
 * write outside the roots, a leftover process, a signal or ptrace aimed
 * outside the run; medium for an unexplained change, a bind, a mount or
 * a namespace; low for the files in the roots and the informational
 * lists. A finding that carries its own severity (a receipt that has
 * one) keeps it; this table is for those that do not.
 */
#ifndef FP_SEVERITY_H
#define FP_SEVERITY_H

#include <stddef.h>

/* ordered: a larger value is more severe */
enum fp_severity {
	FP_SEV_LOW = 1,
	FP_SEV_MEDIUM = 2,
	FP_SEV_HIGH = 3,
	FP_SEV_CRITICAL = 4,
};

/*
 * The severity of a finding of list ("files.read", "processes.leftover",
 * "tamper"; a tamper kind "tamper.signal" too). A list this table does
 * not know is high: a kind added later is never ranked below the ones
 * known to matter.
 */
enum fp_severity fp_severity_of(const char *list);
/* "critical", "high", "medium", "low" */
const char *fp_severity_name(enum fp_severity s);
/* the reverse, of len bytes: 0, or -1 if s names none */
int fp_severity_parse(const char *s, size_t len, enum fp_severity *out);

#endif
