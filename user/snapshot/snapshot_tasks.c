// SPDX-License-Identifier: GPL-2.0
/*
 * The after table from the tracer's task iterator (proctab.bpf.c): one
 * read gives every process's pid, parent, start time, cgroup and flags.
 * A process of the before table, the same one (pid and start time) in
 * the same cgroup, is taken from it as it was, its parent and name from
 * the iterator: no /proc file of it is opened. The rest (new processes,
 * those that moved) are read from /proc as fp_proc_snapshot_since()
 * reads them. On this VM /proc/PID/stat and cgroup cost ~30 us a process,
 * 2.7 ms of a run's 66 and 9.2 ms of 366; the iterator ~40 us for all.
 *
 * Which processes there are is still /proc's word (a listing of it):
 * the iterator need not show every one /proc does (this VM's pid 1 it
 * never does). Its pids are the initial pid namespace's, its start times
 * the kernel's own (/proc adds a time namespace's offset), and a cgroup
 * is known by its id: in a pid or time namespace of its own, footprint
 * reads /proc alone (fp_proc_tasks_usable()), and a process missing from the
 * iterator, or whose start time or cgroup does not match, is read from
 * /proc, never the other way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "snapshot_proc_int.h"

/* /proc/self/ns/{pid,time} of the initial namespaces (PROC_*_INIT_INO) */
#define INIT_PIDNS_INO 0xEFFFFFFCULL
#define INIT_TIMENS_INO 0xEFFFFFFAULL

bool fp_proc_tasks_usable(void)
{
	struct stat st;

	/* FOOTPRINT_DEBUG_PROC_READS=1: /proc alone, for tests that hold
	 * the two ways against each other on one machine */
	if (getenv("FOOTPRINT_DEBUG_PROC_READS"))
		return false;
	if (stat("/proc/self/ns/pid", &st) || st.st_ino != INIT_PIDNS_INO)
		return false;
	/*
	 * /proc adds the reader's time namespace's boot-time offset to a
	 * start time, the iterator does not: a table read partly each way
	 * would see every process it read from /proc as another one. A
	 * kernel without time namespaces has no such file.
	 */
	return stat("/proc/self/ns/time", &st) ? errno == ENOENT :
						 st.st_ino == INIT_TIMENS_INO;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct fp_task_rec *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int fp_tasks_read(int fd, size_t max, struct fp_task_rec **out, size_t *n)
{
	size_t cap = 256 * sizeof(**out), len = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (cap - len < sizeof(**out)) {
			if (cap / sizeof(**out) >= max) {
				free(buf);
				return -E2BIG;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -errno;
		}
		if (r == 0)
			break;
		len += r;
	}
	*out = (struct fp_task_rec *)buf;
	*n = len / sizeof(**out);
	/* in pid order as the kernel walks them; sorted, to be sure */
	qsort(*out, *n, sizeof(**out), cmp_rec);
	return 0;
}

const struct fp_task_rec *fp_tasks_find(const struct fp_task_rec *recs,
					size_t n, pid_t pid)
{
	struct fp_task_rec key = { .pid = pid };

	return n ? bsearch(&key, recs, n, sizeof(*recs), cmp_rec) : NULL;
}

int fp_cg_ids_init(struct fp_cg_ids *c)
{
	char mnt[4096];

	memset(c, 0, sizeof(*c));
	c->rootfd = -1;
	c->cap = 256;
	c->paths = calloc(c->cap, sizeof(*c->paths));
	c->ids = calloc(c->cap, sizeof(*c->ids));
	if (!c->paths || !c->ids) {
		fp_cg_ids_free(c);
		return -ENOMEM;
	}
	if (!fp_cgroup_mountpoint(mnt, sizeof(mnt)))
		c->rootfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return 0;
}

void fp_cg_ids_free(struct fp_cg_ids *c)
{
	if (c->rootfd >= 0)
		close(c->rootfd);
	free(c->paths);
	free(c->ids);
	memset(c, 0, sizeof(*c));
	c->rootfd = -1;
}

const struct fp_bytes *fp_cg_path_of(const struct fp_cg_ids *c, uint64_t id)
{
	size_t i;

	for (i = 0; id && i < c->n; i++)
		if (c->ids[i] == id)
			return c->paths[i];
	return NULL;
}

uint64_t fp_cg_id_of(struct fp_cg_ids *c, const struct fp_bytes *path)
{
	struct stat st;
	uint64_t id = 0;
	size_t i;

	if (c->rootfd < 0 || !path->len || path->data[0] != '/')
		return 0;
	for (i = 0; i < c->n; i++)
		if (c->paths[i]->len == path->len &&
		    !memcmp(c->paths[i]->data, path->data, path->len))
			return c->ids[i];
	if (path->len == 1 ? !fstat(c->rootfd, &st) :
			     !fstatat(c->rootfd, path->data + 1, &st,
				      AT_SYMLINK_NOFOLLOW))
		id = S_ISDIR(st.st_mode) ? st.st_ino : 0;
	/* remembered when there is room: looked up again otherwise */
	if (c->n < c->cap) {
		c->paths[c->n] = path;
		c->ids[c->n++] = id;
	}
	return id;
}

uint64_t fp_task_ticks(uint64_t ns)
{
	static uint64_t ns_per_tick;
	long hz;

	if (!ns_per_tick) {
		hz = sysconf(_SC_CLK_TCK);
		ns_per_tick = hz > 0 ? 1000000000ULL / hz : 10000000ULL;
	}
	return ns / ns_per_tick;
}

/*
 * pid's process as prev has it, if the iterator's record r (or none)
 * says it is that one, where it was: taken (0), or not (1), -ENOMEM
 */
static int take(struct fp_proc *p, pid_t pid, const struct fp_task_rec *r,
		const struct fp_proc_table *prev, struct fp_cg_ids *cg)
{
	const struct fp_proc *q = r ? fp_proc_find(prev, pid) : NULL;
	bool kthread = r && (r->flags & FP_PF_KTHREAD);

	if (!q || q->start_ticks != fp_task_ticks(r->start_ns) ||
	    q->kernel_thread != kthread)
		return 1;
	/* a kernel thread's cgroup is not read (nor judged) */
	if (!kthread &&
	    (!r->cgroup_id || fp_cg_id_of(cg, &q->cgroup) != r->cgroup_id))
		return 1;
	if (fp_proc_copy(p, q))
		return -ENOMEM;
	p->ppid = r->ppid;
	/* a kernel thread's name in /proc is longer (a workqueue's) */
	if (!kthread) {
		memcpy(p->comm, r->comm, sizeof(r->comm));
		p->comm[sizeof(r->comm)] = '\0';
	}
	return 0;
}

/* the listed processes not taken (res 1), read from /proc in place */
static int read_rest(int procfd, const pid_t *listed, size_t n,
		     const struct fp_proc_table *prev, struct fp_proc *procs,
		     int *res)
{
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));
	size_t i, k = 0;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (res[i] == 1)
			idx[k++] = i;
	fp_proc_read_these(procfd, prev, listed, procs, res, idx, k);
	free(idx);
	return 0;
}

