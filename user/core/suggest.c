// SPDX-License-Identifier: GPL-2.0
/* Suggested rules that generalise (see suggest.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "suggest.h"

/* subsumption compares every rule with every wide one */
#define MAX_WIDE 2000
#define MAX_COMPARED (20UL * 1000 * 1000)

#include "suggest_int.h"

struct fp_suggester *fp_suggester_new(unsigned int nruns)
{
	struct fp_suggester *s = calloc(1, sizeof(*s));

	if (s)
		s->nruns = nruns ? nruns : 1;
	return s;
}

static void free_needs(struct fp_suggester *s)
{
	size_t i;

	for (i = 0; i < s->needs.n; i++) {
		free(fp_vec_at(&s->needs, struct need, i)->s);
		free(fp_vec_at(&s->needs, struct need, i)->by);
	}
	free(s->needs.v);
	memset(&s->needs, 0, sizeof(s->needs));
	fp_hashmap_free(&s->created, NULL);
	memset(&s->created, 0, sizeof(s->created));
}

static void free_cand(struct cand *c)
{
	size_t i;

	free(c->pat);
	free(c->lit);
	free(c->weak);
	free(c->runs);
	free(c->by);
	for (i = 0; i < c->samples.n; i++)
		free(fp_vec_at(&c->samples, struct fp_bytes, i)->data);
	free(c->samples.v);
}

void fp_suggester_free(struct fp_suggester *s)
{
	size_t i;

	if (!s)
		return;
	free_needs(s);
	for (i = 0; i < s->roots.n; i++)
		free(fp_vec_at(&s->roots, struct fp_bytes, i)->data);
	free(s->roots.v);
	for (i = 0; i < s->cands.n; i++)
		free_cand(fp_vec_at(&s->cands, struct cand, i));
	free(s->cands.v);
	fp_hashmap_free(&s->index, NULL);
	fp_hashmap_free(&s->homes, NULL);
	free(s);
}

void fp_suggester_relative(struct fp_suggester *s)
{
	s->relative = true;
}

int fp_suggester_root(struct fp_suggester *s, const char *root, size_t len)
{
	struct fp_bytes *b = fp_vec_push(&s->roots, sizeof(*b));

	if (!b || fp_bytes_dup(b, root, len))
		return -ENOMEM;
	return 0;
}

int fp_suggester_home(struct fp_suggester *s, const char *home, size_t len)
{
	struct fp_hslot *slot = fp_hashmap_slot(&s->homes, home, len);

	if (!slot)
		return -ENOMEM;
	slot->val = (void *)1;
	return 0;
}

int fp_suggester_created(struct fp_suggester *s, const char *path, size_t len,
			 bool dir)
{
	struct fp_hslot *slot = fp_hashmap_slot(&s->created, path, len);
	uintptr_t v;

	if (!slot)
		return -ENOMEM;
	v = (uintptr_t)slot->val;
	slot->val = (void *)(dir ? 2 : v ? v : 1);
	return 0;
}

