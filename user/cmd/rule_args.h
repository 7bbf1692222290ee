/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rule options run and replay share: --allow, --forbid, --expect,
 * --ignore, --policy and --report-noise, gathered while parsing and turned
 * into a policy once the roots are known.
 */
#ifndef FP_RULE_ARGS_H
#define FP_RULE_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "longopts.h"
#include "policy.h"

struct fp_rule_args {
	struct {
		enum fp_rule_kind kind;
		const char *pattern;
	} rules[256];
	size_t nrules;
	const char *policies[16];
	size_t npolicies;
	bool report_noise;
	bool given; /* any of these options at all */
};

/*
 * Take option opt if it is one of these: 1 taken, 0 not one of them,
 * FP_EXIT_USAGE (negated) after one line on stderr.
 */
int fp_rule_args_take(struct fp_rule_args *a, const char *sub, int opt,
		      const char *arg);
/* Rules of the --policy files first, then the others; 0 or FP_EXIT_USAGE. */
/* Policy files are read as creds (NULL: as footprint itself). */
int fp_rule_args_policy(const struct fp_rule_args *a, struct fp_policy *pol,
			const struct fp_creds *creds, char *const *roots,
			size_t nroots);

#endif
