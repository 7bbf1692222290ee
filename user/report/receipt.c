// SPDX-License-Identifier: GPL-2.0
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "json.h"
#include "receipt.h"

static void hex(char *out, const unsigned char *d, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = '\0';
}

static void write_actor(struct json_out *j, const char *key,
			const struct fp_actor *a)
{
	json_key(j, key);
	if (!a->pid) {
		fputs("null", j->f);
		return;
	}
	json_begin_object(j);
	json_field_i64(j, "pid", a->pid);
	json_field_i64(j, "ppid", a->ppid);
	json_field_bytes(j, "exe", a->exe.data, a->exe.len);
	json_field_strv(j, "argv", a->argv.data, a->argv.len);
	if (a->argv_cut)
		json_field_bool(j, "argv_truncated", true);
	json_end_object(j);
}

static void write_entry(struct json_out *j, const char *key,
			const struct fp_fentry *e)
{
	char h[65];
	char t[2] = { e ? e->type : 0, 0 };

	json_key(j, key);
	if (!e) {
		fputs("null", j->f);
		return;
	}
	json_begin_object(j);
	json_field_str(j, "type", t);
	json_field_u64(j, "mode", e->mode);
	json_field_u64(j, "uid", e->uid);
	json_field_u64(j, "gid", e->gid);
	json_field_u64(j, "size", e->size);
	if (e->type == 'f' && e->hashed) {
		hex(h, e->sha256, 32);
		json_field_str(j, "sha256", h);
	}
	if (e->type == 'l')
		json_field_bytes(j, "target", e->target.data, e->target.len);
	if (e->unstable)
		json_field_bool(j, "unstable", true);
	json_end_object(j);
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
	bool first = true;

	json_key(j, key);
	fputc('[', j->f);
	for (i = 0; i < n; i++) {
		if (!(bits & (1U << i)))
			continue;
		if (!first)
			fputc(',', j->f);
		first = false;
		json_string(j->f, names[i], strlen(names[i]));
	}
	fputc(']', j->f);
}

static const char *const change_names[] = { "content", "mode", "owner", "type",
					    "target" };
static const char *const op_names[] = { "created",	"written",    "removed",
					"renamed_from", "renamed_to", "attrs" };

static void write_file(struct json_out *j, enum fp_file_list l,
		       const struct fp_file_finding *x)
{
	json_begin_object(j);
	json_field_bytes(j, "path", x->path.data, x->path.len);
	write_judged(j, x->allowed, x->forbidden, x->rule);
	switch (l) {
	case FP_F_ADDED:
	case FP_F_REMOVED:
	case FP_F_CHANGED:
		json_field_bool(j, "explained", x->explained);
		if (l == FP_F_CHANGED)
			write_names(j, "changes", x->changes, change_names, 5);
		write_entry(j, "before", x->before);
		write_entry(j, "after", x->after);
		write_actor(j, "by", &x->by);
		break;
	case FP_F_TRANSIENT:
		write_actor(j, "created_by", &x->created_by);
		write_actor(j, "removed_by", &x->removed_by);
		break;
	case FP_F_OUTSIDE:
	case FP_F_CUT:
	case FP_F_MAGIC:
		write_names(j, "ops", x->changes, op_names, 6);
		write_actor(j, "by", &x->by);
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
	json_end_object(j);
}

static void write_proc(struct json_out *j, enum fp_proc_list l,
		       const struct fp_proc_finding *x)
{
	json_begin_object(j);
	json_field_i64(j, "pid", x->p.pid);
	json_field_i64(j, "ppid", x->p.ppid);
	json_field_bytes(j, "exe", x->p.exe.data ?: "", x->p.exe.len);
	json_field_strv(j, "argv", x->p.argv.data, x->p.argv.len);
	if (x->p.argv_cut)
		json_field_bool(j, "argv_truncated", true);
	if (l == FP_P_SHORT_LIVED) {
		if (x->signal)
			json_field_i64(j, "signal", x->signal);
		else
			json_field_i64(j, "exit_code", x->exit_code);
	}
	write_judged(j, x->allowed, x->forbidden, x->rule);
	json_end_object(j);
}

static void write_net(struct json_out *j, const struct fp_net_finding *x)
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
	if (x->outside_run)
		json_field_bool(j, "owner_outside_run", true);
	write_judged(j, x->allowed, x->forbidden, x->rule);
	json_end_object(j);
}

