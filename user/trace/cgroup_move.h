/* SPDX-License-Identifier: GPL-2.0 */
/* A process into a cgroup: the one writer of cgroup.procs. */
#ifndef FP_CGROUP_MOVE_H
#define FP_CGROUP_MOVE_H

#include <sys/types.h>

/* pid (0: the caller) into the cgroup dirfd is open on. 0 or -errno. */
int fp_cgroup_move(int dirfd, pid_t pid);
/* The same for the cgroup directory at path. */
int fp_cgroup_move_path(const char *path, pid_t pid);

#endif
