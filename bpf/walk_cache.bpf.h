/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The walk cache of file.bpf.c: the names of the directory a relative
 * path is relative to (the cwd, or a dirfd), kept per task and reused
 * while nothing that could change them has happened, and extended by one
 * name when the new directory is a child of the cached one, as a descent
 * through a tree by dirfd (openat, mkdirat, unlinkat...) makes it.
 */
#ifndef FP_WALK_CACHE_BPF_H
#define FP_WALK_CACHE_BPF_H

#include "common.bpf.h"
#include "path.bpf.h"

/*
 * Bumped, by any process on the machine and before any scope check, at
 * the exit of every syscall that can change the path of a directory
 * (FP_SYS_GEN), after its d_move(), and at the submission and completion
 * of io_uring RENAMEAT/UNLINKAT. A cached walk is valid only under the
 * generation it was read before it began: a walk that read the dentries
 * before a rename's d_move() read a generation the rename bumps past.
 * A cache hit between another task's d_move() and its sys_exit still
 * gives the old path (docs/security.md): there is no sys_enter program
 * to bump earlier, as it would tax every syscall on the machine.
 */
__u64 path_gen SEC(".bss");

/* path_gen now: a rename after this read bumps past it */
static __always_inline __u64 gen_now(void)
{
#if defined(__TARGET_ARCH_x86)
	return *(volatile __u64 *)&path_gen;
#else
	/* x86 keeps loads in order; elsewhere the fetch is the barrier */
	return __sync_fetch_and_add(&path_gen, 0);
#endif
}

/*
 * Cleared by user space on a kernel where no io_uring submission hook
 * could be attached: an io_uring rename would not bump path_gen there,
 * so every walk is done afresh.
 */
const volatile bool walk_cache_on = true;

/*
 * The last walk of the cwd (slot 0), of a dirfd (slot 1), and of the
 * directory of a file named by its fd (slot 2: what an open created).
 */
#define FP_WC_CWD 0
#define FP_WC_DIRFD 1
#define FP_WC_FILE 2
#define FP_WC_SLOTS 3
struct walk_entry {
	struct walk_key key;
	__u64 gen;
	__u32 avail; /* the room the walk had */
	__u32 len;
	__u32 flags;
	__u32 valid;
	/*
	 * For an ascent (fp_walk_ascend): the directory above key, its
	 * inode and number (parent is NULL if there is none to go up to in
	 * the same mount), the length of the first name, the steps the
	 * walk took, and where a walk cut short would go on (cont_dentry
	 * NULL: nowhere known).
	 */
	struct dentry *parent;
	struct inode *parent_inode;
	__u64 parent_ino;
	struct dentry *cont_dentry;
	struct vfsmount *cont_mnt;
	__u32 first;
	__u32 steps;
	char names[FP_PATH_MAX];
};

struct walk_cache {
	struct walk_entry e[FP_WC_SLOTS];
};

/*
 * In the task, so that it is bounded by the traced tasks and goes away
 * with each: one entry per slot, not one per directory ever visited.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct walk_cache);
} walk_cache SEC(".maps");

/* Entry slot of c; the check and the index in one register */
static __always_inline struct walk_entry *wc_entry(struct walk_cache *c,
						   __u32 slot)
{
	__u64 i = slot;

	barrier_var(i);
	if (i >= FP_WC_SLOTS)
		return NULL;
	barrier_var(i);
	return &c->e[i];
}

/* The current task's entry of slot; NULL before its first cached walk */
static __always_inline struct walk_entry *task_entry(__u32 slot)
{
	struct walk_cache *c;

	c = bpf_task_storage_get(&walk_cache, bpf_get_current_task_btf(), 0, 0);
	return c ? wc_entry(c, slot) : NULL;
}

/* Returns the generation it bumped to. */
static __always_inline __u64 gen_bump(void)
{
	return __sync_fetch_and_add(&path_gen, 1) + 1;
}

/* Does entry e hold the walk of key k, made with this room, under gen? */
static __always_inline bool
walk_hit(struct walk_entry *e, const struct walk_key *k, __u32 avail, __u64 gen)
{
	if (!e->valid || e->gen != gen || !walk_key_eq(&e->key, k))
		return false;
	/* a cut walk is the same walk only with the same room */
	if (e->avail == avail)
		return true;
	return !(e->flags & FP_PATH_BASE_TRUNC) && e->len <= avail;
}

