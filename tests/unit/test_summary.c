// SPDX-License-Identifier: GPL-2.0
/*
 * The stderr summary: one screen whatever the run did, files grouped by
 * directory, bytes from the traced command escaped, no trailing spaces.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "policy.h"
#include "receipt.h"
#include "unit_util.h"
#include "verdict_fixture.h"

TestSuite(summary, .fini = verdict_fixture_free, .timeout = 60);

static struct fp_file_finding *file(enum fp_file_list l, const char *path)
{
	struct fp_file_finding *x = fp_vec_push(&F.files[l], sizeof(*x));

	cr_assert_not_null(x);
	x->path = bytes(path, strlen(path));
	x->what = l;
	x->explained = true;
	x->by.pid = 77;
	/* an argv ends in its NUL: that must not leave a trailing space */
	cr_assert_eq(fp_actor_own(&x->by, "/bin/sh", 7, "sh\0-c\0x", 8), 0);
	if (l == FP_F_TRANSIENT)
		cr_assert_eq(fp_actor_copy(&fp_ff_more(x)->created_by, &x->by),
			     0);
	return x;
}

static struct fp_proc_finding *proc(enum fp_proc_list l, pid_t pid,
				    const char *argv, size_t len)
{
	struct fp_proc_finding *x = fp_vec_push(&F.procs[l], sizeof(*x));

	cr_assert_not_null(x);
	x->p.pid = pid;
	cr_assert_eq(fp_actor_own(&x->p, "/bin/sh", 7, argv, len), 0);
	return x;
}

static int path_cmp(const void *x, const void *y)
{
	const struct fp_file_finding *a = x, *b = y;

	return fp_bytes_cmp(a->path.data, a->path.len, b->path.data,
			    b->path.len);
}

/* as reconcile leaves them: each list sorted by path bytes */
static void judge(void)
{
	size_t l;

	for (l = 0; l < FP_F_NLISTS; l++)
		qsort(F.files[l].v, F.files[l].n,
		      sizeof(struct fp_file_finding), path_cmp);
	verdict_judge();
}

static size_t lines(void)
{
	size_t i, n = 0;

	for (i = 0; i < outlen; i++)
		n += out[i] == '\n';
	return n;
}

/* every line ends in a newline, none in a space, none holds a control
 * byte but the newline */
static void assert_clean_lines(void)
{
	size_t i;

	cr_assert_gt(outlen, 0);
	cr_assert_eq(out[outlen - 1], '\n', "%s", out);
	for (i = 0; i < outlen; i++) {
		unsigned char c = out[i];

		cr_assert(c == '\n' || (c >= 0x20 && c != 0x7f),
			  "byte 0x%02x at %zu:\n%s", c, i, out);
		if (c == '\n' && i)
			cr_assert_neq(out[i - 1], ' ',
				      "trailing space at %zu:\n%s", i, out);
	}
}

static void add_tree(const char *top, size_t dirs, size_t files)
{
	char path[128];
	size_t i;

	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/d%02zu/f%06zu.py", top,
			 i % dirs, i);
		file(FP_F_ADDED, path);
	}
}

Test(summary, a_hundred_thousand_files_in_fifty_dirs_fit_a_screen)
{
	add_tree("/tmp/pip-build-x", 50, 100000);
	judge();
	summary(FP_SUMMARY_MAX_DEFAULT);
	cr_assert_leq(lines(), 40, "%zu lines:\n%s", lines(), out);
	assert_clean_lines();
	cr_assert(
		!strncmp(out, "footprint: FAIL (100000 failing findings)\n",
			 strlen("footprint: FAIL (100000 failing findings)\n")),
		"%s", out);
	/* fifty directories do not fit in ten lines: one line for them all */
	cr_assert(has_line("  files.added 100,000 under /tmp/pip-build-x/"),
		  "%s", out);
	/* that line covers them all: nothing is left for "and N more" */
	cr_assert_null(strstr(out, "\n  and "), "%s", out);
}

Test(summary, directories_that_fit_get_a_line_each)
{
	char want[64];
	size_t d;

	add_tree("/tmp/pip-build-x", 5, 100000);
	file(FP_F_ADDED, "/etc/passwd");
	judge();
	summary(FP_SUMMARY_MAX_DEFAULT);
	assert_clean_lines();
	cr_assert(has_line("  files.added 100,001:"), "%s", out);
	for (d = 0; d < 5; d++) {
		snprintf(want, sizeof(want),
			 "    20,000 under /tmp/pip-build-x/d%02zu/", d);
		cr_assert(has_line(want), "%s\n%s", want, out);
	}
	/* a file alone is a finding of its own, with who did it */
	cr_assert(has_line("    /etc/passwd  by pid 77 sh -c x"), "%s", out);
	cr_assert_null(strstr(out, "\n  and "), "%s", out);
}

