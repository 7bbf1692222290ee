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

#include "cgroup.h"
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

/* What the daemon traces: sidecar start's options, as the session takes
 * them. */
struct fp_sidecar_opts {
	int statefd; /* the state directory, root's */
	/* as start's parser wrote them (roots, rules, --record, the ring
	 * ...): the daemon's session starts from these */
	struct fp_session_opts so;
	const char *const *cgroups; /* --cgroup: below the mount, or not */
	size_t ncgroups;
	const pid_t *pid_trees;
	size_t npid_trees;
	pid_t step_parent;
};

/*
 * The daemon (sidecar_daemon.c), a grandchild of start in a session of
 * its own: from its cgroup to the answer of the stop that ended it.
 * start: what start planned (scope, owner, restart); its ready_fd says
 * "1 PID:TICKS" once tracing is live. The exit code.
 */
int fp_sidecar_daemon(const struct fp_sidecar_opts *o,
		      struct fp_sidecar_state *start);

/* ---- the daemon's files in the state directory (sidecar_files.c) ---- */

/* none of a daemon's files is there (only, maybe, its journal) */
bool fp_sidecar_state_empty(int statefd);
/* One writer, one policy: 0, or -errno after one line, and the daemon
 * does not start (a stop that cannot find them cannot fail closed). */
int fp_sidecar_write_log_id(int statefd, struct fp_session *s);
int fp_sidecar_write_pidfile(int statefd, const struct fp_cgroup *cg);
int fp_sidecar_write_roots(int statefd, char *const *roots, size_t n);
/* the roots the daemon watches, into buf (NUL-separated): how many */
size_t fp_sidecar_read_roots(int statefd, char *buf, size_t len, char **roots,
			     size_t max);

/* ---- sidecar stop's end of it (sidecar_end.c) ---- */

/*
 * What stop asks, and knows: the outputs the daemon is asked for and the
 * daemon it expects (req: --daemon's, else the journal's last start).
 * The one found answers for itself (a genuine daemon that is someone
 * else adds a tamper finding), but only once stop knows it is footprint
 * at all: a control socket served by anything else gets nothing.
 */
struct fp_sidecar_stop {
	int statefd;
	struct fp_sc_stop_req req;
	struct fp_sc_last last; /* the journal's last start */
	char why[256]; /* why there is no daemon's verdict */
};

/*
 * stop is footprint's own, not the job's: it goes on in a child born in
 * the daemon's cgroup (clone3 CLONE_INTO_CGROUP), so that nothing it
 * writes is traced. Returns 1 in that child; 0 in the caller once the
 * child is done, with its exit code in *code; -1 when it must go on
 * where it is.
 */
int fp_sidecar_leave_job(int statefd, int *code);
/* Say hello (before stop writes anything), read the journal's last
 * start, and name the daemon expected (daemon_id, or NULL). x->req's
 * outputs are the caller's to fill. */
void fp_sidecar_stop_init(struct fp_sidecar_stop *x, int statefd,
			  const char *daemon_id);
/*
 * The verdict: the daemon's, or (fail closed) what its log says, by the
 * report path. The receipt goes to receipt_fd (STDOUT_FILENO: stdout;
 * -1: nowhere), the markdown summary to summary_fd. The exit code.
 */
int fp_sidecar_stop_verdict(struct fp_sidecar_stop *x, int receipt_fd,
			    int summary_fd);

#endif
