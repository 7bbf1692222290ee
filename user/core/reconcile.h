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
#include <stdint.h>
#include <sys/types.h>

#include "event.h"
#include "findings.h"
#include "snapshot_fs.h"
#include "snapshot_holders.h"
#include "snapshot_net.h"
#include "snapshot_proc.h"

struct fp_recon;

/*
 * The state folded from events is charged against a budget (bytes, as
 * counted by reconcile.c, findings included), because a command can make
 * millions of events. Once it is spent nothing new is kept: the run is
 * incomplete and fails, but footprint goes on. The count is a function of
 * the events alone, so replay reaches the budget at the same event.
 */
#define FP_RECON_BUDGET_DEFAULT (128ULL << 20)

/* with the default budget */
struct fp_recon *fp_recon_new(void);
void fp_recon_free(struct fp_recon *r);
/* bytes; 0 means none. Set it before the first event. */
void fp_recon_set_budget(struct fp_recon *r, uint64_t bytes);
/*
 * Sidecar: a fork by this process starts a step (fp_findings.steps), and
 * each finding names the step its process belongs to. 0 (the default):
 * no steps. Set it before the first event.
 */
void fp_recon_set_step_parent(struct fp_recon *r, pid_t pid);
/* What is kept of reads (sensitive.h); c and what it points to must
 * outlive r. Set it before the first event; without it, only secrets. */
struct fp_reads_conf;
void fp_recon_set_reads(struct fp_recon *r, const struct fp_reads_conf *c);
/* Fold one event in; returns 0 or -ENOMEM. An event the budget keeps out
 * is counted, not an error. */
int fp_recon_feed(struct fp_recon *r, const struct fp_event *ev);
/* events (partly) left out for the budget; 0 when it was enough */
uint64_t fp_recon_unfolded(const struct fp_recon *r);
/* bytes charged so far */
uint64_t fp_recon_used(const struct fp_recon *r);
/* why the trace is incomplete because of the budget, or NULL */
const char *fp_recon_budget_why(const struct fp_recon *r);
/* why io_uring left the trace incomplete (uring_seen.h), or NULL */
const char *fp_recon_uring_why(const struct fp_recon *r);
/* steps started during the trace so far (sidecar status) */
size_t fp_recon_steps_so_far(const struct fp_recon *r);
/* Was pid forked or exec'd during the run, and has it not exited? (the
 * sidecar's leftovers) */
bool fp_recon_started_alive(const struct fp_recon *r, pid_t pid);
/* Was pid forked during the run and is it still running what it was
 * forked from, no exec of its own seen yet, nor its exit? */
bool fp_recon_exec_pending(const struct fp_recon *r, pid_t pid);
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
	pid_t own_pid; /* footprint's own process (the scratch box's init) */
	const char
		*run_cgroup; /* e.g. "/footprint/run-12-34", as /proc shows */
	/* the sidecar's state directory: a change under it by a traced
	 * process is tamper evidence; NULL or "" for none */
	const char *state_dir;
	/* processes outside the run holding changed files open for writing
	 * at the after snapshot; NULL: not looked for */
	const struct fp_holder_table *holders;
};

int fp_reconcile(const struct fp_recon *r, const struct fp_recon_input *in,
		 struct fp_findings *out);

/*
 * Each path the run only opened for writing (no create, truncate, rename
 * or removal): the changes an outside writer could have made instead
 * (snapshot_holders.h). cb's non-zero return stops the walk and is
 * returned.
 */
int fp_recon_opened_only(const struct fp_recon *r,
			 int (*cb)(void *ctx, const char *path, size_t len),
			 void *ctx);

#endif
