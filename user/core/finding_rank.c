// SPDX-License-Identifier: GPL-2.0
/* Findings ranked by severity (see finding_rank.h). */
#include <stdbool.h>
#include <string.h>

#include "finding_rank.h"

static const struct {
	const char *list;
	enum fp_rank rank;
} ranks[] = {
	/* a secret read, a privilege rise, tampering, a set-ID file, code
	 * no file holds */
	{ "files.read", FP_RANK_CRITICAL },
	{ "processes.privileged", FP_RANK_CRITICAL },
	{ "tamper", FP_RANK_CRITICAL },
	{ "files.setuid", FP_RANK_CRITICAL },
	{ "processes.fileless_exec", FP_RANK_CRITICAL },
	/* egress, a write outside the roots, what stays or reaches out */
	{ "network.connected", FP_RANK_HIGH },
	{ "network.dns", FP_RANK_HIGH },
	{ "network.accepted", FP_RANK_HIGH },
	{ "files.outside_roots", FP_RANK_HIGH },
	{ "processes.leftover", FP_RANK_HIGH },
	{ "processes.signalled_outside", FP_RANK_HIGH },
	{ "processes.ptraced", FP_RANK_HIGH },
	{ "processes.mounts", FP_RANK_HIGH },
	/* what cannot be explained, a port opened */
	{ "files.unexplained", FP_RANK_MEDIUM },
	{ "files.unreadable", FP_RANK_MEDIUM },
	{ "files.cut", FP_RANK_MEDIUM },
	{ "files.magic_link", FP_RANK_MEDIUM },
	{ "network.bound", FP_RANK_MEDIUM },
	{ "network.listening", FP_RANK_MEDIUM },
	{ "processes.namespaces", FP_RANK_MEDIUM },
	{ "processes.executed", FP_RANK_MEDIUM },
	{ "processes.short_lived", FP_RANK_MEDIUM },
	{ "processes.new_outside", FP_RANK_MEDIUM },
	{ "processes.disappeared", FP_RANK_MEDIUM },
	{ "expected", FP_RANK_MEDIUM },
	/* files in the roots */
	{ "files.added", FP_RANK_LOW },
	{ "files.removed", FP_RANK_LOW },
	{ "files.changed", FP_RANK_LOW },
	{ "files.transient", FP_RANK_LOW },
};

enum fp_rank fp_list_rank(const char *list, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++)
		if (strlen(ranks[i].list) == len &&
		    !memcmp(ranks[i].list, list, len))
			return ranks[i].rank;
	return FP_RANK_MEDIUM;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

enum fp_rank fp_reason_rank(const char *r)
{
	size_t n;

	if (starts(r, "... and "))
		return FP_RANK_LAST;
	if (starts(r, "expected change missing"))
		return fp_list_rank("expected", 8);
	/* "tamper.signal: ...": one kind of tampering */
	if (starts(r, "tamper."))
		return fp_list_rank("tamper", 6);
	n = strcspn(r, ": ");
	if (r[n] != ':' || !memchr(r, '.', n))
		return FP_RANK_VERDICT; /* "command exited 1", "trace ..." */
	return fp_list_rank(r, n);
}

const char *fp_rank_name(enum fp_rank r)
{
	static const char *const names[] = { "verdict", "critical", "high",
					     "medium",	"low",	    "more" };

	return r <= FP_RANK_LAST ? names[r] : "medium";
}

void fp_reasons_by_rank(char **v, size_t n)
{
	size_t i, k;

	/* a verdict's reasons are few (judge.c keeps 50): an insertion
	 * sort, stable, so that each rank keeps the order it was said in */
	for (i = 1; i < n; i++) {
		char *r = v[i];
		enum fp_rank rank = fp_reason_rank(r);

		for (k = i; k > 0 && fp_reason_rank(v[k - 1]) > rank; k--)
			v[k] = v[k - 1];
		v[k] = r;
	}
}
