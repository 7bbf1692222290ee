// SPDX-License-Identifier: GPL-2.0
/* fp_proc_snapshot_threads: the same table, however many threads read it */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "snapshot_proc.h"

#define NKIDS 9

/* a child that sleeps under its own name until killed */
static pid_t spawn(int i)
{
	pid_t pid, parent = getpid();
	char name[16];
	int p[2];
	char c = 'x';

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (!pid) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) ||
		    getppid() != parent)
			_exit(1);
		snprintf(name, sizeof(name), "fpkid-%d", i);
		prctl(PR_SET_NAME, name, 0, 0, 0);
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &c, 1), 1, "child died during setup");
	close(p[0]);
	return pid;
}

static void assert_same_proc(const struct fp_proc *a, const struct fp_proc *b)
{
	cr_assert(fp_proc_same(a, b), "pid %d", a->pid);
	cr_assert_eq(a->ppid, b->ppid);
	cr_assert_eq(a->uid, b->uid);
	cr_assert_str_eq(a->comm, b->comm);
	cr_assert_eq(a->exe.len, b->exe.len);
	cr_assert_eq(memcmp(a->exe.data, b->exe.data, a->exe.len), 0);
	cr_assert_eq(a->argv.len, b->argv.len);
	cr_assert_eq(memcmp(a->argv.data, b->argv.data, a->argv.len), 0);
	cr_assert_str_eq(a->cwd.data, b->cwd.data);
	cr_assert_str_eq(a->cgroup.data, b->cgroup.data);
	cr_assert_eq(a->cap_eff, b->cap_eff);
	cr_assert_eq(a->kernel_thread, b->kernel_thread);
}

static void assert_sorted_once(const struct fp_proc_table *t)
{
	size_t i;

	for (i = 1; i < t->n; i++)
		cr_assert_lt(t->procs[i - 1].pid, t->procs[i].pid,
			     "not sorted, or a pid twice, at %zu", i);
}

Test(snapshot_proc_threads, same_table_as_one_thread)
{
	static const unsigned int threads[] = { 0, 2, 3, FP_PROC_MAX_THREADS,
						FP_PROC_MAX_THREADS + 1 };
	struct fp_proc_table one, many;
	pid_t kids[NKIDS];
	const struct fp_proc *a, *b;
	char name[16];
	size_t i, k;

	for (i = 0; i < NKIDS; i++)
		kids[i] = spawn(i);
	cr_assert_eq(fp_proc_snapshot(&one), 0);
	assert_sorted_once(&one);
	for (k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
		cr_assert_eq(fp_proc_snapshot_threads(&many, threads[k]), 0);
		assert_sorted_once(&many);
		/* the machine's other processes may come and go meanwhile;
		 * these do not, nor does init, nor this one */
		for (i = 0; i < NKIDS; i++) {
			a = fp_proc_find(&one, kids[i]);
			b = fp_proc_find(&many, kids[i]);
			cr_assert_not_null(a);
			cr_assert_not_null(b, "%u threads lost pid %d",
					   threads[k], kids[i]);
			snprintf(name, sizeof(name), "fpkid-%zu", i);
			cr_assert_str_eq(b->comm, name);
			assert_same_proc(a, b);
		}
		assert_same_proc(fp_proc_find(&one, 1), fp_proc_find(&many, 1));
		assert_same_proc(fp_proc_find(&one, getpid()),
				 fp_proc_find(&many, getpid()));
		fp_proc_table_free(&many);
	}
	fp_proc_table_free(&one);
	for (i = 0; i < NKIDS; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
}

/* a process gone before the snapshot is not in it, nor does it stop it */
Test(snapshot_proc_threads, a_gone_process_is_skipped)
{
	struct fp_proc_table t;
	pid_t kid = spawn(0);

	kill(kid, SIGKILL);
	cr_assert_eq(waitpid(kid, NULL, 0), kid);
	cr_assert_eq(fp_proc_snapshot_threads(&t, 3), 0);
	cr_assert_null(fp_proc_find(&t, kid));
	cr_assert_not_null(fp_proc_find(&t, getpid()));
	fp_proc_table_free(&t);
}
