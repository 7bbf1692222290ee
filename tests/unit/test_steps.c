// SPDX-License-Identifier: GPL-2.0
/*
 * A sidecar's steps and tamper evidence, on hand-built events: which step
 * each finding names, how steps are named, that tamper findings fail
 * whatever the rules say, and that a sidecar log replays to its receipt
 * byte for byte.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "evlog.h"
#include "judge.h"
#include "logcodec.h"
#include "logrun.h"
#include "policy.h"
#include "receipt.h"
#include "recon_fixture.h"
#include "reconcile.h"
#include "run.h"
#include "sidecar_fixture.h"

static struct fp_proc_table PB, PA;
static struct fp_verdict V;
static struct fp_policy P;
static const char *state_dir;

static void setup(void)
{
	sidecar_fixture_setup();
	state_dir = NULL;
}

static void teardown(void)
{
	fp_verdict_free(&V);
	fp_policy_free(&P);
	fp_proc_table_free(&PB);
	fp_proc_table_free(&PA);
	sidecar_fixture_free();
}

TestSuite(steps, .init = setup, .fini = teardown, .timeout = 20);

/* step: GITHUB_ACTION in the new environment, or NULL */
static void ev_exec(pid_t pid, pid_t ppid, const char *exe, const char *step)
{
	struct fp_event ev = step_exec_of(pid, ppid, exe, step);

	feed(&ev);
}

static void ev_exit(pid_t pid, pid_t ppid)
{
	struct fp_event ev = { .type = FP_EV_EXIT, .pid = pid, .ppid = ppid };

	feed(&ev);
}

static void ev_rename(pid_t pid, pid_t ppid, const char *from, const char *to)
{
	struct fp_event ev =
		file_event_of(pid, FP_SYS_RENAMEAT2, from, to, 0, false, 0);

	ev.ppid = ppid;
	feed(&ev);
}

static void ev_bind(pid_t pid, pid_t ppid, uint16_t port)
{
	struct fp_event ev = { .type = FP_EV_BIND, .pid = pid, .ppid = ppid };

	ev.bind.family = AF_INET;
	ev.bind.protocol = IPPROTO_TCP;
	ev.bind.sock_type = SOCK_STREAM;
	snprintf(ev.bind.address, sizeof(ev.bind.address), "0.0.0.0");
	ev.bind.port = ev.bind.bound_port = port;
	feed(&ev);
}

static void ev_tamper(pid_t pid, pid_t ppid, uint32_t kind, int sig)
{
	struct fp_event ev = { .type = FP_EV_TAMPER, .pid = pid, .ppid = ppid };

	ev.tamper.kind = kind;
	ev.tamper.sig = sig;
	ev.tamper.target_pid = 42;
	feed(&ev);
}

