/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The long options of every subcommand, the very tables its parser hands
 * to getopt_long. `footprint completion bash` (cmd_completion.c) is
 * generated from them, so the completion offers what the parsers take.
 */
#ifndef FP_LONGOPTS_H
#define FP_LONGOPTS_H

#include <getopt.h>

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
