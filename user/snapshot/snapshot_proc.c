// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapshot_proc_int.h"

/* d_path() gives up at PATH_MAX, so a longer link is not a real one */
#define LINK_MAX_LEN (64 * 1024)

static bool gone(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

/* a piece that cannot be read is left empty, unless the process is gone */
static int tolerate(int err)
{
	return err == -ENOMEM || gone(err) ? err : 0;
}

static int set_bytes(struct fp_bytes *b, const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (!d)
		return -ENOMEM;
	memcpy(d, s, len);
	d[len] = '\0';
	free(b->data);
	b->data = d;
	b->len = len;
	return 0;
}

/* the receipt keeps FP_ARGV_KEEP bytes of a command line; one more shows
 * that it was cut. A command may start many processes with 2 MiB each. */
#define CMDLINE_MAX (FP_ARGV_KEEP + 1)

/*
 * /proc files report a size of 0 and may be longer than a page, so read to
 * EOF (or max bytes) into a growing buffer. stat, status and cgroup are
 * seq files of one record, made whole at the first read, which hands out
 * all of it that fits: a read shorter than asked is their end, and the
 * read that would return 0 is spared (one system call per file, three
 * per process and snapshot; SEQ_ONE). cmdline is read from the process's
 * memory, page by page: to EOF.
 */
#define SEQ_ONE SIZE_MAX /* as max: no bound, and a short read ends */

static int read_at(int dirfd, const char *name, struct fp_bytes *out,
		   size_t max)
{
	bool one = max == SEQ_ONE;
	size_t cap = 4096, len = 0, want;
	char *buf = NULL, *nb;
	ssize_t n;
	int fd, ret = 0;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (;;) {
		if (cap - len < 2) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				goto cleanup;
			}
			buf = nb;
			cap *= 2;
		}
		want = cap - len - 1 < max - len ? cap - len - 1 : max - len;
		n = read(fd, buf + len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto cleanup;
		}
		if (n == 0)
			break;
		len += n;
		if (len >= max || (one && (size_t)n < want))
			break;
	}
	buf[len] = '\0';
	/*
	 * Cut to size: a command line kept at a page each put every process
	 * of a table on a page of its own, and a fresh process's first
	 * table faulted in one a process (~4 ms of 370 on this VM).
	 */
	if (cap - len > 256 && (nb = realloc(buf, len + 1)))
		buf = nb;
	free(out->data);
	out->data = buf;
	out->len = len;
	buf = NULL;
cleanup:
	free(buf);
	close(fd);
	return ret;
}

static int readlink_at(int dirfd, const char *name, struct fp_bytes *out)
{
	size_t cap = 256;
	char *buf = NULL, *nb;
	ssize_t n;
	int ret = 0;

	for (;;) {
		nb = realloc(buf, cap);
		if (!nb) {
			ret = -ENOMEM;
			goto cleanup;
		}
		buf = nb;
		n = readlinkat(dirfd, name, buf, cap);
		if (n < 0) {
			ret = -errno;
			goto cleanup;
		}
		/* a full buffer may mean a truncated target */
		if ((size_t)n < cap)
			break;
		if (cap >= LINK_MAX_LEN) {
			ret = -ENAMETOOLONG;
			goto cleanup;
		}
		cap *= 2;
	}
	buf[n] = '\0';
	free(out->data);
	out->data = buf;
	out->len = n;
	buf = NULL;
cleanup:
	free(buf);
	return ret;
}

/*
 * comm may hold spaces and parentheses, but nothing after it can, so the
 * fixed fields are counted from the last ')'.
 */
static int parse_stat(struct fp_proc *p, const struct fp_bytes *st,
		      unsigned long *flags)
{
	const char *open = memchr(st->data, '(', st->len);
	const char *close = memrchr(st->data, ')', st->len);
	unsigned long long start;
	size_t n;
	int ppid;

	if (!open || !close || close < open)
		return -EINVAL;
	/* fields 3-9 (state ppid ... flags), 10-21 skipped, 22 starttime */
	if (sscanf(close + 1,
		   " %*c %d %*d %*d %*d %*d %lu"
		   " %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
		   &ppid, flags, &start) != 3)
		return -EINVAL;
	n = close - open - 1;
	/* kthread and workqueue names in stat may exceed TASK_COMM_LEN */
	if (n > sizeof(p->comm) - 1)
		n = sizeof(p->comm) - 1;
	memcpy(p->comm, open + 1, n);
	p->comm[n] = '\0';
	p->ppid = ppid;
	p->start_ticks = start;
	return 0;
}

