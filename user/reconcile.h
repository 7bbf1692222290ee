/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reconciliation: a pure function of (before snapshots, events, after
 * snapshots). Events are folded into a small state as they stream in
 * (fp_recon_feed); fp_reconcile then compares the snapshots and explains
 * each difference with that state. Live runs, replay and tests all use it.
 */
#ifndef FP_RECONCILE_H
#define FP_RECONCILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "event.h"
#include "findings.h"
#include "snapshot_fs.h"
#include "snapshot_net.h"
#include "snapshot_proc.h"

struct fp_recon;

struct fp_recon *fp_recon_new(void);
void fp_recon_free(struct fp_recon *r);
/* Fold one event in; returns 0 or -ENOMEM. */
int fp_recon_feed(struct fp_recon *r, const struct fp_event *ev);
/* Did an event write, create, remove or rename path? (fp_touched_fn) */
bool fp_recon_touched(void *r, const char *path, size_t len);

struct fp_recon_input {
	const struct fp_fs_snapshot *fs_before, *fs_after;
	const struct fp_proc_table *proc_before, *proc_after;
	const struct fp_sock_table *sock_before, *sock_after;
	char *const *roots;
	size_t nroots;
	const pid_t *leftover; /* in the run's cgroup when the command exited */
	size_t nleftover;
	const char
		*run_cgroup; /* e.g. "/footprint/run-12-34", as /proc shows */
};

int fp_reconcile(const struct fp_recon *r, const struct fp_recon_input *in,
		 struct fp_findings *out);

#endif