static void write_strs(struct json_out *j, const char *key,
		       const struct fp_vec *v)
{
	size_t i;

	json_key(j, key);
	fputc('[', j->f);
	for (i = 0; i < v->n; i++) {
		const char *s = ((char **)v->v)[i];

		if (i)
			fputc(',', j->f);
		json_string(j->f, s, strlen(s));
	}
	fputc(']', j->f);
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

void fp_receipt_write(FILE *f, const struct fp_receipt_info *ri,
		      const struct fp_findings *fi, const struct fp_verdict *v)
{
	struct json_out j = { .f = f };
	const struct fp_outcome *o = ri->outcome;
	size_t l, i;

	json_begin_object(&j);
	json_field_bool(&j, "ok", v->ok);
	write_strs(&j, "reasons", &v->reasons);

	json_key(&j, "command");
	json_begin_object(&j);
	write_strv(&j, "argv", ri->argv, SIZE_MAX);
	json_key(&j, "exit_code");
	if (o->exit_code >= 0)
		fprintf(f, "%d", o->exit_code);
	else
		fputs("null", f);
	json_key(&j, "signal");
	if (o->signal)
		fprintf(f, "%d", o->signal);
	else
		fputs("null", f);
	json_field_bool(&j, "timed_out", o->timed_out);
	json_field_bool(&j, "interrupted", o->interrupted);
	json_field_u64(&j, "duration_ms", ri->duration_ms);
	json_end_object(&j);

	json_key(&j, "trace");
	json_begin_object(&j);
	json_field_u64(&j, "events", ri->events);
	json_field_u64(&j, "lost", o->lost);
	json_field_bool(&j, "complete", o->complete);
	if (!o->complete && ri->incomplete)
		json_field_str(&j, "reason", ri->incomplete);
	json_end_object(&j);

	write_strv(&j, "roots", ri->roots, ri->nroots);

	json_key(&j, "files");
	json_begin_object(&j);
	for (l = 0; l < FP_F_NLISTS; l++) {
		json_key(&j, fp_file_list_names[l]);
		fputc('[', f);
		for (i = 0; i < fi->files[l].n; i++) {
			if (i)
				fputc(',', f);
			write_file(&j, l, &FP_FILES(fi, l)[i]);
		}
		fputc(']', f);
	}
	json_end_object(&j);

	json_key(&j, "processes");
	json_begin_object(&j);
	for (l = 0; l < FP_P_NLISTS; l++) {
		json_key(&j, fp_proc_list_names[l]);
		fputc('[', f);
		for (i = 0; i < fi->procs[l].n; i++) {
			if (i)
				fputc(',', f);
			write_proc(&j, l, &FP_PROCS(fi, l)[i]);
		}
		fputc(']', f);
	}
	json_end_object(&j);

	json_key(&j, "network");
	json_begin_object(&j);
	for (l = 0; l < FP_N_NLISTS; l++) {
		json_key(&j, fp_net_list_names[l]);
		fputc('[', f);
		for (i = 0; i < fi->net[l].n; i++) {
			if (i)
				fputc(',', f);
			write_net(&j, &FP_NETS(fi, l)[i]);
		}
		fputc(']', f);
	}
	json_end_object(&j);

	json_key(&j, "expected");
	fputc('[', f);
	for (i = 0; i < v->expects.n; i++) {
		const struct fp_expect *e =
			&((struct fp_expect *)v->expects.v)[i];
		struct json_out k = { .f = f };

		if (i)
			fputc(',', f);
		json_begin_object(&k);
		json_field_str(&k, "rule", e->rule->text);
		json_field_bool(&k, "met", e->met);
		json_end_object(&k);
	}
	fputc(']', f);
	write_strs(&j, "suggestions", &v->suggestions);
	json_end_object(&j);
	fputc('\n', f);
}

static void argv_line(FILE *f, const struct fp_bytes *argv)
{
	size_t i;

	for (i = 0; i < argv->len && i < 120; i++) {
		unsigned char c = argv->data[i];

		fputc(c == '\0' ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : c, f);
	}
	if (argv->len > 120)
		fputs("...", f);
}

static void who(FILE *f, const struct fp_actor *a)
{
	if (!a->pid) {
		fputs("  (no event explains it)", f);
		return;
	}
	fprintf(f, "  by pid %d ", (int)a->pid);
	argv_line(f, &a->argv);
}

static void safe_path(FILE *f, const struct fp_bytes *p)
{
	size_t i;

	for (i = 0; i < p->len; i++) {
		unsigned char c = p->data[i];

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

void fp_summary_write(FILE *f, const struct fp_findings *fi,
		      const struct fp_verdict *v, bool color)
{
	const char *red = color ? "\033[31m" : "",
		   *green = color ? "\033[32m" : "",
		   *bold = color ? "\033[1m" : "",
		   *off = color ? "\033[0m" : "";
	size_t l, i;

	if (v->ok)
		fprintf(f, "footprint: %s%sok%s\n", bold, green, off);
	else
		fprintf(f, "footprint: %s%sFAIL%s (%zu failing finding%s)\n",
			bold, red, off, v->failing, v->failing == 1 ? "" : "s");
	for (i = 0; i < v->reasons.n; i++) {
		const char *r = ((char **)v->reasons.v)[i];

		if (!strncmp(r, "command", 7) || !strncmp(r, "trace", 5) ||
		    !strncmp(r, "expected", 8) || !strncmp(r, "footprint", 9))
			fprintf(f, "  %s\n", r);
	}
	for (l = 0; l < FP_F_NLISTS; l++)
		for (i = 0; i < fi->files[l].n; i++) {
			const struct fp_file_finding *x = &FP_FILES(fi, l)[i];

			if (!x->failing)
				continue;
			fprintf(f, "  %s%-13s%s %s", red, fp_file_list_names[l],
				off, l == FP_F_CUT ? "..." : "");
			safe_path(f, &x->path);
			if (l == FP_F_TRANSIENT)
				who(f, &x->created_by);
			else if (l != FP_F_UNEXPLAINED && l != FP_F_UNREADABLE)
				who(f, &x->by);
			fputc('\n', f);
		}
	for (l = 0; l < FP_P_NLISTS; l++)
		for (i = 0; i < fi->procs[l].n; i++) {
			const struct fp_proc_finding *x = &FP_PROCS(fi, l)[i];

			if (!x->failing)
				continue;
			fprintf(f, "  %s%-13s%s pid %d ", red,
				fp_proc_list_names[l], off, (int)x->p.pid);
			argv_line(f, &x->p.argv);
			fputc('\n', f);
		}
	for (l = 0; l < FP_N_NLISTS; l++)
		for (i = 0; i < fi->net[l].n; i++) {
			const struct fp_net_finding *x = &FP_NETS(fi, l)[i];
			char subj[512];

			if (!x->failing)
				continue;
			fp_net_subject(x, subj, sizeof(subj));
			fprintf(f, "  %s%-13s%s %s pid %d\n", red,
				fp_net_list_names[l], off, subj, (int)x->pid);
		}
	if (v->suggestions.n) {
		fprintf(f,
			"footprint: policy lines that would allow this (review before use):\n");
		for (i = 0; i < v->suggestions.n; i++)
			fprintf(f, "  %s\n", ((char **)v->suggestions.v)[i]);
	}
}
