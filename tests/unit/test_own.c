// SPDX-License-Identifier: GPL-2.0
/*
 * footprint's own processes in a sidecar's job (own.h), on hand-built
 * events: what an FP_EV_CONTROL names is never a finding and never a
 * step, whatever it did before the control event came; what it does not
 * name is judged as ever; the step that ran `sidecar start` is named by
 * the event; and the event survives the log codec.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logcodec.h"
#include "recon_fixture.h"
#include "reconcile.h"
#include "sidecar_fixture.h"

TestSuite(own, .init = sidecar_fixture_setup, .fini = sidecar_fixture_free,
	  .timeout = 20);

/* euid: what the new image runs as (1000: the runner's user) */
static void ev_exec(pid_t pid, pid_t ppid, const char *exe, const char *step,
		    uint32_t euid)
{
	struct fp_event ev = step_exec_of(pid, ppid, exe, step);

	ev.exec.creds = (struct fp_privs){ .known = true,
					   .uid = 1000,
					   .euid = euid,
					   .suid = euid,
					   .gid = 1000,
					   .egid = 1000,
					   .sgid = 1000,
					   .cap_eff = euid ? 0 : ~0ULL >> 24,
					   .cap_prm = euid ? 0 : ~0ULL >> 24,
					   .secure_exec = !euid };
	feed(&ev);
}

/* own: the checked processes, nearest first; n 0 for a foreign one */
static void ev_control(uint32_t op, pid_t pid, const pid_t *own, unsigned n,
		       pid_t step, const char *name)
{
	struct fp_event ev = { .type = FP_EV_CONTROL, .pid = pid };
	unsigned int i;

	ev.control.op = op;
	ev.control.result = n ? FP_CTL_OK : FP_CTL_FOREIGN;
	ev.control.nown = n;
	for (i = 0; i < n; i++)
		ev.control.own[i] = own[i];
	ev.control.step_pid = step;
	if (name)
		ev.control.name = str(name);
	feed(&ev);
}

static void reconcile(void)
{
	struct fp_recon_input in = recon_input(&B, &A, roots, 1);

	cr_assert_eq(fp_reconcile(R, &in, &F), 0);
}

static const char *step_name(unsigned int i)
{
	static char buf[64];
	const struct fp_step *st = fp_findings_step(&F, i);

	cr_assert_not_null(st, "no step %u of %zu", i, F.steps.n);
	snprintf(buf, sizeof(buf), "%.*s", (int)st->name.len, st->name.data);
	return buf;
}

/* `sudo footprint sidecar stop`, run by a step's shell (sudo - 1) */
static void sudo_footprint(pid_t sudo, bool vouched)
{
	pid_t own[] = { sudo + 2, sudo + 1, sudo };

	ev_fork(sudo - 1, PARENT);
	ev_exec(sudo - 1, PARENT, "/usr/bin/bash", NULL, 1000);
	ev_fork(sudo, sudo - 1);
	ev_exec(sudo, sudo - 1, "/usr/bin/sudo", NULL, 0);
	ev_write(sudo, sudo - 1, "/run/sudo/ts/runner");
	ev_fork(sudo + 1, sudo);
	ev_exec(sudo + 1, sudo, "/usr/local/bin/footprint", NULL, 0);
	/* stop's child, in the daemon's cgroup, says hello */
	ev_fork(sudo + 2, sudo + 1);
	ev_control(FP_CTL_HELLO, sudo + 2, own, vouched ? 3 : 0, 0, NULL);
	ev_write(sudo + 2, sudo + 1, "/tmp/receipt.json");
}

Test(own, footprint_and_its_sudo_are_no_finding_and_no_step)
{
	ev_fork(200, PARENT);
	ev_exec(200, PARENT, "/usr/bin/make", NULL, 1000);
	ev_write(200, PARENT, "/etc/made");
	sudo_footprint(300, true);
	reconcile();
	cr_assert_eq(F.privileged.n, 0);
	cr_assert_eq(F.files[FP_F_OUTSIDE].n, 1);
	cr_assert_str_eq(FP_FILES(&F, FP_F_OUTSIDE)[0].path.data, "/etc/made");
	/* make's, and the shell's that ran sudo: a step of the job's */
	cr_assert_eq(F.steps.n, 2);
	/* what ran is still listed, in its step */
	cr_assert_eq(F.procs[FP_P_EXECUTED].n, 4);
	cr_assert_eq(FP_PROCS(&F, FP_P_EXECUTED)[2].p.step, 2);
}

Test(own, a_stop_the_step_parent_ran_is_not_a_step)
{
	pid_t own[] = { 302, 301, 300 };

	ev_fork(300, PARENT);
	ev_exec(300, PARENT, "/usr/bin/sudo", NULL, 0);
	ev_fork(301, 300);
	ev_exec(301, 300, "/usr/local/bin/footprint", NULL, 0);
	ev_fork(302, 301);
	ev_control(FP_CTL_STOP, 302, own, 3, 0, NULL);
	reconcile();
	cr_assert_eq(F.steps.n, 0);
}

