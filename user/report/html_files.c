// SPDX-License-Identifier: GPL-2.0
/*
 * The files the run touched, grouped by directory: per directory how many
 * of each kind (added, changed, transient, ...), who wrote them, and the
 * files themselves up to a bound. Directories with failing findings come
 * first, the most severe first, then the biggest.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_int.h"

struct fent {
	const char *p;
	size_t len, dlen; /* dlen: the directory's, its '/' included */
	const char *kind; /* the files list's key: "added" */
	const struct fp_jv *e, *by;
	uint8_t sev; /* when failing, else 0 */
	char *buf;
};

struct fgroup {
	size_t first, n;
	uint8_t worst;
};

struct files {
	struct fent *v;
	size_t n, cap;
	struct fgroup *g;
	size_t ng;
};

static int cmp_path(const void *a, const void *b)
{
	const struct fent *x = a, *y = b;
	size_t n = x->dlen < y->dlen ? x->dlen : y->dlen;
	int c = memcmp(x->p, y->p, n);

	if (c || x->dlen != y->dlen)
		return c ? c : x->dlen < y->dlen ? -1 : 1;
	n = x->len < y->len ? x->len : y->len;
	c = memcmp(x->p, y->p, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int cmp_group(const void *a, const void *b)
{
	const struct fgroup *x = a, *y = b;

	if (x->worst != y->worst)
		return x->worst > y->worst ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->first < y->first ? -1 : 1;
}

static int add(struct files *fs, const char *list, const char *kind,
	       const struct fp_jv *e)
{
	struct fent *n;
	const char *slash;

	if (e->type != FP_JV_OBJ)
		return 0;
	/* reads are shown when they are a secret's or fail */
	if (!strcmp(kind, "read") && !fp_jv_str(e, "secret") &&
	    !fp_html_failing(list, e))
		return 0;
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? fs->cap * 2 : 256;
		n = realloc(fs->v, fs->cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		fs->v = n;
	}
	n = &fs->v[fs->n];
	*n = (struct fent){ .kind = kind, .e = e };
	if (!fp_html_bytes(e, "path", &n->p, &n->len, &n->buf))
		return 0;
	slash = memrchr(n->p, '/', n->len);
	n->dlen = slash ? (size_t)(slash - n->p) + 1 : 0;
	n->by = fp_html_actor(list, e);
	n->sev = fp_html_failing(list, e) ? fp_html_sev(list, e) : 0;
	fs->n++;
	return 0;
}

static int collect(struct files *fs, const struct fp_jv *files)
{
	char list[64];
	size_t i, j;

	for (i = 0; files && files->type == FP_JV_OBJ && i < files->n; i++) {
		if (files->items[i].type != FP_JV_ARR ||
		    snprintf(list, sizeof(list), "files.%s", files->keys[i]) >=
			    (int)sizeof(list))
			continue;
		for (j = 0; j < files->items[i].n; j++)
			if (add(fs, list, files->keys[i],
				&files->items[i].items[j]))
				return -ENOMEM;
	}
	return 0;
}

static int group(struct files *fs)
{
	size_t i;

	if (fs->n)
		qsort(fs->v, fs->n, sizeof(*fs->v), cmp_path);
	fs->g = calloc(fs->n + 1, sizeof(*fs->g));
	if (!fs->g)
		return -ENOMEM;
	for (i = 0; i < fs->n; i++) {
		if (!i || fs->v[i].dlen != fs->v[i - 1].dlen ||
		    memcmp(fs->v[i].p, fs->v[i - 1].p, fs->v[i].dlen))
			fs->g[fs->ng++] = (struct fgroup){ i, 0, 0 };
		fs->g[fs->ng - 1].n++;
		if (fs->g[fs->ng - 1].worst < fs->v[i].sev)
			fs->g[fs->ng - 1].worst = fs->v[i].sev;
	}
	if (fs->ng)
		qsort(fs->g, fs->ng, sizeof(*fs->g), cmp_group);
	return 0;
}

/* "3 added, 1 changed": kinds in order of first appearance */
static void kinds(FILE *f, const struct files *fs, const struct fgroup *g)
{
	const char *k[16];
	size_t c[16], nk = 0, i, j;

	for (i = g->first; i < g->first + g->n; i++) {
		for (j = 0; j < nk && k[j] != fs->v[i].kind; j++)
			;
		if (j == nk && nk < 16)
			k[nk] = fs->v[i].kind, c[nk++] = 0;
		if (j < nk)
			c[j]++;
	}
	fputs(" <span class=\"kinds\">", f);
	for (j = 0; j < nk; j++) {
		fprintf(f, "%s%zu ", j ? ", " : "", c[j]);
		fp_html_str(f, k[j]);
	}
	fputs("</span>", f);
}

/* the writers, by how many of the files each made */
static void writers(FILE *f, const struct files *fs, const struct fgroup *g)
{
	const struct fp_jv *w[32];
	size_t c[32], nw = 0, i, j, best, shown = 0;
	const char *exe;

	for (i = g->first; i < g->first + g->n; i++) {
		exe = fs->v[i].by ? fp_jv_str(fs->v[i].by, "exe") : NULL;
		if (!exe)
			continue;
		for (j = 0; j < nw && strcmp(fp_jv_str(w[j], "exe"), exe); j++)
			;
		if (j == nw && nw < 32)
			w[nw] = fs->v[i].by, c[nw++] = 0;
		if (j < nw)
			c[j]++;
	}
	if (!nw)
		return;
	fputs(" <span class=\"writers\">by ", f);
	while (shown < FP_HTML_WRITERS) {
		for (best = nw, j = 0; j < nw; j++)
			if (c[j] && (best == nw || c[j] > c[best]))
				best = j;
		if (best == nw)
			break;
		fputs(shown++ ? ", " : "", f);
		fp_html_field(f, w[best], "exe", "?");
		fprintf(f, " &times;%zu", c[best]);
		c[best] = 0;
	}
	for (j = 0; j < nw && !c[j]; j++)
		;
	if (j < nw)
		fputs(", &hellip;", f);
	fputs("</span>", f);
}

static void file_row(FILE *f, const struct fent *x)
{
	fprintf(f, "<li class=\"sev-%s\" data-kind=\"",
		x->sev ? fp_severity_name(x->sev) : "none");
	fp_html_str(f, x->kind);
	fputs("\"><span class=\"k\">", f);
	fp_html_str(f, x->kind);
	fputs("</span> <code>", f);
	fp_html_text(f, x->p + x->dlen, x->len - x->dlen);
	fputs("</code>", f);
	if (fp_jv_str(x->e, "secret")) {
		fputs(" <span class=\"tag\">", f);
		fp_html_field(f, x->e, "secret", "");
		fputs("</span>", f);
	}
	if (x->by) {
		fputs(" <span class=\"who\">by ", f);
		fp_html_field(f, x->by, "exe", "?");
		fprintf(f, " (pid %" PRId64 ")</span>",
			fp_jv_int(x->by, "pid", 0));
	}
	fputs("</li>\n", f);
}

static size_t dir(FILE *f, const struct files *fs, const struct fgroup *g,
		  size_t budget, bool open)
{
	const struct fent *d = &fs->v[g->first];
	size_t i,
		n = g->n < FP_HTML_FILES_PER_DIR ? g->n : FP_HTML_FILES_PER_DIR;

	if (n > budget)
		n = budget;
	fprintf(f, "<details class=\"dir sev-%s\"%s><summary><code>",
		g->worst ? fp_severity_name(g->worst) : "none",
		open ? " open" : "");
	if (d->dlen)
		fp_html_text(f, d->p, d->dlen);
	else
		fputs("(no directory)", f);
	fprintf(f, "</code> <span class=\"count\">%zu</span>", g->n);
	kinds(f, fs, g);
	writers(f, fs, g);
	fputs("</summary>\n<ul>\n", f);
	for (i = 0; i < n; i++)
		file_row(f, &fs->v[g->first + i]);
	if (g->n > n)
		fprintf(f, "<li class=\"more\">and %zu more</li>\n", g->n - n);
	fputs("</ul></details>\n", f);
	return n;
}

int fp_html_files_section(struct fp_html *h)
{
	struct files fs = { 0 };
	size_t i, rows = 0, left = 0, skipped = 0;
	int ret;

	ret = collect(&fs, fp_jv_get(h->r, "files"));
	if (!ret)
		ret = group(&fs);
	if (ret)
		goto cleanup;
	fprintf(h->out,
		"<section id=\"files\"><h2>Files</h2>\n<p class=\"meta\">%zu "
		"files in %zu directories</p>\n",
		fs.n, fs.ng);
	for (i = 0; i < fs.ng; i++) {
		if (i >= FP_HTML_DIRS || rows >= FP_HTML_FILE_ROWS) {
			left += fs.g[i].n;
			skipped++;
			continue;
		}
		rows += dir(h->out, &fs, &fs.g[i], FP_HTML_FILE_ROWS - rows,
			    fs.g[i].worst || i < 10);
	}
	if (left)
		fprintf(h->out,
			"<p class=\"more\">and %zu more directories (%zu "
			"files)</p>\n",
			skipped, left);
	fputs("</section>\n", h->out);
cleanup:
	for (i = 0; i < fs.n; i++)
		free(fs.v[i].buf);
	free(fs.v);
	free(fs.g);
	return ret;
}
