// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the shape reader, the shape policy and the diff:
 * the input is BEFORE, AFTER and a POLICY separated by NUL bytes. Any two
 * documents may be compared; a shape compared with itself must show no
 * drift at all, and the diff's JSON and table must be writable. Build and
 * run it with scripts/fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonin.h"
#include "shape_diff.h"
#include "shape_report.h"

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_shape: %s\n", what);
		abort();
	}
}

/* the next NUL-separated part of the input */
static const char *part(const char **p, const char *end, size_t *len)
{
	const char *s = *p, *nul = memchr(s, '\0', end - s);

	*len = (nul ? nul : end) - s;
	*p = nul ? nul + 1 : end;
	return s;
}

static void report(const struct fp_shape_diff *d,
		   const struct fp_shape_policy *pol)
{
	FILE *null = fopen("/dev/null", "w");

	fp_shape_diff_json(null, d, pol);
	fp_shape_diff_summary(null, d, pol);
	fclose(null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *s[3];
	struct fp_jv b = { 0 }, a = { 0 };
	struct fp_shape_policy pol = { 0 };
	struct fp_shape_diff d;
	char err[512];
	size_t n[3];
	int i, rb, ra;

	for (i = 0; i < 3; i++)
		s[i] = part(&p, end, &n[i]);
	if (fp_shape_policy_parse(s[2], n[2], &pol, err, sizeof(err)))
		fp_shape_policy_parse("", 0, &pol, err, sizeof(err));
	rb = fp_json_parse(s[0], n[0], &b, err, sizeof(err));
	ra = fp_json_parse(s[1], n[1], &a, err, sizeof(err));
	if (!rb && !fp_shape_diff(&b, &b, &pol, &d, err, sizeof(err))) {
		check(d.n == 0 && !d.truncated, "a shape drifts from itself");
		report(&d, &pol);
		fp_shape_diff_free(&d);
	}
	if (!rb && !ra && !fp_shape_diff(&b, &a, &pol, &d, err, sizeof(err))) {
		check(d.n <= FP_SHAPE_DRIFT_MAX, "more drift than the bound");
		report(&d, &pol);
		fp_shape_diff_free(&d);
	}
	fp_jv_free(&b);
	fp_jv_free(&a);
	fp_shape_policy_free(&pol);
	return 0;
}
