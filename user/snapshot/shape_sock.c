// SPDX-License-Identifier: GPL-2.0
/*
 * Listening TCP and bound UDP sockets from sock_diag netlink, owned
 * through the socket inodes each process holds. sock_diag answers for the
 * asking socket's network namespace, so one query runs per namespace the
 * shape's processes are in (setns on this thread, then back).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shape.h"

#define TCP_LISTEN 10

struct sockent {
	uint64_t ino;
	char text[INET6_ADDRSTRLEN + 16];
};

struct socklist {
	struct sockent *v;
	size_t n;
	bool truncated;
};

static int send_req(int fd, int family, int proto)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} req = { 0 };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = family;
	req.r.sdiag_protocol = proto;
	req.r.idiag_states = proto == IPPROTO_TCP ? 1 << TCP_LISTEN : ~0U;
	return sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa,
		      sizeof(sa)) < 0 ?
		       -errno :
		       0;
}

static void add(struct socklist *l, const struct inet_diag_msg *m, int proto)
{
	char addr[INET6_ADDRSTRLEN];
	struct sockent *e;
	uint16_t port = ntohs(m->id.idiag_sport);

	/* an unbound UDP socket has no port yet: it listens for nothing */
	if (!port || !m->idiag_inode)
		return;
	if (l->n == FP_SHAPE_SOCKS_MAX) {
		l->truncated = true;
		return;
	}
	e = &l->v[l->n++];
	e->ino = m->idiag_inode;
	inet_ntop(m->idiag_family, m->id.idiag_src, addr, sizeof(addr));
	snprintf(e->text, sizeof(e->text),
		 m->idiag_family == AF_INET6 ? "%s/[%s]:%u" : "%s/%s:%u",
		 proto == IPPROTO_TCP ? "tcp" : "udp", addr, port);
}

static int dump(int fd, struct socklist *l, int family, int proto)
{
	static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *h;
	ssize_t n;
	int ret = send_req(fd, family, proto);

	while (!ret) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -EPROTO;
			if (h->nlmsg_len >=
			    NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
				add(l, NLMSG_DATA(h), proto);
		}
	}
	return ret;
}

/* every listener of the calling thread's network namespace */
static int query(struct socklist *l)
{
	static const int fam[] = { AF_INET, AF_INET6 };
	static const int proto[] = { IPPROTO_TCP, IPPROTO_UDP };
	int fd, i, k, ret = 0;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	for (i = 0; i < 2 && !ret; i++)
		for (k = 0; k < 2 && !ret; k++) {
			ret = dump(fd, l, fam[i], proto[k]);
			/* no IPv6 in this kernel: nothing listens there */
			if (ret == -EPROTO && fam[i] == AF_INET6)
				ret = 0;
		}
	close(fd);
	return ret;
}

static int own(struct fp_shape *s, const struct socklist *l, uint64_t netns)
{
	struct fp_shape_proc *p;
	size_t i, k, j;
	char **nv;

	for (i = 0; i < s->nprocs; i++) {
		p = &s->procs[i];
		if (p->ns[FP_NS_NET].ino != netns)
			continue;
		for (k = 0; k < l->n; k++)
			for (j = 0; j < p->nsock_inodes; j++) {
				if (p->sock_inodes[j] != l->v[k].ino)
					continue;
				nv = realloc(p->listeners,
					     (p->nlisteners + 1) * sizeof(*nv));
				if (!nv)
					return -ENOMEM;
				p->listeners = nv;
				nv[p->nlisteners] = strdup(l->v[k].text);
				if (!nv[p->nlisteners])
					return -ENOMEM;
				p->nlisteners++;
				break;
			}
	}
	return 0;
}

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* query from inside the namespace pid is in, then return to ours */
static int query_in(struct fp_shape *s, pid_t pid, struct socklist *l)
{
	char path[64];
	int self, target, ret;

	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || target < 0 || setns(target, CLONE_NEWNET)) {
		ret = -errno;
	} else {
		ret = query(l);
		if (setns(self, CLONE_NEWNET))
			abort(); /* never go on in the target's namespace */
	}
	if (self >= 0)
		close(self);
	if (target >= 0)
		close(target);
	return ret;
}

int fp_shape_read_sockets(struct fp_shape *s)
{
	struct socklist l = { 0 };
	size_t i, k;
	int ret = 0;

	l.v = calloc(FP_SHAPE_SOCKS_MAX, sizeof(*l.v));
	if (!l.v)
		return -ENOMEM;
	for (i = 0; i < s->nprocs && !ret; i++) {
		for (k = 0; k < i; k++)
			if (s->procs[k].nsock_inodes &&
			    s->procs[k].ns[FP_NS_NET].ino ==
				    s->procs[i].ns[FP_NS_NET].ino)
				break;
		if (k < i || !s->procs[i].nsock_inodes)
			continue;
		l.n = 0;
		ret = query_in(s, s->procs[i].pid, &l);
		if (ret && ret != -ENOMEM) {
			fp_shape_note(s,
				      "pid %d: its sockets are unreadable (%s)",
				      s->procs[i].pid, strerror(-ret));
			ret = 0;
			continue;
		}
		if (l.truncated)
			fp_shape_note(s, "more than %d sockets in a namespace",
				      FP_SHAPE_SOCKS_MAX);
		if (!ret)
			ret = own(s, &l, s->procs[i].ns[FP_NS_NET].ino);
	}
	for (i = 0; i < s->nprocs; i++)
		qsort(s->procs[i].listeners, s->procs[i].nlisteners,
		      sizeof(char *), strp_cmp);
	free(l.v);
	return ret;
}