/*
 * Keep the len bytes of names at pos as entry e's: e is valid only if
 * they fit and were copied. Its other fields are the caller's.
 */
static __always_inline void
entry_keep_names(struct walk_entry *e, struct scratch *s, __u32 pos, __u32 len)
{
	e->valid = 0;
	if (len >= FP_PATH_MAX)
		return;
	/* keep the mask: the compiler knows len < FP_PATH_MAX, the verifier not */
	barrier_var(len);
	if (!bpf_probe_read_kernel(e->names, len & (FP_PATH_MAX - 1),
				   s->buf + (pos & FP_BUF_MASK)))
		e->valid = 1;
}

/* Move trim.cut back to the end of a name (or to 0). */
static long trim_back(__u32 i, void *unused)
{
	struct scratch *s = scratch_get();
	struct trim_state *t;

	if (!s)
		return 1;
	t = &s->trim;
	if (!t->cut || !s->buf[(t->at + t->cut - 1) & FP_BUF_MASK])
		return 1;
	t->cut--;
	return 0;
}

/*
 * The walk of key k in entry e, cut to a smaller room than it was made
 * with: a walk with less room stops at the first name that does not fit,
 * so it is the entry's names up to the last whole one that does. rm -rf
 * walks a directory for `unlinkat(fd, "d")`, then for `openat(fd, "..")`,
 * one byte less. -1 if e does not hold k's walk, or not with more room.
 * The caller marks the result cut: it is, or e was.
 */
static __always_inline long walk_hit_cut(struct scratch *s,
					 struct walk_entry *e,
					 const struct walk_key *k, __u32 pos,
					 __u32 avail, __u64 gen)
{
	struct trim_state *t = &s->trim;
	__u32 len;

	if (!e->valid || e->gen != gen || !walk_key_eq(&e->key, k) ||
	    avail >= e->avail)
		return -1;
	len = e->len;
	barrier_var(len);
	len &= FP_PATH_MAX - 1;
	if (bpf_probe_read_kernel(s->buf + (pos & FP_BUF_MASK), len, e->names))
		return -1;
	/* whole (walk_hit() took those that were not cut) */
	if (len <= avail)
		return len;
	t->at = pos;
	t->cut = avail;
	bpf_loop(FP_NAME_MAX + 1, trim_back, NULL, 0);
	if (t->cut && s->buf[(t->at + t->cut - 1) & FP_BUF_MASK])
		return -1;
	return t->cut;
}

/*
 * The walk of the directory keyed in trim.key, written at pos, from the
 * slot's entry if that holds the walk of its parent: its own name, then
 * the entry's names, cut where a walk from the directory would cut them:
 * at the room. (Its other limit, FP_WALK_MAX names, is never the one met
 * here: a name takes two bytes at least, the room FP_PATH_MAX - 1 at
 * most.) A descent by dirfd through a
 * tree 10,000 deep costs a copy per level, not a walk of 2,000 names.
 * -1 if the entry is not the parent's walk, or cannot be cut to this
 * room. A global function: the verifier checks it once, not per caller.
 */
