// SPDX-License-Identifier: GPL-2.0
/*
 * The stderr summary. It has to be read in ten seconds on a run that made
 * a hundred thousand findings, so it is bounded by lines, not by findings:
 * per category a count and a few examples, many files under one directory
 * as one line, and a count of what is left to the receipt.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "findref.h"
#include "receipt.h"
#include "summary_int.h"
#include "summary_net.h"

/* bytes of a command line in one example */
#define ARGV_BYTES 120

struct out {
	FILE *f;
	const char *red, *off;
	size_t max; /* examples per category */
	/* failing findings no line covers: not shown on a line of their
	 * own nor counted on an "N under DIR/" line */
	size_t more;
};

/* how put_escaped() spells what it escapes */
enum esc {
	ESC_ARGV, /* NUL: a space; \n \t \r \\ named; the rest \xNN */
	ESC_PATH, /* control bytes and \ as \xNN, as policy lines spell them */
	ESC_TEXT, /* our own text (a policy line): control bytes as \xNN */
};

/*
 * Bytes from the traced command, made safe for a terminal: valid UTF-8
 * that shows as itself stays; any other byte is escaped as e says.
 */
static void put_escaped(FILE *f, const char *s, size_t len, enum esc e)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;

	while (i < len) {
		unsigned char c = p[i];
		const char *named = c == '\n' ? "\\n" :
				    c == '\t' ? "\\t" :
				    c == '\r' ? "\\r" :
				    c == '\\' ? "\\\\" :
						NULL;

		if (e == ESC_ARGV && (c == '\0' || named)) {
			fputs(c == '\0' ? " " : named, f);
			i++;
			continue;
		}
		n = c >= 0x20 && c != 0x7f && (c != '\\' || e == ESC_TEXT) ?
			    fp_utf8_decode(p + i, len - i, &cp) :
			    0;
		if (n && !(n > 1 && fp_cp_sneaky(cp))) {
			fwrite(p + i, 1, n, f);
			i += n;
			continue;
		}
		fprintf(f, "\\x%02x", c);
		i++;
	}
}

/* "1,204" */
static void put_count(FILE *f, size_t n)
{
	if (n >= 1000) {
		put_count(f, n / 1000);
		fprintf(f, ",%03zu", n % 1000);
	} else {
		fprintf(f, "%zu", n);
	}
}

/* The start of a command line, its arguments joined by spaces; nothing
 * after the last one, so no line ends in a space. */
static void put_argv(FILE *f, const struct fp_bytes *argv)
{
	size_t len = argv->len, cut;

	while (len && argv->data[len - 1] == '\0')
		len--;
	if (!len)
		return;
	cut = len > ARGV_BYTES ? ARGV_BYTES : len;
	/* not inside a UTF-8 sequence */
	while (cut < len && cut && (argv->data[cut] & 0xc0) == 0x80)
		cut--;
	fputc(' ', f);
	put_escaped(f, argv->data, cut, ESC_ARGV);
	if (cut < len)
		fputs("...", f);
}

static void put_actor(FILE *f, const char *verb, const struct fp_actor *a)
{
	fprintf(f, "  %s pid %d", verb, (int)a->pid);
	put_argv(f, &a->argv);
}

/* what a generated script did with the file: who made it, when another
 * touched it last, and whether it was made executable and run */
static void put_file_more(FILE *f, unsigned int l,
			  const struct fp_file_finding *x)
{
	if (l != FP_F_TRANSIENT && fp_ff_actor(x, created_by)->pid && x->by.pid)
		put_actor(f, "created by", fp_ff_actor(x, created_by));
	if (fp_ff_actor(x, outside_writer)->pid)
		put_actor(f, "held open for writing outside the run by",
			  fp_ff_actor(x, outside_writer));
	if (!x->ran)
		return;
	fprintf(f, "  %s as pid %d",
		x->made_exec ? "made executable and run" : "run",
		(int)fp_ff_actor(x, ran_by)->pid);
	put_argv(f, &fp_ff_actor(x, ran_by)->argv);
}

