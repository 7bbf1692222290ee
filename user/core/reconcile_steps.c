// SPDX-License-Identifier: GPL-2.0
/*
 * The sidecar's steps: processes fall into groups as events come; at the
 * end each group is placed in a step by the process tables, and named.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconcile_int.h"
#include "netflow.h"

static int group_new(struct fp_recon *r, pid_t root, bool step, bool forked,
		     uint64_t ts, uint32_t *g)
{
	struct group_rec *gr;

	if (charge(r, VEC_COST(sizeof(*gr))))
		return -EDQUOT;
	gr = fp_vec_push(&r->groups, sizeof(*gr));
	if (!gr)
		return -ENOMEM;
	gr->root = root;
	gr->step = step;
	gr->forked = forked;
	/* one that predates the trace started before any mark */
	gr->mark = forked ? r->marks.n : 0;
	gr->ts_ns = ts;
	*g = r->groups.n;
	return 0;
}

/* A fork: a child of the step parent starts a step; any other child is
 * in its parent's group, which is the parent's own if it predates the
 * trace. */
int fp_rc_fork_group(struct fp_recon *r, const struct fp_event *ev,
		     struct proc_state *p)
{
	struct proc_state *pp;
	int ret;

	p->group = 0;
	if (!r->step_parent || !ev->ppid)
		return 0;
	if ((pid_t)ev->ppid == r->step_parent)
		return group_new(r, ev->pid, true, true, ev->ts_ns, &p->group);
	ret = fp_rc_proc_new(r, ev->ppid, &pp);
	if (ret)
		return ret;
	if (!pp->group) {
		ret = group_new(r, ev->ppid, false, false, ev->ts_ns,
				&pp->group);
		if (ret)
			return ret;
		/* footprint's own that predates the trace: no step */
		GROUPS(r)[pp->group - 1].own = pp->own;
	}
	p->group = pp->group;
	return 0;
}

/* The group of the process any other event comes from, made if new. */
int fp_rc_event_group(struct fp_recon *r, const struct fp_event *ev,
		      uint32_t *g)
{
	bool child = (pid_t)ev->ppid == r->step_parent;
	struct proc_state *p, *pp;
	int ret;

	*g = 0;
	if (!r->step_parent || !ev->pid || (pid_t)ev->pid == r->step_parent)
		return 0;
	p = proc_of(r, ev->pid);
	if (!p || !p->group) {
		ret = fp_rc_proc_new(r, ev->pid, &p);
		if (ret)
			return ret;
		pp = proc_of(r, ev->ppid);
		if (!child && pp && pp->group)
			p->group = pp->group;
		else if ((ret = group_new(r, ev->pid, child, false, ev->ts_ns,
					  &p->group)))
			return ret;
		else
			GROUPS(r)[p->group - 1].own = p->own;
	}
	/* a process that predates the trace shows its parent here */
	if (child && GROUPS(r)[p->group - 1].root == (pid_t)ev->pid)
		GROUPS(r)[p->group - 1].step = true;
	*g = p->group;
	return 0;
}

/* GITHUB_ACTION of a step's first process names the step */
int fp_rc_name_group(struct fp_recon *r, const struct fp_event *ev, uint32_t g)
{
	struct group_rec *gr = g ? &GROUPS(r)[g - 1] : NULL;
	const struct fp_bytes *n = &ev->exec.step_name;

	if (!gr || !n->len || gr->name.data || gr->root != (pid_t)ev->pid)
		return 0;
	if (charge(r, ALLOC(n->len + 1)))
		return -EDQUOT;
	return fp_bytes_dup(&gr->name, n->data, n->len);
}

int fp_rc_feed_mark(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_bytes *m;

	if (charge(r, VEC_COST(sizeof(*m)) + ALLOC(ev->mark.name.len + 1)))
		return -EDQUOT;
	m = fp_vec_push(&r->marks, sizeof(*m));
	if (!m)
		return -ENOMEM;
	if (fp_bytes_dup(m, ev->mark.name.data ?: "", ev->mark.name.len)) {
		r->marks.n--;
		return -ENOMEM;
	}
	return 0;
}

/* One of footprint's own processes, as the daemon checked it: its image
 * now (or, one that predates the trace, the process), and its group. */
static int own_process(struct fp_recon *r, pid_t pid)
{
	struct proc_state *p;
	int ret;

	if (!pid)
		return 0;
	ret = fp_rc_proc_new(r, pid, &p);
	if (ret)
		return ret;
	if (p->exec_idx >= 0 && (size_t)p->exec_idx < r->execs.n)
		fp_vec_at(&r->execs, struct exec_rec, p->exec_idx)->own = true;
	else
		p->own = true;
	if (p->group && GROUPS(r)[p->group - 1].root == pid)
		GROUPS(r)[p->group - 1].own = true;
	return 0;
}

