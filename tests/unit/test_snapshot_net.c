// SPDX-License-Identifier: GPL-2.0
/* fp_sock_snapshot against sockets this process opens */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "snapshot_net.h"

#ifndef IPV6_FREEBIND
#define IPV6_FREEBIND 78
#endif

enum { BIND_ONLY, LISTEN, CONNECT };

/*
 * Open a socket on addr port 0 and fill want with what the snapshot must
 * report for it, taken from getsockname and fstat. Returns -1 with errno
 * when the family or address is unavailable here.
 */
static int open_sock(int family, int type, const char *addr, int how,
		     bool freebind, struct fp_sock *want)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t len = family == AF_INET ? sizeof(*s4) : sizeof(*s6);
	struct stat st;
	int fd, one = 1, err;

	fd = socket(family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	ss.ss_family = family;
	if (family == AF_INET)
		cr_assert_eq(inet_pton(family, addr, &s4->sin_addr), 1);
	else
		cr_assert_eq(inet_pton(family, addr, &s6->sin6_addr), 1);
	if (freebind &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_FREEBIND, &one, sizeof(one)))
		goto fail;
	if (bind(fd, (struct sockaddr *)&ss, len))
		goto fail;
	if (how == LISTEN)
		cr_assert_eq(listen(fd, 4), 0, "listen: %s", strerror(errno));
	if (how == CONNECT) {
		/* the discard port on the same address; UDP needs no peer */
		s4->sin_port = htons(9);
		cr_assert_eq(connect(fd, (struct sockaddr *)&ss, len), 0,
			     "connect: %s", strerror(errno));
	}

	memset(&ss, 0, sizeof(ss));
	len = sizeof(ss);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	cr_assert_eq(fstat(fd, &st), 0);
	memset(want, 0, sizeof(*want));
	want->family = family;
	want->protocol = type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
	if (family == AF_INET) {
		inet_ntop(family, &s4->sin_addr, want->address,
			  sizeof(want->address));
		want->port = ntohs(s4->sin_port);
	} else {
		inet_ntop(family, &s6->sin6_addr, want->address,
			  sizeof(want->address));
		want->port = ntohs(s6->sin6_port);
	}
	cr_assert_neq(want->port, 0);
	want->inode = st.st_ino;
	want->pid = getpid();
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

static int must_open(int family, int type, const char *addr, int how,
		     struct fp_sock *want)
{
	int fd = open_sock(family, type, addr, how, false, want);

	cr_assert_geq(fd, 0, "%s: %s", addr, strerror(errno));
	return fd;
}

static bool ipv6_usable(void)
{
	struct fp_sock w;
	int fd = open_sock(AF_INET6, SOCK_STREAM, "::1", BIND_ONLY, false, &w);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static size_t count_inode(const struct fp_sock_table *t, uint64_t inode)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->socks[i].inode == inode;
	return n;
}

static void assert_reported(const struct fp_sock_table *t,
			    const struct fp_sock *w)
{
	const struct fp_sock *s = fp_sock_find(t, w);

	cr_assert_eq(count_inode(t, w->inode), 1, "%s:%u inode %llu: %zu rows",
		     w->address, w->port, (unsigned long long)w->inode,
		     count_inode(t, w->inode));
	cr_assert_not_null(s, "%s:%u not found", w->address, w->port);
	cr_assert_eq(s->inode, w->inode);
	cr_assert_eq(s->family, w->family);
	cr_assert_eq(s->protocol, w->protocol);
	cr_assert_str_eq(s->address, w->address);
	cr_assert_eq(s->port, w->port);
	cr_assert_eq(s->pid, w->pid, "%s:%u pid %d, want %d", w->address,
		     w->port, s->pid, w->pid);
}

static void assert_absent(const struct fp_sock_table *t,
			  const struct fp_sock *w)
{
	cr_assert_eq(count_inode(t, w->inode), 0, "%s:%u inode %llu listed",
		     w->address, w->port, (unsigned long long)w->inode);
	cr_assert_null(fp_sock_find(t, w));
}

Test(snapshot_net, tcp4_listeners)
{
	struct fp_sock_table t;
	struct fp_sock w[2];
	int fd[2];

	fd[0] = must_open(AF_INET, SOCK_STREAM, "127.0.0.1", LISTEN, &w[0]);
	/* asymmetric bytes catch a byte-order mistake */
	fd[1] = must_open(AF_INET, SOCK_STREAM, "127.1.2.3", LISTEN, &w[1]);
	cr_assert_str_eq(w[0].address, "127.0.0.1");
	cr_assert_str_eq(w[1].address, "127.1.2.3");
	cr_assert_eq(fp_sock_snapshot(&t), 0);
	assert_reported(&t, &w[0]);
	assert_reported(&t, &w[1]);
	fp_sock_table_free(&t);
	close(fd[0]);
	close(fd[1]);
}

