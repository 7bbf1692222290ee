// SPDX-License-Identifier: GPL-2.0
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "findref.h"
#include "json.h"
#include "privs_json.h"
#include "receipt.h"
#include "receipt_net.h"
#include "receipt_parts.h"
#include "receipt_scratch.h"
#include "severity.h"

/* write_proc's list for processes.privileged, which is not an fp_proc_list */
#define PRIVILEGED FP_P_NLISTS
#include "shape_report.h"

static void write_actor(struct json_out *j, const struct fp_findings *fi,
			const char *key, const struct fp_actor *a)
{
	json_key(j, key);
	if (!a->pid) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	fp_receipt_actor_fields(j, fi, a);
	json_end_object(j);
}

static void write_entry(struct json_out *j, const char *key,
			const struct fp_fentry *e)
{
	char h[65];
	char t[2] = { e ? e->type : 0, 0 };

	json_key(j, key);
	if (!e) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_field_str(j, "type", t);
	if (e->type == '?') {
		/* never stat'ed: its mode, owner and size are unknown, and a
		 * 0 would read as root's */
		json_field_null(j, "mode");
		json_field_null(j, "uid");
		json_field_null(j, "gid");
		json_field_null(j, "size");
	} else {
		json_field_mode(j, "mode", e->mode);
		json_field_u64(j, "uid", e->uid);
		json_field_u64(j, "gid", e->gid);
		json_field_u64(j, "size", e->size);
	}
	if (e->type == 'f' && e->hashed) {
		fp_hex(h, e->sha256, 32);
		json_field_str(j, "sha256", h);
	}
	if (e->type == 'l')
		json_field_bytes(j, "target", e->target.data, e->target.len);
	if (e->unstable)
		json_field_bool(j, "unstable", true);
	json_end_object(j);
}

/* the verdict's levels, for the writers of one receipt at a time */
static const struct fp_sevmap *receipt_sev;

void fp_receipt_severity(struct json_out *j, const char *group,
			 const char *list, bool judged)
{
	char name[64];
	enum fp_severity s = FP_SEV_LOW;

	if (judged) {
		snprintf(name, sizeof(name), "%s%s%s", group, *list ? "." : "",
			 list);
		s = fp_severity_in(receipt_sev, name, strlen(name));
	}
	json_field_str(j, "severity", fp_severity_name(s));
}

static void write_judged(struct json_out *j, bool allowed, bool forbidden,
			 const char *rule)
{
	json_field_bool(j, "allowed", allowed);
	if (forbidden)
		json_field_bool(j, "forbidden", true);
	if (rule)
		json_field_str(j, "rule", rule);
}

static void write_names(struct json_out *j, const char *key, unsigned int bits,
			const char *const *names, size_t n)
{
	size_t i;

	json_field_array(j, key);
	for (i = 0; i < n; i++)
		if (bits & (1U << i))
			json_elem_str(j, names[i]);
	json_end_array(j);
}

/* the step of a finding: none in `run`, so its receipt is as it was */
static void write_step(struct json_out *j, const struct fp_findings *fi,
		       unsigned int step)
{
	const struct fp_step *st = fp_findings_step(fi, step);

	if (!st)
		return;
	json_field_bytes(j, "step", st->name.data, st->name.len);
	json_field_u64(j, "step_index", st->index);
}

static const char *const change_names[] = { "content", "mode", "owner", "type",
					    "target" };
static const char *const op_names[] = { "created",	"written",    "removed",
					"renamed_from", "renamed_to", "attrs",
					"linked" };

