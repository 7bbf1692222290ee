/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state the tests of a sidecar's job (steps, footprint's own
 * processes) reconcile in: a reconciler R whose step parent is PARENT,
 * its clock, empty snapshots under the one root /w and the findings, and
 * the events each feeds it. sidecar_fixture_setup() and
 * sidecar_fixture_free() make and free that state.
 */
#ifndef FP_SIDECAR_FIXTURE_H
#define FP_SIDECAR_FIXTURE_H

#include "recon_fixture.h"

#define PARENT 100 /* the step parent: Runner.Worker */

static struct fp_recon *R;
static struct fp_fs_snapshot B, A;
static struct fp_findings F;
static uint64_t now_ns = 1000;
static char *roots[] = { "/w" };

static inline void sidecar_fixture_setup(void)
{
	R = fp_recon_new();
	cr_assert_not_null(R);
	fp_recon_set_step_parent(R, PARENT);
}

static inline void sidecar_fixture_free(void)
{
	fp_findings_free(&F);
	fp_recon_free(R);
	memset(&B, 0, sizeof(B));
	memset(&A, 0, sizeof(A));
}

/* ev, as its process's main thread */
static inline void feed(struct fp_event *ev)
{
	ev->tid = ev->pid;
	recon_feed(R, &now_ns, ev);
}

static inline void ev_fork(pid_t pid, pid_t ppid)
{
	struct fp_event ev = fork_event_of(pid, ppid);

	feed(&ev);
}

/* pid, a child of ppid, creates path */
static inline void ev_write(pid_t pid, pid_t ppid, const char *path)
{
	struct fp_event ev =
		file_event_of(pid, FP_SYS_OPENAT, path, NULL,
			      O_WRONLY | O_CREAT | O_TRUNC, true, 3);

	ev.ppid = ppid;
	feed(&ev);
}

static inline void ev_mark(const char *name)
{
	struct fp_event ev = mark_event_of(name);

	feed(&ev);
}

#endif