Test(snapshot_net, tcp6_listeners)
{
	struct fp_sock_table t;
	struct fp_sock w[3];
	int fd[3];

	if (!ipv6_usable())
		cr_skip_test("IPv6 is not available");
	fd[0] = must_open(AF_INET6, SOCK_STREAM, "::1", LISTEN, &w[0]);
	fd[1] = must_open(AF_INET6, SOCK_STREAM, "::ffff:127.0.0.1", LISTEN,
			  &w[1]);
	cr_assert_str_eq(w[0].address, "::1");
	cr_assert_str_eq(w[1].address, "::ffff:127.0.0.1");
	/* every word distinct, to catch a word-order mistake */
	fd[2] = open_sock(AF_INET6, SOCK_STREAM,
			  "2001:db8:1234:5678:9abc:def0:1122:3344", LISTEN,
			  true, &w[2]);
	if (fd[2] >= 0)
		cr_assert_str_eq(w[2].address,
				 "2001:db8:1234:5678:9abc:def0:1122:3344");
	cr_assert_eq(fp_sock_snapshot(&t), 0);
	assert_reported(&t, &w[0]);
	assert_reported(&t, &w[1]);
	if (fd[2] >= 0) {
		assert_reported(&t, &w[2]);
		close(fd[2]);
	}
	fp_sock_table_free(&t);
	close(fd[0]);
	close(fd[1]);
}

Test(snapshot_net, udp_bound_reported_connected_not)
{
	struct fp_sock_table t;
	struct fp_sock w[3];
	int fd[3], n = 2;

	fd[0] = must_open(AF_INET, SOCK_DGRAM, "127.0.0.1", BIND_ONLY, &w[0]);
	fd[1] = must_open(AF_INET, SOCK_DGRAM, "127.0.0.1", CONNECT, &w[1]);
	cr_assert_str_eq(w[0].address, "127.0.0.1");
	if (ipv6_usable()) {
		fd[2] = must_open(AF_INET6, SOCK_DGRAM, "::1", BIND_ONLY,
				  &w[2]);
		n = 3;
	}
	cr_assert_eq(fp_sock_snapshot(&t), 0);
	assert_reported(&t, &w[0]);
	assert_absent(&t, &w[1]);
	if (n == 3)
		assert_reported(&t, &w[2]);
	fp_sock_table_free(&t);
	while (n--)
		close(fd[n]);
}

Test(snapshot_net, tcp_bound_not_listening_is_not_reported)
{
	struct fp_sock_table t;
	struct fp_sock w;
	int fd;

	fd = must_open(AF_INET, SOCK_STREAM, "127.0.0.1", BIND_ONLY, &w);
	cr_assert_eq(fp_sock_snapshot(&t), 0);
	assert_absent(&t, &w);
	fp_sock_table_free(&t);
	close(fd);
}

/* connections are not listeners, on either end */
Test(snapshot_net, tcp_connections_are_not_reported)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct fp_sock_table t;
	struct fp_sock w, peer;
	struct stat st;
	int lfd, cfd, afd;

	lfd = must_open(AF_INET, SOCK_STREAM, "127.0.0.1", LISTEN, &w);
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(cfd, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(w.port);
	cr_assert_eq(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)), 0,
		     "connect: %s", strerror(errno));
	afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	cr_assert_geq(afd, 0);

	cr_assert_eq(fp_sock_snapshot(&t), 0);
	assert_reported(&t, &w);
	peer = w;
	cr_assert_eq(fstat(cfd, &st), 0);
	peer.inode = st.st_ino;
	assert_absent(&t, &peer);
	cr_assert_eq(fstat(afd, &st), 0);
	peer.inode = st.st_ino;
	/* the accepted socket shares the listener's address and port */
	assert_absent(&t, &peer);
	fp_sock_table_free(&t);
	close(afd);
	close(cfd);
	close(lfd);
}

Test(snapshot_net, closed_sockets_disappear)
{
	struct fp_sock_table t;
	struct fp_sock w[4];
	int fd[4], n = 2, i;

	fd[0] = must_open(AF_INET, SOCK_STREAM, "127.0.0.1", LISTEN, &w[0]);
	fd[1] = must_open(AF_INET, SOCK_DGRAM, "127.0.0.1", BIND_ONLY, &w[1]);
	if (ipv6_usable()) {
		fd[2] = must_open(AF_INET6, SOCK_STREAM, "::1", LISTEN, &w[2]);
		fd[3] = must_open(AF_INET6, SOCK_DGRAM, "::1", BIND_ONLY,
				  &w[3]);
		n = 4;
	}
	cr_assert_eq(fp_sock_snapshot(&t), 0);
	for (i = 0; i < n; i++)
		assert_reported(&t, &w[i]);
	fp_sock_table_free(&t);
	cr_assert_null(t.socks);
	cr_assert_eq(t.n, 0);

	for (i = 0; i < n; i++)
		close(fd[i]);
	cr_assert_eq(fp_sock_snapshot(&t), 0);
	for (i = 0; i < n; i++)
		assert_absent(&t, &w[i]);
	fp_sock_table_free(&t);
}

