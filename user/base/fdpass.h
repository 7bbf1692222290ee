/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One fixed-size message over a unix socket, with file descriptors beside
 * it (SCM_RIGHTS): how the pty monitor hands footprint the command's
 * pidfd, and footprint hands the watchdog the run's cgroup and, at the
 * end, the tracer's links to close.
 */
#ifndef FP_FDPASS_H
#define FP_FDPASS_H

#include <stddef.h>

/* buf's len bytes, and fd unless it is -1. 0, or -errno. */
int fp_fdpass_send(int sock, const void *buf, size_t len, int fd);

/* the most descriptors one message of fp_fdpass_send_n carries */
#define FP_FDPASS_MAX 32

/* buf's len bytes, and n descriptors of fds, in order. 0, or -errno. */
int fp_fdpass_send_n(int sock, const void *buf, size_t len, const int *fds,
		     int n);

/*
 * One message of exactly len bytes into buf; *fd the descriptor it
 * carried, close-on-exec, or -1. 0, or -1 on an error, the end of the
 * stream or a message of another size (a descriptor that came with it is
 * closed).
 */
int fp_fdpass_recv(int sock, void *buf, size_t len, int *fd);

#endif
