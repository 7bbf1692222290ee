// SPDX-License-Identifier: GPL-2.0
/*
 * The box `footprint run` launches its command in: a cgroup of its own
 * and its watchdog, the identity the command runs as, its terminal, the
 * signals passed on and the --timeout clock; the launch, the loop until
 * it exits, and its leftovers. A session (session.h) does the tracing,
 * snapshots and verdict around it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "cli.h"
#include "run_target.h"
#include "runloop.h"

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

/* Who runs the command, checked before anything is created. */
int fp_run_target_identity(struct fp_run_target *t, const char *user,
			   bool as_root, const struct fp_creds *c)
{
	struct fp_identity *id = &t->id;
	char err[512];

	if (geteuid() != 0) {
		fprintf(stderr,
			"footprint: tracing needs root; run it under sudo: sudo footprint run -- %s\n",
			t->argv[0]);
		return FP_EXIT_NOTRACE;
	}
	if (fp_identity_resolve(id, user, as_root, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	return check_identity(id, c);
}

/* The tracer's load started, the run's cgroup and its watchdog (which
 * closes the loader's fds it inherits; it arms while footprint goes on,
 * and run_command waits for that before the command starts). */
static int run_cgroup(struct fp_session *s, struct fp_run_target *t)
{
	char err[512];

	if (fp_session_start_tracer(s, err, sizeof(err)) ||
	    fp_cgroup_create(&t->cg, err, sizeof(err)) ||
	    fp_watchdog_fork(&t->wd, &t->cg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_NOTRACE;
	}
	if (fp_session_header(s, t->argv, t->cg.rel)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	return 0;
}

/* Once loaded (fp_session_before joins the load), the tracer's scope. */
static int run_scope(struct fp_session *s, struct fp_run_target *t)
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
static int run_signals(struct fp_run_target *t, int64_t deadline_ms)
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

/* The ring read to its end, the tracer stopped (and closed on a thread);
 * the watchdog told to go once nothing is left to kill, nothing traced,
 * so that its exit runs beside what remains of the run, and with it the
 * links' detach. */
static void end_trace(struct fp_session *s, struct fp_run_target *t)
{
	fp_session_drain(s, t->leftovers != LEFTOVERS_ALLOW ? &t->wd : NULL);
}

/* Launch the command and trace it until it exits; then leftovers. */
static int run_command(struct fp_session *s, struct fp_run_target *t)
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
	ret = fp_launch(&t->child, t->argv, t->cg.fd, &t->old, &t->id,
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
	fp_session_settle_leftovers(s, run->leftover, run->nleftover);
	if (t->leftovers == LEFTOVERS_KILL)
		stop_run(&t->cg);
	/* the box's init is not the command's: gone before it is seen */
	if (nleft == 0 || t->leftovers == LEFTOVERS_KILL)
		fp_box_end(&t->child);
	/* else it keeps the leftovers' namespace until they are stopped */
	run->own_pid = t->child.init_pid > 0 ? t->child.init_pid : 0;
	if (fp_session_after_procs(s))
		return FP_EXIT_NOTRACE;
	if (t->leftovers != LEFTOVERS_ALLOW)
		stop_run(&t->cg);
	/* every process in the cgroup is gone: its records are in the ring */
	end_trace(s, t);
	if (run->exec_errno)
		fprintf(stderr, "footprint: cannot run %s: %s\n", t->argv[0],
			strerror(run->exec_errno));
	return 0;
}

int fp_run_target_session(struct fp_session *s, struct fp_run_target *t,
			  int64_t deadline_ms, bool *judged)
{
	char err[512];
	int rc;

	/* first, while footprint is small and has one thread */
	if (fp_watchdog_spawn(&t->wd, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_NOTRACE;
	}
	rc = fp_session_outputs(s);
	if (!rc)
		rc = run_cgroup(s, t);
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
		rc = run_command(s, t);
	if (!rc)
		rc = fp_session_after_files(s);
	*judged = !rc;
	return rc ? rc : fp_session_verdict(s);
}

void fp_run_target_close(struct fp_run_target *t)
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
	if (t->cg.fd >= 0 && t->leftovers != LEFTOVERS_ALLOW &&
	    t->child.pid > 0)
		stop_run(&t->cg);
	/* allowed leftovers in a box keep its init, which outlives us */
	if (t->leftovers != LEFTOVERS_ALLOW)
		fp_box_end(&t->child);
	else if (t->child.init_fd >= 0)
		close(t->child.init_fd);
	if (t->cg.fd >= 0 && fp_cgroup_populated(&t->cg) != 1)
		fp_cgroup_remove(&t->cg);
	else if (t->cg.fd >= 0 && t->leftovers == LEFTOVERS_ALLOW)
		fp_cgroup_release(&t->cg);
	else if (t->cg.fd >= 0)
		close(t->cg.fd);
	fp_watchdog_disarm(&t->wd);
	fp_identity_free(&t->id);
	fp_scratch_close(&t->sc);
}
