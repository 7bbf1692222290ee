// SPDX-License-Identifier: GPL-2.0
/*
 * footprint policy: learn a policy from recorded runs of one job, suggest
 * one for a single run, and check runs against a policy. Offline, from
 * logs, with the invoking user's rights (main.c drops root first).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "longopts.h"
#include "policy_learn.h"
#include "run_args.h"

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
	ret = fp_policy_learn(o->args, o->nargs, o->absolute, &rules);
	if (!ret)
		ret = fp_policy_write(o->output, o->sub, &rules, o->args,
				      o->nargs);
	if (!ret)
		ret = fp_policy_check_learned(&rules, o->args, o->nargs);
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
	return fp_policy_check(o.args[0], o.args + 1, o.nargs - 1, o.quiet,
			       stdout);
}
