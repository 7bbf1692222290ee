// SPDX-License-Identifier: GPL-2.0
/*
 * The findings of files.read, processes.signalled_outside and ptraced and
 * network.connected in the human reports: the stderr summary, the
 * markdown job summary, the annotations, the step counts, and the policy
 * lines suggested for them, which must let the same findings pass.
 */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "findref.h"
#include "judge.h"
#include "netflow.h"
#include "policy.h"
#include "receipt.h"
#include "sensitive.h"
#include "summary_md.h"
#include "unit_util.h"
#include "verdict_fixture.h"

TestSuite(summary_sensitive, .fini = verdict_fixture_free, .timeout = 60);

static void actor(struct fp_actor *a, pid_t pid, const char *exe,
		  const char *argv, size_t len, unsigned int step)
{
	a->pid = pid;
	a->step = step;
	cr_assert_eq(fp_actor_own(a, exe, strlen(exe), argv, len), 0);
}

static void secret(const char *path, unsigned int step)
{
	struct fp_read_finding *x = fp_vec_push(&F.reads, sizeof(*x));

	cr_assert_not_null(x);
	x->path = bytes(path, strlen(path));
	x->secret = "ssh";
	x->opens = 2;
	actor(&x->by, 7, "/bin/cat", "cat\0key", 8, step);
}

static void signal_to(struct fp_vec *v, uint32_t sys, int sig, pid_t target,
		      const char *exe, unsigned int step)
{
	struct fp_signal_finding *x = fp_vec_push(v, sizeof(*x));

	cr_assert_not_null(x);
	x->sys = sys;
	x->sig = sig;
	x->target = target;
	x->target_pid = target;
	x->target_exe = bytes(exe, strlen(exe));
	x->count = 1;
	actor(&x->by, 8, "/bin/kill", "kill\0-TERM", 11, step);
}

static void connected(const char *addr, const char *name, unsigned int step)
{
	struct fp_conn_finding *x = fp_vec_push(&F.connected, sizeof(*x));

	cr_assert_not_null(x);
	x->op = FP_NET_CONNECT;
	x->family = AF_INET;
	snprintf(x->address, sizeof(x->address), "%s", addr);
	x->port = 443;
	x->protocol = IPPROTO_TCP;
	x->sock_type = SOCK_STREAM;
	x->count = 3;
	if (name)
		x->names = bytes(name, strlen(name) + 1);
	actor(&x->who, 9, "/usr/bin/curl", "curl\0https://x", 15, step);
}

static void the_run(unsigned int step)
{
	secret("/home/u/.ssh/id_rsa", step);
	signal_to(&F.signalled, FP_SYS_KILL, SIGTERM, 4242, "/usr/bin/sleep",
		  step);
	signal_to(&F.ptraced, FP_SYS_PTRACE, 0, 4343, "/usr/bin/top", step);
	connected("10.9.8.7", "egress.example", step);
}

Test(summary_sensitive, each_failing_category_has_its_line)
{
	the_run(0);
	verdict_judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 4);
	summary(5);
	cr_assert(has_line("  files.read /home/u/.ssh/id_rsa (secret: ssh) "
			   "read by pid 7 cat key (2 opens)"),
		  "%s", out);
	cr_assert(has_line("  processes.signalled_outside SIGTERM to pid 4242 "
			   "/usr/bin/sleep by pid 8 kill -TERM"),
		  "%s", out);
	cr_assert(
		has_line("  processes.ptraced ptrace of pid 4343 /usr/bin/top "
			 "by pid 8 kill -TERM"),
		"%s", out);
	cr_assert(
		has_line(
			"  network.connected tcp/egress.example (10.9.8.7):443 "
			"by pid 9 curl https://x (3 calls)"),
		"%s", out);
	/* each said once: not again as a reason */
	cr_assert_null(strstr(out, "files.read:"), "%s", out);
}

/* past judging's 50 kept reasons, a category is still named, with a count
 * and "and N more" for what has no line */
