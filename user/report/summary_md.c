// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netflow.h"
#include "severity.h"
#include "summary_md.h"
#include "summary_net.h"

/* room kept for the closing "and N more" line */
#define TAIL_ROOM 96
/* bytes of a path or command line in one example */
#define EXAMPLE_BYTES 160
/* bytes of a step name in a heading */
#define NAME_BYTES 100
/* rows of the step overview; a job has fewer, a hand-marked one may not */
#define OVERVIEW_ROWS 100
/* rows of the destinations table */
#define NET_ROWS 20

/*
 * Markdown (CommonMark and GitHub's tables): every ASCII punctuation
 * character may be backslash-escaped, which keeps it from making a link,
 * emphasis, code span, heading, cell border or autolink; <, > and & go as
 * entities so no tag can form. Bytes that are not characters, controls
 * and invisible characters are written as \xNN / \u{N} in plain text.
 */
void fp_md_escape(struct fp_sbuf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;
	char c;

	while (i < len && !b->err) {
		n = fp_utf8_decode(p + i, len - i, &cp);
		if (!n) {
			fp_sbuf_printf(b, "\\x%02x", p[i++]);
			continue;
		}
		c = n == 1 ? (char)cp : 'a';
		if (cp < 0x20 || cp == 0x7f)
			fp_sbuf_printf(b, "\\x%02x", (unsigned int)cp);
		else if (n > 1 && fp_cp_sneaky(cp))
			fp_sbuf_printf(b, "\\u{%x}", (unsigned int)cp);
		else if (c == '<')
			fp_sbuf_str(b, "&lt;");
		else if (c == '>')
			fp_sbuf_str(b, "&gt;");
		else if (c == '&')
			fp_sbuf_str(b, "&amp;");
		else if (strchr("!\"#$%'()*+,-./:;=?@[\\]^_`{|}~", c))
			fp_sbuf_printf(b, "\\%c", c);
		else
			fp_sbuf_add(b, s + i, n);
		i += n;
	}
}

/* ---- the summary ---- */

struct md {
	struct fp_sbuf out;
	size_t max;
	bool cut;
	size_t shown; /* failing findings a row counted */
	size_t steps_shown;
};

/* Append line whole, or cut the summary there. */
static bool emit(struct md *m, struct fp_sbuf *line)
{
	if (line->err) {
		m->out.err = true;
	} else if (!m->cut && m->out.len + line->len + TAIL_ROOM <= m->max) {
		fp_sbuf_add(&m->out, line->p ?: "", line->len);
	} else {
		m->cut = true;
	}
	line->len = 0;
	return !m->cut;
}

static void add_name(struct fp_sbuf *b, const struct fp_step *st)
{
	size_t n = st->name.len < NAME_BYTES ? st->name.len : NAME_BYTES;

	fp_md_escape(b, st->name.data, n);
	if (n < st->name.len)
		fp_sbuf_str(b, "...");
}

/* Unmet expectations are not among them: judging keeps only the first
 * reasons, so they come from v->expects (unmet_expect()). */
static bool general_reason(const char *r)
{
	return !strncmp(r, "command", 7) || !strncmp(r, "trace", 5) ||
	       !strncmp(r, "footprint", 9) || !strncmp(r, "unit ", 5);
}

/* the rule of the i-th unmet expectation, or NULL past the last */
static const char *unmet_expect(const struct fp_verdict *v, size_t i)
{
	const struct fp_expect *e = v->expects.v;
	size_t k;

	for (k = 0; k < v->expects.n; k++)
		if (!e[k].met && !i--)
			return e[k].rule->text;
	return NULL;
}

static void verdict(struct md *m, const struct fp_verdict *v, struct fp_sbuf *l)
{
	size_t i, n = 0;

	if (v->ok)
		fp_sbuf_str(l, "## footprint: ok\n\n");
	else
		fp_sbuf_printf(l,
			       "## footprint: FAIL (%zu failing finding%s)\n\n",
			       v->failing, v->failing == 1 ? "" : "s");
	emit(m, l);
	for (i = 0; i < v->reasons.n; i++) {
		const char *r = ((char **)v->reasons.v)[i];

		if (!general_reason(r))
			continue;
		fp_sbuf_str(l, "- ");
		fp_md_escape(l, r, strlen(r));
		fp_sbuf_str(l, "\n");
		emit(m, l);
		n++;
	}
	for (i = 0; unmet_expect(v, i); i++, n++) {
		const char *r = unmet_expect(v, i);

		fp_sbuf_str(l, "- expected change missing: ");
		fp_md_escape(l, r, strlen(r));
		fp_sbuf_str(l, "\n");
		emit(m, l);
	}
	if (n) {
		fp_sbuf_str(l, "\n");
		emit(m, l);
	}
}