static void put_file(FILE *f, unsigned int l, const struct fp_file_finding *x)
{
	if (l == FP_F_CUT)
		fputs("...", f);
	put_escaped(f, x->path.data, x->path.len, ESC_PATH);
	if (l == FP_F_UNEXPLAINED)
		put_file_more(f, l, x);
	if (l == FP_F_UNEXPLAINED || l == FP_F_UNREADABLE)
		return;
	if (l == FP_F_TRANSIENT)
		put_actor(f, "by", fp_ff_actor(x, created_by));
	else if (!x->by.pid)
		fputs("  (no event explains it)", f);
	else
		put_actor(f, x->by_open ? "opened for writing by" : "by",
			  &x->by);
	put_file_more(f, l, x);
}

/* one finding, without indent or newline */
static void put_example(FILE *f, const struct fp_findings *fi,
			const struct fp_fref *r)
{
	unsigned int cat = r->cat;
	char subj[512];

	if (cat == FP_CAT_TAMPER ||
	    !(fp_cat_is_file(cat) || fp_cat_is_proc(cat) ||
	      fp_cat_is_bind(cat))) {
		struct fp_sbuf b = { 0 };

		fp_fref_describe(fi, r, ARGV_BYTES, &b);
		if (cat == FP_CAT_TAMPER)
			fprintf(f,
				"%s: ", fp_tamper_name(&FP_TAMPER(fi)[r->i]));
		if (!b.err)
			put_escaped(f, b.p, b.len, ESC_ARGV);
		fp_sbuf_free(&b);
	} else if (fp_cat_is_file(cat)) {
		put_file(f, cat - FP_CAT_FILES,
			 &FP_FILES(fi, cat - FP_CAT_FILES)[r->i]);
	} else if (fp_cat_is_proc(cat)) {
		const struct fp_proc_finding *x = fp_fref_proc(fi, cat, r->i);

		fprintf(f, "pid %d", (int)x->p.pid);
		put_argv(f, &x->p.argv);
	} else {
		const struct fp_net_finding *x =
			&FP_NETS(fi, cat - FP_CAT_NET)[r->i];

		fp_net_subject(x, subj, sizeof(subj));
		put_escaped(f, subj, strlen(subj), ESC_PATH);
		/* with its command line, as a connection's line has */
		if (x->by.pid)
			put_actor(f, "by", &x->by);
		else
			fprintf(f, "  by pid %d", (int)x->pid);
	}
}

/* ---- grouping by directory ---- */

struct gpath {
	const char *p;
	size_t len;
	size_t ref; /* index into the section's refs */
};

/* a run of gpaths [a, b) under dir (dlen bytes, ending in '/') */
struct group {
	size_t a, b;
	const char *dir;
	size_t dlen;
	size_t nsub; /* groups a split would make; 0 not known yet */
};

/* Path order with '/' below every other byte: a directory sorts right
 * before what is in it ("a", "a/x", "a-b"), so a tree is one run. */
static int gpath_cmp(const void *x, const void *y)
{
	const struct gpath *a = x, *b = y;
	size_t i, n = a->len < b->len ? a->len : b->len;

	for (i = 0; i < n; i++) {
		unsigned char c = a->p[i], d = b->p[i];

		if (c == d)
			continue;
		if (c == '/' || d == '/')
			return c == '/' ? -1 : 1;
		return c < d ? -1 : 1;
	}
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return (a->ref > b->ref) - (a->ref < b->ref);
}

/* The deepest directory that holds every path of g, or is one of them. */
static void group_dir(const struct gpath *gp, struct group *g)
{
	const struct gpath *first = &gp[g->a], *last = &gp[g->b - 1];
	size_t l = 0;

	while (l < first->len && l < last->len && first->p[l] == last->p[l])
		l++;
	g->dir = last->p;
	if (l == first->len && l < last->len && last->p[l] == '/') {
		g->dlen = l + 1;
		return;
	}
	while (l && first->p[l - 1] != '/')
		l--;
	g->dlen = l;
}