/* status escapes the name, so every line of it ends at a '\n' */
static void parse_status(struct fp_proc *p, const char *s)
{
	const char *nl;

	for (; *s; s = nl + 1) {
		if (!strncmp(s, "Uid:", 4))
			p->uid = strtoul(s + 4, NULL, 10);
		else if (!strncmp(s, "CapEff:", 7))
			p->cap_eff = strtoull(s + 7, NULL, 16);
		else if (!strncmp(s, "NoNewPrivs:", 11))
			p->no_new_privs = strtol(s + 11, NULL, 10);
		nl = strchr(s, '\n');
		if (!nl)
			break;
	}
}

/* does a cgroup line ("N:controllers:path") start at s? */
static bool hierarchy_line(const char *s, const char *end)
{
	const char *d = s;

	while (d < end && *d >= '0' && *d <= '9')
		d++;
	return d > s && d < end && *d == ':';
}

/*
 * A cgroup name may hold '\n', so the v2 path runs to the next line that
 * names a hierarchy, not merely to the next newline.
 */
static int parse_cgroup(struct fp_proc *p, const struct fp_bytes *cg)
{
	const char *s = cg->data, *end = cg->data + cg->len, *v, *e;

	while (s < end) {
		if (end - s >= 3 && !memcmp(s, "0::", 3))
			break;
		s = memchr(s, '\n', end - s);
		if (!s)
			return 0;
		s++;
	}
	if (s >= end)
		return 0;
	v = s + 3;
	for (e = v; e < end; e++) {
		if (*e == '\n' && (e + 1 == end || hierarchy_line(e + 1, end)))
			break;
	}
	return set_bytes(&p->cgroup, v, e - v);
}

static void proc_free(struct fp_proc *p)
{
	free(p->exe.data);
	free(p->cwd.data);
	free(p->argv.data);
	free(p->cgroup.data);
	memset(p, 0, sizeof(*p));
}

/* an unreadable link is left empty; only ENOMEM is worth failing for */
static int read_link_piece(int dirfd, const char *name, struct fp_bytes *b,
			   int *err)
{
	int ret = readlink_at(dirfd, name, b);

	if (ret == -ENOMEM)
		return ret;
	*err = ret;
	return 0;
}

static bool same_bytes(const struct fp_bytes *a, const struct fp_bytes *b)
{
	return a->len == b->len &&
	       (!a->len || !memcmp(a->data, b->data, a->len));
}

/*
 * A process of the earlier table, the same one (pid and start time) in
 * the same cgroup: what was read of it then is taken for what it is now,
 * with its stat (ppid, comm) and cgroup read anew. 1 if so, 0, or
 * -ENOMEM. reconcile_procs.c reads exe and argv of after-records only for new
 * processes and for leftovers, and uid, cwd and capabilities of none. A
 * leftover is in the run's cgroup, which was empty when the before table
 * was read, so a process that joined it is read afresh.
 */
static int carry(struct fp_proc *p, const struct fp_proc_table *prev)
{
	const struct fp_proc *q = prev ? fp_proc_find(prev, p->pid) : NULL;

	if (!q || !fp_proc_same(p, q) || !same_bytes(&p->cgroup, &q->cgroup))
		return 0;
	p->uid = q->uid;
	p->cap_eff = q->cap_eff;
	p->no_new_privs = q->no_new_privs;
	if (set_bytes(&p->exe, q->exe.data, q->exe.len) ||
	    set_bytes(&p->cwd, q->cwd.data, q->cwd.len) ||
	    set_bytes(&p->argv, q->argv.data, q->argv.len))
		return -ENOMEM;
	return 1;
}

/*
 * The pieces of a process named by paths: argv, exe and cwd, through
 * dirfd (its /proc/PID). 0, 1 if it is gone (reaped), or -errno of a
 * failure to read its argv. A zombie or a kernel thread has no exe or
 * cwd (ENOENT), nor does a process that was reaped meanwhile: its stat,
 * read again, tells which.
 */
