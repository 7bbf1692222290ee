// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rule_args.h"

int fp_rule_args_take(struct fp_rule_args *a, const char *sub, int opt,
		      const char *arg)
{
	switch (opt) {
	case FP_OPT_ALLOW:
	case FP_OPT_FORBID:
	case FP_OPT_EXPECT:
	case FP_OPT_IGNORE:
		if (a->nrules == 256)
			return -fp_usage_error(sub,
					       "too many rules; use --policy");
		a->rules[a->nrules].kind = opt == FP_OPT_ALLOW	? FP_ALLOW :
					   opt == FP_OPT_FORBID ? FP_FORBID :
					   opt == FP_OPT_EXPECT ? FP_EXPECT :
								  FP_IGNORE;
		a->rules[a->nrules++].pattern = arg;
		break;
	case FP_OPT_POLICY:
		if (a->npolicies == 16)
			return -fp_usage_error(sub, "too many --policy");
		a->policies[a->npolicies++] = arg;
		break;
	case FP_OPT_REPORT_NOISE:
		a->report_noise = true;
		break;
	default:
		return 0;
	}
	a->given = true;
	return 1;
}

int fp_rule_args_policy(const struct fp_rule_args *a, struct fp_policy *pol,
			const struct fp_creds *creds, char *const *roots,
			size_t nroots)
{
	char err[600];
	size_t i;

	pol->report_noise = a->report_noise;
	for (i = 0; i < a->npolicies; i++) {
		if (fp_policy_load(pol, creds, a->policies[i], roots, nroots,
				   err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return FP_EXIT_USAGE;
		}
	}
	for (i = 0; i < a->nrules; i++) {
		if (fp_policy_add(pol, a->rules[i].kind, FP_T_PATH,
				  a->rules[i].pattern,
				  strlen(a->rules[i].pattern), roots, nroots,
				  err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return FP_EXIT_USAGE;
		}
	}
	return 0;
}
