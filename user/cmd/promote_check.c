// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "promote_check.h"

#define DRIFT_SHOWN 10

int fp_promote_receipt_ok(const struct fp_jval *lk)
{
	const struct fp_jval *ok = fp_json_get(lk, "receipt_ok");
	const struct fp_jval *sk = fp_json_get(lk, "skipped");

	/* a failing receipt is only lockable with --skip-disallowed, which
	 * records what it set aside */
	if ((ok && ok->type == FP_J_BOOL && ok->b) ||
	    (sk && sk->type == FP_J_ARR && sk->n))
		return 0;
	fprintf(stderr,
		"footprint: promote: refused: the lock was made from a receipt that is not ok; fix the run and lock again\n");
	return FP_EXIT_VERDICT;
}

static void state_of(const struct fp_jval *o, struct fp_pstate *st)
{
	const char *t = fp_json_str(o, "type"), *h = fp_json_str(o, "sha256");
	const char *tg = fp_json_str(o, "target");
	const struct fp_jval *m = fp_json_get(o, "mode");

	memset(st, 0, sizeof(*st));
	if (!o || o->type != FP_J_OBJ)
		return;
	st->type = t ? t[0] : '?';
	st->mode = m && m->type == FP_J_NUM ? (unsigned int)m->num : 0;
	snprintf(st->sha, sizeof(st->sha), "%s", h ? h : "");
	snprintf(st->target, sizeof(st->target), "%s", tg ? tg : "");
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

int fp_promote_load(struct fp_proot *r, const struct fp_jval *lk)
{
	const struct fp_jval *ch = fp_json_get(lk, "changes");
	size_t rlen = strlen(r->root), skip = rlen + (rlen > 1), i;
	struct fp_pstate now, before;

	for (i = 0; ch && ch->type == FP_J_ARR && i < ch->n; i++) {
		const struct fp_jval *c = &ch->items[i];
		const char *p = fp_json_str(c, "path");
		int op = op_of(fp_json_str(c, "op"));

		if (!p || op < 0) {
			fprintf(stderr,
				"footprint: promote: a change in the lock has no path or op; give the file footprint lock wrote\n");
			return FP_EXIT_USAGE;
		}
		if (strncmp(p, r->root, rlen) || p[rlen] != '/' || !p[skip])
			continue;
		state_of(c, &now);
		state_of(fp_json_get(c, "before"), &before);
		if (fp_pset_add(&r->locked, p + skip, op, &now, &before))
			return FP_EXIT_USAGE;
	}
	return 0;
}

static const struct fp_pchange *find(const struct fp_pset *s, const char *rel)
{
	struct fp_pchange key = { .rel = (char *)rel };

	return s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_rel) : NULL;
}

static bool skipped(const struct fp_jval *lk, const char *root, const char *rel)
{
	const struct fp_jval *sk = fp_json_get(lk, "skipped");
	size_t rlen = strlen(root), i;

	for (i = 0; sk && sk->type == FP_J_ARR && i < sk->n; i++) {
		const char *p = sk->items[i].s;

		if (p && !strncmp(p, root, rlen) && p[rlen] == '/' &&
		    !strcmp(p + rlen + (rlen > 1), rel))
			return true;
	}
	return false;
}

/* paths in a but not in b (the skipped ones aside), at most a few shown */
static size_t missing_from(const struct fp_pset *a, const struct fp_pset *b,
			   const struct fp_proot *r, const struct fp_jval *lk,
			   const char *what)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++) {
		const struct fp_pchange *o = find(b, a->v[i].rel);

		if ((o && o->op == a->v[i].op) ||
		    skipped(lk, r->root, a->v[i].rel))
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
	       !strcmp(a->sha, b->sha) && !strcmp(a->target, b->target);
}

static const char *shown(const struct fp_pstate *s)
{
	return !s->type	      ? "nothing" :
	       s->type == 'f' ? s->sha :
	       s->type == 'd' ? "a directory" :
	       s->type == 'l' ? s->target :
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

		if (!e && same(&real, &l->before))
			continue;
		fprintf(stderr,
			"footprint: promote: refused: input drift at %s/%s: the lock was made from %s, the tree now has %s; run the job again on the tree as it is\n",
			r->root, l->rel, shown(&l->before),
			e ? strerror(-e) : shown(&real));
		return FP_EXIT_VERDICT;
	}
	return 0;
}

int fp_promote_verify(struct fp_proot *r, const struct fp_jval *lk)
{
	size_t extra, missing;

	if (fp_promote_scan(r))
		return FP_EXIT_USAGE;
	qsort(r->locked.v, r->locked.n, sizeof(*r->locked.v), cmp_rel);
	qsort(r->scratch.v, r->scratch.n, sizeof(*r->scratch.v), cmp_rel);
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
