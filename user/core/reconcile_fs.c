// SPDX-License-Identifier: GPL-2.0
/* The file snapshots compared, and each change explained by the events. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reconcile_int.h"

bool fp_rc_under_roots(const struct fp_recon_input *in, const char *p,
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

struct fp_file_finding *fp_rc_add_file(struct fp_findings *out,
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

/*
 * A process outside the run held e open for writing at the after
 * snapshot: it may have made the change an open of the run explains
 * (a logger appending to the file the run opened). f's outside_writer:
 * that process as the process snapshot shows it; left unknown if none.
 * 0 or -ENOMEM.
 */
static int held_outside(const struct fp_recon_input *in,
			const struct fp_fentry *e, struct fp_file_finding *f)
{
	const struct fp_holder *h =
		fp_holder_find(in->holders, e->path.data, e->path.len);
	const struct fp_proc *p;
	struct fp_file_actors *m;
	struct fp_actor *a;

	if (!h)
		return 0;
	m = fp_ff_more(f);
	if (!m)
		return -ENOMEM;
	a = &m->outside_writer;
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
	f = fp_rc_add_file(out, l, e->path.data, e->path.len);
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
		else if (held_outside(in, e, f) < 0)
			return -ENOMEM;
		else if (fp_ff_actor(f, outside_writer)->pid)
			ps = NULL;
	}
	f->explained = ps != NULL;
	if (!ps)
		f->by_open = false;
	if (ps && fp_rc_actor_fill(r, &f->by, &ps->last))
		return -ENOMEM;
	if (ps && fp_hashmap_get(&r->paths, e->path.data, e->path.len) == ps &&
	    fp_rc_ran_fill(r, f, ps, l == FP_F_ADDED))
		return -ENOMEM;
	if (f->explained)
		return 0;
	u = fp_rc_add_file(out, FP_F_UNEXPLAINED, e->path.data, e->path.len);
	if (!u)
		return -ENOMEM;
	u->what = l;
	u->before = b;
	u->after = a;
	u->changes = changes;
	if (!fp_ff_actor(f, outside_writer)->pid)
		return 0;
	return fp_ff_more(u) ? fp_actor_copy(&u->more->outside_writer,
					     &f->more->outside_writer) :
			       -ENOMEM;
}

int fp_rc_compare_fs(const struct fp_recon *r, const struct fp_recon_input *in,
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
				fp_rc_add_file(out, FP_F_UNREADABLE,
					       a->path.data, a->path.len);

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
