// SPDX-License-Identifier: GPL-2.0
/*
 * The network destinations by name: connections out, accepts in and DNS
 * lookups, one row per (direction, name or address, port, protocol) with
 * the calls summed and the programs that made them; failing rows first.
 * Binds and listeners follow, bounded likewise.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_int.h"

struct dest {
	const char *dir; /* "out", "in", "lookup" */
	const char *label;
	size_t len;
	int64_t port; /* -1: none */
	const char *proto;
	uint64_t count, rows;
	uint8_t worst; /* failing, else 0 */
	const struct fp_jv *e;
	char *buf;
};

struct dests {
	struct dest *v;
	size_t n, cap;
};

static const char *str_or(const struct fp_jv *e, const char *key,
			  const char *dflt)
{
	const char *s = fp_jv_str(e, key);

	return s ? s : dflt;
}

static int add(struct dests *d, const char *list, const char *dir,
	       const struct fp_jv *e)
{
	const struct fp_jv *names = fp_jv_get(e, "names");
	struct dest *n;

	if (e->type != FP_JV_OBJ)
		return 0;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		n = realloc(d->v, d->cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->v = n;
	}
	n = &d->v[d->n];
	*n = (struct dest){ .dir = dir, .e = e, .port = -1, .rows = 1 };
	if (names && names->type == FP_JV_ARR && names->n &&
	    names->items[0].type == FP_JV_STR) {
		n->label = names->items[0].s;
		n->len = names->items[0].len;
	} else if (!fp_html_bytes(e,
				  !strcmp(dir, "lookup") ? "name" : "address",
				  &n->label, &n->len, &n->buf)) {
		return 0;
	}
	if (fp_jv_get(e, "port"))
		n->port = fp_jv_int(e, "port", 0);
	n->proto = str_or(e, !strcmp(dir, "lookup") ? "qtype" : "protocol", "");
	n->count = (uint64_t)fp_jv_int(e, "count", 1);
	n->worst = fp_html_failing(list, e) ? fp_html_sev(list, e) : 0;
	d->n++;
	return 0;
}

static int cmp_key(const struct dest *x, const struct dest *y)
{
	size_t n = x->len < y->len ? x->len : y->len;
	int c = strcmp(x->dir, y->dir);

	if (!c)
		c = memcmp(x->label, y->label, n);
	if (!c && x->len != y->len)
		c = x->len < y->len ? -1 : 1;
	if (!c && x->port != y->port)
		c = x->port < y->port ? -1 : 1;
	return c ? c : strcmp(x->proto, y->proto);
}

static int cmp_dest(const void *a, const void *b)
{
	return cmp_key(a, b);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct dest *x = a, *y = b;

	if (x->worst != y->worst)
		return x->worst > y->worst ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return cmp_key(x, y);
}

/* entries of one destination made into its first */
static void merge(struct dests *d)
{
	size_t i, out = 0;

	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), cmp_dest);
	for (i = 0; i < d->n; i++) {
		if (out && !cmp_key(&d->v[out - 1], &d->v[i])) {
			d->v[out - 1].count += d->v[i].count;
			d->v[out - 1].rows++;
			if (d->v[out - 1].worst < d->v[i].worst)
				d->v[out - 1].worst = d->v[i].worst;
			free(d->v[i].buf);
			continue;
		}
		d->v[out++] = d->v[i];
	}
	d->n = out;
	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), cmp_rank);
}

