// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hashmap.h"
#include "privilege.h"
#include "reconcile.h"
#include "netflow.h"
#include "own.h"
#include "authprog.h"
#include "sensitive.h"
#include "procops.h"
#include "uring_seen.h"
#include "proctab.h"

struct exec_rec {
	pid_t pid, ppid;
	struct fp_cmdline *cmd; /* shared with every actor naming it */
	uint64_t ts_ns;
	struct fp_privs creds;
	/* the image before it (its own, or its parent's at fork) */
	int32_t base;
	unsigned int rose; /* FP_PRIV_* */
	bool own; /* footprint's own (own.h), as FP_EV_CONTROL said */
	int auth; /* an authentication program (authprog.h), or -1 */
};

struct proc_state {
	pid_t pid, ppid;
	long exec_idx; /* into execs, -1 if it never exec'd (nor its parent) */
	bool started; /* fork or exec seen during the run */
	bool exited;
	uint32_t group; /* 1-based into groups, 0 none (sidecar only) */
	/* it predates the trace and is footprint's own (exec_idx is -1) */
	bool own;
	/* opens left to find the script a relative exec ran, and which
	 * argument of the interpreter names it (note_ran) */
	uint16_t script_opens;
	uint8_t script_arg;
	uint32_t row; /* its row in the process table (proctab.h), 1-based */
};

/* a process as one event saw it */
struct who {
	pid_t pid;
	int32_t exec; /* into execs, or -1 */
	uint32_t group; /* 1-based into groups, or 0 */
};

struct path_state {
	unsigned int ops; /* FP_OP_* */
	bool born; /* the file now at this path was created during the run */
	int exists; /* per events: 1, 0, or -1 unknown */
	struct who last, created, removed;
	uint64_t seq; /* the event that last touched it (fp_recon.fed) */
	/* an event surely changed it: created, truncated, replaced; an open
	 * for writing alone may have written nothing */
	bool wrote;
	uint32_t moves; /* its last rename away: 1-based into fp_recon.moves */
	/*
	 * A hard link the run made here to a file outside the roots: that
	 * file's key in fp_recon.paths. A write through this name is one
	 * to that file.
	 */
	const char *link_src;
	size_t link_src_len;
	/* made executable (chmod +x, created with an x bit); run by an exec
	 * (runner: the first) */
	bool made_exec, ran;
	struct who runner;
};

/*
 * A rename away from a path. A directory's takes what is in it along, and
 * the files in it are reported where they ended: the renames of its
 * ancestors after a file's last event say where that is.
 */
struct move {
	const char *to; /* the key of the new name in fp_recon.paths */
	size_t to_len;
	uint64_t seq;
	uint32_t prev; /* the rename before it from the same path, or 0 */
};

/*
 * Processes of one step, or of what may turn out to be one. A fork by the
 * step parent starts a step; a process first seen without a known parent
 * (it predates the trace) starts a group that fp_reconcile places by the
 * process snapshots: a step's, or none (say a --cgroup container).
 */
struct group_rec {
	pid_t root; /* its first process */
	bool step; /* root is known to be a child of the step parent */
	bool forked; /* and was forked during the trace: a step of its own */
	/* the mark in effect when it was forked: 1-based, 0 none */
	uint32_t mark;
	uint64_t ts_ns; /* its first event */
	struct fp_bytes name; /* exec.step_name of root, else empty */
	bool own; /* root is footprint's own: a sidecar client, not a step */
};

/* the process looked up last: most events follow one of the same */
struct proc_memo {
	pid_t pid;
	struct proc_state *p;
};

struct fp_recon {
	struct fp_hashmap paths;
	struct fp_hashmap procs;
	/* a pointer, so that lookups through a const fp_recon keep it */
	struct proc_memo *memo;
	struct fp_vec execs; /* struct exec_rec */
	struct fp_vec short_lived; /* struct fp_proc_finding, actor by index */
	struct fp_vec binds; /* struct fp_net_finding */
	struct fp_vec moves; /* struct move */
	/* sidecar: steps, marks and tamper evidence */
	pid_t step_parent; /* 0: no steps */
	struct fp_vec groups; /* struct group_rec */
	struct fp_vec exec_groups; /* uint32_t, one per exec (steps only) */
	struct fp_vec marks; /* struct fp_bytes */
	struct fp_vec tampers; /* struct fp_tamper_finding */
	struct fp_netrec *net; /* connections and DNS (netflow.c) */
	/* sensitive.h: reads kept (path -> struct fp_read_state) and
	 * signals outside the run (struct fp_signal_key -> state) */
	struct fp_reads_conf rconf;
	struct fp_hashmap reads, signals;
	uint64_t reads_listed, reads_omitted;
	/* the budget: bytes charged for the state, and events left out */
	uint64_t budget, used, fed, unfolded;
	char why[200];
	/* procops.h: mounts, namespaces, fileless execs, set-ID files */
	struct fp_vec procops[FP_PO_NKINDS];
	uint64_t procops_omitted[FP_PO_NKINDS];
	/* what io_uring left unseen (uring_seen.h) */
	struct fp_uring_seen uring;
	struct fp_proctab ptab; /* the process table (proctab.h) */
};

/* what a generated script did: made executable and run (defined below) */
static void note_made_exec(struct path_state *ps, const struct fp_event *ev);
static void note_ran(struct fp_recon *r, const struct fp_event *ev);
static void note_script_open(struct fp_recon *r, const struct fp_event *ev);
static int ran_fill(const struct fp_recon *r, struct fp_file_finding *f,
		    const struct path_state *ps, bool creator);
static int held_outside(const struct fp_recon_input *in,
			const struct fp_fentry *e, struct fp_actor *a);

/*
 * What one piece of state costs, counted the same way live and in replay
 * (never by asking malloc), so that a replayed run reaches the budget at
 * the same event. The findings each piece becomes are charged up front.
 */
#define MALLOC_OVERHEAD 16
#define ALLOC(n) ((n) + MALLOC_OVERHEAD)
/* a map holds at most half its slots, and doubles */
#define SLOT_COST (4 * sizeof(struct fp_hslot))
/* a vector doubles */
#define VEC_COST(elem) (2 * (elem))

struct fp_recon *fp_recon_new(void)
{
	struct fp_recon *r = calloc(1, sizeof(struct fp_recon));

	if (!r)
		return NULL;
	r->memo = calloc(1, sizeof(*r->memo));
	if (!r->memo) {
		free(r);
		return NULL;
	}
	r->budget = FP_RECON_BUDGET_DEFAULT;
	return r;
}

void fp_recon_set_budget(struct fp_recon *r, uint64_t bytes)
{
	r->budget = bytes;
}

uint64_t fp_recon_unfolded(const struct fp_recon *r)
{
	return r->unfolded;
}

uint64_t fp_recon_used(const struct fp_recon *r)
{
	return r->used;
}

const char *fp_recon_budget_why(const struct fp_recon *r)
{
	return r->unfolded ? r->why : NULL;
}

/* 0, or -EDQUOT once the budget is spent: then nothing new is kept */
static int charge(struct fp_recon *r, uint64_t cost)
{
	if (r->unfolded || (r->budget && r->used + cost > r->budget))
		return -EDQUOT;
	r->used += cost;
	return 0;
}

static void free_exec(struct exec_rec *e)
{
	fp_cmdline_put(e->cmd);
}

#define GROUPS(r) ((struct group_rec *)(r)->groups.v)

void fp_recon_set_step_parent(struct fp_recon *r, pid_t pid)
{
	r->step_parent = pid;
}

void fp_recon_free(struct fp_recon *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->groups.n; i++)
		free(GROUPS(r)[i].name.data);
	free(r->groups.v);
	free(r->exec_groups.v);
	for (i = 0; i < r->marks.n; i++)
		free(((struct fp_bytes *)r->marks.v)[i].data);
	free(r->marks.v);
	for (i = 0; i < r->tampers.n; i++)
		fp_tamper_finding_clear(
			&((struct fp_tamper_finding *)r->tampers.v)[i]);
	free(r->tampers.v);
	fp_hashmap_free(&r->paths, free);
	fp_hashmap_free(&r->procs, free);
	fp_hashmap_free(&r->reads, free);
	fp_hashmap_free(&r->signals, free);
	for (i = 0; i < r->execs.n; i++)
		free_exec(&((struct exec_rec *)r->execs.v)[i]);
	free(r->execs.v);
	for (i = 0; i < r->short_lived.n; i++)
		fp_actor_clear(
			&((struct fp_proc_finding *)r->short_lived.v)[i].p);
	free(r->short_lived.v);
	for (i = 0; i < r->binds.n; i++)
		fp_net_finding_clear(&((struct fp_net_finding *)r->binds.v)[i]);
	free(r->binds.v);
	free(r->moves.v);
	fp_netrec_free(r->net);
	fp_procops_free(r->procops);
	fp_proctab_free(&r->ptab);
	free(r->memo);
	free(r);
}

/*
 * The state of pid, NULL if none. States are never removed nor moved (the
 * table holds pointers), so the last one found stays right for its pid.
 */
static struct proc_state *proc_of(const struct fp_recon *r, pid_t pid)
{
	struct proc_memo *m = r->memo;
	struct proc_state *p;

	if (m->p && m->pid == pid)
		return m->p;
	p = fp_hashmap_get(&r->procs, &pid, sizeof(pid));
	if (p) {
		m->pid = pid;
		m->p = p;
	}
	return p;
}

/* the state of pid, made if new: 0, -ENOMEM or -EDQUOT */
static int proc_new(struct fp_recon *r, pid_t pid, struct proc_state **out)
{
	struct fp_hslot *s;
	struct proc_state *p;

	*out = proc_of(r, pid);
	if (*out)
		return 0;
	if (charge(r, SLOT_COST + ALLOC(sizeof(pid) + 1) + ALLOC(sizeof(*p))))
		return -EDQUOT;
	s = fp_hashmap_slot(&r->procs, &pid, sizeof(pid));
	if (!s)
		return -ENOMEM;
	if (!s->val) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		p->exec_idx = -1;
		s->val = p;
	}
	*out = s->val;
	return 0;
}

static long exec_of(const struct fp_recon *r, pid_t pid)
{
	struct proc_state *p = proc_of(r, pid);

	return p ? p->exec_idx : -1;
}

/* pid as its state stands now */
static struct who who_now(const struct fp_recon *r, pid_t pid)
{
	struct proc_state *p = proc_of(r, pid);
	struct who w = { pid, -1, 0 };

	if (p) {
		w.exec = p->exec_idx;
		w.group = p->group;
	}
	return w;
}

/* a->step holds the group until fp_reconcile names the steps */
static int actor_fill(const struct fp_recon *r, struct fp_actor *a,
		      const struct who *w)
{
	const struct exec_rec *e;
	struct proc_state *p;

	memset(a, 0, sizeof(*a));
	a->pid = w->pid;
	a->step = w->group;
	p = proc_of(r, w->pid);
	if (p)
		a->ppid = p->ppid;
	/* an exec'd one is footprint's own by its cmdline (own.h) */
	a->own = w->exec < 0 && p && p->own;
	if (w->exec < 0 || (size_t)w->exec >= r->execs.n)
		return fp_actor_own(a, "", 0, "", 0);
	e = &((const struct exec_rec *)r->execs.v)[w->exec];
	fp_actor_share(a, e->cmd);
	return 0;
}

/* ---- steps (sidecar) ---- */

static int group_new(struct fp_recon *r, pid_t root, bool step, bool forked,
		     uint64_t ts, uint32_t *g)
{
	struct group_rec *gr;

	if (charge(r, VEC_COST(sizeof(*gr))))
		return -EDQUOT;
	gr = fp_vec_push(&r->groups, sizeof(*gr));
	if (!gr)
		return -ENOMEM;
	gr->root = root;
	gr->step = step;
	gr->forked = forked;
	/* one that predates the trace started before any mark */
	gr->mark = forked ? r->marks.n : 0;
	gr->ts_ns = ts;
	*g = r->groups.n;
	return 0;
}

/* A fork: a child of the step parent starts a step; any other child is
 * in its parent's group, which is the parent's own if it predates the
 * trace. */
static int fork_group(struct fp_recon *r, const struct fp_event *ev,
		      struct proc_state *p)
{
	struct proc_state *pp;
	int ret;

