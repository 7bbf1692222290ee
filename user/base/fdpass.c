// SPDX-License-Identifier: GPL-2.0
/* A message with a file descriptor over a unix socket (fdpass.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdpass.h"

union fd_control {
	char buf[CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

union fds_control {
	char buf[CMSG_SPACE(sizeof(int) * FP_FDPASS_MAX)];
	struct cmsghdr align;
};

int fp_fdpass_send_n(int sock, const void *buf, size_t len, const int *fds,
		     int n)
{
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	union fds_control u;
	struct cmsghdr *c;
	ssize_t sent;

	if (n < 0 || n > FP_FDPASS_MAX)
		return -EINVAL;
	if (n) {
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	do
		sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (sent < 0 && errno == EINTR);
	if (sent < 0)
		return -errno;
	return (size_t)sent == len ? 0 : -EIO;
}

int fp_fdpass_send(int sock, const void *buf, size_t len, int fd)
{
	return fp_fdpass_send_n(sock, buf, len, &fd, fd >= 0);
}

int fp_fdpass_recv(int sock, void *buf, size_t len, int *fd)
{
	struct iovec iov = { buf, len };
	union fd_control u;
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	for (c = CMSG_FIRSTHDR(&msg); n >= 0 && c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    *fd < 0)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	if (n >= 0 && (size_t)n == len && !(msg.msg_flags & MSG_TRUNC))
		return 0;
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return -1;
}
