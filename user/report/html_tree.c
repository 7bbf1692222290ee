// SPDX-License-Identifier: GPL-2.0
/*
 * The process table as a forest. A parent is taken only when it comes
 * earlier in the table (a parent appears before the processes it forks),
 * so a hostile table cannot make a cycle; a process of another step
 * than its parent starts a tree of its own in its step's lane.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "html_tree.h"

static int64_t lane_of(const struct fp_html *h, const struct fp_jv *p)
{
	const struct fp_jv *steps = fp_jv_get(h->r, "steps");
	int64_t step = fp_jv_int(p, "step", -1);
	size_t i;

	if (step < 0 || !steps || steps->type != FP_JV_ARR)
		return -1;
	for (i = 0; i < steps->n && i < FP_HTML_LANES; i++)
		if (fp_jv_int(&steps->items[i], "index", -2) == step)
			return step;
	return -1;
}

static void times(struct fp_html_tree *t, const struct fp_jv *p)
{
	int64_t s = fp_jv_int(p, "start_us", 0), e = fp_jv_int(p, "end_us", 0);

	if (s > t->span_us)
		t->span_us = s;
	if (e > t->span_us)
		t->span_us = e;
}

static void links(struct fp_html_tree *t, const struct fp_html *h)
{
	const struct fp_jv *p;
	size_t i;
	int64_t par;

	for (i = 0; i < t->n; i++) {
		p = &h->procs->items[i];
		t->lane[i] = lane_of(h, p);
		par = fp_jv_int(p, "parent", -1);
		t->parent[i] = par >= 0 && (uint64_t)par < i &&
					       t->lane[par] == t->lane[i] ?
				       (long)par :
				       -1;
		times(t, p);
	}
}

/* children in table order, and each subtree's size and worst finding */
static void children(struct fp_html_tree *t, const struct fp_html *h,
		     size_t *at)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->parent[i] >= 0)
			t->first[t->parent[i] + 1]++;
	for (i = 1; i <= t->n; i++)
		t->first[i] += t->first[i - 1];
	for (i = 0; i < t->n; i++)
		at[i] = t->first[i];
	for (i = 0; i < t->n; i++)
		if (t->parent[i] >= 0)
			t->kids[at[t->parent[i]]++] = i;
	/* a child comes after its parent: one backward pass sums up */
	for (i = t->n; i-- > 0;) {
		t->sub_n[i]++;
		if (t->sub_sev[i] < h->proc_sev[i])
			t->sub_sev[i] = h->proc_sev[i];
		if (t->parent[i] < 0)
			continue;
		t->sub_n[t->parent[i]] += t->sub_n[i];
		if (t->sub_sev[t->parent[i]] < t->sub_sev[i])
			t->sub_sev[t->parent[i]] = t->sub_sev[i];
	}
}

int fp_html_tree_build(struct fp_html_tree *t, const struct fp_html *h)
{
	const struct fp_jv *cmd = fp_jv_get(h->r, "command");
	size_t *at;

	*t = (struct fp_html_tree){ .n = h->nprocs };
	t->parent = calloc(t->n + 1, sizeof(*t->parent));
	t->first = calloc(t->n + 2, sizeof(*t->first));
	t->kids = calloc(t->n + 1, sizeof(*t->kids));
	t->sub_sev = calloc(t->n + 1, sizeof(*t->sub_sev));
	t->sub_n = calloc(t->n + 1, sizeof(*t->sub_n));
	t->lane = calloc(t->n + 1, sizeof(*t->lane));
	if (!t->parent || !t->first || !t->kids || !t->sub_sev || !t->sub_n ||
	    !t->lane) {
		fp_html_tree_free(t);
		return -ENOMEM;
	}
	at = calloc(t->n + 1, sizeof(*at));
	if (!at) {
		fp_html_tree_free(t);
		return -ENOMEM;
	}
	t->span_us = fp_jv_int(cmd, "duration_ms", 0);
	t->span_us = t->span_us > 0 && t->span_us < INT64_MAX / 1000 ?
			     t->span_us * 1000 :
			     0;
	links(t, h);
	children(t, h, at);
	free(at);
	if (t->span_us <= 0)
		t->span_us = 1;
	return 0;
}

void fp_html_tree_free(struct fp_html_tree *t)
{
	free(t->parent);
	free(t->first);
	free(t->kids);
	free(t->sub_sev);
	free(t->sub_n);
	free(t->lane);
}
