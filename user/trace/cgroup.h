/* SPDX-License-Identifier: GPL-2.0 */
/* The run's own cgroup v2: created for one run, emptied and removed after. */
#ifndef FP_CGROUP_H
#define FP_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * On the run's cgroup directory: "PID STARTTIME PIDNS" of the footprint that
 * made it (STARTTIME as in /proc/PID/stat, PIDNS the inode of its pid
 * namespace), and, once that footprint has ended
 * with leftovers allowed, "released". A run whose owner is gone and that
 * was not released died mid-trace: the next footprint kills what is left.
 */
#define FP_XATTR_OWNER "trusted.footprint.owner"
#define FP_XATTR_RELEASED "trusted.footprint.released"

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
/* stop every process at once (cgroup v2 freezer, 5.2+) */
int fp_cgroup_freeze(const struct fp_cgroup *cg);
/* wait until no process is left, up to timeout_ms; 0 when empty */
int fp_cgroup_wait_empty(const struct fp_cgroup *cg, int timeout_ms);
void fp_cgroup_remove(struct fp_cgroup *cg);
/* footprint ended, what is left may stay: mark the cgroup, close its fd */
void fp_cgroup_release(struct fp_cgroup *cg);

/* from a /proc/PID/stat line: the state (field 3) and the start time
 * (field 22, clock ticks since boot) */
int fp_proc_stat_parse(const char *stat, char *state,
		       unsigned long long *start);
int fp_proc_starttime(pid_t pid, char *state, unsigned long long *start);
/* who made a run cgroup: FP_XATTR_OWNER is "PID STARTTIME PIDNS_INODE" */
struct fp_owner {
	pid_t pid;
	unsigned long long start;
	unsigned long long pidns;
};

int fp_owner_self(struct fp_owner *o);
/* the FP_XATTR_OWNER value (not NUL-terminated, len bytes) */
int fp_cgroup_parse_owner(const char *s, size_t len, struct fp_owner *o);

#endif