static void write_file(struct json_out *j, const struct fp_findings *fi,
		       enum fp_file_list l, const struct fp_file_finding *x)
{
	json_begin_object(j);
	json_field_bytes(j, "path", x->path.data, x->path.len);
	write_judged(j, x->allowed, x->forbidden, x->rule);
	fp_receipt_severity(j, "files", fp_file_list_names[l],
			    x->failing || x->allowed || x->forbidden);
	switch (l) {
	case FP_F_ADDED:
	case FP_F_REMOVED:
	case FP_F_CHANGED:
		json_field_bool(j, "explained", x->explained);
		if (l == FP_F_CHANGED)
			write_names(j, "changes", x->changes, change_names, 5);
		write_entry(j, "before", x->before);
		write_entry(j, "after", x->after);
		write_actor(j, fi, "by", &x->by);
		if (x->by_open)
			json_field_bool(j, "by_open", true);
		break;
	case FP_F_TRANSIENT:
		write_actor(j, fi, "created_by", fp_ff_actor(x, created_by));
		write_actor(j, fi, "removed_by", fp_ff_actor(x, removed_by));
		break;
	case FP_F_OUTSIDE:
	case FP_F_CUT:
	case FP_F_MAGIC:
		write_names(j, "ops", x->changes, op_names, 7);
		write_actor(j, fi, "by", &x->by);
		if (x->by_open)
			json_field_bool(j, "by_open", true);
		break;
	case FP_F_UNEXPLAINED:
		json_field_str(j, "finding", fp_file_list_names[x->what]);
		if (x->what == FP_F_CHANGED)
			write_names(j, "changes", x->changes, change_names, 5);
		break;
	case FP_F_UNREADABLE:
		json_field_str(j, "errno", strerrorname_np(x->err) ?: "E?");
		break;
	default:
		break;
	}
	/* what a generated script did: who made it (when another touched
	 * it last), made it executable, ran it */
	if (fp_ff_actor(x, created_by)->pid && l != FP_F_TRANSIENT)
		write_actor(j, fi, "created_by", fp_ff_actor(x, created_by));
	if (x->made_exec)
		json_field_bool(j, "made_executable", true);
	if (x->ran)
		write_actor(j, fi, "ran_by", fp_ff_actor(x, ran_by));
	if (fp_ff_actor(x, outside_writer)->pid)
		write_actor(j, fi, "outside_writer",
			    fp_ff_actor(x, outside_writer));
	write_step(j, fi, fp_file_finding_step(x));
	json_end_object(j);
}

static void write_proc(struct json_out *j, const struct fp_findings *fi,
		       enum fp_proc_list l, const struct fp_proc_finding *x)
{
	/* its argv is its process table row's, as an actor's */
	json_begin_object(j);
	fp_receipt_actor_fields(j, fi, &x->p);
	if (l == FP_P_SHORT_LIVED) {
		if (x->signal)
			json_field_i64(j, "signal", x->signal);
		else
			json_field_i64(j, "exit_code", x->exit_code);
	}
	if (l == FP_P_EXECUTED || l == PRIVILEGED)
		fp_json_privs(j, "creds", &x->creds);
	if (l == PRIVILEGED) {
		fp_json_privs(j, "base_creds", &x->base);
		fp_json_priv_rose(j, "rose", x->rose);
	}
	write_judged(j, x->allowed, x->forbidden, x->rule);
	if (l != FP_P_EXECUTED)
		fp_receipt_severity(j, "processes",
				    l == PRIVILEGED ? "privileged" :
						      fp_proc_list_names[l],
				    x->failing || x->allowed || x->forbidden);
	write_step(j, fi, x->p.step);
	json_end_object(j);
}

static void write_net(struct json_out *j, const struct fp_findings *fi,
		      enum fp_net_list l, const struct fp_net_finding *x)
{
	const char *fam = x->family == AF_INET	? "inet" :
			  x->family == AF_INET6 ? "inet6" :
			  x->family == AF_UNIX	? "unix" :
						  "other";
	const char *proto = x->protocol == IPPROTO_TCP ? "tcp" :
			    x->protocol == IPPROTO_UDP ? "udp" :
							 "other";

