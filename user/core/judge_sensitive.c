// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "sensitive.h"

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/*
 * An attempt the kernel refused is reported, and fails only where a
 * forbid rule names the path; one that found nothing never fails (ssh and
 * git probe for keys that do not exist).
 */
static bool read_fails(const struct fp_read_finding *x)
{
	if (x->allowed)
		return false;
	if (!x->err)
		return x->forbidden || x->secret;
	return x->forbidden && x->err != ENOENT && x->err != ENOTDIR;
}

/* "files.read: PATH (secret: CLASS) read by pid N EXE (forbidden)" */
static char *read_reason(const struct fp_read_finding *x)
{
	char *q = fp_policy_quote_dup(x->path.data, x->path.len, false);
	char *e = x->by.exe.len ? fp_policy_quote_dup(x->by.exe.data,
						      x->by.exe.len, false) :
				  strdup("?");
	char cls[64] = "", err[64] = "";
	char *s = NULL;

	if (x->secret)
		snprintf(cls, sizeof(cls), " (secret: %s)", x->secret);
	if (x->err)
		snprintf(err, sizeof(err), " (%s)",
			 strerrorname_np(x->err) ?: "error");
	if (q && e)
		s = fmt("files.read: %s%s %s by pid %d %s%s%s", q, cls,
			x->err ? "attempted" : "read", (int)x->by.pid, e, err,
			x->forbidden ? " (forbidden)" : "");
	free(q);
	free(e);
	return s;
}

static void drop_read(struct fp_vec *v, size_t i)
{
	fp_read_finding_clear(fp_vec_at(v, struct fp_read_finding, i));
	fp_vec_remove(v, i, sizeof(struct fp_read_finding));
}

static int judge_reads(const struct fp_policy *p, struct fp_findings *f,
		       struct fp_verdict *v)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < f->reads.n && !ret;) {
		struct fp_read_finding *x = &FP_READS(f)[i];
		const struct fp_rule *rule;
		/* a rule "by EXE" decides for that program's reads only */
		enum fp_decision d = fp_policy_decide_by(
			p, FP_T_READ, x->path.data, x->path.len,
			x->by.exe.data ?: "", x->by.exe.len, &rule);

		if (d == FP_DEC_IGNORE) {
			drop_read(&f->reads, i);
			continue;
		}
		i++;
		x->rule = rule ? rule->text : NULL;
		x->forbidden = d == FP_DEC_FORBID;
		x->allowed = d == FP_DEC_ALLOW;
		if (!read_fails(x))
			continue;
		x->failing = true;
		ret = fp_verdict_fail(v, f, x->by.step, read_reason(x));
	}
	return ret;
}

static char *signal_reason(const struct fp_signal_finding *x, bool ptrace)
{
	char *t = x->target_exe.len ?
			  fp_policy_quote_dup(x->target_exe.data,
					      x->target_exe.len, false) :
			  strdup("");
	char *e = x->by.exe.len ? fp_policy_quote_dup(x->by.exe.data,
						      x->by.exe.len, false) :
				  strdup("?");
	char what[64], whom[64], err[64] = "", *s = NULL;

	if (ptrace)
		snprintf(what, sizeof(what), "%s of", fp_sys_name(x->sys));
	else
		snprintf(what, sizeof(what), "SIG%s to",
			 sigabbrev_np(x->sig) ?: "?");
	if (x->target_pid)
		snprintf(whom, sizeof(whom), "pid %u", x->target_pid);
	else
		snprintf(whom, sizeof(whom), "every process");
	if (x->err)
		snprintf(err, sizeof(err), " (attempted, %s)",
			 strerrorname_np(x->err) ?: "error");
	if (t && e)
		s = fmt("processes.%s: %s %s%s%s by pid %d %s%s%s",
			ptrace ? "ptraced" : "signalled_outside", what, whom,
			*t ? " " : "", t, (int)x->by.pid, e, err,
			x->forbidden ? " (forbidden)" : "");
	free(t);
	free(e);
	return s;
}

static void drop_signal(struct fp_vec *v, size_t i)
{
	fp_signal_finding_clear(fp_vec_at(v, struct fp_signal_finding, i));
	fp_vec_remove(v, i, sizeof(struct fp_signal_finding));
}

/*
 * A signal or ptrace aimed outside the run fails the verdict unless an
 * allow rule names the target's executable. An attempt the kernel refused
 * is reported (the process is protected already), and so is kill(pid, 0),
 * which only asks whether the process exists; a forbid rule fails both.
 */
static int judge_signals(const struct fp_policy *p, struct fp_findings *f,
			 struct fp_vec *vec, bool ptrace, struct fp_verdict *v)
{
	enum fp_rule_target target = ptrace ? FP_T_PTRACE : FP_T_SIGNAL;
	size_t i;
	int ret = 0;

	for (i = 0; i < vec->n && !ret;) {
		struct fp_signal_finding *x =
			fp_vec_at(vec, struct fp_signal_finding, i);
		const struct fp_rule *rule;
		enum fp_decision d =
			fp_policy_decide(p, target, x->target_exe.data ?: "",
					 x->target_exe.len, &rule);

		if (d == FP_DEC_IGNORE) {
			drop_signal(vec, i);
			continue;
		}
		i++;
		x->rule = rule ? rule->text : NULL;
		x->forbidden = d == FP_DEC_FORBID;
		x->allowed = d == FP_DEC_ALLOW;
		if (!x->forbidden &&
		    (x->allowed || x->err || (!ptrace && x->sig == 0)))
			continue;
		x->failing = true;
		ret = fp_verdict_fail(v, f, x->by.step,
				      signal_reason(x, ptrace));
	}
	return ret;
}

int fp_judge_sensitive(const struct fp_policy *p, struct fp_findings *f,
		       struct fp_verdict *v)
{
	int ret = judge_reads(p, f, v);

	if (!ret)
		ret = judge_signals(p, f, &f->signalled, false, v);
	if (!ret)
		ret = judge_signals(p, f, &f->ptraced, true, v);
	return ret;
}
