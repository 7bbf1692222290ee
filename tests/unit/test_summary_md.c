// SPDX-License-Identifier: GPL-2.0
/*
 * The markdown job summary and the GitHub annotations: bounded, grouped by
 * step, and escaped so that names from the traced job cannot break a
 * table, a line or a workflow command.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "policy.h"
#include "summary_md.h"
#include "unit_util.h"
#include "verdict_fixture.h"

TestSuite(summary_md, .fini = verdict_fixture_free, .timeout = 30);

static void add_step(const char *name, size_t len)
{
	struct fp_step *st = fp_vec_push(&F.steps, sizeof(*st));

	cr_assert_not_null(st);
	st->index = F.steps.n;
	st->first_pid = 1000 + st->index;
	st->name = bytes(name, len);
}

static struct fp_file_finding *outside(const char *path, size_t len,
				       unsigned int step)
{
	struct fp_file_finding *x =
		fp_vec_push(&F.files[FP_F_OUTSIDE], sizeof(*x));

	cr_assert_not_null(x);
	x->path = bytes(path, len);
	x->what = FP_F_OUTSIDE;
	x->changes = FP_OP_WRITTEN;
	x->by.pid = 77;
	x->by.step = step;
	cr_assert_eq(fp_actor_own(&x->by, "/bin/sh", 7, "sh\0-c\0x", 8), 0);
	return x;
}

static void md(size_t max)
{
	FILE *f = open_memstream(&out, &outlen);

	cr_assert_eq(fp_summary_md_write(f, &F, &V, max), 0);
	fclose(f);
}

static void annotations(size_t max)
{
	FILE *f = open_memstream(&out, &outlen);

	cr_assert_eq(fp_annotations_write(f, &F, &V, max), 0);
	fclose(f);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (s = strstr(s, what); s; s = strstr(s + 1, what))
		n++;
	return n;
}

/* pipes that are cell borders: not escaped by a backslash */
static size_t borders(const char *line, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (line[i] == '\\') {
			i++;
			continue;
		}
		n += line[i] == '|';
	}
	return n;
}

Test(summary_md, verdict_first_then_a_line_per_step_and_kind)
{
	add_step("checkout", 8);
	add_step("build", 5);
	outside("/etc/a", 6, 2);
	outside("/etc/b", 6, 2);
	outside("/var/c", 6, 0);
	verdict_judge();
	md(FP_MD_SUMMARY_MAX);
	cr_assert(!strncmp(out,
			   "## footprint: FAIL (3 failing findings: 3 high)\n",
			   48),
		  "%s", out);
	/* a row per step with findings; the clean one counted */
	cr_assert_not_null(strstr(out, "| 2 build | 2 | high |\n"), "%s", out);
	cr_assert_not_null(strstr(out, "| 1 other step | 0 | |\n"), "%s", out);
	cr_assert_null(strstr(out, "| 1 checkout"), "%s", out);
	cr_assert_not_null(strstr(out, "### Step 2: build (2 failing)"), "%s",
			   out);
	cr_assert_null(strstr(out, "### Step 1"), "%s", out);
	cr_assert_not_null(strstr(out, "### Outside any step (1 failing)"),
			   "%s", out);
	/* paths and command lines in code spans, nothing escaped there */
	cr_assert_not_null(strstr(out, "- **high** files.outside_roots 2: "
				       "`/etc/a` by pid 77 `sh -c x`; "
				       "`/etc/b` by pid 77 `sh -c x`\n"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "allow /etc/a  # covers 1\n"), "%s",
			   out);
	/* steps come before what is outside them */
	cr_assert_lt(strstr(out, "### Step 2"), strstr(out, "### Outside"));
	cr_assert_null(strstr(out, "see the receipt"));
}

Test(summary_md, an_ok_job_says_ok)
{
	add_step("build", 5);
	verdict_judge();
	md(FP_MD_SUMMARY_MAX);
	cr_assert(!strncmp(out, "## footprint: ok\n", 17), "%s", out);
	cr_assert_null(strstr(out, "###"));
}