Test(summary, more_examples_when_asked)
{
	char want[64];
	size_t d;

	add_tree("/tmp/pip-build-x", 50, 100000);
	judge();
	summary(60);
	assert_clean_lines();
	for (d = 0; d < 50; d++) {
		snprintf(want, sizeof(want),
			 "    2,000 under /tmp/pip-build-x/d%02zu/", d);
		cr_assert(has_line(want), "%s\n%s", want, out);
	}
}

/* "and N more" is what no line above covered: the examples shown and the
 * "N under DIR/" lines are not counted again */
Test(summary, and_more_counts_only_what_no_line_covered)
{
	size_t i;

	add_tree("/a", 2, 6000);
	for (i = 0; i < 30; i++)
		proc(FP_P_LEFTOVER, 100 + i,
		     "sleep\0"
		     "30",
		     9);
	judge();
	cr_assert_eq(V.failing, 6030);
	summary(3);
	assert_clean_lines();
	cr_assert(has_line("  files.added 6,000:"), "%s", out);
	cr_assert(has_line("    3,000 under /a/d00/"), "%s", out);
	cr_assert(has_line("    3,000 under /a/d01/"), "%s", out);
	cr_assert(has_line("  processes.leftover 30:"), "%s", out);
	/* 30 leftovers, 3 shown */
	cr_assert(has_line("  and 27 more (see the receipt)"), "%s", out);
}

Test(summary, a_directory_goes_with_what_is_in_it)
{
	/* "pkg-1.0" sorts between "pkg" and "pkg/a" by bytes */
	file(FP_F_ADDED, "/r/pkg");
	file(FP_F_ADDED, "/r/pkg/a");
	file(FP_F_ADDED, "/r/pkg/b");
	file(FP_F_ADDED, "/r/pkg-1.0/x");
	file(FP_F_ADDED, "/r/pkg-1.0/y");
	judge();
	summary(2);
	assert_clean_lines();
	cr_assert(has_line("  files.added 5:"), "%s", out);
	cr_assert(has_line("    3 under /r/pkg/"), "%s", out);
	cr_assert(has_line("    2 under /r/pkg-1.0/"), "%s", out);
	verdict_fixture_free();
	memset(&F, 0, sizeof(F));
	memset(&V, 0, sizeof(V));
	file(FP_F_ADDED, "/r/pkg");
	file(FP_F_ADDED, "/r/pkg/a");
	judge();
	summary(1);
	cr_assert(has_line("  files.added 2 under /r/pkg/"), "%s", out);
}

Test(summary, every_category_shows_within_a_screen)
{
	char path[64];
	size_t l, i;

	for (l = 0; l < FP_F_NLISTS; l++)
		for (i = 0; i < 1000; i++) {
			snprintf(path, sizeof(path), "/c%zu/x%zu/f%zu", l,
				 i % 7, i);
			file(l, path);
		}
	for (l = FP_P_LEFTOVER; l < FP_P_NLISTS; l++)
		for (i = 0; i < 1000; i++)
			proc(l, 100 + i,
			     "sleep\0"
			     "30",
			     9);
	judge();
	summary(FP_SUMMARY_MAX_DEFAULT);
	cr_assert_leq(lines(), 40, "%zu lines:\n%s", lines(), out);
	assert_clean_lines();
	cr_assert(strstr(out, "  files.added "), "%s", out);
	cr_assert(strstr(out, "  files.magic_link "), "%s", out);
	cr_assert(strstr(out, "  processes.leftover 1,000"), "%s", out);
	/* the lines left by a directory that does not split go to others */
	cr_assert_geq(lines(), 30, "%zu lines:\n%s", lines(), out);
}

Test(summary, examples_are_capped_per_category)
{
	size_t i;

	for (i = 0; i < 10; i++)
		proc(FP_P_LEFTOVER, 100 + i,
		     "sleep\0"
		     "30",
		     9);
	judge();
	summary(3);
	assert_clean_lines();
	cr_assert(has_line("  processes.leftover 10:"), "%s", out);
	cr_assert(has_line("    pid 100 sleep 30"), "%s", out);
	cr_assert(has_line("    pid 102 sleep 30"), "%s", out);
	cr_assert(!strstr(out, "pid 103"), "%s", out);
	cr_assert(has_line("  and 7 more (see the receipt)"), "%s", out);
}

