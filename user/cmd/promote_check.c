// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "promote_check.h"

#define DRIFT_SHOWN 10

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

/* 0, or -ENOMEM; a target is cut where readlink would cut it */
static int state_of(const struct fp_jv *o, struct fp_pstate *st)
{
	const char *t = fp_jv_str(o, "type"), *h = fp_jv_str(o, "sha256");
	const char *tg = fp_jv_str(o, "target");
	const struct fp_jv *m = fp_jv_get(o, "mode");

	memset(st, 0, sizeof(*st));
	if (!o || o->type != FP_JV_OBJ)
		return 0;
	st->type = t ? t[0] : '?';
	st->mode = fp_jv_as_int(m, 0);
	snprintf(st->sha, sizeof(st->sha), "%s", h ? h : "");
	st->target = tg ? strndup(tg, PATH_MAX - 1) : NULL;
	return tg && !st->target ? -ENOMEM : 0;
}

static int op_of(const char *op)
{
	return !op		      ? -1 :
	       !strcmp(op, "added")   ? FP_OP_ADDED :
	       !strcmp(op, "changed") ? FP_OP_CHANGED :
	       !strcmp(op, "removed") ? FP_OP_REMOVED :
					-1;
}

static int cmp_rel(const void *a, const void *b)
{
	return strcmp(((const struct fp_pchange *)a)->rel,
		      ((const struct fp_pchange *)b)->rel);
}

int fp_promote_load(struct fp_proot *r, const struct fp_jv *lk)
{
	const struct fp_jv *ch = fp_jv_get(lk, "changes");
	size_t rlen = strlen(r->root), skip = rlen + (rlen > 1), i;
	struct fp_pstate now = { 0 }, before = { 0 };
	int e = 0;

	for (i = 0; !e && ch && ch->type == FP_JV_ARR && i < ch->n; i++) {
		const struct fp_jv *c = &ch->items[i];
		const char *p = fp_jv_str(c, "path");
		int op = op_of(fp_jv_str(c, "op"));

		if (!p || op < 0) {
			fprintf(stderr,
				"footprint: promote: a change in the lock has no path or op; give the file footprint lock wrote\n");
			return FP_EXIT_USAGE;
		}
		if (strncmp(p, r->root, rlen) || p[rlen] != '/' || !p[skip])
			continue;
		e = state_of(c, &now);
		if (!e)
			e = state_of(fp_jv_get(c, "before"), &before);
		if (!e)
			e = fp_pset_add(&r->locked, p + skip, op, &now,
					&before);
		fp_pstate_free(&now);
		fp_pstate_free(&before);
	}
	if (e)
		fp_pset_say(e, "the locked changes", r->root);
	return e ? FP_EXIT_USAGE : 0;
}

static const struct fp_pchange *find(const struct fp_pset *s, const char *rel)
{
	struct fp_pchange key = { .rel = (char *)rel };

	return s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_rel) : NULL;
}

static bool skipped(const struct fp_jv *lk, const char *root, const char *rel)
{
	const struct fp_jv *sk = fp_jv_get(lk, "skipped");
	size_t rlen = strlen(root), i;

	for (i = 0; sk && sk->type == FP_JV_ARR && i < sk->n; i++) {
		const char *p = sk->items[i].s;

		if (p && !strncmp(p, root, rlen) && p[rlen] == '/' &&
		    !strcmp(p + rlen + (rlen > 1), rel))
			return true;
	}
	return false;
}

/*
 * paths in a but not in b, at most a few shown. Only an extra scratch
 * change may be skipped: every locked one must be there to be applied.
 */
static size_t missing_from(const struct fp_pset *a, const struct fp_pset *b,
			   const struct fp_proot *r, const struct fp_jv *lk,
			   const char *what)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++) {
		const struct fp_pchange *o = find(b, a->v[i].rel);

		if ((o && o->op == a->v[i].op) ||
		    (a == &r->scratch && skipped(lk, r->root, a->v[i].rel)))
			continue;
		if (n++ < DRIFT_SHOWN)
			fprintf(stderr, "footprint: promote:   %s %s/%s\n",
				what, r->root, a->v[i].rel);
	}
	return n;
}

static bool same(const struct fp_pstate *a, const struct fp_pstate *b)
{
	return a->type == b->type && a->mode == b->mode &&
	       !strcmp(a->sha, b->sha) && !strcmp(fp_ptarget(a), fp_ptarget(b));
}

static const char *shown(const struct fp_pstate *s)
{
	return !s->type	      ? "nothing" :
	       s->type == 'f' ? s->sha :
	       s->type == 'd' ? "a directory" :
	       s->type == 'l' ? fp_ptarget(s) :
				"a special file";
}

static int hash_miss(const struct fp_proot *r)
{
	size_t i;

	for (i = 0; i < r->locked.n; i++) {
		const struct fp_pchange *l = &r->locked.v[i];
		const struct fp_pchange *s = find(&r->scratch, l->rel);

		if (l->op == FP_OP_REMOVED || same(&l->now, &s->now))
			continue;
		fprintf(stderr,
			"footprint: promote: refused: hash miss at %s/%s: locked %s (mode %04o), the scratch has %s (mode %04o)\n",
			r->root, l->rel, shown(&l->now), l->now.mode,
			shown(&s->now), s->now.mode);
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

		if (!ok)
			fprintf(stderr,
				"footprint: promote: refused: input drift at %s/%s: the lock was made from %s, the tree now has %s; run the job again on the tree as it is\n",
				r->root, l->rel, shown(&l->before),
				e ? strerror(-e) : shown(&real));
		fp_pstate_free(&real);
		if (!ok)
			return FP_EXIT_VERDICT;
	}
	return 0;
}

int fp_promote_verify(struct fp_proot *r, const struct fp_jv *lk)
{
	size_t extra, missing;

	if (fp_promote_scan(r))
		return FP_EXIT_USAGE;
	/* an empty set has no array, and qsort's may not be NULL */
	if (r->locked.n)
		qsort(r->locked.v, r->locked.n, sizeof(*r->locked.v), cmp_rel);
	if (r->scratch.n)
		qsort(r->scratch.v, r->scratch.n, sizeof(*r->scratch.v),
		      cmp_rel);
	extra = missing_from(&r->scratch, &r->locked, r, lk, "extra");
	missing = missing_from(&r->locked, &r->scratch, r, lk, "missing");
	if (extra || missing) {
		fprintf(stderr,
			"footprint: promote: refused: set drift: the scratch changes of %s are not the locked ones (%zu extra, %zu missing, listed above)\n",
			r->root, extra, missing);
		return FP_EXIT_VERDICT;
	}
	return hash_miss(r) ?: input_drift(r);
}