Test(summary_md, hostile_names_stay_in_their_cell)
{
	static const char path[] = "/tmp/a|b`c<script>alert(1)</script>\n"
				   "| x | y |\r\xff\xfe[l](http://e.x)"
				   "\xe2\x80\xae@team **b** &amp; $x$";
	static const char name[] = "st|ep\n## <img src=x>";
	const char *line, *end;
	size_t rows = 0;

	add_step(name, sizeof(name) - 1);
	outside(path, sizeof(path) - 1, 1);
	verdict_judge();
	md(FP_MD_SUMMARY_MAX);
	cr_assert_null(strstr(out, "<img"), "%s", out);
	cr_assert_null(strstr(out, "\r"));
	cr_assert_null(strstr(out, "\xff"));
	cr_assert_null(strstr(out, "\xe2\x80\xae"), "a bidi override");
	cr_assert_not_null(strstr(out, "\\xff\\xfe"), "%s", out);
	cr_assert_not_null(strstr(out, "\\u{202e}"), "%s", out);
	/* the path is one code span, its fence longer than its backtick,
	 * its newline \x0a: no tag, link or line can form from it */
	cr_assert_not_null(
		strstr(out,
		       ": ``/tmp/a|b`c<script>alert(1)</script>\\x0a| x | y "
		       "|\\x0d\\xff\\xfe[l](http://e.x)\\u{202e}@team **b** "
		       "&amp; $x$`` by pid 77 `sh -c x`\n"),
		"%s", out);
	cr_assert_null(strstr(out, "\n| x"), "%s", out);
	/* every table line has exactly its borders: 4 (3 cells) */
	for (line = out; *line; line = end + 1) {
		end = strchr(line, '\n');
		cr_assert_not_null(end);
		if (*line != '|')
			continue;
		rows++;
		cr_assert_eq(borders(line, end - line), 4, "%.*s",
			     (int)(end - line), line);
	}
	cr_assert_eq(rows, 3, "%s", out);
	/* headings are one line */
	cr_assert_not_null(
		strstr(out, "### Step 1: st\\|ep\\x0a\\#\\# &lt;img"), "%s",
		out);
}

/* "and N more: see the receipt", N as written */
static size_t more(void)
{
	const char *p = strstr(out, "\nand ");
	size_t n;

	cr_assert_not_null(p, "not cut");
	cr_assert_eq(sscanf(p, "\nand %zu more: see the receipt\n", &n), 1);
	return n;
}

/* the counts of the rows written */
static size_t shown(void)
{
	const char *p;
	size_t n = 0, c;

	for (p = strstr(out, "\n- **"); p; p = strstr(p + 1, "\n- **")) {
		const char *cat = strstr(p, "** ") + 3, *sp = strchr(cat, ' ');
		const char *colon = strchr(cat, ':');

		if (sp && sp < colon) {
			cr_assert_eq(sscanf(sp, " %zu:", &c), 1);
			n += c;
		} else {
			n++;
		}
	}
	return n;
}

Test(summary_md, a_hundred_thousand_findings_stay_under_64k)
{
	char path[64];
	size_t i;

	for (i = 0; i < 1000; i++)
		add_step("a step", 6);
	for (i = 0; i < 100000; i++) {
		int n = snprintf(path, sizeof(path), "/etc/f%06zu", i);

		outside(path, n, 1 + i % 1000);
		/* files.transient rows too, so the steps have two each */
		if (i % 3 == 0) {
			struct fp_file_finding *t = fp_vec_push(
				&F.files[FP_F_TRANSIENT], sizeof(*t));

			t->path = bytes(path, n);
			t->what = FP_F_TRANSIENT;
			cr_assert_not_null(fp_ff_more(t));
			t->more->created_by.pid = 5;
			t->more->created_by.step = 1 + i % 1000;
		}
	}
	verdict_judge();
	md(FP_MD_SUMMARY_MAX);
	cr_assert_lt(outlen, 64 * 1024);
	cr_assert_not_null(strstr(out, "| and 900 more steps | "), "%s", out);
	cr_assert_eq(outlen, strlen(out));
	cr_assert_eq(more() + shown(), V.failing, "%zu + %zu != %zu", more(),
		     shown(), V.failing);
	cr_assert_gt(shown(), 0);
	/* it ends on that line */
	cr_assert(!strcmp(out + outlen - strlen(" more: see the receipt\n"),
			  " more: see the receipt\n"));
}

