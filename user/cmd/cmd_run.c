// SPDX-License-Identifier: GPL-2.0
/*
 * footprint run: trace one command it launches in a cgroup of its own. A
 * session (session.h) does the tracing, snapshots and verdict; this file
 * only adds what is run's: the cgroup and its watchdog, the identity the
 * command runs as, the launch, the loop until it exits, and leftovers.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "attest_job.h"
#include "cgroup.h"
#include "cli.h"
#include "creds.h"
#include "fleet.h"
#include "identity.h"
#include "launch.h"
#include "cmdterm.h"
#include "run_args.h"
#include "run_scratch.h"
#include "shape_cmd.h"
#include "runloop.h"
#include "session.h"
#include "watchdog.h"

/* what run adds to a session */
struct run_target {
	struct fp_cgroup cg;
	struct fp_watchdog wd;
	struct fp_identity id;
	struct fp_child child;
	struct fp_scratch sc; /* --scratch; dirfd -1: none */
	struct fp_pty pty; /* the command's own terminal, if stdin is one */
	int sigfd, timerfd;
	sigset_t old;
};

static void stop_run(struct fp_cgroup *cg)
{
	fp_cgroup_kill(cg);
	if (fp_cgroup_wait_empty(cg, 5000))
		fprintf(stderr,
			"footprint: processes in %s survived SIGKILL; the trace may be incomplete\n",
			cg->path);
}

/* Under sudo the command runs as the invoking user and nobody else. */
static int check_identity(const struct fp_identity *id,
			  const struct fp_creds *c)
{
	if (!c->active || (id->drop && id->uid == c->uid))
		return 0;
	fprintf(stderr,
		"footprint: under sudo the command runs as %s, the invoking user; --as-root and --user need a root login (e.g. sudo -i, then footprint run --as-root)\n",
		c->name);
	return FP_EXIT_USAGE;
}

/* The rules and roots of the run, from its options; 0 or an exit code. */
static int run_policy(struct run_opts *o, const struct fp_creds *c,
		      char **roots, struct fp_policy *pol)
{
	char err[512];
	int rc;

	if (!o->nroots)
		o->roots_arg[o->nroots++] = ".";
	rc = fp_resolve_roots(o->roots_arg, o->nroots, c, roots);
	if (!rc)
		rc = fp_rule_args_policy(&o->rules, pol, c, roots, o->nroots);
	/* --leftovers allow is a rule, so that replay judges the same */
	if (!rc && o->leftovers == LEFTOVERS_ALLOW &&
	    fp_policy_parse_line(pol, "allow leftover *", 16, roots, o->nroots,
				 err, sizeof(err)))
		rc = FP_EXIT_NOTRACE;
	return rc;
}

/* Who runs the command, checked before anything is created. */
static int run_identity(const struct run_opts *o, const struct fp_creds *c,
			struct fp_identity *id)
{
	char err[512];

