// SPDX-License-Identifier: GPL-2.0
/*
 * Judging mounts, namespaces, fileless execs and set-ID files
 * (docs/policy.md, "Mounts, namespaces, fileless execs and set-ID
 * files"). A mount, a fileless exec and a set-ID file fail the verdict
 * unless an allow rule names them (allow mount PATH, allow fileless NAME,
 * allow setuid PATH); a namespace is reported, and fails only where a
 * forbid rule names it (forbid namespace *). A call the kernel refused is
 * reported and fails only where a forbid rule names it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "procops.h"
#include "suggest.h"

static const enum fp_rule_target targets[FP_PO_NKINDS] = {
	[FP_PO_MOUNT] = FP_T_MOUNT,
	[FP_PO_NAMESPACE] = FP_T_NAMESPACE,
	[FP_PO_FILELESS] = FP_T_FILELESS,
	[FP_PO_SETID] = FP_T_SETUID,
};

static const char *const list_keys[FP_PO_NKINDS] = {
	[FP_PO_MOUNT] = "processes.mounts",
	[FP_PO_NAMESPACE] = "processes.namespaces",
	[FP_PO_FILELESS] = "processes.fileless_exec",
	[FP_PO_SETID] = "files.setuid",
};

/* "files.setuid: chmod 4755 /w/x by pid 12 /usr/bin/chmod" */
static char *procop_reason(const struct fp_procop_finding *x)
{
	/* unshare and setns name no path: nothing, not "" */
	char *p = x->path.len ? fp_policy_quote_dup(x->path.data, x->path.len,
						    false) :
				strdup("");
	char *e = x->by.exe.len ? fp_policy_quote_dup(x->by.exe.data,
						      x->by.exe.len, false) :
				  strdup("?");
	char what[64], err[64] = "", *s = NULL;

	if (x->kind == FP_PO_FILELESS)
		snprintf(what, sizeof(what), "exec of");
	else if (x->kind == FP_PO_SETID)
		snprintf(what, sizeof(what), "%s %04o", fp_sys_name(x->sys),
			 x->mode);
	else
		snprintf(what, sizeof(what), "%s", fp_sys_name(x->sys));
	if (x->err)
		snprintf(err, sizeof(err), " (attempted, %s)",
			 strerrorname_np(x->err) ?: "error");
	if (p && e &&
	    asprintf(&s, "%s: %s%s%s by pid %d %s%s%s", list_keys[x->kind],
		     what, *p ? " " : "", p, (int)x->by.pid, e, err,
		     x->forbidden ? " (forbidden)" : "") < 0)
		s = NULL;
	free(p);
	free(e);
	return s;
}

/* MS_BIND, MS_MOVE, MS_REMOUNT; and the propagation flags */
#define FP_MS_CHANGES (4096 | 8192 | 32)
#define FP_MS_PROPAGATION ((1 << 17) | (1 << 18) | (1 << 19) | (1 << 20))

/*
 * mount(2) that only sets propagation (MS_PRIVATE, MS_SLAVE, MS_SHARED,
 * MS_UNBINDABLE), as `unshare -m` does to "/" in its new namespace,
 * shows nothing new anywhere: reported, not failing.
 */
static bool propagation_only(const struct fp_procop_finding *x)
{
	return x->kind == FP_PO_MOUNT && x->sys == FP_SYS_MOUNT &&
	       (x->flags & FP_MS_PROPAGATION) && !(x->flags & FP_MS_CHANGES);
}

static bool fails(const struct fp_procop_finding *x)
{
	if (x->forbidden)
		return true;
	if (x->allowed || x->err || propagation_only(x))
		return false;
	return x->kind != FP_PO_NAMESPACE;
}

int fp_judge_procops(const struct fp_policy *p, struct fp_findings *f,
		     struct fp_verdict *v)
{
	size_t k, i;
	int ret = 0;

	for (k = 0; k < FP_PO_NKINDS && !ret; k++) {
		struct fp_vec *vec = &f->procops[k];

		for (i = 0; i < vec->n && !ret;) {
			struct fp_procop_finding *x = &FP_PROCOPS(f, k)[i];
			const struct fp_rule *rule;
			/* a namespace is named by its call, the rest by path */
			const char *subj = k == FP_PO_NAMESPACE ?
						   fp_sys_name(x->sys) :
					   x->path.data ?:
							  "";
			enum fp_decision d = fp_policy_decide(
				p, targets[k], subj,
				k == FP_PO_NAMESPACE ? strlen(subj) :
						       x->path.len,
				&rule);

			if (d == FP_DEC_IGNORE) {
				free(x->path.data);
				free(x->source.data);
				fp_actor_clear(&x->by);
				fp_vec_remove(vec, i, sizeof(*x));
				continue;
			}
			i++;
			x->rule = rule ? rule->text : NULL;
			x->forbidden = d == FP_DEC_FORBID;
			x->allowed = d == FP_DEC_ALLOW;
			if (!fails(x))
				continue;
			x->failing = true;
			ret = fp_verdict_fail(v, f, x->by.step,
					      procop_reason(x));
		}
	}
	return ret;
}

int fp_procop_needs(struct fp_suggester *s, const struct fp_findings *f)
{
	size_t k, i;
	int ret = 0;

	for (k = 0; k < FP_PO_NKINDS && !ret; k++) {
		if (k == FP_PO_NAMESPACE)
			continue;
		for (i = 0; i < f->procops[k].n && !ret; i++) {
			const struct fp_procop_finding *x =
				&FP_PROCOPS(f, k)[i];

			if (x->failing && !x->forbidden && x->path.len)
				ret = fp_suggester_need(s, targets[k],
							x->path.data,
							x->path.len, false);
		}
	}
	return ret;
}
