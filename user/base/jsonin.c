// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonin.h"

struct jp {
	const char *p, *end, *start;
	char *err;
	size_t errlen;
	int depth;
	size_t values, max_values;
};

static int fail(struct jp *j, const char *what)
{
	if (j->err && !j->err[0])
		snprintf(j->err, j->errlen, "%s at byte %zu", what,
			 (size_t)(j->p - j->start));
	return -1;
}

static void skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

struct buf {
	char *d;
	size_t len, cap;
};

static int put(struct buf *b, const char *s, size_t n)
{
	char *nd;

	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		nd = realloc(b->d, b->cap);
		if (!nd)
			return -1;
		b->d = nd;
	}
	memcpy(b->d + b->len, s, n);
	b->len += n;
	b->d[b->len] = '\0';
	return 0;
}

static int hex4(struct jp *j, unsigned *out)
{
	unsigned v = 0;
	int i, c;

	if (j->end - j->p < 4)
		return fail(j, "short \\u escape");
	for (i = 0; i < 4; i++) {
		c = *j->p++;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return fail(j, "bad \\u escape");
	}
	*out = v;
	return 0;
}

static int put_utf8(struct buf *b, unsigned cp)
{
	char o[4];
	size_t n;

	if (cp < 0x80) {
		o[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		o[0] = 0xc0 | cp >> 6;
		o[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		o[0] = 0xe0 | cp >> 12;
		o[1] = 0x80 | (cp >> 6 & 0x3f);
		o[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		o[0] = 0xf0 | cp >> 18;
		o[1] = 0x80 | (cp >> 12 & 0x3f);
		o[2] = 0x80 | (cp >> 6 & 0x3f);
		o[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	return put(b, o, n);
}

static int escape(struct jp *j, struct buf *b)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;
	unsigned cp, lo;

	if (j->p >= j->end)
		return fail(j, "unterminated string");
	k = strchr(from, *j->p);
	if (*j->p && k) {
		j->p++;
		return put(b, &to[k - from], 1);
	}
	if (*j->p++ != 'u')
		return fail(j, "bad escape");
	if (hex4(j, &cp))
		return -1;
	/* a lone surrogate has no UTF-8 form; refuse rather than guess */
	if (cp >= 0xdc00 && cp < 0xe000)
		return fail(j, "lone low surrogate");
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
			return fail(j, "lone high surrogate");
		j->p += 2;
		if (hex4(j, &lo))
			return -1;
		if (lo < 0xdc00 || lo >= 0xe000)
			return fail(j, "bad surrogate pair");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	return put_utf8(b, cp);
}

static int parse_str(struct jp *j, char **out, size_t *outlen)
{
	struct buf b = { 0 };
	const char *run;

	j->p++; /* the opening quote */
	if (put(&b, "", 0))
		return fail(j, "out of memory");
	for (;;) {
		run = j->p;
		while (j->p < j->end && *j->p != '"' && *j->p != '\\' &&
		       (unsigned char)*j->p >= 0x20)
			j->p++;
		if (put(&b, run, j->p - run))
			goto bad;
		if (j->p >= j->end) {
			fail(j, "unterminated string");
			goto bad;
		}
		if (*j->p == '"')
			break;
		if (*j->p != '\\') {
			fail(j, "control byte in string");
			goto bad;
		}
		j->p++;
		if (escape(j, &b))
			goto bad;
	}
	j->p++;
	*out = b.d;
	*outlen = b.len;
	return 0;
bad:
	free(b.d);
	return fail(j, "out of memory");
}

static int parse_value(struct jp *j, struct fp_jv *v);

static int add_item(struct jp *j, struct fp_jv *v, char *key)
{
	struct fp_jv *ni;
	size_t cap;
	char **nk;
	bool grow;

	/* key is ours from here: stored, or freed on failure */
	if (++j->values > j->max_values) {
		free(key);
		return fail(j, "too many values");
	}
	/* capacity doubles at 4, 8, 16...: no quadratic copying */
	grow = v->n < 4 ? !v->n : !(v->n & (v->n - 1));
	cap = v->n < 4 ? 4 : v->n * 2;
	ni = grow ? realloc(v->items, cap * sizeof(*ni)) : v->items;
	if (ni)
		v->items = ni;
	nk = v->type != FP_JV_OBJ ? NULL :
	     grow		  ? realloc(v->keys, cap * sizeof(*nk)) :
				    v->keys;
	if (nk)
		v->keys = nk;
	if (!ni || (v->type == FP_JV_OBJ && !nk)) {
		free(key);
		return fail(j, "out of memory");
	}
	memset(&ni[v->n], 0, sizeof(*ni));
	if (nk)
		nk[v->n] = key;
	v->n++;
	return parse_value(j, &ni[v->n - 1]);
}

static int parse_container(struct jp *j, struct fp_jv *v)
{
	char close = v->type == FP_JV_OBJ ? '}' : ']';
	char *key;
	size_t klen;

	if (++j->depth > FP_JSONIN_DEPTH)
		return fail(j, "nested too deeply");
	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		key = NULL;
		skip_ws(j);
		if (v->type == FP_JV_OBJ) {
			if (j->p >= j->end || *j->p != '"')
				return fail(j, "expected a key");
			if (parse_str(j, &key, &klen))
				return -1;
			skip_ws(j);
			if (j->p >= j->end || *j->p++ != ':') {
				free(key);
				return fail(j, "expected ':'");
			}
		}
		if (add_item(j, v, key))
			return -1;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close)
			break;
		return fail(j, "expected ',' or a close");
	}
	j->p++;
	j->depth--;
	return 0;
}

static int parse_num(struct jp *j, struct fp_jv *v)
{
	const char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return fail(j, "bad value");
	while (j->p < j->end && strchr("0123456789.eE+-", *j->p))
		j->p++;
	v->type = FP_JV_NUM;
	v->len = j->p - s;
	v->s = strndup(s, v->len);
	return v->s ? 0 : fail(j, "out of memory");
}

static int literal(struct jp *j, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
		return fail(j, "bad value");
	j->p += n;
	return 0;
}

static int parse_value(struct jp *j, struct fp_jv *v)
{
	skip_ws(j);
	if (j->p >= j->end)
		return fail(j, "unexpected end");
	switch (*j->p) {
	case '{':
		v->type = FP_JV_OBJ;
		return parse_container(j, v);
	case '[':
		v->type = FP_JV_ARR;
		return parse_container(j, v);
	case '"':
		v->type = FP_JV_STR;
		return parse_str(j, &v->s, &v->len);
	case 't':
		v->type = FP_JV_BOOL;
		v->b = true;
		return literal(j, "true");
	case 'f':
		v->type = FP_JV_BOOL;
		return literal(j, "false");
	case 'n':
		return literal(j, "null");
	default:
		return parse_num(j, v);
	}
}

int fp_json_parse(const char *in, size_t len, struct fp_jv *v, char *err,
		  size_t errlen)
{
	return fp_json_parse_max(in, len, v, FP_JSONIN_VALUES, err, errlen);
}

int fp_json_parse_max(const char *in, size_t len, struct fp_jv *v,
		      size_t max_values, char *err, size_t errlen)
{
	struct jp j = { in, in + len, in, err, errlen, 0, 0, max_values };

	if (err && errlen)
		err[0] = '\0';
	memset(v, 0, sizeof(*v));
	if (parse_value(&j, v))
		goto bad;
	skip_ws(&j);
	if (j.p != j.end) {
		fail(&j, "trailing bytes");
		goto bad;
	}
	return 0;
bad:
	fp_jv_free(v);
	return -1;
}

void fp_jv_free(struct fp_jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		fp_jv_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

const struct fp_jv *fp_jv_get(const struct fp_jv *v, const char *key)
{
	size_t i;

	if (!v || v->type != FP_JV_OBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const char *fp_jv_str(const struct fp_jv *v, const char *key)
{
	const struct fp_jv *x = fp_jv_get(v, key);

	return x && x->type == FP_JV_STR ? x->s : NULL;
}

int64_t fp_jv_int(const struct fp_jv *v, const char *key, int64_t fallback)
{
	return fp_jv_as_int(fp_jv_get(v, key), fallback);
}

int64_t fp_jv_as_int(const struct fp_jv *x, int64_t fallback)
{
	char *end;
	long long n;

	if (!x || x->type != FP_JV_NUM)
		return fallback;
	errno = 0;
	n = strtoll(x->s, &end, 10);
	return errno || *end ? fallback : n;
}

int fp_jv_bool(const struct fp_jv *v, const char *key)
{
	const struct fp_jv *x = fp_jv_get(v, key);

	return x && x->type == FP_JV_BOOL ? x->b : -1;
}
