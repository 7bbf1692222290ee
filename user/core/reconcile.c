// SPDX-License-Identifier: GPL-2.0
/*
 * Reconciliation's state (reconcile_int.h): its life and budget, the
 * feed that hands each event to the file that folds its kind, and
 * fp_reconcile, which asks each of them for its findings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconcile_int.h"
#include "netflow.h"
#include "own.h"

struct fp_recon *fp_recon_new(void)
{
	struct fp_recon *r = calloc(1, sizeof(struct fp_recon));

	if (!r)
		return NULL;
	r->memo = calloc(1, sizeof(*r->memo));
	if (!r->memo) {
		free(r);
		return NULL;
	}
	r->budget = FP_RECON_BUDGET_DEFAULT;
	return r;
}

void fp_recon_set_budget(struct fp_recon *r, uint64_t bytes)
{
	r->budget = bytes;
}

uint64_t fp_recon_unfolded(const struct fp_recon *r)
{
	return r->unfolded;
}

uint64_t fp_recon_used(const struct fp_recon *r)
{
	return r->used;
}

const char *fp_recon_budget_why(const struct fp_recon *r)
{
	return r->unfolded ? r->why : NULL;
}

static void free_exec(struct exec_rec *e)
{
	fp_cmdline_put(e->cmd);
}

void fp_recon_set_step_parent(struct fp_recon *r, pid_t pid)
{
	r->step_parent = pid;
}

void fp_recon_free(struct fp_recon *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->groups.n; i++)
		free(GROUPS(r)[i].name.data);
	free(r->groups.v);
	free(r->exec_groups.v);
	for (i = 0; i < r->marks.n; i++)
		free(fp_vec_at(&r->marks, struct fp_bytes, i)->data);
	free(r->marks.v);
	for (i = 0; i < r->tampers.n; i++)
		fp_tamper_finding_clear(
			fp_vec_at(&r->tampers, struct fp_tamper_finding, i));
	free(r->tampers.v);
	fp_hashmap_free(&r->paths, free);
	fp_hashmap_free(&r->procs, free);
	fp_hashmap_free(&r->reads, free);
	fp_hashmap_free(&r->signals, free);
	for (i = 0; i < r->execs.n; i++)
		free_exec(fp_vec_at(&r->execs, struct exec_rec, i));
	free(r->execs.v);
	for (i = 0; i < r->short_lived.n; i++)
		fp_actor_clear(
			&fp_vec_at(&r->short_lived, struct fp_proc_finding, i)
				 ->p);
	free(r->short_lived.v);
	for (i = 0; i < r->binds.n; i++)
		fp_net_finding_clear(
			fp_vec_at(&r->binds, struct fp_net_finding, i));
	free(r->binds.v);
	free(r->moves.v);
	fp_netrec_free(r->net);
	fp_procops_free(r->procops);
	fp_proctab_free(&r->ptab);
	free(r->memo);
	free(r);
}

/* the state of pid, made if new: 0, -ENOMEM or -EDQUOT */
int fp_rc_proc_new(struct fp_recon *r, pid_t pid, struct proc_state **out)
{
	struct fp_hslot *s;
	struct proc_state *p;

	*out = proc_of(r, pid);
	if (*out)
		return 0;
	if (charge(r, SLOT_COST + ALLOC(sizeof(pid) + 1) + ALLOC(sizeof(*p))))
		return -EDQUOT;
	s = fp_hashmap_slot(&r->procs, &pid, sizeof(pid));
	if (!s)
		return -ENOMEM;
	if (!s->val) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		p->exec_idx = -1;
		s->val = p;
	}
	*out = s->val;
	return 0;
}

/* a->step holds the group until fp_reconcile names the steps */
int fp_rc_actor_fill(const struct fp_recon *r, struct fp_actor *a,
		     const struct who *w)
{
	const struct exec_rec *e;
	struct proc_state *p;

	memset(a, 0, sizeof(*a));
	a->pid = w->pid;
	a->step = w->group;
	p = proc_of(r, w->pid);
	if (p)
		a->ppid = p->ppid;
	/* an exec'd one is footprint's own by its cmdline (own.h) */
	a->own = w->exec < 0 && p && p->own;
	if (w->exec < 0 || (size_t)w->exec >= r->execs.n)
		return fp_actor_own(a, "", 0, "", 0);
	e = fp_vec_at(&r->execs, const struct exec_rec, w->exec);
	fp_actor_share(a, e->cmd);
	return 0;
}

static int feed_one(struct fp_recon *r, const struct fp_event *ev)
{
	int ret;

	switch (ev->type) {
	case FP_EV_EXEC:
		ret = fp_rc_feed_exec(r, ev);
		return ret ? ret : fp_rc_feed_exec_fileless(r, ev);
	case FP_EV_PROCOP:
		return fp_rc_feed_procop(r, ev);
	case FP_EV_FORK:
		return fp_rc_feed_fork(r, ev);
	case FP_EV_EXIT:
		return fp_rc_feed_exit(r, ev);
	case FP_EV_FILE:
		return fp_rc_feed_file(r, ev);
	case FP_EV_BIND:
		return fp_rc_feed_bind(r, ev) ?: fp_rc_feed_net_bind(r, ev);
	case FP_EV_TAMPER:
		return fp_rc_feed_tamper(r, ev);
	case FP_EV_MARK:
		return fp_rc_feed_mark(r, ev);
	case FP_EV_NET:
	case FP_EV_NET_COUNT:
	case FP_EV_DNS:
		return fp_rc_feed_net(r, ev);
	case FP_EV_SIGNAL:
		return fp_rc_feed_signal(r, ev);
	case FP_EV_URING:
		fp_uring_seen_feed(&r->uring, ev);
		return 0;
	case FP_EV_CONTROL:
		return fp_rc_feed_control(r, ev);
	}
	return 0;
}

