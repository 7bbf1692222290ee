// SPDX-License-Identifier: GPL-2.0
/*
 * fp_proc_snapshot_tasks with the task iterator's records made here and
 * fed through a pipe, against the live /proc: what a record lets it take
 * from the earlier table, and what it reads afresh.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "footprint.h"
#include "snapshot_proc.h"
#include "unit_util.h"

#define PF_KTHREAD 0x00200000U

/* this process as a record would have it, and its earlier table entry */
struct self_case {
	struct fp_task_rec rec;
	struct fp_proc mine;
	char comm[17];
};

static uint64_t own_cgroup_id(void)
{
	char path[4096];
	uint64_t id;

	own_cgroup(path, sizeof(path), &id);
	return id;
}

static void setup_case(struct self_case *c, struct fp_proc_table *t0)
{
	static char planted[] = "/planted/exe";
	const struct fp_proc *p;

	memset(c, 0, sizeof(*c));
	prctl(PR_GET_NAME, c->comm, 0, 0, 0);
	cr_assert_eq(fp_proc_snapshot(t0), 0);
	p = fp_proc_find(t0, getpid());
	cr_assert_not_null(p);
	c->mine = *p;
	c->mine.exe = bytes(planted, strlen(planted));
	c->rec.pid = getpid();
	c->rec.ppid = 4242;
	c->rec.start_ns =
		c->mine.start_ticks * (1000000000ULL / sysconf(_SC_CLK_TCK));
	c->rec.cgroup_id = own_cgroup_id();
	strcpy(c->rec.comm, "fromiter");
}

/* the table since prev = {c->mine} with these records, and our entry */
static struct fp_proc since(struct self_case *c, const struct fp_task_rec *recs,
			    size_t n, struct fp_proc_table *t)
{
	struct fp_proc_table prev = { .procs = &c->mine, .n = 1 };
	const struct fp_proc *p;
	int fds[2];

	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], recs, n * sizeof(*recs)),
		     (ssize_t)(n * sizeof(*recs)));
	close(fds[1]);
	cr_assert_eq(fp_proc_snapshot_tasks(t, &prev, fds[0]), 0);
	close(fds[0]);
	p = fp_proc_find(t, getpid());
	cr_assert_not_null(p, "this process is listed in /proc");
	return *p;
}

/*
 * Read from /proc, not from the record: its stat's name and parent. (What
 * /proc then finds the same as the earlier entry is carried over as
 * fp_proc_snapshot_since() does: the planted exe stays.)
 */
static void assert_read_afresh(const struct self_case *c,
			       const struct fp_proc *p, const char *why)
{
	cr_assert_str_eq(p->comm, c->comm, "%s: comm from /proc", why);
	cr_assert_eq(p->ppid, getppid(), "%s: ppid from /proc", why);
}

/* the same process in the same cgroup: taken, its parent and name anew */
Test(snapshot_tasks, a_matching_record_takes_the_earlier_entry)
{
	struct fp_proc_table t0, t;
	struct self_case c;
	struct fp_proc p;

	setup_case(&c, &t0);
	p = since(&c, &c.rec, 1, &t);
	cr_assert_eq(p.exe.len, strlen("/planted/exe"));
	cr_assert_eq(memcmp(p.exe.data, "/planted/exe", p.exe.len), 0);
	cr_assert_str_eq(p.comm, "fromiter");
	cr_assert_eq(p.ppid, 4242);
	cr_assert_eq(p.cgroup.len, c.mine.cgroup.len);
	fp_proc_table_free(&t);
	free(c.mine.exe.data);
	fp_proc_table_free(&t0);
}

Test(snapshot_tasks, another_start_cgroup_or_kind_is_read_afresh)
{
	struct fp_proc_table t0, t;
	struct fp_task_rec r;
	struct self_case c;
	struct fp_proc p;

	setup_case(&c, &t0);
	r = c.rec;
	r.start_ns += 1000000000ULL / sysconf(_SC_CLK_TCK);
	p = since(&c, &r, 1, &t);
	assert_read_afresh(&c, &p, "a pid taken again");
	fp_proc_table_free(&t);

	r = c.rec;
	r.cgroup_id++;
	p = since(&c, &r, 1, &t);
	assert_read_afresh(&c, &p, "moved to another cgroup");
	fp_proc_table_free(&t);

	r = c.rec;
	r.cgroup_id = 0;
	p = since(&c, &r, 1, &t);
	assert_read_afresh(&c, &p, "a cgroup the iterator could not tell");
	fp_proc_table_free(&t);

	r = c.rec;
	r.flags = PF_KTHREAD;
	p = since(&c, &r, 1, &t);
	assert_read_afresh(&c, &p, "a kernel thread by the record's word");
	fp_proc_table_free(&t);
	free(c.mine.exe.data);
	fp_proc_table_free(&t0);
}

/* /proc says which processes there are: a record does not add one, and
 * a process with no record is read from /proc */
Test(snapshot_tasks, the_listing_decides_which_processes_there_are)
{
	struct fp_task_rec recs[2];
	struct fp_proc_table t0, t;
	struct self_case c;
	struct fp_proc p;

	setup_case(&c, &t0);
	memset(recs, 0, sizeof(recs));
	recs[0] = c.rec;
	recs[0].pid = 0x3ffffff0; /* above any pid_max: never listed */
	p = since(&c, recs, 1, &t);
	assert_read_afresh(&c, &p, "no record of it");
	cr_assert_null(fp_proc_find(&t, 0x3ffffff0));
	cr_assert_not_null(fp_proc_find(&t, 1), "pid 1, whatever the records");
	fp_proc_table_free(&t);

	/* records in any order are matched by pid */
	recs[1] = c.rec;
	p = since(&c, recs, 2, &t);
	cr_assert_str_eq(p.comm, "fromiter");
	fp_proc_table_free(&t);
	free(c.mine.exe.data);
	fp_proc_table_free(&t0);
}

/* a short record at the end is not a process */
Test(snapshot_tasks, a_torn_record_is_left_out)
{
	struct fp_proc_table t0, t;
	struct fp_proc_table prev;
	struct self_case c;
	int fds[2];

	setup_case(&c, &t0);
	prev = (struct fp_proc_table){ .procs = &c.mine, .n = 1 };
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], &c.rec, sizeof(c.rec) - 1),
		     (ssize_t)sizeof(c.rec) - 1);
	close(fds[1]);
	cr_assert_eq(fp_proc_snapshot_tasks(&t, &prev, fds[0]), 0);
	close(fds[0]);
	cr_assert_not_null(fp_proc_find(&t, getpid()));
	cr_assert_str_eq(fp_proc_find(&t, getpid())->comm, c.comm);
	fp_proc_table_free(&t);
	free(c.mine.exe.data);
	fp_proc_table_free(&t0);
}
