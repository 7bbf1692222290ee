/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two ways of reading the process table share: /proc
 * (snapshot_proc.c) and the tracer's task iterator (snapshot_tasks.c).
 * Not for the rest of footprint.
 */
#ifndef FP_SNAPSHOT_PROC_INT_H
#define FP_SNAPSHOT_PROC_INT_H

#include <dirent.h>

#include "snapshot_proc.h"

/* include/linux/sched.h; not exported to user space */
#define FP_PF_KTHREAD 0x00200000UL

/* the pids /proc (d) lists, in its order; -E2BIG past max of them */
int fp_proc_list_pids(DIR *d, size_t max, pid_t **out, size_t *n);
/*
 * pid's /proc/PID directory (procfd: /proc) into *fd: 0, 1 if it is
 * hidden or gone, or -errno (out of fds or memory).
 */
int fp_proc_open_dir(int procfd, pid_t pid, int *fd);
/*
 * pids[i] read from /proc (procfd) into procs[i], res[i] its result: 0
 * read, 1 gone, or -ENOMEM; a process of prev in part (carry()). For
 * the k indexes i of idx, or i below k without one; on threads for many.
 */
void fp_proc_read_these(int procfd, const struct fp_proc_table *prev,
			const pid_t *pids, struct fp_proc *procs, int *res,
			const size_t *idx, size_t k);
/*
 * nt->procs[i] with res[i] == 0 packed, sorted by pid, and handed to t
 * (nt left empty); the others were freed. The first failure (res < 0),
 * or 0; on failure nt holds what was packed, t is untouched.
 */
int fp_proc_table_pack(struct fp_proc_table *t, struct fp_proc_table *nt,
		       const int *res, size_t n);
/* every index below n handed to one(), in shares on threads for many */
void fp_proc_shares(size_t n, void (*one)(void *ctx, size_t i), void *ctx);
/*
 * Through dirfd, a process's /proc/PID (left open), into p: all of it
 * (read_dir), or its argv, exe and cwd alone (read_named, p's other
 * fields left as they are), or its cgroup (read_cgroup). 0, 1 if it is
 * gone, or -ENOMEM; p complete, or freed unless read_cgroup's.
 */
int fp_proc_read_dir(int dirfd, pid_t pid, struct fp_proc *p);
int fp_proc_read_named(int dirfd, struct fp_proc *p);
int fp_proc_read_cgroup(int dirfd, struct fp_proc *p);
int fp_proc_set_bytes(struct fp_bytes *b, const char *s, size_t len);
/* p's empty pieces given an empty buffer: 0, or -ENOMEM (p freed) */
int fp_proc_fill_empty(struct fp_proc *p);

/*
 * The task iterator's records (proctab.bpf.c) of fd, to its end, sorted
 * by pid: at most max, else -E2BIG. And one of them by pid, or NULL.
 */
int fp_tasks_read(int fd, size_t max, struct fp_task_rec **out, size_t *n);
const struct fp_task_rec *fp_tasks_find(const struct fp_task_rec *recs,
					size_t n, pid_t pid);
/* a record's start time as /proc/PID/stat gives it, in clock ticks */
uint64_t fp_task_ticks(uint64_t ns);

/*
 * Cgroups as /proc/PID/cgroup names them against the iterator's ids:
 * the inode of the directory a path names under footprint's cgroup v2
 * mount, looked up once a path (the paths are the caller's, kept alive
 * while the cache is used).
 */
struct fp_cg_ids {
	int rootfd; /* the cgroup v2 mount, or -1 */
	const struct fp_bytes **paths;
	uint64_t *ids;
	size_t n, cap;
};

int fp_cg_ids_init(struct fp_cg_ids *c);
void fp_cg_ids_free(struct fp_cg_ids *c);
/* the id of path (0: none known), remembered while there is room */
uint64_t fp_cg_id_of(struct fp_cg_ids *c, const struct fp_bytes *path);
/* a path already looked up whose id is id, or NULL */
const struct fp_bytes *fp_cg_path_of(const struct fp_cg_ids *c, uint64_t id);

/* q's copy into p (its bytes duplicated): 0 or -ENOMEM, p then freed */
int fp_proc_copy(struct fp_proc *p, const struct fp_proc *q);
void fp_proc_free_one(struct fp_proc *p);

#endif
