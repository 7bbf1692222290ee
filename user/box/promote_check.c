// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lockjv.h"
#include "promote_check.h"
#include "say_bytes.h"

#define DRIFT_SHOWN 10

/* the skipped paths of a root, relative to it, sorted */
struct fp_pskipped {
	char **v;
	size_t n;
};

int fp_promote_receipt_ok(const struct fp_jv *lk)
{
	const struct fp_jv *ok = fp_jv_get(lk, "receipt_ok");
	const struct fp_jv *sk = fp_jv_get(lk, "skipped");

	/* a failing receipt is only lockable with --skip-disallowed, which
	 * records what it set aside */
	if ((ok && ok->type == FP_JV_BOOL && ok->b) ||
	    (sk && sk->type == FP_JV_ARR && sk->n))
		return 0;
	fprintf(stderr,
		"footprint: promote: refused: the lock was made from a receipt that is not ok; fix the run and lock again\n");
	return FP_EXIT_VERDICT;
}

/* 0, -ENOMEM, or -EINVAL (a mode or target footprint cannot read); a
 * target is cut where readlink would cut it */
static int state_of(const struct fp_jv *o, struct fp_pstate *st)
{
	const char *t = fp_jv_str(o, "type"), *h = fp_jv_str(o, "sha256");
	size_t n;
	int e;

	memset(st, 0, sizeof(*st));
	if (!o || o->type != FP_JV_OBJ)
		return 0;
	st->type = t ? t[0] : '?';
	if (fp_lockjv_mode(fp_jv_get(o, "mode"), &st->mode))
		return -EINVAL;
	snprintf(st->sha, sizeof(st->sha), "%s", h ? h : "");
	e = fp_lockjv_bytes(o, "target", &st->target, &n);
	if (!e && n >= PATH_MAX)
		st->target[PATH_MAX - 1] = '\0';
	return e == -ENOENT ? 0 : e;
}

static int op_of(const char *op)
{
	return !op		      ? -1 :
	       !strcmp(op, "added")   ? FP_PROMOTE_ADDED :
	       !strcmp(op, "changed") ? FP_PROMOTE_CHANGED :
	       !strcmp(op, "removed") ? FP_PROMOTE_REMOVED :
					-1;
}

static int cmp_rel(const void *a, const void *b)
{
	return strcmp(((const struct fp_pchange *)a)->rel,
		      ((const struct fp_pchange *)b)->rel);
}

/* change c of the lock into r's set, if it is under r's root */
static int load_one(struct fp_proot *r, const struct fp_jv *c)
{
	size_t rlen = strlen(r->root), skip = rlen + (rlen > 1), n;
	struct fp_pstate now = { 0 }, before = { 0 };
	int op = op_of(fp_jv_str(c, "op")), e;
	char *p;

	if (fp_lockjv_bytes(c, "path", &p, &n) || op < 0) {
		free(p);
		fprintf(stderr,
			"footprint: promote: a change in the lock has no path or op footprint can read; give the file footprint lock wrote\n");
		return FP_EXIT_USAGE;
	}
	if (strncmp(p, r->root, rlen) || (rlen > 1 && p[rlen] != '/') ||
	    !p[skip]) {
		free(p);
		return 0;
	}
	e = op == FP_PROMOTE_REMOVED ? 0 : state_of(c, &now);
	if (!e)
		e = state_of(fp_jv_get(c, "before"), &before);
	if (!e)
		e = fp_pset_add(&r->locked, p + skip, op, &now, &before);
	fp_pstate_free(&now);
	fp_pstate_free(&before);
	if (e == -EINVAL)
		fprintf(stderr,
			"footprint: promote: the lock's change of %s has a mode or target footprint cannot read; give the file footprint lock wrote\n",
			fp_said(p));
	else if (e)
		fp_pset_say(e, "the locked changes", r->root);
	free(p);
	return e ? FP_EXIT_USAGE : 0;
}

int fp_promote_load(struct fp_proot *r, const struct fp_jv *lk)
{
	const struct fp_jv *ch = fp_jv_get(lk, "changes");
	size_t i;
	int rc = 0;

	for (i = 0; !rc && ch && ch->type == FP_JV_ARR && i < ch->n; i++)
		rc = load_one(r, &ch->items[i]);
	return rc;
}

static const struct fp_pchange *find(const struct fp_pset *s, const char *rel)
{
	struct fp_pchange key = { .rel = (char *)rel };

	return s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_rel) : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The lock's skipped paths under r's root, relative to it and sorted:
 * "skipped", or "skipped_b64" when one of them is not UTF-8. 0, or 2
 * after one line.
 */
static int load_skipped(const struct fp_proot *r, const struct fp_jv *lk,
			struct fp_pskipped *s)
{
	const struct fp_jv *b = fp_jv_get(lk, "skipped_b64");
	const struct fp_jv *sk = b ? b : fp_jv_get(lk, "skipped");
	size_t rlen = strlen(r->root), i, n;
	char *p;
	int e = 0;

