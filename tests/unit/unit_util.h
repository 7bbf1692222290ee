/* SPDX-License-Identifier: GPL-2.0 */
/* What the Criterion unit tests share. */
#ifndef FP_UNIT_UTIL_H
#define FP_UNIT_UTIL_H

#include <criterion/criterion.h>
#include <libgen.h>
#include <stdio.h>

#include "event.h"

/* An owned, NUL-terminated copy of len bytes (fp_bytes_dup), or a test
 * failure. */
static inline struct fp_bytes bytes(const char *s, size_t len)
{
	struct fp_bytes b = { 0 };

	cr_assert_eq(fp_bytes_dup(&b, s, len), 0, "out of memory");
	return b;
}

/* tests/data/name (a static buffer): the golden logs and receipts */
static inline char *data_path(const char *name)
{
	static char buf[4096];
	char src[4096];

	/* this header's own path: tests/unit/ */
	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(buf, sizeof(buf), "%s/../data/%s", dirname(src), name);
	return buf;
}

#endif
