/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `footprint run` adds to a session (session.h): the command's own
 * cgroup and watchdog, the identity it runs as, its terminal, its
 * scratch box, the signals passed on and the --timeout clock.
 */
#ifndef FP_RUN_TARGET_H
#define FP_RUN_TARGET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"
#include "cmdterm.h"
#include "creds.h"
#include "identity.h"
#include "launch.h"
#include "scratch.h"
#include "session.h"
#include "watchdog.h"

/* --leftovers: what becomes of processes still running at the end */
enum { LEFTOVERS_FAIL, LEFTOVERS_KILL, LEFTOVERS_ALLOW };

struct fp_run_target {
	char **argv; /* the command */
	int leftovers; /* LEFTOVERS_* */
	struct fp_cgroup cg;
	struct fp_watchdog wd;
	struct fp_identity id;
	struct fp_child child;
	struct fp_scratch sc; /* --scratch; dirfd -1: none */
	struct fp_pty pty; /* the command's own terminal, if stdin is one */
	int sigfd, timerfd;
	sigset_t old;
};

/* clang-format off */
#define FP_RUN_TARGET_INIT { \
	.cg = { .fd = -1 }, \
	.wd = FP_WATCHDOG_INIT, \
	.child = { .pid = -1, .pidfd = -1, .init_pid = -1, .init_fd = -1, \
		   .monitor = -1, .monitor_fd = -1 }, \
	.sc = { .dirfd = -1 }, \
	.pty = FP_PTY_INIT, \
	.sigfd = -1, \
	.timerfd = -1, \
}
/* clang-format on */

/* Who runs the command (--user, --as-root), checked before anything is
 * created; under sudo only the invoking user. 0 or an exit code after
 * one line. */
int fp_run_target_identity(struct fp_run_target *t, const char *user,
			   bool as_root, const struct fp_creds *c);
/*
 * The session from its outputs to its verdict, the command launched in
 * its cgroup and traced until it exits (deadline_ms: CLOCK_MONOTONIC,
 * 0: none). *judged says whether a verdict was reached. The verdict's
 * exit code, or another after one line.
 */
int fp_run_target_session(struct fp_session *s, struct fp_run_target *t,
			  int64_t deadline_ms, bool *judged);
/* Close everything; stop what must not outlive the run. */
void fp_run_target_close(struct fp_run_target *t);

#endif
