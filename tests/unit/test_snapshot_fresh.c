// SPDX-License-Identifier: GPL-2.0
/*
 * fp_proc_snapshot_tasks_fresh with the task iterator's records made
 * here and handed over through pipes, one a read of the records, against
 * the live /proc: what it takes from a record, what it reads from /proc,
 * and how many times it reads the records.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "footprint.h"
#include "snapshot_proc.h"
#include "unit_util.h"

#define PF_KTHREAD 0x00200000U

/* the records each read gives, and how many reads there were */
struct feed {
	const struct fp_task_rec *kinds; /* the first read's */
	size_t nkinds;
	const struct fp_task_rec *recs; /* every later read's */
	size_t nrecs;
	int opens;
	int fail; /* -errno for every open, or 0 */
};

static int feed_open(void *ctx)
{
	struct feed *f = ctx;
	const struct fp_task_rec *r = f->opens ? f->recs : f->kinds;
	size_t n = f->opens ? f->nrecs : f->nkinds;
	int fds[2];

	f->opens++;
	if (f->fail)
		return f->fail;
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], r, n * sizeof(*r)),
		     (ssize_t)(n * sizeof(*r)));
	close(fds[1]);
	return fds[0];
}

static int fresh(struct feed *f, struct fp_proc_table *t)
{
	struct fp_tasks_src src = { feed_open, f };

	return fp_proc_snapshot_tasks_fresh(t, &src);
}

/* this process as a record would have it, with values /proc cannot have */
static struct fp_task_rec planted(void)
{
	struct fp_task_rec r = { 0 };
	struct fp_proc_table t;
	char cg[4096];
	uint64_t id;

	cr_assert_eq(fp_proc_snapshot(&t), 0);
	r.pid = getpid();
	r.ppid = 4242;
	r.start_ns = fp_proc_find(&t, getpid())->start_ticks *
		     (1000000000ULL / sysconf(_SC_CLK_TCK));
	own_cgroup(cg, sizeof(cg), &id);
	r.cgroup_id = id;
	r.uid = 4242;
	r.cap_eff = 0x42;
	r.no_new_privs = 1;
	strcpy(r.comm, "fromiter");
	fp_proc_table_free(&t);
	return r;
}

static void assert_bytes(const struct fp_bytes *b, const char *s,
			 const char *what)
{
	cr_assert_eq(b->len, strlen(s), "%s: %.*s", what, (int)b->len, b->data);
	cr_assert_eq(memcmp(b->data, s, b->len), 0, "%s", what);
}

/* identity and credentials from the record; argv, exe, cwd from /proc */
Test(snapshot_fresh, a_record_gives_what_proc_would_have_read)
{
	struct fp_task_rec r = planted();
	struct feed f = { .kinds = &r, .nkinds = 1, .recs = &r, .nrecs = 1 };
	char exe[PATH_MAX], cwd[PATH_MAX], cg[4096];
	struct fp_proc_table t;
	const struct fp_proc *p;
	uint64_t id;
	ssize_t n;

	cr_assert_eq(fresh(&f, &t), 0);
	p = fp_proc_find(&t, getpid());
	cr_assert_not_null(p);
	cr_assert_eq(p->ppid, 4242);
	cr_assert_eq(p->uid, 4242);
	cr_assert_eq(p->cap_eff, 0x42);
	cr_assert_eq(p->no_new_privs, 1);
	cr_assert_str_eq(p->comm, "fromiter");
	cr_assert_not(p->kernel_thread);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = '\0';
	assert_bytes(&p->exe, exe, "exe");
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	assert_bytes(&p->cwd, cwd, "cwd");
	cr_assert_gt(p->argv.len, 0);
	own_cgroup(cg, sizeof(cg), &id);
	assert_bytes(&p->cgroup, cg, "cgroup");
	/* pid 1 has no record here: read whole from /proc */
	p = fp_proc_find(&t, 1);
	cr_assert_not_null(p);
	cr_assert_neq(p->uid, 4242);
	cr_assert_eq(f.opens, 2, "a read for the kinds, one for the batch");
	fp_proc_table_free(&t);
}

