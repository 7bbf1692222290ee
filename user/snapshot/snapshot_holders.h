/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who else holds a file open for writing. footprint traces opens, not
 * writes: a file the run only opened for appending may have been written
 * by a process outside the run that holds it open for writing (a logger
 * started before the run). At the after snapshot, the changed files whose
 * only explanation is such an open are looked for among the writable fds
 * of the processes outside the run (/proc/PID/fd and fdinfo's flags, by
 * the file's dev and ino).
 */
#ifndef FP_SNAPSHOT_HOLDERS_H
#define FP_SNAPSHOT_HOLDERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"

/* a file looked for: its snapshot entry's dev, ino and path */
struct fp_holder_want {
	uint64_t dev, ino;
	const char *path;
	size_t len;
};

/* a process outside the run holding path open for writing */
struct fp_holder {
	struct fp_bytes path;
	pid_t pid;
};

struct fp_holder_table {
	struct fp_holder *h; /* sorted by path, one per path */
	size_t n;
};

/*
 * The first writable holder of each wanted file among the processes
 * other than self and those in run_cgroup (as /proc/PID/cgroup shows it;
 * NULL: none is the run's). One pass over every fd of every process;
 * unreadable processes are skipped. Holders are appended to out, which
 * is sorted at the end. 0 or -ENOMEM.
 */
int fp_holders_scan(struct fp_holder_want *w, size_t n, pid_t self,
		    const char *run_cgroup, struct fp_holder_table *out);
/* after a table is filled by other means (a log): sort it */
void fp_holders_sort(struct fp_holder_table *t);
const struct fp_holder *fp_holder_find(const struct fp_holder_table *t,
				       const char *path, size_t len);
void fp_holder_table_free(struct fp_holder_table *t);

#endif