static char *dup_bytes(const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (d) {
		if (len)
			memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

bool fp_suggester_has_needs(const struct fp_suggester *s)
{
	return s->needs.n > 0;
}

int fp_suggester_need(struct fp_suggester *s, enum fp_rule_target target,
		      const char *subj, size_t len, bool created)
{
	return fp_suggester_need_by(s, target, subj, len, created, NULL, 0);
}

int fp_suggester_need_by(struct fp_suggester *s, enum fp_rule_target target,
			 const char *subj, size_t len, bool created,
			 const char *by, size_t bylen)
{
	struct need *n = fp_vec_push(&s->needs, sizeof(*n));

	if (!n)
		return -ENOMEM;
	memset(n, 0, sizeof(*n));
	n->s = dup_bytes(subj, len);
	n->by = by ? dup_bytes(by, bylen) : NULL;
	if (!n->s || (by && !n->by)) {
		free(n->s);
		free(n->by);
		s->needs.n--;
		return -ENOMEM;
	}
	n->len = len;
	n->target = target;
	n->created = created;
	n->bylen = bylen;
	return 0;
}

static bool rule_matches(enum fp_rule_target t, const char *pat, size_t plen,
			 const char *s, size_t len)
{
	struct fp_rule r = { .kind = FP_ALLOW,
			     .target = t,
			     .pattern = (char *)pat,
			     .len = plen };

	return fp_rule_matches(&r, s, len);
}

/* Would a path rule cover a watched root, or a directory above one? */
bool fp_sg_covers_root(const struct fp_suggester *s, const char *pat,
		       size_t plen)
{
	size_t i, k;

	for (i = 0; i < s->roots.n; i++) {
		const struct fp_bytes *r =
			fp_vec_at(&s->roots, struct fp_bytes, i);

		if (rule_matches(FP_T_PATH, pat, plen, r->data, r->len) ||
		    rule_matches(FP_T_PATH, pat, plen, "/", 1))
			return true;
		for (k = 1; k < r->len; k++)
			if (r->data[k] == '/' &&
			    rule_matches(FP_T_PATH, pat, plen, r->data, k))
				return true;
	}
	return false;
}

/*
 * The length of the topmost path at or above p that the run created (0:
 * none); *dir: it is known to be a directory.
 */
static size_t topmost_created(const struct fp_suggester *s, const char *p,
			      size_t len, bool *dir)
{
	struct fp_prefix pre;
	uintptr_t v;
	size_t k;

	*dir = true;
	fp_prefix_init(&pre);
	for (k = 1; k < len; k++)
		/* each prefix hashed from the last, not from the start */
		if (p[k] == '/' &&
		    fp_hashmap_get_prefix(&s->created, &pre, p, k))
			return k;
	v = (uintptr_t)fp_hashmap_get(&s->created, p, len);
	*dir = v == 2;
	return v ? len : 0;
}

/*
 * The glob for path[0, len) (a directory rule if dir) with its last
 * component generalised at level; NULL when nothing looks random, the
 * name would keep fewer than two fixed bytes, or it would cover a root.
 */
static char *glob_path(const struct fp_suggester *s, const char *path,
		       size_t len, bool dir, int level, size_t *plen)
{
	struct buf b = { 0 };
	size_t last = len, replaced;

	while (last > 0 && path[last - 1] != '/')
		last--;
	fp_sg_put_escaped(&b, path, last, fp_sg_specials(FP_T_PATH));
	if (fp_sg_python_temp_name(path + last, len - last,
				   fp_sg_in_temp_dir(path, last))) {
		/* no fixed byte to keep: a class per byte keeps it exact */
		for (replaced = 0; replaced < 8; replaced++)
			fp_sg_put(&b, "[a-z0-9_]", 9);
		if (dir)
			fp_sg_put(&b, "/", 1);
		if (b.err || fp_sg_covers_root(s, b.p, b.len)) {
			free(b.p);
			return NULL;
		}
		*plen = b.len;
		return b.p;
	}
	replaced =
		fp_sg_glob_name(&b, path + last, len - last, level, FP_T_PATH);
	if (dir)
		fp_sg_put(&b, "/", 1);
	if (b.err || !replaced || len - last - replaced < 2 ||
	    fp_sg_covers_root(s, b.p, b.len)) {
		free(b.p);
		return NULL;
	}
	*plen = b.len;
	return b.p;
}

int fp_sg_cand_index(struct fp_suggester *s, enum fp_rule_target t,
		     const char *pat, size_t plen, const char *by, size_t bylen,
		     size_t *idx, bool *fresh)
{
	struct buf key = { 0 };
	unsigned char tb = (unsigned char)t;
	struct fp_hslot *slot;

	fp_sg_put(&key, &tb, 1);
	fp_sg_put(&key, pat, plen);
	/* a pattern holds no NUL: what follows one is the reader */
	if (by) {
		fp_sg_put(&key, "", 1);
		fp_sg_put(&key, by, bylen);
	}
	if (key.err)
		return -ENOMEM;
	slot = fp_hashmap_slot(&s->index, key.p, key.len);
	free(key.p);
	if (!slot)
		return -ENOMEM;
	*fresh = !slot->val;
	if (*fresh) {
		struct cand *c = fp_vec_push(&s->cands, sizeof(*c));

		if (!c)
			return -ENOMEM;
		c->runs = calloc(s->nruns, 1);
		if (!c->runs)
			return -ENOMEM;
		c->order = s->cands.n - 1;
		slot->val = (void *)(uintptr_t)s->cands.n;
	}
	*idx = (uintptr_t)slot->val - 1;
	return 0;
}

static int add_sample(struct cand *c, const char *s, size_t len)
{
	struct fp_bytes *b = fp_vec_push(&c->samples, sizeof(*b));

	if (!b)
		return -ENOMEM;
	if (fp_bytes_dup(b, s, len)) {
		c->samples.n--;
		return -ENOMEM;
	}
	return 0;
}

struct placed {
	char *pat, *lit, *weak;
	size_t plen, litlen, weaklen;
	bool literal, wide;
	bool made; /* the run made what it names */
};

static int place(struct fp_suggester *s, const struct need *n,
		 struct placed *pl)
{
	struct cand *c;
	size_t idx;
	bool fresh;
	int ret;

	ret = fp_sg_cand_index(s, n->target, pl->pat, pl->plen, n->by, n->bylen,
			       &idx, &fresh);
	if (ret)
		return ret;
	c = fp_vec_at(&s->cands, struct cand, idx);
	if (fresh && n->by && !(c->by = dup_bytes(n->by, n->bylen)))
		return -ENOMEM;
	c->made |= pl->made;
	if (fresh) {
		c->bylen = n->bylen;
		c->target = n->target;
		c->pat = pl->pat;
		c->plen = pl->plen;
		c->literal = pl->literal;
		c->lit = pl->lit;
		c->litlen = pl->litlen;
		c->wide = pl->wide;
		c->weak = pl->weak;
		c->weaklen = pl->weaklen;
		pl->pat = pl->lit = pl->weak = NULL;
	}
	c->count++;
	c->runs[s->run] = 1;
	return add_sample(c, n->s, n->len);
}

static char *dup_with(const char *s, size_t len, const char *tail)
{
	size_t tl = strlen(tail);
	char *d = malloc(len + tl + 1);

	if (d) {
		memcpy(d, s, len);
		memcpy(d + len, tail, tl + 1);
	}
	return d;
}

static bool pathlike(enum fp_rule_target t)
{
	return t == FP_T_PATH || t == FP_T_READ || t == FP_T_SETUID ||
	       t == FP_T_MOUNT;
}

/*
 * The current run's one watched root (not "/") when rules are written
 * relative to the root: "allow node_modules/" means the same under that
 * root, and under another checkout's. With several roots a relative rule
 * would match under each, so then rules stay absolute. NULL: absolute.
 */
static const struct fp_bytes *rel_root(const struct fp_suggester *s)
{
	const struct fp_bytes *r;

	if (!s->relative || s->roots.n != s->run_roots + 1)
		return NULL;
	r = fp_vec_at(&s->roots, const struct fp_bytes, s->run_roots);
	return r->len >= 2 && r->data[0] == '/' ? r : NULL;
}

/* the bytes of "ROOT/" that p (of len) starts with, strictly below it */
static size_t below(const struct fp_bytes *root, const char *p, size_t len)
{
	return len > root->len + 1 && p[root->len] == '/' &&
			       !memcmp(p, root->data, root->len) ?
		       root->len + 1 :
		       0;
}

/* strip "ROOT/", escaped as in a pattern, from the start of *p */
static void strip_root(const struct fp_bytes *root, enum fp_rule_target t,
		       char **p, size_t *len)
{
	struct buf b = { 0 };

	if (!*p)
		return;
	fp_sg_put_escaped(&b, root->data, root->len, fp_sg_specials(t));
	fp_sg_put(&b, "/", 1);
	if (!b.err && *len > b.len && !memcmp(*p, b.p, b.len)) {
		memmove(*p, *p + b.len, *len - b.len + 1);
		*len -= b.len;
	}
	free(b.p);
}

/* pl (for need n) relative to the run's root, when it is below it */
static void relativize(const struct fp_suggester *s, struct need *n,
		       struct placed *pl)
{
	const struct fp_bytes *root = rel_root(s);
	size_t k;

	if (!root || !pathlike(n->target) || !(k = below(root, n->s, n->len)))
		return;
	if (!below(root, pl->lit, pl->litlen))
		return; /* the rule is for the root itself or above it */
	memmove(pl->lit, pl->lit + k, pl->litlen - k + 1);
	pl->litlen -= k;
	strip_root(root, n->target, &pl->pat, &pl->plen);
	strip_root(root, n->target, &pl->weak, &pl->weaklen);
	memmove(n->s, n->s + k, n->len - k + 1);
	n->len -= k;
}

/* One need of the run: the rule that generalises it. */
static int place_need(struct fp_suggester *s, struct need *n)
{
	struct placed pl = { 0 };
	struct buf b = { 0 };
	size_t blen = n->len, top;
	bool dir = false, elig = n->created, isdir;
	int ret;

	if (n->target == FP_T_PATH) {
		top = topmost_created(s, n->s, n->len, &isdir);
		if (top && (top < n->len || isdir)) {
			blen = top;
			dir = elig = true;
		}
	}
	fp_sg_put_escaped(&b, n->s, blen, fp_sg_specials(n->target));
	if (dir)
		fp_sg_put(&b, "/", 1);
	if (b.err)
		return -ENOMEM;
	if (dir && fp_sg_covers_root(s, b.p, b.len)) {
		/* the run made a directory above a root: name each file */
		free(b.p);
		memset(&b, 0, sizeof(b));
		fp_sg_put_escaped(&b, n->s, n->len, fp_sg_specials(n->target));
		if (b.err)
			return -ENOMEM;
		blen = n->len;
		dir = false;
		elig = n->created;
	}
	pl.pat = b.p;
	pl.plen = b.len;
	pl.literal = true;
	pl.wide = dir;
	pl.made = elig;
	pl.lit = dup_with(n->s, blen, dir ? "/" : "");
	pl.litlen = blen + dir;
	if (!pl.lit) {
		free(pl.pat);
		return -ENOMEM;
	}
	if (n->target == FP_T_PATH && elig) {
		char *g = glob_path(s, n->s, blen, dir, STRONG, &pl.plen);

		if (g) {
			free(pl.pat);
			pl.pat = g;
			pl.literal = false;
			pl.wide = true;
		} else {
			pl.weak = glob_path(s, n->s, blen, dir, WEAK,
					    &pl.weaklen);
		}
	}
	relativize(s, n, &pl);
	ret = place(s, n, &pl);
	free(pl.pat);
	free(pl.lit);
	free(pl.weak);
	return ret;
}

int fp_suggester_end_run(struct fp_suggester *s)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < s->needs.n && !ret; i++)
		ret = place_need(s, fp_vec_at(&s->needs, struct need, i));
	free_needs(s);
	s->run_roots = s->roots.n;
	if (s->run + 1 < s->nruns)
		s->run++;
	return ret;
}

