/* SPDX-License-Identifier: GPL-2.0 */
/* What launch.c and launch_pty.c share. */
#ifndef FP_LAUNCH_INT_H
#define FP_LAUNCH_INT_H

#include <signal.h>
#include <sys/types.h>

#include "launch.h"

struct fp_pty;

/*
 * Clone the command into the cgroup (or fork, then move it, before 5.7);
 * in the child, set it up and exec. The caller's pid (-1 and errno on
 * failure), and a pidfd of it in *pidfd.
 */
pid_t fp_launch_command(int cgroup_fd, int errfd, char *const argv[],
			const sigset_t *mask, const struct fp_identity *id,
			const struct fp_scratch *sc, const struct fp_pty *pty,
			int *pidfd);
/*
 * With a terminal of its own (launch_pty.c): a monitor, the leader of
 * the terminal's session, launches the command as its child. Fills
 * child's pidfd, monitor and monitor_fd; the command's pid, or -1 and
 * errno.
 */
pid_t fp_monitor_launch(struct fp_child *child, int errfd, char *const argv[],
			int cgroup_fd, const sigset_t *mask,
			const struct fp_identity *id,
			const struct fp_scratch *sc, const struct fp_pty *pty);
/* The command's wait status from the monitor; the monitor reaped. */
pid_t fp_monitor_wait(struct fp_child *child, int *status);
/* The monitor gone (after the command was killed), its socket closed. */
void fp_monitor_end(struct fp_child *child);

#endif
