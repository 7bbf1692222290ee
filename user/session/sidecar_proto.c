// SPDX-License-Identifier: GPL-2.0
/* The sidecar's control socket, both sides (sidecar_proto.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "receipt.h"
#include "sidecar.h"
#include "sidecar_proto.h"

/* a short path through our own fd: the state directory may be deep */
static void ctl_address(struct sockaddr_un *sa, int statefd)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s",
		 statefd, FP_SIDECAR_CTL);
}

/* ---- the clients ---- */

int fp_sc_connect(int statefd)
{
	struct sockaddr_un sa;
	int fd, e;

	ctl_address(&sa, statefd);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

bool fp_sc_alive(int statefd)
{
	int fd = fp_sc_connect(statefd);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

ssize_t fp_sc_ask(int conn, const void *req, size_t len, char *ans, size_t cap,
		  int timeout_s)
{
	struct timeval tv = { timeout_s, 0 };

	/* a daemon that does not answer is not worth a hung job */
	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (send(conn, req, len, MSG_NOSIGNAL) != (ssize_t)len)
		return -1;
	return recv(conn, ans, cap, 0);
}

/* "X", annotations, quiet, --summary-max in decimal, the daemon */
static size_t stop_encode(char *buf, size_t cap, const struct fp_sc_stop_req *r)
{
	int n;

	buf[0] = FP_SC_STOP;
	buf[1] = r->annotations ? 'a' : '-';
	buf[2] = r->quiet ? 'q' : '-';
	n = snprintf(buf + 3, cap - 3, "%zu%s%s", r->summary_max,
		     r->expect[0] ? " " : "", r->expect);
	return 3 + (n < 0 ? 0 : (size_t)n < cap - 3 ? (size_t)n : cap - 4);
}

int fp_sc_ask_stop(int conn, const struct fp_sc_stop_req *r,
		   const int fds[FP_SC_STOP_FDS])
{
	char req[32 + FP_SC_ID_LEN], buf[64];
	char ctl[CMSG_SPACE(sizeof(int) * FP_SC_STOP_FDS)];
	struct iovec iov = { req, stop_encode(req, sizeof(req), r) };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	ssize_t n;

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * FP_SC_STOP_FDS);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * FP_SC_STOP_FDS);
	if (sendmsg(conn, &m, MSG_NOSIGNAL) != (ssize_t)iov.iov_len)
		return -1;
	n = recv(conn, buf, sizeof(buf) - 1, 0);
	if (n <= 2 || buf[0] != 'R')
		return -1;
	buf[n] = '\0';
	return atoi(buf + 2);
}

/* ---- the daemon ---- */

int fp_sc_listen(int statefd)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	ctl_address(&sa, statefd);
	unlinkat(statefd, FP_SIDECAR_CTL, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    fchmodat(statefd, FP_SIDECAR_CTL, 0666, 0) || listen(fd, 8)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* the fds that came with m: all taken, whatever their number */
static void take_fds(struct msghdr *h, struct fp_sc_msg *m)
{
	struct cmsghdr *c = CMSG_FIRSTHDR(h);
	unsigned int i, n;

	for (i = 0; i < FP_SC_STOP_FDS; i++)
		m->fds[i] = -1;
	m->fds_ok = false;
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
		return;
	n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	memcpy(m->fds, CMSG_DATA(c),
	       (n < FP_SC_STOP_FDS ? n : FP_SC_STOP_FDS) * sizeof(int));
	m->fds_ok = n == FP_SC_STOP_FDS;
}

ssize_t fp_sc_recv(int conn, struct fp_sc_msg *m)
{
	char ctl[CMSG_SPACE(sizeof(int) * FP_SC_STOP_FDS)];
	struct iovec iov = { m->buf, sizeof(m->buf) - 1 };
	struct msghdr h = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = sizeof(ctl),
	};
	ssize_t n = recvmsg(conn, &h, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);

	if (n < 0) {
		m->len = 0;
		m->buf[0] = '\0';
		return errno == EAGAIN || errno == EINTR ? -EAGAIN : -errno;
	}
	take_fds(&h, m);
	m->len = n;
	m->buf[n] = '\0';
	return n;
}

void fp_sc_msg_close_fds(struct fp_sc_msg *m)
{
	unsigned int i;

	for (i = 0; i < FP_SC_STOP_FDS; i++) {
		if (m->fds[i] >= 0)
			close(m->fds[i]);
		m->fds[i] = -1;
	}
}

void fp_sc_stop_decode(const struct fp_sc_msg *m, struct fp_sc_stop_req *r)
{
	const char *sp = m->len > 3 ? strchr(m->buf + 3, ' ') : NULL;

	memset(r, 0, sizeof(*r));
	r->annotations = m->len > 1 && m->buf[1] == 'a';
	r->quiet = m->len > 2 && m->buf[2] == 'q';
	/* --summary-max, if given; root's own, but bounded all the same */
	r->summary_max = m->len > 3 ? strtoul(m->buf + 3, NULL, 10) : 0;
	if (r->summary_max > FP_SUMMARY_MAX_LIMIT)
		r->summary_max = FP_SUMMARY_MAX_LIMIT;
	/* one too long names no daemon: none is expected */
	if (sp && strlen(sp + 1) < sizeof(r->expect))
		memcpy(r->expect, sp + 1, strlen(sp + 1) + 1);
}

void fp_sc_reply(int conn, const char *msg)
{
	send(conn, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
}

void fp_sc_reply_code(int conn, int rc)
{
	char reply[32];

	snprintf(reply, sizeof(reply), "R %d", rc);
	send(conn, reply, strlen(reply), MSG_NOSIGNAL);
}