Test(summary_sensitive, nothing_hides_behind_the_reason_cap)
{
	char path[64];
	size_t i;

	for (i = 0; i < 80; i++) {
		snprintf(path, sizeof(path), "/home/u/.ssh/k%02zu", i);
		secret(path, 0);
	}
	signal_to(&F.signalled, FP_SYS_KILL, SIGKILL, 4242, "/usr/bin/sleep",
		  0);
	cr_assert_eq(
		fp_policy_parse_line(&P, "expect /w/out", 13, NULL, 0, NULL, 0),
		0);
	verdict_judge();
	cr_assert_eq(V.failing, 82);
	summary(3);
	cr_assert(has_line("  files.read 80:"), "%s", out);
	cr_assert(has_line("  processes.signalled_outside SIGKILL to pid 4242 "
			   "/usr/bin/sleep by pid 8 kill -TERM"),
		  "%s", out);
	cr_assert(has_line("  expected change missing: expect /w/out"), "%s",
		  out);
	cr_assert(has_line("  and 77 more (see the receipt)"), "%s", out);
}

static void add_step(const char *name)
{
	struct fp_step *st = fp_vec_push(&F.steps, sizeof(*st));

	cr_assert_not_null(st);
	st->index = F.steps.n;
	st->name = bytes(name, strlen(name));
	st->named = FP_STEP_NAMED_ACTION;
}

Test(summary_sensitive, steps_count_and_annotate_them)
{
	struct fp_step_count *c;

	add_step("Build");
	the_run(1);
	verdict_judge();
	c = fp_step_counts(&F);
	cr_assert_not_null(c);
	cr_assert_eq(c[1].failing_all, 4);
	cr_assert_eq(c[1].failing[FP_CAT_READ], 1);
	cr_assert_eq(c[1].failing[FP_CAT_SIGNALLED], 1);
	cr_assert_eq(c[1].failing[FP_CAT_PTRACED], 1);
	cr_assert_eq(c[1].failing[FP_CAT_CONNECTED], 1);
	cr_assert_eq(c[0].failing_all, 0);
	free(c);

	FILE *f = open_memstream(&out, &outlen);

	cr_assert_eq(fp_annotations_write(f, &F, &V, 10), 0);
	fclose(f);
	cr_assert(has_line("::error title=footprint::step 1 (Build): "
			   "files.read: /home/u/.ssh/id_rsa (secret: ssh) read "
			   "by pid 7 cat key (2 opens)"),
		  "%s", out);
	cr_assert(
		has_line("::error title=footprint::step 1 (Build): "
			 "network.connected: tcp/egress.example (10.9.8.7):443 "
			 "by pid 9 curl https://x (3 calls)"),
		"%s", out);
	cr_assert_not_null(strstr(out, "processes.signalled_outside: SIGTERM"));
	cr_assert_not_null(strstr(out, "processes.ptraced: ptrace of pid"));
}

Test(summary_sensitive, markdown_rows_and_destinations)
{
	FILE *f;

	add_step("Build");
	the_run(1);
	connected("127.0.0.1", NULL, 1);
	((struct fp_conn_finding *)F.connected.v)[1].loopback = true;
	verdict_judge();
	f = open_memstream(&out, &outlen);
	cr_assert_eq(fp_summary_md_write(f, &F, &V, FP_MD_SUMMARY_MAX), 0);
	fclose(f);
	cr_assert_not_null(strstr(out, "| 1 Build | 4 | critical |"), "%s",
			   out);
	/* the secret read first: critical before high */
	cr_assert_not_null(
		strstr(out, "### Step 1: Build (4 failing)\n\n"
			    "- **critical** files.read: "
			    "`/home/u/.ssh/id_rsa` (secret: ssh) by pid 7 "
			    "`cat key`\n"),
		"%s", out);
	cr_assert_not_null(
		strstr(out, "- **high** processes.signalled_outside: `"), "%s",
		out);
	cr_assert_not_null(strstr(out, "- **high** processes.ptraced: `"), "%s",
			   out);
	cr_assert(has_line("### Network"), "%s", out);
	cr_assert(has_line("| `tcp/egress.example (10.9.8.7):443` | curl | 3 | "
			   "**failing** |"),
		  "%s", out);
	/* the loopback one, ok, is folded into one line */
	cr_assert(has_line("1 local destination (loopback, unix sockets, the "
			   "resolver), 3 calls, ok"),
		  "%s", out);
	cr_assert_null(strstr(out, "127.0.0.1"), "%s", out);
}

