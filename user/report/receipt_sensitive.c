// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <string.h>

#include "event.h"
#include "receipt_parts.h"
#include "sensitive.h"

/* the content that was read: as it was before the run, or as made in it */
static void write_hash(struct json_out *j, const struct fp_read_finding *x)
{
	const struct fp_fentry *e = x->before && x->before->hashed ? x->before :
				    x->after && x->after->hashed   ? x->after :
								     NULL;
	char h[65];

	if (!e || e->type != 'f')
		return;
	fp_hex(h, e->sha256, 32);
	json_field_str(j, "sha256", h);
}

/*
 * The content the file had before the run, when the run read it (an
 * attestation's material, docs/attest.md): present for a regular file of
 * the before snapshot that was read before the run made it anew; null
 * when that content could not be hashed.
 */
static void write_before_hash(struct json_out *j,
			      const struct fp_read_finding *x)
{
	char h[65];

	if (!x->orig_read || !x->before || x->before->type != 'f')
		return;
	json_key(j, "before_sha256");
	if (!x->before->hashed || x->before->unstable) {
		json_null(j);
		return;
	}
	fp_hex(h, x->before->sha256, 32);
	json_string(j->f, h, 64);
}

static void write_err(struct json_out *j, int err)
{
	if (err)
		json_field_str(j, "errno", strerrorname_np(err) ?: "?");
}

static void write_read(struct json_out *j, const struct fp_findings *fi,
		       const struct fp_read_finding *x)
{
	json_begin_object(j);
	json_field_bytes(j, "path", x->path.data, x->path.len);
	if (x->secret)
		json_field_str(j, "secret", x->secret);
	else
		json_field_null(j, "secret");
	json_field_bool(j, "read", !x->err);
	write_err(j, x->err);
	json_field_u64(j, "opens", x->opens);
	write_hash(j, x);
	write_before_hash(j, x);
	fp_receipt_judged(j, x->allowed, x->forbidden, x->rule);
	json_field_bool(j, "failing", x->failing);
	fp_receipt_severity(j, "files", "read",
			    x->failing || x->allowed || x->forbidden);
	fp_receipt_actor(j, fi, "by", &x->by);
	fp_receipt_step(j, fi, x->by.step);
	json_end_object(j);
}

void fp_receipt_reads(struct json_out *j, const struct fp_findings *fi)
{
	size_t i;

	if (!fi->reads.n && !fi->reads_omitted)
		return;
	json_field_array(j, "read");
	for (i = 0; i < fi->reads.n; i++)
		write_read(j, fi, &FP_READS(fi)[i]);
	json_end_array(j);
	json_field_u64(j, "read_omitted", fi->reads_omitted);
	/* the entries say before_sha256 where it applies: a receipt of an
	 * older footprint, without it, cannot tell a material (attest) */
	json_field_bool(j, "read_before_sha256", true);
}

static void write_signal(struct json_out *j, const struct fp_findings *fi,
			 const char *list, const struct fp_signal_finding *x)
{
	json_begin_object(j);
	json_field_str(j, "syscall", fp_sys_name(x->sys));
	if (x->sys == FP_SYS_PTRACE) {
		json_field_i64(j, "request", x->request);
	} else if (x->sys == FP_SYS_PIDFD_GETFD) {
		json_field_i64(j, "target_fd", x->request);
	} else if (fp_sys_crossproc(x->sys)) {
		/* process_vm_readv, process_vm_writev: the call says it all */
	} else {
		json_field_i64(j, "signal", x->sig);
		json_field_str(j, "signal_name",
			       x->sig ? sigabbrev_np(x->sig) ?: "?" : "0");
	}
	json_field_i64(j, "target", x->target);
	if (x->target_pid)
		json_field_u64(j, "target_pid", x->target_pid);
	else /* kill(-1, ...): every process */
		json_field_null(j, "target_pid");
	json_field_bytes(j, "target_exe", x->target_exe.data,
			 x->target_exe.len);
	json_field_bool(j, "ok", !x->err);
	write_err(j, x->err);
	json_field_u64(j, "count", x->count);
	fp_receipt_judged(j, x->allowed, x->forbidden, x->rule);
	json_field_bool(j, "failing", x->failing);
	fp_receipt_severity(j, "processes", list,
			    x->failing || x->allowed || x->forbidden);
	fp_receipt_actor(j, fi, "by", &x->by);
	fp_receipt_step(j, fi, x->by.step);
	json_end_object(j);
}

static void write_signals(struct json_out *j, const struct fp_findings *fi,
			  const char *key, const struct fp_vec *v)
{
	size_t i;

	if (!v->n)
		return;
	json_field_array(j, key);
	for (i = 0; i < v->n; i++)
		write_signal(j, fi, key,
			     fp_vec_at(v, struct fp_signal_finding, i));
	json_end_array(j);
}

void fp_receipt_signals(struct json_out *j, const struct fp_findings *fi)
{
	write_signals(j, fi, "signalled_outside", &fi->signalled);
	write_signals(j, fi, "ptraced", &fi->ptraced);
}
