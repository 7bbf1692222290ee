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
#include "sidecar_journal.h"
#include "sidecar_peer.h"
#include "sidecar_proto.h"

/* files in the state directory */
#define FP_SIDECAR_CTL "ctl"
#define FP_SIDECAR_PID "daemon.pid"
#define FP_SIDECAR_LOG "trace.fplog"
#define FP_SIDECAR_LOG_ID "log-id" /* where --record put the log */
#define FP_SIDECAR_ROOTS "roots" /* the watched roots, NUL-separated */

/* clients served at once; a new one past this closes the oldest */
#define FP_SC_MAX_CLIENTS 16
/* a client that says nothing for this long is closed */
#define FP_SC_CLIENT_MS 5000

struct fp_sc_client {
	int fd; /* -1: free */
	int64_t deadline_ms;
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
	/* who the daemon is, and who may ask what */
	struct fp_sc_self self;
	struct fp_sc_journal journal;
	uid_t owner; /* the invoking user of start: may mark; root may too */
	pid_t start_pid; /* the `sidecar start` that made the daemon */
	pid_t step_parent;
	/* start took over a state directory whose job still runs */
	pid_t restart_of;
	uint64_t restart_of_ticks;
	/* the journal's scope=: PID:TICKS of the pid trees and step parent */
	char scope[FP_SC_MAX_SCOPE * FP_SC_ID_LEN];
	struct fp_sc_client clients[FP_SC_MAX_CLIENTS];
	int epoll_fd;
};

/*
 * After attach: the start's own evidence (FP_EV_CONTROL naming the step
 * that ran it, and a restart's tamper), in the log and the journal.
 */
void fp_sidecar_started(struct fp_session *s, struct fp_sidecar_state *st);
/* The daemon's loop: from attach to the verdict. The exit code. */
int fp_sidecar_serve(struct fp_session *s, struct fp_sidecar_state *st);
/* The stop request's answer, rc; sent last, so that stop returning
 * means the sidecar is gone. */
void fp_sidecar_answer(struct fp_sidecar_state *st, int rc);

#endif