static bool suggested(const char *line)
{
	return has_str(&V.suggestions, line);
}

/* the lines suggested, taken as the policy, let the same run pass */
Test(summary_sensitive, suggestions_let_the_run_pass)
{
	char err[256];
	size_t i;

	the_run(0);
	verdict_judge();
	/* scoped to the program that read it, never to every process */
	cr_assert(suggested("allow read /home/u/.ssh/id_rsa by /bin/cat"));
	cr_assert_not(suggested("allow read /home/u/.ssh/id_rsa"));
	cr_assert(suggested("allow signal /usr/bin/sleep"));
	cr_assert(suggested("allow ptrace /usr/bin/top"));
	for (i = 0; i < V.suggestions.n; i++) {
		const char *l = ((char **)V.suggestions.v)[i];

		cr_assert_eq(fp_policy_parse_line(&P, l, strlen(l), NULL, 0,
						  err, sizeof(err)),
			     0, "%s: %s", l, err);
	}
	fp_verdict_free(&V);
	memset(&V, 0, sizeof(V));
	fp_findings_free(&F);
	memset(&F, 0, sizeof(F));
	the_run(0);
	verdict_judge();
	cr_assert(V.ok, "still failing: %zu", V.failing);
	cr_assert_eq(V.failing, 0);
}

/* issue 29: a passing run says what it saw, on its one line */
Test(summary_sensitive, a_passing_run_says_what_it_saw)
{
	static char *roots[] = { "/w/app" };
	struct fp_summary_opts so = { false, FP_SUMMARY_MAX_DEFAULT };
	char path[96];
	FILE *f;
	size_t i;

	for (i = 0; i < 746; i++) {
		struct fp_file_finding *x =
			fp_vec_push(&F.files[FP_F_ADDED], sizeof(*x));

		cr_assert_not_null(x);
		snprintf(path, sizeof(path), "/w/app/node_modules/p%03zu/%s",
			 i / 2, i % 2 ? "index.js" : "package.json");
		x->path = bytes(path, strlen(path));
		x->what = FP_F_ADDED;
		x->explained = true;
	}
	for (i = 0; i < 5; i++)
		connected("104.16.0.35", "registry.npmjs.org", 0);
	connected("127.0.0.1", NULL, 0);
	((struct fp_conn_finding *)F.connected.v)[5].loopback = true;
	cr_assert_eq(fp_policy_parse_line(&P, "allow node_modules/", 19, roots,
					  1, path, sizeof(path)),
		     0);
	cr_assert_eq(fp_policy_parse_line(&P, "allow connect tcp/*.npmjs.org:*",
					  31, NULL, 0, path, sizeof(path)),
		     0);
	verdict_judge();
	cr_assert(V.ok, "%zu failing", V.failing);
	f = open_memstream(&out, &outlen);
	fp_summary_write_roots(f, &F, &V, &so, roots, 1);
	fclose(f);
	/* 5 findings of 3 calls each; the loopback one says nothing */
	cr_assert_str_eq(out, "footprint: ok: 746 files added under "
			      "node_modules/ (allowed), 15 connections to "
			      "registry.npmjs.org:443\n");
	free(out);
	out = NULL;
	/* without the roots: absolute */
	summary(FP_SUMMARY_MAX_DEFAULT);
	cr_assert_str_eq(out, "footprint: ok: 746 files added under "
			      "/w/app/node_modules/ (allowed), 15 connections "
			      "to registry.npmjs.org:443\n");
}
