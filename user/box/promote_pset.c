// SPDX-License-Identifier: GPL-2.0
/*
 * The change sets of promote, and their bound. The scratch set grows with
 * what the traced command wrote, so it is bounded in bytes, not only in
 * entries: a million long paths and symlink targets would otherwise be
 * gigabytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "promote.h"
#include "say_bytes.h"

/* bytes held by every set of this process, as malloc spends them */
static size_t held;

/* a glibc chunk: the string, its size word, 16-byte aligned, 32 at least */
static size_t str_cost(const char *s)
{
	size_t n = s ? (strlen(s) + 1 + 8 + 15) & ~(size_t)15 : 0;

	return s && n < 32 ? 32 : n;
}

static size_t change_cost(const struct fp_pchange *c)
{
	return str_cost(c->rel) + str_cost(c->now.target) +
	       str_cost(c->before.target);
}

void fp_pstate_free(struct fp_pstate *st)
{
	free(st->target);
	st->target = NULL;
}

static int grow(struct fp_pset *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	size_t more = (cap - s->cap) * sizeof(*s->v);
	void *p;

	if (held + more > FP_PSET_MAX_BYTES)
		return -E2BIG;
	p = realloc(s->v, cap * sizeof(*s->v));
	if (!p)
		return -ENOMEM;
	s->v = p;
	s->cap = cap;
	held += more;
	return 0;
}

static int copy_target(struct fp_pstate *to, const struct fp_pstate *from)
{
	*to = *from;
	to->target = from->target ? strdup(from->target) : NULL;
	return from->target && !to->target ? -ENOMEM : 0;
}

int fp_pset_add(struct fp_pset *s, const char *rel, int op,
		const struct fp_pstate *now, const struct fp_pstate *before)
{
	struct fp_pchange *c;
	size_t cost;
	int e;

	if (s->n == FP_PSET_MAX_ENTRIES)
		return -E2BIG;
	if (s->n == s->cap && (e = grow(s)))
		return e;
	cost = str_cost(rel) + (now ? str_cost(now->target) : 0) +
	       (before ? str_cost(before->target) : 0);
	if (held + cost > FP_PSET_MAX_BYTES)
		return -E2BIG;
	c = &s->v[s->n];
	memset(c, 0, sizeof(*c));
	c->rel = strdup(rel);
	e = c->rel ? 0 : -ENOMEM;
	if (!e && now)
		e = copy_target(&c->now, now);
	if (!e && before)
		e = copy_target(&c->before, before);
	if (e) {
		free(c->rel);
		fp_pstate_free(&c->now);
		fp_pstate_free(&c->before);
		return e;
	}
	c->op = op;
	held += cost;
	s->n++;
	return 0;
}

void fp_pset_free(struct fp_pset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		held -= change_cost(&s->v[i]);
		free(s->v[i].rel);
		fp_pstate_free(&s->v[i].now);
		fp_pstate_free(&s->v[i].before);
	}
	held -= s->cap * sizeof(*s->v);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

size_t fp_pset_held(void)
{
	return held;
}

void fp_pset_say(int e, const char *what, const char *root)
{
	if (e == -E2BIG)
		fprintf(stderr,
			"footprint: promote: %s of %s hold more changes than promote keeps (%u, or %zu MiB in all); promote a smaller job\n",
			what, fp_said(root), FP_PSET_MAX_ENTRIES,
			FP_PSET_MAX_BYTES >> 20);
	else
		fprintf(stderr, "footprint: promote: %s of %s: %s\n", what,
			fp_said(root), strerror(-e));
}