/* into keeps c's findings, runs and subjects; c is gone */
static int merge(struct cand *into, struct cand *c)
{
	size_t i;

	for (i = 0; i < c->samples.n; i++) {
		struct fp_bytes *b = fp_vec_push(&into->samples, sizeof(*b));

		if (!b)
			return -ENOMEM;
		*b = *fp_vec_at(&c->samples, struct fp_bytes, i);
	}
	c->samples.n = 0;
	into->count += c->count;
	into->order = into->order < c->order ? into->order : c->order;
	c->gone = true;
	return 0;
}

int fp_sg_merge(struct fp_suggester *s, struct cand *into, struct cand *c)
{
	unsigned int r;

	for (r = 0; r < s->nruns; r++)
		into->runs[r] |= c->runs[r];
	into->made |= c->made;
	return merge(into, c);
}

/*
 * Names of one shape that differ in a weakly random part are random:
 * the first such candidate becomes the glob, the others merge into it.
 */
static int group_siblings(struct fp_suggester *s, unsigned int nruns)
{
	struct fp_hashmap first = { 0 };
	size_t i, k;
	int ret = 0;

	for (i = 0; i < s->cands.n && !ret; i++) {
		struct cand *c = fp_vec_at(&s->cands, struct cand, i), *f;
		struct fp_hslot *slot;

		if (c->gone || !c->weak)
			continue;
		slot = fp_hashmap_slot(&first, c->weak, c->weaklen);
		if (!slot) {
			ret = -ENOMEM;
			break;
		}
		if (!slot->val) {
			slot->val = (void *)(uintptr_t)(i + 1);
			continue;
		}
		f = fp_vec_at(&s->cands, struct cand, (uintptr_t)slot->val - 1);
		/* the same fixed parts and length: random parts of one length */
		if (f->litlen != c->litlen)
			continue;
		if (f->literal) {
			/* the first sibling becomes the glob */
			free(f->pat);
			f->pat = f->weak;
			f->plen = f->weaklen;
			f->weak = NULL;
			f->literal = false;
			f->wide = true;
		}
		for (k = 0; k < nruns; k++)
			f->runs[k] |= c->runs[k];
		ret = merge(f, c);
	}
	fp_hashmap_free(&first, NULL);
	return ret;
}

