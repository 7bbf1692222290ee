/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "scratch" object of a scratch run's receipt: what the command
 * proposes, as the difference between the before and after snapshots of
 * the merged (overlay) view. Both snapshots are in the log, so replay
 * writes it byte for byte again.
 */
#ifndef FP_RECEIPT_SCRATCH_H
#define FP_RECEIPT_SCRATCH_H

#include "json.h"
#include "snapshot_fs.h"

void fp_receipt_scratch(struct json_out *j, const char *dir, char *const *roots,
			size_t nroots, const struct fp_fs_snapshot *before,
			const struct fp_fs_snapshot *after);

#endif
