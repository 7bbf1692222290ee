// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report's renderer on hostile input: escaping of names, a
 * process table whose parents loop or point forward, a chain deeper than
 * any stack, inputs that are no receipt; and the chrome-trace writer's
 * table of live processes through many forks and exits.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_trace.h"
#include "html.h"
#include "html_int.h"

static char *out;
static size_t outlen;

static FILE *mem(void)
{
	free(out);
	out = NULL;
	return open_memstream(&out, &outlen);
}

static void fini(void)
{
	free(out);
	out = NULL;
}

TestSuite(html, .fini = fini, .timeout = 60);

static const char *text(const char *s, size_t len)
{
	FILE *f = mem();

	fp_html_text(f, s, len);
	fclose(f);
	return out;
}

Test(html, escapes_markup_and_shows_odd_bytes)
{
	cr_assert_str_eq(text("<a href=\"x\">&'", 14),
			 "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
	cr_assert_str_eq(text("caf\xc3\xa9", 5), "caf\xc3\xa9");
	cr_assert_str_eq(text("a\xff"
			      "b",
			      3),
			 "a<span class=\"x\">\\xff</span>b");
	cr_assert_str_eq(text("a\nb", 3), "a<span class=\"x\">\\x0a</span>b");
	cr_assert_str_eq(text("\0", 1), "<span class=\"x\">\\x00</span>");
	/* an overlong '/' and a surrogate are not UTF-8 */
	cr_assert_str_eq(text("\xc0\xaf", 2), "<span class=\"x\">\\xc0</span>"
					      "<span class=\"x\">\\xaf</span>");
	cr_assert_eq(strstr(text("\xed\xa0\x80", 3), "\\xed") != NULL, true);
	/* a right-to-left override would show "exe.txt" for "txt.exe" */
	cr_assert_str_eq(text("a\xe2\x80\xae"
			      "b",
			      5),
			 "a<span class=\"x\">\\u{202e}</span>b");
}

static int render(const char *receipt)
{
	char err[256];
	FILE *f = mem();
	int ret = fp_html_write(f, receipt, strlen(receipt), err, sizeof(err));

	fclose(f);
	return ret;
}

#define HEAD                                                          \
	"{\"ok\":false,\"reasons\":[],\"command\":{\"argv\":[\"x\"]," \
	"\"duration_ms\":99999999999999999},"

Test(html, not_a_receipt)
{
	cr_assert_eq(render("not json"), -EINVAL);
	cr_assert_eq(render("{}"), -EINVAL);
	cr_assert_eq(render("[1,2]"), -EINVAL);
	cr_assert_eq(render(HEAD "\"files\":7,\"network\":[],"
				 "\"process_table\":{}}"),
		     0);
}

static size_t count(const char *needle)
{
	size_t n = 0;
	const char *p = out;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

Test(html, parents_that_loop_or_point_forward)
{
	/* 0's parent is 2 (forward), 1's is itself, 2's is 1, 3's is 99 */
	cr_assert_eq(render(HEAD "\"process_table\":["
				 "{\"id\":0,\"pid\":10,\"parent\":2},"
				 "{\"id\":1,\"pid\":11,\"parent\":1},"
				 "{\"id\":2,\"pid\":12,\"parent\":1,"
				 "\"start_us\":-5,\"end_us\":-9},"
				 "{\"id\":3,\"pid\":13,\"parent\":99,"
				 "\"exe\":\"<b>\"}]}"),
		     0);
	cr_assert_eq(count("<div class=\"p sev-none\" data-id="), 4);
	cr_assert_not_null(strstr(out, "&lt;b&gt;"));
	cr_assert_null(strstr(out, "<b>"));
}

Test(html, a_chain_deeper_than_a_stack)
{
	size_t n = 200000, i, len = 0, cap = n * 64 + 256;
	char *r = malloc(cap);

	cr_assert_not_null(r);
	len += sprintf(r, HEAD "\"process_table\":[");
	for (i = 0; i < n; i++)
		len += sprintf(r + len,
			       "%s{\"id\":%zu,\"pid\":%zu,\"parent\":%ld}",
			       i ? "," : "", i, i + 2, (long)i - 1);
	strcpy(r + len, "]}");
	cr_assert_eq(render(r), 0);
	free(r);
	cr_assert_eq(count("data-id="), FP_HTML_PROC_ROWS);
	cr_assert_not_null(strstr(out, "and 197500 more processes"));
	/* the indentation stops growing; the depth is said */
	cr_assert_not_null(strstr(out, "data-depth=\"2499\" style=\"--d:40\""));
}

static struct fp_event ev(uint32_t type, uint32_t pid, uint32_t ppid,
			  uint64_t ts)
{
	struct fp_event e = {
		.type = type, .pid = pid, .tid = pid, .ppid = ppid, .ts_ns = ts
	};

	strcpy(e.comm, "sh");
	return e;
}

Test(html, chrome_trace_through_many_processes)
{
	struct fp_chrome_trace t;
	struct fp_event e;
	FILE *f = mem();
	uint32_t i, j, live = 3000, n = 200000;

	cr_assert_eq(fp_chrome_trace_begin(&t, f), 0);
	e = ev(FP_EV_EXEC, 1, 0, 1);
	fp_chrome_trace_event(&t, &e);
	/* forks with thousands alive at once, exits in another order */
	for (i = 0; i < n; i++) {
		e = ev(FP_EV_FORK, 100 + i, 1, 10 + i);
		fp_chrome_trace_event(&t, &e);
		if (i >= live) {
			/* each block of 1000 exits in reverse order */
			j = i - live;
			e = ev(FP_EV_EXIT,
			       100 + j / 1000 * 1000 + 999 - j % 1000, 1,
			       10 + i);
			fp_chrome_trace_event(&t, &e);
		}
		cr_assert_leq(t.live, live + 1000 + 1);
	}
	fp_chrome_trace_end(&t, 0);
	fclose(f);
	/* every process closed once: at its exit, or at the end */
	cr_assert_eq(count("\"ph\":\"X\""), n + 1);
	/* each exit found its process: none left for the end but the
	 * last ones, none an exit of a process the table lost */
	cr_assert_eq(count("\"name\":\"exit\""), 0);
	cr_assert_eq(count("running_at_end"), live + 1);
	cr_assert_not_null(strstr(out, "\"untracked_processes\":0}"));
}

Test(html, chrome_trace_pids_that_collide)
{
	/* pids equal modulo the table's size share a home slot: exits in
	 * any order must still find each one behind the others */
	static const uint32_t order[] = { 3, 0, 7, 1, 30, 12, 2, 29, 5 };
	struct fp_chrome_trace t;
	struct fp_event e;
	FILE *f = mem();
	uint32_t k, n = 31;
	size_t i;

	cr_assert_eq(fp_chrome_trace_begin(&t, f), 0);
	for (k = 0; k < n; k++) {
		e = ev(FP_EV_EXEC, 5 + k * 2 * FP_CT_LIVE, 1, 10 + k);
		fp_chrome_trace_event(&t, &e);
	}
	/* and one whose home is the next slot, in the cluster's way */
	e = ev(FP_EV_EXEC, 6, 1, 50);
	fp_chrome_trace_event(&t, &e);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		e = ev(FP_EV_EXIT, 5 + order[i] * 2 * FP_CT_LIVE, 1, 100 + i);
		fp_chrome_trace_event(&t, &e);
	}
	e = ev(FP_EV_EXIT, 6, 1, 200);
	fp_chrome_trace_event(&t, &e);
	cr_assert_eq(t.live, n - sizeof(order) / sizeof(order[0]));
	fp_chrome_trace_end(&t, 0);
	fclose(f);
	cr_assert_eq(count("\"name\":\"exit\""), 0);
	cr_assert_eq(count("running_at_end"), n - 9);
}

Test(html, a_cut_command_line_ends_at_a_character)
{
	struct fp_jv v;
	char err[128];
	const char *doc = "{\"argv\":[\"ab\",\"\\u00e9\\u00e9\\u00e9\"]}";
	FILE *f;

	cr_assert_eq(fp_json_parse(doc, strlen(doc), &v, err, sizeof(err)), 0);
	f = mem();
	/* "ab " is 3 of the 8; 5 bytes of the second word would split an é */
	fp_html_argv(f, &v, 8);
	fclose(f);
	fp_jv_free(&v);
	cr_assert_str_eq(out, "ab \xc3\xa9\xc3\xa9&hellip;");
}