static bool covers_all(const struct cand *w, const struct cand *c)
{
	size_t i;

	if (w->target != c->target || !c->samples.n || w->by || c->by)
		return false;
	for (i = 0; i < c->samples.n; i++) {
		const struct fp_bytes *b =
			fp_vec_at(&c->samples, struct fp_bytes, i);

		if (!rule_matches(w->target, w->pat, w->plen, b->data, b->len))
			return false;
	}
	return true;
}

/* A rule whose every subject a wider rule matches is not needed. */
static int subsume(struct fp_suggester *s, unsigned int nruns)
{
	struct cand *cs = fp_vec_arr(&s->cands, struct cand);
	size_t i, j, k, r, *wide, nwide = 0;
	int ret = 0;

	for (i = 0; i < s->cands.n; i++)
		nwide += !cs[i].gone && cs[i].wide;
	if (!nwide || nwide > MAX_WIDE || nwide * s->cands.n > MAX_COMPARED)
		return 0;
	wide = malloc(nwide * sizeof(*wide));
	if (!wide)
		return -ENOMEM;
	for (i = 0, nwide = 0; i < s->cands.n; i++)
		if (!cs[i].gone && cs[i].wide)
			wide[nwide++] = i;
	for (i = 0; i < s->cands.n && !ret; i++) {
		for (k = 0; k < nwide && !cs[i].gone && !ret; k++) {
			j = wide[k];
			if (j == i || cs[j].gone || !covers_all(&cs[j], &cs[i]))
				continue;
			for (r = 0; r < nruns; r++)
				cs[j].runs[r] |= cs[i].runs[r];
			ret = merge(&cs[j], &cs[i]);
		}
	}
	free(wide);
	return ret;
}

