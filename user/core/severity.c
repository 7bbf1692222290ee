// SPDX-License-Identifier: GPL-2.0
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
	/* created and removed again, anywhere: a dropped payload */
	{ "files.transient", FP_SEV_HIGH },
	{ "files.magic_link", FP_SEV_HIGH },
	{ "files.cut", FP_SEV_HIGH },
	{ "processes.leftover", FP_SEV_HIGH },
	{ "processes.signalled_outside", FP_SEV_HIGH },
	{ "processes.ptraced", FP_SEV_HIGH },
	/* medium: unexplained, or a door opened */
	{ "files.unexplained", FP_SEV_MEDIUM },
	{ "files.unreadable", FP_SEV_MEDIUM },
	{ "network.bound", FP_SEV_MEDIUM },
	{ "network.listening", FP_SEV_MEDIUM },
	{ "network.dns", FP_SEV_MEDIUM },
	{ "processes.mounts", FP_SEV_MEDIUM },
	{ "processes.namespaces", FP_SEV_MEDIUM },
	/* low: the files in the roots, and what is only reported */
	{ "files.added", FP_SEV_LOW },
	{ "files.removed", FP_SEV_LOW },
	{ "files.changed", FP_SEV_LOW },
	{ "processes.executed", FP_SEV_LOW },
	{ "processes.short_lived", FP_SEV_LOW },
	{ "processes.new_outside", FP_SEV_LOW },
	{ "processes.disappeared", FP_SEV_LOW },
	{ "network.accepted", FP_SEV_LOW },
};

enum fp_severity fp_severity_of(const char *list)
{
	size_t i;

	if (!strncmp(list, "tamper.", 7))
		return FP_SEV_CRITICAL;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].list, list))
			return table[i].sev;
	return FP_SEV_HIGH;
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
