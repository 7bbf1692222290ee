// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "severity.h"
#include "judge.h"
#include "procops.h"
#include "judge_net.h"
#include "netfamily.h"
#include "suggest.h"

#define MAX_REASONS 50
/* a run may fail on millions of files: the receipt keeps the first */
#define MAX_SUGGESTIONS 1000

const char *const fp_file_list_names[FP_F_NLISTS] = {
	"added",       "removed",    "changed", "transient",  "outside_roots",
	"unexplained", "unreadable", "cut",	"magic_link",
};
const char *const fp_proc_list_names[FP_P_NLISTS] = {
	"executed", "short_lived", "leftover", "new_outside", "disappeared",
};
const char *const fp_net_list_names[FP_N_NLISTS] = { "bound", "listening" };

static int push_str(struct fp_vec *v, char *s)
{
	char **slot;

	if (!s)
		return -ENOMEM;
	slot = fp_vec_push(v, sizeof(char *));
	if (!slot) {
		free(s);
		return -ENOMEM;
	}
	*slot = s;
	return 0;
}

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

void fp_net_subject(const struct fp_net_finding *n, char *buf, size_t len)
{
	const char *proto = n->protocol == IPPROTO_TCP ? "tcp" :
			    n->protocol == IPPROTO_UDP ? "udp" :
			    n->family == AF_UNIX       ? "unix" :
							 "ip";

	if (n->family == AF_UNIX)
		snprintf(buf, len, "unix/%s",
			 n->unix_path.data ? n->unix_path.data : "");
	else if (n->family != AF_INET && n->family != AF_INET6)
		fp_net_family_subject(n->family, buf, len);
	else if (n->family == AF_INET6)
		snprintf(buf, len, "%s/[%s]:%u", proto, n->address, n->port);
	else
		snprintf(buf, len, "%s/%s:%u", proto, n->address, n->port);
}

/* the command line, arguments joined by spaces: a process subject too */
static char *cmdline(const struct fp_actor *a, size_t *len)
{
	char *cmd = malloc(a->argv.len + 1);
	size_t i;

	if (!cmd)
		return NULL;
	memcpy(cmd, a->argv.data ? a->argv.data : "", a->argv.len);
	for (i = 0; i < a->argv.len; i++)
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	i = a->argv.len;
	while (i && cmd[i - 1] == ' ')
		i--;
	cmd[i] = '\0';
	*len = i;
	return cmd;
}

static enum fp_decision decide_proc(const struct fp_policy *p,
				    const struct fp_actor *a,
				    const struct fp_rule **rule)
{
	const struct fp_rule *r2;
	enum fp_decision d, d2;
	size_t n;
	char *cmd;

	d = fp_policy_decide(p, FP_T_PROCESS, a->exe.data, a->exe.len, rule);
	if (d == FP_DEC_FORBID || !a->argv.len)
		return d;
	/* then the command line */
	cmd = cmdline(a, &n);
	if (!cmd)
		return d;
	d2 = fp_policy_decide(p, FP_T_PROCESS, cmd, n, &r2);
	/* the rest of a cut command line is unknown: it may be forbidden by
	 * what it shows, never allowed or ignored */
	if (a->argv_cut && d2 != FP_DEC_FORBID) {
		d2 = FP_DEC_NONE;
		r2 = NULL;
	}
	if (d2 == FP_DEC_FORBID || d == FP_DEC_NONE) {
		d = d2;
		*rule = r2;
	}
	free(cmd);
	return d;
}

static bool expect_met(const struct fp_rule *r, const struct fp_findings *f)
{
	static const enum fp_file_list lists[] = { FP_F_ADDED, FP_F_REMOVED,
						   FP_F_CHANGED };
	size_t l, i;

	for (l = 0; l < 3; l++)
		for (i = 0; i < f->files[lists[l]].n; i++) {
			const struct fp_file_finding *x =
				&FP_FILES(f, lists[l])[i];

			if (fp_rule_matches(r, x->path.data, x->path.len))
				return true;
		}
	return false;
}

