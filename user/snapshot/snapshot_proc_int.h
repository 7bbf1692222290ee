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
 * pids[i] read from /proc (procfd) into procs[i], res[i] its result: 0
 * read, 1 gone, or -ENOMEM; a process of prev in part (carry()). On
 * threads for a long list.
 */
void fp_proc_read_all(int procfd, const struct fp_proc_table *prev,
		      const pid_t *pids, size_t n, struct fp_proc *procs,
		      int *res);
/*
 * nt->procs[i] with res[i] == 0 packed, sorted by pid, and handed to t
 * (nt left empty); the others were freed. The first failure (res < 0),
 * or 0; on failure nt holds what was packed, t is untouched.
 */
int fp_proc_table_pack(struct fp_proc_table *t, struct fp_proc_table *nt,
		       const int *res, size_t n);
/* q's copy into p (its bytes duplicated): 0 or -ENOMEM, p then freed */
int fp_proc_copy(struct fp_proc *p, const struct fp_proc *q);
void fp_proc_free_one(struct fp_proc *p);

#endif
