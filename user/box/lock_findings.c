// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lock_findings.h"
#include "lockjv.h"
#include "say_bytes.h"
#include "snapshot_fs.h"

/* bytes of one path or command in a name */
#define NAME_BYTES 200

static bool one_of(const char *s, const char *const *v)
{
	for (; s && *v; v++)
		if (!strcmp(s, *v))
			return true;
	return false;
}

/*
 * Whether finding x of group.list fails the verdict, as the judge
 * decided it (user/core/judge*.c). A finding that says so ("failing") is
 * taken at its word; the lists whose findings do not say are judged as
 * the judge does; an unknown list fails on "allowed": false.
 */
static bool failing(const char *group, const char *list, const struct fp_jv *x)
{
	static const char *const reported[] = { "executed", "short_lived",
						"new_outside", "disappeared",
						NULL };
	static const char *const unresolved[] = { "cut", "magic_link", NULL };
	static const char *const net[] = { "bound", "listening", NULL };
	int f = fp_jv_bool(x, "failing"), allowed = fp_jv_bool(x, "allowed");
	bool forbidden = fp_jv_bool(x, "forbidden") == 1;

	if (f >= 0)
		return f;
	if (!strcmp(group, "tamper"))
		return true;
	if (!strcmp(group, "files") && one_of(list, unresolved))
		return true;
	if (!strcmp(group, "processes") && one_of(list, reported))
		return forbidden;
	/* a listener of a process that is not the run's is reported only */
	if (!strcmp(group, "network") && one_of(list, net))
		return forbidden ||
		       (!allowed && fp_jv_bool(x, "owner_outside_run") != 1);
	return allowed == 0;
}

/* a file finding under a root of the box, of a list of its changes: the
 * path, or NULL; *added when the run made it */
static char *box_path(const struct fp_jv *layers, const char *list,
		      const struct fp_jv *x, size_t *len, bool *added)
{
	static const char *const changes[] = { "added",	      "removed",
					       "changed",     "transient",
					       "unexplained", "unreadable",
					       NULL };
	const char *was = fp_jv_str(x, "finding");
	char *p;
	size_t i;

	if (!one_of(list, changes) || fp_lockjv_bytes(x, "path", &p, len))
		return NULL;
	*added = !strcmp(list, "added") ||
		 (!strcmp(list, "unexplained") && was && !strcmp(was, "added"));
	for (i = 0; layers && layers->type == FP_JV_ARR && i < layers->n; i++) {
		const char *root = fp_jv_str(&layers->items[i], "root");

		if (root && *root == '/' &&
		    fp_path_under(p, *len, root, strlen(root)))
			return p;
	}
	free(p);
	return NULL;
}

static void name_finding(struct fp_sbuf *b, const char *group, const char *list,
			 const struct fp_jv *x)
{
	static const char *const subjects[] = { "path", "address", "name",
						"exe",	"kind",	   NULL };
	const struct fp_jv *by = fp_jv_get(x, "by");
	int64_t pid = fp_jv_int(x, "pid", fp_jv_int(by, "pid", 0));
	const char *const *k;
	char *s = NULL;
	size_t n;

	fp_sbuf_printf(b, "%s%s%s%s", b->len ? "; " : "", group,
		       list ? "." : "", list ? list : "");
	for (k = subjects; *k && fp_lockjv_bytes(x, *k, &s, &n); k++)
		;
	if (s) {
		const char *proto = fp_jv_str(x, "protocol");
		bool addr = !strcmp(*k, "address"), port = fp_jv_get(x, "port");
		bool v6 = addr && port && memchr(s, ':', n);

		fp_sbuf_str(b, ": ");
		if (addr && proto)
			fp_sbuf_printf(b, "%s/", fp_said(proto));
		fp_sbuf_str(b, v6 ? "[" : "");
		fp_sbuf_say(b, s, n > NAME_BYTES ? NAME_BYTES : n);
		if (n > NAME_BYTES)
			fp_sbuf_str(b, "...");
		if (addr && port)
			fp_sbuf_printf(b, "%s:%lld", v6 ? "]" : "",
				       (long long)fp_jv_int(x, "port", 0));
	}
	if (pid > 0)
		fp_sbuf_printf(b, " by pid %lld", (long long)pid);
	free(s);
}

static int push_aside(struct fp_lock_walk *w, char *p, size_t len, bool added)
{
	if (w->naside == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		void *v = realloc(w->aside, cap * sizeof(*w->aside));

		if (!v)
			return -ENOMEM;
		w->aside = v;
		w->cap = cap;
	}
	w->aside[w->naside++] = (struct fp_lock_aside){ p, len, added };
	return 0;
}

