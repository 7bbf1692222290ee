// SPDX-License-Identifier: GPL-2.0
/* cli.c: fp_parse_size */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "cli.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

static void check_ok(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL;
	int rc = fp_parse_size(s, &v);

	cr_assert_eq(rc, 0, "fp_parse_size(\"%s\") = %d", s, rc);
	cr_assert_eq(v, want, "fp_parse_size(\"%s\") gave %llu, want %llu", s,
		     (unsigned long long)v, (unsigned long long)want);
}

/* rejected, and *out left alone */
static void check_bad(const char *s, int want_rc)
{
	uint64_t v = SENTINEL;
	int rc = fp_parse_size(s, &v);

	cr_assert_eq(rc, want_rc, "fp_parse_size(\"%s\") = %d, want %d", s, rc,
		     want_rc);
	cr_assert_eq(v, SENTINEL, "fp_parse_size(\"%s\") wrote %llu", s,
		     (unsigned long long)v);
}

Test(cli, plain_numbers)
{
	check_ok("4096", 4096);
	check_ok("0", 0);
	check_ok("1", 1);
	check_ok("18446744073709551615", UINT64_MAX);
}

Test(cli, suffixes)
{
	check_ok("64K", 65536);
	check_ok("64k", 65536);
	check_ok("16M", 16777216);
	check_ok("16m", 16777216);
	check_ok("1G", 1073741824);
	check_ok("1g", 1073741824);
	check_ok("3G", 3ULL << 30);
	check_ok("0K", 0);
	/* the largest values that still fit */
	check_ok("17179869183G", 17179869183ULL << 30);
	check_ok("18014398509481983K", 18014398509481983ULL << 10);
}

Test(cli, rejects_malformed)
{
	cr_assert_eq(fp_parse_size(NULL, &(uint64_t){ 0 }), -EINVAL);
	check_bad("", -EINVAL);
	check_bad("K", -EINVAL);
	check_bad("12X", -EINVAL);
	check_bad("-1", -EINVAL);
	check_bad("+1", -EINVAL);
	check_bad(" 1", -EINVAL);
	check_bad("1 ", -EINVAL);
	check_bad("12KB", -EINVAL);
	check_bad("12KK", -EINVAL);
	check_bad("1.5M", -EINVAL);
	check_bad("0x10", -EINVAL);
	check_bad("1T", -EINVAL);
}

Test(cli, rejects_overflow_without_suffix)
{
	check_bad("18446744073709551616", -EINVAL);
	check_bad("99999999999999999999999", -EINVAL);
}

/*
 * A value that fits in 64 bits but not once scaled must be refused, not
 * wrapped: "17179869184G" is 2^64 bytes and would silently become 0.
 */
Test(cli, rejects_overflow_with_suffix)
{
	const char *const bad[] = { "17179869184G", "18014398509481984K",
				    "17592186044416M", "18446744073709551615K",
				    "9999999999999999999G" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = SENTINEL;
		int rc = fp_parse_size(bad[i], &v);

		cr_expect_lt(rc, 0, "fp_parse_size(\"%s\") = %d, value %llu",
			     bad[i], rc, (unsigned long long)v);
	}
}
