// SPDX-License-Identifier: GPL-2.0
/*
 * What a receipt says that an attestation states. The receipt is the one
 * source, whether it comes from a file, a run that just ended or a log
 * judged again, so that every way to attest a run states the same.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest_int.h"
#include "cli.h"
#include "json.h"
#include "sha256.h"

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

#define NOMEM(err, errlen) \
	fail(err, errlen, FP_EXIT_NOTRACE, "footprint: out of memory")

static bool is_sha256(const char *s)
{
	size_t i;

	if (!s || strlen(s) != 64)
		return false;
	for (i = 0; i < 64; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

/* the directory the roots share: the root itself when there is one */
static int base_of(const struct fp_jv *roots, const char **base, size_t *blen)
{
	size_t i, n;
	const char *r0;

	if (!roots || roots->type != FP_JV_ARR || !roots->n)
		return -1;
	for (i = 0; i < roots->n; i++)
		if (roots->items[i].type != FP_JV_STR ||
		    roots->items[i].s[0] != '/')
			return -1;
	r0 = roots->items[0].s;
	n = strlen(r0);
	for (i = 1; i < roots->n; i++) {
		const char *r = roots->items[i].s;
		size_t k = 0;

		while (k < n && r[k] == r0[k])
			k++;
		/* back to a whole component */
		if (!(k == n && (r[k] == '/' || !r[k])))
			while (k > 0 && r0[k] != '/')
				k--;
		n = k;
	}
	*base = r0;
	*blen = n;
	return 0;
}

/* path relative to base, or NULL when it is base itself or outside it */
static const char *rel_of(const char *base, size_t blen, const char *path,
			  size_t *len)
{
	size_t plen = strlen(path);

	if (blen == 1 && base[0] == '/')
		blen = 0;
	if (plen <= blen + 1 || memcmp(path, base, blen) || path[blen] != '/')
		return NULL;
	*len = plen - blen - 1;
	return path + blen + 1;
}

static int art_add(struct fp_attest_arts *a, const char *name, size_t len,
		   const char *sha256)
{
	struct fp_attest_art *v;

	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		v = realloc(a->v, a->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->v = v;
	}
	v = &a->v[a->n++];
	v->name = name;
	v->len = len;
	memcpy(v->sha256, sha256, 65);
	return 0;
}

static int art_cmp(const void *x, const void *y)
{
	const struct fp_attest_art *a = x, *b = y;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->name, b->name, n);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

struct walk {
	struct fp_attest_facts *f;
	const char *base;
	size_t blen;
	char *err;
	size_t errlen;
};

/* a path of the receipt that an artifact's name is made of */
static int named(struct walk *w, const struct fp_jv *x, const char *what,
		 const char **name, size_t *len)
{
	const char *path = fp_jv_str(x, "path");

	if (!path)
		return fail(
			w->err, w->errlen, FP_EXIT_USAGE,
			"footprint: the receipt has a %s without a path; give the file footprint wrote",
			what);
	if (fp_jv_get(x, "path_b64") || !fp_ad_text_ok(path, strlen(path)))
		return fail(
			w->err, w->errlen, FP_EXIT_VERDICT,
			"footprint: the %s %s is not named in UTF-8, which in-toto's paths must be; rename it and run again",
			what, path);
	*name = rel_of(w->base, w->blen, path, len);
	return 0;
}

/* files.read: what the run read of the files it found (before_sha256) */
static int observed(struct walk *w, const struct fp_jv *files)
{
	const struct fp_jv *reads = fp_jv_get(files, "read"), *x, *h;
	const char *name;
	size_t i, len;
	int rc;

	if (fp_jv_int(files, "read_omitted", 0) > 0)
		return fail(
			w->err, w->errlen, FP_EXIT_VERDICT,
			"footprint: the run read more files than footprint lists (files.read_omitted); the materials would miss some: attest its log with --materials-all");
	for (i = 0; reads && reads->type == FP_JV_ARR && i < reads->n; i++) {
		x = &reads->items[i];
		h = fp_jv_get(x, "before_sha256");
		if (!h)
			continue;
		rc = named(w, x, "material", &name, &len);
		if (rc)
			return rc;
		if (h->type == FP_JV_NULL)
			return fail(
				w->err, w->errlen, FP_EXIT_VERDICT,
				"footprint: the run read %s, which could not be hashed before it (unreadable or changing); the link would leave it out",
				fp_jv_str(x, "path"));
		if (h->type != FP_JV_STR || !is_sha256(h->s))
			return fail(
				w->err, w->errlen, FP_EXIT_USAGE,
				"footprint: the receipt's before_sha256 of %s is not a sha256; give the file footprint wrote",
				fp_jv_str(x, "path"));
		if (name && art_add(&w->f->materials, name, len, h->s))
			return NOMEM(w->err, w->errlen);
	}
	return 0;
}

