// SPDX-License-Identifier: GPL-2.0
/* The argument parsers of run, replay and events (see run_args.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "longopts.h"
#include "run_args.h"

/* The scratch box's options (docs/scratch.md); 0 or FP_EXIT_USAGE. */
static int fp_scratch_arg(struct fp_box_opts *b, int c, const char *arg)
{
	if (c == FP_OPT_SCRATCH)
		b->scratch_dir = arg;
	else if (c == FP_OPT_NO_NETWORK)
		b->no_network = true;
	else if (c == FP_OPT_INPUTS_LOCK)
		b->inputs_lock = arg;
	else if (c == FP_OPT_HIDE && b->nhide < FP_SCRATCH_MAX)
		b->hide[b->nhide++] = arg;
	else if (c == FP_OPT_SCRATCH_ALSO && b->nalso < FP_SCRATCH_MAX)
		b->also[b->nalso++] = arg;
	else
		return fp_usage_error("run",
				      "at most %d --hide and %d --scratch-also",
				      FP_SCRATCH_MAX, FP_SCRATCH_MAX);
	if (arg && !*arg)
		return fp_usage_error("run",
				      "an empty path is no path; give one");
	return 0;
}

/* run's own options; the shared ones are session_args.c's */
const struct option fp_run_longopts[] = {
	{ "user", required_argument, NULL, FP_OPT_USER },
	{ "as-root", no_argument, NULL, FP_OPT_AS_ROOT },
	{ "timeout", required_argument, NULL, FP_OPT_TIMEOUT },
	{ "leftovers", required_argument, NULL, FP_OPT_LEFTOVERS },
	{ "scratch", required_argument, NULL, FP_OPT_SCRATCH },
	{ "hide", required_argument, NULL, FP_OPT_HIDE },
	{ "no-network", no_argument, NULL, FP_OPT_NO_NETWORK },
	{ "scratch-also", required_argument, NULL, FP_OPT_SCRATCH_ALSO },
	{ "inputs-lock", required_argument, NULL, FP_OPT_INPUTS_LOCK },
	{ "unit", required_argument, NULL, FP_OPT_UNIT },
	{ "shape-policy", required_argument, NULL, FP_OPT_SHAPE_POLICY },
	FP_ATTEST_LONGOPTS,
	FP_ATTEST_MATERIALS_LONGOPT,
	{ "help", no_argument, NULL, FP_OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static int run_leftovers(const char *arg, int *out)
{
	if (!strcmp(arg, "fail"))
		*out = LEFTOVERS_FAIL;
	else if (!strcmp(arg, "kill"))
		*out = LEFTOVERS_KILL;
	else if (!strcmp(arg, "allow"))
		*out = LEFTOVERS_ALLOW;
	else
		return fp_usage_error(
			"run",
			"--leftovers wants fail, kill or allow, got '%s'", arg);
	return 0;
}

/* run's own options: 0, FP_ARGS_HELP or FP_EXIT_USAGE after a line */
static int run_arg(struct run_opts *o, int c, const char *arg, char **argv,
		   int at)
{
	switch (c) {
	case FP_OPT_USER:
		/* getpwnam("") fails, and "" then read as uid 0 is root */
		if (!*arg)
			return fp_usage_error(
				"run",
				"--user wants a user name or uid; leave it out to run as the invoking user");
		o->user = arg;
		return 0;
	case FP_OPT_AS_ROOT:
		o->as_root = true;
		return 0;
	case FP_OPT_TIMEOUT:
		o->timeout_ms = fp_parse_duration_ms(arg);
		if (o->timeout_ms <= 0)
			return fp_usage_error(
				"run",
				"--timeout wants a duration such as 30s, 5m or 1h, got '%s'",
				arg);
		return 0;
	case FP_OPT_LEFTOVERS:
		return run_leftovers(arg, &o->leftovers);
	case FP_OPT_UNIT:
		o->args.so.unit = arg;
		return 0;
	case FP_OPT_SHAPE_POLICY:
		o->shape_policy = arg;
		return 0;
	case FP_OPT_SCRATCH:
	case FP_OPT_HIDE:
	case FP_OPT_NO_NETWORK:
	case FP_OPT_SCRATCH_ALSO:
	case FP_OPT_INPUTS_LOCK:
		return fp_scratch_arg(&o->box, c, arg);
	case FP_OPT_HELP:
		return FP_ARGS_HELP;
	default:
		return fp_bad_option("run", c, argv[at]);
	}
}

/* the options that only make sense together */
static int run_check(const struct run_opts *o)
{
	const struct fp_box_opts *b = &o->box;

	if (!b->scratch_dir && (b->nhide || b->nalso || b->no_network))
		return fp_usage_error(
			"run",
			"--hide, --no-network and --scratch-also work in a scratch box; add --scratch DIR");
	if (o->args.so.record_max && !o->args.so.record_path)
		return fp_usage_error(
			"run", "--record-max cuts the --record FILE; give one");
	if (fp_attest_args_check(&o->attest, "run"))
		return FP_EXIT_USAGE;
	return fp_session_args_check(&o->args, "run");
}

int fp_run_args_parse(int argc, char **argv, struct run_opts *o)
{
	static struct option longopts[FP_LONGOPTS_MAX];
	int c, taken, at;

	fp_session_args_init(&o->args, FP_SUB_RUN);
	fp_longopts_build(longopts, FP_SUB_RUN, fp_run_longopts);
	fp_opts_start();
	/* "+": the first non-option is COMMAND, and its options are its own */
	while ((c = fp_next_opt(argc, argv, "+:r:a:f:x:p:o:e:w:u:t:qh",
				longopts, &at)) != -1) {
		taken = fp_session_args_take(&o->args, "run", c, optarg);
		if (!taken)
			taken = fp_attest_args_take(&o->attest, "run", c,
						    optarg);
		if (taken < 0)
			return -taken;
		if (!taken && (taken = run_arg(o, c, optarg, argv, at)))
			return taken;
	}
	if (optind >= argc)
		return fp_usage_error("run",
				      "no command given; put it after '--'");
	if (run_check(o))
		return FP_EXIT_USAGE;
	o->argv = argv + optind;
	return 0;
}

const struct option fp_replay_longopts[] = {
	{ "help", no_argument, NULL, FP_OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int fp_replay_args_parse(int argc, char **argv, struct fp_replay_opts *o)
{
	static struct option longopts[FP_LONGOPTS_MAX];
	struct fp_positionals pos = { 0 };
	int c, ret, at;

	fp_session_args_init(&o->args, FP_SUB_REPLAY);
	fp_longopts_build(longopts, FP_SUB_REPLAY, fp_replay_longopts);
	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:a:f:x:p:o:qh",
					  longopts, &at, &pos)) != -1) {
		ret = fp_session_args_take(&o->args, "replay", c, optarg);
		if (ret < 0)
			return -ret;
		if (ret)
			continue;
		if (c == FP_OPT_HELP)
			return FP_ARGS_HELP;
		return fp_bad_option("replay", c, argv[at]);
	}
	if (fp_session_args_check(&o->args, "replay"))
		return FP_EXIT_USAGE;
	if (pos.n != 1)
		return fp_usage_error("replay", "give exactly one LOG file");
	o->log = pos.v[0];
	return 0;
}

const struct option fp_events_longopts[] = {
	{ "pid", required_argument, NULL, 'P' },
	{ "type", required_argument, NULL, 'T' },
	{ "path-prefix", required_argument, NULL, 'X' },
	{ "format", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int fp_events_args_parse(int argc, char **argv, struct fp_events_opts *o)
{
	struct fp_positionals pos = { 0 };
	char *end;
	int c, at;

	o->pid = -1;
	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:h", fp_events_longopts,
					  &at, &pos)) != -1) {
		switch (c) {
		case 'P':
			errno = 0;
			o->pid = strtol(optarg, &end, 10);
			if (errno || *end || o->pid < 0)
				return fp_usage_error(
					"events",
					"--pid wants a number, got '%s'",
					optarg);
			break;
		case 'T':
			o->type = optarg;
			break;
		case 'X':
			o->prefix = optarg;
			break;
		case 'F':
			o->format = optarg;
			break;
		case 'h':
			return FP_ARGS_HELP;
		case ':':
		default:
			return fp_bad_option("events", c, argv[at]);
		}
	}
	if (pos.n != 1)
		return fp_usage_error("events", "give exactly one LOG file");
	o->log = pos.v[0];
	return 0;
}
