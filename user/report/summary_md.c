// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netflow.h"
#include "sensitive.h"
#include "severity.h"
#include "summary_md.h"
#include "summary_int.h"
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
/* policy lines in the summary; the receipt has them all */
#define SUGGEST_ROWS 20

/*
 * Markdown text (CommonMark and GitHub's tables) that reads as it is:
 * only what could make markup is escaped. A backslash before \ ` * _ [ ]
 * | ~ keeps them from making emphasis, code, a link, a cell border or a
 * strike; <, > and & go as entities, so no tag or entity forms; a # or a
 * ! cannot start a heading or an image in a cell or an item, and a ':'
 * followed by "//" or an '@' would make an autolink, so they are escaped
 * too. Bytes that are not characters, controls and invisible characters
 * are written as \xNN / \u{N}.
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
		else if (strchr("\\`*_[]|~#!@", c) ||
			 (c == ':' && len - i > 2 &&
			  !memcmp(s + i + 1, "//", 2)))
			fp_sbuf_printf(b, "\\%c", c);
		else
			fp_sbuf_add(b, s + i, n);
		i += n;
	}
}

/*
 * s as a code span: paths and command lines read as they are. A code
 * span takes no escapes, so its fence is one backtick longer than the
 * longest run in s, with a space inside when s starts or ends with one;
 * a '|' still ends a table cell, so it goes as \| there (GitHub's tables
 * take that in a code span). What is not a character is \xNN / \u{N}.
 */
void fp_md_code(struct fp_sbuf *b, const char *s, size_t len, bool in_cell)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n, run = 0, longest = 0, k;
	bool pad;
	uint32_t cp;

	for (k = 0; k < len; k++) {
		run = s[k] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = len && (s[0] == '`' || s[len - 1] == '`' || s[0] == ' ');
	for (k = 0; k <= longest; k++)
		fp_sbuf_str(b, "`");
	if (pad)
		fp_sbuf_str(b, " ");
	while (i < len && !b->err) {
		n = fp_utf8_decode(p + i, len - i, &cp);
		if (!n)
			fp_sbuf_printf(b, "\\x%02x", p[i]);
		else if (cp < 0x20 || cp == 0x7f)
			fp_sbuf_printf(b, "\\x%02x", (unsigned int)cp);
		else if (n > 1 && fp_cp_sneaky(cp))
			fp_sbuf_printf(b, "\\u{%x}", (unsigned int)cp);
		else if (cp == '|' && in_cell)
			fp_sbuf_str(b, "\\|");
		else
			fp_sbuf_add(b, s + i, n);
		i += n ? n : 1;
	}
	if (pad)
		fp_sbuf_str(b, " ");
	for (k = 0; k <= longest; k++)
		fp_sbuf_str(b, "`");
}

/* ---- the summary ---- */

struct md {
	struct fp_sbuf out;
	size_t max;
	bool cut;
	size_t shown; /* failing findings a line counted */
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

/* "## footprint: FAIL (N failing findings: 1 critical, 3 low)" */
static void verdict_line(const struct fp_vec *refs, const struct fp_verdict *v,
			 struct fp_sbuf *l)
{
	const struct fp_fref *r = refs->v;
	size_t n[FP_SEV_CRITICAL + 1] = { 0 }, i;
	int s;
	bool first = true;

	if (v->ok) {
		fp_sbuf_str(l, "## footprint: ok\n\n");
		return;
	}
	fp_sbuf_printf(l, "## footprint: FAIL (%zu failing finding%s",
		       v->failing, v->failing == 1 ? "" : "s");
	for (i = 0; i < refs->n; i++)
		n[r[i].sev]++;
	for (s = FP_SEV_CRITICAL; s >= FP_SEV_LOW; s--) {
		if (!n[s])
			continue;
		fp_sbuf_printf(l, "%s%zu %s", first ? ": " : ", ", n[s],
			       fp_severity_name(s));
		first = false;
	}
	fp_sbuf_str(l, ")\n\n");
}

static void verdict(struct md *m, const struct fp_vec *refs,
		    const struct fp_verdict *v, struct fp_sbuf *l)
{
	size_t i, n = 0;

	verdict_line(refs, v, l);
	emit(m, l);
	for (i = 0; i < v->reasons.n; i++) {
		const char *r = *fp_vec_at(&v->reasons, char *, i);

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
		fp_md_code(l, r, strlen(r), false);
		fp_sbuf_str(l, "\n");
		emit(m, l);
	}
	if (n) {
		fp_sbuf_str(l, "\n");
		emit(m, l);
	}
}

/* "step 2 build" or "no step" */
static void step_label(struct fp_sbuf *l, const struct fp_findings *fi,
		       unsigned int step)
{
	const struct fp_step *st = fp_findings_step(fi, step);

	if (!st) {
		fp_sbuf_str(l, "outside any step");
		return;
	}
	fp_sbuf_printf(l, "%u ", st->index);
	add_name(l, st);
}

/*
 * One row per step with failing findings, the step of the worst first
 * (refs' order); the steps with none counted in one row.
 */
static void overview(struct md *m, const struct fp_findings *fi,
		     const struct fp_step_count *c, const struct fp_vec *refs,
		     struct fp_sbuf *l)
{
	const struct fp_fref *r = refs->v;
	size_t i, k, rows = 0, clean = 0, more = 0, more_failing = 0;

