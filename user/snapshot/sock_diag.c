// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sock_diag.h"

/* include/net/tcp_states.h */
#define TCP_LISTEN 10
#define TCPF_LISTEN (1 << TCP_LISTEN)

/* the kernel fills a dump message up to the largest read it has seen,
 * at most 32 KiB: a buffer this size never truncates one */
#define DUMP_BUF 32768

static int send_request(int fd, int family)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} msg = {
		.nlh = {
			.nlmsg_len = sizeof(msg),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1,
		},
		.req = {
			.sdiag_family = family,
			.sdiag_protocol = IPPROTO_TCP,
			.idiag_states = TCPF_LISTEN,
		},
	};
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	if (sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&nl,
		   sizeof(nl)) != sizeof(msg))
		return -errno;
	return 0;
}

static int to_sock(const struct inet_diag_msg *m, struct fp_sock *s)
{
	memset(s, 0, sizeof(*s));
	s->family = m->idiag_family;
	s->protocol = IPPROTO_TCP;
	if (!inet_ntop(m->idiag_family, m->id.idiag_src, s->address,
		       sizeof(s->address)))
		return -EINVAL;
	s->port = ntohs(m->id.idiag_sport);
	s->inode = m->idiag_inode;
	s->pid = -1;
	return 0;
}

/* 1: the dump is over; 0: more to read; <0: failed */
static int parse(const void *buf, size_t len, int family, fp_sock_add_fn add,
		 void *ctx)
{
	const struct nlmsghdr *h = buf;
	const struct inet_diag_msg *m;
	struct fp_sock s;
	int ret;

	for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			return e->error ? e->error : -EIO;
		}
		/* a dump cut by a table change could have missed a socket */
		if (h->nlmsg_flags & NLM_F_DUMP_INTR)
			return -EAGAIN;
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
			return -EIO;
		m = NLMSG_DATA(h);
		/* as /proc/net/tcp: the family asked for, listeners only */
		if (m->idiag_family != family || m->idiag_state != TCP_LISTEN)
			continue;
		ret = to_sock(m, &s);
		if (!ret)
			ret = add(ctx, &s);
		if (ret)
			return ret;
	}
	return len ? -EIO : 0;
}

int fp_sock_diag_tcp_listen(int family, fp_sock_add_fn add, void *ctx)
{
	long buf[DUMP_BUF / sizeof(long)];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;
	int fd, ret;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	ret = send_request(fd, family);
	while (!ret) {
		n = recvmsg(fd, &mh, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (mh.msg_flags & MSG_TRUNC)) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		ret = parse(buf, n, family, add, ctx);
	}
	close(fd);
	return ret < 0 ? ret : 0;
}
