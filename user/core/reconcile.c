// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hashmap.h"
#include "reconcile.h"

struct exec_rec {
	pid_t pid, ppid;
	struct fp_cmdline *cmd; /* shared with every actor naming it */
	uint64_t ts_ns;
};

struct proc_state {
	pid_t pid, ppid;
	long exec_idx; /* into execs, -1 if it never exec'd (nor its parent) */
	bool started; /* fork or exec seen during the run */
	bool exited;
};

struct path_state {
	unsigned int ops; /* FP_OP_* */
	bool born; /* the file now at this path was created during the run */
	int exists; /* per events: 1, 0, or -1 unknown */
	pid_t last_pid, created_pid, removed_pid;
	long last_exec, created_exec, removed_exec;
};

struct fp_recon {
	struct fp_hashmap paths;
	struct fp_hashmap procs;
	struct fp_vec execs; /* struct exec_rec */
	struct fp_vec short_lived; /* struct fp_proc_finding, actor by index */
	struct fp_vec binds; /* struct fp_net_finding */
	/* the budget: bytes charged for the state, and events left out */
	uint64_t budget, used, fed, unfolded;
	char why[200];
};

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

	if (r)
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

void fp_recon_free(struct fp_recon *r)
{
	size_t i;

	if (!r)
		return;
	fp_hashmap_free(&r->paths, free);
	fp_hashmap_free(&r->procs, free);
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
	free(r);
}

/* the state of pid, made if new: 0, -ENOMEM or -EDQUOT */
static int proc_new(struct fp_recon *r, pid_t pid, struct proc_state **out)
{
	struct fp_hslot *s;
	struct proc_state *p;

	*out = fp_hashmap_get(&r->procs, &pid, sizeof(pid));
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
	struct proc_state *p = fp_hashmap_get(&r->procs, &pid, sizeof(pid));

	return p ? p->exec_idx : -1;
}

static int actor_fill(const struct fp_recon *r, struct fp_actor *a, pid_t pid,
		      long exec_idx)
{
	const struct exec_rec *e;
	struct proc_state *p;

	memset(a, 0, sizeof(*a));
	a->pid = pid;
	p = fp_hashmap_get(&r->procs, &pid, sizeof(pid));
	if (p)
		a->ppid = p->ppid;
	if (exec_idx < 0 || (size_t)exec_idx >= r->execs.n)
		return fp_actor_own(a, "", 0, "", 0);
	e = &((const struct exec_rec *)r->execs.v)[exec_idx];
	fp_actor_share(a, e->cmd);
	return 0;
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
		ps->last_exec = ps->created_exec = ps->removed_exec = -1;
		s->val = ps;
	}
	*out = s->val;
	return 0;
}

/* read-only opens change nothing and are never kept: a command may make
 * millions of them */
static bool changes_nothing(const struct fp_event *ev, const char *kind)
{
	uint64_t acc = ev->file.flags & O_ACCMODE;

	if (strcmp(kind, "open"))
		return false;
	if (acc == O_RDONLY && !(ev->file.flags & (O_CREAT | O_TRUNC)))
		return true;
	/* an unnamed file in that directory */
	return (ev->file.flags & O_TMPFILE) == O_TMPFILE;
}

static void touch(struct path_state *ps, const struct fp_event *ev, long ex)
{
	ps->last_pid = ev->pid;
	ps->last_exec = ex;
}

/* What a successful event did to its i-th path, as outside_roots says. */
static unsigned int ops_of(const struct fp_event *ev, unsigned int i)
{
	const char *kind = fp_event_kind(ev);

	if (!strcmp(kind, "open"))
		return i		? 0 :
		       ev->file.created ? FP_OP_CREATED | FP_OP_WRITTEN :
					  FP_OP_WRITTEN;
	if (!strcmp(kind, "unlink"))
		return i ? 0 : FP_OP_REMOVED;
	if (!strcmp(kind, "rename"))
		return i ? FP_OP_RENAMED_TO : FP_OP_RENAMED_FROM;
	/* a link's old name is not changed: linking an O_TMPFILE through
	 * /proc/self/fd/N is how such a file gets a name */
	if (!strcmp(kind, "link"))
		return i ? FP_OP_CREATED : 0;
	/* a symlink's second path is its target, which is not touched */
	if (!strcmp(kind, "symlink") || !strcmp(kind, "mkdir") ||
	    !strcmp(kind, "mknod"))
		return i ? 0 : FP_OP_CREATED;
	if (!strcmp(kind, "chmod") || !strcmp(kind, "chown"))
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
			   long ex)
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
		touch(ps, ev, ex);
	}
	return found;
}

