// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonread.h"

struct rd {
	const char *p, *end, *start;
	int depth;
};

static void ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' ||
				 *r->p == '\t' || *r->p == '\r'))
		r->p++;
}

static int parse(struct rd *r, struct fp_jval *v);

static int hex4(struct rd *r, unsigned int *u)
{
	int i, c;

	*u = 0;
	if (r->end - r->p < 4)
		return -EINVAL;
	for (i = 0; i < 4; i++) {
		c = *r->p++;
		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= c - '0';
		else if ((c | 32) >= 'a' && (c | 32) <= 'f')
			*u |= (c | 32) - 'a' + 10;
		else
			return -EINVAL;
	}
	return 0;
}

static size_t utf8(char *o, unsigned int u)
{
	if (u < 0x80) {
		o[0] = u;
		return 1;
	}
	if (u < 0x800) {
		o[0] = 0xc0 | u >> 6;
		o[1] = 0x80 | (u & 63);
		return 2;
	}
	if (u < 0x10000) {
		o[0] = 0xe0 | u >> 12;
		o[1] = 0x80 | ((u >> 6) & 63);
		o[2] = 0x80 | (u & 63);
		return 3;
	}
	o[0] = 0xf0 | u >> 18;
	o[1] = 0x80 | ((u >> 12) & 63);
	o[2] = 0x80 | ((u >> 6) & 63);
	o[3] = 0x80 | (u & 63);
	return 4;
}

static int escape(struct rd *r, char *o, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;
	unsigned int u, lo;

	if (r->p == r->end)
		return -EINVAL;
	k = strchr(from, *r->p);
	if (*r->p && k) {
		r->p++;
		o[(*n)++] = to[k - from];
		return 0;
	}
	if (*r->p++ != 'u' || hex4(r, &u))
		return -EINVAL;
	if (u >= 0xdc00 && u < 0xe000)
		return -EINVAL;
	if (u >= 0xd800 && u < 0xdc00) {
		if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u')
			return -EINVAL;
		r->p += 2;
		if (hex4(r, &lo) || lo < 0xdc00 || lo >= 0xe000)
			return -EINVAL;
		u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
	}
	*n += utf8(o + *n, u);
	return 0;
}

/* r->p is past the opening quote. An escape is never shorter than what
 * it stands for, so a buffer of the rest's size is enough. */
static int string(struct rd *r, char **s, size_t *len)
{
	char *o = malloc(r->end - r->p + 1);
	size_t n = 0;

	if (!o)
		return -ENOMEM;
	while (r->p < r->end && *r->p != '"') {
		if ((unsigned char)*r->p < 0x20)
			goto bad;
		if (*r->p == '\\') {
			r->p++;
			if (escape(r, o, &n))
				goto bad;
			continue;
		}
		o[n++] = *r->p++;
	}
	if (r->p == r->end)
		goto bad;
	r->p++;
	o[n] = '\0';
	*s = o;
	*len = n;
	return 0;
bad:
	free(o);
	return -EINVAL;
}

static int push(struct fp_jval *v, size_t *cap, bool obj)
{
	size_t c = *cap ? *cap * 2 : 8;
	void *p;

	if (v->n < *cap)
		return 0;
	p = realloc(v->items, c * sizeof(*v->items));
	if (!p)
		return -ENOMEM;
	v->items = p;
	if (obj) {
		p = realloc(v->keys, c * sizeof(*v->keys));
		if (!p)
			return -ENOMEM;
		v->keys = p;
	}
	*cap = c;
	return 0;
}

static int container(struct rd *r, struct fp_jval *v, bool obj)
{
	size_t cap = 0, klen;
	int e;

	v->type = obj ? FP_J_OBJ : FP_J_ARR;
	if (++r->depth > FP_JSON_MAX_DEPTH)
		return -EINVAL;
	ws(r);
	if (r->p < r->end && *r->p == (obj ? '}' : ']')) {
		r->p++;
		r->depth--;
		return 0;
	}
	for (;;) {
		if ((e = push(v, &cap, obj)))
			return e;
		memset(&v->items[v->n], 0, sizeof(*v->items));
		if (obj) {
			ws(r);
			if (r->p == r->end || *r->p != '"')
				return -EINVAL;
			r->p++;
			if ((e = string(r, &v->keys[v->n], &klen)))
				return e;
			ws(r);
			if (r->p == r->end || *r->p++ != ':') {
				v->n++; /* the key is freed with v */
				return -EINVAL;
			}
		}
		e = parse(r, &v->items[v->n]);
		v->n++;
		if (e)
			return e;
		ws(r);
		if (r->p == r->end)
			return -EINVAL;
		if (*r->p == ',') {
			r->p++;
			continue;
		}
		if (*r->p++ != (obj ? '}' : ']'))
			return -EINVAL;
		r->depth--;
		return 0;
	}
}

static int word(struct rd *r, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
		return -EINVAL;
	r->p += n;
	return 0;
}

static int number(struct rd *r, struct fp_jval *v)
{
	char buf[64], *e;
	size_t n = 0;

	while (r->p + n < r->end && n < sizeof(buf) - 1 &&
	       strchr("+-0123456789.eE", r->p[n]) && r->p[n])
		n++;
	if (!n)
		return -EINVAL;
	memcpy(buf, r->p, n);
	buf[n] = '\0';
	v->num = strtod(buf, &e);
	if (*e)
		return -EINVAL;
	v->type = FP_J_NUM;
	r->p += n;
	return 0;
}

static int parse(struct rd *r, struct fp_jval *v)
{
	ws(r);
	if (r->p == r->end)
		return -EINVAL;
	switch (*r->p) {
	case '{':
	case '[':
		return container(r, v, *r->p++ == '{');
	case '"':
		r->p++;
		v->type = FP_J_STR;
		return string(r, &v->s, &v->len);
	case 't':
		v->type = FP_J_BOOL;
		v->b = true;
		return word(r, "true");
	case 'f':
		v->type = FP_J_BOOL;
		return word(r, "false");
	case 'n':
		v->type = FP_J_NULL;
		return word(r, "null");
	default:
		return number(r, v);
	}
}

int fp_json_parse(const char *text, size_t len, struct fp_jval *out, size_t *at)
{
	struct rd r = { .p = text, .end = text + len, .start = text };
	int e;

	memset(out, 0, sizeof(*out));
	e = parse(&r, out);
	if (!e) {
		ws(&r);
		if (r.p != r.end)
			e = -EINVAL;
	}
	if (at)
		*at = r.p - text;
	if (e)
		fp_json_free(out);
	return e;
}

void fp_json_free(struct fp_jval *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		fp_json_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

const struct fp_jval *fp_json_get(const struct fp_jval *v, const char *key)
{
	size_t i;

	if (!v || v->type != FP_J_OBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const char *fp_json_str(const struct fp_jval *v, const char *key)
{
	const struct fp_jval *m = fp_json_get(v, key);

	return m && m->type == FP_J_STR ? m->s : NULL;
}
