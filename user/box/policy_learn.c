// SPDX-License-Identifier: GPL-2.0
/*
 * Policies from recorded runs (footprint policy, policy_learn.h): each
 * log judged, its needs generalised into rules, the rules written and
 * checked against the logs they came from.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "path.h"
#include "severity.h"
#include "logrun.h"
#include "policy_learn.h"
#include "run.h"
#include "suggest.h"
#include "userfile.h"

/* The learned rules (struct fp_sugg), relative ones against roots. */
static int parse_learned(struct fp_policy *pol, const struct fp_vec *rules,
			 char *const *roots, size_t nroots)
{
	char err[256];
	size_t i;

	for (i = 0; i < rules->n; i++) {
		const char *line = fp_vec_at(rules, struct fp_sugg, i)->line;

		if (fp_policy_parse_line(pol, line, strlen(line), roots, nroots,
					 err, sizeof(err))) {
			fprintf(stderr,
				"footprint: policy: bad learned rule %s: %s\n",
				line, err);
			return FP_EXIT_USAGE;
		}
	}
	return 0;
}

/*
 * Load a log and judge it by pol (NULL: by policy_file, or by the learned
 * rules when there is no file, relative to the run's roots). 0, or
 * FP_EXIT_USAGE after one line.
 */
static const struct fp_vec *learned_rules;

static int judge_log(const char *log, const struct fp_policy *pol,
		     const char *policy_file, struct fp_run *run,
		     struct fp_findings *f, struct fp_verdict *v)
{
	struct fp_policy own = { 0 };
	struct fp_outcome o;
	char err[PATH_MAX + 600];
	int ret;