/* `sidecar start` names the step that ran it, which predates the trace,
 * by the GITHUB_ACTION the daemon read from that step's process */
static int name_start_step(struct fp_recon *r, const struct fp_event *ev)
{
	pid_t pid = ev->control.step_pid;
	const struct fp_bytes *n = &ev->control.name;
	struct group_rec *gr;
	struct proc_state *p;
	int ret;

	if (!r->step_parent || !pid || !n->len)
		return 0;
	ret = fp_rc_proc_new(r, pid, &p);
	if (!ret && !p->group)
		ret = group_new(r, pid, true, false, ev->ts_ns, &p->group);
	if (ret)
		return ret;
	gr = &GROUPS(r)[p->group - 1];
	if (gr->root != pid || gr->name.data)
		return 0;
	if (charge(r, ALLOC(n->len + 1)))
		return -EDQUOT;
	return fp_bytes_dup(&gr->name, n->data, n->len);
}

/*
 * A mark made from a step that predates the trace (the one that ran
 * `sidecar start`) names that step too, when it has no GITHUB_ACTION:
 * the last such mark. The FP_EV_MARK that follows is marks.n + 1.
 */
static void mark_names_its_step(struct fp_recon *r, const struct fp_event *ev)
{
	struct proc_state *p = proc_of(r, ev->pid);
	struct group_rec *gr;

	if (!p || !p->group ||
	    (ev->control.result != FP_CTL_OK &&
	     ev->control.result != FP_CTL_FOREIGN))
		return;
	gr = &GROUPS(r)[p->group - 1];
	if (!gr->forked && !gr->own)
		gr->mark = r->marks.n + 1;
}

int fp_rc_feed_control(struct fp_recon *r, const struct fp_event *ev)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; i < ev->control.nown && i < FP_CTL_MAX_OWN && !ret; i++)
		ret = own_process(r, ev->control.own[i]);
	if (!ret && ev->control.op == FP_CTL_START)
		ret = name_start_step(r, ev);
	if (!ret && ev->control.op == FP_CTL_MARK && r->step_parent)
		mark_names_its_step(r, ev);
	return ret;
}

/* The child of the step parent that pid is or descends from, as a process
 * table shows it; 0 if none. */
static pid_t step_root(const struct fp_proc_table *t, pid_t parent, pid_t pid)
{
	const struct fp_proc *p;
	size_t depth;

	/* a crafted table may hold a cycle */
	for (depth = 0; t && depth <= t->n; depth++) {
		p = fp_proc_find(t, pid);
		if (!p || p->ppid == pid)
			return 0;
		if (p->ppid == parent)
			return pid;
		pid = p->ppid;
	}
	return 0;
}

static pid_t group_root(const struct fp_recon *r,
			const struct fp_recon_input *in,
			const struct group_rec *g)
{
	pid_t root;

	if (g->step)
		return g->root;
	root = step_root(in->proc_before, r->step_parent, g->root);
	return root ? root : step_root(in->proc_after, r->step_parent, g->root);
}

/* GITHUB_ACTION of its first process, else the mark in effect when it
 * started, else "step N" */
static int name_step(const struct fp_recon *r, const struct group_rec *g,
		     struct fp_step *st)
{
	const struct fp_bytes *m;
	char buf[32];

	if (g && g->name.data) {
		st->named = FP_STEP_NAMED_ACTION;
		return fp_bytes_dup(&st->name, g->name.data, g->name.len);
	}
	m = g && g->mark && g->mark <= r->marks.n ?
		    fp_vec_at(&r->marks, const struct fp_bytes, g->mark - 1) :
		    NULL;
	if (m && m->len) {
		st->named = FP_STEP_NAMED_MARK;
		return fp_bytes_dup(&st->name, m->data, m->len);
	}
	st->named = FP_STEP_NAMED_ORDER;
	snprintf(buf, sizeof(buf), "step %u", st->index);
	return fp_bytes_dup(&st->name, buf, strlen(buf));
}

/* Each step is named by its first group, or by the group of its first
 * process if that one has a GITHUB_ACTION. */
static int name_steps(const struct fp_recon *r, const uint32_t *g2s,
		      struct fp_findings *out)
{
	const struct group_rec **pick = calloc(out->steps.n + 1, sizeof(*pick));
	size_t i;
	int ret = 0;

