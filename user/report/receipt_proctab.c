// SPDX-License-Identifier: GPL-2.0
/*
 * The receipt's process table, and the processes findings name by their
 * row in it (docs/receipt.md): a command line is written once per process
 * instead of once per finding.
 */
#include <string.h>

#include "proctab.h"
#include "receipt_parts.h"

static void write_argv(struct json_out *j, const struct fp_bytes *argv,
		       bool cut)
{
	json_field_strv(j, "argv", argv->data ?: "", argv->len);
	if (cut)
		json_field_bool(j, "argv_truncated", true);
}

void fp_receipt_actor_fields(struct json_out *j, const struct fp_findings *fi,
			     const struct fp_actor *a)
{
	const struct fp_proctab *t = fi->proctab;
	long row = t ? fp_proctab_find(t, a) : -1;

	json_field_i64(j, "pid", a->pid);
	json_field_i64(j, "ppid", a->ppid);
	json_field_bytes(j, "exe", a->exe.data ?: "", a->exe.len);
	if (row < 0) {
		json_field_null(j, "proc");
		write_argv(j, &a->argv, a->argv_cut);
		return;
	}
	json_field_u64(j, "proc", row);
	/* between its fork and its exec: its parent's command line, not the
	 * row's, so it stays here */
	if (!fp_proctab_same_cmd(&FP_PROCTAB_ROWS(t)[row], a))
		write_argv(j, &a->argv, a->argv_cut);
}

/* microseconds from the run's first event; never before it */
static uint64_t since_us(const struct fp_proctab *t, uint64_t ns)
{
	return ns > t->t0 ? (ns - t->t0) / 1000 : 0;
}

static void write_row(struct json_out *j, const struct fp_findings *fi,
		      size_t id, const struct fp_proc_row *r)
{
	const struct fp_proctab *t = fi->proctab;
	const struct fp_step *st = fp_findings_step(fi, r->step);
	static const struct fp_bytes none = { "", 0 };

	json_begin_object(j);
	json_field_u64(j, "id", id);
	json_field_i64(j, "pid", r->pid);
	json_field_i64(j, "ppid", r->ppid);
	if (r->parent)
		json_field_u64(j, "parent", r->parent - 1);
	else
		json_field_null(j, "parent");
	json_field_bytes(j, "exe", r->cmd ? r->cmd->exe.data : "",
			 r->cmd ? r->cmd->exe.len : 0);
	write_argv(j, r->cmd ? &r->cmd->argv : &none,
		   r->cmd && r->cmd->argv_cut);
	json_field_u64(j, "start_us", since_us(t, r->start_ns));
	if (!r->ended || r->replaced) {
		if (r->ended)
			json_field_u64(j, "end_us", since_us(t, r->end_ns));
		else
			json_field_null(j, "end_us");
		json_field_null(j, "exit_code");
		json_field_null(j, "signal");
	} else {
		json_field_u64(j, "end_us", since_us(t, r->end_ns));
		if (r->signal) {
			json_field_null(j, "exit_code");
			json_field_str(j, "signal",
				       sigabbrev_np(r->signal) ?: "?");
		} else {
			json_field_i64(j, "exit_code", r->exit_code);
			json_field_null(j, "signal");
		}
	}
	if (st)
		json_field_u64(j, "step", st->index);
	else
		json_field_null(j, "step");
	json_end_object(j);
}

void fp_receipt_process_table(struct json_out *j, const struct fp_findings *fi)
{
	const struct fp_proctab *t = fi->proctab;
	size_t i;

	json_field_array(j, "process_table");
	for (i = 0; t && i < t->rows.n; i++)
		write_row(j, fi, i, &FP_PROCTAB_ROWS(t)[i]);
	json_end_array(j);
	if (t && t->omitted)
		json_field_u64(j, "process_table_omitted", t->omitted);
}
