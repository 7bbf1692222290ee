// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_diff_int.h"

const char *const fp_shape_field_names[FP_SF_N] = {
	"cap_eff",    "no_new_privs", "sockets", "mounts",  "seccomp",
	"namespaces", "unit",	      "exe",	 "process",
};

static bool rule_fits(const struct fp_shape_rule *r,
		      const struct fp_shape_drift *x)
{
	static const char *const kind[FP_SF_N] = {
		"cap",	     "no_new_privs", "listen", "mount",	  "seccomp",
		"namespace", "property",     "exe",    "process",
	};

	if (strcmp(r->kind, kind[x->field]))
		return false;
	if (r->arg[0] && strcmp(r->arg, x->subject))
		return false;
	/* a rule for a mount allows it read-only unless it says rw */
	return x->field != FP_SF_MOUNTS || r->rw ||
	       (strcmp(x->change, "added rw") &&
		strcmp(x->change, "made writable"));
}

int fp_shape_drift(struct fp_shape_diff *d, const struct fp_shape_policy *pol,
		   enum fp_shape_field f, const char *change,
		   const char *subject, const char *before, const char *after)
{
	struct fp_shape_drift *x;
	size_t i;

	d->changed[f] = true;
	if (d->n == FP_SHAPE_DRIFT_MAX) {
		d->truncated = true;
		return 0;
	}
	x = &d->drift[d->n];
	memset(x, 0, sizeof(*x));
	x->field = f;
	x->rule = -1;
	x->change = strdup(change);
	x->subject = strdup(subject ? subject : "");
	x->before = before ? strdup(before) : NULL;
	x->after = after ? strdup(after) : NULL;
	d->n++;
	if (!x->change || !x->subject || (before && !x->before) ||
	    (after && !x->after))
		return -1;
	for (i = 0; pol && i < pol->n; i++)
		if (rule_fits(&pol->rules[i], x)) {
			x->rule = i;
			break;
		}
	return 0;
}

const struct fp_jv *fp_shape_main_proc(const struct fp_jv *shape)
{
	const struct fp_jv *ps = fp_jv_get(shape, "processes");
	size_t i;

	for (i = 0; ps && ps->type == FP_JV_ARR && i < ps->n; i++)
		if (fp_jv_bool(&ps->items[i], "main") == 1)
			return &ps->items[i];
	return NULL;
}

