// SPDX-License-Identifier: GPL-2.0
/*
 * File events folded into path states: what each did to its paths, and
 * what a generated script did (made executable, then run).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* RENAME_EXCHANGE */
#include <stdlib.h>
#include <string.h>

#include "reconcile_int.h"

/* ---- what a generated script did: made executable, then run ---- */

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
void fp_rc_note_ran(struct fp_recon *r, const struct fp_event *ev)
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
int fp_rc_ran_fill(const struct fp_recon *r, struct fp_file_finding *f,
		   const struct path_state *ps, bool creator)
{
	struct fp_file_actors *m;

	f->made_exec = ps->made_exec;
	f->ran = ps->ran;
	if (ps->ran && (!(m = fp_ff_more(f)) ||
			fp_rc_actor_fill(r, &m->ran_by, &ps->runner)))
		return -ENOMEM;
	if (creator && ps->born && !fp_ff_actor(f, created_by)->pid &&
	    (ps->created.pid != ps->last.pid ||
	     ps->created.exec != ps->last.exec))
		return (m = fp_ff_more(f)) ? fp_rc_actor_fill(r, &m->created_by,
							      &ps->created) :
					     -ENOMEM;
	return 0;
}

/* ---- file events ---- */

/* what a path costs: its state, and the finding it may become */
static uint64_t path_cost(size_t len)
{
	return SLOT_COST + ALLOC(len + 1) + ALLOC(sizeof(struct path_state)) +
	       VEC_COST(sizeof(struct fp_file_finding)) + ALLOC(len + 1);
}

