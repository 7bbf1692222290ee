/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two runtime shapes compared (seed 002): its four booleans, the exact
 * deltas behind them, and which of them a shape policy allows. Pure: it
 * reads two parsed shape documents and a parsed policy, nothing else.
 */
#ifndef FP_SHAPE_DIFF_H
#define FP_SHAPE_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "jsonin.h"

#define FP_SHAPE_RULES_MAX 4096
#define FP_SHAPE_DRIFT_MAX 4096

enum fp_shape_field {
	FP_SF_CAP_EFF,
	FP_SF_NO_NEW_PRIVS,
	FP_SF_SOCKETS,
	FP_SF_MOUNTS,
	FP_SF_SECCOMP,
	FP_SF_NAMESPACES,
	FP_SF_UNIT,
	FP_SF_EXE,
	FP_SF_PROCESS,
	FP_SF_N,
};

extern const char *const fp_shape_field_names[FP_SF_N];

struct fp_shape_rule {
	char *kind; /* cap, listen, mount, no_new_privs, seccomp, ... */
	char *arg; /* "" when the kind takes none */
	bool rw; /* mount ... rw */
};

struct fp_shape_policy {
	struct fp_shape_rule *rules;
	size_t n;
};

struct fp_shape_drift {
	enum fp_shape_field field;
	char *change; /* "gained", "added rw", "made writable", "changed" */
	char *subject; /* CAP_NET_ADMIN, tcp/127.0.0.1:8080, a path... */
	char *before, *after; /* for changed values, else NULL */
	int rule; /* index of the allowing rule, or -1 */
};

struct fp_shape_diff {
	bool changed[FP_SF_N];
	struct fp_shape_drift *drift;
	size_t n;
	bool truncated; /* more than FP_SHAPE_DRIFT_MAX: never ok */
	bool complete; /* both shapes were complete */
	bool ok; /* complete, and every drift allowed */
};

/* 0, or -1 with "line N: ..." in err */
int fp_shape_policy_parse(const char *text, size_t len,
			  struct fp_shape_policy *p, char *err, size_t errlen);
void fp_shape_policy_free(struct fp_shape_policy *p);

/* 0, or -1 with err filled (not a shape, out of memory) */
int fp_shape_diff(const struct fp_jv *before, const struct fp_jv *after,
		  const struct fp_shape_policy *pol, struct fp_shape_diff *d,
		  char *err, size_t errlen);
void fp_shape_diff_free(struct fp_shape_diff *d);

#endif