static int feed_file(struct fp_recon *r, const struct fp_event *ev)
{
	long ex = exec_of(r, ev->pid);
	struct path_state *a, *b;
	const char *kind = fp_event_kind(ev);
	int ret;

	if (ev->file.ret < 0 || !ev->file.npaths || changes_nothing(ev, kind))
		return 0;
	/* a record from a damaged or crafted log may lack its second path */
	if ((!strcmp(kind, "rename") || !strcmp(kind, "link")) &&
	    ev->file.npaths < 2)
		return 0;
	/* a pipe or socket reached through /dev/stdout: not a file */
	if (!strcmp(kind, "open") && ev->file.path[0].anonymous)
		return 0;
	ret = feed_unresolved(r, ev, ex);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = path_get(r, &ev->file.path[0].path, &a);
	if (ret)
		return ret;
	if (!strcmp(kind, "open")) {
		a->ops |= FP_OP_WRITTEN;
		if (ev->file.created) {
			a->ops |= FP_OP_CREATED;
			a->born = true;
			a->created_pid = ev->pid;
			a->created_exec = ex;
		}
		a->exists = 1;
		touch(a, ev, ex);
	} else if (!strcmp(kind, "mkdir") || !strcmp(kind, "mknod") ||
		   !strcmp(kind, "symlink")) {
		a->ops |= FP_OP_CREATED | FP_OP_WRITTEN;
		a->born = true;
		a->created_pid = ev->pid;
		a->created_exec = ex;
		a->exists = 1;
		touch(a, ev, ex);
	} else if (!strcmp(kind, "link")) {
		/* a new name for an old file */
		ret = path_get(r, &ev->file.path[1].path, &b);
		if (ret)
			return ret;
		b->ops |= FP_OP_CREATED;
		b->born = true;
		b->created_pid = ev->pid;
		b->created_exec = ex;
		b->exists = 1;
		touch(b, ev, ex);
	} else if (!strcmp(kind, "chmod") || !strcmp(kind, "chown")) {
		a->ops |= FP_OP_ATTRS;
		touch(a, ev, ex);
	} else if (!strcmp(kind, "truncate")) {
		a->ops |= FP_OP_WRITTEN;
		touch(a, ev, ex);
	} else if (!strcmp(kind, "unlink")) {
		a->ops |= FP_OP_REMOVED;
		a->exists = 0;
		a->removed_pid = ev->pid;
		a->removed_exec = ex;
		touch(a, ev, ex);
	} else if (!strcmp(kind, "rename")) {
		struct path_state old;

		ret = path_get(r, &ev->file.path[1].path, &b);
		if (ret)
			return ret;
		old = *a;
		a->ops |= FP_OP_RENAMED_FROM;
		b->ops |= FP_OP_RENAMED_TO;
		if (ev->file.flags & 2 /* RENAME_EXCHANGE */) {
			a->born = b->born;
			a->created_pid = b->created_pid;
			a->created_exec = b->created_exec;
			a->ops |= FP_OP_RENAMED_TO;
			b->ops |= FP_OP_RENAMED_FROM;
		} else {
			a->exists = 0;
			a->removed_pid = ev->pid;
			a->removed_exec = ex;
		}
		b->born = old.born;
		b->created_pid = old.created_pid;
		b->created_exec = old.created_exec;
		b->exists = 1;
		touch(a, ev, ex);
		touch(b, ev, ex);
	}
	return 0;
}