static bool expected(const struct fp_policy *p, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->rules[i].kind == FP_EXPECT &&
		    p->rules[i].target == FP_T_PATH &&
		    fp_rule_matches(&p->rules[i], s, len))
			return true;
	return false;
}

static void drop_file(struct fp_vec *v, size_t i)
{
	fp_file_finding_clear(fp_vec_at(v, struct fp_file_finding, i));
	fp_vec_remove(v, i, sizeof(struct fp_file_finding));
}

/*
 * A full list of reasons gives the place of its least severe one to a
 * more severe reason, so that a secret read after 50 files in the roots
 * is still said: the last of the least severe goes, the first said of a
 * kind stay. reasons_floor keeps that rank, so that the common case (one
 * more of what fills the list) costs nothing.
 */
static void keep_severe(struct fp_verdict *v, char *reason)
{
	enum fp_rank want = fp_reason_rank_in(&v->sev, reason),
		     worst = FP_RANK_VERDICT;
	char **slot = NULL;
	size_t i;

	if (v->reasons_floor && (int)want >= v->reasons_floor - 1) {
		free(reason);
		return;
	}
	for (i = 0; i < v->reasons.n; i++) {
		char **r = fp_vec_at(&v->reasons, char *, i);
		enum fp_rank k = fp_reason_rank_in(&v->sev, *r);

		if (k >= worst) {
			worst = k;
			slot = r;
		}
	}
	if (slot && worst > want) {
		/* out, and the new one at the end: the order they were said
		 * in stays, for each kind */
		char **v0 = fp_vec_arr(&v->reasons, char *),
		     **end = v0 + v->reasons.n - 1;

		free(*slot);
		memmove(slot, slot + 1, (end - slot) * sizeof(*slot));
		*end = reason;
		v->reasons_floor = 0;
		for (i = 0; i < v->reasons.n; i++) {
			int k = fp_reason_rank_in(
				&v->sev, *fp_vec_at(&v->reasons, char *, i));

			if (k + 1 > v->reasons_floor)
				v->reasons_floor = k + 1;
		}
		return;
	}
	v->reasons_floor = worst + 1;
	free(reason);
}

static int fail(struct fp_verdict *v, char *reason)
{
	v->failing++;
	if (v->reasons.n >= MAX_REASONS) {
		if (reason)
			keep_severe(v, reason);
		return 0;
	}
	return push_str(&v->reasons, reason);
}

int fp_verdict_fail_external(struct fp_verdict *v, char *reason)
{
	v->ok = false;
	return fail(v, reason);
}

/* reason, and the step it happened in (sidecar) */
static char *in_step(const struct fp_findings *f, unsigned int step,
		     char *reason)
{
	const struct fp_step *st = fp_findings_step(f, step);
	char *q, *s;

	if (!st || !reason)
		return reason;
	q = fp_policy_quote_dup(st->name.data, st->name.len, false);
	s = q ? fmt("%s in step %u (%s)", reason, st->index, q) : NULL;
	free(q);
	free(reason);
	return s;
}

static char *tamper_reason(const struct fp_tamper_finding *t)
{
	const char *what = fp_tamper_name(t);
	char *q, *s;

	if (t->what == FP_TAMPER_STATE_DIR) {
		q = fp_policy_quote_dup(t->path.data, t->path.len, false);
		s = q ? fmt("tamper.%s: %s by pid %d", what, q,
			    (int)t->by.pid) :
			NULL;
		free(q);
		return s;
	}
	switch (t->kind) {
	case FP_TAMPER_SIGNAL:
		return fmt("tamper.%s: SIG%s to footprint's pid %u by pid %d",
			   what, sigabbrev_np(t->sig) ?: "?", t->target_pid,
			   (int)t->by.pid);
	case FP_TAMPER_HEARTBEAT:
		return fmt("tamper.%s: footprint's programs stopped answering",
			   what);
	case FP_TAMPER_CONTROL:
		return fmt(
			"tamper.%s: a %s on footprint's control socket by root's pid %d, which is not footprint",
			what, fp_control_op_name(t->arg), (int)t->by.pid);
	case FP_TAMPER_RESTART:
		return fmt(
			"tamper.%s: the sidecar was restarted: its state directory was footprint pid %u's, whose job still runs",
			what, t->target_pid);
	case FP_TAMPER_REPLACED:
		return fmt(
			"tamper.%s: the sidecar was replaced: this daemon is not pid %u, the one started for the job",
			what, t->target_pid);
	default:
		return fmt("tamper.%s: %s %lld on pid %u by pid %d", what,
			   t->kind == FP_TAMPER_BPF ? "command" : "request",
			   (long long)t->arg, t->target_pid, (int)t->by.pid);
	}
}

