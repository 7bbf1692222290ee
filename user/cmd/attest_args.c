// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "attest_args.h"
#include "cli.h"

/* an option as the user spelled it: footprint attest's own names, or
 * run's and sidecar's --attest-* */
static const char *named(const char *sub, int opt)
{
	bool own = !strcmp(sub, "attest");

	switch (opt) {
	case FP_OPT_ATTEST:
		return own ? "--key" : "--attest";
	case FP_OPT_ATTEST_NAME:
		return own ? "--name" : "--attest-name";
	case FP_OPT_ATTEST_OUT:
		return own ? "--output" : "--attest-out";
	default:
		return own ? "--format" : "--attest-format";
	}
}

int fp_attest_args_take(struct fp_attest_args *a, const char *sub, int opt,
			const char *arg)
{
	switch (opt) {
	case FP_OPT_ATTEST:
		if (!*arg)
			return -fp_usage_error(sub,
					       "%s wants a private key file",
					       named(sub, opt));
		a->key = arg;
		break;
	case FP_OPT_ATTEST_NAME:
		if (!fp_attest_name_ok(arg))
			return -fp_usage_error(
				sub,
				"%s wants the step's name in the layout: UTF-8 without '/', not starting with '.', at most 200 bytes; got '%s'",
				named(sub, opt), arg);
		a->name = arg;
		break;
	case FP_OPT_ATTEST_OUT:
		if (!*arg)
			return -fp_usage_error(sub,
					       "%s wants a file name, or -",
					       named(sub, opt));
		a->out = arg;
		break;
	case FP_OPT_ATTEST_FORMAT:
		if (fp_attest_format_parse(arg, &a->format))
			return -fp_usage_error(
				sub, "%s wants link or statement, got '%s'",
				named(sub, opt), arg);
		break;
	case FP_OPT_ATTEST_ONLY_OK:
		a->only_ok = true;
		break;
	case FP_OPT_ATTEST_MATERIALS_ALL:
		a->materials_all = true;
		break;
	default:
		return 0;
	}
	a->given = true;
	return 1;
}

int fp_attest_args_check(const struct fp_attest_args *a, const char *sub)
{
	if (a->given && !a->key)
		return fp_usage_error(
			sub,
			"--attest-name, --attest-out, --attest-format, --attest-only-ok and --attest-materials-all go with --attest KEY");
	if (a->key && !a->name)
		return fp_usage_error(
			sub,
			"--attest wants the step's name too: --attest-name STEP");
	return 0;
}
