/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests that feed hand-built events to a reconciler share: the
 * events, their feeding, the input over the snapshots, the judging and
 * the search of the reads found. Each test file keeps its own reconciler,
 * findings and clock, and passes them in.
 */
#ifndef FP_RECON_FIXTURE_H
#define FP_RECON_FIXTURE_H

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>

#include "judge.h"
#include "policy.h"
#include "reconcile.h"
#include "sensitive.h"
#include "unit_util.h"

/* s without its NUL, owned */
static inline struct fp_bytes str(const char *s)
{
	return bytes(s, strlen(s));
}

/* ev, at the clock's next tick, taken by r; ev is freed */
static inline void recon_feed(struct fp_recon *r, uint64_t *clock,
			      struct fp_event *ev)
{
	ev->ts_ns = (*clock)++;
	cr_assert_eq(fp_recon_feed(r, ev), 0);
	fp_event_free(ev);
}

/* pid, forked by ppid */
static inline struct fp_event fork_event_of(pid_t pid, pid_t ppid)
{
	struct fp_event ev = {
		.type = FP_EV_FORK, .pid = pid, .tid = pid, .ppid = ppid
	};

	ev.fork.parent_tid = ppid;
	return ev;
}

/* pid, a child of ppid, runs exe (its filename too): argv, argvlen bytes
 * of NUL-separated arguments, all the process had */
static inline struct fp_event exec_event_of(pid_t pid, pid_t ppid,
					    const char *exe, const char *argv,
					    size_t argvlen)
{
	struct fp_event ev = {
		.type = FP_EV_EXEC, .pid = pid, .tid = pid, .ppid = ppid
	};

	ev.exec.exe = str(exe);
	ev.exec.filename = str(exe);
	ev.exec.argv = bytes(argv, argvlen);
	ev.exec.argv_total = argvlen;
	return ev;
}

/* pid's file syscall sys on p0 and, for a rename or a link, p1 (else
 * NULL), both from the working directory: its flags, whether it made
 * the file, what it returned */
static inline struct fp_event file_event_of(pid_t pid, uint32_t sys,
					    const char *p0, const char *p1,
					    uint64_t flags, bool created,
					    int64_t ret)
{
	struct fp_event ev = { .type = FP_EV_FILE, .pid = pid, .tid = pid };

	ev.file.sys = sys;
	ev.file.flags = flags;
	ev.file.created = created;
	ev.file.ret = ret;
	ev.file.npaths = p1 ? 2 : 1;
	ev.file.path[0].path = str(p0);
	ev.file.path[0].dirfd = AT_FDCWD;
	if (p1) {
		ev.file.path[1].path = str(p1);
		ev.file.path[1].dirfd = AT_FDCWD;
	}
	return ev;
}

/* a step's exec in a sidecar's job: a new image of pid, a child of ppid,
 * exe with an argv of exe alone, cut before its NUL; step: GITHUB_ACTION
 * in the new environment, or NULL */
static inline struct fp_event step_exec_of(pid_t pid, pid_t ppid,
					   const char *exe, const char *step)
{
	struct fp_event ev = exec_event_of(pid, ppid, exe, exe, strlen(exe));

	ev.exec.argv_total = strlen(exe) + 1;
	ev.exec.old_pid = pid;
	if (step)
		ev.exec.step_name = str(step);
	return ev;
}

/* footprint mark name */
static inline struct fp_event mark_event_of(const char *name)
{
	struct fp_event ev = { .type = FP_EV_MARK };

	ev.mark.name = str(name);
	return ev;
}

/* what fp_reconcile reads: the snapshots b and a under roots, and no
 * more; the caller adds the rest */
static inline struct fp_recon_input recon_input(struct fp_fs_snapshot *b,
						struct fp_fs_snapshot *a,
						char **roots, size_t nroots)
{
	return (struct fp_recon_input){
		.fs_before = b,
		.fs_after = a,
		.roots = roots,
		.nroots = nroots,
	};
}

/* f judged by p into v, for a run traced whole that ended well */
static inline void judge_run(const struct fp_policy *p, struct fp_findings *f,
			     struct fp_verdict *v)
{
	struct fp_outcome o = { .exit_code = 0, .complete = true };

	cr_assert_eq(fp_judge(p, f, &o, v), 0);
}

/* r's events reconciled over in into f, then judged by p into v */
static inline void recon_judge(struct fp_recon *r,
			       const struct fp_recon_input *in,
			       struct fp_findings *f, const struct fp_policy *p,
			       struct fp_verdict *v)
{
	cr_assert_eq(fp_reconcile(r, in, f), 0);
	judge_run(p, f, v);
}

/* the read of path in f by exe (NULL: by anyone), or NULL */
static inline const struct fp_read_finding *
find_read(const struct fp_findings *f, const char *path, const char *exe)
{
	size_t i;

	for (i = 0; i < f->reads.n; i++) {
		const struct fp_read_finding *x = &FP_READS(f)[i];

		if (strcmp(x->path.data, path))
			continue;
		if (!exe || (x->by.exe.data && !strcmp(x->by.exe.data, exe)))
			return x;
	}
	return NULL;
}

#endif