	if (!fi->steps.n)
		return;
	fp_sbuf_str(l, "| step | failing | most severe |\n|---|---:|---|\n");
	emit(m, l);
	for (i = 0; i < refs->n; i++) {
		if (i && r[i].step == r[i - 1].step)
			continue;
		k = r[i].step <= fi->steps.n ? r[i].step : 0;
		if (rows++ >= OVERVIEW_ROWS) {
			more++;
			more_failing += c[k].failing_all;
			continue;
		}
		fp_sbuf_str(l, "| ");
		step_label(l, fi, r[i].step);
		fp_sbuf_printf(l, " | %zu | %s |\n", c[k].failing_all,
			       fp_severity_name(r[i].sev));
		emit(m, l);
	}
	if (more) {
		fp_sbuf_printf(l, "| and %zu more steps | %zu | |\n", more,
			       more_failing);
		emit(m, l);
	}
	for (i = 1; i <= fi->steps.n; i++)
		clean += !c[i].failing_all;
	if (clean) {
		fp_sbuf_printf(l, "| %zu other step%s | 0 | |\n", clean,
			       clean == 1 ? "" : "s");
		emit(m, l);
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
	fp_sbuf_printf(l, " (%zu failing)\n\n", failing);
	emit(m, l);
}

/* " by pid N `argv`": who, the command line in a code span */
static void who(struct fp_sbuf *l, const struct fp_actor *a)
{
	struct fp_sbuf d = { 0 };
	size_t i;

	if (!a->pid)
		return;
	fp_sbuf_printf(l, " by pid %d ", (int)a->pid);
	fp_sbuf_cut(&d, a->argv.data ?: "", a->argv.len, EXAMPLE_BYTES);
	for (i = 0; i < d.len && !d.err; i++)
		if (!d.p[i])
			d.p[i] = ' ';
	while (d.len && d.p[d.len - 1] == ' ')
		d.len--;
	fp_md_code(l, d.p ?: "", d.len, false);
	l->err |= d.err;
	fp_sbuf_free(&d);
}

/* one finding: its path in a code span, and who; else its words in one */
static void example(struct fp_sbuf *l, const struct fp_findings *fi,
		    const struct fp_fref *r)
{
	struct fp_sbuf d = { 0 };

	if (fp_cat_is_file(r->cat)) {
		const struct fp_file_finding *x =
			&FP_FILES(fi, r->cat - FP_CAT_FILES)[r->i];

		fp_md_code(l, x->path.data, x->path.len, false);
		who(l, r->cat - FP_CAT_FILES == FP_F_TRANSIENT ?
			       fp_ff_actor(x, created_by) :
			       &x->by);
	} else if (r->cat == FP_CAT_READ) {
		const struct fp_read_finding *x = fp_fref_read(fi, r->i);

		fp_md_code(l, x->path.data, x->path.len, false);
		if (x->secret)
			fp_sbuf_printf(l, " (secret: %s)", x->secret);
		who(l, &x->by);
	} else if (fp_cat_is_proc(r->cat)) {
		const struct fp_proc_finding *x =
			fp_fref_proc(fi, r->cat, r->i);

		fp_md_code(l, x->p.exe.data ?: "", x->p.exe.len, false);
		who(l, &x->p);
	} else {
		fp_fref_describe(fi, r, EXAMPLE_BYTES, &d);
		fp_md_code(l, d.p ?: "", d.len, false);
	}
	l->err |= d.err;
	fp_sbuf_free(&d);
}

/* a file category's findings as "N under `DIR/`", as the stderr summary */
static int grouped(struct fp_sbuf *l, const struct fp_findings *fi,
		   const struct fp_fref *refs, size_t n)
{
	struct fp_pgroup *g;
	size_t ng, i;

	if (fp_summary_groups(fi, refs, n, FP_MD_EXAMPLES, &g, &ng))
		return -ENOMEM;
	for (i = 0; i < ng; i++) {
		fp_sbuf_str(l, i ? "; " : "");
		if (g[i].n == 1) {
			example(l, fi, g[i].ref);
			continue;
		}
		fp_sbuf_printf(l, "%zu under ", g[i].n);
		fp_md_code(l, g[i].dir, g[i].dlen, false);
	}
	free(g);
	return 0;
}

/* one line: refs[0..n) are one category of one step */
static int line(struct md *m, const struct fp_findings *fi,
		const struct fp_fref *refs, size_t n, struct fp_sbuf *l)
{
	char cat[64];
	size_t i;

	fp_cat_name(refs[0].cat, cat, sizeof(cat));
	fp_sbuf_printf(l, "- **%s** %s", fp_severity_name(refs[0].sev), cat);
	if (n > 1)
		fp_sbuf_printf(l, " %zu", n);
	fp_sbuf_str(l, ": ");
	if (n > 1 && fp_summary_groupable(refs[0].cat)) {
		if (grouped(l, fi, refs, n))
			return -ENOMEM;
	} else {
		for (i = 0; i < n && i < FP_MD_EXAMPLES; i++) {
			fp_sbuf_str(l, i ? "; " : "");
			example(l, fi, &refs[i]);
		}
		if (n > FP_MD_EXAMPLES)
			fp_sbuf_printf(l, "; and %zu more", n - FP_MD_EXAMPLES);
	}
	fp_sbuf_str(l, "\n");
	if (emit(m, l))
		m->shown += n;
	return 0;
}

/* the failing findings, by step (the worst step first), a line each
 * category, the most severe first */
static int sections(struct md *m, const struct fp_findings *fi,
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
			if (line(m, fi, &r[i], j - i, l))
				return -ENOMEM;
			i = j;
		}
		fp_sbuf_str(l, "\n");
		emit(m, l);
	}
	return 0;
}

