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

struct need {
	enum fp_rule_target target;
	char *s;
	size_t len;
	bool created;
};

/* a candidate rule */
struct cand {
	enum fp_rule_target target;
	char *pat; /* the matcher's pattern; a directory rule ends in '/' */
	size_t plen;
	bool literal; /* pat is lit escaped: printed as lit, quoted */
	char *lit; /* literal: the subject (a directory's with its '/') */
	size_t litlen;
	bool wide; /* a directory rule or a glob */
	char *weak; /* the glob it becomes if a sibling has the same one */
	size_t weaklen;
	size_t count;
	size_t order;
	unsigned char *runs;
	struct fp_vec samples; /* struct fp_bytes: subjects it covers */
	bool gone; /* merged into another */
};

struct fp_suggester {
	unsigned int nruns, run;
	bool relative; /* fp_suggester_relative() */
	struct fp_vec roots; /* struct fp_bytes */
	struct fp_hashmap created; /* this run: path -> 1, or 2 a directory */
	struct fp_vec needs; /* this run: struct need */
	struct fp_hashmap index; /* target, pattern -> cand index + 1 */
	struct fp_vec cands; /* struct cand */
};

struct buf {
	char *p;
	size_t len, cap;
	bool err;
};

static void put(struct buf *b, const void *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->err = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	/* an empty piece may have no bytes at all (a crafted log's empty
	 * name): memcpy() is not for a NULL source, even of 0 bytes */
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* s as a pattern matching only itself: the matcher's specials escaped */
static void put_escaped(struct buf *b, const char *s, size_t n,
			const char *specials)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strchr(specials, s[i]) && s[i])
			put(b, "\\", 1);
		put(b, &s[i], 1);
	}
}

static const char *specials(enum fp_rule_target t)
{
	/* "[::1]" in a bind subject is an address: no classes there */
	return t == FP_T_BIND || t == FP_T_CONNECT ? "*?\\" : "*?[\\";
}

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

	for (i = 0; i < s->needs.n; i++)
		free(((struct need *)s->needs.v)[i].s);
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
	for (i = 0; i < c->samples.n; i++)
		free(((struct fp_bytes *)c->samples.v)[i].data);
	free(c->samples.v);
}

