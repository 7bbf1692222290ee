// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockjv.h"

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* standard base64 with its padding, as json_base64 writes it */
static int b64_decode(const char *in, size_t len, char *out, size_t *n)
{
	size_t i, k = 0, pad = 0;
	uint32_t acc = 0;

	if (len % 4)
		return -EINVAL;
	while (pad < 2 && len > pad && in[len - 1 - pad] == '=')
		pad++;
	for (i = 0; i < len - pad; i++) {
		int v = b64_value((unsigned char)in[i]);

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

int fp_lockjv_value_bytes(const struct fp_jv *v, bool b64, char **out,
			  size_t *len)
{
	int e = 0;

	*out = NULL;
	*len = 0;
	if (!v || v->type != FP_JV_STR)
		return -EINVAL;
	*out = malloc(b64 ? v->len / 4 * 3 + 1 : v->len + 1);
	if (!*out)
		return -ENOMEM;
	if (b64) {
		e = b64_decode(v->s, v->len, *out, len);
	} else {
		memcpy(*out, v->s, v->len);
		*len = v->len;
	}
	if (!e && memchr(*out, '\0', *len))
		e = -EINVAL;
	if (e) {
		free(*out);
		*out = NULL;
		*len = 0;
		return e;
	}
	(*out)[*len] = '\0';
	return 0;
}

int fp_lockjv_bytes(const struct fp_jv *o, const char *key, char **out,
		    size_t *len)
{
	const struct fp_jv *v = fp_jv_get(o, key), *b;
	char b64key[64];

	snprintf(b64key, sizeof(b64key), "%s_b64", key);
	b = fp_jv_get(o, b64key);
	if (!v && !b) {
		*out = NULL;
		*len = 0;
		return -ENOENT;
	}
	return fp_lockjv_value_bytes(b ? b : v, b, out, len);
}

int fp_lockjv_mode(const struct fp_jv *m, unsigned int *mode)
{
	unsigned long v = 0;
	size_t i;

	if (m && m->type == FP_JV_NUM) {
		int64_t n = fp_jv_as_int(m, -1);

		if (n < 0 || n > 0177777)
			return -EINVAL;
		*mode = n & 07777;
		return 0;
	}
	if (!m || m->type != FP_JV_STR || !m->len || m->len > 7)
		return -EINVAL;
	for (i = 0; i < m->len; i++) {
		if (m->s[i] < '0' || m->s[i] > '7')
			return -EINVAL;
		v = v * 8 + (m->s[i] - '0');
	}
	if (v > 0177777)
		return -EINVAL;
	*mode = v & 07777;
	return 0;
}

void fp_lock_mode_str(char *out, unsigned int mode)
{
	snprintf(out, 8, "%04o", mode & 07777);
}
