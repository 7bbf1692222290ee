// SPDX-License-Identifier: GPL-2.0
/*
 * The text of the findings that are not files, processes or binds: what
 * the summaries and annotations print for files.read, signals and ptrace
 * outside the run, connections, accepts and lookups. Raw bytes, as
 * fp_fref_describe() gives them.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "findref.h"
#include "procops.h"
#include "netflow.h"
#include "sensitive.h"

static void add_tail(struct fp_sbuf *b, uint64_t count, const char *unit,
		     int err, bool forbidden)
{
	if (count > 1)
		fp_sbuf_printf(b, " (%llu %s)", (unsigned long long)count,
			       unit);
	if (err)
		fp_sbuf_printf(b, " (%s)", strerrorname_np(err) ?: "error");
	if (forbidden)
		fp_sbuf_str(b, " (forbidden)");
}

/* "/home/u/.ssh/id_rsa (secret: ssh) read by pid 7 cat ..." */
static void describe_read(const struct fp_read_finding *x, size_t max,
			  struct fp_sbuf *b)
{
	fp_sbuf_cut(b, x->path.data, x->path.len, max);
	if (x->secret)
		fp_sbuf_printf(b, " (secret: %s)", x->secret);
	fp_sbuf_str(b, x->err ? " attempted by " : " read by ");
	fp_sbuf_actor(b, &x->by, max);
	add_tail(b, x->opens, "opens", x->err, x->forbidden);
}

/* "SIGTERM to pid 12 /usr/bin/sleep by pid 9 kill -TERM 12" */
static void describe_signal(const struct fp_signal_finding *x, bool ptrace,
			    size_t max, struct fp_sbuf *b)
{
	if (ptrace)
		fp_sbuf_printf(b, "%s of ", fp_sys_name(x->sys));
	else
		fp_sbuf_printf(b, "SIG%s to ", sigabbrev_np(x->sig) ?: "?");
	if (x->target_pid)
		fp_sbuf_printf(b, "pid %u", x->target_pid);
	else
		fp_sbuf_str(b, "every process");
	if (x->target_exe.len) {
		fp_sbuf_str(b, " ");
		fp_sbuf_cut(b, x->target_exe.data, x->target_exe.len, max);
	}
	fp_sbuf_str(b, " by ");
	fp_sbuf_actor(b, &x->by, max);
	add_tail(b, x->count, "calls", x->err, x->forbidden);
}

/* "api.github.com (140.82.112.3):443 by pid 9 curl ... (3 calls)" */
static void describe_conn(const struct fp_conn_finding *x, size_t max,
			  struct fp_sbuf *b)
{
	char what[700];

	fp_conn_display(x, what, sizeof(what));
	fp_sbuf_cut(b, what, strlen(what), max);
	fp_sbuf_str(b, " by ");
	fp_sbuf_actor(b, &x->who, max);
	add_tail(b, x->count, "calls", 0, x->forbidden);
}

static void describe_dns(const struct fp_dns_finding *x, size_t max,
			 struct fp_sbuf *b)
{
	fp_sbuf_cut(b, x->name, strnlen(x->name, sizeof(x->name)), max);
	fp_sbuf_str(b, " looked up by ");
	fp_sbuf_actor(b, &x->who, max);
	add_tail(b, x->count, "queries", 0, x->forbidden);
}

/* "chmod 4755 /r/t by pid 9 chmod 4755 t", "mount /r/m (from /h/.ssh)" */
static void describe_procop(const struct fp_procop_finding *x, size_t max,
			    struct fp_sbuf *b)
{
	if (x->kind == FP_PO_SETID)
		fp_sbuf_printf(b, "%s %04o", fp_sys_name(x->sys), x->mode);
	else if (x->kind != FP_PO_FILELESS)
		fp_sbuf_str(b, fp_sys_name(x->sys));
	if (x->path.len) {
		if (x->kind != FP_PO_FILELESS)
			fp_sbuf_str(b, " ");
		fp_sbuf_cut(b, x->path.data, x->path.len, max);
	}
	if (x->source.len) {
		fp_sbuf_str(b, " (from ");
		fp_sbuf_cut(b, x->source.data, x->source.len, max);
		fp_sbuf_str(b, ")");
	}
	fp_sbuf_str(b, " by ");
	fp_sbuf_actor(b, &x->by, max);
	add_tail(b, x->count, "calls", x->err, x->forbidden);
}

void fp_fref_describe_more(const struct fp_findings *fi,
			   const struct fp_fref *r, size_t max,
			   struct fp_sbuf *out)
{
	if (fp_cat_is_procop(r->cat)) {
		describe_procop(&FP_PROCOPS(fi, r->cat - FP_CAT_PROCOPS)[r->i],
				max, out);
		return;
	}
	switch (r->cat) {
	case FP_CAT_READ:
		describe_read(fp_fref_read(fi, r->i), max, out);
		break;
	case FP_CAT_SIGNALLED:
	case FP_CAT_PTRACED:
		describe_signal(fp_fref_signal(fi, r->cat, r->i),
				r->cat == FP_CAT_PTRACED, max, out);
		break;
	case FP_CAT_DNS:
		describe_dns(fp_fref_dns(fi, r->i), max, out);
		break;
	default:
		describe_conn(fp_fref_conn(fi, r->cat, r->i), max, out);
		break;
	}
}