/* a string set: sorted and without duplicates */
struct set {
	const char **v;
	size_t n;
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int set_add_array(struct set *s, const struct fp_jv *arr)
{
	const char **nv;
	size_t i;

	if (!arr || arr->type != FP_JV_ARR)
		return 0;
	nv = realloc(s->v, (s->n + arr->n + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	s->v = nv;
	for (i = 0; i < arr->n; i++)
		if (arr->items[i].type == FP_JV_STR)
			s->v[s->n++] = arr->items[i].s;
	return 0;
}

static void set_sort(struct set *s)
{
	size_t i, k = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), str_cmp);
	for (i = 1; i < s->n; i++)
		if (strcmp(s->v[i], s->v[k]))
			s->v[++k] = s->v[i];
	s->n = k + 1;
}

/* what is in a but not in b, each reported as change */
static int set_minus(struct fp_shape_diff *d, const struct fp_shape_policy *pol,
		     enum fp_shape_field f, const struct set *a,
		     const struct set *b, const char *change)
{
	size_t i, k = 0;
	int c;

	for (i = 0; i < a->n; i++) {
		while (k < b->n && (c = strcmp(b->v[k], a->v[i])) < 0)
			k++;
		if (k < b->n && !strcmp(b->v[k], a->v[i]))
			continue;
		if (fp_shape_drift(d, pol, f, change, a->v[i], NULL, NULL))
			return -1;
	}
	return 0;
}

static int sets(struct fp_shape_diff *d, const struct fp_shape_policy *pol,
		enum fp_shape_field f, struct set *b, struct set *a,
		const char *gained, const char *lost)
{
	int ret;

	set_sort(b);
	set_sort(a);
	ret = set_minus(d, pol, f, a, b, gained);
	if (!ret)
		ret = set_minus(d, pol, f, b, a, lost);
	free(b->v);
	free(a->v);
	return ret;
}

static int caps(struct fp_shape_diff *d, const struct fp_shape_policy *pol,
		const struct fp_jv *pb, const struct fp_jv *pa)
{
	struct set b = { 0 }, a = { 0 };

	if (set_add_array(&b, fp_jv_get(pb, "cap_eff")) ||
	    set_add_array(&a, fp_jv_get(pa, "cap_eff"))) {
		free(b.v);
		free(a.v);
		return -1;
	}
	return sets(d, pol, FP_SF_CAP_EFF, &b, &a, "gained", "lost");
}

/* listeners of every process of the shape, not only the main one */
static int listeners(struct fp_shape_diff *d, const struct fp_shape_policy *pol,
		     const struct fp_jv *sb, const struct fp_jv *sa)
{
	const struct fp_jv *ps;
	struct set s[2] = { { 0 } };
	size_t i;
	int k;

	for (k = 0; k < 2; k++) {
		ps = fp_jv_get(k ? sa : sb, "processes");
		for (i = 0; ps && ps->type == FP_JV_ARR && i < ps->n; i++)
			if (set_add_array(&s[k], fp_jv_get(&ps->items[i],
							   "listeners"))) {
				free(s[0].v);
				free(s[1].v);
				return -1;
			}
	}
	return sets(d, pol, FP_SF_SOCKETS, &s[0], &s[1], "added", "removed");
}

void fp_shape_diff_free(struct fp_shape_diff *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->drift[i].change);
		free(d->drift[i].subject);
		free(d->drift[i].before);
		free(d->drift[i].after);
	}
	free(d->drift);
	memset(d, 0, sizeof(*d));
}

static int check_shape(const struct fp_jv *s, const char *which, char *err,
		       size_t errlen)
{
	if (fp_jv_int(s, "footprint_shape", 0) == 1 &&
	    fp_jv_get(s, "processes"))
		return 0;
	snprintf(
		err, errlen,
		"%s is not a footprint shape (version 1); make it with `footprint shape`",
		which);
	return -1;
}

int fp_shape_diff(const struct fp_jv *before, const struct fp_jv *after,
		  const struct fp_shape_policy *pol, struct fp_shape_diff *d,
		  char *err, size_t errlen)
{
	const struct fp_jv *pb, *pa;
	size_t i;
	int ret;

	memset(d, 0, sizeof(*d));
	if (check_shape(before, "BEFORE", err, errlen) ||
	    check_shape(after, "AFTER", err, errlen))
		return -1;
	d->drift = calloc(FP_SHAPE_DRIFT_MAX, sizeof(*d->drift));
	if (!d->drift)
		goto oom;
	d->complete = fp_jv_bool(before, "complete") == 1 &&
		      fp_jv_bool(after, "complete") == 1;
	pb = fp_shape_main_proc(before);
	pa = fp_shape_main_proc(after);
	/* neither has one: nothing to compare ("complete" says if it should) */
	if (!pb != !pa)
		ret = fp_shape_drift(d, pol, FP_SF_PROCESS,
				     pb ? "gone" : "appeared", "main process",
				     NULL, NULL);
	else if (!pb)
		ret = 0;
	else
		ret = caps(d, pol, pb, pa)			    ?:
			      fp_shape_diff_scalars(d, pol, pb, pa) ?:
			      fp_shape_diff_mounts(d, pol, pb, pa);
	ret = ret				       ?:
		      listeners(d, pol, before, after) ?:
		      fp_shape_diff_unit(d, pol, before, after);
	if (ret)
		goto oom;
	d->ok = d->complete && !d->truncated;
	for (i = 0; i < d->n; i++)
		if (d->drift[i].rule < 0)
			d->ok = false;
	return 0;
oom:
	fp_shape_diff_free(d);
	snprintf(err, errlen, "out of memory");
	return -1;
}