static int read_named(int dirfd, struct fp_proc *p)
{
	struct fp_bytes buf = { 0 };
	int ret, exe_err = 0, cwd_err = 0;

	ret = tolerate(read_at(dirfd, "cmdline", &p->argv, CMDLINE_MAX));
	if (ret)
		return ret;
	ret = read_link_piece(dirfd, "exe", &p->exe, &exe_err);
	if (!ret)
		ret = read_link_piece(dirfd, "cwd", &p->cwd, &cwd_err);
	if (ret)
		return ret;
	if (gone(exe_err) || gone(cwd_err))
		ret = tolerate(read_at(dirfd, "stat", &buf, SEQ_ONE));
	free(buf.data);
	return ret;
}

/*
 * Fill p from its /proc/PID, dirfd (left open): the fd pins the process,
 * so a pid reused mid-read fails with ESRCH/ENOENT instead of mixing two
 * processes. Returns 1 when the process is gone and should be skipped.
 * A process of prev is read in part (carry()).
 */
static int read_proc_at(int dirfd, pid_t pid, struct fp_proc *p,
			const struct fp_proc_table *prev)
{
	struct fp_bytes buf = { 0 };
	unsigned long flags = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->uid = (uint32_t)-1;
	p->no_new_privs = -1;
	ret = read_at(dirfd, "stat", &buf, SEQ_ONE);
	if (!ret)
		ret = parse_stat(p, &buf, &flags);
	/* without stat there is no identity to report */
	if (ret)
		goto cleanup;
	p->kernel_thread = flags & FP_PF_KTHREAD;
	/*
	 * Nothing more of a kernel thread is judged (reconcile_procs.c skips
	 * them), and they are most of a small machine's processes: their
	 * identity is all a snapshot keeps, at a fifth of the reads.
	 */
	if (p->kernel_thread)
		goto cleanup;

	ret = read_at(dirfd, "cgroup", &buf, SEQ_ONE);
	if (!ret)
		ret = parse_cgroup(p, &buf);
	ret = tolerate(ret);
	if (ret)
		goto cleanup;
	ret = carry(p, prev);
	if (ret) {
		ret = ret < 0 ? ret : 0;
		goto cleanup;
	}

	ret = read_at(dirfd, "status", &buf, SEQ_ONE);
	if (!ret)
		parse_status(p, buf.data);
	ret = tolerate(ret);
	if (!ret)
		ret = read_named(dirfd, p);

cleanup:
	free(buf.data);
	if (ret && ret != -ENOMEM)
		ret = 1;
	if (ret)
		proc_free(p);
	return ret;
}

int fp_proc_open_dir(int procfd, pid_t pid, int *fd)
{
	char name[16];
	int ret;

	snprintf(name, sizeof(name), "%d", (int)pid);
	*fd = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	ret = -errno;
	/* hidden or gone: skip; out of fds or memory: give up */
	return gone(ret) || ret == -EACCES || ret == -EPERM ? 1 : ret;
}

/* an empty piece still gets a buffer, so data is always a C string */
static int fill_empty(struct fp_proc *p)
{
	struct fp_bytes *b[] = { &p->exe, &p->cwd, &p->argv, &p->cgroup };
	size_t i;

	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		if (!b[i]->data && set_bytes(b[i], "", 0))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct fp_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int fp_proc_list_pids(DIR *d, size_t max, pid_t **out, size_t *n)
{
	size_t cap = 0;
	struct dirent *de;
	pid_t *np;
	char *end;
	long pid;

	*out = NULL;
	*n = 0;
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			return -errno;
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (*n >= max)
			return -E2BIG;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			np = realloc(*out, cap * sizeof(*np));
			if (!np)
				return -ENOMEM;
			*out = np;
		}
		(*out)[(*n)++] = pid;
	}
}

/* read_proc_at() made whole: complete (fill_empty) or freed */
static int read_whole(int dirfd, pid_t pid, struct fp_proc *p,
		      const struct fp_proc_table *prev)
{
	int ret = read_proc_at(dirfd, pid, p, prev);

	if (!ret)
		ret = fill_empty(p);
	if (ret < 0)
		proc_free(p);
	return ret;
}

int fp_proc_read_dir(int dirfd, pid_t pid, struct fp_proc *p)
{
	return read_whole(dirfd, pid, p, NULL);
}

static int read_pid(int procfd, pid_t pid, struct fp_proc *p,
		    const struct fp_proc_table *prev)
{
	int fd, ret = fp_proc_open_dir(procfd, pid, &fd);

	if (ret)
		return ret;
	ret = read_whole(fd, pid, p, prev);
	close(fd);
	return ret;
}