__noinline long fp_walk_extend(__u32 slot, __u32 pos, __u32 avail, __u64 gen)
{
	struct scratch *s = scratch_get();
	struct walk_entry *e;
	struct trim_state *t;
	struct walk_key *k;
	struct dentry *d, *parent;
	struct vfsmount *mnt;
	__u32 n0, room, len, total;
	struct qstr q;
	long n;

	e = task_entry(slot);
	if (!s || !e)
		return -1;
	t = &s->trim;
	k = &t->key;
	/* locals: BPF_CORE_READ must start from a kernel type */
	d = k->dentry;
	mnt = k->mnt;

	if (!e->valid || e->gen != gen || !walk_key_same_tree(&e->key, k) ||
	    (e->flags & ~FP_PATH_BASE_TRUNC) || d == k->root_dentry ||
	    d == BPF_CORE_READ(mnt, mnt_root))
		return -1;
	parent = BPF_CORE_READ(d, d_parent);
	if (parent != e->key.dentry ||
	    BPF_CORE_READ(parent, d_inode) != e->key.inode)
		return -1;
	if (bpf_core_read(&q, sizeof(q), &d->d_name))
		return -1;
	n0 = q.len + 1;
	if (n0 > FP_NAME_MAX || n0 > avail)
		return -1;
	room = avail - n0;
	/* a cut entry holds no more than its own room */
	if ((e->flags & FP_PATH_BASE_TRUNC) && room > e->avail)
		return -1;
	n = bpf_probe_read_kernel_str(s->buf + (pos & FP_BUF_MASK), FP_NAME_MAX,
				      q.name);
	if (n != n0)
		return -1;
	len = e->len;
	barrier_var(len);
	len &= FP_PATH_MAX - 1;
	if (bpf_probe_read_kernel(s->buf + ((pos + n0) & FP_BUF_MASK), len,
				  e->names))
		return -1;
	t->at = pos + n0;
	t->cut = len < room ? len : room;
	if (t->cut < len) {
		bpf_loop(FP_NAME_MAX + 1, trim_back, NULL, 0);
		if (t->cut && s->buf[(t->at + t->cut - 1) & FP_BUF_MASK])
			return -1;
		e->flags |= FP_PATH_BASE_TRUNC;
	}
	total = n0 + t->cut;
	/* the parent's walk, whole, goes on where it went on; a cut one not */
	if (t->cut == len && e->steps < FP_WALK_MAX) {
		e->steps++;
	} else {
		e->cont_dentry = NULL;
		e->steps = FP_WALK_MAX;
	}
	e->parent = e->key.dentry;
	e->parent_inode = e->key.inode;
	e->parent_ino = e->key.ino;
	e->first = n0;
	e->key = *k;
	e->avail = avail;
	e->len = total;
	entry_keep_names(e, s, pos, total);
	return total;
}

/* The task's root, part of every key: a chroot changes every walk. */
static __always_inline void trim_key_root(struct trim_state *t,
					  struct fs_struct *fs)
{
	t->key.root_dentry = fs->root.dentry;
	t->key.root_mnt = fs->root.mnt;
}

/* The directory walked next, d on mnt, as trim's base and in its key. */
static __always_inline void trim_key_dir(struct trim_state *t, struct dentry *d,
					 struct vfsmount *mnt,
					 struct inode *inode, __u64 ino)
{
	t->base.dentry = d;
	t->base.mnt = mnt;
	t->key.dentry = d;
	t->key.mnt = mnt;
	t->key.inode = inode;
	t->key.ino = ino;
}

/*
 * The cwd of the task whose fs this is, as the directory a relative name
 * is relative to (fp_dir_key): inline where the caller has the task, as
 * a call and its return cost some 15 ns on a kernel with return thunks.
 */
static __always_inline void dir_key_cwd(struct trim_state *t,
					struct fs_struct *fs)
{
	struct dentry *d = fs->pwd.dentry;
	struct inode *inode = d->d_inode;

	trim_key_root(t, fs);
	trim_key_dir(t, d, fs->pwd.mnt, inode, inode->i_ino);
	t->proc = d->d_sb->s_magic == PROC_SUPER_MAGIC;
}

/*
 * The directory a relative name is relative to: the cwd, or the file at
 * dirfd, into trim.base, its key into trim.key, and whether it is on
 * procfs into trim.proc. A global function, for the same reason as
 * fp_cur_fd(). -1 if dirfd is not open.
 */
__noinline int fp_dir_key(int dirfd)
{
	struct fs_struct *fs = untrusted(bpf_get_current_task_btf())->fs;
	struct scratch *s = scratch_get();
	struct trim_state *t;
	struct fd_info *fi;

	if (!s)
		return -1;
	t = &s->trim;
	if (dirfd == AT_FDCWD) {
		dir_key_cwd(t, fs);
		return 0;
	}
	trim_key_root(t, fs);
	if (fp_fd_info(dirfd, 0, 1))
		return -1;
	fi = &s->fdinfo;
	trim_key_dir(t, fi->path.dentry, fi->path.mnt, fi->inode, fi->ino);
	t->proc = !!(fi->kind & FP_PATH_PROCFS);
	return 0;
}

#define S_DEAD (1 << 4)

