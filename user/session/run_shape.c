// SPDX-License-Identifier: GPL-2.0
/*
 * run --unit: the unit's shape before and after the command, compared as
 * `footprint shape diff` compares them. The shapes and the policy's text
 * are in the log, so replay judges them again to the same receipt.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

int fp_run_shape_diff(const struct fp_run *run, struct fp_shape_policy *pol,
		      struct fp_shape_diff *d, const char **why)
{
	struct fp_jv b = { 0 }, a = { 0 };
	const char *text = run->shape_policy ? run->shape_policy : "";
	char err[512];
	int ret = 0;

	*why = NULL;
	memset(d, 0, sizeof(*d));
	memset(pol, 0, sizeof(*pol));
	if (!run->unit)
		return 0;
	if (!run->shape[0].len || !run->shape[1].len) {
		*why = run->shape[0].len ?
			       "the unit's shape after the command could not be taken" :
			       "the unit's shape before the command could not be taken";
		return 0;
	}
	if (fp_shape_policy_parse(text, strlen(text), pol, err, sizeof(err)) ||
	    fp_json_parse(run->shape[0].data, run->shape[0].len, &b, err,
			  sizeof(err)) ||
	    fp_json_parse(run->shape[1].data, run->shape[1].len, &a, err,
			  sizeof(err)) ||
	    fp_shape_diff(&b, &a, pol, d, err, sizeof(err))) {
		ret = strcmp(err, "out of memory") ? 0 : -ENOMEM;
		*why = "the unit's shapes or shape policy are unreadable";
	}
	fp_jv_free(&b);
	fp_jv_free(&a);
	return ret;
}

int fp_run_shape_verdict(const struct fp_run *run, struct fp_verdict *v)
{
	struct fp_shape_policy pol;
	struct fp_shape_diff d;
	const char *why;
	char *reason = NULL;
	int ret;

	ret = fp_run_shape_diff(run, &pol, &d, &why);
	if (!ret && why)
		ret = asprintf(&reason, "unit %s: %s", run->unit, why) < 0;
	else if (!ret && !d.ok)
		ret = asprintf(
			      &reason,
			      "unit %s: its shape drifted in ways the shape policy does not allow%s",
			      run->unit,
			      d.complete ? "" : " (a shape is incomplete)") < 0;
	if (!ret && reason)
		ret = fp_verdict_fail_external(v, reason);
	fp_shape_diff_free(&d);
	fp_shape_policy_free(&pol);
	return ret ? -ENOMEM : 0;
}