static void proc_row(struct fp_proc_table *t, pid_t pid, pid_t ppid)
{
	struct fp_proc *p;

	t->procs = realloc(t->procs, (t->n + 1) * sizeof(*p));
	cr_assert_not_null(t->procs);
	p = &t->procs[t->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = ppid;
	p->start_ticks = 7;
}

static void reconcile(void)
{
	struct fp_recon_input in = recon_input(&B, &A, roots, 1);

	in.proc_before = PB.n ? &PB : NULL;
	in.proc_after = PA.n ? &PA : NULL;
	in.state_dir = state_dir;
	cr_assert_eq(fp_reconcile(R, &in, &F), 0);
}

static void judge(void)
{
	judge_run(&P, &F, &V);
}

static void rule(const char *line)
{
	policy_rule(&P, roots, 1, line);
}

static const struct fp_step *step(unsigned int i)
{
	cr_assert_leq(i, F.steps.n, "only %zu steps", F.steps.n);
	return &FP_STEPS(&F)[i - 1];
}

static void assert_name(unsigned int i, const char *name,
			enum fp_step_named how)
{
	const struct fp_step *st = step(i);

	cr_assert_eq(st->index, i);
	cr_assert(st->name.len == strlen(name) &&
			  !memcmp(st->name.data, name, st->name.len),
		  "step %u is \"%.*s\", want \"%s\"", i, (int)st->name.len,
		  st->name.data, name);
	cr_assert_eq(st->named, how, "step %u named by %d", i, st->named);
}

static bool has_outside(const char *path)
{
	size_t i;

	for (i = 0; i < F.files[FP_F_OUTSIDE].n; i++)
		if (!strcmp(FP_FILES(&F, FP_F_OUTSIDE)[i].path.data, path))
			return true;
	return false;
}

/* the step of the outside_roots finding for path */
static unsigned int outside_step(const char *path)
{
	size_t i;

	for (i = 0; i < F.files[FP_F_OUTSIDE].n; i++) {
		const struct fp_file_finding *x =
			&FP_FILES(&F, FP_F_OUTSIDE)[i];

		if (!strcmp(x->path.data, path))
			return fp_file_finding_step(x);
	}
	cr_assert_fail("no outside_roots finding %s", path);
	return 0;
}

static unsigned int executed_step(pid_t pid)
{
	size_t i;

	for (i = 0; i < F.procs[FP_P_EXECUTED].n; i++)
		if (FP_PROCS(&F, FP_P_EXECUTED)[i].p.pid == pid)
			return FP_PROCS(&F, FP_P_EXECUTED)[i].p.step;
	cr_assert_fail("pid %d never exec'd", pid);
	return 0;
}

/* Two steps of a job, each with descendants; every finding names its own. */
static void two_steps(void)
{
	ev_fork(201, PARENT);
	ev_exec(201, PARENT, "/usr/bin/bash", "checkout");
	ev_fork(202, 201);
	ev_exec(202, 201, "/usr/bin/git", NULL);
	ev_write(202, 201, "/etc/one");
	ev_fork(301, PARENT);
	ev_exec(301, PARENT, "/usr/bin/bash", "build");
	ev_fork(302, 301);
	ev_fork(303, 302);
	ev_exec(303, 302, "/usr/bin/cc", NULL);
	ev_write(303, 302, "/etc/two");
	ev_bind(302, 301, 8080);
	ev_exit(303, 302);
	/* the step parent's own writes (the runner's logs) are no step's,
	 * and not judged: reconcile leaves them out */
	ev_write(PARENT, 1, "/etc/worker.log");
}

Test(steps, a_fork_of_the_step_parent_starts_a_step)
{
	two_steps();
	reconcile();
	cr_assert_eq(F.steps.n, 2);
	assert_name(1, "checkout", FP_STEP_NAMED_ACTION);
	assert_name(2, "build", FP_STEP_NAMED_ACTION);
	cr_assert_eq(step(1)->first_pid, 201);
	cr_assert_eq(step(2)->first_pid, 301);
	cr_assert_lt(step(1)->started_ns, step(2)->started_ns);
}

Test(steps, every_finding_names_its_step_exactly)
{
	two_steps();
	reconcile();
	cr_assert_eq(outside_step("/etc/one"), 1);
	/* a grandchild of the step's first process */
	cr_assert_eq(outside_step("/etc/two"), 2);
	cr_assert_not(has_outside("/etc/worker.log"));
	cr_assert_eq(executed_step(201), 1);
	cr_assert_eq(executed_step(202), 1);
	cr_assert_eq(executed_step(301), 2);
	cr_assert_eq(executed_step(303), 2);
	cr_assert_eq(F.net[FP_N_BOUND].n, 1);
	cr_assert_eq(FP_NETS(&F, FP_N_BOUND)[0].step, 2);
	cr_assert_eq(F.procs[FP_P_SHORT_LIVED].n, 1);
	cr_assert_eq(FP_PROCS(&F, FP_P_SHORT_LIVED)[0].p.step, 2);
}

Test(steps, names_come_from_the_action_then_the_mark_then_the_order)
{
	ev_fork(201, PARENT); /* no mark yet */
	ev_mark("lint");
	ev_fork(301, PARENT); /* the mark in effect */
	ev_fork(401, PARENT);
	ev_exec(401, PARENT, "/usr/bin/node", "setup-node"); /* beats it */
	ev_mark("test");
	ev_fork(501, PARENT);
	ev_write(201, PARENT, "/etc/a");
	ev_write(301, PARENT, "/etc/b");
	ev_write(401, PARENT, "/etc/c");
	ev_write(501, PARENT, "/etc/d");
	reconcile();
	cr_assert_eq(F.steps.n, 4);
	assert_name(1, "step 1", FP_STEP_NAMED_ORDER);
	assert_name(2, "lint", FP_STEP_NAMED_MARK);
	assert_name(3, "setup-node", FP_STEP_NAMED_ACTION);
	assert_name(4, "test", FP_STEP_NAMED_MARK);
	cr_assert_eq(outside_step("/etc/d"), 4);
}

Test(steps, only_the_first_process_names_its_step)
{
	ev_fork(201, PARENT);
	ev_exec(201, PARENT, "/usr/bin/bash", NULL);
	ev_fork(202, 201);
	/* a descendant with a GITHUB_ACTION of its own renames nothing */
	ev_exec(202, 201, "/usr/bin/env", "impostor");
	ev_write(202, 201, "/etc/x");
	reconcile();
	cr_assert_eq(F.steps.n, 1);
	assert_name(1, "step 1", FP_STEP_NAMED_ORDER);
}

/* the step the sidecar was started from predates the trace */
Test(steps, a_step_that_predates_the_trace_is_found_in_the_snapshot)
{
	proc_row(&PB, PARENT, 1);
	proc_row(&PB, 150, PARENT); /* step 1's shell */
	proc_row(&PB, 151, 150); /* its subshell */
	proc_row(&PB, 500, 1); /* a container's process: no step */
	/* a mark names steps that start after it, not this one */
	ev_mark("later");
	ev_fork(160, 151);
	ev_write(160, 151, "/etc/from-step-one");
	ev_fork(501, 500);
	ev_write(501, 500, "/etc/from-container");
	ev_fork(201, PARENT);
	ev_write(201, PARENT, "/etc/from-step-two");
	reconcile();
	cr_assert_eq(F.steps.n, 2);
	cr_assert_eq(step(1)->first_pid, 150);
	assert_name(1, "step 1", FP_STEP_NAMED_ORDER);
	cr_assert_eq(step(2)->first_pid, 201);
	assert_name(2, "later", FP_STEP_NAMED_MARK);
	cr_assert_eq(outside_step("/etc/from-step-one"), 1);
	cr_assert_eq(outside_step("/etc/from-step-two"), 2);
	cr_assert_eq(outside_step("/etc/from-container"), 0);
}

Test(steps, a_child_of_the_step_parent_shows_itself)
{
	/* not in any snapshot, but its own event gives its parent */
	ev_write(150, PARENT, "/etc/a");
	ev_fork(151, 150);
	ev_write(151, 150, "/etc/b");
	reconcile();
	cr_assert_eq(F.steps.n, 1);
	cr_assert_eq(step(1)->first_pid, 150);
	cr_assert_eq(outside_step("/etc/a"), 1);
	cr_assert_eq(outside_step("/etc/b"), 1);
}

Test(steps, a_pid_used_again_is_a_new_step)
{
	ev_fork(201, PARENT);
	ev_write(201, PARENT, "/etc/a");
	ev_exit(201, PARENT);
	ev_fork(201, PARENT);
	ev_write(201, PARENT, "/etc/b");
	reconcile();
	cr_assert_eq(F.steps.n, 2);
	cr_assert_eq(outside_step("/etc/a"), 1);
	cr_assert_eq(outside_step("/etc/b"), 2);
}

Test(steps, a_run_has_no_steps)
{
	fp_recon_set_step_parent(R, 0);
	two_steps();
	reconcile();
	cr_assert_eq(F.steps.n, 0);
	cr_assert_eq(outside_step("/etc/one"), 0);
	cr_assert_eq(executed_step(303), 0);
	cr_assert_eq(FP_NETS(&F, FP_N_BOUND)[0].step, 0);
}

Test(steps, the_step_table_is_charged_to_the_budget)
{
	uint64_t budget = 64 << 10;
	int i;

	fp_recon_set_budget(R, budget);
	for (i = 0; i < 20000; i++)
		ev_fork(1000 + i, PARENT);
	cr_assert_gt(fp_recon_unfolded(R), 0);
	cr_assert_leq(fp_recon_used(R), budget);
	reconcile();
	cr_assert_gt(F.steps.n, 0);
	cr_assert_lt(F.steps.n, 20000);
}

/* ---- tamper ---- */

static const struct fp_tamper_finding *tamper(size_t i)
{
	cr_assert_lt(i, F.tamper.n, "only %zu tamper findings", F.tamper.n);
	return &FP_TAMPER(&F)[i];
}

Test(steps, tamper_events_name_their_process_and_step)
{
	two_steps();
	ev_tamper(303, 302, FP_TAMPER_SIGNAL, SIGKILL);
	ev_tamper(202, 201, FP_TAMPER_BPF, 0);
	ev_tamper(0, 0, FP_TAMPER_HEARTBEAT, 0);
	reconcile();
	cr_assert_eq(F.tamper.n, 3);
	cr_assert_str_eq(fp_tamper_name(tamper(0)), "signal");
	cr_assert_eq(tamper(0)->sig, SIGKILL);
	cr_assert_eq(tamper(0)->by.pid, 303);
	cr_assert_eq(tamper(0)->by.step, 2);
	cr_assert_str_eq(fp_tamper_name(tamper(1)), "bpf");
	cr_assert_eq(tamper(1)->by.step, 1);
	cr_assert_str_eq(fp_tamper_name(tamper(2)), "heartbeat");
	cr_assert_eq(tamper(2)->by.pid, 0);
}

Test(steps, writes_under_the_state_dir_are_tamper)
{
	state_dir = "/run/footprint/sidecar/";
	two_steps();
	ev_write(202, 201, "/run/footprint/sidecar/daemon.pid");
	ev_write(303, 302, "/run/footprint/sidecar-not/x");
	/* moving a parent moves the state away too */
	ev_rename(303, 302, "/run/footprint", "/tmp/gone");
	reconcile();
	cr_assert_eq(F.tamper.n, 2);
	cr_assert_str_eq(fp_tamper_name(tamper(0)), "state_dir");
	cr_assert_str_eq(tamper(0)->path.data, "/run/footprint");
	cr_assert_eq(tamper(0)->by.step, 2);
	cr_assert_str_eq(tamper(1)->path.data,
			 "/run/footprint/sidecar/daemon.pid");
	cr_assert_eq(tamper(1)->by.pid, 202);
	cr_assert_eq(tamper(1)->by.step, 1);
}

Test(steps, tamper_fails_and_no_rule_can_allow_it)
{
	state_dir = "/run/fp";
	ev_fork(201, PARENT);
	ev_tamper(201, PARENT, FP_TAMPER_SIGNAL, SIGTERM);
	ev_write(201, PARENT, "/run/fp/socket");
	reconcile();
	rule("allow /**");
	rule("ignore /run/**");
	rule("allow process /**");
	judge();
	cr_assert_not(V.ok);
	cr_assert_eq(V.failing, 2);
	cr_assert(tamper(0)->failing && tamper(1)->failing);
	cr_assert_not_null(
		strstr(((char **)V.reasons.v)[0], "tamper.signal: SIGTERM"));
	cr_assert_not_null(
		strstr(((char **)V.reasons.v)[0], "in step 1 (\"step 1\")"));
	cr_assert_not_null(
		strstr(((char **)V.reasons.v)[1], "no rule can allow it"));
}

Test(steps, a_clean_job_is_ok)
{
	state_dir = "/run/fp";
	ev_fork(201, PARENT);
	ev_exec(201, PARENT, "/usr/bin/bash", "build");
	ev_write(201, PARENT, "/w/out.o");
	ev_exit(201, PARENT);
	reconcile();
	judge();
	cr_assert(V.ok, "%s", V.reasons.n ? ((char **)V.reasons.v)[0] : "");
	cr_assert_eq(F.tamper.n, 0);
}

/* ---- the log ---- */

Test(steps, a_mark_survives_the_log)
{
	struct fp_event ev = { .type = FP_EV_MARK, .ts_ns = 5 }, back;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t wts = 0, rts = 0;

	ev.mark.name = str("deploy | <b>");
	fp_enc_event(&e, &ev, &wts);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	cr_assert_eq(fp_dec_event(&d, &back, &rts), 0);
	cr_assert_eq(back.type, FP_EV_MARK);
	cr_assert_str_eq(back.mark.name.data, "deploy | <b>");
	fp_event_free(&back);
	fp_event_free(&ev);
	fp_enc_free(&e);
}

static void sidecar_events(struct fp_log_sink *s, struct fp_run *run)
{
	struct fp_event evs[] = {
		{ .type = FP_EV_FORK, .pid = 201, .ppid = PARENT },
		{ .type = FP_EV_MARK },
		{ .type = FP_EV_FORK, .pid = 301, .ppid = PARENT },
		{ .type = FP_EV_FORK, .pid = 302, .ppid = 301 },
		{ .type = FP_EV_FILE, .pid = 302, .ppid = 301 },
	};
	size_t i;

	evs[1].mark.name = str("build");
	evs[4].file.sys = FP_SYS_OPENAT;
	evs[4].file.flags = O_WRONLY | O_CREAT;
	evs[4].file.created = true;
	evs[4].file.ret = 3;
	evs[4].file.npaths = 1;
	evs[4].file.path[0].path = str("/run/fp/state");
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		evs[i].ts_ns = 100 + i;
		evs[i].tid = evs[i].pid;
		cr_assert_eq(fp_log_event(s, &evs[i]), 0);
		cr_assert_eq(fp_recon_feed(run->recon, &evs[i]), 0);
		run->events++;
		fp_event_free(&evs[i]);
	}
}