int fp_recon_feed(struct fp_recon *r, const struct fp_event *ev)
{
	int ret;

	r->fed++;
	fp_proctab_seen(&r->ptab, ev->ts_ns);
	/* the runner's own files (its logs, the step summaries it keeps) are
	 * not a step's doing; a change it made in a root stays unexplained */
	if (r->step_parent && ev->type == FP_EV_FILE &&
	    (pid_t)ev->pid == r->step_parent)
		return 0;
	ret = feed_one(r, ev);
	if (ret != -EDQUOT)
		return ret;
	if (!r->unfolded++)
		snprintf(
			r->why, sizeof(r->why),
			"footprint's memory budget of %llu KiB ran out at event %llu; later events were not all kept (raise --memory-budget)",
			(unsigned long long)(r->budget >> 10),
			(unsigned long long)r->fed);
	return 0;
}

const char *fp_recon_uring_why(const struct fp_recon *r)
{
	return fp_uring_seen_why(&r->uring);
}

size_t fp_recon_steps_so_far(const struct fp_recon *r)
{
	const struct group_rec *g = GROUPS(r);
	size_t i, n = 0;

	/* footprint's own clients (a mark, a stop) are not steps */
	for (i = 0; i < r->groups.n; i++)
		n += g[i].forked && !g[i].own;
	return n;
}

bool fp_recon_started_alive(const struct fp_recon *r, pid_t pid)
{
	const struct proc_state *p = proc_of(r, pid);

	return p && p->started && !p->exited;
}

bool fp_recon_exec_pending(const struct fp_recon *r, pid_t pid)
{
	const struct proc_state *p = proc_of(r, pid);

	return p && p->started && !p->exited &&
	       (p->exec_idx < 0 || exec_at(r, p->exec_idx)->pid != pid);
}

bool fp_recon_touched(void *ctx, const char *path, size_t len)
{
	struct fp_recon *r = ctx;
	struct path_state *ps = fp_hashmap_get(&r->paths, path, len);

	return ps && ps->ops;
}

static int file_cmp(const void *x, const void *y)
{
	const struct fp_file_finding *a = x, *b = y;

	return fp_bytes_cmp(a->path.data, a->path.len, b->path.data,
			    b->path.len);
}

static int proc_cmp(const void *x, const void *y)
{
	const struct fp_proc_finding *a = x, *b = y;

	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return (a->p.pid > b->p.pid) - (a->p.pid < b->p.pid);
}

/* What footprint's own processes did is not the job's (own.h). */
static int drop_own(const struct fp_recon *r, struct fp_findings *out)
{
	const struct exec_rec *e = fp_vec_arr(&r->execs, struct exec_rec);
	struct fp_cmdline **own = NULL;
	size_t i, n = 0;

	for (i = 0; i < r->execs.n; i++)
		n += e[i].own;
	if (n && !(own = malloc(n * sizeof(*own))))
		return -ENOMEM;
	for (i = 0, n = 0; i < r->execs.n; i++)
		if (e[i].own)
			own[n++] = e[i].cmd;
	fp_own_sort(own, n);
	fp_findings_drop_own(out, own, n);
	free(own);
	return 0;
}

int fp_reconcile(const struct fp_recon *r, const struct fp_recon_input *in,
		 struct fp_findings *out)
{
	size_t l;
	int ret;

	memset(out, 0, sizeof(*out));
	out->proctab = calloc(1, sizeof(*out->proctab));
	ret = out->proctab ? fp_proctab_copy(out->proctab, &r->ptab) : -ENOMEM;
	if (!ret)
		ret = fp_rc_compare_fs(r, in, out);
	if (!ret)
		ret = fp_rc_path_findings(r, in, out);
	if (!ret)
		ret = fp_rc_compare_procs(r, in, out);
	if (!ret)
		ret = fp_rc_compare_net(r, in, out);
	if (!ret)
		ret = fp_rc_tamper_findings(r, in, out);
	if (!ret)
		ret = fp_netrec_findings(r->net, out);
	if (!ret)
		ret = fp_rc_read_findings(r, in, out);
	if (!ret)
		ret = fp_rc_signal_findings(r, in, out);
	if (!ret)
		ret = fp_rc_procop_findings(r, in, out);
	if (!ret)
		ret = fp_rc_steps(r, in, out);
	if (!ret)
		ret = drop_own(r, out);
	if (ret) {
		fp_findings_free(out);
		return ret;
	}
	/* hash order is not an order: sort what came from maps */
	for (l = 0; l < FP_F_NLISTS; l++)
		if (out->files[l].n)
			qsort(out->files[l].v, out->files[l].n,
			      sizeof(struct fp_file_finding), file_cmp);
	for (l = 0; l < FP_P_NLISTS; l++)
		if (out->procs[l].n)
			qsort(out->procs[l].v, out->procs[l].n,
			      sizeof(struct fp_proc_finding), proc_cmp);
	return 0;
}

int fp_recon_opened_only(const struct fp_recon *r,
			 int (*cb)(void *ctx, const char *path, size_t len),
			 void *ctx)
{
	unsigned int sure = FP_OP_CREATED | FP_OP_RENAMED_TO | FP_OP_REMOVED;
	size_t i;
	int ret;

	for (i = 0; i < r->paths.cap; i++) {
		const struct fp_hslot *s = &r->paths.slots[i];
		const struct path_state *ps = s->val;

		if (!s->key || !s->len || s->key[0] != '/' ||
		    !(ps->ops & FP_OP_WRITTEN) || (ps->ops & sure) || ps->wrote)
			continue;
		ret = cb(ctx, s->key, s->len);
		if (ret)
			return ret;
	}
	return 0;
}