/* the state of path p, made if new: 0, -ENOMEM or -EDQUOT */
int fp_rc_path_get(struct fp_recon *r, const struct fp_bytes *p,
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

/*
 * What a successful file operation does to its first and second path
 * (FP_OP_*): the one table of it. An open that created its file also
 * adds FP_OP_CREATED (ops_of); a rename with RENAME_EXCHANGE renames
 * each path to the other (renamed).
 */
static const unsigned int op_ops[][2] = {
	[FP_FOP_OPEN] = { FP_OP_WRITTEN, 0 },
	[FP_FOP_UNLINK] = { FP_OP_REMOVED, 0 },
	[FP_FOP_RENAME] = { FP_OP_RENAMED_FROM, FP_OP_RENAMED_TO },
	[FP_FOP_MKDIR] = { FP_OP_CREATED, 0 },
	[FP_FOP_MKNOD] = { FP_OP_CREATED, 0 },
	/* a symlink's second path is its target, which is not touched */
	[FP_FOP_SYMLINK] = { FP_OP_CREATED, 0 },
	/* a link's old name is not changed: linking an O_TMPFILE through
	 * /proc/self/fd/N is how such a file gets a name */
	[FP_FOP_LINK] = { 0, FP_OP_CREATED },
	[FP_FOP_CHMOD] = { FP_OP_ATTRS, 0 },
	[FP_FOP_CHOWN] = { FP_OP_ATTRS, 0 },
	[FP_FOP_TRUNCATE] = { FP_OP_WRITTEN, 0 },
};

_Static_assert(sizeof(op_ops) / sizeof(op_ops[0]) == FP_FOP_TRUNCATE + 1,
	       "op_ops: a row for each enum fp_file_op");

/* What successful event ev (a file operation op) did to its i-th path. */
static unsigned int ops_of(const struct fp_event *ev, enum fp_file_op op,
			   unsigned int i)
{
	unsigned int ops = op_ops[op][i];

	if (op == FP_FOP_OPEN && !i && ev->file.created)
		ops |= FP_OP_CREATED;
	return ops;
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

		ops = ops_of(ev, fp_file_op(ev), i);
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
		ret = fp_rc_path_get(r, &k, &ps);
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
void fp_rc_born(struct path_state *ps, const struct who *w)
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
	src->ops |= op_ops[op][0];
	if (op == FP_FOP_TRUNCATE || (ev->file.flags & O_TRUNC))
		src->wrote = true;
	touch(src, w);
	src->seq = r->fed;
}

/* rename(a, b); with RENAME_EXCHANGE each takes the other's place */
static int renamed(struct fp_recon *r, const struct fp_event *ev,
		   struct path_state *a, struct path_state *b,
		   const struct who *w)
{
	bool exchange = ev->file.flags & RENAME_EXCHANGE;
	struct path_state old = *a;
	int ret;

	if (exchange) {
		a->born = b->born;
		a->created = b->created;
		a->ops |= FP_OP_RENAMED_TO;
		b->ops |= FP_OP_RENAMED_FROM;
	} else {
		a->exists = 0;
		a->removed = *w;
	}
	b->born = old.born;
	b->created = old.created;
	b->exists = 1;
	b->wrote = true;
	touch(a, w);
	touch(b, w);
	ret = moved(r, a, ev, 1);
	if (!ret && exchange)
		ret = moved(r, b, ev, 0);
	return ret;
}

/* What the event did to its paths a (and b), besides their ops. */
static int fold_file_op(struct fp_recon *r, const struct fp_event *ev,
			enum fp_file_op op, struct path_state *a,
			struct path_state *b, const struct who *w)
{
	switch (op) {
	case FP_FOP_OPEN:
		if (ev->file.flags & O_TRUNC)
			a->wrote = true;
		if (ev->file.created)
			fp_rc_born(a, w);
		a->exists = 1;
		touch(a, w);
		return 0;
	case FP_FOP_MKDIR:
	case FP_FOP_MKNOD:
	case FP_FOP_SYMLINK:
		/* the new file's content is the run's (a cut name that
		 * explains nothing keeps only the table's ops) */
		a->ops |= FP_OP_WRITTEN;
		fp_rc_born(a, w);
		return 0;
	case FP_FOP_LINK:
		/* a new name for an old file */
		fp_rc_born(b, w);
		link_made(r, ev, a, b, w);
		return 0;
	case FP_FOP_TRUNCATE:
		a->wrote = true;
		touch(a, w);
		return 0;
	case FP_FOP_UNLINK:
		a->exists = 0;
		a->removed = *w;
		touch(a, w);
		return 0;
	case FP_FOP_RENAME:
		return renamed(r, ev, a, b, w);
	case FP_FOP_CHMOD:
	case FP_FOP_CHOWN:
		break;
	}
	touch(a, w);
	return 0;
}

/* A file event that changed something: its paths' states. */
static int fold_file(struct fp_recon *r, const struct fp_event *ev,
		     enum fp_file_op op)
{
	struct who w = { ev->pid, exec_of(r, ev->pid), 0 };
	struct path_state *a, *b = NULL;
	bool two = op == FP_FOP_RENAME || op == FP_FOP_LINK;
	int ret;

	/* a record from a damaged or crafted log may lack its second path */
	if (two && ev->file.npaths < 2)
		return 0;
	/* a pipe or socket reached through /dev/stdout: not a file */
	if (op == FP_FOP_OPEN && ev->file.path[0].anonymous)
		return 0;
	ret = fp_rc_event_group(r, ev, &w.group);
	if (ret)
		return ret;
	ret = feed_unresolved(r, ev, &w);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = fp_rc_path_get(r, &ev->file.path[0].path, &a);
	if (!ret && two)
		ret = fp_rc_path_get(r, &ev->file.path[1].path, &b);
	if (ret)
		return ret;
	a->ops |= ops_of(ev, op, 0);
	if (b)
		b->ops |= ops_of(ev, op, 1);
	ret = fold_file_op(r, ev, op, a, b, &w);
	if (ret)
		return ret;
	note_made_exec(a, ev);
	a->seq = r->fed;
	if (b)
		b->seq = r->fed;
	through_link(r, ev, op, a, &w);
	return fp_procop_setid_mode(ev) ? note_setid(r, ev, &w) : 0;
}

int fp_rc_feed_file(struct fp_recon *r, const struct fp_event *ev)
{
	enum fp_file_op op = fp_file_op(ev);
	int ret;

	if (op == FP_FOP_OPEN) {
		ret = fp_rc_feed_read(r, ev);
		if (ret)
			return ret;
		note_script_open(r, ev);
	}
	if (ev->file.ret < 0 || !ev->file.npaths || changes_nothing(ev, op))
		return 0;
	return fold_file(r, ev, op);
}
