/* SPDX-License-Identifier: GPL-2.0 */
/*
 * footprint policy's engine: learn the smallest policy under which
 * recorded runs pass, write it, and check runs against a policy. Logs
 * and policy files are read with the caller's rights. Each returns 0 or
 * an exit code after one line (check: FP_EXIT_VERDICT if a run fails).
 */
#ifndef FP_POLICY_LEARN_H
#define FP_POLICY_LEARN_H

#include <stdbool.h>
#include <stdio.h>

#include "findings.h"
#include "suggest.h" /* the rules, and fp_suggs_free */

/* The needs of every log, generalised together into rules (struct
 * fp_sugg); absolute: no rule relative to a run's root. */
int fp_policy_learn(char **logs, int n, bool absolute, struct fp_vec *rules);
/* The rules, with which runs needed each, to path (a new file, 0600;
 * NULL: stdout); sub ("learn", "suggest") names the command. */
int fp_policy_write(const char *path, const char *sub,
		    const struct fp_vec *rules, char **logs, int n);
/* Each log by the rules learned from it, as `policy check` reads them;
 * the failing ones on stderr. */
int fp_policy_check_learned(const struct fp_vec *rules, char **logs, int n);
/* Each log by policy_file: one line per run on out (only the failing
 * ones if quiet), then why each failing run failed, most severe first. */
int fp_policy_check(const char *policy_file, char **logs, int n, bool quiet,
		    FILE *out);

#endif
