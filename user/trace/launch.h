/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Start the command inside the run's cgroup. It is born there
 * (CLONE_INTO_CGROUP), so its very first instruction is already traced.
 */
#ifndef FP_LAUNCH_H
#define FP_LAUNCH_H

#include <sys/types.h>

#include "identity.h"

struct fp_child {
	pid_t pid;
	int pidfd;
	int exec_errno; /* set when exec failed: the command never ran */
	int setup_errno; /* dropping to the user failed: it never ran */
	/* the scratch box's pid namespace: its init, and the pipe whose
	 * closing tells it the command is reaped (scratch_init.c) */
	pid_t init_pid;
	int init_fd;
	/* with a terminal of its own: the session's leader, whose child the
	 * command is, and the socket it reports the command's stops and end
	 * on (launch_pty.c); -1: none */
	pid_t monitor;
	int monitor_fd;
};

struct fp_scratch;
struct fp_pty;

/* id: who the command runs as (NULL: as footprint); sc: the scratch box
 * it runs in (NULL: none); pty: its own terminal (cmdterm.h; NULL or no
 * master: none, and not the caller's either) */
int fp_launch(struct fp_child *child, char *const argv[], int cgroup_fd,
	      const sigset_t *child_mask, const struct fp_identity *id,
	      const struct fp_scratch *sc, const struct fp_pty *pty);
/* Reap the child (its monitor's word, with a terminal); its wait status
 * in *status. */
int fp_child_wait(struct fp_child *child, int *status);

/*
 * For the terminal relay: a stop of the command its monitor told of (its
 * signal, the message consumed); 0: none now; -1: none will come (the
 * command's end is next, left for fp_child_wait).
 */
int fp_monitor_stopped(int monitor_fd);

/* The box's pid namespace (scratch_init.c): enter it for the launching
 * thread's next children (init first), then leave it again. */
int fp_box_enter(struct fp_child *child, int *saved);
int fp_box_leave(int saved);
/* Kill the box's init, and with it all that still runs in the box. */
void fp_box_end(struct fp_child *child);

#endif
