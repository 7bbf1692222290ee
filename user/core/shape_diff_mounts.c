// SPDX-License-Identifier: GPL-2.0
/*
 * Mounts are matched by mount point, source and fs type. The root inside
 * the source is left out: PrivateTmp's differs with every start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_diff_int.h"

struct mnt {
	const char *point, *source, *fstype;
	int rw;
};

/* a name that was not UTF-8 compares by its exact bytes, in base64 */
static const char *field(const struct fp_jv *m, const char *key)
{
	char b64[64];
	const char *s;

	snprintf(b64, sizeof(b64), "%s_b64", key);
	s = fp_jv_str(m, b64);
	if (!s)
		s = fp_jv_str(m, key);
	return s ? s : "";
}

static int mnt_cmp(const void *x, const void *y)
{
	const struct mnt *a = x, *b = y;
	int c = strcmp(a->point, b->point);

	if (!c)
		c = strcmp(a->source, b->source);
	return c ? c : strcmp(a->fstype, b->fstype);
}

static struct mnt *collect(const struct fp_jv *p, size_t *n)
{
	const struct fp_jv *ms = fp_jv_get(p, "mounts");
	struct mnt *v;
	size_t i;

	*n = 0;
	if (!ms || ms->type != FP_JV_ARR)
		return calloc(1, sizeof(*v));
	v = calloc(ms->n + 1, sizeof(*v));
	for (i = 0; v && i < ms->n; i++) {
		v[*n].point = field(&ms->items[i], "mount_point");
		v[*n].source = field(&ms->items[i], "source");
		v[*n].fstype = field(&ms->items[i], "fstype");
		v[*n].rw = fp_jv_bool(&ms->items[i], "rw") == 1;
		(*n)++;
	}
	if (v)
		qsort(v, *n, sizeof(*v), mnt_cmp);
	return v;
}

static int one(struct fp_shape_diff *d, const struct fp_shape_policy *pol,
	       const struct mnt *b, const struct mnt *a)
{
	char what[32];
	const struct mnt *m = b ? b : a;

	if (b && a) {
		if (b->rw == a->rw)
			return 0;
		return fp_shape_drift(d, pol, FP_SF_MOUNTS,
				      a->rw ? "made writable" :
					      "made read-only",
				      m->point, NULL, NULL);
	}
	snprintf(what, sizeof(what), "%s %s", b ? "removed" : "added",
		 m->rw ? "rw" : "ro");
	return fp_shape_drift(d, pol, FP_SF_MOUNTS, what, m->point, NULL, NULL);
}

/* a merge of the two sorted tables; stacked duplicates pair in order */
int fp_shape_diff_mounts(struct fp_shape_diff *d,
			 const struct fp_shape_policy *pol,
			 const struct fp_jv *pb, const struct fp_jv *pa)
{
	size_t nb, na, i = 0, k = 0;
	struct mnt *b = collect(pb, &nb), *a = collect(pa, &na);
	int c, ret = b && a ? 0 : -1;

	while (!ret && (i < nb || k < na)) {
		c = i == nb ? 1 : k == na ? -1 : mnt_cmp(&b[i], &a[k]);
		if (c < 0)
			ret = one(d, pol, &b[i++], NULL);
		else if (c > 0)
			ret = one(d, pol, NULL, &a[k++]);
		else
			ret = one(d, pol, &b[i++], &a[k++]);
	}
	free(b);
	free(a);
	return ret;
}