/* the name under g->dir that path i falls in; the directory itself: "" */
static size_t sub_key(const struct group *g, const struct gpath *p,
		      const char **key)
{
	const char *slash;

	if (p->len < g->dlen) {
		*key = "";
		return 0;
	}
	*key = p->p + g->dlen;
	slash = memchr(*key, '/', p->len - g->dlen);
	return slash ? (size_t)(slash - *key) : p->len - g->dlen;
}

/* Split g by the names under its directory: the end of each part in
 * ends[] (when not NULL); returns how many parts. */
static size_t group_split(const struct gpath *gp, const struct group *g,
			  size_t *ends)
{
	const char *key = NULL, *k;
	size_t i, klen = 0, kl, n = 0;

	for (i = g->a; i < g->b; i++) {
		kl = sub_key(g, &gp[i], &k);
		if (i > g->a && (kl != klen || memcmp(k, key, kl))) {
			if (ends)
				ends[n] = i;
			n++;
		}
		key = k;
		klen = kl;
	}
	if (ends)
		ends[n] = g->b;
	return n + 1;
}

/*
 * At most max groups: start from one and split, biggest first, as long as
 * the groups still fit. A group of one is a finding of its own.
 */
static int group_paths(const struct gpath *gp, size_t n, size_t max,
		       struct group **out, size_t *nout)
{
	struct group *g = calloc(max, sizeof(*g)), *best;
	size_t ng = 1, i, parts, *ends;

	if (!g)
		return -ENOMEM;
	g[0] = (struct group){ .a = 0, .b = n };
	for (;;) {
		best = NULL;
		for (i = 0; i < ng; i++) {
			if (g[i].b - g[i].a < 2)
				continue;
			if (!g[i].nsub) {
				group_dir(gp, &g[i]);
				g[i].nsub = group_split(gp, &g[i], NULL);
			}
			if (g[i].nsub > 1 && ng - 1 + g[i].nsub <= max &&
			    (!best || g[i].b - g[i].a > best->b - best->a))
				best = &g[i];
		}
		if (!best)
			break;
		parts = best->nsub;
		ends = calloc(parts, sizeof(*ends));
		if (!ends) {
			free(g);
			return -ENOMEM;
		}
		group_split(gp, best, ends);
		i = best - g;
		memmove(&g[i + parts], &g[i + 1], (ng - i - 1) * sizeof(*g));
		for (size_t k = 0; k < parts; k++)
			g[i + k] =
				(struct group){ .a = k ? ends[k - 1] : best->a,
						.b = ends[k] };
		ng += parts - 1;
		free(ends);
	}
	*out = g;
	*nout = ng;
	return 0;
}

/* ---- sections: the failing findings of one category (in one step) ---- */

struct section {
	unsigned int step, cat;
	const struct fp_fref *r;
	size_t n;
	size_t lines; /* allowed to it: 0 none, 1 a line of its own */
	size_t cap; /* the most it could use */
};

static bool groupable(unsigned int cat)
{
	return fp_cat_is_file(cat) && cat - FP_CAT_FILES != FP_F_CUT;
}

static void cat_label(struct out *o, const struct section *s)
{
	char name[64];

	fprintf(o->f, "  %s%s%s ", o->red,
		fp_cat_name(s->cat, name, sizeof(name)), o->off);
}

/* one line for each group: a finding, or "N under DIR/" */
static void put_groups(struct out *o, const struct fp_findings *fi,
		       const struct section *s, const struct gpath *gp,
		       const struct group *g, size_t ng, const char *indent)
{
	size_t i;

	for (i = 0; i < ng; i++) {
		fputs(indent, o->f);
		if (g[i].b - g[i].a == 1) {
			put_example(o->f, fi, &s->r[gp[g[i].a].ref]);
			o->more--;
		} else {
			put_count(o->f, g[i].b - g[i].a);
			fputs(" under ", o->f);
			put_escaped(o->f, g[i].dir, g[i].dlen, ESC_PATH);
			/* "N under DIR/" covers them: not "and N more" */
			o->more -= g[i].b - g[i].a;
		}
		fputc('\n', o->f);
	}
}