Test(summary, a_thousand_steps_fit_a_screen)
{
	char path[64];
	size_t i;

	for (i = 0; i < 1000; i++) {
		struct fp_step *st = fp_vec_push(&F.steps, sizeof(*st));
		struct fp_file_finding *x;

		st->index = F.steps.n;
		st->name = bytes("a\nstep", 6);
		st->named = FP_STEP_NAMED_MARK;
		snprintf(path, sizeof(path), "/etc/f%04zu", i);
		x = file(FP_F_OUTSIDE, path);
		x->by.step = st->index;
	}
	judge();
	summary(FP_SUMMARY_MAX_DEFAULT);
	cr_assert_leq(lines(), 40, "%zu lines:\n%s", lines(), out);
	assert_clean_lines();
	cr_assert(has_line(" step 1 (a\\nstep):"), "%s", out);
	cr_assert(strstr(out, " more (see the receipt)\n"), "%s", out);
}

Test(summary, command_lines_name_control_characters)
{
	static const char argv[] =
		"sh\0-c\0echo a\nb\tc\x1b[31m\\ \xff\x7f ok\xc3\xa9";

	proc(FP_P_LEFTOVER, 9, argv, sizeof(argv));
	judge();
	summary(FP_SUMMARY_MAX_DEFAULT);
	assert_clean_lines();
	cr_assert(has_line("  processes.leftover pid 9 sh -c echo a\\nb\\tc"
			   "\\x1b[31m\\\\ \\xff\\x7f ok\xc3\xa9"),
		  "%s", out);
	cr_assert_null(strstr(out, "??"), "%s", out);
}

Test(summary, paths_keep_hex_escapes)
{
	file(FP_F_ADDED, "/r/a\nb\xff");
	judge();
	summary(FP_SUMMARY_MAX_DEFAULT);
	assert_clean_lines();
	cr_assert(has_line("  files.added /r/a\\x0ab\\xff  by pid 77 sh -c x"),
		  "%s", out);
}

Test(summary, an_open_is_not_a_write)
{
	file(FP_F_CHANGED, "/r/log")->by_open = true;
	judge();
	summary(FP_SUMMARY_MAX_DEFAULT);
	cr_assert(has_line("  files.changed /r/log  opened for writing by pid "
			   "77 sh -c x"),
		  "%s", out);
}

Test(summary, suggestions_are_capped)
{
	char path[64], want[64];
	size_t i;

	/* a file each in directories of their own: a suggestion each */
	for (i = 0; i < 500; i++) {
		snprintf(path, sizeof(path), "/var/x%03zu/f", i);
		file(FP_F_OUTSIDE, path);
	}
	judge();
	cr_assert_gt(V.suggestions.n, 10);
	summary(FP_SUMMARY_MAX_DEFAULT);
	cr_assert_leq(lines(), 40, "%zu lines:\n%s", lines(), out);
	assert_clean_lines();
	cr_assert(strstr(out, "footprint: policy lines that would allow this"),
		  "%s", out);
	/* a comment, so that the lines paste into a policy file */
	snprintf(want, sizeof(want), "  # and %zu more (see the receipt)\n",
		 V.suggestions.n - 10);
	/* the summary ends there */
	cr_assert_str_eq(out + outlen - strlen(want), want, "%s", out);
}

Test(summary, an_ok_run_is_one_line)
{
	judge();
	summary(FP_SUMMARY_MAX_DEFAULT);
	cr_assert_str_eq(out, "footprint: ok: nothing changed\n");
}

Test(summary, policy_lines_are_printed_as_they_are)
{
	char want[128];
	size_t i;

	file(FP_F_ADDED, "/r/q\\[1].txt");
	file(FP_F_ADDED, "/r/st*ar");
	judge();
	summary(FP_SUMMARY_MAX_DEFAULT);
	cr_assert_gt(V.suggestions.n, 0);
	for (i = 0; i < V.suggestions.n; i++) {
		/* with the findings it covers, as a comment */
		snprintf(want, sizeof(want), "  %s  # covers %zu",
			 ((char **)V.suggestions.v)[i],
			 ((size_t *)V.suggestion_counts.v)[i]);
		cr_assert(has_line(want), "%s\n%s", want, out);
	}
}
