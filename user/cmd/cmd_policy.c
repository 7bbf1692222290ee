// SPDX-License-Identifier: GPL-2.0
/*
 * footprint policy: learn a policy from recorded runs of one job, suggest
 * one for a single run, and check runs against a policy. Offline, from
 * logs, with the invoking user's rights (main.c drops root first).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "severity.h"
#include "logrun.h"
#include "run.h"
#include "run_args.h"
#include "suggest.h"
#include "userfile.h"
#include "longopts.h"

static void policy_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint policy learn [-o FILE] [--absolute] LOG...\n"
		"       footprint policy suggest [-o FILE] [--absolute] LOG\n"
		"       footprint policy check [-q] POLICY LOG...\n"
		"\n"
		"Policies from recorded runs ('footprint run --record LOG'), offline:\n"
		"no root, no BPF; logs and policies are read with your own rights.\n"
		"\n"
		"  learn    the smallest policy under which every LOG passes, from\n"
		"           several runs of the same job, in one checkout or several:\n"
		"           rules are relative to each run's root (allow build/); a\n"
		"           directory a run created is allowed as DIR/; a package\n"
		"           cache (~/.npm/_cacache/, ~/.cache/pip/...) as one rule;\n"
		"           UUID, hash and temp names under a directory as DIR/ (in\n"
		"           /tmp as a glob: /tmp/cc*.s); numbered names as one glob\n"
		"           (ol.[0-9]*); a secret read by the program that read it\n"
		"           (allow read /etc/shadow by /usr/sbin/unix_chkpwd); a bind\n"
		"           to port 0 as port 0. Each rule says which runs needed it\n"
		"           and how many findings it covers\n"
		"  suggest  the same for one run\n"
		"  check    judge every LOG by POLICY alone: one line per run, then\n"
		"           why each failing run failed, most severe first (secret\n"
		"           reads, privileges, tampering; then writes outside the\n"
		"           roots and egress; then the rest; files in the roots last)\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE    write the policy to FILE (a new file, 0600;\n"
		"                       default: stdout)\n"
		"      --absolute       learn, suggest: absolute paths, not relative to\n"
		"                       the root (the policy fits that checkout only)\n"
		"  -q, --quiet          check: only the lines of failing runs\n"
		"  -h, --help           show this help\n"
		"\n"
		"Examples:\n"
		"  footprint policy learn -o ci.policy run1.fplog run2.fplog\n"
		"  footprint policy check ci.policy run3.fplog\n"
		"  footprint policy suggest job.fplog -o job.policy\n"
		"  footprint policy learn --absolute -o here.policy run1.fplog\n"
		"  footprint replay --policy job.policy job.fplog\n"
		"\n"
		"Exit status: learn, suggest: 0 the policy was written and every run\n"
		"passes it; 1 a run fails whatever the rules say (its command failed,\n"
		"its trace is incomplete, tampering, a path no rule can allow), which\n"
		"is then named. check: 0 every run passes; 1 a run fails. 2: usage\n"
		"error, unreadable or damaged log or policy.\n");
}

struct policy_opts {
	const char *sub;
	const char *output;
	bool quiet;
	bool absolute; /* --absolute: no rule relative to a root */
	char **args;
	int nargs;
};

const struct option fp_policy_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "absolute", no_argument, NULL, 'A' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int policy_args(int argc, char **argv, struct policy_opts *o)
{
	static struct fp_positionals pos;
	int c, at;

	memset(&pos, 0, sizeof(pos));
	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:o:qh",
					  fp_policy_longopts, &at, &pos)) !=
	       -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'A':
			o->absolute = true;
			break;
		case 'h':
			return FP_ARGS_HELP;
		case ':':
		default:
			return fp_bad_option("policy", c, argv[at]);
		}
	}
	if (pos.n > FP_POSITIONALS_MAX)
		return fp_usage_error("policy",
				      "too many arguments (at most %d logs)",
				      FP_POSITIONALS_MAX - 2);
	if (pos.n < 1)
		return fp_usage_error("policy", "say learn, suggest or check");
	o->sub = pos.v[0];
	o->args = pos.v + 1;
	o->nargs = pos.n - 1;
	return 0;
}

