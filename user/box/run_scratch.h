/* SPDX-License-Identifier: GPL-2.0 */
/* run's scratch box and input lock, from its options (docs/scratch.md). */
#ifndef FP_RUN_SCRATCH_H
#define FP_RUN_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "creds.h"
#include "scratch.h"

/* --hide and --scratch-also, each */
#define FP_SCRATCH_MAX 32

/* run's options of the box (docs/scratch.md) */
struct fp_box_opts {
	const char *scratch_dir; /* --scratch DIR; NULL: no box */
	const char *hide[FP_SCRATCH_MAX];
	size_t nhide;
	const char *also[FP_SCRATCH_MAX];
	size_t nalso;
	bool no_network;
	const char *inputs_lock;
};

/*
 * With --scratch: the overlays of roots (and of --scratch-also) and the
 * hides, ready for the launch; *dir_real is DIR's real path (malloc'd).
 * 0, or an exit code after one line.
 */
int fp_run_scratch_open(struct fp_scratch *sc, const struct fp_box_opts *o,
			char *const *roots, size_t nroots,
			const struct fp_creds *c, char **dir_real,
			int *root_fds);
/* With --inputs-lock: 0 when every root matches it, or an exit code
 * after one line naming the first drifted path. */
int fp_run_inputs_check(const struct fp_box_opts *o, const struct fp_creds *c);

#endif