int fp_proc_read_named(int dirfd, struct fp_proc *p)
{
	int ret = read_named(dirfd, p);

	if (!ret)
		ret = fill_empty(p);
	if (ret && ret != -ENOMEM)
		ret = 1;
	if (ret)
		proc_free(p);
	return ret;
}

int fp_proc_read_cgroup(int dirfd, struct fp_proc *p)
{
	struct fp_bytes buf = { 0 };
	int ret = read_at(dirfd, "cgroup", &buf, SEQ_ONE);

	if (!ret)
		ret = parse_cgroup(p, &buf);
	free(buf.data);
	ret = tolerate(ret);
	return ret && ret != -ENOMEM ? 1 : ret;
}

int fp_proc_fill_empty(struct fp_proc *p)
{
	int ret = fill_empty(p);

	if (ret)
		proc_free(p);
	return ret;
}

int fp_proc_set_bytes(struct fp_bytes *b, const char *s, size_t len)
{
	return set_bytes(b, s, len);
}

/* every stride-th index from first, handed to one() */
struct share {
	void (*one)(void *ctx, size_t i);
	void *ctx;
	size_t n, first, stride;
};

static void *run_share(void *arg)
{
	const struct share *sh = arg;
	size_t i;

	for (i = sh->first; i < sh->n; i += sh->stride)
		sh->one(sh->ctx, i);
	return NULL;
}

/* a share per thread, for this many processes each at the least */
#define PROCS_PER_THREAD 32
#define PROC_THREADS 4

/*
 * A run reads the process table twice, six /proc files per process: one
 * after another, 1.5 ms for this machine's 66 processes and 29 ms for
 * 366, while the other CPUs idled. The processes are read in shares, a
 * thread each, interleaved by pid so that every share gets its part of
 * the kernel threads (one file each, at the low pids) and of the rest.
 */
