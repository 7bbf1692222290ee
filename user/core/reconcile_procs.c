// SPDX-License-Identifier: GPL-2.0
/* Execs, forks, exits, mounts and namespaces; the process tables compared. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reconcile_int.h"
#include "authprog.h"

/* an exec's record, its cmdline, and its finding in executed */
static uint64_t exec_cost(const struct fp_event *ev)
{
	return VEC_COST(sizeof(struct exec_rec)) +
	       ALLOC(sizeof(struct fp_cmdline)) + ALLOC(ev->exec.exe.len + 1) +
	       ALLOC(fp_argv_keep_len(ev->exec.argv.data, ev->exec.argv.len) +
		     1) +
	       VEC_COST(sizeof(struct fp_proc_finding));
}

/* the process table's row of p, at its fork or exec (cmd) */
static int proc_row(struct fp_recon *r, struct proc_state *p,
		    const struct fp_event *ev, struct fp_cmdline *cmd)
{
	struct proc_state *pp = proc_of(r, ev->ppid);
	uint32_t parent = pp ? pp->row : 0;

	if (charge(r, FP_PROCTAB_ROW_COST))
		return -EDQUOT;
	if (ev->type == FP_EV_FORK)
		return fp_proctab_fork(&r->ptab, &p->row, parent, ev, p->group);
	return fp_proctab_exec(&r->ptab, &p->row, parent, ev, cmd, p->group);
}