	memset(s, 0, sizeof(*s));
	if (sk && sk->type == FP_JV_ARR && sk->n)
		s->v = calloc(sk->n, sizeof(*s->v));
	for (i = 0; !e && s->v && i < sk->n; i++) {
		e = fp_lockjv_value_bytes(&sk->items[i], b, &p, &n);
		if (!e && !strncmp(p, r->root, rlen) &&
		    (rlen == 1 || p[rlen] == '/') && p[rlen + (rlen > 1)])
			s->v[s->n++] = strdup(p + rlen + (rlen > 1));
		free(p);
		if (!e && s->n && !s->v[s->n - 1])
			e = -ENOMEM;
	}
	if (!e && sk && sk->type == FP_JV_ARR && sk->n && !s->v)
		e = -ENOMEM;
	if (e) {
		fprintf(stderr,
			"footprint: promote: the lock's skipped paths cannot be read (%s); give the file footprint lock wrote\n",
			strerror(-e));
		return FP_EXIT_USAGE;
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_str);
	return 0;
}

static void free_skipped(struct fp_pskipped *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static bool skipped(const struct fp_pskipped *s, const char *rel)
{
	return s->n &&
	       bsearch(&rel, s->v, s->n, sizeof(*s->v), cmp_str) != NULL;
}

/*
 * paths in a but not in b, at most a few shown. Only an extra scratch
 * change may be skipped: every locked one must be there to be applied.
 */
static size_t missing_from(const struct fp_pset *a, const struct fp_pset *b,
			   const struct fp_proot *r,
			   const struct fp_pskipped *sk, const char *what)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++) {
		const struct fp_pchange *o = find(b, a->v[i].rel);

		if ((o && o->op == a->v[i].op) ||
		    (a == &r->scratch && skipped(sk, a->v[i].rel)))
			continue;
		if (n++ < DRIFT_SHOWN)
			fprintf(stderr, "footprint: promote:   %s %s/%s\n",
				what, fp_said(r->root), fp_said(a->v[i].rel));
	}
	return n;
}

static bool same(const struct fp_pstate *a, const struct fp_pstate *b)
{
	return a->type == b->type && a->mode == b->mode &&
	       !strcmp(a->sha, b->sha) && !strcmp(fp_ptarget(a), fp_ptarget(b));
}

/* what a state holds, with its mode: "nothing", "SHA256 (mode 0644)" */
static void put_state(const struct fp_pstate *s)
{
	const char *t = fp_ptarget(s);

	if (!s->type)
		fputs("nothing", stderr);
	else if (s->type == 'f')
		fputs(s->sha, stderr);
	else if (s->type == 'd')
		fputs("a directory", stderr);
	else if (s->type == 'l')
		fp_say_bytes(stderr, t, strlen(t));
	else
		fputs("a special file", stderr);
	if (s->type && s->type != 'l')
		fprintf(stderr, " (mode %04o)", s->mode);
}

static int hash_miss(struct fp_proot *r)
{
	size_t i;

	for (i = 0; i < r->locked.n; i++) {
		const struct fp_pchange *l = &r->locked.v[i];
		const struct fp_pchange *s = find(&r->scratch, l->rel);

		if (l->op == FP_PROMOTE_REMOVED)
			continue;
		if (same(&l->now, &s->now)) {
			/* apply copies this very file, or nothing */
			r->locked.v[i].src = s->src;
			continue;
		}
		fprintf(stderr,
			"footprint: promote: refused: hash miss at %s/%s: locked ",
			fp_said(r->root), fp_said(l->rel));
		put_state(&l->now);
		fputs(", the scratch has ", stderr);
		put_state(&s->now);
		fputs("\n", stderr);
		return FP_EXIT_VERDICT;
	}
	return 0;
}

static int input_drift(const struct fp_proot *r)
{
	struct fp_pstate real;
	size_t i;

	for (i = 0; i < r->locked.n; i++) {
		const struct fp_pchange *l = &r->locked.v[i];
		int e = fp_promote_state(r->rootfd, l->rel, &real);
		bool ok = !e && same(&real, &l->before);

		if (!ok) {
			fprintf(stderr,
				"footprint: promote: refused: input drift at %s/%s: the lock was made from ",
				fp_said(r->root), fp_said(l->rel));
			put_state(&l->before);
			fputs(", the tree now has ", stderr);
			if (e)
				fputs(strerror(-e), stderr);
			else
				put_state(&real);
			fputs("; run the job again on the tree as it is\n",
			      stderr);
		}
		fp_pstate_free(&real);
		if (!ok)
			return FP_EXIT_VERDICT;
	}
	return 0;
}

int fp_promote_verify(struct fp_proot *r, const struct fp_jv *lk)
{
	struct fp_pskipped sk;
	size_t extra, missing;

	if (fp_promote_scan(r) || load_skipped(r, lk, &sk))
		return FP_EXIT_USAGE;
	/* an empty set has no array, and qsort's may not be NULL */
	if (r->locked.n)
		qsort(r->locked.v, r->locked.n, sizeof(*r->locked.v), cmp_rel);
	if (r->scratch.n)
		qsort(r->scratch.v, r->scratch.n, sizeof(*r->scratch.v),
		      cmp_rel);
	extra = missing_from(&r->scratch, &r->locked, r, &sk, "extra");
	missing = missing_from(&r->locked, &r->scratch, r, &sk, "missing");
	free_skipped(&sk);
	if (extra || missing) {
		fprintf(stderr,
			"footprint: promote: refused: set drift: the scratch changes of %s are not the locked ones (%zu extra, %zu missing, listed above)\n",
			fp_said(r->root), extra, missing);
		return FP_EXIT_VERDICT;
	}
	return hash_miss(r) ?: input_drift(r);
}
