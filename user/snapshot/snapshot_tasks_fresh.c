// SPDX-License-Identifier: GPL-2.0
/*
 * A whole process table (the before snapshot's) with the task iterator's
 * help (proctab.bpf.c), where fp_proc_snapshot() reads six /proc files a
 * process: on this VM ~15-20 us each, 20 ms of a run on a machine of 370
 * processes. A record gives a process's pid, parent, start time, name,
 * real uid, effective capabilities, no_new_privs, cgroup id and whether
 * it is a kernel thread. So:
 *
 * - a kernel thread is its record: no file of it is opened (its name is
 *   the task's, without a workqueue's suffix; nothing judges it);
 * - of any other, /proc gives what no record holds: argv, exe and cwd,
 *   through its /proc/PID directory, and its cgroup's path, read once
 *   per cgroup id (the first process there; the others take the path,
 *   once its directory's inode was found to be that id);
 * - a process without a record (this VM's iterator never shows pid 1) is
 *   read from /proc whole.
 *
 * The record and the files must be of one process, and a pid can be
 * taken again in between. Each /proc/PID directory is opened before the
 * records are read: the fd pins the process it named, and a read through
 * it fails once that process is reaped. A read that succeeds afterwards
 * shows that the process held its pid from the open to the read, so the
 * record read in between is its own. Kernel threads, known from a first
 * read of the records, need no directory; the directories are opened a
 * batch at a time, with a read of the records for each, to keep the fds
 * bounded. Which processes there are is /proc's listing, as elsewhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "snapshot_proc_int.h"

/* /proc/PID directories held open at once, at most */
#define DIRS_AT_ONCE 512

struct fresh {
	const struct fp_tasks_src *src;
	int procfd;
	const pid_t *pids;
	size_t n;
	struct fp_proc *procs;
	int *res; /* 0 read, 1 gone (or not yet), -errno */
	int *dirfds;
	uint64_t *cgid; /* the record's cgroup id of a process read in part */
	bool *want_cg; /* such a process, its cgroup's path still to find */
	size_t *work; /* the indexes of the processes to read, in order */
	size_t nwork;
	struct fp_task_rec *recs; /* the batch's */
	size_t nrecs;
	size_t base; /* the batch's first in work */
	size_t per_batch;
	struct fp_cg_ids cg;
};

static int read_records(struct fresh *f, struct fp_task_rec **recs, size_t *n)
{
	int fd = f->src->open(f->src->ctx), ret;

	if (fd < 0)
		return fd;
	ret = fp_tasks_read(fd, FP_PROC_MAX, recs, n);
	close(fd);
	return ret;
}

/* identity alone, as fp_proc_snapshot() keeps of a kernel thread */
static int from_record(struct fp_proc *p, const struct fp_task_rec *r,
		       bool kthread)
{
	memset(p, 0, sizeof(*p));
	p->pid = r->pid;
	p->ppid = r->ppid;
	p->start_ticks = fp_task_ticks(r->start_ns);
	memcpy(p->comm, r->comm, sizeof(r->comm));
	p->comm[sizeof(r->comm)] = '\0';
	p->kernel_thread = kthread;
	p->uid = kthread ? (uint32_t)-1 : r->uid;
	p->cap_eff = kthread ? 0 : r->cap_eff;
	p->no_new_privs = kthread ? -1 : (int)r->no_new_privs;
	return kthread ? fp_proc_fill_empty(p) : 0;
}

static void read_one(void *ctx, size_t i)
{
	struct fresh *f = ctx;
	size_t k = f->work[f->base + i];
	const struct fp_task_rec *r;
	struct fp_proc *p = &f->procs[k];

	if (f->dirfds[k] < 0)
		return;
	r = fp_tasks_find(f->recs, f->nrecs, f->pids[k]);
	if (!r || (r->flags & FP_PF_KTHREAD)) {
		f->res[k] = fp_proc_read_dir(f->dirfds[k], f->pids[k], p);
		return;
	}
	from_record(p, r, false);
	f->res[k] = fp_proc_read_named(f->dirfds[k], p);
	f->cgid[k] = r->cgroup_id;
	f->want_cg[k] = !f->res[k];
}

/* a read's cgroup path: its id's, known, or read through its directory */
static int find_cgroup(struct fresh *f, size_t k)
{
	struct fp_proc *p = &f->procs[k];
	const struct fp_bytes *known = fp_cg_path_of(&f->cg, f->cgid[k]);
	int ret;

	if (known)
		return fp_proc_set_bytes(&p->cgroup, known->data, known->len);
	ret = fp_proc_read_cgroup(f->dirfds[k], p);
	/* remembered (with the id it has now) for the next of that id */
	if (!ret)
		fp_cg_id_of(&f->cg, &p->cgroup);
	return ret;
}

/* a process's directory, opened before the batch's records are read */
static void open_one(void *ctx, size_t i)
{
	struct fresh *f = ctx;
	size_t k = f->work[f->base + i];
	int ret = fp_proc_open_dir(f->procfd, f->pids[k], &f->dirfds[k]);

	/* hidden or gone: skipped (res stays 1); out of fds: given up */
	if (ret < 0)
		f->res[k] = ret;
}

