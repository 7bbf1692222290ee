// SPDX-License-Identifier: GPL-2.0
/* The HTML report's head: the verdict, and the findings by severity. */
#include <inttypes.h>
#include <string.h>

#include "html_int.h"

static void outcome(struct fp_html *h, const struct fp_jv *cmd)
{
	const struct fp_jv *trace = fp_jv_get(h->r, "trace");
	const struct fp_jv *sig = fp_jv_get(cmd, "signal");
	FILE *f = h->out;

	fputs("<p class=\"meta\">", f);
	if (fp_jv_bool(cmd, "timed_out") == 1)
		fputs("timed out", f);
	else if (sig && sig->type != FP_JV_NULL)
		fprintf(f, "killed by signal %" PRId64, fp_jv_as_int(sig, 0));
	else
		fprintf(f, "exit code %" PRId64,
			fp_jv_int(cmd, "exit_code", -1));
	fputs(" &middot; ", f);
	fp_html_duration(f, fp_jv_int(cmd, "duration_ms", 0) * 1000);
	fprintf(f, " &middot; %" PRId64 " events",
		fp_jv_int(trace, "events", 0));
	if (fp_jv_int(trace, "lost", 0))
		fprintf(f, ", <b>%" PRId64 " lost</b>",
			fp_jv_int(trace, "lost", 0));
	if (fp_jv_bool(trace, "complete") == 0) {
		fputs(" &middot; <b>trace incomplete</b> ", f);
		fp_html_field(f, trace, "reason", "");
	}
	if (fp_jv_str(h->r, "mode"))
		fputs(" &middot; sidecar job", f);
	fputs("</p>\n<p class=\"meta\">", f);
	fp_html_field(f, fp_jv_get(h->r, "provenance"), "user", "?");
	fputs(" on ", f);
	fp_html_field(f, fp_jv_get(h->r, "provenance"), "host", "?");
	fputs(", ", f);
	fp_html_field(f, fp_jv_get(h->r, "provenance"), "started", "?");
	fputs(" &middot; footprint ", f);
	fp_html_field(f, fp_jv_get(h->r, "provenance"), "footprint", "?");
	fputs("</p>\n", f);
}

/* the failing findings the page lists, by severity (the receipt's
 * by_severity may count more than fail) */
static void chips(struct fp_html *h)
{
	int s;
	int64_t n;

	fputs("<p class=\"chips\">", h->out);
	for (s = FP_SEV_CRITICAL; s >= FP_SEV_LOW; s--) {
		n = (int64_t)h->by_sev[s];
		fprintf(h->out,
			"<a class=\"chip sev-%s\" data-sev=\"%s\" "
			"data-count=\"%" PRId64 "\" href=\"#sev-%s\">%" PRId64
			" %s</a> ",
			fp_severity_name(s), fp_severity_name(s), n,
			fp_severity_name(s), n, fp_severity_name(s));
	}
	fputs("</p>\n", h->out);
}

void fp_html_verdict(struct fp_html *h)
{
	const struct fp_jv *cmd = fp_jv_get(h->r, "command");
	const struct fp_jv *rs = fp_jv_get(h->r, "reasons");
	bool ok = fp_jv_bool(h->r, "ok") == 1;
	size_t i, n = rs && rs->type == FP_JV_ARR ? rs->n : 0;

	fprintf(h->out,
		"<header id=\"verdict\" class=\"%s\" data-ok=\"%s\">\n"
		"<h1><span class=\"badge\">%s</span> <code>",
		ok ? "ok" : "fail", ok ? "true" : "false",
		ok ? "ok" : "FAILED");
	fp_html_argv(h->out, cmd, 300);
	fputs("</code></h1>\n", h->out);
	outcome(h, cmd);
	chips(h);
	if (n)
		fputs("<ol class=\"reasons\">\n", h->out);
	for (i = 0; i < n && i < FP_HTML_REASONS; i++) {
		if (rs->items[i].type != FP_JV_STR)
			continue;
		fputs("<li>", h->out);
		fp_html_text(h->out, rs->items[i].s, rs->items[i].len);
		fputs("</li>\n", h->out);
	}
	if (n > FP_HTML_REASONS)
		fprintf(h->out, "<li class=\"more\">and %zu more</li>\n",
			n - FP_HTML_REASONS);
	if (n)
		fputs("</ol>\n", h->out);
	fputs("</header>\n", h->out);
}

/* the step a finding is in: its own, or its actor's */
static void step_of(FILE *f, const struct fp_html_finding *x)
{
	const struct fp_jv *o = fp_jv_get(x->e, "step") ? x->e : x->by;

	if (!o || !fp_jv_get(o, "step"))
		return;
	fputs(" <span class=\"step\">step ", f);
	fp_html_field(f, o, "step", "");
	fputs("</span>", f);
}

static void finding(FILE *f, const struct fp_html_finding *x)
{
	const char *sev = fp_severity_name(x->sev);

	fprintf(f, "<li class=\"finding sev-%s\" data-sev=\"%s\" data-list=\"",
		sev, sev);
	fp_html_str(f, x->list);
	fputs("\"><span class=\"list\">", f);
	fp_html_str(f, x->list);
	fputs("</span> <code class=\"subj\">", f);
	fp_html_subject(f, x->e);
	fputs("</code>", f);
	if (fp_jv_str(x->e, "secret")) {
		fputs(" <span class=\"tag\">", f);
		fp_html_field(f, x->e, "secret", "");
		fputs("</span>", f);
	}
	if (fp_jv_bool(x->e, "forbidden") == 1)
		fputs(" <span class=\"tag\">forbidden</span>", f);
	if (x->by && x->by != x->e) {
		fputs(" <span class=\"who\">by ", f);
		fp_html_field(f, x->by, "exe", "?");
		fprintf(f, " (pid %" PRId64 ")</span>",
			fp_jv_int(x->by, "pid", 0));
	}
	step_of(f, x);
	fputs("</li>\n", f);
}

void fp_html_findings_section(struct fp_html *h)
{
	size_t i = 0, shown;
	int s;

	fputs("<section id=\"findings\"><h2>Findings by severity</h2>\n",
	      h->out);
	if (!h->nfind)
		fputs("<p class=\"none\">No finding fails the verdict.</p>\n",
		      h->out);
	for (s = FP_SEV_CRITICAL; s >= FP_SEV_LOW; s--) {
		if (!h->by_sev[s])
			continue;
		/* low findings wait behind a click when worse ones are there */
		fprintf(h->out,
			"<details class=\"sev\"%s><summary><h3 id=\"sev-%s\" "
			"class=\"sev-%s\">%s <small>%" PRIu64
			"</small></h3></summary>\n<ol class=\"findings\">\n",
			s > FP_SEV_LOW || i == 0 ? " open" : "",
			fp_severity_name(s), fp_severity_name(s),
			fp_severity_name(s), h->by_sev[s]);
		for (shown = 0; i < h->nfind && h->find[i].sev == (unsigned)s;
		     i++, shown++)
			if (shown < FP_HTML_FINDINGS_PER_SEV)
				finding(h->out, &h->find[i]);
		if (shown > FP_HTML_FINDINGS_PER_SEV)
			fprintf(h->out,
				"<li class=\"more\">and %zu more</li>\n",
				shown - FP_HTML_FINDINGS_PER_SEV);
		fputs("</ol></details>\n", h->out);
	}
	fputs("</section>\n", h->out);
}
