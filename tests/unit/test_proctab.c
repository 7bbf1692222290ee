// SPDX-License-Identifier: GPL-2.0
/* proctab.c: the process table's rows, their ends, bound and look-up */
#include <criterion/criterion.h>
#include <string.h>

#include "proctab.h"
#include "snapshot_proc.h"

static struct fp_event ev_of(uint32_t type, pid_t pid, pid_t ppid, uint64_t ts)
{
	struct fp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.pid = pid;
	ev.ppid = ppid;
	ev.ts_ns = ts;
	return ev;
}

static struct fp_cmdline *cmd(const char *exe, const char *argv, size_t len)
{
	struct fp_cmdline *c =
		fp_cmdline_new(exe, strlen(exe), argv, len, false);

	cr_assert_not_null(c);
	return c;
}

#define ROW(t, i) (&FP_PROCTAB_ROWS(t)[i])

/* sh forks a child that execs cat, then execs true itself */
Test(proctab, fork_exec_exit_and_a_second_exec)
{
	struct fp_proctab t = { 0 }, out;
	struct fp_cmdline *sh = cmd("/bin/sh", "sh\0-c\0x", 8);
	struct fp_cmdline *cat = cmd("/bin/cat", "cat\0f", 5);
	struct fp_cmdline *tru = cmd("/bin/true", "true", 4);
	uint32_t r_sh = 0, r_cat = 0;
	struct fp_event ev;
	struct fp_actor a = { 0 };

	ev = ev_of(FP_EV_EXEC, 10, 1, 1000);
	fp_proctab_seen(&t, 1000);
	cr_assert_eq(fp_proctab_exec(&t, &r_sh, 0, &ev, sh, 0), 0);
	ev = ev_of(FP_EV_FORK, 11, 10, 2000);
	cr_assert_eq(fp_proctab_fork(&t, &r_cat, r_sh, &ev, 0), 0);
	/* forked, not yet exec'd: its parent's command */
	cr_assert_eq(ROW(&t, r_cat - 1)->cmd, sh);
	ev = ev_of(FP_EV_EXEC, 11, 10, 3000);
	cr_assert_eq(fp_proctab_exec(&t, &r_cat, r_sh, &ev, cat, 0), 0);
	ev = ev_of(FP_EV_EXIT, 11, 10, 4000);
	ev.exit.code = 3;
	fp_proctab_exit(&t, r_cat, &ev);
	ev = ev_of(FP_EV_EXEC, 10, 1, 5000);
	cr_assert_eq(fp_proctab_exec(&t, &r_sh, 0, &ev, tru, 0), 0);
	ev = ev_of(FP_EV_EXIT, 10, 1, 6000);
	ev.exit.code = -1;
	ev.exit.signal = 9;
	fp_proctab_exit(&t, r_sh, &ev);

	cr_assert_eq(t.rows.n, 3);
	/* the first exec after a fork is the same row, from the fork on */
	cr_assert_eq(ROW(&t, 1)->cmd, cat);
	cr_assert_eq(ROW(&t, 1)->start_ns, 2000);
	cr_assert_eq(ROW(&t, 1)->parent, 1);
	cr_assert(ROW(&t, 1)->ended && ROW(&t, 1)->exit_code == 3);
	/* a second exec: sh's row ends there, true's is its child */
	cr_assert(ROW(&t, 0)->ended && ROW(&t, 0)->replaced);
	cr_assert_eq(ROW(&t, 0)->end_ns, 5000);
	cr_assert_eq(ROW(&t, 2)->parent, 1);
	cr_assert_eq(ROW(&t, 2)->pid, 10);
	cr_assert_eq(ROW(&t, 2)->signal, 9);

	cr_assert_eq(fp_proctab_copy(&out, &t), 0);
	/* by its very command, by the same bytes, else its pid's last */
	a.pid = 10;
	fp_actor_share(&a, sh);
	cr_assert_eq(fp_proctab_find(&out, &a), 0);
	fp_actor_clear(&a);
	a.pid = 10;
	cr_assert_eq(fp_actor_own(&a, "/bin/true", 9, "true", 4), 0);
	cr_assert_eq(fp_proctab_find(&out, &a), 2);
	cr_assert(fp_proctab_same_cmd(ROW(&out, 2), &a));
	cr_assert_not(fp_proctab_same_cmd(ROW(&out, 0), &a));
	fp_actor_clear(&a);
	a.pid = 11;
	fp_actor_share(&a, sh); /* between its fork and its exec */
	cr_assert_eq(fp_proctab_find(&out, &a), 1);
	cr_assert_not(fp_proctab_same_cmd(ROW(&out, 1), &a));
	fp_actor_clear(&a);
	a.pid = 99;
	cr_assert_eq(fp_proctab_find(&out, &a), -1);

	fp_proctab_free(&out);
	fp_proctab_free(&t);
	fp_cmdline_put(sh);
	fp_cmdline_put(cat);
	fp_cmdline_put(tru);
}

/* past FP_PROC_MAX rows processes are counted once each, and nothing more */
Test(proctab, bounded)
{
	struct fp_proctab t = { 0 };
	uint32_t row = 0, last = 0;
	struct fp_event ev;
	pid_t pid;

	for (pid = 2; pid < FP_PROC_MAX + 5; pid++) {
		ev = ev_of(FP_EV_FORK, pid, 1, pid);
		cr_assert_eq(fp_proctab_fork(&t, &row, 0, &ev, 0), 0);
		last = row;
	}
	cr_assert_eq(t.rows.n, FP_PROC_MAX);
	cr_assert_eq(t.omitted, 3);
	/* the exec and exit of an omitted one add nothing */
	ev = ev_of(FP_EV_EXEC, pid - 1, 1, pid);
	cr_assert_eq(fp_proctab_exec(&t, &last, 0, &ev, NULL, 0), 0);
	ev.type = FP_EV_EXIT;
	fp_proctab_exit(&t, last, &ev);
	cr_assert_eq(t.rows.n, FP_PROC_MAX);
	cr_assert_eq(t.omitted, 3);
	fp_proctab_free(&t);
}
