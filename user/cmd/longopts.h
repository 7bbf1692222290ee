/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The long options of every subcommand, the very tables its parser hands
 * to getopt_long. `footprint completion bash` (cmd_completion.c) is
 * generated from them, so the completion offers what the parsers take.
 */
#ifndef FP_LONGOPTS_H
#define FP_LONGOPTS_H

#include <getopt.h>

/*
 * The value getopt_long returns for each option of run, sidecar and
 * replay (session_args.h holds the options they share). An option with a
 * short form is its letter; the others count up from 256, past every
 * character. The attestation's are attest_args.h's, from 1024.
 */
enum fp_opt {
	FP_OPT_ALLOW = 'a',
	FP_OPT_EVENTS = 'e',
	FP_OPT_FORBID = 'f',
	FP_OPT_HELP = 'h',
	FP_OPT_RECEIPT = 'o',
	FP_OPT_POLICY = 'p',
	FP_OPT_QUIET = 'q',
	FP_OPT_ROOT = 'r',
	FP_OPT_TIMEOUT = 't',
	FP_OPT_USER = 'u',
	FP_OPT_RECORD = 'w',
	FP_OPT_EXPECT = 'x',
	/* the options with no short form */
	FP_OPT_IGNORE = 256,
	FP_OPT_REPORT_NOISE,
	FP_OPT_REPORT_READS,
	FP_OPT_RECORD_MAX,
	FP_OPT_FORCE,
	FP_OPT_CROSS_MOUNTS,
	FP_OPT_REHASH_ALL,
	FP_OPT_RING_SIZE,
	FP_OPT_EVERY_OPEN,
	FP_OPT_COLD,
	FP_OPT_MAX_ARGV,
	FP_OPT_DNS_PORT,
	FP_OPT_MEMORY_BUDGET,
	FP_OPT_SUMMARY_MAX,
	FP_OPT_PUSH,
	FP_OPT_JOB,
	FP_OPT_HTML,
	/* run's own */
	FP_OPT_AS_ROOT,
	FP_OPT_LEFTOVERS,
	FP_OPT_SCRATCH,
	FP_OPT_HIDE,
	FP_OPT_NO_NETWORK,
	FP_OPT_SCRATCH_ALSO,
	FP_OPT_INPUTS_LOCK,
	FP_OPT_UNIT,
	FP_OPT_SHAPE_POLICY,
	/* sidecar's own */
	FP_OPT_STATE,
	FP_OPT_CGROUP,
	FP_OPT_PID_TREE,
	FP_OPT_STEP_PARENT,
	FP_OPT_JSON,
	FP_OPT_SUMMARY,
	FP_OPT_ANNOTATIONS,
	FP_OPT_DAEMON,
};

extern const struct option fp_run_longopts[];
extern const struct option fp_replay_longopts[];
extern const struct option fp_events_longopts[];
extern const struct option fp_sidecar_longopts[];
extern const struct option fp_policy_longopts[];
extern const struct option fp_lock_longopts[];
extern const struct option fp_promote_longopts[];
extern const struct option fp_shape_longopts[];
extern const struct option fp_shape_diff_longopts[];
extern const struct option fp_completion_longopts[];
extern const struct option fp_attest_longopts[];
extern const struct option fp_fleet_longopts[];
extern const struct option fp_report_longopts[];

#endif
