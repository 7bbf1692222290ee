/* SPDX-License-Identifier: GPL-2.0 */
/* run's scratch box and input lock, from its options (docs/scratch.md). */
#ifndef FP_RUN_SCRATCH_H
#define FP_RUN_SCRATCH_H

#include "creds.h"
#include "run_args.h"
#include "scratch.h"

/*
 * With --scratch: the overlays of roots (and of --scratch-also) and the
 * hides, ready for the launch; *dir_real is DIR's real path (malloc'd).
 * 0, or an exit code after one line.
 */
int fp_run_scratch_open(struct fp_scratch *sc, const struct run_opts *o,
			char *const *roots, const struct fp_creds *c,
			char **dir_real, int *root_fds);
/* With --inputs-lock: 0 when every root matches it, or an exit code
 * after one line naming the first drifted path. */
int fp_run_inputs_check(const struct run_opts *o, char *const *roots,
			const struct fp_creds *c);

#endif