/* --materials-all: every regular file of the before snapshot */
static int whole_before(struct walk *w, const struct fp_fs_snapshot *s)
{
	struct fp_attest_facts *f = w->f;
	char **owned, hex[65];
	const char *name;
	size_t i, len;

	for (i = 0; i < s->n; i++) {
		const struct fp_fentry *e = &s->e[i];
		char *path;

		if (e->type != 'f')
			continue;
		path = strndup(e->path.data, e->path.len);
		if (!path)
			return NOMEM(w->err, w->errlen);
		if (f->nowned % 256 == 0) {
			owned = realloc(f->owned,
					(f->nowned + 256) * sizeof(char *));
			if (!owned) {
				free(path);
				return NOMEM(w->err, w->errlen);
			}
			f->owned = owned;
		}
		f->owned[f->nowned++] = path;
		if (e->path.len != strlen(path) ||
		    !fp_ad_text_ok(path, e->path.len))
			return fail(
				w->err, w->errlen, FP_EXIT_VERDICT,
				"footprint: the material %s is not named in UTF-8, which in-toto's paths must be; rename it and run again",
				path);
		if (!e->hashed || e->unstable)
			return fail(
				w->err, w->errlen, FP_EXIT_VERDICT,
				"footprint: %s could not be hashed before the run (unreadable or changing); the link would leave it out",
				path);
		name = rel_of(w->base, w->blen, path, &len);
		fp_hex(hex, e->sha256, 32);
		if (name && art_add(&f->materials, name, len, hex))
			return NOMEM(w->err, w->errlen);
	}
	return 0;
}

/* files.added and files.changed: each regular file as it is after */
static int products(struct walk *w, const struct fp_jv *files)
{
	static const char *const lists[] = { "added", "changed" };
	const struct fp_jv *l, *x, *after;
	const char *name, *type, *sha;
	size_t i, j, len;
	int rc;

	for (j = 0; j < 2; j++) {
		l = fp_jv_get(files, lists[j]);
		for (i = 0; l && l->type == FP_JV_ARR && i < l->n; i++) {
			x = &l->items[i];
			after = fp_jv_get(x, "after");
			type = fp_jv_str(after, "type");
			if (!type || strcmp(type, "f"))
				continue;
			rc = named(w, x, "product", &name, &len);
			if (rc)
				return rc;
			sha = fp_jv_str(after, "sha256");
			if (!sha || fp_jv_bool(after, "unstable") == 1)
				return fail(
					w->err, w->errlen, FP_EXIT_VERDICT,
					"footprint: the run made %s, which could not be hashed after it (unreadable or changing); the link would leave it out",
					fp_jv_str(x, "path"));
			if (!is_sha256(sha))
				return fail(
					w->err, w->errlen, FP_EXIT_USAGE,
					"footprint: the receipt's sha256 of %s is not one; give the file footprint wrote",
					fp_jv_str(x, "path"));
			if (name && art_add(&w->f->products, name, len, sha))
				return NOMEM(w->err, w->errlen);
		}
	}
	return 0;
}

/* every string of an array is in-toto text */
static bool texts(const struct fp_jv *a)
{
	size_t i;

	if (!a || a->type != FP_JV_ARR)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->items[i].type != FP_JV_STR ||
		    !fp_ad_text_ok(a->items[i].s, a->items[i].len))
			return false;
	return true;
}

/* a string of provenance's, or NULL; -1 if it is not in-toto text */
static int prov(const struct fp_jv *p, const char *key, const char **out)
{
	*out = fp_jv_str(p, key);
	if (*out && (fp_jv_get(p, key)->type != FP_JV_STR ||
		     !fp_ad_text_ok(*out, strlen(*out))))
		return -1;
	return 0;
}

