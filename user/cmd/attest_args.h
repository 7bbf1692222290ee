/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of an attestation, as run and sidecar stop take them
 * (--attest KEY --attest-name STEP ...) and footprint attest (--key,
 * --name ...): parsed only, nothing opened (attest_job.h does the rest).
 */
#ifndef FP_ATTEST_ARGS_H
#define FP_ATTEST_ARGS_H

#include <getopt.h>
#include <stdbool.h>

#include "attest.h"

/* getopt values of the options, for the subcommands' option tables */
enum {
	FP_OPT_ATTEST = 1024,
	FP_OPT_ATTEST_NAME,
	FP_OPT_ATTEST_OUT,
	FP_OPT_ATTEST_FORMAT,
	FP_OPT_ATTEST_ONLY_OK,
	FP_OPT_ATTEST_MATERIALS_ALL,
};

/* run's and sidecar stop's: --attest KEY --attest-name STEP ... */
/* clang-format off */
#define FP_ATTEST_LONGOPTS \
	{ "attest", required_argument, NULL, FP_OPT_ATTEST }, \
	{ "attest-name", required_argument, NULL, FP_OPT_ATTEST_NAME }, \
	{ "attest-out", required_argument, NULL, FP_OPT_ATTEST_OUT }, \
	{ "attest-format", required_argument, NULL, FP_OPT_ATTEST_FORMAT }, \
	{ "attest-only-ok", no_argument, NULL, FP_OPT_ATTEST_ONLY_OK }
/* run's only: a sidecar stop has no before snapshot in hand */
#define FP_ATTEST_MATERIALS_LONGOPT \
	{ "attest-materials-all", no_argument, NULL, \
	  FP_OPT_ATTEST_MATERIALS_ALL }
/* clang-format on */

struct fp_attest_args {
	const char *key; /* the private key file */
	const char *name; /* the step */
	const char *out; /* NULL: the name in-toto looks for; "-": stdout */
	enum fp_attest_format format;
	bool only_ok, materials_all, quiet;
	bool given; /* any of the options */
};

/* Take option opt if it is one of these: 1 taken, 0 not one of them,
 * -FP_EXIT_USAGE after one line on stderr. */
int fp_attest_args_take(struct fp_attest_args *a, const char *sub, int opt,
			const char *arg);
/* Once every option is read: the ones given make sense together. 0 or
 * FP_EXIT_USAGE after one line. */
int fp_attest_args_check(const struct fp_attest_args *a, const char *sub);

#endif