static char *receipt_of(struct fp_run *run, size_t *len)
{
	struct fp_policy pol = { 0 };
	struct fp_findings f = { 0 };
	struct fp_verdict v = { 0 };
	struct fp_outcome o;
	char err[256], *buf = NULL;
	FILE *mem = open_memstream(&buf, len);

	cr_assert_eq(fp_run_policy(run, &pol, err, sizeof(err)), 0);
	cr_assert_eq(fp_run_judge(run, &pol, &f, &v, &o), 0);
	fp_run_receipt(mem, run, &f, &v, &o);
	fclose(mem);
	fp_verdict_free(&v);
	fp_findings_free(&f);
	fp_policy_free(&pol);
	return buf;
}

Test(steps, a_sidecar_log_replays_to_its_receipt_byte_for_byte)
{
	char path[] = "/tmp/fp-steps-XXXXXX", err[600], *live, *again;
	struct fp_enc enc = { 0 };
	struct fp_log_sink s = { .enc = &enc };
	struct fp_run run, back;
	size_t n1, n2;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(fp_run_init(&run), 0);
	cr_assert_eq(fp_run_add_str(&run.argv, &(size_t){ 0 }, "sidecar"), 0);
	cr_assert_eq(fp_run_add_str(&run.roots, &run.nroots, "/w"), 0);
	cr_assert_eq(fp_run_set_sidecar(&run, PARENT, "/run/fp"), 0);
	run.have_snap[0] = run.have_snap[1] = run.have_trailer = true;
	cr_assert_eq(fp_evlog_open(&s.w, fd, path, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(fp_log_header(&s, &run), 0);
	cr_assert_eq(fp_log_snapshot(&s, &run, FP_PHASE_BEFORE, true, true), 0);
	sidecar_events(&s, &run);
	cr_assert_eq(fp_log_snapshot(&s, &run, FP_PHASE_AFTER, true, true), 0);
	cr_assert_eq(fp_log_trailer(&s, &run), 0);
	cr_assert_eq(fp_evlog_close(&s.w), 0);
	live = receipt_of(&run, &n1);

	cr_assert_eq(fp_run_init(&back), 0);
	cr_assert_eq(fp_log_load(path, &back, NULL, NULL, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(back.mode, FP_MODE_SIDECAR);
	cr_assert_eq(back.step_parent, PARENT);
	cr_assert_str_eq(back.state_dir, "/run/fp");
	again = receipt_of(&back, &n2);
	cr_assert(n1 == n2 && !memcmp(live, again, n1),
		  "live:\n%s\nreplay:\n%s", live, again);
	cr_assert_not_null(strstr(live, "\"mode\":\"sidecar\""));
	cr_assert_not_null(strstr(live, "\"kind\":\"state_dir\""));
	cr_assert_not_null(strstr(live, "\"step\":\"build\",\"step_index\":2"));
	cr_assert_not_null(
		strstr(live, "\"name\":\"build\",\"named_by\":\"mark\""));
	free(live);
	free(again);
	fp_enc_free(&enc);
	fp_run_free(&run);
	fp_run_free(&back);
	unlink(path);
}