/* a cgroup the record names but /proc's path does not match: /proc's */
Test(snapshot_fresh, a_cgroup_is_the_path_proc_gives)
{
	struct fp_task_rec r = planted();
	struct feed f = { .kinds = &r, .nkinds = 1, .recs = &r, .nrecs = 1 };
	struct fp_proc_table t;
	char cg[4096];
	uint64_t id;

	r.cgroup_id = 0x7fff0001;
	cr_assert_eq(fresh(&f, &t), 0);
	own_cgroup(cg, sizeof(cg), &id);
	assert_bytes(&fp_proc_find(&t, getpid())->cgroup, cg, "cgroup");
	fp_proc_table_free(&t);
}

/*
 * A kernel thread by the first records' word is its record alone: no
 * file of it is read (this process has an exe, which stays empty).
 */
Test(snapshot_fresh, a_kernel_thread_is_its_record)
{
	struct fp_task_rec r = planted();
	struct feed f = { .kinds = &r, .nkinds = 1, .recs = &r, .nrecs = 1 };
	struct fp_proc_table t;
	const struct fp_proc *p;

	r.flags = PF_KTHREAD;
	cr_assert_eq(fresh(&f, &t), 0);
	p = fp_proc_find(&t, getpid());
	cr_assert_not_null(p);
	cr_assert(p->kernel_thread);
	cr_assert_str_eq(p->comm, "fromiter");
	cr_assert_eq(p->exe.len, 0);
	cr_assert_eq(p->argv.len, 0);
	cr_assert_not_null(p->exe.data, "an empty piece is still a string");
	cr_assert_eq(p->uid, (uint32_t)-1, "unknown, as /proc leaves it");
	cr_assert_eq(p->no_new_privs, -1);
	fp_proc_table_free(&t);
}

/*
 * Not a kernel thread at first, one by the batch's records: read whole
 * from /proc, which says what it is.
 */
Test(snapshot_fresh, records_that_disagree_leave_it_to_proc)
{
	struct fp_task_rec r = planted(), k;
	struct feed f = { .kinds = &r, .nkinds = 1, .recs = &k, .nrecs = 1 };
	struct fp_proc_table t;
	const struct fp_proc *p;

	k = r;
	k.flags = PF_KTHREAD;
	cr_assert_eq(fresh(&f, &t), 0);
	p = fp_proc_find(&t, getpid());
	cr_assert_not(p->kernel_thread);
	cr_assert_eq(p->uid, getuid());
	cr_assert_neq(p->ppid, 4242);
	cr_assert_gt(p->exe.len, 0);
	fp_proc_table_free(&t);
}

/* a record of a pid /proc does not list adds no process */
Test(snapshot_fresh, the_listing_decides_which_processes_there_are)
{
	struct fp_task_rec r[2] = { planted(), planted() };
	struct feed f = { .kinds = r, .nkinds = 2, .recs = r, .nrecs = 2 };
	struct fp_proc_table t;

	r[0].pid = 0x3ffffff0; /* above any pid_max: never listed */
	cr_assert_eq(fresh(&f, &t), 0);
	cr_assert_null(fp_proc_find(&t, 0x3ffffff0));
	cr_assert_eq(fp_proc_find(&t, getpid())->uid, 4242);
	fp_proc_table_free(&t);
}

/* no iterator to be had: its error, and no table */
Test(snapshot_fresh, the_sources_failure_is_returned)
{
	struct feed f = { .fail = -EPERM };
	struct fp_proc_table t = { 0 };

	cr_assert_eq(fresh(&f, &t), -EPERM);
	cr_assert_eq(t.n, 0);
	cr_assert_null(t.procs);
}
