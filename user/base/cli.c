// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int fp_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'G':
	case 'g':
		shift += 10;
		/* fallthrough */
	case 'M':
	case 'm':
		shift += 10;
		/* fallthrough */
	case 'K':
	case 'k':
		shift += 10;
		end++;
		break;
	}
	if (*end || (shift && v > (~0ULL >> shift)))
		return -EINVAL;
	v <<= shift;
	*out = v;
	return 0;
}

int fp_usage_error(const char *sub, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "footprint: %s%s", sub ? sub : "", sub ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'footprint %s%s--help')\n", sub ? sub : "",
		sub ? " " : "");
	return FP_EXIT_USAGE;
}

int64_t fp_parse_duration_ms(const char *s)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > 1000ULL * 1000 * 1000)
		return -1;
	if (!strcmp(end, "ms"))
		return v;
	if (!*end || !strcmp(end, "s"))
		return v * 1000;
	if (!strcmp(end, "m"))
		return v * 60 * 1000;
	if (!strcmp(end, "h"))
		return v * 3600 * 1000;
	return -1;
}
