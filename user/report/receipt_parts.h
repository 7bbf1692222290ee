/* SPDX-License-Identifier: GPL-2.0 */
/* Pieces of the receipt shared by receipt.c and receipt_sensitive.c. */
#ifndef FP_RECEIPT_PARTS_H
#define FP_RECEIPT_PARTS_H

#include <stdbool.h>

#include "findings.h"
#include "json.h"

/* "key": the process, or null */
void fp_receipt_actor(struct json_out *j, const struct fp_findings *fi,
		      const char *key, const struct fp_actor *a);
/* "pid", "ppid", "exe", "proc" (its row in the process table, or null),
 * and "argv" when the row does not hold its command line */
void fp_receipt_actor_fields(struct json_out *j, const struct fp_findings *fi,
			     const struct fp_actor *a);
/* "process_table", and "process_table_omitted" when some were */
void fp_receipt_process_table(struct json_out *j, const struct fp_findings *fi);
/* "step" of a sidecar's finding; nothing in `run` */
void fp_receipt_step(struct json_out *j, const struct fp_findings *fi,
		     unsigned int step);
/*
 * "severity" of a finding of list ("files.read", "network.dns"): the
 * level of its kind (severity.h, as the policy sets it) once it was
 * judged (failing, allowed or forbidden); low when it is only reported.
 */
void fp_receipt_severity(struct json_out *j, const char *group,
			 const char *list, bool judged);
/* "allowed", and "forbidden" and "rule" when set */
void fp_receipt_judged(struct json_out *j, bool allowed, bool forbidden,
		       const char *rule);
/*
 * files.read and files.read_omitted; processes.signalled_outside and
 * processes.ptraced. Each only when not empty, so that the receipt of a
 * run that did none of these is as it was.
 */
void fp_receipt_reads(struct json_out *j, const struct fp_findings *fi);
void fp_receipt_signals(struct json_out *j, const struct fp_findings *fi);
/* files.setuid; processes.mounts, namespaces and fileless_exec
 * (receipt_procops.c), each only when not empty */
void fp_receipt_procops_files(struct json_out *j, const struct fp_findings *fi);
void fp_receipt_procops_procs(struct json_out *j, const struct fp_findings *fi);
/* "provenance": version, host, kernel, user, uid, started, ended */
struct fp_receipt_info;
void fp_receipt_provenance(struct json_out *j,
			   const struct fp_receipt_info *ri);

#endif