/* a section's paths in tree order */
static struct gpath *section_paths(const struct fp_findings *fi,
				   const struct section *s)
{
	unsigned int l = s->cat - FP_CAT_FILES;
	struct gpath *gp = calloc(s->n, sizeof(*gp));
	size_t i;

	if (!gp)
		return NULL;
	for (i = 0; i < s->n; i++) {
		const struct fp_file_finding *x = &FP_FILES(fi, l)[s->r[i].i];

		gp[i] = (struct gpath){ x->path.data, x->path.len, i };
	}
	qsort(gp, s->n, sizeof(*gp), gpath_cmp);
	return gp;
}

/* the lines the groups of at most max paths take */
static int grouped_lines(const struct gpath *gp, size_t n, size_t max,
			 size_t *lines)
{
	struct group *g;
	size_t ng;

	if (group_paths(gp, n, max, &g, &ng))
		return -ENOMEM;
	free(g);
	*lines = ng == 1 ? 1 : 1 + ng;
	return 0;
}

static int section_grouped(struct out *o, const struct fp_findings *fi,
			   const struct section *s)
{
	size_t ng, max = s->lines > 1 ? s->lines - 1 : 1;
	struct gpath *gp = section_paths(fi, s);
	struct group *g;

	if (!gp)
		return -ENOMEM;
	if (group_paths(gp, s->n, max, &g, &ng)) {
		free(gp);
		return -ENOMEM;
	}
	cat_label(o, s);
	if (ng == 1) {
		put_groups(o, fi, s, gp, g, ng, "");
	} else {
		put_count(o->f, s->n);
		fputs(":\n", o->f);
		put_groups(o, fi, s, gp, g, ng, "    ");
	}
	free(g);
	free(gp);
	return 0;
}

bool fp_summary_groupable(unsigned int cat)
{
	return groupable(cat);
}

int fp_summary_groups(const struct fp_findings *fi, const struct fp_fref *refs,
		      size_t n, size_t max, struct fp_pgroup **out,
		      size_t *nout)
{
	struct section s = { refs[0].step, refs[0].cat, refs, n, 0, 0 };
	struct gpath *gp = section_paths(fi, &s);
	struct group *g = NULL;
	size_t i, ng = 0;
	int ret = gp ? group_paths(gp, n, max ? max : 1, &g, &ng) : -ENOMEM;

	*out = NULL;
	*nout = 0;
	if (!ret && !(*out = calloc(ng, sizeof(**out))))
		ret = -ENOMEM;
	for (i = 0; !ret && i < ng; i++)
		(*out)[i] = (struct fp_pgroup){ &refs[gp[g[i].a].ref],
						g[i].b - g[i].a, g[i].dir,
						g[i].dlen };
	if (!ret)
		*nout = ng;
	free(g);
	free(gp);
	return ret;
}

static void section_listed(struct out *o, const struct fp_findings *fi,
			   const struct section *s)
{
	size_t i, shown;

	cat_label(o, s);
	if (s->n == 1) {
		put_example(o->f, fi, &s->r[0]);
		fputc('\n', o->f);
		o->more--;
		return;
	}
	put_count(o->f, s->n);
	if (s->lines < 2) {
		fputc('\n', o->f);
		return;
	}
	fputs(":\n", o->f);
	shown = s->lines - 1 < s->n ? s->lines - 1 : s->n;
	for (i = 0; i < shown; i++) {
		fputs("    ", o->f);
		put_example(o->f, fi, &s->r[i]);
		fputc('\n', o->f);
	}
	o->more -= shown;
}

/* "step 2 (Build):" before the first section of each step */
static void step_heading(FILE *f, const struct fp_findings *fi,
			 unsigned int step)
{
	const struct fp_step *st = fp_findings_step(fi, step);

	if (!st) {
		fprintf(f, " outside any step:\n");
		return;
	}
	fprintf(f, " step %u", st->index);
	if (st->named != FP_STEP_NAMED_ORDER) {
		fputs(" (", f);
		put_escaped(f, st->name.data, st->name.len, ESC_ARGV);
		fputc(')', f);
	}
	fputs(":\n", f);
}

/* the runs of equal (step, category) in refs */
static struct section *sections(const struct fp_vec *refs, size_t *n)
{
	const struct fp_fref *r = refs->v;
	struct section *s = calloc(refs->n ? refs->n : 1, sizeof(*s));
	size_t i, ns = 0;

