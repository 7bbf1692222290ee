/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sidecar's control socket, both sides: "ctl" in the state
 * directory, SOCK_SEQPACKET, one request a connection. A request is one
 * datagram whose first byte names it; its answer is one datagram:
 *
 *   'S'                 status          one JSON object
 *   's'                 status          a few lines for a person
 *   'M' NAME            mark            "K", or "E refused"
 *   'H'                 hello           "K", or "E refused"
 *   'X' A Q MAX [" " PID:TICKS]
 *                       stop            "R CODE", or "E refused"
 *
 * stop: A is 'a' (annotations) or '-', Q is 'q' (quiet) or '-', MAX is
 * --summary-max in decimal, PID:TICKS the daemon stop expects (--daemon
 * or the journal's). It carries by SCM_RIGHTS, in this order: the
 * receipt (/dev/null for none), the markdown summary (likewise), stdout
 * and stderr. The daemon answers once the verdict is out and it has
 * stopped tracing and removed its cgroup.
 */
#ifndef FP_SIDECAR_PROTO_H
#define FP_SIDECAR_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sidecar_peer.h"

/* the requests: the first byte of a datagram on the control socket */
enum fp_sidecar_req {
	FP_SC_STATUS = 'S',
	FP_SC_STATUS_TEXT = 's',
	FP_SC_MARK = 'M',
	/* only root's footprint may ask it (stop's child) */
	FP_SC_STOP = 'X',
	/* stop's child, before it writes: here is footprint's own */
	FP_SC_HELLO = 'H',
};

/* the fds a stop request carries, in this order */
enum fp_sc_stop_fd {
	FP_SC_FD_RECEIPT,
	FP_SC_FD_SUMMARY,
	FP_SC_FD_STDOUT,
	FP_SC_FD_STDERR,
	FP_SC_STOP_FDS,
};

/* a request's bytes at most (a mark's name is bounded by it) */
#define FP_SC_REQ_MAX 512

/* the stop request, after its first byte */
struct fp_sc_stop_req {
	bool annotations; /* byte 1: 'a' or '-' */
	bool quiet; /* byte 2: 'q' or '-' */
	size_t summary_max; /* from byte 3, decimal; 0: the default */
	char expect[FP_SC_ID_LEN]; /* after a space: PID:TICKS, or "" */
};

/* ---- the clients: sidecar status, mark, stop ---- */

/* The daemon's socket in the state directory: a connected fd, or -errno */
int fp_sc_connect(int statefd);
/* A daemon answers there */
bool fp_sc_alive(int statefd);
/*
 * One request of len bytes, and its answer into ans (at most cap bytes,
 * not terminated), each within timeout_s seconds: the answer's length,
 * or -1.
 */
ssize_t fp_sc_ask(int conn, const void *req, size_t len, char *ans, size_t cap,
		  int timeout_s);
/* stop: the exit code the daemon answers, or -1 when it did not */
int fp_sc_ask_stop(int conn, const struct fp_sc_stop_req *r,
		   const int fds[FP_SC_STOP_FDS]);

/* ---- the daemon ---- */

/* The socket, bound in the state directory and listening; -1 (errno) */
int fp_sc_listen(int statefd);

struct fp_sc_msg {
	char buf[FP_SC_REQ_MAX]; /* NUL-terminated */
	size_t len;
	int fds[FP_SC_STOP_FDS]; /* the fds that came (-1: none); taken */
	bool fds_ok; /* exactly FP_SC_STOP_FDS of them */
};

/* One request: its length, 0 at end of file, -EAGAIN when none has come
 * yet, or -errno. */
ssize_t fp_sc_recv(int conn, struct fp_sc_msg *m);
void fp_sc_msg_close_fds(struct fp_sc_msg *m);
/* a stop request's fields (m->buf[0] is FP_SC_STOP) */
void fp_sc_stop_decode(const struct fp_sc_msg *m, struct fp_sc_stop_req *r);
/* an answer; a client that does not read it does not hold the daemon */
void fp_sc_reply(int conn, const char *msg);
/* stop's answer: "R CODE" */
void fp_sc_reply_code(int conn, int rc);

#endif