	if (geteuid() != 0) {
		fprintf(stderr,
			"footprint: tracing needs root; run it under sudo: sudo footprint run -- %s\n",
			o->argv[0]);
		return FP_EXIT_NOTRACE;
	}
	if (fp_identity_resolve(id, o->user, o->as_root, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	return check_identity(id, c);
}

/* The tracer's load started, the run's cgroup and its watchdog (which
 * closes the loader's fds it inherits; it arms while footprint goes on,
 * and run_command waits for that before the command starts). */
static int run_cgroup(struct fp_session *s, struct run_target *t,
		      const struct run_opts *o)
{
	char err[512];

	if (fp_session_start_tracer(s, err, sizeof(err)) ||
	    fp_cgroup_create(&t->cg, err, sizeof(err)) ||
	    fp_watchdog_fork(&t->wd, &t->cg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_NOTRACE;
	}
	if (fp_session_header(s, o->argv, t->cg.rel)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	return 0;
}

/* Once loaded (fp_session_before joins the load), the tracer's scope. */
static int run_scope(struct fp_session *s, struct run_target *t)
{
	int ret = fp_tracer_set_cgroup(s->tracer, t->cg.fd);

	if (ret) {
		fprintf(stderr,
			"footprint: cannot point the tracer at cgroup %s: %s\n",
			t->cg.path, strerror(-ret));
		return FP_EXIT_NOTRACE;
	}
	return 0;
}

/* Signals to pass on, and the --timeout clock (absolute: the before
 * snapshot counts against it). */
static int run_signals(struct run_target *t, int64_t deadline_ms)
{
	struct itimerspec its = {
		.it_value = { deadline_ms / 1000,
			      (deadline_ms % 1000) * 1000000 },
	};
	sigset_t fwd, block;
	int i;

	sigemptyset(&fwd);
	sigaddset(&fwd, SIGINT);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGHUP);
	sigaddset(&fwd, SIGQUIT);
	/* and the terminal relay's (cmdterm.c), which it reads itself */
	fp_pty_sigset(&block);
	for (i = 1; i < NSIG; i++)
		if (sigismember(&fwd, i) == 1)
			sigaddset(&block, i);
	sigprocmask(SIG_BLOCK, &block, &t->old);
	t->sigfd = signalfd(-1, &fwd, SFD_NONBLOCK | SFD_CLOEXEC);
	if (t->sigfd < 0) {
		fprintf(stderr, "footprint: signalfd: %s\n", strerror(errno));
		return FP_EXIT_NOTRACE;
	}
	if (!deadline_ms)
		return 0;
	t->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (t->timerfd < 0 ||
	    timerfd_settime(t->timerfd, TFD_TIMER_ABSTIME, &its, NULL)) {
		fprintf(stderr, "footprint: cannot set the timeout: %s\n",
			strerror(errno));
		return FP_EXIT_NOTRACE;
	}
	return 0;
}

/* Launch the command and trace it until it exits; then leftovers. */
static int run_command(struct fp_session *s, struct run_target *t,
		       const struct run_opts *o)
{
	struct fp_loop_state ls = { .cg = &t->cg };
	struct fp_run *run = &s->run;
	int64_t t0 = fp_now_ms();
	int status = 0, nleft, ret;
	char err[512];

	if (fp_watchdog_armed(&t->wd, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_NOTRACE;
	}
	if (fp_pty_open(&t->pty, t->id.drop ? t->id.uid : (uid_t)-1, err,
			sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_NOTRACE;
	}
	ret = fp_launch(&t->child, o->argv, t->cg.fd, &t->old, &t->id,
			t->sc.dirfd >= 0 ? &t->sc : NULL, &t->pty);
	if (ret) {
		fprintf(stderr,
			"footprint: cannot start the command in cgroup %s: %s\n",
			t->cg.path, strerror(-ret));
		return FP_EXIT_NOTRACE;
	}
	/* after the launch: the child of a process with a second thread
	 * could deadlock in glibc (its setuid() waits for every thread) */
	ret = fp_pty_start(&t->pty, t->child.pid, t->child.monitor_fd);
	if (ret) {
		fprintf(stderr,
			"footprint: cannot relay the command's terminal: %s\n",
			strerror(-ret));
		return FP_EXIT_NOTRACE;
	}
	ls.own_session = t->pty.master >= 0;
	ls.tty_interrupts = &t->pty.interrupts;
	ret = fp_trace_until_exit(s->tracer, &t->child, t->sigfd,
				  s->logging ? &s->log : NULL, t->timerfd, &ls);
	if (ret)
		fprintf(stderr, "footprint: tracing failed: %s\n",
			strerror(-ret));
	s->trace_err = ret;
	/* what it wrote is on the caller's terminal before anything more */
	fp_pty_finish(&t->pty);
	fp_child_wait(&t->child, &status);
	run->duration_ms = fp_now_ms() - t0;
	run->status = status;
	run->exec_errno = t->child.exec_errno;
	run->timed_out = ls.timed_out;
	run->interrupted = ls.interrupted;
	if (t->child.setup_errno) {
		fprintf(stderr,
			"footprint: cannot start the command as %s: %s; it was not run\n",
			t->id.name ? t->id.name : "root",
			strerror(t->child.setup_errno));
		return FP_EXIT_NOTRACE;
	}
	/* what is still running is seen before it is stopped */
	nleft = fp_cgroup_pids(&t->cg, &run->leftover);
	run->nleftover = nleft > 0 ? nleft : 0;
	if (o->leftovers == LEFTOVERS_KILL)
		stop_run(&t->cg);
	/* the box's init is not the command's: gone before it is seen */
	if (nleft == 0 || o->leftovers == LEFTOVERS_KILL)
		fp_box_end(&t->child);
	/* else it keeps the leftovers' namespace until they are stopped */
	run->own_pid = t->child.init_pid > 0 ? t->child.init_pid : 0;
	if (fp_session_after_procs(s))
		return FP_EXIT_NOTRACE;
	if (o->leftovers != LEFTOVERS_ALLOW)
		stop_run(&t->cg);
	/* every process in the cgroup is gone: its records are in the ring */
	fp_session_drain(s);
	if (run->exec_errno)
		fprintf(stderr, "footprint: cannot run %s: %s\n", o->argv[0],
			strerror(run->exec_errno));
	return 0;
}

static int run_session(struct fp_session *s, struct run_target *t,
		       const struct run_opts *o, int64_t deadline_ms,
		       bool *judged)
{
	char err[512];
	int rc;

	rc = fp_session_outputs(s);
	if (!rc)
		rc = run_cgroup(s, t, o);
	if (!rc)
		rc = fp_session_before(s);
	if (!rc)
		rc = run_scope(s, t);
	if (!rc)
		rc = run_signals(t, deadline_ms);
	if (!rc && fp_session_attach(s, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		rc = FP_EXIT_NOTRACE;
	}
	if (!rc)
		rc = run_command(s, t, o);
	if (!rc)
		rc = fp_session_after_files(s);
	*judged = !rc;
	return rc ? rc : fp_session_verdict(s);
}

/* --push: the receipt to the store (docs/fleet.md), or to the spool */
static void run_push(const struct run_opts *o, const struct fp_creds *c,
		     struct fp_session *s, int *rc)
{
	struct fp_fleet_opts fo = { .url = o->push_url,
				    .creds = c,
				    .job = o->push_job,
				    .quiet = o->quiet };

	/* neither pushed nor spooled: an output that failed */
	if (fp_fleet_push_judged(&fo, &s->run, &s->findings, &s->verdict,
				 &s->out) &&
	    *rc == FP_EXIT_OK)
		*rc = FP_EXIT_NOTRACE;
}

static void run_target_close(struct run_target *t, int leftovers)
{
	/* the caller's terminal as it was, whatever went wrong */
	fp_pty_close(&t->pty);
	if (t->child.pidfd >= 0)
		close(t->child.pidfd);
	if (t->sigfd >= 0)
		close(t->sigfd);
	if (t->timerfd >= 0)
		close(t->timerfd);
	/* allowed leftovers keep their cgroup; nothing else survives us */
	if (t->cg.fd >= 0 && leftovers != LEFTOVERS_ALLOW && t->child.pid > 0)
		stop_run(&t->cg);
	/* allowed leftovers in a box keep its init, which outlives us */
	if (leftovers != LEFTOVERS_ALLOW)
		fp_box_end(&t->child);
	else if (t->child.init_fd >= 0)
		close(t->child.init_fd);
	if (t->cg.fd >= 0 && fp_cgroup_populated(&t->cg) != 1)
		fp_cgroup_remove(&t->cg);
	else if (t->cg.fd >= 0 && leftovers == LEFTOVERS_ALLOW)
		fp_cgroup_release(&t->cg);
	else if (t->cg.fd >= 0)
		close(t->cg.fd);
	fp_watchdog_disarm(&t->wd);
	fp_identity_free(&t->id);
	fp_scratch_close(&t->sc);
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct run_target t = {
		.cg = { .fd = -1 },
		.wd = FP_WATCHDOG_INIT,
		.child = { .pid = -1,
			   .pidfd = -1,
			   .init_pid = -1,
			   .init_fd = -1,
			   .monitor = -1,
			   .monitor_fd = -1 },
		.sc = { .dirfd = -1 },
		.pty = FP_PTY_INIT,
		.sigfd = -1,
		.timerfd = -1,
	};
	struct fp_session s;
	struct fp_session_opts so = { 0 };
	struct fp_attest_job att = FP_ATTEST_JOB_INIT;
	struct fp_creds invoker = { 0 };
	struct fp_policy pol = { 0 };
	char *roots[FP_ROOTS_MAX] = { 0 };
	int root_fds[FP_ROOTS_MAX];
	char *shape_pol = NULL;
	char err[512];
	int64_t deadline_ms = 0;
	bool judged = false;
	int rc;
	size_t i;

	/* no core dump: it would hold the trace's data, and footprint's fds
	 * (so the watchdog's trigger) open for as long as it is written */
	prctl(PR_SET_DUMPABLE, 0);
	rc = fp_run_args_parse(argc, argv, &o);
	if (rc == FP_ARGS_HELP) {
		fp_run_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc)
		return rc;
	if (fp_creds_invoker(&invoker, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	if (o.timeout_ms)
		deadline_ms = fp_now_ms() + o.timeout_ms;
	rc = run_policy(&o, &invoker, roots, &pol);
	o.attest.quiet = o.quiet;
	if (!rc)
		rc = fp_attest_job_prepare(&att, &o.attest, &invoker);
	if (!rc && o.inputs_lock)
		rc = fp_run_inputs_check(&o, roots, &invoker);
	if (!rc && o.shape_policy)
		rc = o.unit ? fp_shape_policy_text(o.shape_policy, &shape_pol) :
			      fp_usage_error("run",
					     "--shape-policy needs --unit");
	so = (struct fp_session_opts){
		.roots = roots,
		.nroots = o.nroots,
		.pol = &pol,
		.invoker = &invoker,
		.receipt_path = o.receipt_path,
		.events_path = o.events_path,
		.record_path = o.record_path,
		.record_max = o.record_max,
		.log_fd = -1,
		.force = o.force,
		.quiet = o.quiet,
		.summary_max = o.summary_max,
		.cross_mounts = o.cross_mounts,
		.rehash_all = o.rehash_all,
		.report_reads = o.report_reads,
		.mem_budget = o.mem_budget,
		.ring_bytes = o.ring_bytes,
		.every_open = o.every_open,
		.warm = !o.cold,
		.max_argv_bytes = o.max_argv_bytes,
		.deadline_ms = deadline_ms,
		.timeout_ms = o.timeout_ms,
		/* filled once the overlays are mounted, before any snapshot */
		.root_fds = o.scratch_dir ? root_fds : NULL,
		.unit = o.unit,
		.shape_policy = shape_pol,
	};
	memcpy(so.dns_ports, o.dns_ports, sizeof(so.dns_ports));
	if (fp_session_init(&s, &so)) {
		fprintf(stderr, "footprint: out of memory\n");
		rc = FP_EXIT_NOTRACE;
	}
	if (!rc) {
		/* every output's directory is checked before anything runs */
		rc = fp_session_prepare(&s);
		if (!rc)
			rc = run_identity(&o, &invoker, &t.id);
		if (!rc && o.scratch_dir)
			rc = fp_run_scratch_open(&t.sc, &o, roots, &invoker,
						 &s.run.scratch_dir, root_fds);
		s.run.no_network = o.scratch_dir && o.no_network;
		if (!rc)
			rc = run_session(&s, &t, &o, deadline_ms, &judged);
		rc = fp_attest_after_run(&att, &s, rc);
		/* the outputs go to the invoking user (or, for a root login,
		 * to --user's) once the run is over */
		fp_session_finish(&s, &rc, invoker.active || t.id.drop,
				  invoker.active ? invoker.uid : t.id.uid,
				  invoker.active ? invoker.gid : t.id.gid,
				  invoker.active ? invoker.name : t.id.name);
		if (judged && o.push_url)
			run_push(&o, &invoker, &s, &rc);
	}
	fp_session_free(&s);
	fp_attest_job_free(&att);
	run_target_close(&t, o.leftovers);
	fp_creds_free(&invoker);
	fp_policy_free(&pol);
	free(shape_pol);
	for (i = 0; i < 64; i++)
		free(roots[i]);
	return rc;
}