	if (!pick)
		return -ENOMEM;
	for (i = 0; i < r->groups.n; i++) {
		const struct group_rec *g = &GROUPS(r)[i];
		const struct group_rec **p = &pick[g2s[i]];

		if (!g2s[i])
			continue;
		if (!*p || (!(*p)->name.data && g->name.data &&
			    g->root == FP_STEPS(out)[g2s[i] - 1].first_pid))
			*p = g;
	}
	for (i = 0; i < out->steps.n && !ret; i++)
		ret = name_step(r, pick[i + 1], &FP_STEPS(out)[i]);
	free(pick);
	return ret;
}

/* g2s[i]: the step of group i+1 (0: none). Steps go to out->steps in the
 * order their first group appeared. */
static int resolve_steps(const struct fp_recon *r,
			 const struct fp_recon_input *in, uint32_t *g2s,
			 struct fp_findings *out)
{
	struct fp_hashmap roots = { 0 };
	struct fp_step *st;
	size_t i;
	int ret = 0;

	for (i = 0; i < r->groups.n && !ret; i++) {
		const struct group_rec *g = &GROUPS(r)[i];
		pid_t root = group_root(r, in, g);
		struct fp_hslot *s;

		g2s[i] = 0;
		/* `sidecar mark` names steps; it is not one */
		if (!root || g->own)
			continue;
		s = fp_hashmap_slot(&roots, &root, sizeof(root));
		if (!s)
			ret = -ENOMEM;
		/* a pid used again by a later step's first process */
		if (s && (!s->val || g->forked)) {
			st = fp_vec_push(&out->steps, sizeof(*st));
			if (!st)
				ret = -ENOMEM;
			else
				*st = (struct fp_step){ .index = out->steps.n,
							.first_pid = root,
							.started_ns =
								g->ts_ns };
			s->val = (void *)(uintptr_t)out->steps.n;
		}
		if (s)
			g2s[i] = (uintptr_t)s->val;
	}
	fp_hashmap_free(&roots, NULL);
	return ret ?: name_steps(r, g2s, out);
}

static void step_of(struct fp_actor *a, const uint32_t *g2s, size_t n)
{
	a->step = a->step && a->step <= n ? g2s[a->step - 1] : 0;
}

/* Findings held groups so far; now they name steps. */
static void name_findings_steps(struct fp_findings *out, const uint32_t *g2s,
				size_t n)
{
	size_t l, i;

	for (l = 0; l < FP_F_NLISTS; l++)
		for (i = 0; i < out->files[l].n; i++) {
			struct fp_file_finding *x = &FP_FILES(out, l)[i];

			step_of(&x->by, g2s, n);
			if (x->more) {
				step_of(&x->more->created_by, g2s, n);
				step_of(&x->more->removed_by, g2s, n);
			}
		}
	for (l = 0; l < FP_P_NLISTS; l++)
		for (i = 0; i < out->procs[l].n; i++)
			step_of(&FP_PROCS(out, l)[i].p, g2s, n);
	for (l = 0; l < FP_N_NLISTS; l++)
		for (i = 0; i < out->net[l].n; i++) {
			struct fp_net_finding *x = &FP_NETS(out, l)[i];

			x->step =
				x->step && x->step <= n ? g2s[x->step - 1] : 0;
		}
	for (i = 0; i < out->tamper.n; i++)
		step_of(&FP_TAMPER(out)[i].by, g2s, n);
	for (i = 0; i < out->privileged.n; i++)
		step_of(&FP_PRIVILEGED(out)[i].p, g2s, n);
	fp_netflow_steps(out, g2s, n);
	for (i = 0; i < out->reads.n; i++)
		step_of(&FP_READS(out)[i].by, g2s, n);
	for (i = 0; i < out->signalled.n; i++)
		step_of(&FP_SIGNALLED(out)[i].by, g2s, n);
	for (i = 0; i < out->ptraced.n; i++)
		step_of(&FP_PTRACED(out)[i].by, g2s, n);
	for (l = 0; l < FP_PO_NKINDS; l++)
		for (i = 0; i < out->procops[l].n; i++)
			step_of(&FP_PROCOPS(out, l)[i].by, g2s, n);
}

int fp_rc_steps(const struct fp_recon *r, const struct fp_recon_input *in,
		struct fp_findings *out)
{
	uint32_t *g2s;
	int ret;

	if (!r->groups.n)
		return 0;
	g2s = calloc(r->groups.n, sizeof(*g2s));
	if (!g2s)
		return -ENOMEM;
	ret = resolve_steps(r, in, g2s, out);
	if (!ret) {
		name_findings_steps(out, g2s, r->groups.n);
		fp_proctab_steps(out->proctab, g2s, r->groups.n);
	}
	free(g2s);
	return ret;
}