static void close_dirs(struct fresh *f, size_t end)
{
	size_t i, k;

	for (i = f->base; i < end; i++) {
		k = f->work[i];
		if (f->dirfds[k] >= 0)
			close(f->dirfds[k]);
		f->dirfds[k] = -1;
	}
}

/* one batch: its directories, the records, the reads, the cgroups */
static int read_batch(struct fresh *f)
{
	size_t end = f->base + f->per_batch < f->nwork ?
			     f->base + f->per_batch :
			     f->nwork;
	size_t i, k;
	int ret = 0;

	fp_proc_shares(end - f->base, open_one, f);
	for (i = f->base; !ret && i < end; i++)
		ret = f->res[f->work[i]] < 0 ? f->res[f->work[i]] : 0;
	if (!ret)
		ret = read_records(f, &f->recs, &f->nrecs);
	if (!ret)
		fp_proc_shares(end - f->base, read_one, f);
	for (i = f->base; !ret && i < end; i++) {
		k = f->work[i];
		if (!f->want_cg[k])
			continue;
		f->res[k] = find_cgroup(f, k);
		if (f->res[k])
			fp_proc_free_one(&f->procs[k]);
		ret = f->res[k] < 0 ? f->res[k] : 0;
	}
	close_dirs(f, end);
	free(f->recs);
	f->recs = NULL;
	return ret;
}

/*
 * The kernel threads, by the first records, are their records; the rest
 * are the work, read in batches. 0 or -ENOMEM.
 */
static int sort_out(struct fresh *f, const struct fp_task_rec *kinds,
		    size_t nkinds)
{
	const struct fp_task_rec *r;
	size_t k;

	for (k = 0; k < f->n; k++) {
		r = fp_tasks_find(kinds, nkinds, f->pids[k]);
		if (!r || !(r->flags & FP_PF_KTHREAD))
			f->work[f->nwork++] = k;
		else if ((f->res[k] = from_record(&f->procs[k], r, true)))
			return f->res[k];
	}
	return 0;
}

/*
 * A batch leaves half of what the fd limit leaves free (sudo's default
 * soft limit is 1024; a lower one only makes more batches, each a read
 * of the records more).
 */
static size_t dirs_at_once(void)
{
	struct rlimit rl;
	rlim_t n;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return DIRS_AT_ONCE;
	n = rl.rlim_cur > 96 ? (rl.rlim_cur - 64) / 2 : 16;
	return n < DIRS_AT_ONCE ? n : DIRS_AT_ONCE;
}

static int alloc_fresh(struct fresh *f)
{
	size_t i, n = f->n ? f->n : 1;

	f->procs = calloc(n, sizeof(*f->procs));
	f->res = calloc(n, sizeof(*f->res));
	f->dirfds = calloc(n, sizeof(*f->dirfds));
	f->cgid = calloc(n, sizeof(*f->cgid));
	f->want_cg = calloc(n, sizeof(*f->want_cg));
	f->work = calloc(n, sizeof(*f->work));
	if (!f->procs || !f->res || !f->dirfds || !f->cgid || !f->want_cg ||
	    !f->work)
		return -ENOMEM;
	/* a slot never read is skipped, never packed as read */
	for (i = 0; i < f->n; i++) {
		f->res[i] = 1;
		f->dirfds[i] = -1;
	}
	return fp_cg_ids_init(&f->cg);
}

int fp_proc_snapshot_tasks_fresh(struct fp_proc_table *t,
				 const struct fp_tasks_src *src)
{
	struct fresh f = { .src = src, .cg = { .rootfd = -1 } };
	struct fp_proc_table nt = { 0 };
	struct fp_task_rec *kinds = NULL;
	size_t nkinds = 0, i;
	pid_t *pids = NULL;
	int ret;
	DIR *d;

	t->procs = NULL;
	t->n = 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	f.procfd = dirfd(d);
	ret = fp_proc_list_pids(d, FP_PROC_MAX, &pids, &f.n);
	if (!ret)
		ret = read_records(&f, &kinds, &nkinds);
	f.pids = pids;
	if (!ret)
		ret = alloc_fresh(&f);
	if (!ret)
		ret = sort_out(&f, kinds, nkinds);
	f.per_batch = dirs_at_once();
	for (f.base = 0; !ret && f.base < f.nwork; f.base += f.per_batch)
		ret = read_batch(&f);
	fp_cg_ids_free(&f.cg);
	nt.procs = f.procs;
	if (!ret)
		ret = fp_proc_table_pack(t, &nt, f.res, f.n);
	else
		for (i = 0; f.procs && i < f.n; i++)
			if (f.res[i] == 0)
				fp_proc_free_one(&f.procs[i]);
	fp_proc_table_free(&nt);
	free(f.res);
	free(f.dirfds);
	free(f.cgid);
	free(f.want_cg);
	free(f.work);
	free(kinds);
	free(pids);
	closedir(d);
	return ret;
}
