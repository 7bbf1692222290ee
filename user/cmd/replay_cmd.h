/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core of footprint replay, which footprint report shares to judge a
 * log: a recorded run loaded with the policy to judge it by, then judged
 * and reported by the one report path (report_path.h).
 */
#ifndef FP_REPLAY_CMD_H
#define FP_REPLAY_CMD_H

#include "policy.h"
#include "report_path.h"
#include "rule_args.h"
#include "run.h"

/*
 * The log's run into run (initialised; its budget set if it was given),
 * and into pol the policy to judge it by: rules' when any rule was given
 * (it replaces the recorded one as a whole), else the recorded one. 0, or
 * -1 after one line. A log cut short loads, with a line that says so.
 */
int fp_replay_load(const char *log, struct fp_run *run,
		   const struct fp_rule_args *rules, struct fp_policy *pol);
/* run judged by pol, to every output of ro: the exit code */
int fp_replay_judged(struct fp_run *run, const struct fp_policy *pol,
		     const struct fp_report_outputs *ro);

#endif