static int feed_bind(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_net_finding *n;

	if (ev->bind.ret < 0)
		return 0;
	/* kept here, and copied into the findings */
	if (charge(r, 2 * (VEC_COST(sizeof(*n)) +
			   ALLOC(ev->bind.unix_path.len + 1))))
		return -EDQUOT;
	n = fp_vec_push(&r->binds, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->pid = ev->pid;
	n->family = ev->bind.family;
	memcpy(n->address, ev->bind.address, sizeof(n->address));
	n->port = ev->bind.bound_port ? ev->bind.bound_port : ev->bind.port;
	if (ev->bind.family == AF_INET || ev->bind.family == AF_INET6)
		n->protocol = ev->bind.protocol;
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
			ps->born = true;
			ps->exists = 1;
			ps->created_pid = ev->pid;
			ps->created_exec = exec_of(r, ev->pid);
			touch(ps, ev, ps->created_exec);
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

static int feed_exec(struct fp_recon *r, const struct fp_event *ev)
{
	struct exec_rec *e;
	struct proc_state *p;
	int ret = proc_new(r, ev->pid, &p);

	if (ret)
		return ret;
	if (charge(r, exec_cost(ev)))
		return -EDQUOT;
	e = fp_vec_push(&r->execs, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->pid = ev->pid;
	e->ppid = ev->ppid;
	e->ts_ns = ev->ts_ns;
	/* only the start of argv: the receipt shows no more */
	e->cmd = fp_cmdline_new(ev->exec.exe.data, ev->exec.exe.len,
				ev->exec.argv.data, ev->exec.argv.len,
				ev->exec.argv_dropped > 0);
	if (!e->cmd) {
		r->execs.n--;
		return -ENOMEM;
	}
	if (p->exited) {
		/* pid reused */
		p->exited = false;
	}
	p->ppid = ev->ppid;
	p->exec_idx = r->execs.n - 1;
	p->started = true;
	return 0;
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
	return 0;
}

static int feed_exit(struct fp_recon *r, const struct fp_event *ev)
{
	struct proc_state *p =
		fp_hashmap_get(&r->procs, &ev->pid, sizeof(ev->pid));
	struct fp_proc_finding *f;

	if (!p || !p->started || p->exited)
		return 0;
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
	return actor_fill(r, &f->p, ev->pid, p->exec_idx);
}

static int feed_one(struct fp_recon *r, const struct fp_event *ev)
{
	switch (ev->type) {
	case FP_EV_EXEC:
		return feed_exec(r, ev);
	case FP_EV_FORK:
		return feed_fork(r, ev);
	case FP_EV_EXIT:
		return feed_exit(r, ev);
	case FP_EV_FILE:
		return feed_file(r, ev);
	case FP_EV_BIND:
		return feed_bind(r, ev);
	}
	return 0;
}

int fp_recon_feed(struct fp_recon *r, const struct fp_event *ev)
{
	int ret;

	r->fed++;
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
	const struct path_state *ps = fp_hashmap_get(&r->paths, p, len);

	if (ps && (ps->ops & self_ops))
		return ps;
	while (len > 1) {
		while (len > 1 && p[len - 1] != '/')
			len--;
		if (len > 1)
			len--; /* drop the slash */
		ps = fp_hashmap_get(&r->paths, p, len);
		if (ps && (ps->ops & ancestor_ops))
			return ps;
	}
	return NULL;
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

static int file_finding(const struct fp_recon *r, struct fp_findings *out,
			enum fp_file_list l, const struct fp_fentry *b,
			const struct fp_fentry *a, unsigned int changes)
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
	f->explained = ps != NULL;
	if (ps && actor_fill(r, &f->by, ps->last_pid, ps->last_exec))
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
	return 0;
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
				ret = file_finding(r, out, FP_F_REMOVED, b,
						   NULL, 0);
			continue;
		}
		if (c > 0) {
			j++;
			if (!hidden_by_unreadable(B, a->path.data, a->path.len))
				ret = file_finding(r, out, FP_F_ADDED, NULL, a,
						   0);
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
				ret = file_finding(r, out, FP_F_CHANGED, b, a,
						   ch);
		}
	}
	return ret;
}

static int path_findings(const struct fp_recon *r,
			 const struct fp_recon_input *in,
			 struct fp_findings *out)
{
	size_t i;

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
			if (!f ||
			    actor_fill(r, &f->by, ps->last_pid, ps->last_exec))
				return -ENOMEM;
			f->changes = ps->ops;
			continue;
		}
		if (ps->born && ps->exists == 0 && (ps->ops & FP_OP_REMOVED)) {
			f = add_file(out, FP_F_TRANSIENT, s->key, s->len);
			if (!f ||
			    actor_fill(r, &f->created_by, ps->created_pid,
				       ps->created_exec) ||
			    actor_fill(r, &f->removed_by, ps->removed_pid,
				       ps->removed_exec) ||
			    actor_fill(r, &f->by, ps->last_pid, ps->last_exec))
				return -ENOMEM;
			f->explained = true;
			continue;
		}
		if (under_roots(in, s->key, s->len))
			continue;
		f = add_file(out, FP_F_OUTSIDE, s->key, s->len);
		if (!f || actor_fill(r, &f->by, ps->last_pid, ps->last_exec))
			return -ENOMEM;
		f->changes = ps->ops;
		f->explained = true;
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

static int compare_procs(const struct fp_recon *r,
			 const struct fp_recon_input *in,
			 struct fp_findings *out)
{
	const struct fp_proc_table *B = in->proc_before, *A = in->proc_after;
	struct fp_proc_finding *f;
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
		if (exec_of(r, in->leftover[i]) >= 0 || !p || !p->exe.len) {
			if (actor_fill(r, &f->p, in->leftover[i],
				       exec_of(r, in->leftover[i])))
				return -ENOMEM;
			if (p)
				f->p.ppid = p->ppid;
		} else if (proc_from_snapshot(f, p)) {
			return -ENOMEM;
		}
	}
	for (i = 0; A && B && i < A->n; i++) {
		const struct fp_proc *p = &A->procs[i];
		const struct fp_proc *q = fp_proc_find(B, p->pid);

		if (p->kernel_thread || (q && fp_proc_same(p, q)) ||
		    in_run_cgroup(in, p) || is_leftover(in, p->pid))
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

/* Did the socket's owner exist before the run, outside the run's cgroup? */
static bool owner_outside_run(const struct fp_recon_input *in, pid_t pid)
{
	const struct fp_proc *a, *b;

	if (pid <= 0 || !in->proc_after || !in->proc_before ||
	    is_leftover(in, pid))
		return false;
	a = fp_proc_find(in->proc_after, pid);
	b = fp_proc_find(in->proc_before, pid);
	return a && b && fp_proc_same(a, b) && !in_run_cgroup(in, a);
}

static int compare_net(const struct fp_recon *r,
		       const struct fp_recon_input *in, struct fp_findings *out)
{
	struct fp_net_finding *n;
	size_t i;

	for (i = 0; i < r->binds.n; i++) {
		const struct fp_net_finding *b =
			&((struct fp_net_finding *)r->binds.v)[i];

		n = fp_vec_push(&out->net[FP_N_BOUND], sizeof(*n));
		if (!n)
			return -ENOMEM;
		*n = *b;
		n->unix_path.data = NULL;
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
		n->outside_run = owner_outside_run(in, s->pid);
		n->pid = s->pid;
		n->family = s->family;
		n->protocol = s->protocol;
		n->port = s->port;
		snprintf(n->address, sizeof(n->address), "%s", s->address);
	}
	return 0;
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

int fp_reconcile(const struct fp_recon *r, const struct fp_recon_input *in,
		 struct fp_findings *out)
{
	size_t l;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = compare_fs(r, in, out);
	if (!ret)
		ret = path_findings(r, in, out);
	if (!ret)
		ret = compare_procs(r, in, out);
	if (!ret)
		ret = compare_net(r, in, out);
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