void fp_suggester_free(struct fp_suggester *s)
{
	size_t i;

	if (!s)
		return;
	free_needs(s);
	for (i = 0; i < s->roots.n; i++)
		free(((struct fp_bytes *)s->roots.v)[i].data);
	free(s->roots.v);
	for (i = 0; i < s->cands.n; i++)
		free_cand(&((struct cand *)s->cands.v)[i]);
	free(s->cands.v);
	fp_hashmap_free(&s->index, NULL);
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

int fp_suggester_need(struct fp_suggester *s, enum fp_rule_target target,
		      const char *subj, size_t len, bool created)
{
	struct need *n = fp_vec_push(&s->needs, sizeof(*n));

	if (!n)
		return -ENOMEM;
	n->s = malloc(len + 1);
	if (!n->s) {
		s->needs.n--;
		return -ENOMEM;
	}
	memcpy(n->s, subj, len);
	n->s[len] = '\0';
	n->len = len;
	n->target = target;
	n->created = created;
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
static bool covers_root(const struct fp_suggester *s, const char *pat,
			size_t plen)
{
	size_t i, k;

	for (i = 0; i < s->roots.n; i++) {
		const struct fp_bytes *r = &((struct fp_bytes *)s->roots.v)[i];

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

static bool word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static int cclass(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? 1 :
	       c >= 'A' && c <= 'Z' ? 2 :
	       c >= '0' && c <= '9' ? 3 :
				      0;
}

struct shape {
	size_t lower, upper, digit, trans, lower_run;
	bool hex;
};

static void shape_of(const char *t, size_t n, struct shape *sh)
{
	size_t i, run = 0;
	int prev = 0;

	memset(sh, 0, sizeof(*sh));
	sh->hex = true;
	for (i = 0; i < n; i++) {
		unsigned char c = t[i];
		int k = cclass(c);

		sh->lower += k == 1;
		sh->upper += k == 2;
		sh->digit += k == 3;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			sh->hex = false;
		run = k == 1 ? run + 1 : 0;
		if (run > sh->lower_run)
			sh->lower_run = run;
		if (k && prev && k != prev)
			sh->trans++;
		if (k)
			prev = k;
	}
}

enum { NOT_RANDOM, WEAK, STRONG };

/*
 * Does a run of letters, digits and '_' look random? STRONG: on its own
 * (mixed case and digits; digits and letters changing often; hex; mixed
 * case without a word's long lowercase run). WEAK: two kinds of
 * characters, which is random only if a sibling name of the same shape
 * differs there too. py: Python's tempfile alphabet, eight long.
 */
static int randomness(const char *t, size_t n, bool py)
{
	struct shape sh;
	size_t letters;

	if (n < 5 || n > 64)
		return NOT_RANDOM;
	shape_of(t, n, &sh);
	letters = sh.lower + sh.upper;
	if (n >= 6 && ((sh.lower && sh.upper && sh.digit) ||
		       (sh.digit >= 2 && letters >= 2 && sh.trans >= 3) ||
		       (n >= 8 && sh.hex && sh.digit && letters) ||
		       (sh.lower && sh.upper && sh.lower_run <= 3 && n <= 16)))
		return STRONG;
	if (py && n == 8 && !sh.upper)
		return STRONG;
	return (!!sh.lower + !!sh.upper + !!sh.digit) >= 2 ? WEAK : NOT_RANDOM;
}

/*
 * After a temp name's known start (prefix of plen bytes, then n more):
 * mkstemp's [A-Za-z0-9] is random on its own. gcc's is "cc" and exactly
 * six of them, whatever their case (/tmp/cciZvobw.o, /tmp/ccQ1ABCD.s);
 * elsewhere six to ten with two kinds of character, which no word has.
 */
static bool mkstemp_tail(const char *t, size_t plen, size_t n)
{
	struct shape sh;

	if (n < 6 || n > 10)
		return false;
	shape_of(t + plen, n, &sh);
	if (sh.lower + sh.upper + sh.digit != n)
		return false;
	if (plen == 2 && !memcmp(t, "cc", 2) && n == 6)
		return true;
	return (!!sh.lower + !!sh.upper + !!sh.digit) >= 2;
}

/*
 * mktemp(1)'s NAME.XXXXXX: the last part, after a dot, six to ten of
 * [A-Za-z0-9] with two capitals, a capital and a digit, one capital that
 * does not start it, or digits inside letters. No extension looks like
 * that: a capitalised word has one capital, first (notes.Backup), and a
 * numbered one its digits at the end (data.backup2). What is left, all
 * lower case and the like, is one name in 50 of mktemp's six and one in
 * 300 of its eight (/tmp/job.FVpubk, /tmp/job.mvitClwp, /tmp/job.q7vobw).
 */
static bool mktemp_suffix(const char *nm, size_t i, size_t j, size_t n)
{
	struct shape sh;

	if (!i || nm[i - 1] != '.' || j != n || n - i < 6 || n - i > 10)
		return false;
	shape_of(nm + i, n - i, &sh);
	if (sh.lower + sh.upper + sh.digit != n - i)
		return false;
	return sh.upper >= 2 || (sh.upper && sh.digit) ||
	       (sh.upper == 1 && cclass(nm[i]) != 2) ||
	       (sh.lower && sh.digit && sh.trans >= 2);
}

/* fixed starts of temp names glued to their random part */
static size_t known_prefix(const char *t, size_t n)
{
	static const char *const prefixes[] = { "tmp", "cc", "cmTC_" };
	size_t i, l;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		l = strlen(prefixes[i]);
		if (n >= l + 5 && !memcmp(t, prefixes[i], l))
			return l;
	}
	return 0;
}

/*
 * The name with each random-looking part (at level or above) made a '*',
 * the rest escaped. Returns the bytes replaced, 0 for none.
 */
static size_t glob_name(struct buf *b, const char *nm, size_t n, int level,
			enum fp_rule_target t)
{
	/* Python's tempfile: "tmp" or "pip-...-" and eight of [a-z0-9_] */
	bool py_name = (n >= 4 && !memcmp(nm, "pip-", 4)) ||
		       (n >= 3 && !memcmp(nm, "tmp", 3));
	size_t i = 0, j, p, replaced = 0;

	while (i < n) {
		if (!word_byte(nm[i])) {
			put_escaped(b, &nm[i], 1, specials(t));
			i++;
			continue;
		}
		for (j = i; j < n && word_byte(nm[j]); j++)
			;
		p = known_prefix(nm + i, j - i);
		if (randomness(nm + i + p, j - i - p, py_name) >= level ||
		    (p && mkstemp_tail(nm + i, p, j - i - p)) ||
		    mktemp_suffix(nm, i, j, n)) {
			put(b, nm + i, p);
			put(b, "*", 1);
			replaced += j - i - p;
		} else {
			put_escaped(b, nm + i, j - i, specials(t));
		}
		i = j;
	}
	return replaced;
}

/* Is path[0, dirlen) the system's temp directory ("/tmp/" and the like)? */
static bool in_temp_dir(const char *path, size_t dirlen)
{
	static const char *const dirs[] = { "/tmp/", "/var/tmp/", "/dev/shm/" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (dirlen == strlen(dirs[i]) && !memcmp(path, dirs[i], dirlen))
			return true;
	return false;
}

/*
 * A bare name of Python's tempfile (mkstemp, mkdtemp, NamedTemporaryFile):
 * eight of [a-z0-9_]. Elsewhere it needs a digit or a '_' after its start,
 * so that a word is never taken for one, nor a word that starts with '_'
 * as private names do (npm's ~/.npm/_cacache); right in the temp
 * directory, where tempfile puts them, eight letters are one too (a
 * sixteenth of its names).
 */
static bool python_temp_name(const char *t, size_t n, bool temp_dir)
{
	bool odd = temp_dir;
	size_t i;

	if (n != 8)
		return false;
	for (i = 0; i < n; i++) {
		if (!((t[i] >= 'a' && t[i] <= 'z') ||
		      (t[i] >= '0' && t[i] <= '9') || t[i] == '_'))
			return false;
		odd |= t[i] < 'a' && (t[i] != '_' || i);
	}
	return odd;
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
	put_escaped(&b, path, last, specials(FP_T_PATH));
	if (python_temp_name(path + last, len - last,
			     in_temp_dir(path, last))) {
		/* no fixed byte to keep: a class per byte keeps it exact */
		for (replaced = 0; replaced < 8; replaced++)
			put(&b, "[a-z0-9_]", 9);
		if (dir)
			put(&b, "/", 1);
		if (b.err || covers_root(s, b.p, b.len)) {
			free(b.p);
			return NULL;
		}
		*plen = b.len;
		return b.p;
	}
	replaced = glob_name(&b, path + last, len - last, level, FP_T_PATH);
	if (dir)
		put(&b, "/", 1);
	if (b.err || !replaced || len - last - replaced < 2 ||
	    covers_root(s, b.p, b.len)) {
		free(b.p);
		return NULL;
	}
	*plen = b.len;
	return b.p;
}

static int cand_index(struct fp_suggester *s, enum fp_rule_target t,
		      const char *pat, size_t plen, size_t *idx, bool *fresh)
{
	struct buf key = { 0 };
	unsigned char tb = (unsigned char)t;
	struct fp_hslot *slot;

	put(&key, &tb, 1);
	put(&key, pat, plen);
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
};

static int place(struct fp_suggester *s, const struct need *n,
		 struct placed *pl)
{
	struct cand *c;
	size_t idx;
	bool fresh;
	int ret;

	ret = cand_index(s, n->target, pl->pat, pl->plen, &idx, &fresh);
	if (ret)
		return ret;
	c = &((struct cand *)s->cands.v)[idx];
	if (fresh) {
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

/* One need of the run: the rule that generalises it. */
static int place_need(struct fp_suggester *s, const struct need *n)
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
	put_escaped(&b, n->s, blen, specials(n->target));
	if (dir)
		put(&b, "/", 1);
	if (b.err)
		return -ENOMEM;
	if (dir && covers_root(s, b.p, b.len)) {
		/* the run made a directory above a root: name each file */
		free(b.p);
		memset(&b, 0, sizeof(b));
		put_escaped(&b, n->s, n->len, specials(n->target));
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
		ret = place_need(s, &((struct need *)s->needs.v)[i]);
	free_needs(s);
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
		*b = ((struct fp_bytes *)c->samples.v)[i];
	}
	c->samples.n = 0;
	into->count += c->count;
	into->order = into->order < c->order ? into->order : c->order;
	c->gone = true;
	return 0;
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
		struct cand *c = &((struct cand *)s->cands.v)[i], *f;
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
		f = &((struct cand *)s->cands.v)[(uintptr_t)slot->val - 1];
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

	if (w->target != c->target || !c->samples.n)
		return false;
	for (i = 0; i < c->samples.n; i++) {
		const struct fp_bytes *b =
			&((struct fp_bytes *)c->samples.v)[i];

		if (!rule_matches(w->target, w->pat, w->plen, b->data, b->len))
			return false;
	}
	return true;
}

/* A rule whose every subject a wider rule matches is not needed. */
static int subsume(struct fp_suggester *s, unsigned int nruns)
{
	struct cand *cs = s->cands.v;
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

/*
 * The part of a path pattern below the one watched root, when the run
 * had exactly one (besides "/"): "allow node_modules/" reads better than
 * the absolute path and means the same for that run, as a relative
 * pattern is taken relative to each root. Several roots would widen it
 * (it would match under each), so then it stays absolute. NULL: keep
 * the pattern as it is.
 */
static const char *below_root(const struct fp_suggester *s,
			      const struct cand *c, const char *pat,
			      size_t *len)
{
	const struct fp_bytes *r = s->roots.v, *first = r;
	struct buf b = { 0 };
	size_t i;
	const char *out = NULL;

	if (!s->relative || !s->roots.n ||
	    (c->target != FP_T_PATH && c->target != FP_T_READ))
		return NULL;
	for (i = 1; i < s->roots.n; i++)
		if (fp_bytes_cmp(r[i].data, r[i].len, first->data, first->len))
			return NULL;
	if (first->len < 2 || first->data[0] != '/')
		return NULL;
	/* a glob's root part is escaped as the matcher wants it */
	if (c->literal)
		put(&b, first->data, first->len);
	else
		put_escaped(&b, first->data, first->len, specials(c->target));
	put(&b, "/", 1);
	if (!b.err && *len > b.len && !memcmp(pat, b.p, b.len)) {
		out = pat + b.len;
		*len -= b.len;
	}
	free(b.p);
	return out;
}

static char *line_of(const struct fp_suggester *s, const struct cand *c)
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
	const char *p = lit ? c->lit : c->pat, *rel = below_root(s, c, p, &n);

	q = fp_policy_quote_dup(rel ? rel : p, n, lit);
	if (q && (line = malloc(strlen(word) + strlen(q) + 7)))
		sprintf(line, "allow %s%s", word, q);
	free(q);
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
		ret = subsume(s, s->nruns);
	if (ret)
		return ret;
	sorted = malloc((s->cands.n + 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < s->cands.n; i++)
		if (!((struct cand *)s->cands.v)[i].gone)
			sorted[n++] = &((struct cand *)s->cands.v)[i];
	qsort(sorted, n, sizeof(*sorted), by_count);
	for (i = 0; i < n && !ret; i++) {
		struct fp_sugg *g = fp_vec_push(out, sizeof(*g));

		if (!g || !(g->line = line_of(s, sorted[i]))) {
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
		free(((struct fp_sugg *)v->v)[i].line);
		free(((struct fp_sugg *)v->v)[i].runs);
	}
	free(v->v);
	memset(v, 0, sizeof(*v));
}
