/* SPDX-License-Identifier: GPL-2.0 */
/* Listening TCP and bound UDP sockets, IPv4 and IPv6, from /proc/net
 * (TCP through inet_diag where the kernel has it: sock_diag.h). */
#ifndef FP_SNAPSHOT_NET_H
#define FP_SNAPSHOT_NET_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct fp_sock {
	int family; /* AF_INET or AF_INET6 */
	int protocol; /* IPPROTO_TCP or IPPROTO_UDP */
	char address[INET6_ADDRSTRLEN];
	uint16_t port;
	uint64_t inode;
	pid_t pid; /* owner found through /proc/PID/fd, or -1 */
};

struct fp_sock_table {
	struct fp_sock
		*socks; /* sorted by (protocol, family, address, port, inode) */
	size_t n;
};

int fp_sock_snapshot(struct fp_sock_table *t);
/*
 * The same, but owners are looked up only for sockets that are not in
 * known, and for none if known is NULL (pid -1): the scan of every
 * /proc/PID/fd is most of a snapshot's cost, and only new sockets need it.
 */
int fp_sock_snapshot_new(struct fp_sock_table *t,
			 const struct fp_sock_table *known);
void fp_sock_table_free(struct fp_sock_table *t);
/* same socket: same inode (an inode is not reused while the socket lives) */
const struct fp_sock *fp_sock_find(const struct fp_sock_table *t,
				   const struct fp_sock *s);

#endif
