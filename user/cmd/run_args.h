/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The argument parsers of run, replay and events. They only fill a struct
 * and return a code (a usage error also prints its one line on stderr):
 * no exit(), no file is opened, so tests/fuzz/fuzz_cli.c can call them
 * again and again.
 */
#ifndef FP_RUN_ARGS_H
#define FP_RUN_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/types.h>

#include "attest_args.h"
#include "footprint.h"
#include "rule_args.h"
#include "run_scratch.h"
#include "run_target.h"
#include "session_args.h"

/* returned for -h/--help: the caller prints the usage and exits 0 */
#define FP_ARGS_HELP (-1)

struct run_opts {
	/* the session's options and those shared with sidecar and replay */
	struct fp_session_args args;
	const char *user;
	bool as_root;
	int64_t timeout_ms;
	int leftovers; /* LEFTOVERS_* */
	char **argv;
	struct fp_box_opts box; /* --scratch ... (docs/scratch.md) */
	const char *shape_policy; /* --shape-policy FILE */
	struct fp_attest_args attest; /* --attest KEY ... (docs/attest.md) */
};

struct fp_replay_opts {
	struct fp_session_args args; /* rules, receipt, budget, summary */
	const char *log;
};

struct fp_events_opts {
	long pid; /* -1: every process */
	const char *type;
	const char *prefix;
	const char *log;
	const char *format; /* --format: NULL (ndjson) or as given */
};

/*
 * The positional arguments of a subcommand, in order: the first
 * FP_POSITIONALS_MAX kept, n counts them all (so "exactly one" can be
 * checked however many were given).
 */
#define FP_POSITIONALS_MAX 256 /* policy learn takes many logs */
struct fp_positionals {
	char *v[FP_POSITIONALS_MAX];
	int n;
};

struct option;

/*
 * The convention of every subcommand but run: options may come before,
 * between or after the positional arguments ("replay job.fplog -o r.json"),
 * and everything after "--" is positional. fp_opts_start() first, then
 * call it like getopt_long until it returns -1; optstring must begin with
 * "-:". *at is the index in argv of the argument an error is about.
 * run does not use it: its options end at the command.
 */
void fp_opts_start(void);
/* getopt_long, with *at set to the index of the argument it works on */
int fp_next_opt(int argc, char **argv, const char *optstring,
		const struct option *longopts, int *at);
/* getopt's ':' (a value missing) or anything else unknown, as one usage
 * line about arg; FP_EXIT_USAGE */
int fp_bad_option(const char *sub, int c, const char *arg);
int fp_next_opt_any_order(int argc, char **argv, const char *optstring,
			  const struct option *longopts, int *at,
			  struct fp_positionals *pos);
void fp_positional_add(struct fp_positionals *pos, char *arg);

/* --summary-max N of subcommand sub: 0, or FP_EXIT_USAGE after a line */
int fp_parse_summary_max(const char *sub, const char *arg, size_t *out);
/* --record-max SIZE of subcommand sub: 0, or FP_EXIT_USAGE after a line */
int fp_parse_record_max(const char *sub, const char *arg, uint64_t *out);
/* --ring-size and --memory-budget: 0, or FP_EXIT_USAGE after one line */
int fp_parse_ring_size(const char *sub, const char *arg, size_t *out);
int fp_parse_budget(const char *sub, const char *arg, uint64_t *out);
/* one more --dns-port into ports (53 first); 0 or FP_EXIT_USAGE */
int fp_parse_dns_port(const char *sub, const char *arg, uint16_t *ports);

void fp_run_usage(FILE *f);
/*
 * 0 with *o filled (o zeroed by the caller), FP_ARGS_HELP, or
 * FP_EXIT_USAGE after one line on stderr. The strings in *o point into
 * argv.
 */
int fp_run_args_parse(int argc, char **argv, struct run_opts *o);
int fp_replay_args_parse(int argc, char **argv, struct fp_replay_opts *o);
int fp_events_args_parse(int argc, char **argv, struct fp_events_opts *o);

#endif
