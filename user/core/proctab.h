/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process table of a run: one row per process it forked or executed,
 * in order of first appearance, with its parent's row, its command (kept
 * once and shared with the findings; a process that execs again gets a
 * row per image, the later a child of the earlier), and the
 * times of its start and end as the events' timestamps gave them. The
 * receipt writes it as "process_table", and a finding's "by" names its
 * row instead of repeating the command line. Bounded by FP_PROC_MAX rows;
 * the rest are counted.
 */
#ifndef FP_PROCTAB_H
#define FP_PROCTAB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "findings.h"

struct fp_proc_row {
	pid_t pid, ppid;
	uint32_t parent; /* 1-based row of its parent, 0 none */
	/* the sidecar group while reconciling, then the step (0: none) */
	uint32_t step;
	/* its exec's command (a reference), else the image it was forked
	 * with (also a reference), NULL when neither is known */
	struct fp_cmdline *cmd;
	uint64_t start_ns, end_ns;
	int exit_code, signal;
	bool ended; /* an exit was seen: end_ns, exit_code, signal hold */
	/* ended by another exec of the process: no exit code; that exec's
	 * row has this one as its parent */
	bool replaced;
	bool exec_seen; /* cmd is its own exec's */
};

struct fp_proctab {
	struct fp_vec rows; /* struct fp_proc_row */
	uint64_t omitted; /* processes past FP_PROC_MAX */
	uint64_t t0; /* the earliest event's timestamp */
	bool have_t0;
	/* row indices sorted by (pid, index), for fp_proctab_find() */
	uint32_t *by_pid;
};

#define FP_PROCTAB_ROWS(t) ((struct fp_proc_row *)(t)->rows.v)

/* every event: the run starts at the earliest */
static inline void fp_proctab_seen(struct fp_proctab *t, uint64_t ts_ns)
{
	if (!t->have_t0 || ts_ns < t->t0) {
		t->t0 = ts_ns;
		t->have_t0 = true;
	}
}

/*
 * A fork, an exec or an exit of the process whose current row is *row
 * (1-based, 0 none), updated in place. parent_row is the current row of
 * its parent (fork, or an exec first seen without a fork), cmd the exec's
 * command, group its sidecar group. 0, or -ENOMEM.
 */
int fp_proctab_fork(struct fp_proctab *t, uint32_t *row, uint32_t parent_row,
		    const struct fp_event *ev, uint32_t group);
int fp_proctab_exec(struct fp_proctab *t, uint32_t *row, uint32_t parent_row,
		    const struct fp_event *ev, struct fp_cmdline *cmd,
		    uint32_t group);
void fp_proctab_exit(struct fp_proctab *t, uint32_t row,
		     const struct fp_event *ev);
/* bytes a row costs, for the memory budget */
#define FP_PROCTAB_ROW_COST (2 * sizeof(struct fp_proc_row))

/* dst takes a copy of src with references to the commands, and the pid
 * index; 0 or -ENOMEM */
int fp_proctab_copy(struct fp_proctab *dst, const struct fp_proctab *src);
/* groups become steps: g2s[g - 1] is group g's step (n groups) */
void fp_proctab_steps(struct fp_proctab *t, const uint32_t *g2s, size_t n);
void fp_proctab_free(struct fp_proctab *t);

/*
 * The row of an actor (0-based), or -1: a row of its pid with its very
 * command, else one whose command has the same bytes, else its pid's
 * last. Needs the index fp_proctab_copy() built.
 */
long fp_proctab_find(const struct fp_proctab *t, const struct fp_actor *a);
/* the actor's command line is its row's: the row can stand for it */
bool fp_proctab_same_cmd(const struct fp_proc_row *row,
			 const struct fp_actor *a);

#endif
