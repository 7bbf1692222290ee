/* SPDX-License-Identifier: GPL-2.0 */
/* The run's own cgroup v2: created for one run, emptied and removed after. */
#ifndef FP_CGROUP_H
#define FP_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct fp_cgroup {
	char path[PATH_MAX + 64];
	int fd; /* O_DIRECTORY, for CLONE_INTO_CGROUP and the BPF map */
	const char *rel; /* path below the mount, as /proc/PID/cgroup shows */
};

/* Where cgroup v2 is mounted: /sys/fs/cgroup or, in hybrid mode, .../unified */
int fp_cgroup_mountpoint(char *out, size_t len);
int fp_cgroup_create(struct fp_cgroup *cg, char *err, size_t errlen);
int fp_cgroup_populated(const struct fp_cgroup *cg);
/* pids in the cgroup and below it; returns count or -errno */
int fp_cgroup_pids(const struct fp_cgroup *cg, pid_t **pids);
int fp_cgroup_kill(const struct fp_cgroup *cg);
/* wait until no process is left, up to timeout_ms; 0 when empty */
int fp_cgroup_wait_empty(const struct fp_cgroup *cg, int timeout_ms);
void fp_cgroup_remove(struct fp_cgroup *cg);

#endif
