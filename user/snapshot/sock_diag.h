/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Listening TCP sockets through NETLINK_SOCK_DIAG. /proc/net/tcp walks the
 * whole established hash to find them (milliseconds on a large machine
 * even when it is idle); inet_diag asked for listeners only walks just
 * the listening hash.
 */
#ifndef FP_SOCK_DIAG_H
#define FP_SOCK_DIAG_H

#include "snapshot_net.h"

typedef int (*fp_sock_add_fn)(void *ctx, const struct fp_sock *s);

/*
 * Calls add for each listening TCP socket of family (AF_INET or AF_INET6)
 * in this process's network namespace, as /proc/net/tcp{,6} lists them.
 * Returns 0, add's error, or -errno when inet_diag cannot answer (the
 * caller then reads /proc/net instead).
 */
int fp_sock_diag_tcp_listen(int family, fp_sock_add_fn add, void *ctx);

#endif
