// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the DNS parser: the input is what the kernel copied
 * from a DNS socket (at most 512 bytes, possibly cut), parsed as UDP and
 * as TCP. Every string the parser gives must be NUL-terminated within its
 * buffer and printable, and its counts within their bounds. Build and run
 * it with scripts/fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dns.h"

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_dns: %s\n", what);
		abort();
	}
}

static void check_str(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap), i;

	check(n < cap, "a string fills its buffer without a NUL");
	for (i = 0; i < n; i++)
		check(s[i] > 0x20 && s[i] < 0x7f, "a name is not printable");
}

static void one(const uint8_t *data, size_t size, bool tcp)
{
	struct fp_dns_msg m;
	unsigned int i;

	if (fp_dns_parse(data, size, tcp, &m))
		return;
	check(m.nanswers <= FP_DNS_ANSWERS_MAX, "too many answers");
	check_str(m.qname, sizeof(m.qname));
	for (i = 0; i < m.nanswers; i++) {
		check_str(m.an[i].owner, sizeof(m.an[i].owner));
		check_str(m.an[i].data, sizeof(m.an[i].data));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exactly as many bytes as the kernel may hand over */
	if (size > 512)
		size = 512;
	one(data, size, false);
	one(data, size, true);
	return 0;
}