	json_begin_object(j);
	json_field_i64(j, "pid", x->pid);
	json_field_str(j, "family", fam);
	if (x->family == AF_UNIX)
		json_field_bytes(j, "address", x->unix_path.data ?: "",
				 x->unix_path.len);
	else
		json_field_str(j, "address", x->address);
	json_field_u64(j, "port", x->port);
	json_field_str(j, "protocol", x->family == AF_UNIX ? "unix" : proto);
	if (x->outside_run || x->new_outside)
		json_field_bool(j, "owner_outside_run", true);
	if (x->new_outside)
		json_field_bool(j, "owner_began_during_run", true);
	if (x->by.pid)
		write_actor(j, fi, l == FP_N_BOUND ? "by" : "owner", &x->by);
	write_judged(j, x->allowed, x->forbidden, x->rule);
	fp_receipt_severity(j, "network", fp_net_list_names[l],
			    x->failing || x->allowed || x->forbidden);
	write_step(j, fi, x->step);
	json_end_object(j);
}

static void write_tamper(struct json_out *j, const struct fp_findings *fi,
			 const struct fp_tamper_finding *t)
{
	json_begin_object(j);
	json_field_str(j, "kind", fp_tamper_name(t));
	fp_receipt_severity(j, "tamper", "", true);
	if (t->what == FP_TAMPER_STATE_DIR) {
		json_field_bytes(j, "path", t->path.data, t->path.len);
		write_names(j, "ops", t->ops, op_names, 7);
	} else {
		if (t->kind == FP_TAMPER_SIGNAL)
			json_field_i64(j, "sig", t->sig);
		if (t->kind != FP_TAMPER_HEARTBEAT) {
			json_field_u64(j, "target_pid", t->target_pid);
			json_field_i64(j, "arg", t->arg);
		}
		json_field_u64(j, "ts_ns", t->ts_ns);
	}
	write_actor(j, fi, "by", &t->by);
	write_step(j, fi, t->by.step);
	json_end_object(j);
}

static const char *const step_named[] = { "action", "mark", "order" };

static void write_steps(struct json_out *j, const struct fp_findings *fi)
{
	struct fp_step_count *c = fp_step_counts(fi);
	char name[64];
	unsigned int cat;
	size_t i;

	json_field_array(j, "steps");
	for (i = 0; c && i < fi->steps.n; i++) {
		const struct fp_step *st = &FP_STEPS(fi)[i];

		json_begin_object(j);
		json_field_u64(j, "index", st->index);
		json_field_bytes(j, "name", st->name.data, st->name.len);
		json_field_str(j, "named_by", step_named[st->named]);
		json_field_i64(j, "first_pid", st->first_pid);
		json_field_u64(j, "started_ns", st->started_ns);
		json_field_object(j, "findings");
		for (cat = 0; cat < FP_NCAT; cat++)
			if (c[st->index].n[cat])
				json_field_u64(
					j, fp_cat_name(cat, name, sizeof(name)),
					c[st->index].n[cat]);
		json_end_object(j);
		json_field_u64(j, "failing", c[st->index].failing_all);
		json_field_bool(j, "ok", !c[st->index].failing_all);
		json_end_object(j);
	}
	json_end_array(j);
	free(c);
}

/* a sidecar's: tamper evidence and the steps */
static void write_sidecar(struct json_out *j, const struct fp_findings *fi)
{
	size_t i;

	json_field_array(j, "tamper");
	for (i = 0; i < fi->tamper.n; i++)
		write_tamper(j, fi, &FP_TAMPER(fi)[i]);
	json_end_array(j);
	write_steps(j, fi);
}

static void write_strs(struct json_out *j, const char *key,
		       const struct fp_vec *v)
{
	size_t i;

	json_field_array(j, key);
	for (i = 0; i < v->n; i++)
		json_elem_str(j, ((char **)v->v)[i]);
	json_end_array(j);
}

/* An array of strings, losslessly: "<key>_b64" when one is not UTF-8. */
static void write_strv(struct json_out *j, const char *key, char *const *v,
		       size_t n)
{
	size_t i, len = 0;
	char *buf, *p;

	for (i = 0; i < n && v[i]; i++)
		len += strlen(v[i]) + 1;
	buf = malloc(len + 1);
	if (!buf)
		return;
	for (i = 0, p = buf; i < n && v[i]; i++) {
		size_t l = strlen(v[i]) + 1;

		memcpy(p, v[i], l);
		p += l;
	}
	json_field_strv(j, key, buf, len);
	free(buf);
}

