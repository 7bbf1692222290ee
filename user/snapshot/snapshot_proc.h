/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process table from /proc. A process's identity is its pid plus its
 * start time, so a daemon restarted under the same pid counts as new.
 */
#ifndef FP_SNAPSHOT_PROC_H
#define FP_SNAPSHOT_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"

struct fp_proc {
	pid_t pid;
	pid_t ppid;
	uint64_t start_ticks; /* /proc/PID/stat field 22 */
	uint32_t uid; /* real uid */
	struct fp_bytes exe; /* readlink /proc/PID/exe; empty if unreadable */
	struct fp_bytes cwd;
	struct fp_bytes argv; /* NUL-separated, as /proc/PID/cmdline */
	struct fp_bytes cgroup; /* the "0::" line of /proc/PID/cgroup */
	char comm[17];
	uint64_t cap_eff;
	int no_new_privs; /* -1 unknown */
	bool kernel_thread;
};

struct fp_proc_table {
	struct fp_proc *procs; /* sorted by pid */
	size_t n;
};

/*
 * At most this many processes are read: the command can make more, and
 * each costs up to a few KiB here (argv is cut at FP_ARGV_KEEP). Past it a
 * snapshot fails with -E2BIG, and the run with it.
 */
#define FP_PROC_MAX 131072

/* Every process on the machine; processes that vanish mid-read are skipped. */
int fp_proc_snapshot(struct fp_proc_table *t);
/*
 * The same, later: a process of prev (a table of fp_proc_snapshot, sorted;
 * not t), the same one (fp_proc_same) in the same cgroup, is read for its
 * stat and cgroup only, and keeps prev's exe, cwd, argv, uid, cap_eff and
 * no_new_privs: a third of the reads, on a machine whose processes
 * outlive the run. The verdict reads those of new processes only
 * (reconcile_procs.c; the reason is at carry() in snapshot_proc.c).
 */
int fp_proc_snapshot_since(struct fp_proc_table *t,
			   const struct fp_proc_table *prev);
/*
 * fp_proc_snapshot_since() from the tracer's task iterator: tasks_fd is
 * fp_tracer_tasks_fd()'s, read to its end here (the caller closes it).
 * What it gives of a process of prev, the same one in the same cgroup,
 * is all that is read of it; the others are read from /proc
 * (snapshot_tasks.c). Only where fp_proc_tasks_usable().
 */
int fp_proc_snapshot_tasks(struct fp_proc_table *t,
			   const struct fp_proc_table *prev, int tasks_fd);
/* where a task iterator's fds come from: the tracer's, or a test's */
struct fp_tasks_src {
	int (*open)(void *ctx); /* a new fd, not yet read, or -errno */
	void *ctx;
};

/*
 * fp_proc_snapshot() with the records of the task iterator: a kernel
 * thread is its record, and of another process /proc gives its argv, exe
 * and cwd, and its cgroup's path once a cgroup (snapshot_tasks_fresh.c).
 * src's fds are read to their end and closed here: one, and another for
 * every batch of up to 512 processes that are not kernel threads (fewer
 * under a low open-file limit). Only where fp_proc_tasks_usable(). 0, -E2BIG past
 * FP_PROC_MAX, or -errno (src's own among them).
 */
int fp_proc_snapshot_tasks_fresh(struct fp_proc_table *t,
				 const struct fp_tasks_src *src);
/* the iterator's pids and start times are /proc's: footprint is in the
 * initial pid and time namespaces (and FOOTPRINT_DEBUG_PROC_READS is not
 * set) */
bool fp_proc_tasks_usable(void);
/* either, with a bound of its own (prev may be NULL) */
int fp_proc_snapshot_max(struct fp_proc_table *t,
			 const struct fp_proc_table *prev, size_t max);
/*
 * t, a table of fp_proc_snapshot, brought up to now at the cost of a
 * listing of /proc: the processes it lacks are read, those gone are
 * dropped, the rest kept as read. A pid that ended and was taken again
 * in between keeps the earlier start time, so the process that took it
 * is new at the next snapshot (the cautious side). 0, -E2BIG past
 * FP_PROC_MAX, or -errno; t is unchanged on failure.
 */
int fp_proc_snapshot_refresh(struct fp_proc_table *t);
void fp_proc_table_free(struct fp_proc_table *t);
const struct fp_proc *fp_proc_find(const struct fp_proc_table *t, pid_t pid);
/* same process: same pid and same start time */
bool fp_proc_same(const struct fp_proc *a, const struct fp_proc *b);

#endif
