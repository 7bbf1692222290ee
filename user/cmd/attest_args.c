// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "attest_args.h"
#include "cli.h"

int fp_attest_args_take(struct fp_attest_args *a, const char *sub, int opt,
			const char *arg)
{
	switch (opt) {
	case FP_OPT_ATTEST:
		if (!*arg)
			return -fp_usage_error(
				sub, "--attest wants a private key file");
		a->key = arg;
		break;
	case FP_OPT_ATTEST_NAME:
		if (!fp_attest_name_ok(arg))
			return -fp_usage_error(
				sub,
				"--attest-name wants the step's name in the layout: UTF-8 without '/', not starting with '.', at most 200 bytes; got '%s'",
				arg);
		a->name = arg;
		break;
	case FP_OPT_ATTEST_OUT:
		if (!*arg)
			return -fp_usage_error(
				sub, "--attest-out wants a file name, or -");
		a->out = arg;
		break;
	case FP_OPT_ATTEST_FORMAT:
		if (fp_attest_format_parse(arg, &a->format))
			return -fp_usage_error(
				sub,
				"--attest-format wants link or statement, got '%s'",
				arg);
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
