// SPDX-License-Identifier: GPL-2.0
/* Findings ranked by severity: the table, policy check's order, and the
 * verdict keeping the most severe reasons when it cannot keep them all */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "severity.h"
#include "judge.h"
#include "unit_util.h"

Test(rank, issue_31_levels)
{
	cr_assert_eq(fp_reason_rank("files.read: /etc/shadow (secret: shadow) "
				    "read by pid 3 /usr/bin/cat"),
		     FP_RANK_CRITICAL);
	cr_assert_eq(
		fp_reason_rank("processes.privileged: pid 4 /usr/bin/sudo"),
		FP_RANK_CRITICAL);
	cr_assert_eq(fp_reason_rank("tamper.signal: SIGKILL to footprint's pid "
				    "9 by pid 3 (no rule can allow it)"),
		     FP_RANK_CRITICAL);
	cr_assert_eq(fp_reason_rank("files.setuid: chmod 4755 /w/x by pid 1 x"),
		     FP_RANK_CRITICAL);
	cr_assert_eq(
		fp_reason_rank("processes.fileless_exec: memfd:x by pid 1"),
		FP_RANK_CRITICAL);
	cr_assert_eq(
		fp_reason_rank("network.connected: tcp/1.2.3.4:443 by pid 2"),
		FP_RANK_HIGH);
	cr_assert_eq(fp_reason_rank("files.outside_roots: /home/u/.bashrc"),
		     FP_RANK_HIGH);
	cr_assert_eq(fp_reason_rank("processes.leftover: pid 5 sleep 100"),
		     FP_RANK_HIGH);
	cr_assert_eq(fp_reason_rank("processes.signalled_outside: SIGTERM to "
				    "pid 1 by pid 2 kill"),
		     FP_RANK_HIGH);
	cr_assert_eq(fp_reason_rank("processes.ptraced: ptrace of pid 1"),
		     FP_RANK_HIGH);
	cr_assert_eq(fp_reason_rank("files.unexplained: /w/x"), FP_RANK_MEDIUM);
	cr_assert_eq(fp_reason_rank("network.bound: tcp/0.0.0.0:80 by pid 2"),
		     FP_RANK_MEDIUM);
	cr_assert_eq(fp_reason_rank("expected change missing: expect out/"),
		     FP_RANK_MEDIUM);
	cr_assert_eq(fp_reason_rank("files.added: /w/a.txt"), FP_RANK_LOW);
	cr_assert_eq(fp_reason_rank("files.changed: /w/a.txt in step 2 (b)"),
		     FP_RANK_LOW);
	cr_assert_eq(fp_reason_rank("command exited 1"), FP_RANK_VERDICT);
	cr_assert_eq(fp_reason_rank("trace incomplete: 3 events lost"),
		     FP_RANK_VERDICT);
	cr_assert_eq(fp_reason_rank("... and 9 more failing findings"),
		     FP_RANK_LAST);
	cr_assert_str_eq(fp_rank_name(FP_RANK_HIGH), "high");
}

Test(rank, sort_is_stable_and_worst_first)
{
	char *v[] = {
		"files.added: /w/a",
		"files.added: /w/b",
		"files.outside_roots: /home/u/.bashrc",
		"files.unexplained: /w/c",
		"command exited 1",
		"files.read: /etc/shadow (secret: shadow) read by pid 1 cat",
		"files.outside_roots: /etc/x",
		"... and 3 more failing findings",
	};
	const char *want[] = {
		"command exited 1",
		"files.read: /etc/shadow (secret: shadow) read by pid 1 cat",
		"files.outside_roots: /home/u/.bashrc",
		"files.outside_roots: /etc/x",
		"files.unexplained: /w/c",
		"files.added: /w/a",
		"files.added: /w/b",
		"... and 3 more failing findings",
	};
	size_t i;

	fp_reasons_by_rank(NULL, v, 8);
	for (i = 0; i < 8; i++)
		cr_assert_str_eq(v[i], want[i]);
}

static void add(struct fp_findings *f, enum fp_file_list l, const char *p)
{
	struct fp_file_finding *x = fp_vec_push(&f->files[l], sizeof(*x));

	cr_assert_not_null(x);
	x->path = bytes(p, strlen(p));
	x->what = l;
}