/* A log's name in a comment or a line: control bytes as \xHH. */
static void put_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* The learned rules (struct fp_sugg), relative ones against roots. */
static int parse_learned(struct fp_policy *pol, const struct fp_vec *rules,
			 char *const *roots, size_t nroots)
{
	char err[256];
	size_t i;

	for (i = 0; i < rules->n; i++) {
		const char *line = ((struct fp_sugg *)rules->v)[i].line;

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
			put_name(out, logs[i]);
		}
	}
	fprintf(out, "\n%s  # covers %zu\n", g->line, g->count);
}

static int write_policy(const char *path, const char *sub,
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
		put_name(out, logs[k]);
	}
	fputs("\n# Review it before you commit it.\n", out);
	for (i = 0; i < rules->n; i++) {
		if (n > 1)
			fputc('\n', out);
		write_rule(out, &((struct fp_sugg *)rules->v)[i], logs, n);
	}
	if (fflush(out) || (out != stdout && fclose(out))) {
		fprintf(stderr,
			"footprint: writing the policy to %s failed: %s\n",
			path, strerror(errno));
		return FP_EXIT_USAGE;
	}
	return 0;
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
static int learn_rules(char **logs, int n, bool absolute, struct fp_vec *rules)
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
			put_name(out, logs[i]);
			if (!v.ok)
				fprintf(out, " (%zu failing finding%s)",
					v.failing, v.failing == 1 ? "" : "s");
			fputc('\n', out);
		}
		/* the worst first: a write to ~/.bashrc before 40 files */
		fp_reasons_by_rank(&v.sev, v.reasons.v, v.reasons.n);
		for (k = 0; !v.ok && k < v.reasons.n; k++) {
			fputs("  ", out);
			put_name(out, logs[i]);
			fprintf(out, ": %s\n", ((char **)v.reasons.v)[k]);
		}
		failed += !v.ok;
		judged_free(&run, &f, &v);
	}
	return failed ? FP_EXIT_VERDICT : FP_EXIT_OK;
}

static int check_learned(const struct fp_vec *rules, char **logs, int n)
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

static int policy_learn(const struct policy_opts *o)
{
	struct fp_vec rules = { 0 };
	int ret;

	if (!strcmp(o->sub, "suggest") && o->nargs != 1)
		return fp_usage_error(
			"policy",
			"suggest takes exactly one LOG; learn takes several");
	if (o->nargs < 1)
		return fp_usage_error("policy", "%s wants at least one LOG",
				      o->sub);
	ret = learn_rules(o->args, o->nargs, o->absolute, &rules);
	if (!ret)
		ret = write_policy(o->output, o->sub, &rules, o->args,
				   o->nargs);
	if (!ret)
		ret = check_learned(&rules, o->args, o->nargs);
	fp_suggs_free(&rules);
	return ret;
}

int cmd_policy(int argc, char **argv)
{
	struct policy_opts o = { 0 };
	int ret = policy_args(argc, argv, &o);

	if (ret == FP_ARGS_HELP) {
		policy_usage(stdout);
		return FP_EXIT_OK;
	}
	if (ret)
		return ret;
	if (!strcmp(o.sub, "learn") || !strcmp(o.sub, "suggest"))
		return policy_learn(&o);
	if (strcmp(o.sub, "check"))
		return fp_usage_error(
			"policy", "unknown '%s': say learn, suggest or check",
			o.sub);
	if (o.output || o.absolute)
		return fp_usage_error("policy",
				      "check writes no rules; drop %s",
				      o.output ? "-o" : "--absolute");
	if (o.nargs < 2)
		return fp_usage_error(
			"policy", "check wants a POLICY and at least one LOG");
	return check_logs(o.args[0], NULL, o.args + 1, o.nargs - 1, o.quiet,
			  stdout);
}
