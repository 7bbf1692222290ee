// SPDX-License-Identifier: GPL-2.0
/*
 * The receipt's failing findings, in one array most severe first, and
 * the worst of them by process (the colour of its bar in the timeline).
 * Whether an entry fails follows the schema (docs/receipt.schema.json),
 * as `fleet` reads receipts: its "failing" when it says, else by list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "html_int.h"

static bool is(const char *list, const char *name)
{
	return !strcmp(list, name);
}

bool fp_html_failing(const char *list, const struct fp_jv *e)
{
	int b = fp_jv_bool(e, "failing");
	bool allowed = fp_jv_bool(e, "allowed") == 1;
	bool forbidden = fp_jv_get(e, "forbidden") &&
			 fp_jv_get(e, "forbidden")->type != FP_JV_NULL &&
			 fp_jv_bool(e, "forbidden") != 0;

	if (b >= 0)
		return b;
	if (is(list, "tamper") || is(list, "files.cut") ||
	    is(list, "files.magic_link"))
		return true;
	if (!strncmp(list, "files.", 6) || is(list, "processes.leftover") ||
	    is(list, "processes.privileged"))
		return !allowed;
	if (is(list, "network.bound") || is(list, "network.listening"))
		return forbidden ||
		       (!allowed && fp_jv_bool(e, "owner_outside_run") != 1);
	return forbidden;
}

enum fp_severity fp_html_sev(const char *list, const struct fp_jv *e)
{
	const struct fp_jv *s = fp_jv_get(e, "severity");
	enum fp_severity sev;

	if (s && s->type == FP_JV_STR && !fp_severity_parse(s->s, s->len, &sev))
		return sev;
	return fp_severity_of(list);
}

const struct fp_jv *fp_html_actor(const char *list, const struct fp_jv *e)
{
	static const char *const keys[] = { "by", "created_by", "asked_by",
					    "removed_by", "owner" };
	const struct fp_jv *a;
	size_t i;

	(void)list;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		a = fp_jv_get(e, keys[i]);
		if (a && a->type == FP_JV_OBJ)
			return a;
	}
	return fp_jv_get(e, "pid") && fp_jv_get(e, "exe") ? e : NULL;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct fp_html_pid *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

long fp_html_proc_of(const struct fp_html *h, const struct fp_jv *actor)
{
	const struct fp_jv *proc = fp_jv_get(actor, "proc");
	int64_t id = fp_jv_as_int(proc, -1), pid;
	size_t lo = 0, hi = h->nprocs, mid;

	if (!actor || !h->nprocs)
		return -1;
	/* the receipt says which row, or that none is the process */
	if (proc)
		return id >= 0 && (uint64_t)id < h->nprocs ? (long)id : -1;
	pid = fp_jv_int(actor, "pid", -1);
	/* the last process of that pid: a reused pid is the later one */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (h->by_pid[mid].pid <= pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && h->by_pid[lo - 1].pid == pid ? (long)h->by_pid[lo - 1].id :
						    -1;
}

static int add(struct fp_html *h, size_t *cap, const char *list,
	       const struct fp_jv *e)
{
	struct fp_html_finding *n;
	long id;

	if (e->type != FP_JV_OBJ || !fp_html_failing(list, e))
		return 0;
	if (h->nfind == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		n = realloc(h->find, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		h->find = n;
	}
	n = &h->find[h->nfind];
	*n = (struct fp_html_finding){ list, e, fp_html_actor(list, e),
				       fp_html_sev(list, e), h->nfind };
	h->nfind++;
	h->by_sev[n->sev]++;
	id = fp_html_proc_of(h, n->by);
	if (id >= 0) {
		if (h->proc_sev[id] < n->sev)
			h->proc_sev[id] = n->sev;
		h->proc_nfind[id]++;
	}
	return 0;
}

static int cmp_find(const void *a, const void *b)
{
	const struct fp_html_finding *x = a, *y = b;

	if (x->sev != y->sev)
		return x->sev > y->sev ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* "files.KEY" for each array KEY of the receipt's object group */
static int add_group(struct fp_html *h, size_t *cap, const char *group)
{
	char(*names)[48] = h->lists;
	size_t *nnames = &h->nlists;
	const struct fp_jv *g = fp_jv_get(h->r, group), *a;
	size_t i, j;

	if (!g || g->type != FP_JV_OBJ)
		return 0;
	for (i = 0; i < g->n && *nnames < 64; i++) {
		a = &g->items[i];
		if (a->type != FP_JV_ARR ||
		    snprintf(names[*nnames], 48, "%s.%s", group, g->keys[i]) >=
			    48)
			continue;
		for (j = 0; j < a->n; j++)
			if (add(h, cap, names[*nnames], &a->items[j]))
				return -ENOMEM;
		(*nnames)++;
	}
	return 0;
}

int fp_html_findings(struct fp_html *h)
{
	const struct fp_jv *t = fp_jv_get(h->r, "tamper");
	size_t cap = 0, i;

	h->by_pid = calloc(h->nprocs + 1, sizeof(*h->by_pid));
	h->proc_sev = calloc(h->nprocs + 1, 1);
	h->proc_nfind = calloc(h->nprocs + 1, sizeof(*h->proc_nfind));
	if (!h->by_pid || !h->proc_sev || !h->proc_nfind)
		return -ENOMEM;
	for (i = 0; i < h->nprocs; i++)
		h->by_pid[i] = (struct fp_html_pid){
			fp_jv_int(&h->procs->items[i], "pid", -1), i
		};
	qsort(h->by_pid, h->nprocs, sizeof(*h->by_pid), cmp_pid);
	if (add_group(h, &cap, "files") || add_group(h, &cap, "processes") ||
	    add_group(h, &cap, "network"))
		return -ENOMEM;
	for (i = 0; t && t->type == FP_JV_ARR && i < t->n; i++)
		if (add(h, &cap, "tamper", &t->items[i]))
			return -ENOMEM;
	if (h->nfind)
		qsort(h->find, h->nfind, sizeof(*h->find), cmp_find);
	return 0;
}