void fp_receipt_actor(struct json_out *j, const struct fp_findings *fi,
		      const char *key, const struct fp_actor *a)
{
	write_actor(j, fi, key, a);
}

void fp_receipt_step(struct json_out *j, const struct fp_findings *fi,
		     unsigned int step)
{
	write_step(j, fi, step);
}

void fp_receipt_judged(struct json_out *j, bool allowed, bool forbidden,
		       const char *rule)
{
	write_judged(j, allowed, forbidden, rule);
}

/* run --unit: the diff of the unit's shapes, or why there is none */
static void write_unit(struct json_out *j, const struct fp_receipt_info *ri)
{
	json_field_str(j, "unit", ri->unit);
	json_key(j, "shape_diff");
	if (ri->shape_diff && !ri->shape_why) {
		fp_shape_diff_json_value(j, ri->shape_diff, ri->shape_policy);
		return;
	}
	json_begin_object(j);
	json_field_bool(j, "ok", false);
	json_field_str(j, "error", ri->shape_why ? ri->shape_why : "none");
	json_end_object(j);
}

/* how many failing findings of each level: what a reviewer reads first */
static void write_by_severity(struct json_out *j, const struct fp_findings *fi,
			      const struct fp_verdict *v)
{
	size_t n[FP_SEV_CRITICAL + 1] = { 0 };
	char name[64];
	unsigned int cat;
	size_t i;
	int s;

	for (cat = 0; cat < FP_NCAT; cat++) {
		fp_cat_name(cat, name, sizeof(name));
		s = fp_severity_in(&v->sev, name, strlen(name));
		for (i = 0; i < fp_cat_len(fi, cat); i++)
			n[s] += fp_fref_failing(fi, cat, i);
	}
	json_field_object(j, "by_severity");
	for (s = FP_SEV_CRITICAL; s >= FP_SEV_LOW; s--)
		json_field_u64(j, fp_severity_name(s), n[s]);
	json_end_object(j);
}

/* how the command ended: its argv, exit code or signal, and timing */
static void write_command(struct json_out *j, const struct fp_receipt_info *ri)
{
	const struct fp_outcome *o = ri->outcome;

	json_field_object(j, "command");
	write_strv(j, "argv", ri->argv, SIZE_MAX);
	if (o->exit_code >= 0)
		json_field_i64(j, "exit_code", o->exit_code);
	else
		json_field_null(j, "exit_code");
	if (o->signal)
		json_field_i64(j, "signal", o->signal);
	else
		json_field_null(j, "signal");
	json_field_bool(j, "timed_out", o->timed_out);
	json_field_bool(j, "interrupted", o->interrupted);
	json_field_u64(j, "duration_ms", ri->duration_ms);
	json_end_object(j);
}

static void write_trace(struct json_out *j, const struct fp_receipt_info *ri)
{
	const struct fp_outcome *o = ri->outcome;

	json_field_object(j, "trace");
	json_field_u64(j, "events", ri->events);
	if (ri->opens_collapsed)
		json_field_u64(j, "opens_collapsed", ri->opens_collapsed);
	json_field_u64(j, "lost", o->lost);
	json_field_bool(j, "complete", o->complete);
	if (!o->complete && ri->incomplete)
		json_field_str(j, "reason", ri->incomplete);
	json_end_object(j);
}

static void write_files(struct json_out *j, const struct fp_findings *fi)
{
	size_t l, i;

	json_field_object(j, "files");
	for (l = 0; l < FP_F_NLISTS; l++) {
		json_field_array(j, fp_file_list_names[l]);
		for (i = 0; i < fi->files[l].n; i++)
			write_file(j, fi, l, &FP_FILES(fi, l)[i]);
		json_end_array(j);
	}
	fp_receipt_reads(j, fi);
	fp_receipt_procops_files(j, fi);
	json_end_object(j);
}

