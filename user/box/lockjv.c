// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "lockjv.h"

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
		e = fp_base64_decode(v->s, v->len, *out, len);
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