/* a listener inherited across fork belongs to the lowest pid holding it */
Test(snapshot_net, shared_socket_goes_to_lowest_pid)
{
	struct fp_sock_table t;
	struct fp_sock w;
	pid_t pid, parent = getpid();
	int fd, p[2];
	char c;

	fd = must_open(AF_INET, SOCK_STREAM, "127.0.0.1", LISTEN, &w);
	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		/* a failed assertion must not leave a sleeping child behind */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) ||
		    getppid() != parent)
			_exit(1);
		close(p[0]);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	w.pid = pid < getpid() ? pid : getpid();

	cr_assert_eq(fp_sock_snapshot(&t), 0);
	assert_reported(&t, &w);
	fp_sock_table_free(&t);

	/* once only the child holds it, the child owns it */
	close(fd);
	w.pid = pid;
	cr_assert_eq(fp_sock_snapshot(&t), 0);
	assert_reported(&t, &w);
	fp_sock_table_free(&t);

	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
}

static int cmp_key(const struct fp_sock *x, const struct fp_sock *y)
{
	int c;

	if (x->protocol != y->protocol)
		return x->protocol < y->protocol ? -1 : 1;
	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	c = strcmp(x->address, y->address);
	if (c)
		return c;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return (x->inode > y->inode) - (x->inode < y->inode);
}

Test(snapshot_net, table_sorted_and_well_formed)
{
	unsigned char buf[sizeof(struct in6_addr)];
	struct fp_sock_table t;
	const struct fp_sock *s;
	struct fp_sock w;
	size_t i;
	int fd;

	/* at least one row of our own, whatever else the machine runs */
	fd = must_open(AF_INET, SOCK_STREAM, "127.0.0.1", LISTEN, &w);
	cr_assert_eq(fp_sock_snapshot(&t), 0);
	cr_assert_geq(t.n, 1);
	for (i = 0; i < t.n; i++) {
		s = &t.socks[i];
		cr_assert(s->family == AF_INET || s->family == AF_INET6);
		cr_assert(s->protocol == IPPROTO_TCP ||
			  s->protocol == IPPROTO_UDP);
		cr_assert_eq(inet_pton(s->family, s->address, buf), 1,
			     "bad address text \"%s\"", s->address);
		cr_assert_neq(s->port, 0);
		cr_assert(s->pid == -1 || s->pid > 0);
		if (i)
			cr_assert_lt(cmp_key(&t.socks[i - 1], s), 0,
				     "not sorted at %zu", i);
		cr_assert_eq(fp_sock_find(&t, s), s);
	}
	fp_sock_table_free(&t);
	close(fd);
}

Test(snapshot_net, find_matches_by_inode_protocol_family)
{
	struct fp_sock_table t;
	struct fp_sock w, key;
	int fd;

	fd = must_open(AF_INET, SOCK_STREAM, "127.0.0.1", LISTEN, &w);
	cr_assert_eq(fp_sock_snapshot(&t), 0);

	/* the address and port are only sort keys; the inode decides */
	key = w;
	snprintf(key.address, sizeof(key.address), "10.9.8.7");
	key.port = 1;
	cr_assert_eq(fp_sock_find(&t, &key), fp_sock_find(&t, &w));
	cr_assert_not_null(fp_sock_find(&t, &key));

	key = w;
	key.protocol = IPPROTO_UDP;
	cr_assert_null(fp_sock_find(&t, &key));
	key = w;
	key.family = AF_INET6;
	cr_assert_null(fp_sock_find(&t, &key));
	key = w;
	key.inode = w.inode + 1000000;
	key.port = 1;
	cr_assert_null(fp_sock_find(&t, &key));

	fp_sock_table_free(&t);
	cr_assert_null(fp_sock_find(&t, &w));
	close(fd);
}

Test(snapshot_net, owners_only_of_new_sockets)
{
	struct fp_sock_table before, after;
	const struct fp_sock *a, *b;
	struct fp_sock w[2];
	int fd[2];

	fd[0] = must_open(AF_INET, SOCK_STREAM, "127.0.0.1", LISTEN, &w[0]);
	cr_assert_eq(fp_sock_snapshot_new(&before, NULL), 0);
	a = fp_sock_find(&before, &w[0]);
	cr_assert_not_null(a);
	/* no owner lookup at all without a table to compare against */
	cr_assert_eq(a->pid, -1);
	fd[1] = must_open(AF_INET, SOCK_STREAM, "127.0.0.1", LISTEN, &w[1]);
	cr_assert_eq(fp_sock_snapshot_new(&after, &before), 0);
	a = fp_sock_find(&after, &w[0]);
	b = fp_sock_find(&after, &w[1]);
	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_assert_eq(a->pid, -1, "a socket known before is not looked up");
	cr_assert_eq(b->pid, getpid(), "a new socket gets its owner");
	fp_sock_table_free(&before);
	fp_sock_table_free(&after);
	close(fd[0]);
	close(fd[1]);
}