static void dest_row(FILE *f, const struct dest *x)
{
	const struct fp_jv *by = fp_html_actor("network", x->e);
	const char *fam = fp_jv_str(x->e, "family");

	fprintf(f,
		"<tr class=\"dest sev-%s\" data-dir=\"%s\"><td>%s</td><td><code>",
		x->worst ? fp_severity_name(x->worst) : "none", x->dir, x->dir);
	if (fam && !strcmp(fam, "unix"))
		fputs("unix:", f);
	fp_html_text(f, x->label, x->len);
	fputs("</code>", f);
	if (fp_jv_bool(x->e, "loopback") == 1)
		fputs(" <span class=\"tag\">loopback</span>", f);
	fputs("</td><td>", f);
	if (x->port >= 0)
		fprintf(f, "%" PRId64, x->port);
	fputs("</td><td>", f);
	fp_html_str(f, x->proto);
	fprintf(f, "</td><td class=\"num\">%" PRIu64 "</td><td>", x->count);
	if (by) {
		fp_html_field(f, by, "exe", "?");
		if (x->rows > 1)
			fprintf(f, " <small>+%" PRIu64 "</small>", x->rows - 1);
	}
	fprintf(f, "</td><td>%s</td></tr>\n",
		x->worst			 ? fp_severity_name(x->worst) :
		fp_jv_bool(x->e, "allowed") == 1 ? "allowed" :
						   "ok");
}

static int collect(struct dests *d, const struct fp_jv *net)
{
	static const char *const lists[][3] = {
		{ "connected", "network.connected", "out" },
		{ "accepted", "network.accepted", "in" },
		{ "dns", "network.dns", "lookup" },
	};
	const struct fp_jv *a;
	size_t i, j;

	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		a = fp_jv_get(net, lists[i][0]);
		for (j = 0; a && a->type == FP_JV_ARR && j < a->n; j++)
			if (add(d, lists[i][1], lists[i][2], &a->items[j]))
				return -ENOMEM;
	}
	return 0;
}

/* binds and listeners: few, each shown up to the bound */
static void ports(FILE *f, const struct fp_jv *net, const char *key)
{
	const struct fp_jv *a = fp_jv_get(net, key), *e;
	char list[32];
	size_t i;

	if (!a || a->type != FP_JV_ARR || !a->n)
		return;
	snprintf(list, sizeof(list), "network.%s", key);
	fprintf(f, "<h3>%s <small>%zu</small></h3>\n<ul class=\"ports\">\n",
		key, a->n);
	for (i = 0; i < a->n && i < FP_HTML_DESTS; i++) {
		e = &a->items[i];
		fprintf(f, "<li class=\"sev-%s\"><code>",
			fp_html_failing(list, e) ?
				fp_severity_name(fp_html_sev(list, e)) :
				"none");
		fp_html_subject(f, e);
		fputs("</code> ", f);
		fp_html_field(f, e, "protocol", "");
		if (fp_html_actor(list, e) && fp_html_actor(list, e) != e) {
			fputs(" <span class=\"who\">by ", f);
			fp_html_field(f, fp_html_actor(list, e), "exe", "?");
			fputs("</span>", f);
		}
		fputs("</li>\n", f);
	}
	if (a->n > FP_HTML_DESTS)
		fprintf(f, "<li class=\"more\">and %zu more</li>\n",
			a->n - FP_HTML_DESTS);
	fputs("</ul>\n", f);
}

int fp_html_net_section(struct fp_html *h)
{
	const struct fp_jv *net = fp_jv_get(h->r, "network");
	struct dests d = { 0 };
	size_t i;

	if (collect(&d, net)) {
		for (i = 0; i < d.n; i++)
			free(d.v[i].buf);
		free(d.v);
		return -ENOMEM;
	}
	merge(&d);
	fprintf(h->out,
		"<section id=\"network\"><h2>Network</h2>\n<p class=\"meta\">"
		"%zu destinations</p>\n",
		d.n);
	if (d.n)
		fputs("<table class=\"net\"><tr><th></th><th>destination</th>"
		      "<th>port</th><th>proto</th><th>calls</th>"
		      "<th>by</th><th>judged</th></tr>\n",
		      h->out);
	for (i = 0; i < d.n && i < FP_HTML_DESTS; i++)
		dest_row(h->out, &d.v[i]);
	if (d.n)
		fputs("</table>\n", h->out);
	if (d.n > FP_HTML_DESTS)
		fprintf(h->out,
			"<p class=\"more\">and %zu more destinations</p>\n",
			d.n - FP_HTML_DESTS);
	ports(h->out, net, "bound");
	ports(h->out, net, "listening");
	fputs("</section>\n", h->out);
	for (i = 0; i < d.n; i++)
		free(d.v[i].buf);
	free(d.v);
	return 0;
}
