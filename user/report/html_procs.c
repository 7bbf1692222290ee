// SPDX-License-Identifier: GPL-2.0
/*
 * The process tree with its timeline: one row per process, indented
 * under its parent, its bar from start to exit on the run's time axis,
 * coloured by its worst failing finding; a sidecar job's steps as lanes.
 * Rows are bounded: past FP_HTML_CHILDREN children of one process (those
 * whose subtree has a finding are always shown) and FP_HTML_PROC_ROWS in
 * all, the rest is counted in an "and N more" row.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_tree.h"

struct frame {
	size_t node, next; /* next: the child to look at */
	size_t shown;
	uint64_t hidden; /* processes left out under it */
};

struct walk {
	struct fp_html *h;
	struct fp_html_tree *t;
	struct frame *stack;
	size_t rows;
	uint64_t left_out;
};

static const char *sev_class(uint8_t sev)
{
	return sev ? fp_severity_name(sev) : "none";
}

static void bar(struct walk *w, const struct fp_jv *p)
{
	const struct fp_jv *end = fp_jv_get(p, "end_us");
	const struct fp_jv *sig = fp_jv_get(p, "signal");
	int64_t s = fp_jv_int(p, "start_us", 0), e;
	double span = (double)w->t->span_us, width;
	FILE *f = w->h->out;

	e = end && end->type == FP_JV_NUM ? fp_jv_as_int(end, s) :
					    w->t->span_us;
	if (s < 0)
		s = 0;
	if (e < s)
		e = s;
	width = (e - s) * 100.0 / span;
	fprintf(f,
		"<span class=\"t\"><b%s style=\"left:%.3f%%;width:%.3f%%\" title=\"",
		end && end->type == FP_JV_NUM ? "" : " class=\"run\"",
		s * 100.0 / span, width < 0.15 ? 0.15 : width);
	fp_html_duration(f, s);
	fputs(" &rarr; ", f);
	if (end && end->type == FP_JV_NUM)
		fp_html_duration(f, e);
	else
		fputs("still running at the end", f);
	if (sig && sig->type == FP_JV_STR) {
		fputs(", killed by ", f);
		fp_html_text(f, sig->s, sig->len);
	} else if (fp_jv_get(p, "exit_code") &&
		   fp_jv_get(p, "exit_code")->type == FP_JV_NUM) {
		fprintf(f, ", exit %" PRId64, fp_jv_int(p, "exit_code", 0));
	}
	fputs("\"></b></span>", f);
}

static void row(struct walk *w, size_t i, size_t depth)
{
	const struct fp_jv *p = &w->h->procs->items[i];
	const char *exe, *base;
	size_t len;
	char *buf;
	FILE *f = w->h->out;

	fprintf(f,
		"<div class=\"p sev-%s\" data-id=\"%zu\" data-pid=\"%" PRId64
		"\" data-parent=\"%" PRId64 "\" data-depth=\"%zu\""
		" style=\"--d:%zu\"><span class=\"n\" title=\"",
		sev_class(w->h->proc_sev[i]), i, fp_jv_int(p, "pid", 0),
		fp_jv_int(p, "parent", -1), depth, depth > 40 ? 40 : depth);
	fp_html_argv(f, p, 400);
	fputs("\">", f);
	if (fp_html_bytes(p, "exe", &exe, &len, &buf)) {
		base = memrchr(exe, '/', len);
		base = base ? base + 1 : exe;
		fp_html_text(f, base, len - (size_t)(base - exe));
		free(buf);
	} else {
		fputs("?", f);
	}
	fprintf(f, " <i>%" PRId64 "</i>", fp_jv_int(p, "pid", 0));
	if (w->h->proc_nfind[i])
		fprintf(f, " <em>%" PRIu32 " failing</em>",
			w->h->proc_nfind[i]);
	fputs("</span>", f);
	bar(w, p);
	fputs("</div>\n", f);
	w->rows++;
}

static void more(struct walk *w, uint64_t n, size_t depth)
{
	fprintf(w->h->out,
		"<div class=\"p more\" style=\"--d:%zu\"><span class=\"n\">and "
		"%" PRIu64
		" more processes</span><span class=\"t\"></span></div>\n",
		depth > 40 ? 40 : depth, n);
	w->left_out += n;
}

/* show it: within the bounds, or its subtree has a finding */
static bool shows(struct walk *w, size_t shown, size_t cap, size_t node)
{
	if (w->rows >= FP_HTML_PROC_ROWS)
		return false;
	return shown < cap || w->t->sub_sev[node];
}

/* one tree, depth first, without recursion: a table may be deep */
static void tree(struct walk *w, size_t root)
{
	struct fp_html_tree *t = w->t;
	struct frame *top;
	size_t depth = 0, kid;

	row(w, root, 0);
	w->stack[0] = (struct frame){ root, t->first[root], 0, 0 };
	for (;;) {
		top = &w->stack[depth];
		if (top->next == t->first[top->node + 1]) {
			if (top->hidden)
				more(w, top->hidden, depth + 1);
			if (!depth--)
				return;
			continue;
		}
		kid = t->kids[top->next++];
		if (!shows(w, top->shown, FP_HTML_CHILDREN, kid)) {
			top->hidden += t->sub_n[kid];
			continue;
		}
		top->shown++;
		row(w, kid, depth + 1);
		w->stack[++depth] = (struct frame){ kid, t->first[kid], 0, 0 };
	}
}