	if (!s)
		return NULL;
	for (i = 0; i < refs->n; i++) {
		if (i && r[i].step == r[i - 1].step &&
		    r[i].cat == r[i - 1].cat) {
			s[ns - 1].n++;
			continue;
		}
		s[ns++] =
			(struct section){ r[i].step, r[i].cat, &r[i], 1, 0, 0 };
	}
	*n = ns;
	return s;
}

/* lines a section could use: its one line, or a count and examples */
static size_t section_wants(const struct section *s, size_t max)
{
	return s->n == 1 ? 1 : 1 + (s->n < max ? s->n : max);
}

/*
 * Share out the lines: first one for each section (and the heading of
 * each step), in order, then one more each in turn, up to each one's cap.
 * What finds no line is counted in "and N more".
 */
static void allot(struct section *s, size_t ns, bool by_step, size_t total)
{
	size_t i, used = 0, cost;
	bool more = true;

	for (i = 0; i < ns; i++)
		s[i].lines = 0;
	for (i = 0; i < ns; i++) {
		cost = 1 + (by_step && (!i || s[i].step != s[i - 1].step));
		if (used + cost > total)
			return;
		used += cost;
		s[i].lines = 1;
	}
	while (more && used < total) {
		more = false;
		for (i = 0; i < ns && used < total; i++) {
			if (s[i].lines && s[i].lines < s[i].cap) {
				s[i].lines++;
				used++;
				more = true;
			}
		}
	}
}

/*
 * A grouped section may not use all the lines it was given: a directory
 * splits into all its parts or none. Its cap comes down to what it uses,
 * and the lines go round again, until every section uses what it has.
 */
static int fit(const struct fp_findings *fi, struct section *s, size_t ns,
	       bool by_step, size_t max, size_t total)
{
	size_t i, used;
	bool again = true;
	struct gpath *gp;

	for (i = 0; i < ns; i++)
		s[i].cap = section_wants(&s[i], max);
	while (again) {
		again = false;
		allot(s, ns, by_step, total);
		for (i = 0; i < ns; i++) {
			if (!groupable(s[i].cat) || s[i].n < 2 ||
			    s[i].lines < 2)
				continue;
			gp = section_paths(fi, &s[i]);
			if (!gp ||
			    grouped_lines(gp, s[i].n, s[i].lines - 1, &used)) {
				free(gp);
				return -ENOMEM;
			}
			free(gp);
			if (used < s[i].lines) {
				s[i].cap = used;
				again = true;
			}
		}
	}
	return 0;
}

static int summary_findings(struct out *o, const struct fp_findings *fi,
			    const struct fp_sevmap *m, size_t total)
{
	bool by_step = fi->steps.n > 0;
	struct section *s;
	struct fp_vec refs;
	size_t i, ns = 0;
	int ret = 0;

	if (fp_frefs_ranked(fi, m, by_step, &refs))
		return -ENOMEM;
	s = sections(&refs, &ns);
	if (!s) {
		free(refs.v);
		return -ENOMEM;
	}
	o->more = refs.n;
	ret = fit(fi, s, ns, by_step, o->max, total);
	for (i = 0; i < ns && s[i].lines && !ret; i++) {
		if (by_step && (!i || s[i].step != s[i - 1].step))
			step_heading(o->f, fi, s[i].step);
		if (groupable(s[i].cat) && s[i].n > 1)
			ret = section_grouped(o, fi, &s[i]);
		else
			section_listed(o, fi, &s[i]);
	}
	free(s);
	free(refs.v);
	return ret;
}

static void and_more(FILE *f, size_t n)
{
	if (!n)
		return;
	fputs("  and ", f);
	put_count(f, n);
	fputs(" more (see the receipt)\n", f);
}

/* A reason no finding line tells: how the command and the trace ended,
 * run --unit's shape. Unmet expectations come from v->expects, as judging
 * keeps only the first reasons. */