static void write_processes(struct json_out *j, const struct fp_findings *fi)
{
	size_t l, i;

	json_field_object(j, "processes");
	for (l = 0; l < FP_P_NLISTS; l++) {
		json_field_array(j, fp_proc_list_names[l]);
		for (i = 0; i < fi->procs[l].n; i++)
			write_proc(j, fi, l, &FP_PROCS(fi, l)[i]);
		json_end_array(j);
	}
	json_field_array(j, "privileged");
	for (i = 0; i < fi->privileged.n; i++)
		write_proc(j, fi, PRIVILEGED, &FP_PRIVILEGED(fi)[i]);
	json_end_array(j);
	fp_receipt_signals(j, fi);
	fp_receipt_procops_procs(j, fi);
	json_end_object(j);
}

static void write_network(struct json_out *j, const struct fp_receipt_info *ri,
			  const struct fp_findings *fi)
{
	size_t l, i;

	json_field_object(j, "network");
	/* run --no-network: a reached host unix socket failed (judge_net.c) */
	if (ri->outcome->no_network)
		json_field_bool(j, "no_network", true);
	for (l = 0; l < FP_N_NLISTS; l++) {
		json_field_array(j, fp_net_list_names[l]);
		for (i = 0; i < fi->net[l].n; i++)
			write_net(j, fi, l, &FP_NETS(fi, l)[i]);
		json_end_array(j);
	}
	fp_receipt_netflow(j, fi);
	json_end_object(j);
}

/* the expect rules and whether each was met; the suggested policy lines */
static void write_expected(struct json_out *j, const struct fp_verdict *v)
{
	size_t i;

	json_field_array(j, "expected");
	for (i = 0; i < v->expects.n; i++) {
		const struct fp_expect *e =
			fp_vec_at(&v->expects, struct fp_expect, i);

		json_begin_object(j);
		json_field_str(j, "rule", e->rule->text);
		json_field_bool(j, "met", e->met);
		json_end_object(j);
	}
	json_end_array(j);
	/* a line and the findings it covers, most first */
	json_field_array(j, "suggestions");
	for (i = 0; i < v->suggestions.n; i++) {
		json_begin_object(j);
		json_field_str(j, "rule",
			       *fp_vec_at(&v->suggestions, char *, i));
		json_field_u64(
			j, "covers",
			i < v->suggestion_counts.n ?
				*fp_vec_at(&v->suggestion_counts, size_t, i) :
				1);
		json_end_object(j);
	}
	json_end_array(j);
}

void fp_receipt_write(FILE *f, const struct fp_receipt_info *ri,
		      const struct fp_findings *fi, const struct fp_verdict *v)
{
	struct json_out j = { .f = f };

	receipt_sev = &v->sev;
	json_begin_object(&j);
	json_field_u64(&j, "format", FP_RECEIPT_FORMAT);
	json_field_bool(&j, "ok", v->ok);
	write_strs(&j, "reasons", &v->reasons);
	write_by_severity(&j, fi, v);
	write_command(&j, ri);
	write_trace(&j, ri);
	write_strv(&j, "roots", ri->roots, ri->nroots);
	fp_receipt_provenance(&j, ri);
	if (ri->sidecar)
		json_field_str(&j, "mode", "sidecar");
	write_files(&j, fi);
	write_processes(&j, fi);
	write_network(&j, ri, fi);
	/* a run's receipt has neither, unless a run saw tampering */
	if (ri->sidecar || fi->tamper.n || fi->steps.n)
		write_sidecar(&j, fi);
	if (ri->scratch_dir)
		fp_receipt_scratch(&j, ri->scratch_dir, ri->roots, ri->nroots,
				   ri->fs_before, ri->fs_after);
	if (ri->unit)
		write_unit(&j, ri);
	fp_receipt_process_table(&j, fi);
	write_expected(&j, v);
	json_end_object(&j);
	receipt_sev = NULL;
	fputc('\n', f);
}