static void overview(struct md *m, const struct fp_findings *fi,
		     const struct fp_step_count *c, struct fp_sbuf *l)
{
	size_t i, failing;

	if (!fi->steps.n)
		return;
	fp_sbuf_str(l, "| step | name | failing |\n|---:|---|---:|\n");
	emit(m, l);
	for (i = 0; i < fi->steps.n && i < OVERVIEW_ROWS; i++) {
		const struct fp_step *st = &FP_STEPS(fi)[i];

		fp_sbuf_printf(l, "| %u | ", st->index);
		add_name(l, st);
		fp_sbuf_printf(l, " | %zu |\n", c[st->index].failing_all);
		if (!emit(m, l))
			return;
		m->steps_shown++;
	}
	for (failing = 0; i < fi->steps.n; i++)
		failing += c[i + 1].failing_all;
	if (m->steps_shown < fi->steps.n) {
		fp_sbuf_printf(l, "| | and %zu more steps | %zu |\n",
			       fi->steps.n - m->steps_shown, failing);
		if (emit(m, l))
			m->steps_shown = fi->steps.n;
	}
	fp_sbuf_str(l, "\n");
	emit(m, l);
}

static void heading(struct md *m, const struct fp_findings *fi,
		    unsigned int step, size_t failing, struct fp_sbuf *l)
{
	const struct fp_step *st = fp_findings_step(fi, step);

	if (st) {
		fp_sbuf_printf(l, "### Step %u", st->index);
		if (st->named != FP_STEP_NAMED_ORDER) {
			fp_sbuf_str(l, ": ");
			add_name(l, st);
		}
	} else {
		fp_sbuf_str(l, fi->steps.n ? "### Outside any step" :
					     "### Failing findings");
	}
	fp_sbuf_printf(l,
		       " (%zu failing)\n\n| finding | count | examples |\n"
		       "|---|---:|---|\n",
		       failing);
	emit(m, l);
}

/* one row: refs[0..n) are one category of one step */
static void row(struct md *m, const struct fp_findings *fi,
		const struct fp_fref *refs, size_t n, struct fp_sbuf *l)
{
	struct fp_sbuf d = { 0 };
	char cat[64];
	size_t i;

	fp_cat_name(refs[0].cat, cat, sizeof(cat));
	fp_sbuf_str(l, "| ");
	fp_md_escape(l, cat, strlen(cat));
	fp_sbuf_printf(l, " | %zu | ", n);
	for (i = 0; i < n && i < FP_MD_EXAMPLES; i++) {
		d.len = 0;
		fp_fref_describe(fi, &refs[i], EXAMPLE_BYTES, &d);
		if (i)
			fp_sbuf_str(l, "<br>");
		fp_md_escape(l, d.p ?: "", d.len);
		l->err |= d.err;
	}
	if (n > FP_MD_EXAMPLES)
		fp_sbuf_printf(l, "<br>and %zu more", n - FP_MD_EXAMPLES);
	fp_sbuf_str(l, " |\n");
	fp_sbuf_free(&d);
	if (emit(m, l))
		m->shown += n;
}

/* the failing findings, by step, one table each */
static void tables(struct md *m, const struct fp_findings *fi,
		   const struct fp_step_count *c, const struct fp_vec *refs,
		   struct fp_sbuf *l)
{
	const struct fp_fref *r = refs->v;
	size_t i = 0, j;

	while (i < refs->n && !m->cut) {
		unsigned int step = r[i].step;
		size_t k = step <= fi->steps.n ? step : 0;

		heading(m, fi, step, c[k].failing_all, l);
		while (i < refs->n && r[i].step == step && !m->cut) {
			for (j = i; j < refs->n && r[j].step == step &&
				    r[j].cat == r[i].cat;
			     j++)
				;
			row(m, fi, &r[i], j - i, l);
			i = j;
		}
		fp_sbuf_str(l, "\n");
		emit(m, l);
	}
}

/* where the run connected to, failing or not, by name where DNS told */
static void destinations(struct md *m, const struct fp_findings *fi,
			 struct fp_sbuf *l)
{
	const struct fp_conn_finding *x = fi->connected.v;
	size_t i;

	if (!fi->connected.n)
		return;
	fp_sbuf_printf(l,
		       "### Network: %zu destination%s\n\n"
		       "| destination | by | calls | verdict |\n"
		       "|---|---|---:|---|\n",
		       fi->connected.n, fi->connected.n == 1 ? "" : "s");
	emit(m, l);
	for (i = 0; i < fi->connected.n && i < NET_ROWS; i++) {
		fp_md_conn_row(l, &x[i]);
		emit(m, l);
	}
	if (i < fi->connected.n)
		fp_sbuf_printf(l, "| and %zu more | | | |\n",
			       fi->connected.n - i);
	fp_sbuf_str(l, "\n");
	emit(m, l);
}

static void tail(struct md *m, size_t failing, size_t steps)
{
	size_t more = failing - m->shown;

	/* rows of the step overview, when every finding was shown */
	if (!more)
		more = steps - m->steps_shown;
	if (!m->cut || !more)
		return;
	/* the room was kept for this line */
	fp_sbuf_printf(&m->out, "\nand %zu more: see the receipt\n", more);
}

