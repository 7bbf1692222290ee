/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path of a struct path, written leaf-first into the per-CPU buffer:
 * d_path() by hand, since bpf_d_path() is not allowed on tracepoints.
 * Used by the executable of an exec and by the file syscalls.
 */
#ifndef FP_PATH_BPF_H
#define FP_PATH_BPF_H

#include "common.bpf.h"

static __always_inline struct mount *real_mount(struct vfsmount *v)
{
	return (struct mount *)((void *)v -
				bpf_core_field_offset(struct mount, mnt));
}

/*
 * Write the names of the path in walk.dentry and walk.vfsmnt leaf-first
 * at pos, in at most budget steps (FP_WALK_MAX for a whole walk); returns
 * bytes written, with walk.flags. A global function (shared.bpf.c): the
 * verifier checks it, and walk_step with it, once per program rather
 * than wherever a path is walked.
 */
__u32 fp_walk(__u32 pos, __u32 limit, __u32 budget);

#ifdef FP_DEFINE_SHARED
/*
 * One step up the dentry tree, writing the name of the current dentry.
 * At the root of a mount, continue from its mountpoint in the parent.
 */
static long walk_step(__u64 i, void *unused)
{
	struct scratch *s = scratch_get();
	struct walk_state *w;
	/* locals: BPF_CORE_READ must start from a kernel type */
	struct dentry *d, *mnt_root, *parent, *dt = NULL;
	struct vfsmount *vfsmnt;
	struct mount *mnt;
	struct qstr q;
	__u32 pos;
	long n;

	if (!s)
		return 1;
	w = &s->walk;
	d = w->dentry;
	vfsmnt = w->vfsmnt;
	mnt = w->mnt;
	if (d == w->root_dentry && vfsmnt == w->root_mnt)
		return 1;
	mnt_root = w->mnt_root;
	/* per component: plain loads where the kernel can type d */
	if (has_rdonly_cast) {
		dt = bpf_rdonly_cast(d, bpf_core_type_id_kernel(struct dentry));
		parent = dt->d_parent;
	} else {
		parent = BPF_CORE_READ(d, d_parent);
	}
	if (d == mnt_root || d == parent) {
		struct mount *up, *mt = NULL;

		if (has_rdonly_cast) {
			mt = bpf_rdonly_cast(
				mnt, bpf_core_type_id_kernel(struct mount));
			up = mt->mnt_parent;
		} else {
			up = BPF_CORE_READ(mnt, mnt_parent);
		}
		if (d != mnt_root || up == mnt) {
			/* above the task's root, or an unlinked/lazy-unmounted tree */
			w->flags |= FP_PATH_BASE_DETACHED;
			return 1;
		}
		if (mt) {
			w->dentry = mt->mnt_mountpoint;
			w->mnt_root = up->mnt.mnt_root;
		} else {
			w->dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
			w->mnt_root = BPF_CORE_READ(&up->mnt, mnt_root);
		}
		w->mnt = up;
		w->vfsmnt = &up->mnt;
		w->steps++;
		return 0;
	}
	pos = w->pos;
	if (has_rdonly_cast) {
		q.len = dt->d_name.len;
		q.name = dt->d_name.name;
	} else if (bpf_core_read(&q, sizeof(q), &d->d_name)) {
		/* length and name pointer in one read */
		w->flags |= FP_PATH_BASE_TRUNC;
		w->cont = 0;
		return 1;
	}
	/* the name and its NUL must fit: cut only what does not */
	if (pos + q.len + 1 > w->limit) {
		w->flags |= FP_PATH_BASE_TRUNC;
		return 1;
	}
	n = bpf_probe_read_kernel_str(s->buf + (pos & FP_BUF_MASK), FP_NAME_MAX,
				      q.name);
	if (n <= 0) {
		w->flags |= FP_PATH_BASE_TRUNC;
		w->cont = 0;
		return 1;
	}
	if (i == 0) {
		w->first = n;
		w->first_parent = parent;
	}
	w->pos = pos + n;
	w->dentry = parent;
	w->steps++;
	return 0;
}

__noinline __u32 fp_walk(__u32 pos, __u32 limit, __u32 budget)
{
	struct fs_struct *fs = untrusted(bpf_get_current_task_btf())->fs;
	struct scratch *s = scratch_get();
	struct vfsmount *vfsmnt, *vt;
	struct walk_state *w;
	long loops;

	if (!s)
		return 0;
	w = &s->walk;
	vfsmnt = w->vfsmnt;
	w->mnt = real_mount(vfsmnt);
	/* plain loads where the kernel can type them, not helper calls */
	if (has_rdonly_cast) {
		vt = bpf_rdonly_cast(vfsmnt,
				     bpf_core_type_id_kernel(struct vfsmount));
		w->mnt_root = vt->mnt_root;
	} else {
		w->mnt_root = BPF_CORE_READ(vfsmnt, mnt_root);
	}
	w->root_dentry = fs->root.dentry;
	w->root_mnt = fs->root.mnt;
	w->pos = pos;
	w->limit = limit;
	w->flags = 0;
	w->steps = 0;
	w->first = 0;
	w->first_parent = NULL;
	w->cont = 1;
	if (budget > FP_WALK_MAX)
		budget = FP_WALK_MAX;
	loops = bpf_loop(budget, walk_step, NULL, 0);
	if (loops == budget)
		w->flags |= FP_PATH_BASE_TRUNC;
	return w->pos - pos;
}
#endif

/* Write the names from dentry on mnt leaf-first at pos; bytes written. */
static __always_inline __u32 walk_from(struct scratch *s, struct dentry *dentry,
				       struct vfsmount *mnt, __u32 pos,
				       __u32 limit, __u32 *flags)
{
	__u32 n;

	s->walk.dentry = dentry;
	s->walk.vfsmnt = mnt;
	n = fp_walk(pos, limit, FP_WALK_MAX);
	*flags |= s->walk.flags;
	return n;
}

/*
 * Write the names of path p leaf-first at pos; returns bytes written. p is
 * the caller's copy (stack or scratch): plain loads, no helper call.
 */
static __always_inline __u32 walk_path(struct scratch *s, struct path *p,
				       __u32 pos, __u32 limit, __u32 *flags)
{
	return walk_from(s, p->dentry, p->mnt, pos, limit, flags);
}

#endif /* FP_PATH_BPF_H */
