// SPDX-License-Identifier: GPL-2.0
/* The process table of a run (proctab.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proctab.h"
#include "snapshot_proc.h"

static struct fp_proc_row *row_at(struct fp_proctab *t, uint32_t row)
{
	return row && row <= t->rows.n ? &FP_PROCTAB_ROWS(t)[row - 1] : NULL;
}

static void cmd_set(struct fp_proc_row *r, struct fp_cmdline *c)
{
	if (c)
		c->refs++;
	fp_cmdline_put(r->cmd);
	r->cmd = c;
}

/* a process past the cap: counted once, never a row */
#define OMITTED UINT32_MAX

/* a new row at the end, its index in *row; past the cap, OMITTED */
static int row_new(struct fp_proctab *t, uint32_t *row, uint32_t parent,
		   const struct fp_event *ev, uint32_t group)
{
	struct fp_proc_row *r;

	*row = OMITTED;
	if (t->rows.n >= FP_PROC_MAX) {
		t->omitted++;
		return 0;
	}
	r = fp_vec_push(&t->rows, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->pid = ev->pid;
	r->ppid = ev->ppid;
	r->parent = row_at(t, parent) ? parent : 0;
	r->step = group;
	r->start_ns = ev->ts_ns;
	*row = t->rows.n;
	return 0;
}

int fp_proctab_fork(struct fp_proctab *t, uint32_t *row, uint32_t parent_row,
		    const struct fp_event *ev, uint32_t group)
{
	struct fp_proc_row *p;
	int ret = row_new(t, row, parent_row, ev, group);

	if (ret || *row == OMITTED)
		return ret;
	/* until it execs, it runs its parent's image */
	p = row_at(t, parent_row);
	if (p)
		cmd_set(row_at(t, *row), p->cmd);
	return 0;
}

int fp_proctab_exec(struct fp_proctab *t, uint32_t *row, uint32_t parent_row,
		    const struct fp_event *ev, struct fp_cmdline *cmd,
		    uint32_t group)
{
	struct fp_proc_row *r = row_at(t, *row);
	int ret;

	if (*row == OMITTED)
		return 0;
	/* an exec after an exec: the image before it ends here, and the new
	 * one is its child in the table, so that each row is one command */
	if (r && !r->ended && r->exec_seen) {
		r->ended = r->replaced = true;
		r->end_ns = ev->ts_ns;
		parent_row = *row;
		r = NULL;
	}
	/* a process seen first at its exec (its fork predates the trace, or
	 * a pid used again without its exit seen) starts a row here */
	if (!r || r->ended) {
		ret = row_new(t, row, parent_row, ev, group);
		if (ret || *row == OMITTED)
			return ret;
		r = row_at(t, *row);
	}
	r->ppid = ev->ppid;
	r->step = group;
	r->exec_seen = true;
	cmd_set(r, cmd);
	return 0;
}

void fp_proctab_exit(struct fp_proctab *t, uint32_t row,
		     const struct fp_event *ev)
{
	struct fp_proc_row *r = row_at(t, row);

	if (!r || r->ended)
		return;
	r->ended = true;
	r->end_ns = ev->ts_ns;
	r->exit_code = ev->exit.code;
	r->signal = ev->exit.signal;
}

static const struct fp_proc_row *sort_rows;

static int by_pid_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	pid_t pa = sort_rows[a].pid, pb = sort_rows[b].pid;

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return (a > b) - (a < b);
}

int fp_proctab_copy(struct fp_proctab *dst, const struct fp_proctab *src)
{
	size_t i, n = src->rows.n;
	struct fp_proc_row *r;

	memset(dst, 0, sizeof(*dst));
	dst->omitted = src->omitted;
	dst->t0 = src->t0;
	dst->have_t0 = src->have_t0;
	if (!n)
		return 0;
	r = malloc(n * sizeof(*r));
	dst->by_pid = malloc(n * sizeof(*dst->by_pid));
	if (!r || !dst->by_pid) {
		free(r);
		free(dst->by_pid);
		dst->by_pid = NULL;
		return -ENOMEM;
	}
	memcpy(r, src->rows.v, n * sizeof(*r));
	for (i = 0; i < n; i++) {
		if (r[i].cmd)
			r[i].cmd->refs++;
		dst->by_pid[i] = i;
	}
	dst->rows = (struct fp_vec){ .v = r, .n = n, .cap = n };
	sort_rows = r;
	qsort(dst->by_pid, n, sizeof(*dst->by_pid), by_pid_cmp);
	sort_rows = NULL;
	return 0;
}

void fp_proctab_steps(struct fp_proctab *t, const uint32_t *g2s, size_t n)
{
	struct fp_proc_row *r = FP_PROCTAB_ROWS(t);
	size_t i;

	for (i = 0; i < t->rows.n; i++)
		r[i].step =
			r[i].step && r[i].step <= n ? g2s[r[i].step - 1] : 0;
}

void fp_proctab_free(struct fp_proctab *t)
{
	size_t i;

	for (i = 0; i < t->rows.n; i++)
		fp_cmdline_put(FP_PROCTAB_ROWS(t)[i].cmd);
	free(t->rows.v);
	free(t->by_pid);
	memset(t, 0, sizeof(*t));
}

static bool bytes_eq(const struct fp_bytes *a, const struct fp_bytes *b)
{
	return a->len == b->len &&
	       (!a->len || !memcmp(a->data, b->data, a->len));
}

bool fp_proctab_same_cmd(const struct fp_proc_row *row,
			 const struct fp_actor *a)
{
	const struct fp_cmdline *c = row->cmd;

	if (a->cmd && a->cmd == c)
		return true;
	return c && c->argv_cut == a->argv_cut && bytes_eq(&c->exe, &a->exe) &&
	       bytes_eq(&c->argv, &a->argv);
}

long fp_proctab_find(const struct fp_proctab *t, const struct fp_actor *a)
{
	const struct fp_proc_row *r = t->rows.v;
	size_t lo = 0, hi = t->rows.n, i;
	long last = -1;

	if (!a->pid || !t->by_pid)
		return -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[t->by_pid[mid]].pid < a->pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < t->rows.n && r[t->by_pid[i]].pid == a->pid; i++) {
		if (a->cmd && r[t->by_pid[i]].cmd == a->cmd)
			return t->by_pid[i];
		last = t->by_pid[i];
	}
	for (i = lo; i < t->rows.n && r[t->by_pid[i]].pid == a->pid; i++)
		if (fp_proctab_same_cmd(&r[t->by_pid[i]], a))
			return t->by_pid[i];
	return last;
}
