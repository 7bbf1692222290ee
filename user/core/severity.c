// SPDX-License-Identifier: GPL-2.0
/* Findings ranked by severity: the one table (severity.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "severity.h"

static const struct {
	const char *list;
	enum fp_severity sev;
} table[] = {
	/* critical: it cannot be taken back, or it is an attack's mark */
	{ "files.read", FP_SEV_CRITICAL }, /* a secret read */
	{ "processes.privileged", FP_SEV_CRITICAL },
	{ "tamper", FP_SEV_CRITICAL },
	{ "files.setuid", FP_SEV_CRITICAL },
	{ "processes.fileless_exec", FP_SEV_CRITICAL },
	/* high: it reached outside what the run was given */
	{ "network.connected", FP_SEV_HIGH }, /* egress */
	{ "files.outside_roots", FP_SEV_HIGH },
	{ "files.magic_link", FP_SEV_HIGH },
	{ "processes.leftover", FP_SEV_HIGH },
	{ "processes.signalled_outside", FP_SEV_HIGH },
	{ "processes.ptraced", FP_SEV_HIGH },
	/* medium: unexplained, a door opened, or a promise not kept */
	{ "files.unexplained", FP_SEV_MEDIUM },
	{ "files.unreadable", FP_SEV_MEDIUM },
	{ "files.cut", FP_SEV_MEDIUM },
	{ "files.transient", FP_SEV_MEDIUM },
	{ "network.bound", FP_SEV_MEDIUM },
	{ "network.listening", FP_SEV_MEDIUM },
	{ "network.accepted", FP_SEV_MEDIUM },
	{ "network.dns", FP_SEV_MEDIUM },
	{ "processes.mounts", FP_SEV_MEDIUM },
	{ "processes.namespaces", FP_SEV_MEDIUM },
	{ "expected", FP_SEV_MEDIUM },
	/* low: the files in the roots, and what is only reported */
	{ "files.added", FP_SEV_LOW },
	{ "files.removed", FP_SEV_LOW },
	{ "files.changed", FP_SEV_LOW },
	{ "processes.executed", FP_SEV_LOW },
	{ "processes.short_lived", FP_SEV_LOW },
	{ "processes.new_outside", FP_SEV_LOW },
	{ "processes.disappeared", FP_SEV_LOW },
};

#define NKINDS (sizeof(table) / sizeof(table[0]))
_Static_assert(NKINDS <= FP_SEV_KINDS, "struct fp_sevmap holds the table");

int fp_severity_kind(const char *list, size_t len)
{
	size_t i;

	/* "tamper.signal": one kind of tampering */
	if (len > 7 && !memcmp(list, "tamper.", 7))
		len = 6;
	for (i = 0; i < NKINDS; i++)
		if (strlen(table[i].list) == len &&
		    !memcmp(table[i].list, list, len))
			return i;
	return -1;
}

const char *fp_severity_kind_name(int k)
{
	return k >= 0 && (size_t)k < NKINDS ? table[k].list : NULL;
}

const char *fp_severity_kinds(void)
{
	static char buf[1024];
	size_t i, n = 0;

	if (buf[0])
		return buf;
	for (i = 0; i < NKINDS && n < sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? ", " : "",
			      table[i].list);
	return buf;
}

enum fp_severity fp_severity_in(const struct fp_sevmap *m, const char *list,
				size_t len)
{
	int k = fp_severity_kind(list, len);

	if (k < 0)
		return FP_SEV_HIGH;
	if (m && m->sev[k])
		return m->sev[k];
	return table[k].sev;
}

enum fp_severity fp_severity_of(const char *list)
{
	return fp_severity_in(NULL, list, strlen(list));
}

static const char *const names[] = {
	[FP_SEV_LOW] = "low",
	[FP_SEV_MEDIUM] = "medium",
	[FP_SEV_HIGH] = "high",
	[FP_SEV_CRITICAL] = "critical",
};

const char *fp_severity_name(enum fp_severity s)
{
	return s >= FP_SEV_LOW && s <= FP_SEV_CRITICAL ? names[s] : "high";
}

int fp_severity_parse(const char *s, size_t len, enum fp_severity *out)
{
	int i;

	for (i = FP_SEV_LOW; i <= FP_SEV_CRITICAL; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], s, len)) {
			*out = i;
			return 0;
		}
	return -1;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static enum fp_rank rank_of(enum fp_severity s)
{
	return (enum fp_rank)(FP_SEV_CRITICAL + 1 - s);
}

enum fp_rank fp_reason_rank_in(const struct fp_sevmap *m, const char *r)
{
	size_t n;

	if (starts(r, "... and "))
		return FP_RANK_LAST;
	if (starts(r, "expected change missing"))
		return rank_of(fp_severity_in(m, "expected", 8));
	n = strcspn(r, ": ");
	if (r[n] != ':' || !memchr(r, '.', n))
		return FP_RANK_VERDICT; /* "command exited 1", "trace ..." */
	return rank_of(fp_severity_in(m, r, n));
}

enum fp_rank fp_reason_rank(const char *r)
{
	return fp_reason_rank_in(NULL, r);
}

const char *fp_rank_name(enum fp_rank r)
{
	static const char *const rnames[] = { "verdict", "critical", "high",
					      "medium",	 "low",	     "more" };

	return r <= FP_RANK_LAST ? rnames[r] : "medium";
}

void fp_reasons_by_rank(const struct fp_sevmap *m, char **v, size_t n)
{
	size_t i, k;

	/* a verdict's reasons are few (judge.c keeps 50): an insertion
	 * sort, stable, so that each rank keeps the order it was said in */
	for (i = 1; i < n; i++) {
		char *r = v[i];
		enum fp_rank rank = fp_reason_rank_in(m, r);

		for (k = i; k > 0 && fp_reason_rank_in(m, v[k - 1]) > rank; k--)
			v[k] = v[k - 1];
		v[k] = r;
	}
}
