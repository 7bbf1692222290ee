// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "secrets.h"
#include "sensitive.h"

void fp_read_finding_clear(struct fp_read_finding *x)
{
	free(x->path.data);
	fp_actor_clear(&x->by);
	memset(x, 0, sizeof(*x));
}

void fp_signal_finding_clear(struct fp_signal_finding *x)
{
	free(x->target_exe.data);
	fp_actor_clear(&x->by);
	memset(x, 0, sizeof(*x));
}

static void free_signals(struct fp_vec *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		fp_signal_finding_clear(
			fp_vec_at(v, struct fp_signal_finding, i));
	free(v->v);
}

void fp_sensitive_free(struct fp_findings *f)
{
	size_t i;

	for (i = 0; i < f->reads.n; i++)
		fp_read_finding_clear(&FP_READS(f)[i]);
	free(f->reads.v);
	free_signals(&f->signalled);
	free_signals(&f->ptraced);
}

static bool under_roots(const struct fp_reads_conf *c, const struct fp_bytes *p)
{
	size_t i;

	for (i = 0; i < c->nroots; i++)
		if (fp_path_under(p->data, p->len, c->roots[i],
				  strlen(c->roots[i])))
			return true;
	return false;
}

static const char *class_of(const struct fp_reads_conf *c,
			    const struct fp_event_path *p)
{
	return fp_secret_class(p->path.data, p->path.len, c->homes, c->nhomes);
}

/* /proc/PID/environ or mem of a process outside the run */
static const char *proc_class(const struct fp_event *ev, fp_in_run_fn in_run,
			      const void *ctx)
{
	const struct fp_bytes *p = &ev->file.path[0].path;
	const char *cls = NULL;
	pid_t pid = fp_secret_proc_pid(p->data, p->len, &cls);

	if (!pid || pid == (pid_t)ev->pid || in_run(ctx, pid))
		return NULL;
	return cls;
}

bool fp_read_interest(const struct fp_reads_conf *c, const struct fp_event *ev,
		      fp_in_run_fn in_run, const void *ctx, const char **secret)
{
	const struct fp_event_path *p = &ev->file.path[0];
	uint64_t fl = ev->file.flags;

	*secret = NULL;
	if (!ev->file.npaths || p->anonymous || !p->path.data ||
	    ev->file.sys == FP_SYS_CREAT || (fl & (O_PATH | O_DIRECTORY)))
		return false;
	/* a write to another process's memory is as bad as a read */
	*secret = proc_class(ev, in_run, ctx);
	if (*secret)
		return true;
	if ((fl & O_ACCMODE) == O_WRONLY)
		return false;
	*secret = class_of(c, p);
	/* an open through a symlink: the name given may be the secret */
	if (!*secret && ev->file.npaths == 2 && ev->file.path[1].named)
		*secret = class_of(c, &ev->file.path[1]);
	/* a secret by its device and inode, under whatever name reached it */
	if (!*secret && p->secret_id)
		*secret = fp_secret_class_name(ev->file.arg[0]);
	if (*secret)
		return true;
	return fp_read_kept_plain(c, ev);
}

bool fp_read_kept_plain(const struct fp_reads_conf *c,
			const struct fp_event *ev)
{
	const struct fp_event_path *p = &ev->file.path[0];
	bool by;

	if (c->pol &&
	    fp_policy_names(c->pol, FP_T_READ, p->path.data, p->path.len, &by))
		return true;
	if (ev->file.ret < 0)
		return false;
	return c->report_all || under_roots(c, &p->path);
}

bool fp_read_per_reader(const struct fp_reads_conf *c,
			const struct fp_event *ev, const char *secret)
{
	const struct fp_bytes *p = &ev->file.path[0].path;
	bool by = false;

	if (secret)
		return true;
	/* the common case, no scoped rule: no second look at the rules */
	if (!c->pol || !c->pol->nby)
		return false;
	return fp_policy_names(c->pol, FP_T_READ, p->data, p->len, &by) && by;
}

bool fp_read_state_note(struct fp_read_state *st, const struct fp_event *ev,
			const char *secret)
{
	bool first = !st->opens, name;

	/* a collapsed record stands for count identical opens */
	st->opens += ev->file.count > 1 ? ev->file.count : 1;
	if (secret)
		st->secret = secret;
	if (ev->file.ret >= 0) {
		name = !st->read;
		st->read = true;
		st->err = 0;
		return name;
	}
	if (first)
		st->err = (int)-ev->file.ret;
	return first;
}

void fp_signal_key_of(const struct fp_event *ev, struct fp_signal_key *k)
{
	memset(k, 0, sizeof(*k));
	k->pid = ev->pid;
	k->target_pid = ev->signal.target_tgid;
	k->ptrace = fp_sys_crossproc(ev->signal.sys);
	/* ptrace and each cross-process call apart: the call is named */
	k->sig = k->ptrace ? (int32_t)ev->signal.sys : ev->signal.sig;
}

bool fp_signal_state_note(struct fp_signal_state *st, const struct fp_event *ev)
{
	struct fp_signal_finding *f = &st->f;
	bool first = !f->count;

	if (first) {
		f->sys = ev->signal.sys;
		f->sig = ev->signal.sig;
		f->request = ev->signal.request;
		f->target = ev->signal.target;
		f->target_pid = ev->signal.target_tgid;
		f->ts_ns = ev->ts_ns;
		f->err = ev->signal.ret < 0 ? (int)-ev->signal.ret : 0;
	} else if (ev->signal.ret >= 0) {
		f->err = 0;
	}
	f->count++;
	return first;
}
