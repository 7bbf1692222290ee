// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "attest_doc.h"
#include "json.h"

void fp_abuf_put(struct fp_abuf *b, const void *s, size_t n)
{
	char *np;
	size_t cap;

	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->err = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void put_str(struct fp_abuf *b, const char *s)
{
	fp_abuf_put(b, s, strlen(s));
}

void fp_abuf_free(struct fp_abuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void fp_abuf_base64(struct fp_abuf *b, const unsigned char *d, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789+/";
	char q[4];
	size_t i;

	for (i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)d[i + 1] << 8;
		if (i + 2 < n)
			v |= d[i + 2];
		q[0] = t[v >> 18];
		q[1] = t[(v >> 12) & 63];
		q[2] = i + 1 < n ? t[(v >> 6) & 63] : '=';
		q[3] = i + 2 < n ? t[v & 63] : '=';
		fp_abuf_put(b, q, 4);
	}
}

static struct fp_ad *ad_new(enum fp_ad_type t)
{
	struct fp_ad *v = calloc(1, sizeof(*v));

	if (v)
		v->type = t;
	return v;
}

struct fp_ad *fp_ad_obj(void)
{
	return ad_new(FP_AD_OBJ);
}

struct fp_ad *fp_ad_arr(void)
{
	return ad_new(FP_AD_ARR);
}

struct fp_ad *fp_ad_str(const char *s, size_t len)
{
	struct fp_ad *v = ad_new(FP_AD_STR);

	if (!v)
		return NULL;
	v->s = malloc(len + 1);
	if (!v->s) {
		free(v);
		return NULL;
	}
	memcpy(v->s, s, len);
	v->s[len] = '\0';
	v->len = len;
	return v;
}

struct fp_ad *fp_ad_cstr(const char *s)
{
	return fp_ad_str(s, strlen(s));
}

struct fp_ad *fp_ad_int(int64_t i)
{
	struct fp_ad *v = ad_new(FP_AD_INT);

	if (v)
		v->i = i;
	return v;
}

struct fp_ad *fp_ad_bool(bool b)
{
	struct fp_ad *v = ad_new(FP_AD_BOOL);

	if (v)
		v->b = b;
	return v;
}

struct fp_ad *fp_ad_null(void)
{
	return ad_new(FP_AD_NULL);
}

static int grow(struct fp_ad *c)
{
	size_t cap = c->cap ? c->cap * 2 : 8;
	struct fp_ad **k = realloc(c->kids, cap * sizeof(*k));
	char **keys;
	size_t *kl;

	if (!k)
		return -ENOMEM;
	c->kids = k;
	if (c->type == FP_AD_OBJ) {
		keys = realloc(c->keys, cap * sizeof(*keys));
		if (!keys)
			return -ENOMEM;
		c->keys = keys;
		kl = realloc(c->klens, cap * sizeof(*kl));
		if (!kl)
			return -ENOMEM;
		c->klens = kl;
	}
	c->cap = cap;
	return 0;
}

int fp_ad_put(struct fp_ad *obj, const char *key, size_t klen, struct fp_ad *v)
{
	char *k;

	if (!v || (obj->n == obj->cap && grow(obj)))
		goto nomem;
	k = malloc(klen + 1);
	if (!k)
		goto nomem;
	memcpy(k, key, klen);
	k[klen] = '\0';
	obj->keys[obj->n] = k;
	obj->klens[obj->n] = klen;
	obj->kids[obj->n++] = v;
	obj->sorted = false;
	return 0;
nomem:
	fp_ad_free(v);
	return -ENOMEM;
}

int fp_ad_cput(struct fp_ad *obj, const char *key, struct fp_ad *v)
{
	return fp_ad_put(obj, key, strlen(key), v);
}

int fp_ad_push(struct fp_ad *arr, struct fp_ad *v)
{
	if (!v || (arr->n == arr->cap && grow(arr))) {
		fp_ad_free(v);
		return -ENOMEM;
	}
	arr->kids[arr->n++] = v;
	return 0;
}

void fp_ad_free(struct fp_ad *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		fp_ad_free(v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->klens);
	free(v->s);
	free(v);
}

/* ---- writing ---- */

struct kv {
	char *key;
	size_t klen;
	struct fp_ad *v;
};

static int kv_cmp(const void *x, const void *y)
{
	const struct kv *a = x, *b = y;
	size_t n = a->klen < b->klen ? a->klen : b->klen;
	int c = memcmp(a->key, b->key, n);

	if (c)
		return c;
	return (a->klen > b->klen) - (a->klen < b->klen);
}

/* an object's members in key order, once; on no memory they stay as they
 * were and the buffer says so */
static void sort_obj(struct fp_ad *o, struct fp_abuf *b)
{
	struct kv *t;
	size_t i;

	if (o->sorted || o->n < 2)
		return;
	t = malloc(o->n * sizeof(*t));
	if (!t) {
		b->err = true;
		return;
	}
	for (i = 0; i < o->n; i++)
		t[i] = (struct kv){ o->keys[i], o->klens[i], o->kids[i] };
	qsort(t, o->n, sizeof(*t), kv_cmp);
	for (i = 0; i < o->n; i++) {
		o->keys[i] = t[i].key;
		o->klens[i] = t[i].klen;
		o->kids[i] = t[i].v;
	}
	free(t);
	o->sorted = true;
}

static void canon_str(struct fp_abuf *b, const char *s, size_t len)
{
	size_t i, from = 0;

	fp_abuf_put(b, "\"", 1);
	for (i = 0; i < len; i++) {
		if (s[i] != '"' && s[i] != '\\')
			continue;
		fp_abuf_put(b, s + from, i - from);
		fp_abuf_put(b, "\\", 1);
		from = i;
	}
	fp_abuf_put(b, s + from, len - from);
	fp_abuf_put(b, "\"", 1);
}

static void put_int(struct fp_abuf *b, int64_t i)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRId64, i);
	put_str(b, num);
}

