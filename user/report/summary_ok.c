// SPDX-License-Identifier: GPL-2.0
/*
 * What a passing run saw, in one line after "footprint: ok":
 *
 *   footprint: ok: 746 files added under node_modules/ (allowed),
 *   15 connections to registry.npmjs.org:443
 *
 * Only what a reader would want to know passed: the changes the policy
 * allowed, per list, under the deepest directory they share (relative to
 * the one watched root when they are in it), what was left running or
 * bound, and the connections that left the machine by destination. The
 * line is bounded: a part per list and at most three destinations.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netflow.h"
#include "receipt.h"
#include "sensitive.h"
#include "summary_int.h"

#define MAX_DESTS 3

struct line {
	FILE *f;
	bool any;
	char *const *roots;
	size_t nroots;
};

static void sep(struct line *l)
{
	fputs(l->any ? ", " : ": ", l->f);
	l->any = true;
}

/* the deepest directory (ending in '/') holding every path of list l, or
 * being one of them; its length, 0 for none ("/" is none: it says
 * nothing) */
static size_t common_dir(const struct fp_findings *fi, unsigned int l,
			 const char **dir)
{
	const struct fp_file_finding *x = FP_FILES(fi, l);
	size_t i, n = x[0].path.len, k;
	bool below = true; /* every longer path goes on with '/' at n */

	*dir = x[0].path.data;
	for (i = 1; i < fi->files[l].n; i++) {
		k = 0;
		while (k < n && k < x[i].path.len &&
		       x[i].path.data[k] == (*dir)[k])
			k++;
		n = k;
	}
	for (i = 0; i < fi->files[l].n && below; i++)
		if (x[i].path.len > n && x[i].path.data[n] != '/')
			below = false;
		else if (x[i].path.len > n)
			*dir = x[i].path.data;
	if (below && *dir != x[0].path.data)
		n++; /* the directory itself, with its '/' */
	else
		while (n && (*dir)[n - 1] != '/')
			n--;
	return n > 1 ? n : 0;
}

/* path (len bytes) as the line shows it: below the one watched root,
 * relative to it */
static void put_path(FILE *f, const struct line *so, const char *p, size_t len)
{
	size_t rl = so->nroots == 1 ? strlen(so->roots[0]) : 0;

	if (rl > 1 && len > rl + 1 && !memcmp(p, so->roots[0], rl) &&
	    p[rl] == '/') {
		p += rl + 1;
		len -= rl + 1;
	}
	fp_summary_put_path(f, p, len);
}

static bool is_root(const struct line *so, const char *p, size_t len)
{
	size_t i, rl;

	for (i = 0; i < so->nroots; i++) {
		rl = strlen(so->roots[i]);
		if ((len == rl + 1 && p[rl] == '/' &&
		     !memcmp(p, so->roots[i], rl)) ||
		    (len == 1 && rl == 1))
			return true;
	}
	return false;
}

/*
 * The directory right below dir (dl bytes) that holds the most paths of
 * the list, when it holds more than half of them: "22 files added, 20
 * under node_modules/". Paths that start with "KEY/" are next to each
 * other in byte order, so one pass finds it. Its length with the '/'.
 */
static size_t biggest_subdir(const struct fp_findings *fi, unsigned int l,
			     size_t dl, const char **sub, size_t *count)
{
	const struct fp_file_finding *x = FP_FILES(fi, l);
	size_t i, n = fi->files[l].n, run = 0, best = 0, klen = 0, blen = 0;
	const char *key = NULL, *slash;

	for (i = 0; i < n; i++) {
		const struct fp_bytes *p = &x[i].path;

		slash = p->len > dl ? memchr(p->data + dl, '/', p->len - dl) :
				      NULL;
		if (!slash) {
			run = 0;
			key = NULL;
			continue;
		}
		if (key && (size_t)(slash - p->data) + 1 == klen &&
		    !memcmp(p->data, key, klen)) {
			run++;
		} else {
			key = p->data;
			klen = slash - p->data + 1;
			run = 1;
		}
		if (run > best) {
			best = run;
			*sub = key;
			blen = klen;
		}
	}
	*count = best;
	return best * 2 > n && best < n ? blen : 0;
}