int fp_rc_feed_exec(struct fp_recon *r, const struct fp_event *ev)
{
	struct exec_rec *e;
	struct proc_state *p;
	uint32_t g, *eg;
	unsigned int rose;
	long base;
	int ret = fp_rc_event_group(r, ev, &g);

	if (!ret)
		ret = fp_rc_name_group(r, ev, g);
	if (!ret)
		ret = fp_rc_proc_new(r, ev->pid, &p);
	if (ret)
		return ret;
	/* struct who holds an exec index in 32 bits */
	if (r->execs.n >= INT32_MAX ||
	    charge(r, exec_cost(ev) +
			      (r->step_parent ? VEC_COST(sizeof(*eg)) : 0)))
		return -EDQUOT;
	/* a pid reused by a process whose fork was not seen: no baseline */
	base = p->exited ? -1 : p->exec_idx;
	rose = fp_privs_rose(base < 0 ? NULL : &exec_at(r, base)->creds,
			     &ev->exec.creds);
	if (rose && charge(r, VEC_COST(sizeof(struct fp_proc_finding))))
		return -EDQUOT;
	if (r->step_parent) {
		eg = fp_vec_push(&r->exec_groups, sizeof(*eg));
		if (!eg)
			return -ENOMEM;
		*eg = g;
	}
	e = fp_vec_push(&r->execs, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->pid = ev->pid;
	e->ppid = ev->ppid;
	e->ts_ns = ev->ts_ns;
	e->creds = ev->exec.creds;
	e->auth = fp_auth_program(ev);
	e->base = base;
	e->rose = rose;
	/* only the start of argv: the receipt shows no more */
	e->cmd = fp_cmdline_new(ev->exec.exe.data, ev->exec.exe.len,
				ev->exec.argv.data, ev->exec.argv.len,
				ev->exec.argv_dropped > 0);
	if (!e->cmd) {
		r->execs.n--;
		if (r->step_parent)
			r->exec_groups.n--;
		return -ENOMEM;
	}
	if (p->exited) {
		/* pid reused */
		p->exited = false;
	}
	p->ppid = ev->ppid;
	p->exec_idx = r->execs.n - 1;
	p->started = true;
	p->own = false;
	fp_rc_note_ran(r, ev);
	return proc_row(r, p, ev, e->cmd);
}

int fp_rc_feed_fork(struct fp_recon *r, const struct fp_event *ev)
{
	long parent_exec = exec_of(r, ev->ppid);
	struct proc_state *p;
	int ret = fp_rc_proc_new(r, ev->pid, &p);

	if (ret)
		return ret;
	p->ppid = ev->ppid;
	p->exec_idx = parent_exec;
	p->started = true;
	p->exited = false;
	/* a child of footprint's own that predates the trace is its own */
	p->own = false;
	if (parent_exec < 0) {
		struct proc_state *pp = proc_of(r, ev->ppid);

		p->own = pp && pp->own;
	}
	return fp_rc_fork_group(r, ev, p) ?: proc_row(r, p, ev, NULL);
}

int fp_rc_feed_exit(struct fp_recon *r, const struct fp_event *ev)
{
	struct proc_state *p = proc_of(r, ev->pid);
	struct fp_proc_finding *f;
	struct who w;

	if (!p || !p->started || p->exited)
		return 0;
	fp_proctab_exit(&r->ptab, p->row, ev);
	/* kept here, and copied into the findings */
	if (charge(r, 2 * VEC_COST(sizeof(*f))))
		return -EDQUOT;
	p->exited = true;
	f = fp_vec_push(&r->short_lived, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->exit_code = ev->exit.code;
	f->signal = ev->exit.signal;
	f->ts_ns = ev->ts_ns;
	w = who_now(r, ev->pid);
	return fp_rc_actor_fill(r, &f->p, &w);
}

/*
 * A mount or namespace call. One made by a process footprint never saw
 * fork or exec is the launcher's own setting up of the box (the
 * command's first process before its exec), not the command's.
 */
int fp_rc_feed_procop(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_procop_finding x = {
		.kind = fp_procop_event_kind(ev),
		.sys = ev->procop.sys,
		.err = ev->procop.ret < 0 ? (int)-ev->procop.ret : 0,
		.flags = ev->procop.flags,
		.path = ev->procop.target,
		.source = ev->procop.source,
		.ts_ns = ev->ts_ns,
		.pid = ev->pid,
		.exec = exec_of(r, ev->pid),
	};
	int ret;

	if (!proc_of(r, ev->pid))
		return 0;
	ret = fp_rc_event_group(r, ev, &x.group);
	if (ret)
		return ret;
	if (charge(r, ALLOC(sizeof(x)) + ALLOC(x.path.len + 1) +
			      ALLOC(x.source.len + 1)))
		return -EDQUOT;
	ret = fp_procop_note(r->procops, r->procops_omitted, &x);
	return ret < 0 ? ret : 0;
}

/*
 * An exec of a file on no mount (a memfd): its exe is the kernel's name
 * of it, "memfd:NAME", where every other exe is an absolute path.
 */
int fp_rc_feed_exec_fileless(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_procop_finding x = {
		.kind = FP_PO_FILELESS,
		.path = ev->exec.exe,
		.ts_ns = ev->ts_ns,
		.pid = ev->pid,
		.exec = exec_of(r, ev->pid),
	};
	int ret;

	if (!ev->exec.exe.len || ev->exec.exe.data[0] == '/')
		return 0;
	ret = fp_rc_event_group(r, ev, &x.group);
	if (ret)
		return ret;
	if (charge(r, ALLOC(sizeof(x)) + ALLOC(x.path.len + 1) + ALLOC(1)))
		return -EDQUOT;
	ret = fp_procop_note(r->procops, r->procops_omitted, &x);
	return ret < 0 ? ret : 0;
}

static int proc_from_snapshot(struct fp_proc_finding *f,
			      const struct fp_proc *p)
{
	f->p.pid = p->pid;
	f->p.ppid = p->ppid;
	return fp_actor_own(&f->p, p->exe.data, p->exe.len, p->argv.data,
			    p->argv.len);
}

bool fp_rc_is_leftover(const struct fp_recon_input *in, pid_t pid)
{
	size_t i;

	for (i = 0; i < in->nleftover; i++)
		if (in->leftover[i] == pid)
			return true;
	return false;
}

bool fp_rc_in_run_cgroup(const struct fp_recon_input *in,
			 const struct fp_proc *p)
{
	size_t n = in->run_cgroup ? strlen(in->run_cgroup) : 0;

	return n && p->cgroup.data &&
	       fp_path_under(p->cgroup.data, p->cgroup.len, in->run_cgroup, n);
}

/* an exec that raised privileges, as its executed entry x shows it */
static int push_privileged(const struct fp_recon *r, struct fp_findings *out,
			   const struct fp_proc_finding *x,
			   const struct exec_rec *e)
{
	struct fp_proc_finding *f = fp_vec_push(&out->privileged, sizeof(*f));

	if (!f)
		return -ENOMEM;
	*f = *x;
	fp_actor_share(&f->p, e->cmd);
	if (e->base >= 0)
		f->base = exec_at(r, e->base)->creds;
	f->rose = e->rose;
	return 0;
}

int fp_rc_compare_procs(const struct fp_recon *r,
			const struct fp_recon_input *in,
			struct fp_findings *out)
{
	const struct fp_proc_table *B = in->proc_before, *A = in->proc_after;
	struct fp_proc_finding *f;
	struct who w;
	size_t i;

	for (i = 0; i < r->execs.n; i++) {
		const struct exec_rec *e =
			fp_vec_at(&r->execs, struct exec_rec, i);

		f = fp_vec_push(&out->procs[FP_P_EXECUTED], sizeof(*f));
		if (!f)
			return -ENOMEM;
		fp_actor_share(&f->p, e->cmd);
		f->p.pid = e->pid;
		f->p.ppid = e->ppid;
		f->ts_ns = e->ts_ns;
		f->creds = e->creds;
		if (i < r->exec_groups.n)
			f->p.step =
				*fp_vec_at(&r->exec_groups, const uint32_t, i);
		if (e->rose && push_privileged(r, out, f, e))
			return -ENOMEM;
	}
	for (i = 0; i < r->short_lived.n; i++) {
		const struct fp_proc_finding *s =
			fp_vec_at(&r->short_lived, struct fp_proc_finding, i);

		/* a leftover killed after the command exited is a leftover */
		if (fp_rc_is_leftover(in, s->p.pid))
			continue;

		f = fp_vec_push(&out->procs[FP_P_SHORT_LIVED], sizeof(*f));
		if (!f)
			return -ENOMEM;
		*f = *s;
		if (fp_actor_copy(&f->p, &s->p))
			return -ENOMEM;
	}
	for (i = 0; i < in->nleftover; i++) {
		const struct fp_proc *p =
			A ? fp_proc_find(A, in->leftover[i]) : NULL;

		f = fp_vec_push(&out->procs[FP_P_LEFTOVER], sizeof(*f));
		if (!f)
			return -ENOMEM;
		/*
		 * Its last exec during the run names it best: the snapshot
		 * may predate an exec that raced it, or the process may be
		 * dying or gone. A process that never exec'd has only /proc.
		 */
		w = who_now(r, in->leftover[i]);
		if (w.exec >= 0 || !p || !p->exe.len) {
			if (fp_rc_actor_fill(r, &f->p, &w))
				return -ENOMEM;
			if (p)
				f->p.ppid = p->ppid;
		} else if (proc_from_snapshot(f, p)) {
			return -ENOMEM;
		}
		f->p.step = w.group;
	}
	for (i = 0; A && B && i < A->n; i++) {
		const struct fp_proc *p = &A->procs[i];
		const struct fp_proc *q = fp_proc_find(B, p->pid);

		if (p->kernel_thread || (q && fp_proc_same(p, q)) ||
		    fp_rc_in_run_cgroup(in, p) ||
		    fp_rc_is_leftover(in, p->pid) ||
		    (in->own_pid > 0 && p->pid == in->own_pid))
			continue;
		f = fp_vec_push(&out->procs[FP_P_NEW_OUTSIDE], sizeof(*f));
		if (!f || proc_from_snapshot(f, p))
			return -ENOMEM;
	}
	for (i = 0; A && B && i < B->n; i++) {
		const struct fp_proc *p = &B->procs[i];
		const struct fp_proc *q = fp_proc_find(A, p->pid);

		if (p->kernel_thread || (q && fp_proc_same(p, q)))
			continue;
		f = fp_vec_push(&out->procs[FP_P_DISAPPEARED], sizeof(*f));
		if (!f || proc_from_snapshot(f, p))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The mounts, namespaces, fileless execs and set-ID files, with their
 * actors. A set-group-ID directory only hands its group on: a chmod that
 * left one (per the after snapshot) is not a set-ID file.
 */
int fp_rc_procop_findings(const struct fp_recon *r,
			  const struct fp_recon_input *in,
			  struct fp_findings *out)
{
	const struct fp_fentry *e;
	size_t k, i;

	for (k = 0; k < FP_PO_NKINDS; k++) {
		const struct fp_procop_finding *src = fp_vec_arr(
			&r->procops[k], const struct fp_procop_finding);

		out->procops_omitted[k] = r->procops_omitted[k];
		for (i = 0; i < r->procops[k].n; i++) {
			struct fp_procop_finding *x;
			struct who w = { src[i].pid, src[i].exec,
					 src[i].group };

			if (k == FP_PO_SETID && !(src[i].mode & 04000) &&
			    (e = fp_fs_find(in->fs_after, src[i].path.data,
					    src[i].path.len)) &&
			    e->type == 'd')
				continue;
			x = fp_vec_push(&out->procops[k], sizeof(*x));
			if (!x)
				return -ENOMEM;
			*x = src[i];
			memset(&x->by, 0, sizeof(x->by));
			x->path.data = NULL;
			x->source.data = NULL;
			if (fp_bytes_dup(&x->path, src[i].path.data,
					 src[i].path.len) ||
			    fp_bytes_dup(&x->source, src[i].source.data,
					 src[i].source.len) ||
			    fp_rc_actor_fill(r, &x->by, &w))
				return -ENOMEM;
		}
	}
	return 0;
}