/*
 * An rmdir bumps path_gen, as its dentry can be freed and reused for
 * another directory. rm -rf then walks each directory afresh on its way
 * up. But a task's own rmdir, with no other bump since the entry's (gen
 * is one past it, and the entry was valid right before), removed one
 * empty directory: if that was neither the directory walked now, k (not
 * S_DEAD), nor an ancestor of k (they are not empty), k's names did not
 * change, nor did those an ascent or a descent to k reads (an ascent
 * only compares the removed child's parent pointer). The entry is then
 * valid under gen too, for this walk, which overwrites it or hits it.
 */
static __always_inline void own_rmdir_revalidate(struct scratch *s,
						 struct walk_entry *e,
						 const struct walk_key *k,
						 __u64 gen)
{
	struct inode *inode = k->inode;

	if (!s->paths.own_gen || s->paths.own_gen != gen || e->gen + 1 != gen)
		return;
	if (BPF_CORE_READ(inode, i_flags) & S_DEAD)
		return;
	e->gen = gen;
}

/*
 * What an ascent from entry e needs of the walk w that filled it: the
 * directory above its key (a walk whose first step wrote a name went up
 * within the key's mount), the steps, and where a cut walk goes on.
 */
static __always_inline void walk_keep_ascent(struct walk_entry *e,
					     struct walk_state *w,
					     const struct walk_key *k)
{
	struct dentry *up = w->first ? w->first_parent : NULL;
	struct inode *inode = up ? BPF_CORE_READ(up, d_inode) : NULL;

	e->parent = up;
	e->parent_inode = inode;
	e->parent_ino = inode ? BPF_CORE_READ(inode, i_ino) : 0;
	e->first = w->first;
	e->steps = w->steps;
	e->cont_dentry = w->cont ? w->dentry : NULL;
	e->cont_mnt = w->vfsmnt;
}

/*
 * The walk of the directory keyed in trim.key, written at pos, from the
 * slot's entry if that holds the walk of one of its children: the
 * entry's names after the first, then, if the entry's walk was cut, a
 * walk from where it stopped with the room and the steps it left: the
 * bytes a walk from the directory writes. `openat(fd, "..")` up a tree
 * (chmod -R, find) and rm -rf's rmdirs going back up cost a copy per
 * level, not a walk of 2,048 names.
 * The entry's key is not read, only its parent pointer compared: the
 * child may be gone (rm -rf removed it); its parent is pinned by the fd
 * or cwd being walked. -1 if the entry cannot serve.
 */
__noinline long fp_walk_ascend(__u32 slot, __u32 pos, __u32 avail, __u64 gen)
{
	struct scratch *s = scratch_get();
	struct walk_entry *e;
	struct walk_key *k;
	struct walk_state *w;
	struct dentry *d, *up = NULL;
	struct inode *inode = NULL;
	struct vfsmount *mnt;
	__u32 first, rest, more = 0, flags = 0, steps;
	long n;

	e = task_entry(slot);
	if (!s || !e)
		return -1;
	k = &s->trim.key;
	/* k is the directory above the entry's */
	if (!e->valid || e->gen != gen || !e->parent ||
	    !walk_key_dir_is(k, e->parent, e->parent_inode, e->parent_ino) ||
	    !walk_key_same_tree(&e->key, k) ||
	    (e->flags & ~FP_PATH_BASE_TRUNC) || !e->first ||
	    e->first > e->len || e->steps == 0 || e->steps > FP_WALK_MAX ||
	    ((e->flags & FP_PATH_BASE_TRUNC) && !e->cont_dentry))
		return -1;
	rest = e->len - e->first;
	/* a cut to a smaller room: left to a walk */
	if (rest > avail || rest >= FP_PATH_MAX)
		return -1;
	first = 0;
	if (rest) {
		/* the new first name, and its length for the next ascent */
		n = bpf_probe_read_kernel_str(
			s->buf + (pos & FP_BUF_MASK), FP_NAME_MAX,
			e->names + (e->first & (FP_PATH_MAX - 1)));
		if (n <= 0 || n > rest)
			return -1;
		first = n;
		if (rest > first &&
		    bpf_probe_read_kernel(
			    s->buf + ((pos + first) & FP_BUF_MASK),
			    (rest - first) & (FP_PATH_MAX - 1),
			    e->names +
				    ((e->first + first) & (FP_PATH_MAX - 1))))
			return -1;
	}
	steps = e->steps - 1;
	w = &s->walk;
	if (e->flags & FP_PATH_BASE_TRUNC) {
		w->dentry = e->cont_dentry;
		w->vfsmnt = e->cont_mnt;
		more = fp_walk(pos + rest, pos + avail, FP_WALK_MAX - steps);
		flags = w->flags;
		steps += w->steps;
		/* cut right after the entry's first name: k's is the walk's */
		if (!rest && e->cont_dentry == k->dentry)
			first = w->first;
	}
	/*
	 * The directory above k, for the next ascent, if k's own walk began
	 * with k's name: not at the root nor at the root of its mount. k is
	 * pinned by the fd or cwd, so its parent is too.
	 */
	d = k->dentry;
	mnt = k->mnt; /* a local: BPF_CORE_READ must start from a kernel type */
	if (d == k->root_dentry || d == BPF_CORE_READ(mnt, mnt_root))
		first = 0;
	if (first)
		up = BPF_CORE_READ(d, d_parent);
	if (up) {
		inode = BPF_CORE_READ(up, d_inode);
		e->parent_ino = BPF_CORE_READ(inode, i_ino);
	}
	e->parent = up;
	e->parent_inode = inode;
	e->first = first;
	e->steps = steps;
	e->cont_dentry = (flags & FP_PATH_BASE_TRUNC) && s->walk.cont ?
				 s->walk.dentry :
				 NULL;
	e->cont_mnt = s->walk.vfsmnt;
	e->key = *k;
	e->avail = avail;
	e->len = rest + more;
	e->flags = flags;
	entry_keep_names(e, s, pos, e->len);
	return e->len;
}

