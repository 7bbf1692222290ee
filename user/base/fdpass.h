/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One fixed-size message over a unix socket, with at most one file
 * descriptor beside it (SCM_RIGHTS): how the pty monitor hands footprint
 * the command's pidfd and footprint hands the watchdog the run's cgroup.
 */
#ifndef FP_FDPASS_H
#define FP_FDPASS_H

#include <stddef.h>

/* buf's len bytes, and fd unless it is -1. 0, or -errno. */
int fp_fdpass_send(int sock, const void *buf, size_t len, int fd);

/*
 * One message of exactly len bytes into buf; *fd the descriptor it
 * carried, close-on-exec, or -1. 0, or -1 on an error, the end of the
 * stream or a message of another size (a descriptor that came with it is
 * closed).
 */
int fp_fdpass_recv(int sock, void *buf, size_t len, int *fd);

#endif
