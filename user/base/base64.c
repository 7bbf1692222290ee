// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>

#include "base64.h"

static int value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int fp_base64_decode(const char *in, size_t len, char *out, size_t *n)
{
	size_t i, k = 0, pad = 0;
	uint32_t acc = 0;

	if (len % 4)
		return -EINVAL;
	while (pad < 2 && len > pad && in[len - 1 - pad] == '=')
		pad++;
	for (i = 0; i < len - pad; i++) {
		int v = value((unsigned char)in[i]);

		if (v < 0)
			return -EINVAL;
		acc = acc << 6 | (uint32_t)v;
		if (i % 4 == 3) {
			out[k++] = acc >> 16;
			out[k++] = acc >> 8;
			out[k++] = acc;
		}
	}
	if (pad == 2) {
		out[k++] = acc >> 4;
	} else if (pad == 1) {
		out[k++] = acc >> 10;
		out[k++] = acc >> 2;
	}
	*n = k;
	return 0;
}