static int by_count(const void *a, const void *b)
{
	const struct cand *x = *(const struct cand *const *)a;
	const struct cand *y = *(const struct cand *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static char *line_of(const struct cand *c)
{
	const char *word = c->target == FP_T_PROCESS ? "process " :
			   c->target == FP_T_BIND    ? "bind " :
			   c->target == FP_T_CONNECT ? "connect " :
			   c->target == FP_T_DNS     ? "dns " :
			   c->target == FP_T_PRIV    ? "privileged " :
			   c->target == FP_T_READ    ? "read " :
			   c->target == FP_T_SIGNAL  ? "signal " :
			   c->target == FP_T_PTRACE  ? "ptrace " :
						       "";
	char *q, *line = NULL;

	if (c->target >= FP_T_SETUID)
		word = fp_policy_procop_word(c->target);
	/* a literal is quoted as it always was: glob characters escaped; a
	 * bind's "[::1]" is not a class, so it stays as it is */
	bool lit = c->literal && c->target != FP_T_BIND &&
		   c->target != FP_T_CONNECT;
	size_t n = lit ? c->litlen : c->plen;
	const char *p = lit ? c->lit : c->pat;
	char *qb = c->by ? fp_policy_quote_dup(c->by, c->bylen, false) : NULL;

	q = fp_policy_quote_dup(p, n, lit);
	if (q && (!c->by || qb) &&
	    (line = malloc(strlen(word) + strlen(q) + (qb ? strlen(qb) : 0) +
			   11)))
		sprintf(line, "allow %s%s%s%s", word, q, qb ? " by " : "",
			qb ? qb : "");
	free(q);
	free(qb);
	return line;
}

int fp_suggester_finish(struct fp_suggester *s, struct fp_vec *out)
{
	struct cand **sorted;
	size_t i, n = 0;
	int ret;

	if (s->needs.n && (ret = fp_suggester_end_run(s)))
		return ret;
	ret = group_siblings(s, s->nruns);
	if (!ret)
		ret = fp_sg_collapse_churn(s);
	if (!ret)
		ret = subsume(s, s->nruns);
	if (ret)
		return ret;
	sorted = malloc((s->cands.n + 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < s->cands.n; i++)
		if (!fp_vec_at(&s->cands, struct cand, i)->gone)
			sorted[n++] = fp_vec_at(&s->cands, struct cand, i);
	qsort(sorted, n, sizeof(*sorted), by_count);
	for (i = 0; i < n && !ret; i++) {
		struct fp_sugg *g = fp_vec_push(out, sizeof(*g));

		if (!g || !(g->line = line_of(sorted[i]))) {
			if (g)
				out->n--;
			ret = -ENOMEM;
			break;
		}
		g->count = sorted[i]->count;
		g->runs = sorted[i]->runs;
		sorted[i]->runs = NULL;
	}
	free(sorted);
	return ret;
}

void fp_suggs_free(struct fp_vec *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		free(fp_vec_at(v, struct fp_sugg, i)->line);
		free(fp_vec_at(v, struct fp_sugg, i)->runs);
	}
	free(v->v);
	memset(v, 0, sizeof(*v));
}
