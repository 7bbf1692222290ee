/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's ancestors, by /proc/PID/stat: the one walk up the parents,
 * bounded (a pid reused into a loop cannot hold it).
 */
#ifndef FP_PROC_WALK_H
#define FP_PROC_WALK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* hops a walk takes at most */
#define FP_PROC_WALK_MAX 64

/* /proc/PID/stat's text into buf (len bytes, NUL-terminated, cut to
 * fit): 0, or -errno (-ESRCH when it reads empty) */
int fp_proc_stat_text(pid_t pid, char *buf, size_t len);
/* pid's parent and start time in clock ticks since boot (either may be
 * NULL): 0, or -errno when /proc does not say */
int fp_proc_stat(pid_t pid, pid_t *ppid, uint64_t *ticks);
/* pid's parent; 0 when /proc does not say */
pid_t fp_proc_ppid(pid_t pid);
/* pid's start time in clock ticks since boot; 0 when /proc does not say */
uint64_t fp_proc_start_ticks(pid_t pid);

/* One step of a walk: pid and its parent (0: unknown, the walk ends after
 * this step). Nonzero ends the walk with that value. */
typedef long (*fp_proc_walk_fn)(void *ctx, pid_t pid, pid_t ppid);
/*
 * fn on pid, then on its parent, and so on while the pid is above 1, at
 * most FP_PROC_WALK_MAX steps. fn's nonzero value, or 0 when the walk ran
 * out of parents.
 */
long fp_proc_walk_up(pid_t pid, fp_proc_walk_fn fn, void *ctx);

#endif
