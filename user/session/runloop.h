/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one poll loop of a live run: drain the ring buffer, pass signals on,
 * enforce the timeout, keep the log flushed, until the command exits.
 */
#ifndef FP_RUNLOOP_H
#define FP_RUNLOOP_H

#include <stdbool.h>

#include "cgroup.h"
#include "launch.h"
#include "logrun.h"
#include "tracer.h"

struct fp_loop_state {
	struct fp_cgroup *cg;
	int signals;
	bool interrupted;
	bool timed_out;
	/* the command has a session (and terminal) of its own: a signal
	 * from the caller's terminal did not reach it */
	bool own_session;
	/* ^C typed on that terminal (cmdterm.h): counted as signals are */
	const unsigned int *tty_interrupts;
};

/* timerfd: -1 for no timeout; log: NULL when not recording */
int fp_trace_until_exit(struct fp_tracer *t, struct fp_child *child, int sigfd,
			struct fp_log_sink *log, int timerfd,
			struct fp_loop_state *ls);

#endif