/*
 * A traced process that reached for the tracer (sidecar) fails the verdict
 * whatever the rules say: evidence of tampering cannot be allowed away.
 */
static int judge_tamper(struct fp_findings *f, struct fp_verdict *v)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < f->tamper.n && !ret; i++) {
		struct fp_tamper_finding *t = &FP_TAMPER(f)[i];
		char *s = in_step(f, t->by.step, tamper_reason(t));

		t->failing = true;
		ret = fail(v, s ? fmt("%s (no rule can allow it)", s) : NULL);
		free(s);
	}
	return ret;
}

/*
 * A cut path is only the end of a longer one, and a path through a /proc
 * magic link does not say which file it reached: whatever a rule says of
 * such a name, it says of some other file. Only forbid applies to them
 * (a forbidden one fails anyway); nothing allows, ignores or expects them.
 */
static bool unresolved_list(size_t l)
{
	return l == FP_F_CUT || l == FP_F_MAGIC;
}

static char *unresolved_reason(size_t l, const char *q, bool forbidden)
{
	return fmt(
		"files.%s: %s%s%s", fp_file_list_names[l],
		l == FP_F_CUT ? "..." : "", q,
		forbidden ?
			" (forbidden)" :
		l == FP_F_CUT ?
			" (path longer than PATH_MAX, cut; no rule can allow it)" :
			" (through a /proc magic link; no rule can allow it)");
}

static int judge_files(const struct fp_policy *p, struct fp_findings *f,
		       struct fp_verdict *v)
{
	size_t l, i;
	int ret = 0;

	for (l = 0; l < FP_F_NLISTS; l++) {
		struct fp_vec *vec = &f->files[l];

		for (i = 0; i < vec->n && !ret;) {
			struct fp_file_finding *x = &FP_FILES(f, l)[i];
			const struct fp_rule *rule;
			enum fp_decision d =
				unresolved_list(l) ?
					fp_policy_forbids(p, FP_T_PATH,
							  x->path.data,
							  x->path.len, &rule) :
					fp_policy_decide(p, FP_T_PATH,
							 x->path.data,
							 x->path.len, &rule);
			char *q;

			if (unresolved_list(l)) {
				x->rule = rule ? rule->text : NULL;
				x->forbidden = d == FP_DEC_FORBID;
				x->failing = true;
				i++;
				q = fp_policy_quote_dup(x->path.data,
							x->path.len, false);
				ret = fail(v,
					   q ? in_step(f,
						       fp_file_finding_step(x),
						       unresolved_reason(
							       l, q,
							       x->forbidden)) :
					       NULL);
				free(q);
				continue;
			}
			if (d == FP_DEC_IGNORE) {
				drop_file(vec, i);
				continue;
			}
			x->rule = rule ? rule->text : NULL;
			x->forbidden = d == FP_DEC_FORBID;
			x->allowed = d == FP_DEC_ALLOW ||
				     (d == FP_DEC_NONE &&
				      expected(p, x->path.data, x->path.len));
			i++;
			if (x->allowed)
				continue;
			x->failing = true;
			q = fp_policy_quote_dup(x->path.data, x->path.len,
						false);
			ret = fail(v, q ? in_step(f, fp_file_finding_step(x),
						  fmt("files.%s: %s%s",
						      fp_file_list_names[l], q,
						      x->forbidden ?
							      " (forbidden)" :
							      "")) :
					  NULL);
			free(q);
		}
	}
	return ret;
}

