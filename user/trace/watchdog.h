/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run's watchdog: a small root process, outside the run's cgroup, that
 * outlives footprint only to kill the run when footprint dies mid-trace
 * (SIGKILL, the OOM killer, a crash), so that the command never goes on
 * untraced. It waits on a socket whose other end only footprint holds: the
 * kernel closes that end whenever and however footprint ends, and the
 * watchdog then freezes and kills the cgroup, waits until it is empty,
 * removes it and exits. footprint disarms it at the end of a run.
 */
#ifndef FP_WATCHDOG_H
#define FP_WATCHDOG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgroup.h"

struct fp_watchdog {
	pid_t pid;
	int sock; /* footprint's end: closed without a word, the watchdog fires */
	int pidfd;
	bool handed; /* it closes fds it was handed: not waited for */
	int handed_sock; /* then: its word to close them (or -1), left to
			    footprint's exit */
};

#define FP_WATCHDOG_INIT                                              \
	{                                                             \
		.pid = -1, .sock = -1, .pidfd = -1, .handed_sock = -1 \
	}

/* The name the watchdog shows in ps, as comm and as its command line. */
#define FP_WATCHDOG_NAME "fp-watchdog"

/*
 * Returns once the watchdog holds everything it needs to kill cg (open
 * files of the cgroup, oom_score_adj -1000), or an error in err: then no
 * watchdog runs and the command must not be started.
 */
int fp_watchdog_start(struct fp_watchdog *wd, const struct fp_cgroup *cg,
		      char *err, size_t errlen);
/*
 * fp_watchdog_start in parts, so that footprint's own start goes on
 * while the watchdog arms (a few ms). fp_watchdog_spawn forks it early,
 * while footprint is small and has one thread (the fork is cheaper and
 * fewer of footprint's pages go copy-on-write); fp_watchdog_fork gives it
 * the cgroup (spawning it first if that was not done), and
 * fp_watchdog_armed, called before the command is, returns once it is
 * armed. Any failing leaves no watchdog, and why in err. Disarming one
 * that has no cgroup yet ends it.
 */
int fp_watchdog_spawn(struct fp_watchdog *wd, char *err, size_t errlen);
int fp_watchdog_fork(struct fp_watchdog *wd, const struct fp_cgroup *cg,
		     char *err, size_t errlen);
int fp_watchdog_armed(struct fp_watchdog *wd, char *err, size_t errlen);
/* The run is over: the watchdog exits without touching the cgroup. */
void fp_watchdog_disarm(struct fp_watchdog *wd);
/*
 * The first half of that: told to exit, not waited for, so that its exit
 * (the unmap of its copy of footprint's memory, ~1 ms) runs beside the
 * verdict; fp_watchdog_disarm then reaps it. Once nothing of the run is
 * left to kill: every process gone, the tracer stopped.
 */
void fp_watchdog_release(struct fp_watchdog *wd);
/*
 * The same, handing it n fds (at most FP_FDPASS_MAX) to close in order
 * before it exits, which footprint does not wait for: the tracer's links
 * (fp_tracer_end_fds), whose detach is then not on footprint's way out.
 * It closes them once footprint has ended: its end of the socket
 * (handed_sock) stays open through fp_watchdog_disarm, for footprint's
 * exit to close after the kernel has unmapped footprint's memory. Closed
 * any earlier, the detach's IPIs land in the verdict or in that unmap
 * (docs/BENCHMARKS.md, "The links' detach at footprint's exit"). 0, or
 * -errno (said): the fds stay footprint's alone.
 */
int fp_watchdog_release_fds(struct fp_watchdog *wd, const int *fds, int n);

#endif