void fp_proc_shares(size_t n, void (*one)(void *ctx, size_t i), void *ctx)
{
	struct share sh[PROC_THREADS];
	pthread_t tids[PROC_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t k = n / PROCS_PER_THREAD, t, started = 1;

	if (cpus > 0 && k > (size_t)cpus)
		k = cpus;
	if (k > PROC_THREADS)
		k = PROC_THREADS;
	if (k < 1)
		k = 1;
	for (t = 0; t < k; t++)
		sh[t] = (struct share){
			.one = one, .ctx = ctx, .n = n, .first = t, .stride = k
		};
	/* a thread that cannot start leaves its share to this one */
	for (t = 1; t < k; t++) {
		if (pthread_create(&tids[t], NULL, run_share, &sh[t]))
			break;
		started++;
	}
	for (t = started; t < k; t++)
		run_share(&sh[t]);
	run_share(&sh[0]);
	for (t = 1; t < started; t++)
		pthread_join(tids[t], NULL);
}

struct read_all {
	int procfd;
	const struct fp_proc_table *prev;
	const pid_t *pids;
	struct fp_proc *procs;
	int *res;
	const size_t *idx; /* which of them, or NULL: all */
};

static void read_one(void *ctx, size_t j)
{
	const struct read_all *ra = ctx;
	size_t i = ra->idx ? ra->idx[j] : j;

	ra->res[i] = read_pid(ra->procfd, ra->pids[i], &ra->procs[i], ra->prev);
}

void fp_proc_read_these(int procfd, const struct fp_proc_table *prev,
			const pid_t *pids, struct fp_proc *procs, int *res,
			const size_t *idx, size_t k)
{
	fp_proc_shares(
		k, read_one,
		&(struct read_all){ procfd, prev, pids, procs, res, idx });
}

int fp_proc_snapshot_max(struct fp_proc_table *t,
			 const struct fp_proc_table *prev, size_t max)
{
	struct fp_proc_table nt = { 0 };
	pid_t *pids = NULL;
	int *res = NULL;
	size_t n = 0, i;
	DIR *d;
	int ret;

	t->procs = NULL;
	t->n = 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	ret = fp_proc_list_pids(d, max, &pids, &n);
	if (ret || !n)
		goto cleanup;
	nt.procs = calloc(n, sizeof(*nt.procs));
	res = calloc(n, sizeof(*res));
	if (!nt.procs || !res) {
		ret = -ENOMEM;
		goto cleanup;
	}
	/* a slot no share reached is skipped, never packed as read */
	for (i = 0; i < n; i++)
		res[i] = 1;
	fp_proc_read_these(dirfd(d), prev, pids, nt.procs, res, NULL, n);
	/* /proc lists pids in order today, but nothing promises it */
	ret = fp_proc_table_pack(t, &nt, res, n);
cleanup:
	fp_proc_table_free(&nt);
	free(res);
	free(pids);
	closedir(d);
	return ret;
}

int fp_proc_table_pack(struct fp_proc_table *t, struct fp_proc_table *nt,
		       const int *res, size_t n)
{
	size_t i;
	int ret = 0;

	nt->n = 0;
	/* the processes read, packed; the gone (1) are skipped */
	for (i = 0; i < n; i++) {
		if (res[i] < 0 && !ret)
			ret = res[i];
		if (res[i] == 0)
			nt->procs[nt->n++] = nt->procs[i];
	}
	if (ret)
		return ret;
	qsort(nt->procs, nt->n, sizeof(*nt->procs), cmp_pid);
	*t = *nt;
	nt->procs = NULL;
	nt->n = 0;
	return 0;
}

int fp_proc_copy(struct fp_proc *p, const struct fp_proc *q)
{
	*p = *q;
	p->exe = p->cwd = p->argv = p->cgroup = (struct fp_bytes){ 0 };
	if (set_bytes(&p->exe, q->exe.data, q->exe.len) ||
	    set_bytes(&p->cwd, q->cwd.data, q->cwd.len) ||
	    set_bytes(&p->argv, q->argv.data, q->argv.len) ||
	    set_bytes(&p->cgroup, q->cgroup.data, q->cgroup.len)) {
		proc_free(p);
		return -ENOMEM;
	}
	return 0;
}

void fp_proc_free_one(struct fp_proc *p)
{
	proc_free(p);
}

int fp_proc_snapshot_since(struct fp_proc_table *t,
			   const struct fp_proc_table *prev)
{
	return fp_proc_snapshot_max(t, prev, FP_PROC_MAX);
}

int fp_proc_snapshot(struct fp_proc_table *t)
{
	return fp_proc_snapshot_max(t, NULL, FP_PROC_MAX);
}

int fp_proc_snapshot_refresh(struct fp_proc_table *t)
{
	struct fp_proc_table nt = { 0 };
	bool *kept = NULL;
	pid_t *pids = NULL;
	size_t n = 0, i;
	int ret;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -errno;
	ret = fp_proc_list_pids(d, FP_PROC_MAX, &pids, &n);
	if (ret)
		goto cleanup;
	nt.procs = calloc(n ? n : 1, sizeof(*nt.procs));
	kept = calloc(t->n ? t->n : 1, sizeof(*kept));
	if (!nt.procs || !kept) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		const struct fp_proc *q = fp_proc_find(t, pids[i]);
		struct fp_proc *p = &nt.procs[nt.n];

		if (q) {
			kept[q - t->procs] = true;
			*p = *q;
			nt.n++;
			continue;
		}
		ret = read_pid(dirfd(d), pids[i], p, NULL);
		if (ret < 0)
			goto cleanup;
		if (!ret)
			nt.n++;
		ret = 0;
	}
	/* what t held and /proc no longer lists goes; the rest moved */
	for (i = 0; i < t->n; i++)
		if (!kept[i])
			proc_free(&t->procs[i]);
	free(t->procs);
	qsort(nt.procs, nt.n, sizeof(*nt.procs), cmp_pid);
	*t = nt;
	nt.procs = NULL;
	nt.n = 0;
cleanup:
	/* on failure nt holds t's entries too: only the new ones are nt's */
	for (i = 0; nt.procs && i < nt.n; i++)
		if (!fp_proc_find(t, nt.procs[i].pid))
			proc_free(&nt.procs[i]);
	free(nt.procs);
	free(kept);
	free(pids);
	closedir(d);
	return ret;
}

void fp_proc_table_free(struct fp_proc_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		proc_free(&t->procs[i]);
	free(t->procs);
	t->procs = NULL;
	t->n = 0;
}

const struct fp_proc *fp_proc_find(const struct fp_proc_table *t, pid_t pid)
{
	struct fp_proc key = { .pid = pid };

	if (!t->n)
		return NULL;
	return bsearch(&key, t->procs, t->n, sizeof(*t->procs), cmp_pid);
}

bool fp_proc_same(const struct fp_proc *a, const struct fp_proc *b)
{
	return a->pid == b->pid && a->start_ticks == b->start_ticks;
}