static void drop_proc(struct fp_vec *v, size_t i)
{
	fp_proc_finding_clear(fp_vec_at(v, struct fp_proc_finding, i));
	fp_vec_remove(v, i, sizeof(struct fp_proc_finding));
}

static int judge_procs(const struct fp_policy *p, struct fp_findings *f,
		       struct fp_verdict *v)
{
	size_t l, i, n;
	int ret = 0;

	for (l = 0; l < FP_P_NLISTS && !ret; l++) {
		for (i = 0; i < f->procs[l].n && !ret;) {
			struct fp_proc_finding *x = &FP_PROCS(f, l)[i];
			const struct fp_rule *rule = NULL;
			enum fp_decision d = decide_proc(p, &x->p, &rule);
			char *q, *cmd;

			if (d == FP_DEC_IGNORE) {
				drop_proc(&f->procs[l], i);
				continue;
			}
			i++;
			x->rule = rule ? rule->text : NULL;
			x->forbidden = d == FP_DEC_FORBID;
			x->allowed = d == FP_DEC_ALLOW;
			if (!x->forbidden && (l != FP_P_LEFTOVER || x->allowed))
				continue;
			x->failing = true;
			cmd = cmdline(&x->p, &n);
			q = x->p.exe.len ?
				    fp_policy_quote_dup(x->p.exe.data,
							x->p.exe.len, false) :
			    cmd ? fp_policy_quote_dup(cmd, n, false) :
				  NULL;
			ret = fail(
				v,
				q ? in_step(f, x->p.step,
					    fmt("processes.%s: pid %d %s%s",
						fp_proc_list_names[l],
						(int)x->p.pid, q,
						x->forbidden ? " (forbidden)" :
							       "")) :
				    NULL);
			free(q);
			free(cmd);
		}
	}
	return ret;
}

/*
 * An exec that raised privileges fails unless an allow privileged rule
 * names its exe; process rules (allow, ignore) do not reach it.
 */
static int judge_privileged(const struct fp_policy *p, struct fp_findings *f,
			    struct fp_verdict *v)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < f->privileged.n && !ret; i++) {
		struct fp_proc_finding *x = &FP_PRIVILEGED(f)[i];
		const struct fp_rule *rule = NULL;
		enum fp_decision d = fp_policy_decide(
			p, FP_T_PRIV, x->p.exe.data, x->p.exe.len, &rule);
		char *q;

		x->rule = rule ? rule->text : NULL;
		x->forbidden = d == FP_DEC_FORBID;
		x->allowed = d == FP_DEC_ALLOW;
		if (x->allowed)
			continue;
		x->failing = true;
		q = fp_policy_quote_dup(x->p.exe.data ?: "", x->p.exe.len,
					false);
		ret = fail(
			v,
			q ? in_step(f, x->p.step,
				    fmt("processes.privileged: pid %d %s%s",
					(int)x->p.pid, q,
					x->forbidden ? " (forbidden)" : "")) :
			    NULL);
		free(q);
	}
	return ret;
}

static void drop_net(struct fp_vec *v, size_t i)
{
	fp_net_finding_clear(fp_vec_at(v, struct fp_net_finding, i));
	fp_vec_remove(v, i, sizeof(struct fp_net_finding));
}

/* The stronger of two decisions: forbid, then ignore, then allow. */
static enum fp_decision stronger(enum fp_decision a, const struct fp_rule *ra,
				 enum fp_decision b, const struct fp_rule *rb,
				 const struct fp_rule **rule)
{
	static const int rank[] = { [FP_DEC_NONE] = 0,
				    [FP_DEC_ALLOW] = 1,
				    [FP_DEC_IGNORE] = 2,
				    [FP_DEC_FORBID] = 3 };

	*rule = rank[b] > rank[a] ? rb : ra;
	return rank[b] > rank[a] ? b : a;
}