/* each listed pid taken by its record, or left to read_rest (res 1) */
static int take_all(const pid_t *pids, size_t n, const struct fp_task_rec *recs,
		    size_t nrecs, const struct fp_proc_table *prev,
		    struct fp_proc *procs, int *res)
{
	struct fp_cg_ids cg;
	size_t i;
	int ret = fp_cg_ids_init(&cg);

	for (i = 0; i < n && !ret; i++) {
		res[i] = take(&procs[i], pids[i],
			      fp_tasks_find(recs, nrecs, pids[i]), prev, &cg);
		ret = res[i] < 0 ? res[i] : 0;
	}
	fp_cg_ids_free(&cg);
	return ret;
}

int fp_proc_snapshot_tasks(struct fp_proc_table *t,
			   const struct fp_proc_table *prev, int tasks_fd)
{
	struct fp_task_rec *recs = NULL;
	struct fp_proc_table nt = { 0 };
	size_t n = 0, nrecs = 0, i;
	pid_t *pids = NULL;
	int *res = NULL, ret;
	DIR *d;

	t->procs = NULL;
	t->n = 0;
	ret = fp_tasks_read(tasks_fd, FP_PROC_MAX, &recs, &nrecs);
	if (ret)
		return ret;
	d = opendir("/proc");
	if (!d) {
		free(recs);
		return -errno;
	}
	ret = fp_proc_list_pids(d, FP_PROC_MAX, &pids, &n);
	if (ret)
		goto cleanup;
	nt.procs = calloc(n ? n : 1, sizeof(*nt.procs));
	res = calloc(n ? n : 1, sizeof(*res));
	if (!nt.procs || !res) {
		ret = -ENOMEM;
		goto cleanup;
	}
	ret = take_all(pids, n, recs, nrecs, prev, nt.procs, res);
	if (!ret)
		ret = read_rest(dirfd(d), pids, n, prev, nt.procs, res);
	if (ret) {
		for (i = 0; i < n; i++)
			if (res[i] == 0)
				fp_proc_free_one(&nt.procs[i]);
		goto cleanup;
	}
	ret = fp_proc_table_pack(t, &nt, res, n);
cleanup:
	fp_proc_table_free(&nt);
	closedir(d);
	free(pids);
	free(res);
	free(recs);
	return ret;
}