/*
 * The walk of the directory keyed in trim.key, written at pos, from the
 * slot's entry if that holds the whole walk of a sibling (a directory
 * with the same parent, in the same mount): the key's own name, then the
 * entry's names after its first, which are the parent's walk. git writes
 * each object into one of 256 directories under objects/, and tar and
 * builds fill one directory after another: a name and a copy, not a walk
 * to the root. The parent is compared, not read: the key's parent is
 * pinned by the key, and the entry's, if it is the same dentry with the
 * same inode, is the directory that was walked under gen. -1 if the
 * entry cannot serve.
 */
__noinline long fp_walk_sibling(__u32 slot, __u32 pos, __u32 avail, __u64 gen)
{
	struct scratch *s = scratch_get();
	struct walk_entry *e;
	struct walk_key *k;
	struct dentry *d, *up;
	struct vfsmount *mnt;
	struct inode *inode;
	__u32 n0, rest, total;
	struct qstr q;
	long n;

	e = task_entry(slot);
	if (!s || !e)
		return -1;
	k = &s->trim.key;
	/* locals: BPF_CORE_READ must start from a kernel type */
	d = k->dentry;
	mnt = k->mnt;
	if (!e->valid || e->gen != gen || !e->parent || e->flags ||
	    e->key.dentry == d || !walk_key_same_tree(&e->key, k) ||
	    !e->first || e->first > e->len || e->steps == 0 ||
	    e->steps >= FP_WALK_MAX || d == k->root_dentry ||
	    d == BPF_CORE_READ(mnt, mnt_root))
		return -1;
	up = BPF_CORE_READ(d, d_parent);
	if (up != e->parent || up == d)
		return -1;
	inode = BPF_CORE_READ(up, d_inode);
	if (inode != e->parent_inode ||
	    BPF_CORE_READ(inode, i_ino) != e->parent_ino ||
	    bpf_core_read(&q, sizeof(q), &d->d_name))
		return -1;
	n0 = q.len + 1;
	rest = e->len - e->first;
	total = n0 + rest;
	if (n0 > FP_NAME_MAX || total > avail || total >= FP_PATH_MAX)
		return -1;
	n = bpf_probe_read_kernel_str(s->buf + (pos & FP_BUF_MASK), FP_NAME_MAX,
				      q.name);
	if (n != n0)
		return -1;
	if (rest &&
	    bpf_probe_read_kernel(s->buf + ((pos + n0) & FP_BUF_MASK),
				  rest & (FP_PATH_MAX - 1),
				  e->names + (e->first & (FP_PATH_MAX - 1))))
		return -1;
	/* the parent, its inode, the steps and the flags (none) are the same */
	e->key = *k;
	e->first = n0;
	e->avail = avail;
	e->len = total;
	entry_keep_names(e, s, pos, total);
	return total;
}