static void files_part(struct line *l, const struct fp_findings *fi,
		       unsigned int list, const char *verb)
{
	size_t n = fi->files[list].n, dl, sl, in_sub;
	const char *dir, *sub = NULL;

	if (!n)
		return;
	sep(l);
	fp_summary_put_count(l->f, n);
	fprintf(l->f, " file%s %s", n == 1 ? "" : "s", verb);
	dl = common_dir(fi, list, &dir);
	if (n == 1) {
		fputs(": ", l->f);
		put_path(l->f, l, FP_FILES(fi, list)[0].path.data,
			 FP_FILES(fi, list)[0].path.len);
	} else if (dl && !is_root(l, dir, dl)) {
		fputs(" under ", l->f);
		put_path(l->f, l, dir, dl);
	} else if ((sl = biggest_subdir(fi, list, dl, &sub, &in_sub))) {
		fputs(", ", l->f);
		fp_summary_put_count(l->f, in_sub);
		fputs(" under ", l->f);
		put_path(l->f, l, sub, sl);
	}
	fputs(" (allowed)", l->f);
}

static void count_part(struct line *l, size_t n, const char *one,
		       const char *many)
{
	if (!n)
		return;
	sep(l);
	fp_summary_put_count(l->f, n);
	fprintf(l->f, " %s", n == 1 ? one : many);
}

/* a connection's destination on the line: its first name, else its
 * address, with the port */
static void dest_of(const struct fp_conn_finding *x, char *buf, size_t len)
{
	if (x->names.len)
		snprintf(buf, len, "%s:%u", x->names.data, x->port);
	else if (x->family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", x->address, x->port);
	else
		snprintf(buf, len, "%s:%u", x->address, x->port);
}

struct dest {
	char name[300];
	uint64_t calls;
};

static int dest_cmp(const void *a, const void *b)
{
	const struct dest *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* the connections that left the machine, most used destinations first */
static void conn_part(struct line *l, const struct fp_findings *fi)
{
	const struct fp_conn_finding *c = fi->connected.v;
	struct dest *d = calloc(fi->connected.n + 1, sizeof(*d));
	size_t i, k, nd = 0;
	char name[300];

	if (!d)
		return;
	for (i = 0; i < fi->connected.n; i++) {
		if (c[i].loopback || c[i].family == AF_UNIX)
			continue;
		dest_of(&c[i], name, sizeof(name));
		for (k = 0; k < nd && strcmp(d[k].name, name); k++)
			;
		if (k == nd)
			memcpy(d[nd++].name, name, sizeof(name));
		d[k].calls += c[i].count ? c[i].count : 1;
	}
	qsort(d, nd, sizeof(*d), dest_cmp);
	for (k = 0; k < nd && k < MAX_DESTS; k++) {
		sep(l);
		fp_summary_put_count(l->f, d[k].calls);
		fprintf(l->f, " connection%s to ", d[k].calls == 1 ? "" : "s");
		fp_summary_put_path(l->f, d[k].name, strlen(d[k].name));
	}
	if (nd > MAX_DESTS)
		fprintf(l->f, " and %zu more destinations", nd - MAX_DESTS);
	free(d);
}

static size_t own_listeners(const struct fp_findings *fi, unsigned int list)
{
	size_t i, n = 0;

	for (i = 0; i < fi->net[list].n; i++)
		n += !FP_NETS(fi, list)[i].outside_run &&
		     !FP_NETS(fi, list)[i].new_outside;
	return n;
}

static size_t secrets_read(const struct fp_findings *fi)
{
	size_t i, n = 0;

	for (i = 0; i < fi->reads.n; i++)
		n += FP_READS(fi)[i].secret && !FP_READS(fi)[i].err;
	return n;
}

void fp_summary_ok_line(FILE *f, const struct fp_findings *fi,
			char *const *roots, size_t nroots)
{
	struct line l = { f, false, roots, nroots };

	files_part(&l, fi, FP_F_ADDED, "added");
	files_part(&l, fi, FP_F_CHANGED, "changed");
	files_part(&l, fi, FP_F_REMOVED, "removed");
	files_part(&l, fi, FP_F_TRANSIENT, "created and removed");
	files_part(&l, fi, FP_F_OUTSIDE, "written outside the roots");
	count_part(&l, secrets_read(fi), "secret read (allowed)",
		   "secrets read (allowed)");
	count_part(&l, fi->procs[FP_P_LEFTOVER].n,
		   "process left running (allowed)",
		   "processes left running (allowed)");
	count_part(&l, fi->privileged.n, "privileged exec (allowed)",
		   "privileged execs (allowed)");
	count_part(&l, fi->signalled.n + fi->ptraced.n,
		   "signal or ptrace outside the run (allowed)",
		   "signals or ptraces outside the run (allowed)");
	count_part(&l, fi->net[FP_N_BOUND].n, "port bound (allowed)",
		   "ports bound (allowed)");
	count_part(&l, own_listeners(fi, FP_N_LISTENING),
		   "port left listening (allowed)",
		   "ports left listening (allowed)");
	conn_part(&l, fi);
	if (!l.any)
		fputs(": nothing changed", f);
}