/*
 * A bind that asked for port 0 is also judged as port 0: "allow bind
 * tcp/127.0.0.1:0" allows whatever port the kernel chose for it, and
 * never a bind that asked for that port itself.
 */
static enum fp_decision decide_net(const struct fp_policy *p,
				   const struct fp_net_finding *x,
				   const struct fp_rule **rule)
{
	const struct fp_rule *r0;
	enum fp_decision d, d0;
	char subj[512];

	fp_net_subject(x, subj, sizeof(subj));
	d = fp_policy_decide(p, FP_T_BIND, subj, strlen(subj), rule);
	if (!x->any_port)
		return d;
	fp_net_suggest_subject(x, subj, sizeof(subj));
	d0 = fp_policy_decide(p, FP_T_BIND, subj, strlen(subj), &r0);
	return stronger(d, *rule, d0, r0, rule);
}

/* a listener on a port the kernel chose for a bind of the run */
static void mark_any_port(struct fp_findings *f)
{
	size_t i, k;

	for (i = 0; i < f->net[FP_N_LISTENING].n; i++) {
		struct fp_net_finding *x = &FP_NETS(f, FP_N_LISTENING)[i];

		for (k = 0; k < f->net[FP_N_BOUND].n && !x->outside_run &&
			    !x->new_outside;
		     k++) {
			const struct fp_net_finding *b =
				&FP_NETS(f, FP_N_BOUND)[k];

			if (b->any_port && b->family == x->family &&
			    b->protocol == x->protocol && b->port == x->port)
				x->any_port = true;
		}
	}
}

static int judge_net(const struct fp_policy *p, struct fp_findings *f,
		     struct fp_verdict *v)
{
	char subj[512];
	size_t l, i;
	int ret = 0;

	mark_any_port(f);
	for (l = 0; l < FP_N_NLISTS && !ret; l++) {
		for (i = 0; i < f->net[l].n && !ret;) {
			struct fp_net_finding *x = &FP_NETS(f, l)[i];
			const struct fp_rule *rule;
			enum fp_decision d = decide_net(p, x, &rule);

			if (d == FP_DEC_IGNORE) {
				drop_net(&f->net[l], i);
				continue;
			}
			i++;
			x->rule = rule ? rule->text : NULL;
			x->forbidden = d == FP_DEC_FORBID;
			x->allowed = d == FP_DEC_ALLOW;
			/* a listener of a process outside the run's cgroup,
			 * whether it predates the run or began during it (a
			 * concurrent run's), is reported, not held against it */
			if (x->allowed || ((x->outside_run || x->new_outside) &&
					   !x->forbidden))
				continue;
			x->failing = true;
			fp_net_subject(x, subj, sizeof(subj));
			ret = fail(
				v,
				in_step(f, x->step,
					fmt("network.%s: %s by pid %d%s%s",
					    fp_net_list_names[l], subj,
					    (int)x->pid,
					    x->new_outside ?
						    " (a process outside the run, begun during it)" :
						    "",
					    x->forbidden ? " (forbidden)" :
							   "")));
		}
	}
	return ret;
}

void fp_net_suggest_subject(const struct fp_net_finding *n, char *buf,
			    size_t len)
{
	struct fp_net_finding any = *n;

	if (n->any_port)
		any.port = 0;
	fp_net_subject(&any, buf, len);
}

static bool made_by_run(const struct fp_file_finding *x, size_t l)
{
	if (l == FP_F_UNEXPLAINED)
		l = x->what;
	return l == FP_F_ADDED || l == FP_F_TRANSIENT ||
	       (l == FP_F_OUTSIDE && (x->changes & FP_OP_CREATED));
}