/*
 * A file named by its fd (the file an open created, fchmod's): its walk
 * is its name, then the walk of its directory, and consecutive creates
 * are mostly in one directory (git's objects, tar's and a compiler's
 * outputs), so the directory's walk comes from the cache (slot
 * FP_WC_FILE) where every create walked it to the root. This writes the
 * name at pos and keys the directory in trim, as walk_step() would step
 * from the file: 0 (and nothing is kept) where that step would not write
 * the name, at the task's root, a mount's root, an anonymous file, a
 * name that does not fit: the caller then walks the file itself.
 */
static __always_inline __u32 file_name_key(struct scratch *s,
					   struct task_struct *task,
					   const struct fd_info *fi, __u32 pos,
					   __u32 limit)
{
	struct fs_struct *fs = task->fs;
	struct trim_state *t = &s->trim;
	struct dentry *d = fi->path.dentry;
	struct vfsmount *mnt = fi->path.mnt;
	__u32 len = fi->name_len;
	long n;

	if (!walk_cache_on)
		return 0;
	trim_key_root(t, fs);
	if ((d == t->key.root_dentry && mnt == t->key.root_mnt) ||
	    d == fi->mnt_root || fi->parent == d || len + 1 > FP_NAME_MAX ||
	    pos + len + 1 > limit)
		return 0;
	n = bpf_probe_read_kernel_str(s->buf + (pos & FP_BUF_MASK), FP_NAME_MAX,
				      fi->name);
	if (n != len + 1)
		return 0;
	trim_key_dir(t, fi->parent, mnt, fi->parent_inode, fi->parent_ino);
	return n;
}

/*
 * walk_path() for the directory in trim (a relative name's, or that of
 * a file named by its fd), done again only when the directory, the
 * task's root or the generation changed since this task's last walk of
 * that slot. The names written
 * are the same bytes either way, so nothing downstream changes. task is
 * the current one, read once by the caller for this and file_name_key():
 * each helper call and its return cost some 15 ns on a kernel with
 * return thunks (SRSO, retbleed).
 */
static __always_inline __u32 cached_walk(struct scratch *s,
					 struct task_struct *task,
					 struct path *base,
					 const struct walk_key *k, __u32 pos,
					 __u32 limit, __u32 *flags, __u32 slot)
{
	__u32 avail = limit - pos, len, wflags = 0;
	struct walk_cache *c;
	struct walk_entry *e;
	__u64 gen;
	long ext;

	/* unknown, until a walk or an entry says */
	s->trim.steps = FP_WALK_MAX;
	if (!walk_cache_on)
		return walk_path(s, base, pos, limit, flags);
	c = bpf_task_storage_get(&walk_cache, task, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	e = c ? wc_entry(c, slot) : NULL;
	if (!e)
		return walk_path(s, base, pos, limit, flags);
	/* before the walk reads any dentry */
	gen = gen_now();
	s->trim.gen = gen;
	own_rmdir_revalidate(s, e, k, gen);
	/* the steps of the walk given, or more (see file_walk) */
	s->trim.steps = e->steps;
	if (walk_hit(e, k, avail, gen)) {
		len = e->len;
		barrier_var(len);
		len &= FP_PATH_MAX - 1;
		bpf_probe_read_kernel(s->buf + (pos & FP_BUF_MASK), len,
				      e->names);
		*flags |= e->flags;
		return len;
	}
	ext = walk_hit_cut(s, e, k, pos, avail, gen);
	if (ext >= 0) {
		*flags |= FP_PATH_BASE_TRUNC;
		return ext;
	}
	ext = fp_walk_extend(slot, pos, avail, gen);
	if (ext < 0)
		ext = fp_walk_ascend(slot, pos, avail, gen);
	if (ext < 0)
		ext = fp_walk_sibling(slot, pos, avail, gen);
	if (ext >= 0) {
		*flags |= e->flags;
		s->trim.steps = e->steps;
		return ext;
	}
	len = walk_path(s, base, pos, limit, &wflags);
	*flags |= wflags;
	e->key = *k;
	e->gen = gen;
	e->avail = avail;
	e->len = len;
	e->flags = wflags;
	walk_keep_ascent(e, &s->walk, k);
	entry_keep_names(e, s, pos, len);
	s->trim.steps = e->steps;
	return len;
}

#endif /* FP_WALK_CACHE_BPF_H */