	p->group = 0;
	if (!r->step_parent || !ev->ppid)
		return 0;
	if ((pid_t)ev->ppid == r->step_parent)
		return group_new(r, ev->pid, true, true, ev->ts_ns, &p->group);
	ret = proc_new(r, ev->ppid, &pp);
	if (ret)
		return ret;
	if (!pp->group) {
		ret = group_new(r, ev->ppid, false, false, ev->ts_ns,
				&pp->group);
		if (ret)
			return ret;
		/* footprint's own that predates the trace: no step */
		GROUPS(r)[pp->group - 1].own = pp->own;
	}
	p->group = pp->group;
	return 0;
}

/* The group of the process any other event comes from, made if new. */
static int event_group(struct fp_recon *r, const struct fp_event *ev,
		       uint32_t *g)
{
	bool child = (pid_t)ev->ppid == r->step_parent;
	struct proc_state *p, *pp;
	int ret;

	*g = 0;
	if (!r->step_parent || !ev->pid || (pid_t)ev->pid == r->step_parent)
		return 0;
	p = proc_of(r, ev->pid);
	if (!p || !p->group) {
		ret = proc_new(r, ev->pid, &p);
		if (ret)
			return ret;
		pp = proc_of(r, ev->ppid);
		if (!child && pp && pp->group)
			p->group = pp->group;
		else if ((ret = group_new(r, ev->pid, child, false, ev->ts_ns,
					  &p->group)))
			return ret;
		else
			GROUPS(r)[p->group - 1].own = p->own;
	}
	/* a process that predates the trace shows its parent here */
	if (child && GROUPS(r)[p->group - 1].root == (pid_t)ev->pid)
		GROUPS(r)[p->group - 1].step = true;
	*g = p->group;
	return 0;
}

/* GITHUB_ACTION of a step's first process names the step */
static int name_group(struct fp_recon *r, const struct fp_event *ev, uint32_t g)
{
	struct group_rec *gr = g ? &GROUPS(r)[g - 1] : NULL;
	const struct fp_bytes *n = &ev->exec.step_name;

	if (!gr || !n->len || gr->name.data || gr->root != (pid_t)ev->pid)
		return 0;
	if (charge(r, ALLOC(n->len + 1)))
		return -EDQUOT;
	return fp_bytes_dup(&gr->name, n->data, n->len);
}

static int feed_mark(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_bytes *m;

	if (charge(r, VEC_COST(sizeof(*m)) + ALLOC(ev->mark.name.len + 1)))
		return -EDQUOT;
	m = fp_vec_push(&r->marks, sizeof(*m));
	if (!m)
		return -ENOMEM;
	if (fp_bytes_dup(m, ev->mark.name.data ?: "", ev->mark.name.len)) {
		r->marks.n--;
		return -ENOMEM;
	}
	return 0;
}

/* One of footprint's own processes, as the daemon checked it: its image
 * now (or, one that predates the trace, the process), and its group. */
static int own_process(struct fp_recon *r, pid_t pid)
{
	struct proc_state *p;
	int ret;

	if (!pid)
		return 0;
	ret = proc_new(r, pid, &p);
	if (ret)
		return ret;
	if (p->exec_idx >= 0 && (size_t)p->exec_idx < r->execs.n)
		((struct exec_rec *)r->execs.v)[p->exec_idx].own = true;
	else
		p->own = true;
	if (p->group && GROUPS(r)[p->group - 1].root == pid)
		GROUPS(r)[p->group - 1].own = true;
	return 0;
}

/* `sidecar start` names the step that ran it, which predates the trace,
 * by the GITHUB_ACTION the daemon read from that step's process */
static int name_start_step(struct fp_recon *r, const struct fp_event *ev)
{
	pid_t pid = ev->control.step_pid;
	const struct fp_bytes *n = &ev->control.name;
	struct group_rec *gr;
	struct proc_state *p;
	int ret;

	if (!r->step_parent || !pid || !n->len)
		return 0;
	ret = proc_new(r, pid, &p);
	if (!ret && !p->group)
		ret = group_new(r, pid, true, false, ev->ts_ns, &p->group);
	if (ret)
		return ret;
	gr = &GROUPS(r)[p->group - 1];
	if (gr->root != pid || gr->name.data)
		return 0;
	if (charge(r, ALLOC(n->len + 1)))
		return -EDQUOT;
	return fp_bytes_dup(&gr->name, n->data, n->len);
}

/*
 * A mark made from a step that predates the trace (the one that ran
 * `sidecar start`) names that step too, when it has no GITHUB_ACTION:
 * the last such mark. The FP_EV_MARK that follows is marks.n + 1.
 */
static void mark_names_its_step(struct fp_recon *r, const struct fp_event *ev)
{
	struct proc_state *p = proc_of(r, ev->pid);
	struct group_rec *gr;

	if (!p || !p->group ||
	    (ev->control.result != FP_CTL_OK &&
	     ev->control.result != FP_CTL_FOREIGN))
		return;
	gr = &GROUPS(r)[p->group - 1];
	if (!gr->forked && !gr->own)
		gr->mark = r->marks.n + 1;
}

static int feed_control(struct fp_recon *r, const struct fp_event *ev)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; i < ev->control.nown && i < FP_CTL_MAX_OWN && !ret; i++)
		ret = own_process(r, ev->control.own[i]);
	if (!ret && ev->control.op == FP_CTL_START)
		ret = name_start_step(r, ev);
	if (!ret && ev->control.op == FP_CTL_MARK && r->step_parent)
		mark_names_its_step(r, ev);
	return ret;
}