/* what the run created, which shapes the rules of its needs */
static int created_paths(struct fp_suggester *s, const struct fp_findings *f)
{
	size_t l, i;
	int ret = 0;

	for (l = 0; l < FP_F_NLISTS && !ret; l++)
		for (i = 0; i < f->files[l].n && !ret; i++) {
			const struct fp_file_finding *x = &FP_FILES(f, l)[i];

			if (unresolved_list(l) || !made_by_run(x, l))
				continue;
			ret = fp_suggester_created(s, x->path.data, x->path.len,
						   x->after && x->after->type ==
								       'd');
		}
	return ret;
}

static int file_needs(struct fp_suggester *s, const struct fp_findings *f)
{
	size_t l, i;
	int ret = 0;

	/* a cut path or one through a magic link: no rule allows it */
	for (l = 0; l < FP_F_NLISTS && !ret; l++)
		for (i = 0; i < f->files[l].n && !ret; i++) {
			const struct fp_file_finding *x = &FP_FILES(f, l)[i];

			if (!unresolved_list(l) && x->failing && !x->forbidden)
				ret = fp_suggester_need(
					s, FP_T_PATH, x->path.data, x->path.len,
					made_by_run(x, l));
		}
	return ret;
}

int fp_judge_needs(struct fp_suggester *s, const struct fp_findings *f)
{
	char subj[512];
	size_t l, i, n;
	int ret = file_needs(s, f);

	for (l = 0; l < FP_P_NLISTS && !ret; l++)
		for (i = 0; i < f->procs[l].n && !ret; i++) {
			const struct fp_proc_finding *x = &FP_PROCS(f, l)[i];
			char *cmd;

			if (!x->failing || x->forbidden)
				continue;
			/* by executable; a process whose exe is unreadable by
			 * its command line */
			if (x->p.exe.len) {
				ret = fp_suggester_need(s, FP_T_PROCESS,
							x->p.exe.data,
							x->p.exe.len, false);
				continue;
			}
			cmd = cmdline(&x->p, &n);
			ret = !cmd ? -ENOMEM :
			      n	   ? fp_suggester_need(s, FP_T_PROCESS, cmd, n,
						       false) :
				     0;
			free(cmd);
		}
	for (i = 0; i < f->privileged.n && !ret; i++) {
		const struct fp_proc_finding *x = &FP_PRIVILEGED(f)[i];

		if (x->failing && !x->forbidden && x->p.exe.len)
			ret = fp_suggester_need(s, FP_T_PRIV, x->p.exe.data,
						x->p.exe.len, false);
	}
	for (l = 0; l < FP_N_NLISTS && !ret; l++)
		for (i = 0; i < f->net[l].n && !ret; i++) {
			const struct fp_net_finding *x = &FP_NETS(f, l)[i];

			if (!x->failing || x->forbidden)
				continue;
			fp_net_suggest_subject(x, subj, sizeof(subj));
			ret = fp_suggester_need(s, FP_T_BIND, subj,
						strlen(subj), false);
		}
	if (!ret)
		ret = fp_netflow_needs(s, f);
	if (!ret)
		ret = fp_sensitive_needs(s, f);
	if (!ret)
		ret = fp_procop_needs(s, f);
	/* a run that wrote thousands of files, all allowed, needs nothing:
	 * its created paths are not worth a table */
	if (!ret && fp_suggester_has_needs(s))
		ret = created_paths(s, f);
	return ret ? ret : fp_suggester_end_run(s);
}

static int suggest(const struct fp_findings *f, const struct fp_outcome *o,
		   struct fp_verdict *v)
{
	struct fp_suggester *s = fp_suggester_new(1);
	struct fp_vec out = { 0 };
	size_t i;
	int ret = s ? 0 : -ENOMEM;

	for (i = 0; !ret && i < o->nroots; i++)
		ret = fp_suggester_root(s, o->roots[i], strlen(o->roots[i]));
	for (i = 0; !ret && i < o->nhomes; i++)
		ret = fp_suggester_home(s, o->homes[i], strlen(o->homes[i]));
	if (!ret)
		fp_suggester_relative(s);
	if (!ret)
		ret = fp_judge_needs(s, f);
	if (!ret)
		ret = fp_suggester_finish(s, &out);
	for (i = 0; !ret && i < out.n && i < MAX_SUGGESTIONS; i++) {
		struct fp_sugg *g = fp_vec_at(&out, struct fp_sugg, i);
		size_t *c = fp_vec_push(&v->suggestion_counts, sizeof(*c));

		ret = c ? push_str(&v->suggestions, g->line) : -ENOMEM;
		if (!ret) {
			*c = g->count;
			g->line = NULL;
		}
	}
	fp_suggs_free(&out);
	fp_suggester_free(s);
	return ret;
}

