// SPDX-License-Identifier: GPL-2.0
/* inet_diag's listeners against /proc/net/tcp's, in a network namespace of
 * the test's own so that nothing else on the machine opens or closes one */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sock_diag.h"

/* more than one netlink message holds (a page at first) */
#define MAXS 256

struct set {
	struct fp_sock s[MAXS];
	size_t n;
};

static int add(void *ctx, const struct fp_sock *s)
{
	struct set *st = ctx;

	cr_assert_lt(st->n, MAXS, "more listeners than the test opened");
	st->s[st->n++] = *s;
	return 0;
}

static void own_netns(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	if (geteuid() != 0)
		cr_skip_test("needs root for a network namespace");
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %s", strerror(errno));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ioctl(fd, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	cr_assert_eq(ioctl(fd, SIOCSIFFLAGS, &ifr), 0);
	close(fd);
}

/* a TCP socket on addr, port 0; returns its inode */
static unsigned long long tcp_on(int family, const char *addr, bool listening)
{
	struct sockaddr_storage ss = { .ss_family = family };
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t len = family == AF_INET ? sizeof(*s4) : sizeof(*s6);
	struct stat st;
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(inet_pton(family, addr,
			       family == AF_INET ? (void *)&s4->sin_addr :
						   (void *)&s6->sin6_addr),
		     1);
	cr_assert_eq(bind(fd, (struct sockaddr *)&ss, len), 0, "bind %s: %s",
		     addr, strerror(errno));
	if (listening)
		cr_assert_eq(listen(fd, 4), 0);
	cr_assert_eq(fstat(fd, &st), 0);
	return st.st_ino;
}

/* the LISTEN rows of /proc/net/tcp or tcp6: the reference */
static void from_proc(const char *path, struct set *out)
{
	unsigned long long inode;
	unsigned int port, state;
	char line[512];
	FILE *f = fopen(path, "re");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	out->n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line,
			   " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*s %*s %*s %*s %*s %llu",
			   &port, &state, &inode) != 3 ||
		    state != 0x0A)
			continue;
		cr_assert_lt(out->n, MAXS);
		out->s[out->n].port = port;
		out->s[out->n++].inode = inode;
	}
	fclose(f);
}

static const struct fp_sock *by_inode(const struct set *s,
				      unsigned long long inode)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->s[i].inode == inode)
			return &s->s[i];
	return NULL;
}

/* same sockets, same ports, each once */
static void assert_same(const struct set *diag, const struct set *proc)
{
	const struct fp_sock *d;
	size_t i;

	cr_assert_eq(diag->n, proc->n, "inet_diag %zu listeners, /proc %zu",
		     diag->n, proc->n);
	for (i = 0; i < proc->n; i++) {
		d = by_inode(diag, proc->s[i].inode);
		cr_assert_not_null(d, "inode %llu not from inet_diag",
				   (unsigned long long)proc->s[i].inode);
		cr_assert_eq(d->port, proc->s[i].port);
		cr_assert_eq(d->protocol, IPPROTO_TCP);
		cr_assert_eq(d->pid, -1);
	}
}

Test(sock_diag, listeners_as_proc_net_tcp_lists_them)
{
	struct set diag = { 0 }, proc;
	unsigned long long lo, any, bound;
	const struct fp_sock *s;

	own_netns();
	lo = tcp_on(AF_INET, "127.1.2.3", true);
	any = tcp_on(AF_INET, "0.0.0.0", true);
	bound = tcp_on(AF_INET, "127.0.0.1", false);
	cr_assert_eq(fp_sock_diag_tcp_listen(AF_INET, add, &diag), 0);
	from_proc("/proc/net/tcp", &proc);
	cr_assert_eq(proc.n, 2);
	assert_same(&diag, &proc);
	s = by_inode(&diag, lo);
	cr_assert_not_null(s);
	cr_assert_str_eq(s->address, "127.1.2.3");
	cr_assert_eq(s->family, AF_INET);
	cr_assert_str_eq(by_inode(&diag, any)->address, "0.0.0.0");
	cr_assert_null(by_inode(&diag, bound), "bound, not listening");
}

Test(sock_diag, ipv6_listeners_apart_from_ipv4)
{
	struct set diag = { 0 }, diag4 = { 0 }, proc;
	unsigned long long v6, mapped;

	own_netns();
	if (access("/proc/net/tcp6", F_OK))
		cr_skip_test("IPv6 is not available");
	tcp_on(AF_INET, "127.0.0.1", true);
	/* every word distinct, to catch a word-order mistake */
	v6 = tcp_on(AF_INET6, "::1", true);
	mapped = tcp_on(AF_INET6, "::ffff:127.0.0.1", true);
	cr_assert_eq(fp_sock_diag_tcp_listen(AF_INET6, add, &diag), 0);
	from_proc("/proc/net/tcp6", &proc);
	cr_assert_eq(proc.n, 2);
	assert_same(&diag, &proc);
	cr_assert_str_eq(by_inode(&diag, v6)->address, "::1");
	cr_assert_str_eq(by_inode(&diag, mapped)->address, "::ffff:127.0.0.1");
	cr_assert_eq(by_inode(&diag, mapped)->family, AF_INET6);
	cr_assert_eq(fp_sock_diag_tcp_listen(AF_INET, add, &diag4), 0);
	cr_assert_eq(diag4.n, 1, "an IPv4 listener is not an IPv6 one");
}

/* a table bigger than one netlink message still comes whole */
Test(sock_diag, many_listeners_span_messages)
{
	static struct set diag, proc;

	own_netns();
	for (int i = 0; i < MAXS; i++)
		tcp_on(AF_INET, "127.0.0.1", true);
	cr_assert_eq(fp_sock_diag_tcp_listen(AF_INET, add, &diag), 0);
	from_proc("/proc/net/tcp", &proc);
	cr_assert_eq(proc.n, MAXS);
	assert_same(&diag, &proc);
}