void fp_ad_canonical(struct fp_ad *v, struct fp_abuf *b)
{
	size_t i;

	switch (v->type) {
	case FP_AD_NULL:
		put_str(b, "null");
		break;
	case FP_AD_BOOL:
		put_str(b, v->b ? "true" : "false");
		break;
	case FP_AD_INT:
		put_int(b, v->i);
		break;
	case FP_AD_STR:
		canon_str(b, v->s, v->len);
		break;
	case FP_AD_ARR:
		fp_abuf_put(b, "[", 1);
		for (i = 0; i < v->n; i++) {
			if (i)
				fp_abuf_put(b, ",", 1);
			fp_ad_canonical(v->kids[i], b);
		}
		fp_abuf_put(b, "]", 1);
		break;
	case FP_AD_OBJ:
		sort_obj(v, b);
		fp_abuf_put(b, "{", 1);
		for (i = 0; i < v->n; i++) {
			if (i)
				fp_abuf_put(b, ",", 1);
			canon_str(b, v->keys[i], v->klens[i]);
			fp_abuf_put(b, ":", 1);
			fp_ad_canonical(v->kids[i], b);
		}
		fp_abuf_put(b, "}", 1);
		break;
	}
}

/* a JSON string a parser reads back to exactly these bytes */
static void json_str(struct fp_abuf *b, const char *s, size_t len)
{
	char esc[8];
	size_t i, from = 0;

	fp_abuf_put(b, "\"", 1);
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		fp_abuf_put(b, s + from, i - from);
		if (c == '"' || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (c == '\t')
			snprintf(esc, sizeof(esc), "\\t");
		else
			snprintf(esc, sizeof(esc), "\\u%04x", c);
		put_str(b, esc);
		from = i + 1;
	}
	fp_abuf_put(b, s + from, len - from);
	fp_abuf_put(b, "\"", 1);
}

static void newline(struct fp_abuf *b, int indent, int depth)
{
	int i;

	if (indent < 0)
		return;
	fp_abuf_put(b, "\n", 1);
	for (i = 0; i < indent * depth; i++)
		fp_abuf_put(b, " ", 1);
}

static void json_at(struct fp_ad *v, struct fp_abuf *b, int indent, int depth)
{
	size_t i;

	if (v->type != FP_AD_ARR && v->type != FP_AD_OBJ) {
		if (v->type == FP_AD_STR)
			json_str(b, v->s, v->len);
		else
			fp_ad_canonical(v, b);
		return;
	}
	if (v->type == FP_AD_OBJ)
		sort_obj(v, b);
	fp_abuf_put(b, v->type == FP_AD_OBJ ? "{" : "[", 1);
	for (i = 0; i < v->n; i++) {
		if (i)
			fp_abuf_put(b, ",", 1);
		newline(b, indent, depth + 1);
		if (v->type == FP_AD_OBJ) {
			json_str(b, v->keys[i], v->klens[i]);
			put_str(b, indent < 0 ? ":" : ": ");
		}
		json_at(v->kids[i], b, indent, depth + 1);
	}
	if (v->n)
		newline(b, indent, depth);
	fp_abuf_put(b, v->type == FP_AD_OBJ ? "}" : "]", 1);
}

void fp_ad_json(struct fp_ad *v, struct fp_abuf *b, int indent)
{
	json_at(v, b, indent, 0);
}

bool fp_ad_text_ok(const char *s, size_t len)
{
	return !memchr(s, '\0', len) && json_utf8_valid(s, len);
}