static bool kept(const struct fp_verdict *v, const char *prefix)
{
	size_t i;

	for (i = 0; i < v->reasons.n; i++)
		if (!strncmp(((char **)v->reasons.v)[i], prefix,
			     strlen(prefix)))
			return true;
	return false;
}

/* 60 files in the root come first; the write outside it still is said */
Test(rank, a_full_verdict_keeps_the_severe)
{
	struct fp_findings f = { 0 };
	struct fp_policy p = { 0 };
	struct fp_verdict v = { 0 };
	struct fp_outcome o = { .complete = true };
	char path[32];
	size_t i, added = 0;
	int k;

	for (k = 0; k < 60; k++) {
		snprintf(path, sizeof(path), "/w/f%02d", k);
		add(&f, FP_F_ADDED, path);
	}
	add(&f, FP_F_OUTSIDE, "/home/u/.bashrc");
	add(&f, FP_F_OUTSIDE, "/home/u/.profile");
	add(&f, FP_F_UNEXPLAINED, "/w/z");
	cr_assert_eq(fp_judge(&p, &f, &o, &v), 0);
	cr_assert_eq(v.failing, 63);
	cr_assert_eq(v.reasons.n, 51);
	cr_assert(kept(&v, "files.outside_roots: /home/u/.bashrc"));
	cr_assert(kept(&v, "files.unexplained: /w/z"));
	for (i = 0; i < v.reasons.n; i++)
		added += !strncmp(((char **)v.reasons.v)[i], "files.added", 11);
	cr_assert_eq(added, 47);
	/* the first said of the least severe kind stay */
	cr_assert(kept(&v, "files.added: /w/f00"));
	cr_assert_not(kept(&v, "files.added: /w/f47"));
	cr_assert_str_eq(((char **)v.reasons.v)[50],
			 "... and 13 more failing findings");
	/* in the order they were said: .bashrc before .profile */
	fp_reasons_by_rank(&v.sev, v.reasons.v, v.reasons.n);
	cr_assert_str_eq(((char **)v.reasons.v)[0],
			 "files.outside_roots: /home/u/.bashrc");
	cr_assert_str_eq(((char **)v.reasons.v)[1],
			 "files.outside_roots: /home/u/.profile");
	cr_assert_str_eq(((char **)v.reasons.v)[2], "files.unexplained: /w/z");
	cr_assert_str_eq(((char **)v.reasons.v)[3], "files.added: /w/f00");
	fp_verdict_free(&v);
	fp_findings_free(&f);
}

/* "severity KIND LEVEL" changes one kind's level, for every report */
Test(severity, policy_line_sets_a_kind)
{
	struct fp_policy p = { 0 };
	char err[512] = "";

	cr_assert_eq(fp_policy_parse_line(&p, "severity files.added high  ", 27,
					  NULL, 0, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(fp_policy_parse_line(&p, "severity network.dns low # ok",
					  29, NULL, 0, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(fp_severity_in(&p.sev, "files.added", 11), FP_SEV_HIGH);
	cr_assert_eq(fp_severity_in(&p.sev, "network.dns", 11), FP_SEV_LOW);
	cr_assert_eq(fp_severity_in(&p.sev, "files.changed", 13), FP_SEV_LOW);
	cr_assert_eq(fp_severity_in(NULL, "files.added", 11), FP_SEV_LOW);
	cr_assert_eq(fp_reason_rank_in(&p.sev, "files.added: /w/a"),
		     FP_RANK_HIGH);
	cr_assert_eq(p.n, 0, "a severity line is no rule");
	fp_policy_free(&p);
}

Test(severity, policy_line_errors)
{
	static const char *const bad[] = {
		"severity files.added",
		"severity files.added urgent",
		"severity files.nope high",
		"severity tamper.signal low",
		"severity files.added high extra",
	};
	struct fp_policy p = { 0 };
	char err[1024];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		cr_assert_eq(fp_policy_parse_line(&p, bad[i], strlen(bad[i]),
						  NULL, 0, err, sizeof(err)),
			     -EINVAL, "%s", bad[i]);
		cr_assert(strstr(err, "severity"), "%s: %s", bad[i], err);
	}
	fp_policy_free(&p);
}