static bool general_reason(const char *r)
{
	return !strncmp(r, "command", 7) || !strncmp(r, "trace", 5) ||
	       !strncmp(r, "footprint", 9) || !strncmp(r, "unit ", 5);
}

static void put_reason(struct out *o, const char *pre, const char *r,
		       size_t *shown, size_t *left)
{
	if (*shown == o->max) {
		(*left)++;
		return;
	}
	fprintf(o->f, "  %s", pre);
	put_escaped(o->f, r, strlen(r), ESC_TEXT);
	fputc('\n', o->f);
	(*shown)++;
}

static size_t summary_reasons(struct out *o, const struct fp_verdict *v)
{
	size_t i, shown = 0, left = 0;

	for (i = 0; i < v->reasons.n; i++) {
		const char *r = *fp_vec_at(&v->reasons, char *, i);

		if (general_reason(r))
			put_reason(o, "", r, &shown, &left);
	}
	for (i = 0; i < v->expects.n; i++) {
		const struct fp_expect *e =
			fp_vec_at(&v->expects, struct fp_expect, i);

		if (!e->met)
			put_reason(o,
				   "expected change missing: ", e->rule->text,
				   &shown, &left);
	}
	and_more(o->f, left);
	return shown + !!left;
}

void fp_summary_write_opts(FILE *f, const struct fp_findings *fi,
			   const struct fp_verdict *v,
			   const struct fp_summary_opts *so)
{
	fp_summary_write_roots(f, fi, v, so, NULL, 0);
}

void fp_summary_write_roots(FILE *f, const struct fp_findings *fi,
			    const struct fp_verdict *v,
			    const struct fp_summary_opts *so,
			    char *const *roots, size_t nroots)
{
	bool color = so->color;
	const char *red = color ? "\033[31m" : "",
		   *green = color ? "\033[32m" : "",
		   *bold = color ? "\033[1m" : "",
		   *off = color ? "\033[0m" : "";
	struct out o = { f, red, off, so->max ? so->max : 1, 0 };
	size_t i, n = v->suggestions.n, total = FP_SUMMARY_LINES(o.max), r;

	if (v->ok) {
		/* and what it saw, on the same line */
		fprintf(f, "footprint: %s%sok%s", bold, green, off);
		fp_summary_ok_line(f, fi, roots, nroots);
		fputc('\n', f);
	} else
		fprintf(f, "footprint: %s%sFAIL%s (%zu failing finding%s)\n",
			bold, red, off, v->failing, v->failing == 1 ? "" : "s");
	/* a screen holds a couple of reasons; more take findings' lines */
	r = summary_reasons(&o, v);
	if (r > 2)
		total = total > r - 2 + 4 ? total - (r - 2) : 4;
	if (summary_findings(&o, fi, &v->sev, total))
		fprintf(f, "  (out of memory: see the receipt)\n");
	else
		and_more(f, o.more);
	fp_summary_net(f, fi);
	if (!n)
		return;
	fprintf(f,
		"footprint: policy lines that would allow this (review before use):\n");
	/* the most used first, each with the findings it covers, as a
	 * comment a policy file takes ("allow /tmp/cc*.s  # covers 12") */
	for (i = 0; i < n && i < o.max; i++) {
		const char *s = *fp_vec_at(&v->suggestions, char *, i);

		fputs("  ", f);
		put_escaped(f, s, strlen(s), ESC_TEXT);
		fprintf(f, "  # covers %zu\n",
			i < v->suggestion_counts.n ?
				*fp_vec_at(&v->suggestion_counts, size_t, i) :
				(size_t)1);
	}
	if (n > o.max)
		fprintf(f, "  # and %zu more (see the receipt)\n", n - o.max);
}

void fp_summary_write(FILE *f, const struct fp_findings *fi,
		      const struct fp_verdict *v, bool color)
{
	struct fp_summary_opts so = { color, FP_SUMMARY_MAX_DEFAULT };

	fp_summary_write_opts(f, fi, v, &so);
}

void fp_summary_put_path(FILE *f, const char *s, size_t len)
{
	put_escaped(f, s, len, ESC_PATH);
}

void fp_summary_put_count(FILE *f, size_t n)
{
	put_count(f, n);
}