int fp_summary_md_write(FILE *f, const struct fp_findings *fi,
			const struct fp_verdict *v, size_t max)
{
	struct md m = { .max = max };
	struct fp_sbuf l = { 0 };
	struct fp_step_count *c = fp_step_counts(fi);
	struct fp_vec refs = { 0 };
	int ret = -ENOMEM;

	if (!c || fp_frefs_ranked(fi, &v->sev, true, &refs))
		goto out;
	verdict(&m, v, &l);
	overview(&m, fi, c, &l);
	tables(&m, fi, c, &refs, &l);
	destinations(&m, fi, &l);
	tail(&m, refs.n, fi->steps.n);
	if (!m.out.err && !l.err) {
		fwrite(m.out.p ?: "", 1, m.out.len, f);
		ret = 0;
	}
out:
	free(c);
	free(refs.v);
	fp_sbuf_free(&l);
	fp_sbuf_free(&m.out);
	return ret;
}

/* ---- annotations ---- */

/* GitHub decodes %25, %0D and %0A in a command's message, and also %3A
 * and %2C in a property. Other controls and bytes that are not UTF-8
 * would still reach the log: they go as \xNN text. */
static void gh_escape(struct fp_sbuf *b, const char *s, size_t len,
		      bool property)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;

	while (i < len && !b->err) {
		n = fp_utf8_decode(p + i, len - i, &cp);
		if (!n)
			fp_sbuf_printf(b, "\\x%02x", p[i]);
		else if (cp == '%' || cp == '\r' || cp == '\n' ||
			 (property && (cp == ':' || cp == ',')))
			fp_sbuf_printf(b, "%%%02X", (unsigned int)cp);
		else if (cp < 0x20 || cp == 0x7f)
			fp_sbuf_printf(b, "\\x%02x", (unsigned int)cp);
		else if (n > 1 && fp_cp_sneaky(cp))
			fp_sbuf_printf(b, "\\u{%x}", (unsigned int)cp);
		else
			fp_sbuf_add(b, s + i, n);
		i += n ? n : 1;
	}
}

void fp_gh_escape_data(struct fp_sbuf *b, const char *s, size_t len)
{
	gh_escape(b, s, len, false);
}

void fp_gh_escape_property(struct fp_sbuf *b, const char *s, size_t len)
{
	gh_escape(b, s, len, true);
}

static void annotation(FILE *f, const struct fp_sbuf *msg, struct fp_sbuf *l)
{
	static const char title[] = "footprint";

	l->len = 0;
	fp_sbuf_str(l, "::error title=");
	fp_gh_escape_property(l, title, strlen(title));
	fp_sbuf_str(l, "::");
	fp_gh_escape_data(l, msg->p ?: "", msg->len);
	fp_sbuf_str(l, "\n");
	if (!l->err)
		fwrite(l->p, 1, l->len, f);
}

/* "step 2 (Build): files.outside_roots: /etc/x by pid 9 sh" */
static void finding_message(const struct fp_findings *fi,
			    const struct fp_fref *r, struct fp_sbuf *msg)
{
	const struct fp_step *st = fp_findings_step(fi, r->step);
	char cat[64];

	msg->len = 0;
	if (st) {
		fp_sbuf_printf(msg, "step %u (", st->index);
		fp_sbuf_add(msg, st->name.data,
			    st->name.len < NAME_BYTES ? st->name.len :
							NAME_BYTES);
		fp_sbuf_str(msg, "): ");
	}
	fp_sbuf_printf(msg, "%s: ", fp_cat_name(r->cat, cat, sizeof(cat)));
	fp_fref_describe(fi, r, 2 * EXAMPLE_BYTES, msg);
}

int fp_annotations_write(FILE *f, const struct fp_findings *fi,
			 const struct fp_verdict *v, size_t max)
{
	struct fp_sbuf msg = { 0 }, l = { 0 };
	enum fp_severity expected = fp_severity_in(&v->sev, "expected", 8);
	const struct fp_fref *r;
	struct fp_vec refs;
	size_t i, k = 0, lines = 0;
	int ret = 0;

	/* the most severe first: never a low one while a higher one has no
	 * line (an unmet expect ranks as "expected") */
	if (fp_frefs_ranked(fi, &v->sev, false, &refs))
		return -ENOMEM;
	r = refs.v;
	for (i = 0; i < v->reasons.n && lines < max; i++) {
		const char *r = ((char **)v->reasons.v)[i];

		if (!general_reason(r))
			continue;
		msg.len = 0;
		fp_sbuf_str(&msg, r);
		annotation(f, &msg, &l);
		lines++;
	}
	for (i = 0; i < refs.n && r[i].sev > expected && lines < max;
	     i++, lines++) {
		finding_message(fi, &r[i], &msg);
		annotation(f, &msg, &l);
	}
	for (; unmet_expect(v, k) && lines < max; k++, lines++) {
		msg.len = 0;
		fp_sbuf_str(&msg, "expected change missing: ");
		fp_sbuf_str(&msg, unmet_expect(v, k));
		annotation(f, &msg, &l);
	}
	for (; i < refs.n && lines < max; i++, lines++) {
		finding_message(fi, &r[i], &msg);
		annotation(f, &msg, &l);
	}
	if (msg.err || l.err)
		ret = -ENOMEM;
	fp_sbuf_free(&msg);
	fp_sbuf_free(&l);
	free(refs.v);
	return ret;
}
