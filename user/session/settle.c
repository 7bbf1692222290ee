// SPDX-License-Identifier: GPL-2.0
/*
 * A leftover forked in the command's last moments (`daemon &` as a
 * script's last line) may not have exec'd when the command's exit is
 * seen: named then, it is the shell it was forked from, and killed so.
 * Its exec, seen a moment later, names it by what it runs (reconcile's
 * who_now()), as the user who finds it running would. The after
 * snapshot took ~2.7 ms before the task iterator and ~1 ms since, and
 * only its length had given the exec its time.
 */
#include <time.h>

#include "session.h"

/* longer than an exec takes here (~1-3 ms traced), short for a fork that
 * never execs (a subshell), which costs it once a run */
#define SETTLE_MS 20

static bool any_pending(const struct fp_run *run, const pid_t *pids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fp_recon_exec_pending(run->recon, pids[i]))
			return true;
	return false;
}

void fp_session_settle_leftovers(struct fp_session *s, const pid_t *pids,
				 size_t n)
{
	const struct timespec ms = { 0, 1000000 };
	int waited;

	if (!n)
		return;
	for (waited = 0; waited <= SETTLE_MS; waited++) {
		if (s->tracer)
			fp_session_consume(s);
		if (!any_pending(&s->run, pids, n))
			return;
		nanosleep(&ms, NULL);
	}
}