static int feed_tamper(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_tamper_finding *t;
	struct who w = { ev->pid, exec_of(r, ev->pid), 0 };
	int ret = event_group(r, ev, &w.group);

	if (ret)
		return ret;
	/* kept here, and copied into the findings */
	if (charge(r, 2 * VEC_COST(sizeof(*t))))
		return -EDQUOT;
	t = fp_vec_push(&r->tampers, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->what = FP_TAMPER_EVENT;
	t->kind = ev->tamper.kind;
	t->sig = ev->tamper.sig;
	t->target_pid = ev->tamper.target_pid;
	t->arg = ev->tamper.arg;
	t->ts_ns = ev->ts_ns;
	/* the tracer's own heartbeat names no process */
	return ev->pid ? actor_fill(r, &t->by, &w) : 0;
}

/* what a path costs: its state, and the finding it may become */
static uint64_t path_cost(size_t len)
{
	return SLOT_COST + ALLOC(len + 1) + ALLOC(sizeof(struct path_state)) +
	       VEC_COST(sizeof(struct fp_file_finding)) + ALLOC(len + 1);
}

/* the state of path p, made if new: 0, -ENOMEM or -EDQUOT */
static int path_get(struct fp_recon *r, const struct fp_bytes *p,
		    struct path_state **out)
{
	struct fp_hslot *s;
	struct path_state *ps;

	*out = fp_hashmap_get(&r->paths, p->data, p->len);
	if (*out)
		return 0;
	if (charge(r, path_cost(p->len)))
		return -EDQUOT;
	s = fp_hashmap_slot(&r->paths, p->data, p->len);
	if (!s)
		return -ENOMEM;
	if (!s->val) {
		ps = calloc(1, sizeof(*ps));
		if (!ps)
			return -ENOMEM;
		ps->exists = -1;
		ps->last.exec = ps->created.exec = ps->removed.exec = -1;
		s->val = ps;
	}
	*out = s->val;
	return 0;
}

/* read-only opens change nothing and are never kept: a command may make
 * millions of them */
static bool changes_nothing(const struct fp_event *ev, enum fp_file_op op)
{
	uint64_t acc = ev->file.flags & O_ACCMODE;

	if (op != FP_FOP_OPEN)
		return false;
	if (acc == O_RDONLY && !(ev->file.flags & (O_CREAT | O_TRUNC)))
		return true;
	/* an unnamed file in that directory */
	return (ev->file.flags & O_TMPFILE) == O_TMPFILE;
}

static void touch(struct path_state *ps, const struct who *w)
{
	ps->last = *w;
}

/* What a successful event did to its i-th path, as outside_roots says. */
static unsigned int ops_of(const struct fp_event *ev, unsigned int i)
{
	enum fp_file_op op = fp_file_op(ev);

	if (op == FP_FOP_OPEN)
		return i		? 0 :
		       ev->file.created ? FP_OP_CREATED | FP_OP_WRITTEN :
					  FP_OP_WRITTEN;
	if (op == FP_FOP_UNLINK)
		return i ? 0 : FP_OP_REMOVED;
	if (op == FP_FOP_RENAME)
		return i ? FP_OP_RENAMED_TO : FP_OP_RENAMED_FROM;
	/* a link's old name is not changed: linking an O_TMPFILE through
	 * /proc/self/fd/N is how such a file gets a name */
	if (op == FP_FOP_LINK)
		return i ? FP_OP_CREATED : 0;
	/* a symlink's second path is its target, which is not touched */
	if (op == FP_FOP_SYMLINK || op == FP_FOP_MKDIR || op == FP_FOP_MKNOD)
		return i ? 0 : FP_OP_CREATED;
	if (op == FP_FOP_CHMOD || op == FP_FOP_CHOWN)
		return i ? 0 : FP_OP_ATTRS;
	return i ? 0 : FP_OP_WRITTEN; /* truncate */
}

/*
 * A changed path that was cut at PATH_MAX, or that went through a /proc
 * magic link (which the kernel side resolves for opens only), does not
 * say which file changed. It explains nothing and is kept apart, under a
 * key no real path has (a NUL first), as a cut or magic_link finding.
 * Returns 1 when the event was such a one.
 */
static int feed_unresolved(struct fp_recon *r, const struct fp_event *ev,
			   const struct who *w)
{
	char key[2 + 4096];
	unsigned int i, ops, n = ev->file.npaths < 2 ? ev->file.npaths : 2;
	int found = 0, ret;

	for (i = 0; i < n; i++) {
		const struct fp_event_path *p = &ev->file.path[i];
		struct fp_bytes k = { key, 0 };
		struct path_state *ps;

		ops = ops_of(ev, i);
		if (!ops || p->named || !(p->truncated || p->magic))
			continue;
		found = 1;
		if (p->path.len > sizeof(key) - 2)
			k.data = malloc(p->path.len + 2);
		if (!k.data)
			return -ENOMEM;
		k.data[0] = '\0';
		k.data[1] = p->truncated ? 'c' : 'm';
		memcpy(k.data + 2, p->path.data, p->path.len);
		k.len = p->path.len + 2;
		ret = path_get(r, &k, &ps);
		if (k.data != key)
			free(k.data);
		if (ret)
			return ret;
		ps->ops |= ops;
		touch(ps, w);
	}
	return found;
}

/* a file is created at ps by w */
static void born(struct path_state *ps, const struct who *w)
{
	ps->born = true;
	ps->wrote = true;
	ps->created = *w;
	ps->exists = 1;
	touch(ps, w);
}

/* from is renamed to the path of the i-th argument of ev */
static int moved(struct fp_recon *r, struct path_state *from,
		 const struct fp_event *ev, unsigned int i)
{
	const struct fp_bytes *to = &ev->file.path[i].path;
	struct fp_hslot *s;
	struct move *m;

	if (charge(r, VEC_COST(sizeof(*m))))
		return -EDQUOT;
	s = fp_hashmap_slot(&r->paths, to->data, to->len);
	m = s ? fp_vec_push(&r->moves, sizeof(*m)) : NULL;
	if (!m)
		return -ENOMEM;
	*m = (struct move){ s->key, s->len, r->fed, from->moves };
	from->moves = r->moves.n;
	return 0;
}

static int feed_read(struct fp_recon *r, const struct fp_event *ev);

/*
 * A file the run made set-user-ID or set-group-ID (files.setuid): kept
 * apart from the path's other changes, and judged on its own.
 */
static int note_setid(struct fp_recon *r, const struct fp_event *ev,
		      const struct who *w)
{
	struct fp_procop_finding x = {
		.kind = FP_PO_SETID,
		.sys = ev->file.sys,
		.mode = fp_procop_setid_mode(ev),
		.path = ev->file.path[0].path,
		.ts_ns = ev->ts_ns,
		.pid = w->pid,
		.exec = w->exec,
		.group = w->group,
	};
	int ret;

	if (charge(r, ALLOC(sizeof(x)) + ALLOC(x.path.len + 1) + ALLOC(1)))
		return -EDQUOT;
	ret = fp_procop_note(r->procops, r->procops_omitted, &x);
	return ret < 0 ? ret : 0;
}

/*
 * A tmpfile's name ("#INO" in its directory) linked to a real name is how
 * an O_TMPFILE file gets one: its old name is no file of anybody's.
 */
static bool tmpfile_name(const struct fp_bytes *p)
{
	const char *slash = p->len ? memrchr(p->data, '/', p->len) : NULL;

	return slash && slash + 1 < p->data + p->len && slash[1] == '#';
}

/*
 * link(old, new): a new name for the file at old. The file is not
 * changed by it, but a write through the new name changes it: when old is
 * outside the roots (the run's, as the read rules have them), the link is
 * a change there (linked), and new keeps where it leads (through_link).
 */
static void link_made(struct fp_recon *r, const struct fp_event *ev,
		      struct path_state *a, struct path_state *b,
		      const struct who *w)
{
	const struct fp_event_path *old = &ev->file.path[0];
	const struct fp_hslot *s;

	size_t i;

	b->link_src = NULL;
	if (old->magic || old->truncated || old->unresolved ||
	    tmpfile_name(&old->path))
		return;
	/* one in a root: a write through the link shows in the snapshot */
	for (i = 0; i < r->rconf.nroots; i++)
		if (fp_path_under(old->path.data, old->path.len,
				  r->rconf.roots[i], strlen(r->rconf.roots[i])))
			return;
	s = fp_hashmap_slot(&r->paths, old->path.data, old->path.len);
	if (!s || !s->key)
		return;
	a->ops |= FP_OP_LINKED;
	touch(a, w);
	b->link_src = s->key;
	b->link_src_len = s->len;
}

/*
 * A write, truncate, chmod or chown through a name the run linked to
 * another file is one to that file; an unlink or rename of the name, or
 * a new file made there, ends the link.
 */
static void through_link(struct fp_recon *r, const struct fp_event *ev,
			 enum fp_file_op op, struct path_state *a,
			 const struct who *w)
{
	struct path_state *src;

	if (!a->link_src)
		return;
	if (op == FP_FOP_UNLINK || op == FP_FOP_RENAME ||
	    (op == FP_FOP_OPEN && ev->file.created)) {
		a->link_src = NULL;
		return;
	}
	if (op != FP_FOP_OPEN && op != FP_FOP_TRUNCATE && op != FP_FOP_CHMOD &&
	    op != FP_FOP_CHOWN)
		return;
	src = fp_hashmap_get(&r->paths, a->link_src, a->link_src_len);
	if (!src)
		return;
	src->ops |= op == FP_FOP_CHMOD || op == FP_FOP_CHOWN ? FP_OP_ATTRS :
							       FP_OP_WRITTEN;
	if (op == FP_FOP_TRUNCATE || (ev->file.flags & O_TRUNC))
		src->wrote = true;
	touch(src, w);
	src->seq = r->fed;
}

static int feed_file(struct fp_recon *r, const struct fp_event *ev)
{
	struct who w = { ev->pid, exec_of(r, ev->pid), 0 };
	struct path_state *a, *b = NULL;
	enum fp_file_op op = fp_file_op(ev);
	int ret;

	if (op == FP_FOP_OPEN && (ret = feed_read(r, ev)))
		return ret;
	if (op == FP_FOP_OPEN)
		note_script_open(r, ev);
	if (ev->file.ret < 0 || !ev->file.npaths || changes_nothing(ev, op))
		return 0;
	/* a record from a damaged or crafted log may lack its second path */
	if ((op == FP_FOP_RENAME || op == FP_FOP_LINK) && ev->file.npaths < 2)
		return 0;
	/* a pipe or socket reached through /dev/stdout: not a file */
	if (op == FP_FOP_OPEN && ev->file.path[0].anonymous)
		return 0;
	ret = event_group(r, ev, &w.group);
	if (ret)
		return ret;
	ret = feed_unresolved(r, ev, &w);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = path_get(r, &ev->file.path[0].path, &a);
	if (ret)
		return ret;
	if (op == FP_FOP_OPEN) {
		a->ops |= FP_OP_WRITTEN;
		if (ev->file.flags & O_TRUNC)
			a->wrote = true;
		if (ev->file.created) {
			a->ops |= FP_OP_CREATED;
			born(a, &w);
		}
		a->exists = 1;
		touch(a, &w);
	} else if (op == FP_FOP_MKDIR || op == FP_FOP_MKNOD ||
		   op == FP_FOP_SYMLINK) {
		a->ops |= FP_OP_CREATED | FP_OP_WRITTEN;
		born(a, &w);
	} else if (op == FP_FOP_LINK) {
		/* a new name for an old file */
		ret = path_get(r, &ev->file.path[1].path, &b);
		if (ret)
			return ret;
		b->ops |= FP_OP_CREATED;
		born(b, &w);
		link_made(r, ev, a, b, &w);
	} else if (op == FP_FOP_CHMOD || op == FP_FOP_CHOWN) {
		a->ops |= FP_OP_ATTRS;
		touch(a, &w);
	} else if (op == FP_FOP_TRUNCATE) {
		a->ops |= FP_OP_WRITTEN;
		a->wrote = true;
		touch(a, &w);
	} else if (op == FP_FOP_UNLINK) {
		a->ops |= FP_OP_REMOVED;
		a->exists = 0;
		a->removed = w;
		touch(a, &w);
	} else if (op == FP_FOP_RENAME) {
		struct path_state old;

		ret = path_get(r, &ev->file.path[1].path, &b);
		if (ret)
			return ret;
		old = *a;
		a->ops |= FP_OP_RENAMED_FROM;
		b->ops |= FP_OP_RENAMED_TO;
		if (ev->file.flags & 2 /* RENAME_EXCHANGE */) {
			a->born = b->born;
			a->created = b->created;
			a->ops |= FP_OP_RENAMED_TO;
			b->ops |= FP_OP_RENAMED_FROM;
		} else {
			a->exists = 0;
			a->removed = w;
		}
		b->born = old.born;
		b->created = old.created;
		b->exists = 1;
		b->wrote = true;
		touch(a, &w);
		touch(b, &w);
		ret = moved(r, a, ev, 1);
		if (!ret && (ev->file.flags & 2 /* RENAME_EXCHANGE */))
			ret = moved(r, b, ev, 0);
		if (ret)
			return ret;
	}
	note_made_exec(a, ev);
	a->seq = r->fed;
	if (b)
		b->seq = r->fed;
	through_link(r, ev, op, a, &w);
	return fp_procop_setid_mode(ev) ? note_setid(r, ev, &w) : 0;
}

static int feed_bind(struct fp_recon *r, const struct fp_event *ev)
{
	struct who w = { ev->pid, exec_of(r, ev->pid), 0 };
	struct fp_net_finding *n;
	int ret;

	/*
	 * A netlink socket talks to the kernel and opens nothing anyone can
	 * reach (glibc's getaddrinfo binds one on every lookup): not a bound
	 * port, as a netlink connect is not a connection. The event stays.
	 */
	if (ev->bind.ret < 0 || ev->bind.family == AF_NETLINK)
		return 0;
	ret = event_group(r, ev, &w.group);
	if (ret)
		return ret;
	/* kept here, and copied into the findings */
	if (charge(r, 2 * (VEC_COST(sizeof(*n)) +
			   ALLOC(ev->bind.unix_path.len + 1))))
		return -EDQUOT;
	n = fp_vec_push(&r->binds, sizeof(*n));
	if (!n || actor_fill(r, &n->by, &w))
		return -ENOMEM;
	n->pid = ev->pid;
	n->step = w.group;
	n->family = ev->bind.family;
	memcpy(n->address, ev->bind.address, sizeof(n->address));
	if (ev->bind.family == AF_INET || ev->bind.family == AF_INET6) {
		/* other families keep no port: skc_num means something else */
		n->port = ev->bind.bound_port ? ev->bind.bound_port :
						ev->bind.port;
		n->protocol = ev->bind.protocol;
		n->any_port = ev->bind.port == 0;
	}
	if (ev->bind.family == AF_UNIX && ev->bind.unix_path.len &&
	    ev->bind.unix_path.data[0] != '\0') {
		struct path_state *ps;

		if (fp_bytes_dup(&n->unix_path, ev->bind.unix_path.data,
				 ev->bind.unix_path.len))
			return -ENOMEM;
		/* the socket file it created; only absolute names are known */
		if (n->unix_path.data[0] == '/') {
			int ret = path_get(r, &n->unix_path, &ps);

			if (ret)
				return ret;
			ps->ops |= FP_OP_CREATED;
			born(ps, &w);
			ps->seq = r->fed;
		}
	}
	return 0;
}

/* an exec's record, its cmdline, and its finding in executed */
static uint64_t exec_cost(const struct fp_event *ev)
{
	return VEC_COST(sizeof(struct exec_rec)) +
	       ALLOC(sizeof(struct fp_cmdline)) + ALLOC(ev->exec.exe.len + 1) +
	       ALLOC(fp_argv_keep_len(ev->exec.argv.data, ev->exec.argv.len) +
		     1) +
	       VEC_COST(sizeof(struct fp_proc_finding));
}

static struct exec_rec *exec_at(const struct fp_recon *r, long i)
{
	return &((struct exec_rec *)r->execs.v)[i];
}

/* the process table's row of p, at its fork or exec (cmd) */
static int proc_row(struct fp_recon *r, struct proc_state *p,
		    const struct fp_event *ev, struct fp_cmdline *cmd)
{
	struct proc_state *pp = proc_of(r, ev->ppid);
	uint32_t parent = pp ? pp->row : 0;

	if (charge(r, FP_PROCTAB_ROW_COST))
		return -EDQUOT;
	if (ev->type == FP_EV_FORK)
		return fp_proctab_fork(&r->ptab, &p->row, parent, ev, p->group);
	return fp_proctab_exec(&r->ptab, &p->row, parent, ev, cmd, p->group);
}

static int feed_exec(struct fp_recon *r, const struct fp_event *ev)
{
	struct exec_rec *e;
	struct proc_state *p;
	uint32_t g, *eg;
	unsigned int rose;
	long base;
	int ret = event_group(r, ev, &g);

	if (!ret)
		ret = name_group(r, ev, g);
	if (!ret)
		ret = proc_new(r, ev->pid, &p);
	if (ret)
		return ret;
	/* struct who holds an exec index in 32 bits */
	if (r->execs.n >= INT32_MAX ||
	    charge(r, exec_cost(ev) +
			      (r->step_parent ? VEC_COST(sizeof(*eg)) : 0)))
		return -EDQUOT;
	/* a pid reused by a process whose fork was not seen: no baseline */
	base = p->exited ? -1 : p->exec_idx;
	rose = fp_privs_rose(base < 0 ? NULL : &exec_at(r, base)->creds,
			     &ev->exec.creds);
	if (rose && charge(r, VEC_COST(sizeof(struct fp_proc_finding))))
		return -EDQUOT;
	if (r->step_parent) {
		eg = fp_vec_push(&r->exec_groups, sizeof(*eg));
		if (!eg)
			return -ENOMEM;
		*eg = g;
	}
	e = fp_vec_push(&r->execs, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->pid = ev->pid;
	e->ppid = ev->ppid;
	e->ts_ns = ev->ts_ns;
	e->creds = ev->exec.creds;
	e->auth = fp_auth_program(ev);
	e->base = base;
	e->rose = rose;
	/* only the start of argv: the receipt shows no more */
	e->cmd = fp_cmdline_new(ev->exec.exe.data, ev->exec.exe.len,
				ev->exec.argv.data, ev->exec.argv.len,
				ev->exec.argv_dropped > 0);
	if (!e->cmd) {
		r->execs.n--;
		if (r->step_parent)
			r->exec_groups.n--;
		return -ENOMEM;
	}
	if (p->exited) {
		/* pid reused */
		p->exited = false;
	}
	p->ppid = ev->ppid;
	p->exec_idx = r->execs.n - 1;
	p->started = true;
	p->own = false;
	note_ran(r, ev);
	return proc_row(r, p, ev, e->cmd);
}

static int feed_fork(struct fp_recon *r, const struct fp_event *ev)
{
	long parent_exec = exec_of(r, ev->ppid);
	struct proc_state *p;
	int ret = proc_new(r, ev->pid, &p);

	if (ret)
		return ret;
	p->ppid = ev->ppid;
	p->exec_idx = parent_exec;
	p->started = true;
	p->exited = false;
	/* a child of footprint's own that predates the trace is its own */
	p->own = false;
	if (parent_exec < 0) {
		struct proc_state *pp = proc_of(r, ev->ppid);

		p->own = pp && pp->own;
	}
	return fork_group(r, ev, p) ?: proc_row(r, p, ev, NULL);
}

static int feed_exit(struct fp_recon *r, const struct fp_event *ev)
{
	struct proc_state *p = proc_of(r, ev->pid);
	struct fp_proc_finding *f;
	struct who w;

	if (!p || !p->started || p->exited)
		return 0;
	fp_proctab_exit(&r->ptab, p->row, ev);
	/* kept here, and copied into the findings */
	if (charge(r, 2 * VEC_COST(sizeof(*f))))
		return -EDQUOT;
	p->exited = true;
	f = fp_vec_push(&r->short_lived, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->exit_code = ev->exit.code;
	f->signal = ev->exit.signal;
	f->ts_ns = ev->ts_ns;
	w = who_now(r, ev->pid);
	return actor_fill(r, &f->p, &w);
}

static int charge_cb(void *r, uint64_t cost)
{
	return charge(r, cost);
}

/* connections, accepts and DNS: netflow.c keeps them */
static int feed_net(struct fp_recon *r, const struct fp_event *ev)
{
	struct who w = who_now(r, ev->pid);
	struct fp_actor a;
	int ret;

	if (!r->net && !(r->net = fp_netrec_new()))
		return -ENOMEM;
	/* a count comes from userspace at the end, not from the process */
	if (ev->type != FP_EV_NET_COUNT) {
		ret = event_group(r, ev, &w.group);
		if (ret)
			return ret;
	}
	ret = actor_fill(r, &a, &w);
	if (!ret)
		ret = fp_netrec_feed(r->net, ev, &a, charge_cb, r);
	fp_actor_clear(&a);
	return ret;
}

/* a bind: where the run could answer DNS from (netflow.c, dns_trust.h) */
static int feed_net_bind(struct fp_recon *r, const struct fp_event *ev)
{
	if (!r->net && !(r->net = fp_netrec_new()))
		return -ENOMEM;
	return fp_netrec_bound(r->net, ev, charge_cb, r);
}

/* ---- sensitive reads and signals outside the run (sensitive.h) ---- */

void fp_recon_set_reads(struct fp_recon *r, const struct fp_reads_conf *c)
{
	r->rconf = *c;
}

static bool pid_in_run(const void *ctx, pid_t pid)
{
	const struct fp_recon *r = ctx;
	const struct proc_state *p = proc_of(r, pid);

	return p && !p->exited;
}

/*
 * Is what open ev reads the run's own: the file created, truncated or
 * replaced by the run before it, or by this open? A file the run made and
 * then read (a linker reopening its output) is a product, not a material
 * (docs/attest.md).
 */
static bool content_made(const struct fp_recon *r, const struct fp_event *ev)
{
	const struct fp_bytes *p = &ev->file.path[0].path;
	const struct path_state *ps;

	if (ev->file.created || (ev->file.flags & O_TRUNC))
		return true;
	ps = fp_hashmap_get(&r->paths, p->data, p->len);
	return ps && (ps->born || ps->wrote);
}

/*
 * The key of a kept read: its path, and for a secret (or a path a rule
 * scoped "by EXE" names) a NUL and the reader's executable, so that each
 * program is a finding of its own; a process that never exec'd in the
 * trace by its pid. Returns the key's length; the caller frees *key.
 */
static size_t read_key(const struct fp_recon *r, const struct fp_event *ev,
		       int32_t exec, char **key)
{
	const struct fp_bytes *p = &ev->file.path[0].path;
	const struct fp_bytes *exe =
		exec >= 0 ? &exec_at(r, exec)->cmd->exe : NULL;
	char pid[24];
	size_t n;

	snprintf(pid, sizeof(pid), "\001%u", ev->pid);
	n = exe ? exe->len : strlen(pid);
	*key = malloc(p->len + 1 + n + 1);
	if (!*key)
		return 0;
	memcpy(*key, p->data, p->len);
	(*key)[p->len] = '\0';
	if (n)
		memcpy(*key + p->len + 1, exe ? exe->data : pid, n);
	return p->len + 1 + n;
}

/* an authentication program reading its own configuration: no secret */
static bool auth_own_read(const struct fp_recon *r, int32_t exec,
			  const struct fp_event *ev)
{
	const struct fp_bytes *p = &ev->file.path[0].path;

	return exec >= 0 &&
	       fp_auth_own_config(exec_at(r, exec)->auth, p->data, p->len);
}

static int feed_read_key(struct fp_recon *r, const struct fp_event *ev,
			 struct who *wp, const char *secret, const char *key,
			 size_t klen)
{
	struct fp_read_state *st;
	struct fp_hslot *slot;
	struct who w = *wp;
	int ret;

	st = fp_hashmap_get(&r->reads, key, klen);
	if (!st) {
		if (!secret && ev->file.ret >= 0 &&
		    r->reads_listed >= FP_READS_MAX) {
			r->reads_omitted++;
			return 0;
		}
		if (charge(r, SLOT_COST + ALLOC(klen + 1) + ALLOC(sizeof(*st)) +
				      VEC_COST(sizeof(struct fp_read_finding)) +
				      ALLOC(klen + 1)))
			return -EDQUOT;
		slot = fp_hashmap_slot(&r->reads, key, klen);
		if (!slot ||
		    (!slot->val && !(slot->val = calloc(1, sizeof(*st)))))
			return -ENOMEM;
		st = slot->val;
		r->reads_listed += !secret;
	}
	if (ev->file.ret >= 0 && !st->orig_read && !content_made(r, ev))
		st->orig_read = true;
	if (!fp_read_state_note(st, ev, secret))
		return 0;
	ret = event_group(r, ev, &w.group);
	st->pid = w.pid;
	st->exec = w.exec;
	st->group = w.group;
	return ret;
}

/* a secret, or a read a rule names, is always kept; the rest up to a
 * bound, and counted past it */
static int feed_read(struct fp_recon *r, const struct fp_event *ev)
{
	const struct fp_bytes *p = &ev->file.path[0].path;
	struct who w = { ev->pid, exec_of(r, ev->pid), 0 };
	const char *secret;
	char *key;
	size_t klen;
	int ret;

	if (!fp_read_interest(&r->rconf, ev, pid_in_run, r, &secret))
		return 0;
	if (secret && auth_own_read(r, w.exec, ev)) {
		secret = NULL;
		if (!fp_read_kept_plain(&r->rconf, ev))
			return 0;
	}
	if (!fp_read_per_reader(&r->rconf, ev, secret))
		return feed_read_key(r, ev, &w, secret, p->data, p->len);
	klen = read_key(r, ev, w.exec, &key);
	if (!key)
		return -ENOMEM;
	ret = feed_read_key(r, ev, &w, secret, key, klen);
	free(key);
	return ret;
}

static int feed_signal(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_signal_state *st;
	struct fp_signal_key k;
	struct fp_hslot *slot;
	uint32_t g;
	int ret;

	fp_signal_key_of(ev, &k);
	st = fp_hashmap_get(&r->signals, &k, sizeof(k));
	if (!st) {
		if (charge(r,
			   SLOT_COST + ALLOC(sizeof(k) + 1) +
				   ALLOC(sizeof(*st)) +
				   VEC_COST(sizeof(struct fp_signal_finding))))
			return -EDQUOT;
		slot = fp_hashmap_slot(&r->signals, &k, sizeof(k));
		if (!slot ||
		    (!slot->val && !(slot->val = calloc(1, sizeof(*st)))))
			return -ENOMEM;
		st = slot->val;
	}
	if (!fp_signal_state_note(st, ev))
		return 0;
	ret = event_group(r, ev, &g);
	st->exec = exec_of(r, ev->pid);
	st->group = g;
	return ret;
}

static int read_cmp(const void *x, const void *y)
{
	const struct fp_read_finding *a = x, *b = y;
	int c = fp_bytes_cmp(a->path.data, a->path.len, b->path.data,
			     b->path.len);

	/* one path read by several programs: then by reader */
	if (c)
		return c;
	if (a->by.pid != b->by.pid)
		return a->by.pid < b->by.pid ? -1 : 1;
	if (!a->by.exe.len || !b->by.exe.len)
		return !!a->by.exe.len - !!b->by.exe.len;
	return fp_bytes_cmp(a->by.exe.data, a->by.exe.len, b->by.exe.data,
			    b->by.exe.len);
}

static int sig_cmp(const void *x, const void *y)
{
	const struct fp_signal_finding *a = x, *b = y;

	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	if (a->by.pid != b->by.pid)
		return a->by.pid < b->by.pid ? -1 : 1;
	return (a->target_pid > b->target_pid) -
	       (a->target_pid < b->target_pid);
}

static int read_findings(const struct fp_recon *r,
			 const struct fp_recon_input *in,
			 struct fp_findings *out)
{
	struct fp_read_finding *x;
	size_t i;

	for (i = 0; i < r->reads.cap; i++) {
		const struct fp_hslot *s = &r->reads.slots[i];
		const struct fp_read_state *st = s->val;
		struct who w;
		size_t len;

		if (!s->key || !st)
			continue;
		/* the path, without the reader a secret's key names */
		len = strnlen(s->key, s->len);
		x = fp_vec_push(&out->reads, sizeof(*x));
		if (!x || fp_bytes_dup(&x->path, s->key, len))
			return -ENOMEM;
		x->secret = st->secret;
		x->err = st->err;
		x->opens = st->opens;
		x->orig_read = st->orig_read;
		x->before = fp_fs_find(in->fs_before, s->key, len);
		x->after = fp_fs_find(in->fs_after, s->key, len);
		w = (struct who){ st->pid, st->exec, st->group };
		if (actor_fill(r, &x->by, &w))
			return -ENOMEM;
	}
	out->reads_omitted = r->reads_omitted;
	if (out->reads.n)
		qsort(out->reads.v, out->reads.n, sizeof(*x), read_cmp);
	return 0;
}

static int signal_findings(const struct fp_recon *r,
			   const struct fp_recon_input *in,
			   struct fp_findings *out)
{
	struct fp_signal_finding *x;
	const struct fp_proc *tp;
	size_t i;

	for (i = 0; i < r->signals.cap; i++) {
		const struct fp_hslot *s = &r->signals.slots[i];
		const struct fp_signal_state *st = s->val;
		struct who w;

		if (!s->key || !st)
			continue;
		x = fp_vec_push(fp_sys_crossproc(st->f.sys) ? &out->ptraced :
							      &out->signalled,
				sizeof(*x));
		if (!x)
			return -ENOMEM;
		*x = st->f;
		memset(&x->target_exe, 0, sizeof(x->target_exe));
		memset(&x->by, 0, sizeof(x->by));
		tp = x->target_pid ?
			     fp_proc_find(in->proc_before, x->target_pid) :
			     NULL;
		if (fp_bytes_dup(&x->target_exe, tp ? tp->exe.data : "",
				 tp ? tp->exe.len : 0))
			return -ENOMEM;
		w = (struct who){ ((const struct fp_signal_key *)s->key)->pid,
				  st->exec, st->group };
		if (actor_fill(r, &x->by, &w))
			return -ENOMEM;
	}
	if (out->signalled.n)
		qsort(out->signalled.v, out->signalled.n, sizeof(*x), sig_cmp);
	if (out->ptraced.n)
		qsort(out->ptraced.v, out->ptraced.n, sizeof(*x), sig_cmp);
	return 0;
}

/*
 * A mount or namespace call. One made by a process footprint never saw
 * fork or exec is the launcher's own setting up of the box (the
 * command's first process before its exec), not the command's.
 */
static int feed_procop(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_procop_finding x = {
		.kind = fp_procop_event_kind(ev),
		.sys = ev->procop.sys,
		.err = ev->procop.ret < 0 ? (int)-ev->procop.ret : 0,
		.flags = ev->procop.flags,
		.path = ev->procop.target,
		.source = ev->procop.source,
		.ts_ns = ev->ts_ns,
		.pid = ev->pid,
		.exec = exec_of(r, ev->pid),
	};
	int ret;

	if (!proc_of(r, ev->pid))
		return 0;
	ret = event_group(r, ev, &x.group);
	if (ret)
		return ret;
	if (charge(r, ALLOC(sizeof(x)) + ALLOC(x.path.len + 1) +
			      ALLOC(x.source.len + 1)))
		return -EDQUOT;
	ret = fp_procop_note(r->procops, r->procops_omitted, &x);
	return ret < 0 ? ret : 0;
}

/*
 * An exec of a file on no mount (a memfd): its exe is the kernel's name
 * of it, "memfd:NAME", where every other exe is an absolute path.
 */
static int feed_exec_fileless(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_procop_finding x = {
		.kind = FP_PO_FILELESS,
		.path = ev->exec.exe,
		.ts_ns = ev->ts_ns,
		.pid = ev->pid,
		.exec = exec_of(r, ev->pid),
	};
	int ret;

	if (!ev->exec.exe.len || ev->exec.exe.data[0] == '/')
		return 0;
	ret = event_group(r, ev, &x.group);
	if (ret)
		return ret;
	if (charge(r, ALLOC(sizeof(x)) + ALLOC(x.path.len + 1) + ALLOC(1)))
		return -EDQUOT;
	ret = fp_procop_note(r->procops, r->procops_omitted, &x);
	return ret < 0 ? ret : 0;
}

static int feed_one(struct fp_recon *r, const struct fp_event *ev)
{
	int ret;

	switch (ev->type) {
	case FP_EV_EXEC:
		ret = feed_exec(r, ev);
		return ret ? ret : feed_exec_fileless(r, ev);
	case FP_EV_PROCOP:
		return feed_procop(r, ev);
	case FP_EV_FORK:
		return feed_fork(r, ev);
	case FP_EV_EXIT:
		return feed_exit(r, ev);
	case FP_EV_FILE:
		return feed_file(r, ev);
	case FP_EV_BIND:
		return feed_bind(r, ev) ?: feed_net_bind(r, ev);
	case FP_EV_TAMPER:
		return feed_tamper(r, ev);
	case FP_EV_MARK:
		return feed_mark(r, ev);
	case FP_EV_NET:
	case FP_EV_NET_COUNT:
	case FP_EV_DNS:
		return feed_net(r, ev);
	case FP_EV_SIGNAL:
		return feed_signal(r, ev);
	case FP_EV_URING:
		fp_uring_seen_feed(&r->uring, ev);
		return 0;
	case FP_EV_CONTROL:
		return feed_control(r, ev);
	}
	return 0;
}

int fp_recon_feed(struct fp_recon *r, const struct fp_event *ev)
{
	int ret;

	r->fed++;
	fp_proctab_seen(&r->ptab, ev->ts_ns);
	/* the runner's own files (its logs, the step summaries it keeps) are
	 * not a step's doing; a change it made in a root stays unexplained */
	if (r->step_parent && ev->type == FP_EV_FILE &&
	    (pid_t)ev->pid == r->step_parent)
		return 0;
	ret = feed_one(r, ev);
	if (ret != -EDQUOT)
		return ret;
	if (!r->unfolded++)
		snprintf(
			r->why, sizeof(r->why),
			"footprint's memory budget of %llu KiB ran out at event %llu; later events were not all kept (raise --memory-budget)",
			(unsigned long long)(r->budget >> 10),
			(unsigned long long)r->fed);
	return 0;
}

const char *fp_recon_uring_why(const struct fp_recon *r)
{
	return fp_uring_seen_why(&r->uring);
}

size_t fp_recon_steps_so_far(const struct fp_recon *r)
{
	const struct group_rec *g = r->groups.v;
	size_t i, n = 0;

	/* footprint's own clients (a mark, a stop) are not steps */
	for (i = 0; i < r->groups.n; i++)
		n += g[i].forked && !g[i].own;
	return n;
}

bool fp_recon_started_alive(const struct fp_recon *r, pid_t pid)
{
	const struct proc_state *p = proc_of(r, pid);

	return p && p->started && !p->exited;
}

bool fp_recon_touched(void *ctx, const char *path, size_t len)
{
	struct fp_recon *r = ctx;
	struct path_state *ps = fp_hashmap_get(&r->paths, path, len);

	return ps && ps->ops;
}

/* ---- comparison ---- */

static bool under_roots(const struct fp_recon_input *in, const char *p,
			size_t len)
{
	size_t i;

	for (i = 0; i < in->nroots; i++)
		if (fp_path_under(p, len, in->roots[i], strlen(in->roots[i])))
			return true;
	return false;
}

/* The state of path or of the nearest ancestor holding one of ops. */
static const struct path_state *explain(const struct fp_recon *r, const char *p,
					size_t len, unsigned int self_ops,
					unsigned int ancestor_ops)
{
	const struct path_state *ps = fp_hashmap_get(&r->paths, p, len), *near;
	struct fp_prefix pre;
	size_t k;

	if (ps && (ps->ops & self_ops))
		return ps;
	/*
	 * The nearest ancestor is the last match going down: one hash
	 * extended along the path, not one hash of each ancestor, which
	 * is quadratic in its depth (10,000 levels are 100 MB hashed).
	 */
	near = NULL;
	fp_prefix_init(&pre);
	for (k = 1; k < len; k++) {
		if (p[k] != '/')
			continue;
		ps = fp_hashmap_get_prefix(&r->paths, &pre, p, k);
		if (ps && (ps->ops & ancestor_ops))
			near = ps;
	}
	/* "/" itself, the ancestor of every absolute path */
	if (len > 1 && p[0] == '/') {
		ps = fp_hashmap_get(&r->paths, "/", 1);
		if (!near && ps && (ps->ops & ancestor_ops))
			near = ps;
	}
	return near;
}

static struct fp_file_finding *add_file(struct fp_findings *out,
					enum fp_file_list l, const char *p,
					size_t len)
{
	struct fp_file_finding *f = fp_vec_push(&out->files[l], sizeof(*f));

	if (!f || fp_bytes_dup(&f->path, p, len))
		return NULL;
	f->what = l;
	return f;
}

static unsigned int diff_entries(const struct fp_fentry *a,
				 const struct fp_fentry *b)
{
	unsigned int ch = 0;

	if (a->type != b->type)
		return FP_CH_TYPE;
	if (a->mode != b->mode)
		ch |= FP_CH_MODE;
	if (a->uid != b->uid || a->gid != b->gid)
		ch |= FP_CH_OWNER;
	if (a->type == 'l' && fp_bytes_cmp(a->target.data, a->target.len,
					   b->target.data, b->target.len))
		ch |= FP_CH_TARGET;
	if (a->type == 'f') {
		if (a->hashed && b->hashed) {
			if (memcmp(a->sha256, b->sha256, 32))
				ch |= FP_CH_CONTENT;
		} else if (a->size != b->size || a->mtime_ns != b->mtime_ns ||
			   b->unstable || a->unstable) {
			ch |= FP_CH_CONTENT;
		}
	}
	return ch;
}

/* Is an ancestor of path unreadable in snap? Then path's absence is not
 * a removal. */
static bool hidden_by_unreadable(const struct fp_fs_snapshot *snap,
				 const char *p, size_t len)
{
	const struct fp_fentry *e;

	while (len > 1) {
		while (len > 1 && p[len - 1] != '/')
			len--;
		if (len > 1)
			len--;
		e = fp_fs_find(snap, p, len);
		if (e)
			return e->err != 0;
	}
	return false;
}

/*
 * Is the event that explains a content change at e only an open for
 * writing? Then its process may have written nothing, and is named as
 * the one that opened it, not as the writer.
 */
static bool by_open_only(const struct fp_recon *r, const struct fp_fentry *e,
			 const struct path_state *ps, enum fp_file_list l,
			 unsigned int changes)
{
	unsigned int sure = FP_OP_CREATED | FP_OP_RENAMED_TO | FP_OP_REMOVED;

	if (l != FP_F_ADDED &&
	    !(l == FP_F_CHANGED &&
	      (changes & (FP_CH_CONTENT | FP_CH_TYPE | FP_CH_TARGET))))
		return false;
	return fp_hashmap_get(&r->paths, e->path.data, e->path.len) == ps &&
	       (ps->ops & FP_OP_WRITTEN) && !(ps->ops & sure) && !ps->wrote;
}

/*
 * A writer outside the run explains a change the run only opened for: in
 * `run` with no process left over, every process of the run had ended
 * before the after snapshot started, so content modified later (its
 * mtime says so; a filesystem's clock does not run ahead of the system's)
 * was not the run's doing. The sidecar's job may still run: nothing is
 * decided there.
 */
static bool written_after_run(const struct fp_recon_input *in,
			      const struct fp_fentry *a, unsigned int changes)
{
	if (!a || !in->fs_after || in->fs_after->started_ns <= 0 ||
	    in->nleftover || (in->state_dir && in->state_dir[0]))
		return false;
	if (!(changes & FP_CH_CONTENT) && changes)
		return false;
	return a->mtime_ns > in->fs_after->started_ns;
}

static int file_finding(const struct fp_recon *r,
			const struct fp_recon_input *in,
			struct fp_findings *out, enum fp_file_list l,
			const struct fp_fentry *b, const struct fp_fentry *a,
			unsigned int changes)
{
	const struct fp_fentry *e = a ? a : b;
	const struct path_state *ps;
	struct fp_file_finding *f, *u;
	unsigned int self, anc;

	switch (l) {
	case FP_F_ADDED:
		self = FP_OP_CREATED | FP_OP_WRITTEN | FP_OP_RENAMED_TO;
		anc = FP_OP_RENAMED_TO;
		break;
	case FP_F_REMOVED:
		self = FP_OP_REMOVED | FP_OP_RENAMED_FROM;
		anc = FP_OP_RENAMED_FROM | FP_OP_REMOVED;
		break;
	default:
		/* every kind of change needs an event that can make it */
		self = FP_OP_CREATED | FP_OP_RENAMED_TO;
		anc = FP_OP_RENAMED_TO;
		if (changes & (FP_CH_CONTENT | FP_CH_TYPE | FP_CH_TARGET))
			self |= FP_OP_WRITTEN | FP_OP_REMOVED;
		if (changes & (FP_CH_MODE | FP_CH_OWNER))
			self |= FP_OP_ATTRS;
		break;
	}
	f = add_file(out, l, e->path.data, e->path.len);
	if (!f)
		return -ENOMEM;
	f->before = b;
	f->after = a;
	f->changes = changes;
	ps = self ? explain(r, e->path.data, e->path.len, self, anc) : NULL;
	if (ps && l == FP_F_CHANGED && !(ps->ops & FP_OP_RENAMED_TO) &&
	    fp_hashmap_get(&r->paths, e->path.data, e->path.len) == ps) {
		/* a write does not explain a chmod, nor a chmod a write */
		unsigned int replaced = FP_OP_CREATED | FP_OP_RENAMED_TO;

		if ((changes & (FP_CH_CONTENT | FP_CH_TYPE | FP_CH_TARGET)) &&
		    !(ps->ops & (replaced | FP_OP_WRITTEN | FP_OP_REMOVED)))
			ps = NULL;
		else if ((changes & (FP_CH_MODE | FP_CH_OWNER)) &&
			 !(ps->ops & (replaced | FP_OP_ATTRS)))
			ps = NULL;
	}
	if (ps && by_open_only(r, e, ps, l, changes)) {
		f->by_open = true;
		if (written_after_run(in, a, changes))
			ps = NULL;
		else if (held_outside(in, e, &f->outside_writer) < 0)
			return -ENOMEM;
		else if (f->outside_writer.pid)
			ps = NULL;
	}
	f->explained = ps != NULL;
	if (!ps)
		f->by_open = false;
	if (ps && actor_fill(r, &f->by, &ps->last))
		return -ENOMEM;
	if (ps && fp_hashmap_get(&r->paths, e->path.data, e->path.len) == ps &&
	    ran_fill(r, f, ps, l == FP_F_ADDED))
		return -ENOMEM;
	if (f->explained)
		return 0;
	u = add_file(out, FP_F_UNEXPLAINED, e->path.data, e->path.len);
	if (!u)
		return -ENOMEM;
	u->what = l;
	u->before = b;
	u->after = a;
	u->changes = changes;
	return fp_actor_copy(&u->outside_writer, &f->outside_writer);
}

static int compare_fs(const struct fp_recon *r, const struct fp_recon_input *in,
		      struct fp_findings *out)
{
	const struct fp_fs_snapshot *B = in->fs_before, *A = in->fs_after;
	size_t i = 0, j = 0;
	int ret = 0;

	while (!ret && (i < B->n || j < A->n)) {
		const struct fp_fentry *b = i < B->n ? &B->e[i] : NULL;
		const struct fp_fentry *a = j < A->n ? &A->e[j] : NULL;
		int c = !b ? 1 :
			!a ? -1 :
			     fp_bytes_cmp(b->path.data, b->path.len,
					  a->path.data, a->path.len);

		if (c < 0) {
			i++;
			if (!hidden_by_unreadable(A, b->path.data, b->path.len))
				ret = file_finding(r, in, out, FP_F_REMOVED, b,
						   NULL, 0);
			continue;
		}
		if (c > 0) {
			j++;
			if (!hidden_by_unreadable(B, a->path.data, a->path.len))
				ret = file_finding(r, in, out, FP_F_ADDED, NULL,
						   a, 0);
			continue;
		}
		i++;
		j++;
		if (a->err || b->err) {
			struct fp_file_finding *f =
				add_file(out, FP_F_UNREADABLE, a->path.data,
					 a->path.len);

			if (!f)
				return -ENOMEM;
			f->before = b;
			f->after = a;
			f->err = a->err ? a->err : b->err;
			/* a file can still be compared by its stat */
			if (a->type != 'f' && a->type != 'd')
				continue;
		}
		{
			unsigned int ch = diff_entries(b, a);

			if (ch)
				ret = file_finding(r, in, out, FP_F_CHANGED, b,
						   a, ch);
		}
	}
	return ret;
}

#define MOVES(r) ((const struct move *)(r)->moves.v)

/* The first rename after seq of a directory above path (len bytes): the
 * one that took what was in it along. NULL if none; *at: its length. */
static const struct move *next_move(const struct fp_recon *r, const char *p,
				    size_t len, uint64_t seq, size_t *at)
{
	const struct move *best = NULL, *m;
	const struct path_state *ps;
	size_t k;
	uint32_t i;

	struct fp_prefix pre;

	fp_prefix_init(&pre);
	for (k = 1; k < len; k++) {
		if (p[k] != '/')
			continue;
		/* each prefix hashed from the last: see explain() */
		ps = fp_hashmap_get_prefix(&r->paths, &pre, p, k);
		for (i = ps ? ps->moves : 0; i; i = m->prev) {
			m = &MOVES(r)[i - 1];
			if (m->seq <= seq)
				break;
			if (!best || m->seq < best->seq) {
				best = m;
				*at = k;
			}
		}
	}
	return best;
}

/*
 * Where the file that was at path after event seq ended, following the
 * renames of the directories above it: a new malloc'd path in *out (NULL
 * when it did not move), and the event of its last move in *seq. 0 or
 * -ENOMEM.
 */
static int where_it_ended(const struct fp_recon *r, const char *p, size_t len,
			  uint64_t *seq, struct fp_bytes *out)
{
	const struct move *m;
	size_t at;
	char *n;

	out->data = NULL;
	out->len = 0;
	while ((m = next_move(r, out->data ?: p, out->data ? out->len : len,
			      *seq, &at))) {
		const char *cur = out->data ?: p;
		size_t clen = out->data ? out->len : len;

		n = malloc(m->to_len + clen - at + 1);
		if (!n) {
			free(out->data);
			out->data = NULL;
			return -ENOMEM;
		}
		memcpy(n, m->to, m->to_len);
		memcpy(n + m->to_len, cur + at, clen - at);
		n[m->to_len + clen - at] = '\0';
		free(out->data);
		out->data = n;
		out->len = m->to_len + clen - at;
		*seq = m->seq;
	}
	return 0;
}

/* the last rename away from ps, if that was the last thing done to it */
static const struct move *renamed_last(const struct fp_recon *r,
				       const struct path_state *ps)
{
	const struct move *m = ps->moves ? &MOVES(r)[ps->moves - 1] : NULL;

	return m && m->seq == ps->seq && ps->exists == 0 ? m : NULL;
}

enum { KEEP, DROP };

/* created where it ended, then removed there: transient there */
static int transient_at(const struct fp_recon *r, struct fp_findings *out,
			const struct fp_bytes *to, const struct path_state *ps,
			const struct path_state *then)
{
	struct fp_file_finding *f =
		add_file(out, FP_F_TRANSIENT, to->data, to->len);

	if (!f || actor_fill(r, &f->created_by, &ps->created) ||
	    actor_fill(r, &f->removed_by, &then->removed) ||
	    actor_fill(r, &f->by, &then->last) ||
	    ran_fill(r, f, ps->ran ? ps : then, false))
		return -ENOMEM;
	f->made_exec = ps->made_exec || then->made_exec;
	f->explained = true;
	return DROP;
}

/*
 * What became of the file at ps (key) once it was moved to `to`, after
 * event seq: KEEP its finding at its old name, DROP it (it is reported
 * where it ended), or -ENOMEM.
 */
static int ended_at(const struct fp_recon *r, const struct fp_recon_input *in,
		    const struct path_state *ps, const struct fp_bytes *to,
		    uint64_t seq, bool own, bool carried,
		    struct fp_findings *out)
{
	const struct path_state *then =
		fp_hashmap_get(&r->paths, to->data, to->len);
	struct fp_file_finding *f;

	if (then && then->seq > seq) {
		/* its new name's own events tell the rest */
		if (own && !carried && then->born)
			return DROP;
		if (ps->born && !then->born && then->exists == 0 &&
		    (then->ops & FP_OP_REMOVED) &&
		    under_roots(in, to->data, to->len))
			return transient_at(r, out, to, ps, then);
		return KEEP;
	}
	if (under_roots(in, to->data, to->len))
		return DROP;
	if (own || then)
		return KEEP;
	f = add_file(out, FP_F_OUTSIDE, to->data, to->len);
	if (!f || actor_fill(r, &f->by, &ps->last))
		return -ENOMEM;
	f->changes = ps->ops | FP_OP_RENAMED_TO;
	f->explained = true;
	return DROP;
}

/*
 * A file made or changed outside the roots that a rename (of itself, or
 * of a directory above it) took elsewhere is reported once, where it
 * ended: inside a root the snapshots show it there; removed there, it is
 * transient there; outside, it is an outside_roots finding there. What
 * is done at its new name later is its new name's own, and then it stays
 * where it was. A file that was there before the run and was renamed
 * away is a change where it was, and stays.
 */
static int relocate(const struct fp_recon *r, const struct fp_recon_input *in,
		    const char *key, size_t klen, const struct path_state *ps,
		    struct fp_findings *out)
{
	const struct move *own = ps->born ? renamed_last(r, ps) : NULL;
	struct fp_bytes to, start = { (char *)key, klen };
	uint64_t seq = ps->seq;
	bool carried;
	int ret;

	if (own) {
		start = (struct fp_bytes){ (char *)own->to, own->to_len };
		seq = own->seq;
	} else if (ps->exists == 0) {
		return KEEP;
	}
	if (where_it_ended(r, start.data, start.len, &seq, &to))
		return -ENOMEM;
	carried = to.data != NULL;
	if (!carried && !own)
		return KEEP;
	if (!carried)
		to = start;
	ret = ended_at(r, in, ps, &to, seq, own, carried, out);
	if (carried)
		free(to.data);
	return ret;
}

static int path_findings(const struct fp_recon *r,
			 const struct fp_recon_input *in,
			 struct fp_findings *out)
{
	size_t i;
	int ret;

	for (i = 0; i < r->paths.cap; i++) {
		const struct fp_hslot *s = &r->paths.slots[i];
		const struct path_state *ps = s->val;
		struct fp_file_finding *f;

		if (!s->key || !ps->ops)
			continue;
		if (s->len >= 2 && s->key[0] == '\0') {
			f = add_file(out,
				     s->key[1] == 'c' ? FP_F_CUT : FP_F_MAGIC,
				     s->key + 2, s->len - 2);
			if (!f || actor_fill(r, &f->by, &ps->last))
				return -ENOMEM;
			f->changes = ps->ops;
			continue;
		}
		if (ps->born && ps->exists == 0 && (ps->ops & FP_OP_REMOVED)) {
			f = add_file(out, FP_F_TRANSIENT, s->key, s->len);
			if (!f || actor_fill(r, &f->created_by, &ps->created) ||
			    actor_fill(r, &f->removed_by, &ps->removed) ||
			    actor_fill(r, &f->by, &ps->last) ||
			    ran_fill(r, f, ps, false))
				return -ENOMEM;
			f->explained = true;
			continue;
		}
		if (under_roots(in, s->key, s->len))
			continue;
		ret = relocate(r, in, s->key, s->len, ps, out);
		if (ret < 0)
			return ret;
		if (ret == DROP)
			continue;
		f = add_file(out, FP_F_OUTSIDE, s->key, s->len);
		if (!f || actor_fill(r, &f->by, &ps->last) ||
		    ran_fill(r, f, ps, true))
			return -ENOMEM;
		f->changes = ps->ops;
		f->explained = true;
		f->by_open = ps->ops == FP_OP_WRITTEN && !ps->wrote;
	}
	return 0;
}

static int proc_from_snapshot(struct fp_proc_finding *f,
			      const struct fp_proc *p)
{
	f->p.pid = p->pid;
	f->p.ppid = p->ppid;
	return fp_actor_own(&f->p, p->exe.data, p->exe.len, p->argv.data,
			    p->argv.len);
}

static bool is_leftover(const struct fp_recon_input *in, pid_t pid)
{
	size_t i;

	for (i = 0; i < in->nleftover; i++)
		if (in->leftover[i] == pid)
			return true;
	return false;
}

static bool in_run_cgroup(const struct fp_recon_input *in,
			  const struct fp_proc *p)
{
	size_t n = in->run_cgroup ? strlen(in->run_cgroup) : 0;

	return n && p->cgroup.data &&
	       fp_path_under(p->cgroup.data, p->cgroup.len, in->run_cgroup, n);
}

/* an exec that raised privileges, as its executed entry x shows it */
static int push_privileged(const struct fp_recon *r, struct fp_findings *out,
			   const struct fp_proc_finding *x,
			   const struct exec_rec *e)
{
	struct fp_proc_finding *f = fp_vec_push(&out->privileged, sizeof(*f));

	if (!f)
		return -ENOMEM;
	*f = *x;
	fp_actor_share(&f->p, e->cmd);
	if (e->base >= 0)
		f->base = exec_at(r, e->base)->creds;
	f->rose = e->rose;
	return 0;
}

static int compare_procs(const struct fp_recon *r,
			 const struct fp_recon_input *in,
			 struct fp_findings *out)
{
	const struct fp_proc_table *B = in->proc_before, *A = in->proc_after;
	struct fp_proc_finding *f;
	struct who w;
	size_t i;

	for (i = 0; i < r->execs.n; i++) {
		const struct exec_rec *e = &((struct exec_rec *)r->execs.v)[i];

		f = fp_vec_push(&out->procs[FP_P_EXECUTED], sizeof(*f));
		if (!f)
			return -ENOMEM;
		fp_actor_share(&f->p, e->cmd);
		f->p.pid = e->pid;
		f->p.ppid = e->ppid;
		f->ts_ns = e->ts_ns;
		f->creds = e->creds;
		if (i < r->exec_groups.n)
			f->p.step = ((const uint32_t *)r->exec_groups.v)[i];
		if (e->rose && push_privileged(r, out, f, e))
			return -ENOMEM;
	}
	for (i = 0; i < r->short_lived.n; i++) {
		const struct fp_proc_finding *s =
			&((struct fp_proc_finding *)r->short_lived.v)[i];

		/* a leftover killed after the command exited is a leftover */
		if (is_leftover(in, s->p.pid))
			continue;

		f = fp_vec_push(&out->procs[FP_P_SHORT_LIVED], sizeof(*f));
		if (!f)
			return -ENOMEM;
		*f = *s;
		if (fp_actor_copy(&f->p, &s->p))
			return -ENOMEM;
	}
	for (i = 0; i < in->nleftover; i++) {
		const struct fp_proc *p =
			A ? fp_proc_find(A, in->leftover[i]) : NULL;

		f = fp_vec_push(&out->procs[FP_P_LEFTOVER], sizeof(*f));
		if (!f)
			return -ENOMEM;
		/*
		 * Its last exec during the run names it best: the snapshot
		 * may predate an exec that raced it, or the process may be
		 * dying or gone. A process that never exec'd has only /proc.
		 */
		w = who_now(r, in->leftover[i]);
		if (w.exec >= 0 || !p || !p->exe.len) {
			if (actor_fill(r, &f->p, &w))
				return -ENOMEM;
			if (p)
				f->p.ppid = p->ppid;
		} else if (proc_from_snapshot(f, p)) {
			return -ENOMEM;
		}
		f->p.step = w.group;
	}
	for (i = 0; A && B && i < A->n; i++) {
		const struct fp_proc *p = &A->procs[i];
		const struct fp_proc *q = fp_proc_find(B, p->pid);

		if (p->kernel_thread || (q && fp_proc_same(p, q)) ||
		    in_run_cgroup(in, p) || is_leftover(in, p->pid) ||
		    (in->own_pid > 0 && p->pid == in->own_pid))
			continue;
		f = fp_vec_push(&out->procs[FP_P_NEW_OUTSIDE], sizeof(*f));
		if (!f || proc_from_snapshot(f, p))
			return -ENOMEM;
	}
	for (i = 0; A && B && i < B->n; i++) {
		const struct fp_proc *p = &B->procs[i];
		const struct fp_proc *q = fp_proc_find(A, p->pid);

		if (p->kernel_thread || (q && fp_proc_same(p, q)))
			continue;
		f = fp_vec_push(&out->procs[FP_P_DISAPPEARED], sizeof(*f));
		if (!f || proc_from_snapshot(f, p))
			return -ENOMEM;
	}
	return 0;
}

/* Whose is a socket: the run's (as far as can be told), or a process's
 * outside the run's cgroup that predates the run, or that began during it */
enum sock_owner { OWNER_RUN, OWNER_OUTSIDE_OLD, OWNER_OUTSIDE_NEW };

static enum sock_owner sock_owner(const struct fp_recon *r,
				  const struct fp_recon_input *in, pid_t pid)
{
	const struct fp_proc *a, *b;

	if (pid <= 0 || !in->proc_after || !in->proc_before ||
	    is_leftover(in, pid))
		return OWNER_RUN;
	a = fp_proc_find(in->proc_after, pid);
	/*
	 * An owner the process snapshot (taken just before the sockets')
	 * does not hold began after it: the run's if an event of the run
	 * named it, else another's (a concurrent run's listener).
	 */
	if (!a)
		return proc_of(r, pid) ? OWNER_RUN : OWNER_OUTSIDE_NEW;
	if (in_run_cgroup(in, a))
		return OWNER_RUN;
	b = fp_proc_find(in->proc_before, pid);
	if (b && fp_proc_same(a, b))
		return OWNER_OUTSIDE_OLD;
	return a->kernel_thread ? OWNER_RUN : OWNER_OUTSIDE_NEW;
}

/* the owner of a listener: as the run's events know it, else as the
 * process snapshot shows it (an outside process), else by pid alone */
static int sock_owner_actor(const struct fp_recon *r,
			    const struct fp_recon_input *in, pid_t pid,
			    enum sock_owner owner, struct fp_actor *a)
{
	const struct fp_proc *p = pid > 0 && in->proc_after ?
					  fp_proc_find(in->proc_after, pid) :
					  NULL;
	struct who w;

	memset(a, 0, sizeof(*a));
	if (pid <= 0)
		return 0;
	w = who_now(r, pid);
	if (owner == OWNER_RUN && w.exec >= 0)
		return actor_fill(r, a, &w);
	a->pid = pid;
	if (!p)
		return 0;
	a->ppid = p->ppid;
	return fp_actor_own(a, p->exe.data, p->exe.len, p->argv.data,
			    p->argv.len);
}

static int compare_net(const struct fp_recon *r,
		       const struct fp_recon_input *in, struct fp_findings *out)
{
	struct fp_net_finding *n;
	enum sock_owner owner;
	size_t i;

	for (i = 0; i < r->binds.n; i++) {
		const struct fp_net_finding *b =
			&((struct fp_net_finding *)r->binds.v)[i];

		n = fp_vec_push(&out->net[FP_N_BOUND], sizeof(*n));
		if (!n)
			return -ENOMEM;
		*n = *b;
		n->unix_path.data = NULL;
		memset(&n->by, 0, sizeof(n->by));
		if (fp_actor_copy(&n->by, &b->by))
			return -ENOMEM;
		if (b->unix_path.data &&
		    fp_bytes_dup(&n->unix_path, b->unix_path.data,
				 b->unix_path.len))
			return -ENOMEM;
	}
	for (i = 0; in->sock_after && in->sock_before && i < in->sock_after->n;
	     i++) {
		const struct fp_sock *s = &in->sock_after->socks[i];

		if (fp_sock_find(in->sock_before, s))
			continue;
		n = fp_vec_push(&out->net[FP_N_LISTENING], sizeof(*n));
		if (!n)
			return -ENOMEM;
		owner = sock_owner(r, in, s->pid);
		n->outside_run = owner == OWNER_OUTSIDE_OLD;
		n->new_outside = owner == OWNER_OUTSIDE_NEW;
		if (sock_owner_actor(r, in, s->pid, owner, &n->by))
			return -ENOMEM;
		n->pid = s->pid;
		n->step = n->outside_run || n->new_outside ?
				  0 :
				  who_now(r, s->pid).group;
		n->family = s->family;
		n->protocol = s->protocol;
		n->port = s->port;
		snprintf(n->address, sizeof(n->address), "%s", s->address);
	}
	return 0;
}

/* ---- tamper evidence ---- */

/* A change under the state directory, or one that moves it away. */
static bool hits_state_dir(const char *p, size_t len, unsigned int ops,
			   const char *dir, size_t n)
{
	if (fp_path_under(p, len, dir, n))
		return true;
	return (ops &
		(FP_OP_REMOVED | FP_OP_RENAMED_FROM | FP_OP_RENAMED_TO)) &&
	       fp_path_under(dir, n, p, len);
}

static int tamper_cmp(const void *x, const void *y)
{
	const struct fp_tamper_finding *a = x, *b = y;

	return fp_bytes_cmp(a->path.data, a->path.len, b->path.data,
			    b->path.len);
}

static int state_dir_findings(const struct fp_recon *r, const char *dir,
			      struct fp_findings *out)
{
	size_t i, first = out->tamper.n, n = strlen(dir);
	struct fp_tamper_finding *t;

	/* "/run/fp/" is "/run/fp" */
	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (i = 0; i < r->paths.cap; i++) {
		const struct fp_hslot *s = &r->paths.slots[i];
		const struct path_state *ps = s->val;

		/* a cut or magic name says nothing of where it was */
		if (!s->key || !ps->ops || (s->len && s->key[0] == '\0') ||
		    !hits_state_dir(s->key, s->len, ps->ops, dir, n))
			continue;
		t = fp_vec_push(&out->tamper, sizeof(*t));
		if (!t || fp_bytes_dup(&t->path, s->key, s->len) ||
		    actor_fill(r, &t->by, &ps->last))
			return -ENOMEM;
		t->what = FP_TAMPER_STATE_DIR;
		t->ops = ps->ops;
	}
	/* hash order is not an order */
	if (out->tamper.n > first)
		qsort(FP_TAMPER(out) + first, out->tamper.n - first, sizeof(*t),
		      tamper_cmp);
	return 0;
}

static int tamper_findings(const struct fp_recon *r,
			   const struct fp_recon_input *in,
			   struct fp_findings *out)
{
	struct fp_tamper_finding *t;
	size_t i;

	for (i = 0; i < r->tampers.n; i++) {
		const struct fp_tamper_finding *s =
			&((const struct fp_tamper_finding *)r->tampers.v)[i];

		t = fp_vec_push(&out->tamper, sizeof(*t));
		if (!t)
			return -ENOMEM;
		*t = *s;
		t->path.data = NULL;
		if (fp_actor_copy(&t->by, &s->by))
			return -ENOMEM;
	}
	if (!in->state_dir || !in->state_dir[0])
		return 0;
	return state_dir_findings(r, in->state_dir, out);
}

/* ---- steps ---- */

/* The child of the step parent that pid is or descends from, as a process
 * table shows it; 0 if none. */
static pid_t step_root(const struct fp_proc_table *t, pid_t parent, pid_t pid)
{
	const struct fp_proc *p;
	size_t depth;

	/* a crafted table may hold a cycle */
	for (depth = 0; t && depth <= t->n; depth++) {
		p = fp_proc_find(t, pid);
		if (!p || p->ppid == pid)
			return 0;
		if (p->ppid == parent)
			return pid;
		pid = p->ppid;
	}
	return 0;
}

static pid_t group_root(const struct fp_recon *r,
			const struct fp_recon_input *in,
			const struct group_rec *g)
{
	pid_t root;

	if (g->step)
		return g->root;
	root = step_root(in->proc_before, r->step_parent, g->root);
	return root ? root : step_root(in->proc_after, r->step_parent, g->root);
}

/* GITHUB_ACTION of its first process, else the mark in effect when it
 * started, else "step N" */
static int name_step(const struct fp_recon *r, const struct group_rec *g,
		     struct fp_step *st)
{
	const struct fp_bytes *m;
	char buf[32];

	if (g && g->name.data) {
		st->named = FP_STEP_NAMED_ACTION;
		return fp_bytes_dup(&st->name, g->name.data, g->name.len);
	}
	m = g && g->mark && g->mark <= r->marks.n ?
		    &((const struct fp_bytes *)r->marks.v)[g->mark - 1] :
		    NULL;
	if (m && m->len) {
		st->named = FP_STEP_NAMED_MARK;
		return fp_bytes_dup(&st->name, m->data, m->len);
	}
	st->named = FP_STEP_NAMED_ORDER;
	snprintf(buf, sizeof(buf), "step %u", st->index);
	return fp_bytes_dup(&st->name, buf, strlen(buf));
}

/* Each step is named by its first group, or by the group of its first
 * process if that one has a GITHUB_ACTION. */
static int name_steps(const struct fp_recon *r, const uint32_t *g2s,
		      struct fp_findings *out)
{
	const struct group_rec **pick = calloc(out->steps.n + 1, sizeof(*pick));
	size_t i;
	int ret = 0;

	if (!pick)
		return -ENOMEM;
	for (i = 0; i < r->groups.n; i++) {
		const struct group_rec *g = &GROUPS(r)[i];
		const struct group_rec **p = &pick[g2s[i]];

		if (!g2s[i])
			continue;
		if (!*p || (!(*p)->name.data && g->name.data &&
			    g->root == FP_STEPS(out)[g2s[i] - 1].first_pid))
			*p = g;
	}
	for (i = 0; i < out->steps.n && !ret; i++)
		ret = name_step(r, pick[i + 1], &FP_STEPS(out)[i]);
	free(pick);
	return ret;
}

/* g2s[i]: the step of group i+1 (0: none). Steps go to out->steps in the
 * order their first group appeared. */
static int resolve_steps(const struct fp_recon *r,
			 const struct fp_recon_input *in, uint32_t *g2s,
			 struct fp_findings *out)
{
	struct fp_hashmap roots = { 0 };
	struct fp_step *st;
	size_t i;
	int ret = 0;

	for (i = 0; i < r->groups.n && !ret; i++) {
		const struct group_rec *g = &GROUPS(r)[i];
		pid_t root = group_root(r, in, g);
		struct fp_hslot *s;

		g2s[i] = 0;
		/* `sidecar mark` names steps; it is not one */
		if (!root || g->own)
			continue;
		s = fp_hashmap_slot(&roots, &root, sizeof(root));
		if (!s)
			ret = -ENOMEM;
		/* a pid used again by a later step's first process */
		if (s && (!s->val || g->forked)) {
			st = fp_vec_push(&out->steps, sizeof(*st));
			if (!st)
				ret = -ENOMEM;
			else
				*st = (struct fp_step){ .index = out->steps.n,
							.first_pid = root,
							.started_ns =
								g->ts_ns };
			s->val = (void *)(uintptr_t)out->steps.n;
		}
		if (s)
			g2s[i] = (uintptr_t)s->val;
	}
	fp_hashmap_free(&roots, NULL);
	return ret ?: name_steps(r, g2s, out);
}

static void step_of(struct fp_actor *a, const uint32_t *g2s, size_t n)
{
	a->step = a->step && a->step <= n ? g2s[a->step - 1] : 0;
}

/* Findings held groups so far; now they name steps. */
static void name_findings_steps(struct fp_findings *out, const uint32_t *g2s,
				size_t n)
{
	size_t l, i;

	for (l = 0; l < FP_F_NLISTS; l++)
		for (i = 0; i < out->files[l].n; i++) {
			struct fp_file_finding *x = &FP_FILES(out, l)[i];

			step_of(&x->by, g2s, n);
			step_of(&x->created_by, g2s, n);
			step_of(&x->removed_by, g2s, n);
		}
	for (l = 0; l < FP_P_NLISTS; l++)
		for (i = 0; i < out->procs[l].n; i++)
			step_of(&FP_PROCS(out, l)[i].p, g2s, n);
	for (l = 0; l < FP_N_NLISTS; l++)
		for (i = 0; i < out->net[l].n; i++) {
			struct fp_net_finding *x = &FP_NETS(out, l)[i];

			x->step =
				x->step && x->step <= n ? g2s[x->step - 1] : 0;
		}
	for (i = 0; i < out->tamper.n; i++)
		step_of(&FP_TAMPER(out)[i].by, g2s, n);
	for (i = 0; i < out->privileged.n; i++)
		step_of(&FP_PRIVILEGED(out)[i].p, g2s, n);
	fp_netflow_steps(out, g2s, n);
	for (i = 0; i < out->reads.n; i++)
		step_of(&FP_READS(out)[i].by, g2s, n);
	for (i = 0; i < out->signalled.n; i++)
		step_of(&FP_SIGNALLED(out)[i].by, g2s, n);
	for (i = 0; i < out->ptraced.n; i++)
		step_of(&FP_PTRACED(out)[i].by, g2s, n);
	for (l = 0; l < FP_PO_NKINDS; l++)
		for (i = 0; i < out->procops[l].n; i++)
			step_of(&FP_PROCOPS(out, l)[i].by, g2s, n);
}

static int steps(const struct fp_recon *r, const struct fp_recon_input *in,
		 struct fp_findings *out)
{
	uint32_t *g2s;
	int ret;

	if (!r->groups.n)
		return 0;
	g2s = calloc(r->groups.n, sizeof(*g2s));
	if (!g2s)
		return -ENOMEM;
	ret = resolve_steps(r, in, g2s, out);
	if (!ret) {
		name_findings_steps(out, g2s, r->groups.n);
		fp_proctab_steps(out->proctab, g2s, r->groups.n);
	}
	free(g2s);
	return ret;
}

static int file_cmp(const void *x, const void *y)
{
	const struct fp_file_finding *a = x, *b = y;

	return fp_bytes_cmp(a->path.data, a->path.len, b->path.data,
			    b->path.len);
}

static int proc_cmp(const void *x, const void *y)
{
	const struct fp_proc_finding *a = x, *b = y;

	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return (a->p.pid > b->p.pid) - (a->p.pid < b->p.pid);
}

/*
 * The mounts, namespaces, fileless execs and set-ID files, with their
 * actors. A set-group-ID directory only hands its group on: a chmod that
 * left one (per the after snapshot) is not a set-ID file.
 */
static int procop_findings(const struct fp_recon *r,
			   const struct fp_recon_input *in,
			   struct fp_findings *out)
{
	const struct fp_fentry *e;
	size_t k, i;

	for (k = 0; k < FP_PO_NKINDS; k++) {
		const struct fp_procop_finding *src = r->procops[k].v;

		out->procops_omitted[k] = r->procops_omitted[k];
		for (i = 0; i < r->procops[k].n; i++) {
			struct fp_procop_finding *x;
			struct who w = { src[i].pid, src[i].exec,
					 src[i].group };

			if (k == FP_PO_SETID && !(src[i].mode & 04000) &&
			    (e = fp_fs_find(in->fs_after, src[i].path.data,
					    src[i].path.len)) &&
			    e->type == 'd')
				continue;
			x = fp_vec_push(&out->procops[k], sizeof(*x));
			if (!x)
				return -ENOMEM;
			*x = src[i];
			memset(&x->by, 0, sizeof(x->by));
			x->path.data = NULL;
			x->source.data = NULL;
			if (fp_bytes_dup(&x->path, src[i].path.data,
					 src[i].path.len) ||
			    fp_bytes_dup(&x->source, src[i].source.data,
					 src[i].source.len) ||
			    actor_fill(r, &x->by, &w))
				return -ENOMEM;
		}
	}
	return 0;
}

/* What footprint's own processes did is not the job's (own.h). */
static int drop_own(const struct fp_recon *r, struct fp_findings *out)
{
	const struct exec_rec *e = r->execs.v;
	struct fp_cmdline **own = NULL;
	size_t i, n = 0;

	for (i = 0; i < r->execs.n; i++)
		n += e[i].own;
	if (n && !(own = malloc(n * sizeof(*own))))
		return -ENOMEM;
	for (i = 0, n = 0; i < r->execs.n; i++)
		if (e[i].own)
			own[n++] = e[i].cmd;
	fp_own_sort(own, n);
	fp_findings_drop_own(out, own, n);
	free(own);
	return 0;
}

int fp_reconcile(const struct fp_recon *r, const struct fp_recon_input *in,
		 struct fp_findings *out)
{
	size_t l;
	int ret;

	memset(out, 0, sizeof(*out));
	out->proctab = calloc(1, sizeof(*out->proctab));
	ret = out->proctab ? fp_proctab_copy(out->proctab, &r->ptab) : -ENOMEM;
	if (!ret)
		ret = compare_fs(r, in, out);
	if (!ret)
		ret = path_findings(r, in, out);
	if (!ret)
		ret = compare_procs(r, in, out);
	if (!ret)
		ret = compare_net(r, in, out);
	if (!ret)
		ret = tamper_findings(r, in, out);
	if (!ret)
		ret = fp_netrec_findings(r->net, out);
	if (!ret)
		ret = read_findings(r, in, out);
	if (!ret)
		ret = signal_findings(r, in, out);
	if (!ret)
		ret = procop_findings(r, in, out);
	if (!ret)
		ret = steps(r, in, out);
	if (!ret)
		ret = drop_own(r, out);
	if (ret) {
		fp_findings_free(out);
		return ret;
	}
	/* hash order is not an order: sort what came from maps */
	for (l = 0; l < FP_F_NLISTS; l++)
		if (out->files[l].n)
			qsort(out->files[l].v, out->files[l].n,
			      sizeof(struct fp_file_finding), file_cmp);
	for (l = 0; l < FP_P_NLISTS; l++)
		if (out->procs[l].n)
			qsort(out->procs[l].v, out->procs[l].n,
			      sizeof(struct fp_proc_finding), proc_cmp);
	return 0;
}

/* ---- what a generated script did ---- */

/* a chmod that sets an x bit, or a file created with one */
static void note_made_exec(struct path_state *ps, const struct fp_event *ev)
{
	enum fp_file_op op = fp_file_op(ev);

	if ((op == FP_FOP_CHMOD || (op == FP_FOP_OPEN && ev->file.created)) &&
	    (ev->file.mode & 0111))
		ps->made_exec = true;
}

static void mark_ran(struct fp_recon *r, const char *p, size_t len, pid_t pid)
{
	struct path_state *ps = fp_hashmap_get(&r->paths, p, len);

	if (ps && !ps->ran) {
		ps->ran = true;
		ps->runner = who_now(r, pid);
	}
}

/*
 * An exec runs a file the run wrote: its executable (a binary), or the
 * file it was given (a #! script, whose exe is the interpreter). Only
 * paths the run changed have a state, so this is one lookup per exec. A
 * script given by a relative name ("./payload") is found when the
 * interpreter opens it: the kernel passes that name in its argv.
 */
static void note_ran(struct fp_recon *r, const struct fp_event *ev)
{
	const struct fp_bytes *fn = &ev->exec.filename;
	struct proc_state *p = proc_of(r, ev->pid);
	const char *a = ev->exec.argv.data, *end = a + ev->exec.argv.len;
	uint8_t k;

	mark_ran(r, ev->exec.exe.data, ev->exec.exe.len, ev->pid);
	if (fn->len && fn->data[0] == '/')
		mark_ran(r, fn->data, fn->len, ev->pid);
	if (!p || !fn->len || fn->data[0] == '/' || !a)
		return;
	p->script_opens = 0;
	/* argv[1] (#!/bin/sh) or argv[2] (#!/bin/sh -e, #!/usr/bin/env sh) */
	for (k = 0; a < end && k < 3; k++) {
		size_t n = strnlen(a, end - a);

		if (k && n == fn->len && !memcmp(a, fn->data, n)) {
			p->script_opens = 64;
			p->script_arg = k;
			return;
		}
		a += n + 1;
	}
}

/* does path end in "/" + arg (arg without its leading "./")? */
static bool names_arg(const struct fp_bytes *path, const char *arg, size_t alen)
{
	while (alen >= 2 && arg[0] == '.' && arg[1] == '/') {
		arg += 2;
		alen -= 2;
	}
	return alen && alen < path->len && path->data[0] == '/' &&
	       path->data[path->len - alen - 1] == '/' &&
	       !memcmp(path->data + path->len - alen, arg, alen);
}

/* an open by a process that exec'd a relative name: the script, when it
 * names one of the first arguments its interpreter was given */
static void note_script_open(struct fp_recon *r, const struct fp_event *ev)
{
	struct proc_state *p = proc_of(r, ev->pid);
	const struct exec_rec *e;
	const char *a, *end;
	int k;

	if (!p || !p->script_opens || ev->file.ret < 0 || !ev->file.npaths ||
	    p->exec_idx < 0 || (size_t)p->exec_idx >= r->execs.n)
		return;
	p->script_opens--;
	e = exec_at(r, p->exec_idx);
	a = e->cmd->argv.data;
	end = a + e->cmd->argv.len;
	for (k = 0; a && a < end && k <= p->script_arg; k++) {
		size_t n = strnlen(a, end - a);

		if (k == p->script_arg &&
		    names_arg(&ev->file.path[0].path, a, n) &&
		    fp_hashmap_get(&r->paths, ev->file.path[0].path.data,
				   ev->file.path[0].path.len)) {
			mark_ran(r, ev->file.path[0].path.data,
				 ev->file.path[0].path.len, ev->pid);
			p->script_opens = 0;
			return;
		}
		a += n + 1;
	}
}

/* what the finding of ps says of it: made executable, run, and (creator)
 * who created it when another process touched it last */
static int ran_fill(const struct fp_recon *r, struct fp_file_finding *f,
		    const struct path_state *ps, bool creator)
{
	f->made_exec = ps->made_exec;
	f->ran = ps->ran;
	if (ps->ran && actor_fill(r, &f->ran_by, &ps->runner))
		return -ENOMEM;
	if (creator && ps->born && !f->created_by.pid &&
	    (ps->created.pid != ps->last.pid ||
	     ps->created.exec != ps->last.exec))
		return actor_fill(r, &f->created_by, &ps->created);
	return 0;
}

/* ---- writers outside the run ---- */

/*
 * A process outside the run held e open for writing at the after
 * snapshot: it may have made the change an open of the run explains
 * (a logger appending to the file the run opened). *a: that process as
 * the process snapshot shows it; pid 0 if none. 0 or -ENOMEM.
 */
static int held_outside(const struct fp_recon_input *in,
			const struct fp_fentry *e, struct fp_actor *a)
{
	const struct fp_holder *h =
		fp_holder_find(in->holders, e->path.data, e->path.len);
	const struct fp_proc *p;

	memset(a, 0, sizeof(*a));
	if (!h)
		return 0;
	p = in->proc_after ? fp_proc_find(in->proc_after, h->pid) : NULL;
	a->pid = h->pid;
	if (!p)
		return fp_actor_own(a, "", 0, "", 0) ? -ENOMEM : 0;
	a->ppid = p->ppid;
	return fp_actor_own(a, p->exe.data, p->exe.len, p->argv.data,
			    p->argv.len) ?
		       -ENOMEM :
		       0;
}

int fp_recon_opened_only(const struct fp_recon *r,
			 int (*cb)(void *ctx, const char *path, size_t len),
			 void *ctx)
{
	unsigned int sure = FP_OP_CREATED | FP_OP_RENAMED_TO | FP_OP_REMOVED;
	size_t i;
	int ret;

	for (i = 0; i < r->paths.cap; i++) {
		const struct fp_hslot *s = &r->paths.slots[i];
		const struct path_state *ps = s->val;

		if (!s->key || !s->len || s->key[0] != '/' ||
		    !(ps->ops & FP_OP_WRITTEN) || (ps->ops & sure) || ps->wrote)
			continue;
		ret = cb(ctx, s->key, s->len);
		if (ret)
			return ret;
	}
	return 0;
}
