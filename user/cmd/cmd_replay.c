// SPDX-License-Identifier: GPL-2.0
/* footprint replay: re-judge a recorded run offline, without root or BPF. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "logrun.h"
#include "outputs.h"
#include "receipt.h"
#include "replay_cmd.h"
#include "report_hooks.h"
#include "rule_args.h"
#include "userfile.h"
#include "run.h"
#include "run_args.h"

static void replay_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint replay [OPTIONS] LOG\n"
		"\n"
		"Re-judge a run recorded with 'footprint run --record LOG'. Needs no\n"
		"root and no BPF. With no rule options the recorded policy is used and\n"
		"the receipt is byte for byte the live one; any rule option replaces\n"
		"the recorded policy, so an old run can be judged by today's rules.\n"
		"\n"
		"Options:\n"
		"  -a, --allow PATTERN, -f, --forbid PATTERN, -x, --expect PATTERN,\n"
		"      --ignore PATTERN, -p, --policy FILE, --report-noise\n"
		"                       as for 'footprint run' (docs/policy.md)\n"
		"  -o, --receipt FILE   write the JSON receipt (- for stdout)\n"
		"      --html FILE      write the HTML report of the receipt to FILE\n"
		"                       (as 'footprint report --html'; docs/report.md)\n"
		"      --push URL       push the receipt to the ClickHouse at URL\n"
		"                       (docs/fleet.md; spooled when it cannot be)\n"
		"      --job NAME       the job's name there\n"
		"      --memory-budget SIZE  instead of the recorded one (a run that\n"
		"                       ran out of it can be re-judged with more)\n"
		"  -q, --quiet          no summary on stderr\n"
		"      --summary-max N  at most N examples per category in the summary\n"
		"                       (default 10)\n"
		"  -h, --help           show this help\n"
		"\n"
		"Examples:\n"
		"  footprint replay job.fplog\n"
		"  footprint replay --policy today.policy --receipt r.json job.fplog\n"
		"  footprint replay -q --policy today.policy --html today.html job.fplog\n"
		"  footprint replay --push http://localhost:8123/ --job build job.fplog\n"
		"\n"
		"Exit status: as for 'footprint run': 0 ok; 1 the verdict failed (also\n"
		"for a log cut short); 2 usage error, unreadable or damaged log, or a\n"
		"log from a newer footprint; 124 the run timed out; 126/127 the command\n"
		"was not executable / not found.\n");
}

int fp_replay_judged(struct fp_run *run, const struct fp_policy *pol,
		     const struct fp_report_outputs *ro)
{
	struct fp_findings f = { 0 };
	struct fp_verdict v = { 0 };
	struct fp_outcome o;
	int rc = FP_EXIT_NOTRACE;

	if (fp_run_judge(run, pol, &f, &v, &o))
		fprintf(stderr, "footprint: out of memory while reconciling\n");
	else
		rc = fp_report_judged(
			&(struct fp_judged){ run, &f, &v, &o, NULL }, ro,
			fp_run_exit_code(run, &v));
	fp_verdict_free(&v);
	fp_findings_free(&f);
	return rc;
}

int fp_replay_load(const char *log, struct fp_run *run,
		   const struct fp_rule_args *rules, struct fp_policy *pol)
{
	char err[600];
	int ret = fp_log_load(log, run, NULL, NULL, err, sizeof(err));

	if (ret && ret != -ENODATA) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (ret == -ENODATA)
		fprintf(stderr, "footprint: %s: %s; the verdict fails\n", log,
			run->incomplete_why);
	/* any rule option replaces the recorded policy as a whole */
	if (rules && rules->given)
		return fp_rule_args_policy(rules, pol, NULL, run->roots,
					   run->nroots) ?
			       -1 :
			       0;
	if (fp_run_policy(run, pol, err, sizeof(err))) {
		fprintf(stderr, "footprint: %s: the recorded policy: %s\n", log,
			err);
		return -1;
	}
	return 0;
}

/* The log's run, judged by pol: every output replay was asked for. */
static int replay_report(const struct fp_replay_opts *args, struct fp_run *run,
			 const struct fp_policy *pol, FILE *out,
			 struct fp_output *html)
{
	struct fp_report_outputs ro = FP_REPORT_OUTPUTS_INIT;
	struct fp_report_push push = {
		.fo = { .url = args->args.push_url,
			.job = args->args.push_job,
			.quiet = args->args.so.quiet },
	};
	struct fp_report_html page = { .out = html };

	ro.receipt = out;
	ro.quiet = args->args.so.quiet;
	ro.summary_max = args->args.so.summary_max;
	fp_report_hook_push(&ro, &push);
	fp_report_hook_html(&ro, &page);
	return fp_replay_judged(run, pol, &ro);
}

int cmd_replay(int argc, char **argv)
{
	struct fp_replay_opts args = { 0 };
	struct fp_output html = FP_OUTPUT_INIT("the HTML report");
	const char *receipt_path;
	struct fp_run run;
	struct fp_policy pol = { 0 };
	FILE *out = NULL;
	int ret, rc = FP_EXIT_USAGE;

	ret = fp_replay_args_parse(argc, argv, &args);
	if (ret == FP_ARGS_HELP) {
		replay_usage(stdout);
		return FP_EXIT_OK;
	}
	if (ret)
		return ret;
	receipt_path = args.args.so.receipt_path;
	html.path = args.args.so.html_path;
	if (fp_run_init(&run)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	/* a page that cannot be written fails before the log is judged */
	if (fp_output_prepare(&html, NULL, NULL, 0) ||
	    (html.path && strcmp(html.path, "-") &&
	     fp_output_create(&html, NULL, true) < 0))
		goto cleanup;
	if (args.args.mem_budget_given) {
		run.mem_budget = args.args.so.mem_budget;
		run.mem_budget_given = true;
	}
	if (fp_replay_load(args.log, &run, &args.args.rules, &pol))
		goto cleanup;
	if (receipt_path) {
		out = fp_outdir_fopen("the receipt", receipt_path);
		if (!out)
			goto cleanup;
	}
	rc = replay_report(&args, &run, &pol, out, &html);
cleanup:
	if (out && fp_outdir_fclose(out, "the receipt", receipt_path))
		rc = FP_EXIT_USAGE;
	fp_output_discard_empty(&html, NULL);
	if (html.fd >= 0)
		close(html.fd);
	fp_output_close(&html);
	fp_policy_free(&pol);
	fp_run_free(&run);
	return rc;
}