Test(summary_md, a_small_budget_cuts_between_rows)
{
	size_t i, max;

	add_step("one", 3);
	add_step("two", 3);
	for (i = 0; i < 5; i++)
		outside("/etc/x", 6, 1);
	for (i = 0; i < 7; i++)
		outside("/etc/y", 6, 2);
	verdict_judge();
	md(FP_MD_SUMMARY_MAX);
	/* room for all of step 1, and for the closing line */
	max = strstr(out, "### Step 2") - out + 96;
	free(out);
	md(max);
	cr_assert_leq(outlen, max);
	cr_assert_null(strstr(out, "### Step 2"), "%s", out);
	cr_assert_eq(more(), 7, "%s", out);
	cr_assert_eq(shown(), 5, "%s", out);
}

/* ---- annotations ---- */

Test(summary_md, annotations_are_capped_at_ten_one_line_each)
{
	char path[32];
	static const char first[] =
		"::error title=footprint::step 1 (build): "
		"files.outside_roots: /etc/f00 by pid 77 sh -c x\n";
	const char *p;
	size_t i, lines = 0;

	add_step("build", 5);
	for (i = 0; i < 25; i++) {
		int n = snprintf(path, sizeof(path), "/etc/f%02zu", i);

		outside(path, n, 1);
	}
	verdict_judge();
	annotations(FP_ANNOTATIONS_MAX);
	for (p = out; *p; p = strchr(p, '\n') + 1) {
		cr_assert(!strncmp(p, "::error title=footprint::", 25), "%s",
			  p);
		lines++;
	}
	cr_assert_eq(lines, 10, "%s", out);
	cr_assert(!strncmp(out, first, strlen(first)), "%s", out);
}

Test(summary_md, a_failed_trace_is_annotated_first)
{
	struct fp_outcome o = { .exit_code = 0, .complete = false };

	outside("/etc/x", 6, 0);
	cr_assert_eq(fp_judge(&P, &F, &o, &V), 0);
	annotations(FP_ANNOTATIONS_MAX);
	cr_assert(
		!strncmp(out, "::error title=footprint::trace incomplete", 41),
		"%s", out);
	cr_assert_eq(count(out, "\n"), 2);
}

Test(summary_md, annotation_messages_are_escaped)
{
	static const char path[] = "/tmp/100%\r\n::error::pwned\x1b[31m\xff";

	add_step("a\nb", 3);
	outside(path, sizeof(path) - 1, 1);
	verdict_judge();
	annotations(FP_ANNOTATIONS_MAX);
	cr_assert_eq(count(out, "\n"), 1, "%s", out);
	cr_assert_null(strstr(out, "\r"));
	cr_assert_null(strstr(out, "\x1b"));
	cr_assert_not_null(
		strstr(out,
		       "step 1 (a%0Ab): files.outside_roots: /tmp/100%25%0D%0A::error::pwned\\x1b[31m\\xff by pid 77"),
		"%s", out);
}

Test(summary_md, properties_escape_colon_and_comma)
{
	struct fp_sbuf b = { 0 };

	fp_gh_escape_property(&b, "a:b,c%d\r\ne", 10);
	cr_assert_str_eq(b.p, "a%3Ab%2Cc%25d%0D%0Ae");
	b.len = 0;
	fp_gh_escape_data(&b, "a:b,c", 5);
	cr_assert_str_eq(b.p, "a:b,c");
	fp_sbuf_free(&b);
}