int fp_judge(const struct fp_policy *p, struct fp_findings *f,
	     const struct fp_outcome *o, struct fp_verdict *v)
{
	size_t i;
	int ret;

	memset(v, 0, sizeof(*v));
	v->sev = p->sev;
	if (o->timed_out)
		ret = push_str(&v->reasons, fmt("command timed out"));
	else if (o->signal)
		ret = push_str(&v->reasons,
			       fmt("command was killed by SIG%s",
				   sigabbrev_np(o->signal) ?: "?"));
	else if (o->exit_code < 0)
		ret = push_str(&v->reasons,
			       fmt("how the command ended is not known"));
	else if (o->exit_code != 0)
		ret = push_str(&v->reasons,
			       fmt("command exited %d", o->exit_code));
	else
		ret = 0;
	if (!ret && o->interrupted)
		ret = push_str(&v->reasons, fmt("footprint was interrupted"));
	if (!ret && !o->complete)
		ret = push_str(
			&v->reasons,
			o->incomplete_why ?
				fmt("trace incomplete: %s", o->incomplete_why) :
				fmt("trace incomplete: %llu events lost",
				    (unsigned long long)o->lost));
	if (!ret)
		ret = judge_tamper(f, v);
	if (!ret)
		ret = judge_files(p, f, v);
	if (!ret)
		ret = judge_procs(p, f, v);
	if (!ret)
		ret = judge_privileged(p, f, v);
	if (!ret)
		ret = judge_net(p, f, v);
	if (!ret)
		ret = fp_judge_netflow(p, f, o, v);
	if (!ret)
		ret = fp_judge_sensitive(p, f, v);
	if (!ret)
		ret = fp_judge_procops(p, f, v);
	for (i = 0; !ret && i < p->n; i++) {
		const struct fp_rule *r = &p->rules[i];
		struct fp_expect *e;

		if (r->kind != FP_EXPECT)
			continue;
		e = fp_vec_push(&v->expects, sizeof(*e));
		if (!e) {
			ret = -ENOMEM;
			break;
		}
		e->rule = r;
		e->met = expect_met(r, f);
		if (!e->met)
			ret = fail(v,
				   fmt("expected change missing: %s", r->text));
	}
	if (!ret)
		ret = suggest(f, o, v);
	if (v->failing > MAX_REASONS && !ret)
		ret = push_str(&v->reasons,
			       fmt("... and %zu more failing findings",
				   v->failing - MAX_REASONS));
	/* the first reason a reviewer reads is the most severe */
	if (!ret)
		fp_reasons_by_rank(&v->sev, v->reasons.v, v->reasons.n);
	v->ok = !ret && !o->timed_out && !o->signal && o->exit_code == 0 &&
		!o->interrupted && o->complete && v->failing == 0;
	return ret;
}

int fp_verdict_fail(struct fp_verdict *v, const struct fp_findings *f,
		    unsigned int step, char *reason)
{
	return fail(v, reason ? in_step(f, step, reason) : NULL);
}

void fp_verdict_free(struct fp_verdict *v)
{
	size_t i;

	for (i = 0; i < v->reasons.n; i++)
		free(*fp_vec_at(&v->reasons, char *, i));
	for (i = 0; i < v->suggestions.n; i++)
		free(*fp_vec_at(&v->suggestions, char *, i));
	free(v->reasons.v);
	free(v->suggestions.v);
	free(v->suggestion_counts.v);
	free(v->expects.v);
	memset(v, 0, sizeof(*v));
}
