/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sidecar's daemon: a session driven by targets that already exist
 * (the CI job's process tree, cgroups), not by a command it launched. It
 * serves its control socket (status, mark, stop) until told to stop or
 * killed; `footprint sidecar stop` then gets the verdict through that
 * socket, or, when the daemon is gone, judges the log it left (fail
 * closed).
 */
#ifndef FP_SIDECAR_H
#define FP_SIDECAR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "session.h"

/* files in the state directory */
#define FP_SIDECAR_CTL "ctl"
#define FP_SIDECAR_PID "daemon.pid"
#define FP_SIDECAR_LOG "trace.fplog"
#define FP_SIDECAR_LOG_ID "log-id" /* where --record put the log */
#define FP_SIDECAR_ROOTS "roots" /* the watched roots, NUL-separated */

/* the requests, first byte of a datagram on the control socket */
enum fp_sidecar_req {
	FP_SC_STATUS = 'S', /* reply: one JSON object */
	FP_SC_STATUS_TEXT = 's', /* reply: a few lines for a person */
	FP_SC_MARK = 'M', /* followed by the step's name */
	/* with SCM_RIGHTS: receipt (or -1 as /dev/null), summary, stdout,
	 * stderr; reply: the exit code as text, once the verdict is out
	 * and the daemon has stopped tracing and removed its cgroup */
	FP_SC_STOP = 'X',
	/* root's stop, before it writes: leave me out of the trace */
	FP_SC_HELLO = 'H',
};

struct fp_sidecar_state {
	int listen_fd; /* the control socket, bound and listening */
	int ready_fd; /* written once tracing is live, then closed */
	uint64_t lost_per_min[60]; /* a ring: the last hour */
	uint64_t lost_seen; /* lost events counted so far */
	unsigned int minute; /* minutes since start */
	unsigned int marks;
	bool annotations, quiet; /* asked for by stop */
	size_t summary_max; /* asked for by stop; 0: the default */
	bool heartbeat_lost; /* reported once */
	pid_t stopper; /* the stop request's process */
	int stop_conn; /* the stop request's connection, still unanswered */
};

/* The daemon's loop: from attach to the verdict. The exit code. */
int fp_sidecar_serve(struct fp_session *s, struct fp_sidecar_state *st);
/* The stop request's answer, rc; sent last, so that stop returning
 * means the sidecar is gone. */
void fp_sidecar_answer(struct fp_sidecar_state *st, int rc);

#endif
