// SPDX-License-Identifier: GPL-2.0
/*
 * fleet learn: the policy the job's last passing runs needed, from what
 * the store holds of them, generalised by policy learn's own suggester
 * (suggest.h): each run's roots, the paths it made and what a rule had
 * to allow (its allowed findings) are fed to it as policy learn feeds a
 * judged log's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "path.h"
#include "fleet.h"
#include "fleet_query.h"
#include "userfile.h"

static void when(char *buf, size_t len, uint32_t t)
{
	time_t tt = t;
	struct tm tm;

	if (gmtime_r(&tt, &tm))
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(buf, len, "?");
}

/* as policy learn writes its rules: who needed each, what it covers */
static void write_rules(FILE *out, const struct fp_vec *rules,
			const struct fp_fleet_past *runs, size_t n)
{
	size_t i, k, needed, shown;

	for (i = 0; i < rules->n; i++) {
		const struct fp_sugg *g = fp_vec_at(rules, struct fp_sugg, i);

		for (k = needed = 0; k < n; k++)
			needed += g->runs[k];
		fputs("\n# needed by: ", out);
		if (needed == n && n > 1) {
			fprintf(out, "every run (%zu)", n);
		} else {
			/* runs newest first; the suggester's are oldest first */
			for (k = shown = 0; k < n; k++)
				if (g->runs[k])
					fprintf(out, "%s%s",
						shown++ ? ", " : "",
						runs[n - 1 - k].id);
		}
		fprintf(out, "\n%s  # covers %zu\n", g->line, g->count);
	}
}

/* every line the suggester made parses back as a rule */
static int check_rules(const struct fp_vec *rules)
{
	struct fp_policy pol = { 0 };
	char err[256];
	size_t i;
	int ret = 0;

	for (i = 0; i < rules->n && !ret; i++) {
		const char *line = fp_vec_at(rules, struct fp_sugg, i)->line;

		if (fp_policy_parse_line(&pol, line, strlen(line), NULL, 0, err,
					 sizeof(err))) {
			fprintf(stderr,
				"footprint: fleet learn: bad learned rule %s: %s\n",
				line, err);
			ret = FP_EXIT_USAGE;
		}
	}
	fp_policy_free(&pol);
	return ret;
}

static int write_policy(const char *path, const char *job,
			const struct fp_vec *rules,
			const struct fp_fleet_past *runs, size_t n,
			unsigned int last)
{
	FILE *out = fp_outdir_fopen("the policy", path);
	char t[32];
	size_t k;

	if (!out)
		return FP_EXIT_USAGE;
	fputs("# footprint fleet learn: job ", out);
	fp_put_name(out, job);
	fprintf(out, ", its last %zu passing run%s", n, n == 1 ? "" : "s");
	if (n < last)
		fprintf(out, " (of %u asked)", last);
	fputs(":\n", out);
	for (k = n; k-- > 0;) {
		when(t, sizeof(t), runs[k].started);
		fprintf(out, "#   %s started %s\n", runs[k].id, t);
	}
	fputs("# Review it before you commit it.\n", out);
	write_rules(out, rules, runs, n);
	return fp_outdir_fclose(out, "the policy", path) ? FP_EXIT_USAGE : 0;
}

int fp_fleet_learn(struct fp_fleet *fl, const char *job, unsigned int last,
		   const char *path)
{
	struct fp_fleet_past *runs = NULL;
	struct fp_vec rules = { 0 };
	size_t n = 0;
	int rc;

	rc = fp_fleet_last_runs(fl, job, last, true, NULL, &runs, &n);
	if (!rc && !n) {
		fprintf(stderr,
			"footprint: fleet learn: the store has no passing run of job '%s'; push some first (footprint fleet push --job)\n",
			job);
		rc = FP_EXIT_VERDICT;
	}
	if (!rc)
		rc = fp_fleet_past_findings(fl, job, runs, n);
	if (!rc)
		rc = fp_fleet_suggest(fl, runs, n, true, &rules);
	if (!rc)
		rc = check_rules(&rules);
	if (!rc)
		rc = write_policy(path, job, &rules, runs, n, last);
	if (!rc && !fl->quiet)
		fprintf(stderr,
			"footprint: fleet learn: %zu rule%s from the last %zu passing run%s of '%s'\n",
			rules.n, rules.n == 1 ? "" : "s", n, n == 1 ? "" : "s",
			job);
	fp_suggs_free(&rules);
	fp_fleet_pasts_free(runs, n);
	return rc;
}