static int one(struct fp_lock_walk *w, const struct fp_jv *layers,
	       const char *group, const char *list, const struct fp_jv *x)
{
	bool added = false;
	size_t len;
	char *p;
	int e;

	if (x->type != FP_JV_OBJ || !failing(group, list, x))
		return 0;
	p = !strcmp(group, "files") ? box_path(layers, list, x, &len, &added) :
				      NULL;
	if (p) {
		e = push_aside(w, p, len, added);
		if (e)
			free(p);
		return e;
	}
	if (w->nreal++ < FP_LOCK_NAMED)
		name_finding(&w->named, group, list, x);
	return w->named.err ? -ENOMEM : 0;
}

/* the lists of one group ("files": {"added": [...], ...}) */
static int group_lists(struct fp_lock_walk *w, const struct fp_jv *layers,
		       const char *group, const struct fp_jv *g)
{
	size_t l, i;
	int e = 0;

	for (l = 0; !e && l < g->n; l++) {
		const struct fp_jv *v = &g->items[l];

		for (i = 0; !e && v->type == FP_JV_ARR && i < v->n; i++)
			e = one(w, layers, group, g->keys[l], &v->items[i]);
	}
	return e;
}

static int cmp_aside(const void *a, const void *b)
{
	const struct fp_lock_aside *x = a, *y = b;

	return fp_bytes_cmp(x->p, x->len, y->p, y->len);
}

int fp_lock_walk(const struct fp_jv *r, struct fp_lock_walk *w)
{
	static const char *const not_findings[] = { "command", "trace",
						    "scratch", NULL };
	const struct fp_jv *layers =
		fp_jv_get(fp_jv_get(r, "scratch"), "layers");
	const struct fp_jv *t = fp_jv_get(r, "tamper");
	size_t k;
	int e = 0;

	memset(w, 0, sizeof(*w));
	for (k = 0; !e && r->type == FP_JV_OBJ && k < r->n; k++)
		if (r->items[k].type == FP_JV_OBJ &&
		    !one_of(r->keys[k], not_findings))
			e = group_lists(w, layers, r->keys[k], &r->items[k]);
	for (k = 0; !e && t && t->type == FP_JV_ARR && k < t->n; k++)
		e = one(w, layers, "tamper", NULL, &t->items[k]);
	if (e) {
		fp_lock_walk_free(w);
		return e;
	}
	if (w->naside)
		qsort(w->aside, w->naside, sizeof(*w->aside), cmp_aside);
	return 0;
}

void fp_lock_walk_free(struct fp_lock_walk *w)
{
	size_t i;

	for (i = 0; i < w->naside; i++)
		free(w->aside[i].p);
	free(w->aside);
	fp_sbuf_free(&w->named);
	memset(w, 0, sizeof(*w));
}

/* the first entry not below (p, len), or naside */
static size_t lower_bound(const struct fp_lock_walk *w, const char *p,
			  size_t len)
{
	size_t lo = 0, hi = w->naside;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fp_bytes_cmp(w->aside[mid].p, w->aside[mid].len, p, len) <
		    0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct fp_lock_aside *find(const struct fp_lock_walk *w,
					const char *p, size_t len)
{
	size_t i = lower_bound(w, p, len);

	return i < w->naside && w->aside[i].len == len &&
			       !memcmp(w->aside[i].p, p, len) ?
		       &w->aside[i] :
		       NULL;
}

bool fp_lock_is_aside(const struct fp_lock_walk *w, const char *p, size_t len)
{
	return find(w, p, len) != NULL;
}

bool fp_lock_in_aside_dir(const struct fp_lock_walk *w, const char *p,
			  size_t len)
{
	const struct fp_lock_aside *a;

	while (len > 1) {
		while (len && p[len - 1] != '/')
			len--;
		if (len > 1)
			len--; /* the parent, without its slash */
		a = len > 1 ? find(w, p, len) : NULL;
		if (a && a->added)
			return true;
	}
	return false;
}

bool fp_lock_aside_under(const struct fp_lock_walk *w, const char *p,
			 size_t len)
{
	char *key = malloc(len + 2);
	size_t i;
	bool under;

	if (!key)
		return true; /* cannot tell: keep it out */
	memcpy(key, p, len);
	key[len] = '/';
	i = lower_bound(w, key, len + 1);
	under = i < w->naside && w->aside[i].len > len + 1 &&
		!memcmp(w->aside[i].p, key, len + 1);
	free(key);
	return under;
}
