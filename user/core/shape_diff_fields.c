// SPDX-License-Identifier: GPL-2.0
/* The single-valued parts of a shape: compared as their JSON text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_diff_int.h"

/* a value's canonical text, whole: enough to compare and to show */
static void text(FILE *f, const struct fp_jv *v)
{
	size_t i;

	if (!v)
		fputs("absent", f);
	else if (v->type == FP_JV_BOOL)
		fputs(v->b ? "true" : "false", f);
	else if (v->type == FP_JV_NULL)
		fputs("null", f);
	else if (v->type == FP_JV_STR || v->type == FP_JV_NUM)
		fwrite(v->s, 1, v->len, f);
	else
		for (i = 0; i < v->n; i++) {
			if (v->keys)
				fprintf(f, "%s%s=", i ? " " : "", v->keys[i]);
			else if (i)
				fputc(',', f);
			text(f, &v->items[i]);
		}
}

static char *text_of(const struct fp_jv *v)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	text(f, v);
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

static int compare(struct fp_shape_diff *d, const struct fp_shape_policy *pol,
		   enum fp_shape_field f, const char *subject,
		   const struct fp_jv *b, const struct fp_jv *a)
{
	char *tb = text_of(b), *ta = text_of(a);
	int ret = tb && ta ? 0 : -1;

	if (!ret && strcmp(tb, ta))
		ret = fp_shape_drift(d, pol, f, "changed", subject, tb, ta);
	free(tb);
	free(ta);
	return ret;
}

/* whether each namespace differs from PID 1's, not its id: ids are new
 * with every start of a sandboxed service */
static int namespaces(struct fp_shape_diff *d,
		      const struct fp_shape_policy *pol, const struct fp_jv *pb,
		      const struct fp_jv *pa)
{
	static const char *const ns[] = { "cgroup", "ipc",  "mnt",  "net",
					  "pid",    "time", "user", "uts" };
	const struct fp_jv *nb = fp_jv_get(pb, "namespaces");
	const struct fp_jv *na = fp_jv_get(pa, "namespaces");
	size_t i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (compare(d, pol, FP_SF_NAMESPACES, ns[i],
			    fp_jv_get(fp_jv_get(nb, ns[i]),
				      "differs_from_init"),
			    fp_jv_get(fp_jv_get(na, ns[i]),
				      "differs_from_init")))
			return -1;
	return 0;
}

int fp_shape_diff_scalars(struct fp_shape_diff *d,
			  const struct fp_shape_policy *pol,
			  const struct fp_jv *pb, const struct fp_jv *pa)
{
	static const struct {
		enum fp_shape_field f;
		const char *key;
	} keys[] = {
		{ FP_SF_NO_NEW_PRIVS, "no_new_privs" },
		{ FP_SF_SECCOMP, "seccomp" },
		{ FP_SF_EXE, "exe" },
		{ FP_SF_EXE, "exe_sha256" },
		{ FP_SF_PROCESS, "uids" },
		{ FP_SF_PROCESS, "gids" },
		{ FP_SF_PROCESS, "argv" },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (compare(d, pol, keys[i].f, keys[i].key,
			    fp_jv_get(pb, keys[i].key),
			    fp_jv_get(pa, keys[i].key)))
			return -1;
	return namespaces(d, pol, pb, pa);
}

/* every property either shape has, key by key */
int fp_shape_diff_unit(struct fp_shape_diff *d,
		       const struct fp_shape_policy *pol,
		       const struct fp_jv *sb, const struct fp_jv *sa)
{
	const struct fp_jv *b = fp_jv_get(fp_jv_get(sb, "unit"), "properties");
	const struct fp_jv *a = fp_jv_get(fp_jv_get(sa, "unit"), "properties");
	size_t i;

	for (i = 0; b && b->type == FP_JV_OBJ && i < b->n; i++)
		if (compare(d, pol, FP_SF_UNIT, b->keys[i], &b->items[i],
			    fp_jv_get(a, b->keys[i])))
			return -1;
	for (i = 0; a && a->type == FP_JV_OBJ && i < a->n; i++)
		if (!fp_jv_get(b, a->keys[i]) &&
		    compare(d, pol, FP_SF_UNIT, a->keys[i], NULL, &a->items[i]))
			return -1;
	return 0;
}