/* what a reviewer need not read: loopback, a unix socket, the resolver */
static bool routine(const struct fp_conn_finding *x)
{
	return !x->failing && (x->loopback || x->resolver || x->port == 53);
}

/* where the run connected to: a row each, the routine ones in one line */
static void destinations(struct md *m, const struct fp_findings *fi,
			 struct fp_sbuf *l)
{
	const struct fp_conn_finding *x = fi->connected.v;
	size_t i, rows = 0, folded = 0, calls = 0;

	if (!fi->connected.n)
		return;
	for (i = 0; i < fi->connected.n; i++) {
		if (routine(&x[i])) {
			folded++;
			calls += x[i].count;
			continue;
		}
		if (!rows++) {
			fp_sbuf_str(l,
				    "### Network\n\n"
				    "| destination | by | calls | verdict |\n"
				    "|---|---|---:|---|\n");
			emit(m, l);
		}
		if (rows <= NET_ROWS) {
			fp_md_conn_row(l, &x[i]);
			emit(m, l);
		}
	}
	if (rows > NET_ROWS) {
		fp_sbuf_printf(l, "| and %zu more | | | |\n", rows - NET_ROWS);
		emit(m, l);
	}
	if (folded) {
		fp_sbuf_printf(
			l,
			"%s%zu local destination%s (loopback, unix sockets, the resolver), %zu call%s, ok\n",
			rows ? "\n" : "### Network\n\n", folded,
			folded == 1 ? "" : "s", calls, calls == 1 ? "" : "s");
		emit(m, l);
	}
	fp_sbuf_str(l, "\n");
	emit(m, l);
}

/* the policy lines that would allow what failed, as a block to paste */
static void suggestions(struct md *m, const struct fp_verdict *v,
			struct fp_sbuf *l)
{
	size_t i, n = v->suggestions.n;

	if (!n)
		return;
	fp_sbuf_str(l, "### Policy lines that would allow this\n\n"
		       "Review before use.\n\n```\n");
	emit(m, l);
	for (i = 0; i < n && i < SUGGEST_ROWS; i++) {
		const char *s = *fp_vec_at(&v->suggestions, char *, i);

		/* a quoted policy line: printable ASCII, never a fence */
		fp_sbuf_printf(
			l, "%s  # covers %zu\n", s,
			i < v->suggestion_counts.n ?
				*fp_vec_at(&v->suggestion_counts, size_t, i) :
				(size_t)1);
		emit(m, l);
	}
	if (n > SUGGEST_ROWS)
		fp_sbuf_printf(l, "# and %zu more (see the receipt)\n",
			       n - SUGGEST_ROWS);
	fp_sbuf_str(l, "```\n");
	emit(m, l);
}

static void tail(struct md *m, size_t failing)
{
	size_t more = failing - m->shown;

	if (!m->cut)
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
	verdict(&m, &refs, v, &l);
	overview(&m, fi, c, &refs, &l);
	if (sections(&m, fi, c, &refs, &l))
		goto out;
	destinations(&m, fi, &l);
	suggestions(&m, v, &l);
	tail(&m, refs.n);
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
		const char *r = *fp_vec_at(&v->reasons, char *, i);

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
