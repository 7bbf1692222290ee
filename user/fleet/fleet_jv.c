// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "fleet_jv.h"

/* one string value: its bytes appended at out + *at (room is there) */
static int put_value(const struct fp_jv *v, bool b64, char *out, size_t *at)
{
	size_t n;

	if (v->type != FP_JV_STR)
		return -EINVAL;
	if (!b64) {
		memcpy(out + *at, v->s, v->len);
		*at += v->len;
		return 0;
	}
	if (fp_base64_decode(v->s, v->len, out + *at, &n))
		return -EINVAL;
	*at += n;
	return 0;
}

int fp_fleet_jv_bytes(const struct fp_jv *o, const char *key, char **out,
		      size_t *len)
{
	char b64key[64];
	const struct fp_jv *v, *b;
	size_t n = 0;

	*out = NULL;
	*len = 0;
	v = fp_jv_get(o, key);
	snprintf(b64key, sizeof(b64key), "%s_b64", key);
	b = fp_jv_get(o, b64key);
	if (b && b->type == FP_JV_STR)
		v = b;
	else
		b = NULL;
	if (!v || v->type != FP_JV_STR)
		return -ENOENT;
	*out = malloc(v->len + 1);
	if (!*out)
		return -ENOMEM;
	if (put_value(v, b, *out, &n)) {
		free(*out);
		*out = NULL;
		return -EINVAL;
	}
	(*out)[n] = '\0';
	*len = n;
	return 0;
}

int fp_fleet_jv_items(const struct fp_jv *a, bool b64, char **out, size_t *len)
{
	size_t i, need = 1, n = 0;

	*out = NULL;
	*len = 0;
	if (!a || a->type != FP_JV_ARR)
		return -ENOENT;
	for (i = 0; i < a->n; i++)
		need += a->items[i].len + 1;
	*out = malloc(need);
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < a->n; i++) {
		if (put_value(&a->items[i], b64, *out, &n)) {
			free(*out);
			*out = NULL;
			return -EINVAL;
		}
		(*out)[n++] = '\0';
	}
	*len = n;
	return 0;
}

int fp_fleet_jv_strv(const struct fp_jv *o, const char *key, char **out,
		     size_t *len)
{
	char b64key[64];
	const struct fp_jv *b;

	snprintf(b64key, sizeof(b64key), "%s_b64", key);
	b = fp_jv_get(o, b64key);
	if (b && b->type == FP_JV_ARR)
		return fp_fleet_jv_items(b, true, out, len);
	return fp_fleet_jv_items(fp_jv_get(o, key), false, out, len);
}
