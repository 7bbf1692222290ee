// SPDX-License-Identifier: GPL-2.0
/*
 * The receipt's files.setuid, processes.mounts, processes.namespaces and
 * processes.fileless_exec (docs/receipt.schema.json): each only when not
 * empty, so that the receipt of a run that did none of these is what it
 * was.
 */
#include <string.h>

#include "procops.h"
#include "receipt_parts.h"

static void write_one(struct json_out *j, const struct fp_findings *fi,
		      const struct fp_procop_finding *x)
{
	json_begin_object(j);
	if (x->kind != FP_PO_FILELESS)
		json_field_str(j, "syscall", fp_sys_name(x->sys));
	json_field_bytes(j,
			 x->kind == FP_PO_FILELESS ? "exe" :
			 x->kind == FP_PO_SETID	   ? "path" :
						     "target",
			 x->path.data ?: "", x->path.len);
	if (x->kind == FP_PO_MOUNT && x->source.len)
		json_field_bytes(j, "source", x->source.data, x->source.len);
	if (x->kind == FP_PO_SETID)
		json_field_mode(j, "mode", x->mode);
	else if (x->kind != FP_PO_FILELESS)
		json_field_u64(j, "flags", x->flags);
	json_field_bool(j, "ok", !x->err);
	if (x->err)
		json_field_str(j, "errno", strerrorname_np(x->err) ?: "?");
	json_field_u64(j, "count", x->count);
	fp_receipt_judged(j, x->allowed, x->forbidden, x->rule);
	json_field_bool(j, "failing", x->failing);
	fp_receipt_severity(j, x->kind == FP_PO_SETID ? "files" : "processes",
			    fp_procop_list_names[x->kind],
			    x->failing || x->allowed || x->forbidden);
	fp_receipt_actor(j, fi, "by", &x->by);
	fp_receipt_step(j, fi, x->by.step);
	json_end_object(j);
}

static void write_list(struct json_out *j, const struct fp_findings *fi,
		       enum fp_procop_kind k)
{
	size_t i;

	if (!fi->procops[k].n && !fi->procops_omitted[k])
		return;
	json_field_array(j, fp_procop_list_names[k]);
	for (i = 0; i < fi->procops[k].n; i++)
		write_one(j, fi, &FP_PROCOPS(fi, k)[i]);
	json_end_array(j);
	if (fi->procops_omitted[k]) {
		char key[64];

		snprintf(key, sizeof(key), "%s_omitted",
			 fp_procop_list_names[k]);
		json_field_u64(j, key, fi->procops_omitted[k]);
	}
}

void fp_receipt_procops_files(struct json_out *j, const struct fp_findings *fi)
{
	write_list(j, fi, FP_PO_SETID);
}

void fp_receipt_procops_procs(struct json_out *j, const struct fp_findings *fi)
{
	write_list(j, fi, FP_PO_MOUNT);
	write_list(j, fi, FP_PO_NAMESPACE);
	write_list(j, fi, FP_PO_FILELESS);
}