	if (fp_run_init(run)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_USAGE;
	}
	ret = fp_log_load(log, run, NULL, NULL, err, sizeof(err));
	if (ret && ret != -ENODATA) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	if (!pol && !policy_file) {
		if (parse_learned(&own, learned_rules, run->roots,
				  run->nroots)) {
			fp_policy_free(&own);
			return FP_EXIT_USAGE;
		}
		pol = &own;
	} else if (!pol) {
		if (fp_policy_load(&own, NULL, policy_file, run->roots,
				   run->nroots, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			fp_policy_free(&own);
			return FP_EXIT_USAGE;
		}
		pol = &own;
	}
	ret = fp_run_judge(run, pol, f, v, &o);
	fp_policy_free(&own);
	if (ret) {
		fprintf(stderr, "footprint: %s: out of memory while judging\n",
			log);
		return FP_EXIT_USAGE;
	}
	return 0;
}

static void judged_free(struct fp_run *run, struct fp_findings *f,
			struct fp_verdict *v)
{
	fp_verdict_free(v);
	fp_findings_free(f);
	fp_run_free(run);
}

static void write_rule(FILE *out, const struct fp_sugg *g, char **logs, int n)
{
	int i, k = 0, needed = 0;

	for (i = 0; i < n; i++)
		needed += g->runs[i];
	if (n == 1) {
		fprintf(out, "%s  # covers %zu\n", g->line, g->count);
		return;
	}
	fputs("# needed by: ", out);
	if (needed == n && n > 1) {
		fprintf(out, "every run (%d)", n);
	} else {
		for (i = 0; i < n; i++) {
			if (!g->runs[i])
				continue;
			fputs(k++ ? ", " : "", out);
			fp_put_name(out, logs[i]);
		}
	}
	fprintf(out, "\n%s  # covers %zu\n", g->line, g->count);
}

int fp_policy_write(const char *path, const char *sub,
		    const struct fp_vec *rules, char **logs, int n)
{
	FILE *out = fp_outdir_fopen("the policy", path);
	size_t i;
	int k;

	if (!out)
		return FP_EXIT_USAGE;
	fprintf(out, "# footprint policy %s from %d run%s:", sub, n,
		n == 1 ? "" : "s");
	for (k = 0; k < n; k++) {
		fputc(' ', out);
		fp_put_name(out, logs[k]);
	}
	fputs("\n# Review it before you commit it.\n", out);
	for (i = 0; i < rules->n; i++) {
		if (n > 1)
			fputc('\n', out);
		write_rule(out, fp_vec_at(rules, struct fp_sugg, i), logs, n);
	}
	return fp_outdir_fclose(out, "the policy", path) ? FP_EXIT_USAGE : 0;
}

/* each log's roots (no rule covers one) and homes (none is churned) */
static int learn_dirs(struct fp_suggester *s, const struct fp_run *run)
{
	size_t r;
	int ret = 0;

	for (r = 0; !ret && r < run->nroots; r++)
		ret = fp_suggester_root(s, run->roots[r],
					strlen(run->roots[r]));
	for (r = 0; !ret && r < run->nhomes; r++)
		ret = fp_suggester_home(s, run->homes[r],
					strlen(run->homes[r]));
	return ret;
}

/* The needs of every log, generalised together. */
int fp_policy_learn(char **logs, int n, bool absolute, struct fp_vec *rules)
{
	struct fp_policy none = { 0 };
	struct fp_suggester *s = fp_suggester_new(n);
	int i, ret = s ? 0 : FP_EXIT_USAGE;

	/* relative to each run's root, so that logs of several checkouts
	 * teach one policy: "allow node_modules/" */
	if (s && !absolute)
		fp_suggester_relative(s);
	for (i = 0; i < n && !ret; i++) {
		struct fp_run run;
		struct fp_findings f = { 0 };
		struct fp_verdict v = { 0 };

		ret = judge_log(logs[i], &none, NULL, &run, &f, &v);
		if (!ret && learn_dirs(s, &run))
			ret = FP_EXIT_USAGE;
		if (!ret && fp_judge_needs(s, &f))
			ret = FP_EXIT_USAGE;
		judged_free(&run, &f, &v);
	}
	if (!ret && fp_suggester_finish(s, rules))
		ret = FP_EXIT_USAGE;
	if (ret && ret != FP_EXIT_USAGE)
		ret = FP_EXIT_USAGE;
	fp_suggester_free(s);
	return ret;
}

/* One line per run; then the reasons of each failing run. */
static int check_logs(const char *policy_file, const struct fp_policy *pol,
		      char **logs, int n, bool quiet, FILE *out)
{
	int i, failed = 0, ret;
	size_t k;

	for (i = 0; i < n; i++) {
		struct fp_run run;
		struct fp_findings f = { 0 };
		struct fp_verdict v = { 0 };

		ret = judge_log(logs[i], pol, policy_file, &run, &f, &v);
		if (ret) {
			judged_free(&run, &f, &v);
			return ret;
		}
		if (!v.ok || !quiet) {
			fprintf(out, "%s ", v.ok ? "ok  " : "FAIL");
			fp_put_name(out, logs[i]);
			if (!v.ok)
				fprintf(out, " (%zu failing finding%s)",
					v.failing, v.failing == 1 ? "" : "s");
			fputc('\n', out);
		}
		/* the worst first: a write to ~/.bashrc before 40 files */
		fp_reasons_by_rank(&v.sev, v.reasons.v, v.reasons.n);
		for (k = 0; !v.ok && k < v.reasons.n; k++) {
			fputs("  ", out);
			fp_put_name(out, logs[i]);
			fprintf(out, ": %s\n",
				*fp_vec_at(&v.reasons, char *, k));
		}
		failed += !v.ok;
		judged_free(&run, &f, &v);
	}
	return failed ? FP_EXIT_VERDICT : FP_EXIT_OK;
}

int fp_policy_check_learned(const struct fp_vec *rules, char **logs, int n)
{
	struct fp_policy pol = { 0 };
	int ret;

	/* each log by the rules as `policy check` reads them: a rule
	 * relative to the root is taken against that log's roots */
	learned_rules = rules;
	ret = parse_learned(&pol, rules, NULL, 0);
	if (!ret) {
		ret = check_logs(NULL, NULL, logs, n, true, stderr);
		if (ret == FP_EXIT_VERDICT)
			fprintf(stderr,
				"footprint: policy: the runs above fail whatever the rules say; see why, and fix or leave them out\n");
	}
	fp_policy_free(&pol);
	return ret;
}

int fp_policy_check(const char *policy_file, char **logs, int n, bool quiet,
		    FILE *out)
{
	return check_logs(policy_file, NULL, logs, n, quiet, out);
}