/* the roots of one lane */
static void lane(struct walk *w, int64_t step)
{
	size_t i, shown = 0;
	uint64_t hidden = 0;

	for (i = 0; i < w->t->n; i++) {
		if (w->t->parent[i] >= 0 || w->t->lane[i] != step)
			continue;
		if (!shows(w, shown, FP_HTML_CHILDREN * 5, i)) {
			hidden += w->t->sub_n[i];
			continue;
		}
		shown++;
		tree(w, i);
	}
	if (hidden)
		more(w, hidden, 0);
}

static void axis(struct walk *w)
{
	FILE *f = w->h->out;
	int i;

	fputs("<div class=\"p axis\"><span class=\"n\">process</span>"
	      "<span class=\"t\">",
	      f);
	for (i = 0; i <= 4; i++) {
		fprintf(f, "<u style=\"left:%d%%\">", i * 25);
		fp_html_duration(f, w->t->span_us * i / 4);
		fputs("</u>", f);
	}
	fputs("</span></div>\n", f);
}

/* a lane's processes: how many, and when the first started and the
 * last ended */
struct lane_span {
	size_t n;
	int64_t lo, hi;
};

static struct lane_span in_lane(const struct walk *w, int64_t step)
{
	struct lane_span sp = { 0, INT64_MAX, 0 };
	const struct fp_jv *p, *end;
	int64_t s, e;
	size_t i;

	for (i = 0; i < w->t->n; i++) {
		if (w->t->lane[i] != step)
			continue;
		p = &w->h->procs->items[i];
		end = fp_jv_get(p, "end_us");
		s = fp_jv_int(p, "start_us", 0);
		e = end && end->type == FP_JV_NUM ? fp_jv_as_int(end, s) :
						    w->t->span_us;
		sp.n++;
		sp.lo = s < sp.lo ? s : sp.lo;
		sp.hi = e > sp.hi ? e : sp.hi;
	}
	return sp;
}

/* the head of a lane: its name on the left, its span on the time axis */
static void lane_head(struct walk *w, const struct fp_jv *step,
		      struct lane_span sp)
{
	FILE *f = w->h->out;
	int64_t idx = fp_jv_int(step, "index", -1);
	double span = (double)w->t->span_us, lo = sp.lo < 0 ? 0 : sp.lo;

	if (step)
		fprintf(f,
			"<section class=\"lane%s\" data-step=\"%" PRId64
			"\"><h3 class=\"p lh\"><span class=\"n\">step %" PRId64
			": ",
			fp_jv_bool(step, "ok") == 0 ? " failing" : "", idx,
			idx);
	else
		fputs("<section class=\"lane\" data-step=\"none\"><h3 "
		      "class=\"p lh\"><span class=\"n\">outside any step",
		      f);
	fp_html_field(f, step, "name", "");
	fprintf(f, " <small>%zu processes", sp.n);
	if (fp_jv_int(step, "failing", 0))
		fprintf(f, ", %" PRId64 " failing findings",
			fp_jv_int(step, "failing", 0));
	fputs("</small></span><span class=\"t\">", f);
	if (sp.n)
		fprintf(f, "<b style=\"left:%.3f%%;width:%.3f%%\"></b>",
			lo * 100.0 / span, (sp.hi - lo) * 100.0 / span);
	fputs("</span></h3>\n", f);
}

static void lanes(struct walk *w)
{
	const struct fp_jv *steps = fp_jv_get(w->h->r, "steps");
	struct lane_span sp;
	size_t i;
	int64_t idx;

	for (i = 0; steps && steps->type == FP_JV_ARR && i < steps->n &&
		    i < FP_HTML_LANES;
	     i++) {
		idx = fp_jv_int(&steps->items[i], "index", -1);
		if (idx < 0)
			continue;
		lane_head(w, &steps->items[i], in_lane(w, idx));
		lane(w, idx);
		fputs("</section>\n", w->h->out);
	}
	sp = in_lane(w, -1);
	if (!sp.n)
		return;
	if (steps && steps->type == FP_JV_ARR)
		lane_head(w, NULL, sp);
	else
		fputs("<section class=\"lane\" data-step=\"none\">\n",
		      w->h->out);
	lane(w, -1);
	fputs("</section>\n", w->h->out);
}

int fp_html_procs_section(struct fp_html *h)
{
	struct fp_html_tree t;
	struct walk w = { .h = h, .t = &t };
	const struct fp_jv *om = fp_jv_get(h->r, "process_table_omitted");

	fputs("<section id=\"processes\"><h2>Processes</h2>\n", h->out);
	if (!h->procs) {
		fputs("<p class=\"none\">This receipt has no process table "
		      "(it was made by a footprint before receipt format 2): "
		      "replay its log with this footprint to see the tree.</p>"
		      "</section>\n",
		      h->out);
		return 0;
	}
	if (fp_html_tree_build(&t, h))
		return -ENOMEM;
	w.stack = calloc(t.n + 1, sizeof(*w.stack));
	if (!w.stack) {
		fp_html_tree_free(&t);
		return -ENOMEM;
	}
	fprintf(h->out, "<p class=\"meta\">%zu processes", t.n);
	if (fp_jv_as_int(om, 0) > 0)
		fprintf(h->out, " (and %" PRId64 " the receipt left out)",
			fp_jv_as_int(om, 0));
	fputs("; a bar runs from the fork or exec to the exit, its colour "
	      "is the worst failing finding of the process.</p>\n"
	      "<div class=\"tree\">\n",
	      h->out);
	axis(&w);
	lanes(&w);
	fputs("</div>\n", h->out);
	if (w.left_out)
		fprintf(h->out,
			"<p class=\"more\">%" PRIu64
			" processes are counted in "
			"the \"and N more\" rows.</p>\n",
			w.left_out);
	fputs("</section>\n", h->out);
	free(w.stack);
	fp_html_tree_free(&t);
	return 0;
}