/* the command, the verdict and where it ran */
static int outline(struct fp_attest_facts *f, char *err, size_t errlen)
{
	const struct fp_jv *r = &f->receipt, *cmd = fp_jv_get(r, "command"),
			   *p = fp_jv_get(r, "provenance"),
			   *files = fp_jv_get(r, "files"), *x;

	f->argv = fp_jv_get(cmd, "argv");
	f->reasons = fp_jv_get(r, "reasons");
	if (fp_jv_bool(r, "ok") < 0 || !texts(f->argv) || !f->argv->n ||
	    !texts(f->reasons) || !files ||
	    fp_jv_bool(fp_jv_get(r, "trace"), "complete") < 0)
		return fail(
			err, errlen, FP_EXIT_USAGE,
			"footprint: that is not a receipt footprint wrote (docs/receipt.schema.json); give one, or the run's log");
	if (fp_jv_get(cmd, "argv_b64"))
		return fail(
			err, errlen, FP_EXIT_VERDICT,
			"footprint: the command line is not UTF-8, which in-toto's command must be");
	if (fp_jv_get(files, "read") &&
	    fp_jv_bool(files, "read_before_sha256") != 1)
		return fail(
			err, errlen, FP_EXIT_USAGE,
			"footprint: the receipt is from a footprint older than attest and does not say which files the run read before changing them; attest the run's log (--record) instead");
	f->ok = fp_jv_bool(r, "ok") == 1;
	f->complete = fp_jv_bool(fp_jv_get(r, "trace"), "complete") == 1;
	x = fp_jv_get(cmd, "exit_code");
	if (x && x->type == FP_JV_NUM) {
		f->have_rv = true;
		f->rv = fp_jv_as_int(x, 0);
	} else if ((x = fp_jv_get(cmd, "signal")) && x->type == FP_JV_NUM) {
		f->have_rv = true;
		f->rv = -fp_jv_as_int(x, 0); /* as Python's returncode says */
	}
	/* a receipt before provenance says none of it: left out */
	if (prov(p, "footprint", &f->version) || prov(p, "host", &f->host) ||
	    prov(p, "kernel", &f->kernel) || prov(p, "started", &f->started) ||
	    prov(p, "ended", &f->ended))
		return fail(
			err, errlen, FP_EXIT_USAGE,
			"footprint: the receipt's provenance is not text; give the file footprint wrote");
	return 0;
}

static void receipt_sha256(struct fp_attest_facts *f, const char *receipt,
			   size_t len)
{
	struct fp_sha256 h;
	unsigned char d[FP_SHA256_LEN];

	fp_sha256_init(&h);
	fp_sha256_update(&h, receipt, len);
	fp_sha256_final(&h, d);
	fp_hex(f->receipt_sha256, d, sizeof(d));
}

int fp_attest_facts_read(struct fp_attest_facts *f, const char *receipt,
			 size_t len, const struct fp_attest_opts *o, char *err,
			 size_t errlen)
{
	struct walk w = { f, NULL, 0, err, errlen };
	const struct fp_jv *files;
	char jerr[128];
	int rc;

	memset(f, 0, sizeof(*f));
	receipt_sha256(f, receipt, len);
	if (fp_json_parse_max(receipt, len, &f->receipt, FP_ATTEST_VALUES_MAX,
			      jerr, sizeof(jerr)))
		return fail(
			err, errlen, FP_EXIT_USAGE,
			"footprint: the receipt is not valid JSON (%s); give the file footprint wrote, or the run's log",
			jerr);
	rc = outline(f, err, errlen);
	if (rc)
		return rc;
	if (fp_jv_get(&f->receipt, "roots_b64"))
		return fail(
			err, errlen, FP_EXIT_VERDICT,
			"footprint: a watched root is not named in UTF-8; in-toto's paths must be");
	if (base_of(fp_jv_get(&f->receipt, "roots"), &w.base, &w.blen))
		return fail(
			err, errlen, FP_EXIT_USAGE,
			"footprint: the receipt names no watched root; give the file footprint wrote");
	files = fp_jv_get(&f->receipt, "files");
	f->materials_all = o->materials_all;
	if (o->materials_all && !o->before)
		return fail(
			err, errlen, FP_EXIT_USAGE,
			"footprint: --materials-all needs the run's before snapshot, which a receipt does not hold; attest the run's log (--record) instead");
	rc = o->materials_all ? whole_before(&w, o->before) :
				observed(&w, files);
	if (!rc)
		rc = products(&w, files);
	if (rc)
		return rc;
	if (f->materials.n)
		qsort(f->materials.v, f->materials.n,
		      sizeof(struct fp_attest_art), art_cmp);
	if (f->products.n)
		qsort(f->products.v, f->products.n,
		      sizeof(struct fp_attest_art), art_cmp);
	return 0;
}

void fp_attest_facts_free(struct fp_attest_facts *f)
{
	size_t i;

	fp_jv_free(&f->receipt);
	free(f->materials.v);
	free(f->products.v);
	for (i = 0; i < f->nowned; i++)
		free(f->owned[i]);
	free(f->owned);
	memset(f, 0, sizeof(*f));
}