Test(own, unvouched_it_is_judged_as_any)
{
	sudo_footprint(300, false);
	reconcile();
	cr_assert_eq(F.privileged.n, 1);
	cr_assert_eq(FP_PRIVILEGED(&F)[0].p.pid, 300);
	cr_assert_eq(F.files[FP_F_OUTSIDE].n, 2);
	cr_assert_eq(F.steps.n, 1);
}

Test(own, privileged_names_its_step)
{
	/* a step before it: groups and steps are not numbered alike */
	ev_fork(200, PARENT);
	ev_exec(200, PARENT, "/usr/bin/make", NULL, 1000);
	sudo_footprint(300, true);
	/* and a mark: a group, but no step */
	ev_fork(350, PARENT);
	ev_exec(350, PARENT, "/usr/local/bin/footprint", NULL, 1000);
	ev_control(FP_CTL_MARK, 350, (pid_t[]){ 350 }, 1, 0, "test");
	ev_mark("test");
	ev_fork(400, PARENT);
	ev_exec(400, PARENT, "/usr/bin/bash", "test", 1000);
	ev_fork(401, 400);
	ev_exec(401, 400, "/usr/bin/sudo", NULL, 0);
	reconcile();
	cr_assert_eq(F.steps.n, 3);
	cr_assert_eq(F.privileged.n, 1);
	cr_assert_eq(FP_PRIVILEGED(&F)[0].p.pid, 401);
	cr_assert_eq(FP_PRIVILEGED(&F)[0].p.step, 3);
	cr_assert_str_eq(step_name(3), "test");
}

Test(own, a_mark_is_not_a_step)
{
	pid_t mark = 300;

	ev_fork(mark, PARENT);
	ev_exec(mark, PARENT, "/usr/local/bin/footprint", NULL, 1000);
	ev_control(FP_CTL_MARK, mark, &mark, 1, 0, "build");
	ev_mark("build");
	ev_fork(301, PARENT);
	ev_write(301, PARENT, "/etc/built");
	reconcile();
	cr_assert_eq(F.steps.n, 1);
	cr_assert_eq(fp_findings_step(&F, 1)->first_pid, 301);
	cr_assert_str_eq(step_name(1), "build");
}

Test(own, the_start_step_is_named)
{
	pid_t own[] = { 151, 150 }; /* start, and the sudo that ran it */

	/* 140 is the step's shell, 150 its sudo: both predate the trace */
	ev_control(FP_CTL_START, 151, own, 2, 140, "setup");
	ev_write(140, PARENT, "/etc/after-start");
	ev_fork(152, 150);
	ev_write(152, 150, "/etc/by-sudo");
	reconcile();
	cr_assert_eq(F.steps.n, 1);
	cr_assert_str_eq(step_name(1), "setup");
	cr_assert_eq(F.files[FP_F_OUTSIDE].n, 1);
	cr_assert_str_eq(FP_FILES(&F, FP_F_OUTSIDE)[0].path.data,
			 "/etc/after-start");
}

Test(own, a_mark_in_the_start_step_names_it)
{
	pid_t own = 160;

	ev_write(140, PARENT, "/etc/before-mark");
	ev_fork(160, 140);
	ev_exec(160, 140, "/usr/local/bin/footprint", NULL, 1000);
	ev_control(FP_CTL_MARK, 160, &own, 1, 0, "setup");
	ev_mark("setup");
	reconcile();
	cr_assert_eq(F.steps.n, 1);
	cr_assert_str_eq(step_name(1), "setup");
}

Test(own, the_control_event_survives_the_log)
{
	struct fp_event ev = { .type = FP_EV_CONTROL, .pid = 7, .uid = 1000 };
	struct fp_event back;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t ts = 0, ts2 = 0;

	ev.control.op = FP_CTL_MARK;
	ev.control.result = FP_CTL_OK;
	ev.control.start_ticks = 123456;
	ev.control.nown = 2;
	ev.control.own[0] = 7;
	ev.control.own[1] = 5;
	ev.control.name.data = "a\nb";
	ev.control.name.len = 3;
	fp_enc_event(&e, &ev, &ts);
	cr_assert_eq(e.err, 0);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	cr_assert_eq(fp_dec_event(&d, &back, &ts2), 0);
	cr_assert_eq(back.type, FP_EV_CONTROL);
	cr_assert_eq(back.uid, 1000);
	cr_assert_eq(back.control.start_ticks, 123456);
	cr_assert_eq(back.control.nown, 2);
	cr_assert_eq(back.control.own[1], 5);
	cr_assert_eq(back.control.name.len, 3);
	cr_assert_eq(memcmp(back.control.name.data, "a\nb", 3), 0);
	fp_event_free(&back);
	/* too many own processes: not something footprint wrote */
	fp_enc_reset(&e);
	ev.control.nown = FP_CTL_MAX_OWN + 1;
	fp_enc_event(&e, &ev, &ts);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	cr_assert_neq(fp_dec_event(&d, &back, &ts2), 0);
	fp_enc_free(&e);
}
