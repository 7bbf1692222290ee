/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repeated identical read-only opens of one file by one task, emitted as
 * one record with a count. A program that opens the same file again and
 * again (a build reading a header, a loop polling a config) changes
 * nothing by it, and each open costs a record, a ring buffer copy and
 * the collector's time. The first such open is held back in a table by
 * task; each open after it that is identical (every byte of the record
 * but the timestamp, the same fd, the same struct file's inode and
 * mount), or that reached the same dentry with no rename or the like
 * since, only counts. Any other file syscall, exec or exit of the task
 * first emits the held record, so a task's records keep their order;
 * userspace drains what is left when tracing stops. Mutating opens, and
 * reads that went through /proc, are never held; one through /proc that
 * reaches the held open's dentry is counted into it (fp_open_again()
 * does not read the name of a repeat), as it read the file named.
 */
#ifndef FP_COLLAPSE_BPF_H
#define FP_COLLAPSE_BPF_H

#include "common.bpf.h"
#include "collapse.h"
#include "walk_cache.bpf.h"

/* Set before load: 1 emits every open one by one (--every-open). */
const volatile __u32 every_open = 0;

/*
 * Arrays, not a hash by tid: a lookup of either is a few instructions the
 * verifier inlines, where a hash's costs ~30 ns on every open. Thread tid
 * may use slot tid % FP_HELD_TASKS if no other live thread holds it (its
 * owner, taken by compare-and-swap and given back when the record goes
 * out); if one does, its opens go out one by one, as with --every-open.
 * The owners apart, so that userspace looks at 32 KiB, not every record,
 * to find those left at the end (user/trace/tracer.c), and a reused set's
 * reset zeroes them alone (a slot's record is written before it is read).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_HELD_TASKS);
	/* userspace reads and zeroes it in place (user/trace/maparray.h) */
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64); /* tid; 0: free */
} held_owner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_HELD_TASKS);
	__type(key, __u32);
	__type(value, struct fp_held_open);
} held_opens SEC(".maps");

/* Does thread tid hold a record? Told inline, without the record's lookup */
static __always_inline bool held_owned(__u32 tid)
{
	__u32 k = tid & (FP_HELD_TASKS - 1);
	__u64 *owner = bpf_map_lookup_elem(&held_owner, &k);

	return owner && *owner == tid;
}

/* The record thread tid holds, or NULL. */
static __always_inline struct fp_held_open *held_get(__u32 tid)
{
	__u32 k = tid & (FP_HELD_TASKS - 1);
	__u64 *owner = bpf_map_lookup_elem(&held_owner, &k);

	if (!owner || *owner != tid)
		return NULL;
	return bpf_map_lookup_elem(&held_opens, &k);
}

/* Thread tid's slot, taken for its first held record; NULL if not free. */
static __always_inline struct fp_held_open *held_claim(__u32 tid)
{
	__u32 k = tid & (FP_HELD_TASKS - 1);
	__u64 *owner = bpf_map_lookup_elem(&held_owner, &k);

	if (!owner || *owner ||
	    __sync_val_compare_and_swap(owner, 0, (__u64)tid) != 0)
		return NULL;
	return bpf_map_lookup_elem(&held_opens, &k);
}

static __always_inline void held_release(__u32 tid)
{
	__u32 k = tid & (FP_HELD_TASKS - 1);
	__u64 *owner = bpf_map_lookup_elem(&held_owner, &k);

	if (owner)
		__sync_val_compare_and_swap(owner, (__u64)tid, 0);
}

static __always_inline void held_emit(struct fp_held_open *h)
{
	__u32 size = ((struct fp_file *)h->rec)->hdr.size;

	if (size > FP_HELD_MAX)
		size = FP_HELD_MAX;
	emit(h->rec, size);
}

/* Emit and forget the task's held record, if it has one. */
static __always_inline void held_flush(__u32 tid)
{
	struct fp_held_open *h = held_get(tid);

	if (!h)
		return;
	held_emit(h);
	held_release(tid);
}

/* Copy the record to be held; n is checked here, where the verifier sees it */
static __always_inline void held_copy(char *dst, const char *src, __u32 size)
{
	__u64 n = size;

	barrier_var(n);
	if (n > FP_HELD_MAX)
		n = FP_HELD_MAX;
	barrier_var(n);
	bpf_probe_read_kernel(dst, n & (2 * FP_HELD_MAX - 1), src);
}

/* Are the first n 8-byte words of a and b the same, but the timestamp? */
static __noinline bool held_same(const __u64 *a, const __u64 *b, __u32 n)
{
	__u32 i;

	for (i = 0; i < FP_HELD_MAX / 8; i++) {
		if (i >= n)
			break;
		/* word 1 is hdr.ts_ns: the held record keeps the first */
		if (i != 1 && a[i] != b[i])
			return false;
	}
	return true;
}

/* A successful read-only open that names one file and came not via /proc */
static __always_inline bool holdable(struct fp_file *e, __u32 sys, long ret)
{
	return !every_open && fp_sys_is_name_open(sys) && ret >= 0 &&
	       e->npaths == 1 && (e->flags & 03) == 0 &&
	       !(e->flags & (0100 | 01000)); /* O_CREAT, O_TRUNC */
}

/*
 * What fp_open_again() needs to tell the open being held from a repeat:
 * the css_set that stands for the header's cgroup in same_hdr(), if the
 * current task's cgroup is the one the header names now (else none, and
 * no repeat is told until the next record is held); for a relative name,
 * the directory key and generation its walk had (cached_walk() left them
 * in trim); nothing for an absolute one, or one whose directory was
 * unknown or walked without the cache.
 */
static __always_inline void held_key(struct fp_held_open *h, struct scratch *s,
				     struct fp_file *e)
{
	struct task_struct *task = untrusted(bpf_get_current_task_btf());
	struct css_set *cs = task->cgroups;
	const char *raw = s->buf + sizeof(*e);

	h->css_set = cs->dfl_cgrp->kn->id == e->hdr.cgroup_id ? (__u64)cs : 0;
	h->dir_dentry = 0;
	if (!walk_cache_on || !e->path[0].raw_len || raw[0] == '/' ||
	    (e->path[0].flags & FP_PATH_BASE_UNKNOWN))
		return;
	h->dir_dentry = (__u64)s->trim.key.dentry;
	h->dir_mnt = (__u64)s->trim.key.mnt;
	h->dir_inode = (__u64)s->trim.key.inode;
	h->dir_ino = s->trim.key.ino;
	h->root_dentry = (__u64)s->trim.key.root_dentry;
	h->root_mnt = (__u64)s->trim.key.root_mnt;
	h->gen = s->trim.gen;
}

/*
 * The collapse, for the record e (of size bytes, in s->buf) that is
 * about to be emitted: true if it was held or counted instead.
 */
__noinline int fp_held_take(__u32 sys, long ret, __u32 size)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), n8, k;
	struct fp_held_open *h = held_get(tid);
	struct scratch *s = scratch_get();
	struct fp_file *held, *e;
	struct fp_file_id id;
	/* before the file's identity is read: a rename after it bumps past */
	__u64 gen = gen_now();

	if (!s)
		return 0;
	e = (struct fp_file *)s->buf;
	n8 = (size + 7) & ~7U;
	if (!holdable(e, sys, ret) || n8 > FP_HELD_MAX ||
	    fp_fd_identity(ret, &id)) {
		if (h) {
			held_emit(h);
			held_release(tid);
		}
		return false;
	}
	/* the words compared end in zeros, not in what the buffer held */
	for (k = 0; k < 8; k++)
		s->buf[(size + k) & FP_BUF_MASK] = 0;
	if (h) {
		held = (struct fp_file *)h->rec;
		e->count = held->count;
		if (h->inode == id.inode && h->mnt == id.mnt && h->size == n8 &&
		    held->count < 0xffffffffU &&
		    held_same((const __u64 *)h->rec, (const __u64 *)s->buf,
			      n8 / 8)) {
			held->count++;
			/* the names are the same: so is what they came from,
			 * and the dentry is that name's now */
			held_key(h, s, e);
			h->dentry = id.dentry;
			h->file_gen = gen;
			return true;
		}
		held_emit(h);
		e->count = 1;
		e->hdr.ts_ns = bpf_ktime_get_ns();
		h->inode = id.inode;
		h->mnt = id.mnt;
		h->dentry = id.dentry;
		h->file_gen = gen;
		h->size = n8;
		held_key(h, s, e);
		held_copy(h->rec, s->buf, n8);
		return true;
	}
	/* another thread's slot: this open goes out on its own, uncollapsed */
	h = held_claim(tid);
	if (!h)
		return false;
	h->inode = id.inode;
	h->mnt = id.mnt;
	h->dentry = id.dentry;
	h->file_gen = gen;
	h->size = n8;
	h->_pad = 0;
	held_key(h, s, e);
	e->hdr.ts_ns = bpf_ktime_get_ns();
	held_copy(h->rec, s->buf, n8);
	return true;
}

/*
 * Is the task's header the held record's (h, held in ho): every field
 * fill_hdr() reads? The cgroup by the css_set held with it (held_key()):
 * the chain from it to the cgroup's id was 16-25 ns of a run of
 * handle_sys_exit's ~130 (bpf_stats, 200,000 open+close pairs of one
 * file). A css_set is held by every
 * task in it, so it is not freed while the task stays; a task that left
 * it (a change of cgroup, in either hierarchy, fails the test) can find
 * that address again only by moving twice, after it was freed and taken
 * again, and then its repeats of the same file count into the record it
 * held.
 */
static __always_inline bool same_hdr(const struct fp_held_open *ho,
				     const struct fp_hdr *h,
				     struct task_struct *t)
{
	struct task_struct *task = untrusted(t);
	const struct cred *cred = task->cred;

	if (!ho->css_set || h->pid != task->tgid || h->tid != task->pid ||
	    h->ppid != task->real_parent->tgid || h->uid != cred->uid.val ||
	    h->gid != cred->gid.val || (__u64)task->cgroups != ho->css_set)
		return false;
	/*
	 * set_task_comm() pads with NULs, as bpf_get_current_comm() does: two
	 * words, not sixteen bytes
	 */
	return *(const __u64 *)&h->comm[0] == *(const __u64 *)&task->comm[0] &&
	       *(const __u64 *)&h->comm[8] == *(const __u64 *)&task->comm[8];
}

/* Is the directory a relative name starts from the one held with h? */
static __always_inline bool same_dir(const struct fp_held_open *h,
				     struct task_struct *task, int dirfd)
{
	struct fs_struct *fs = untrusted(task)->fs;
	struct dentry *d;
	struct inode *inode;
	struct path p;
	struct file *f;
	__u64 gen;

	/* first, as the walk did */
	gen = gen_now();
	if (!h->dir_dentry || gen != h->gen ||
	    (__u64)fs->root.dentry != h->root_dentry ||
	    (__u64)fs->root.mnt != h->root_mnt)
		return false;
	if (dirfd == AT_FDCWD) {
		/* plain loads: the cwd is reached by typed pointers */
		d = fs->pwd.dentry;
		inode = d->d_inode;
		return (__u64)d == h->dir_dentry &&
		       (__u64)fs->pwd.mnt == h->dir_mnt &&
		       (__u64)inode == h->dir_inode &&
		       inode->i_ino == h->dir_ino;
	}
	f = cur_fd(dirfd);
	if (!f || bpf_core_read(&p, sizeof(p), &f->f_path))
		return false;
	d = p.dentry;
	inode = BPF_CORE_READ(d, d_inode);
	return (__u64)p.dentry == h->dir_dentry && (__u64)p.mnt == h->dir_mnt &&
	       (__u64)inode == h->dir_inode &&
	       BPF_CORE_READ(inode, i_ino) == h->dir_ino;
}

/* Are the n bytes of the name just read (at a) those held (at b)? */
static __always_inline bool same_name(const char *a, const char *b, __u32 n)
{
	__u64 x, y, mask;
	__u32 k, left;

	/* the name's room in a held record, which n is within */
	for (k = 0; k < (FP_HELD_MAX - sizeof(struct fp_file)) / 8; k++) {
		if (k * 8 >= n)
			break;
		left = n - k * 8;
		mask = left >= 8 ? ~0ULL : (1ULL << (8 * left)) - 1;
		x = *(const __u64 *)(a + k * 8);
		y = *(const __u64 *)(b + k * 8);
		if ((x ^ y) & mask)
			return false;
	}
	return true;
}

/*
 * An open(at) that repeats the task's held one, told without building
 * its record: the same call (number, flags, mode, dirfd, result), the
 * same file behind the fd, the same header fields, read by plain loads,
 * and then either the same dentry under the same generation (the name
 * is not read) or the same name bytes from the same directory under the
 * same generation. Each helper call costs ~15 ns here, and building the
 * record takes some twenty: a loop reading one file costs a third of
 * what it did. 1 if it was counted; if not, the record is built and
 * fp_held_take() compares it whole, as before, and -n if the whole name,
 * n bytes, was read to where put_path() puts it, which then keeps it
 * instead of reading it again. A global function: the verifier checks
 * its loads once.
 *
 * handle_sys_exit() asks this before its scope test: a slot is only ever
 * taken by a traced task's open (fp_held_take() runs after the test), and
 * a repeat has the held record's header, so the same task in the same
 * cgroup: still in scope, unless the tracer has since named the process
 * its own (tested here). An untraced task holds no slot, and costs one
 * compare here. And before the compat test, which this makes with the
 * task it reads anyway: a helper call and its return cost some 15 ns on
 * a kernel with return thunks (SRSO, retbleed), and a 32-bit call, whose
 * number means another syscall, is never a repeat.
 */
__noinline long fp_open_again(long ret, __u64 dirfd_sys, __u64 upath,
			      __u64 flags, __u64 mode)
{
	__s32 dirfd = (__s32)dirfd_sys;
	struct task_struct *task = bpf_get_current_task_btf();
	struct scratch *s = scratch_get();
	struct fp_held_open *h;
	struct fp_file *held;
	const char *name;
	struct fp_file_id id;
	__u32 tid;
	long n, miss;
	__u64 gen;

	if (every_open || !s || ret < 0 || (flags & 03) ||
	    (flags & (0100 | 01000)) || task_in_compat_syscall(task))
		return 0;
	tid = task->pid;
	h = held_get(tid);
	/* a process the tracer named its own since (a daemon it forked) */
	if (!h || (nself && is_self(task->tgid)))
		return 0;
	held = (struct fp_file *)h->rec;
	if (held->sys != (__u32)(dirfd_sys >> 32) || held->ret != ret ||
	    held->flags != flags || held->mode != mode || held->npaths != 1 ||
	    held->resolve || held->path[0].dirfd != dirfd ||
	    held->count >= 0xffffffffU || !same_hdr(h, &held->hdr, task))
		return 0;
	/* another file: not a repeat, and no name read for nothing */
	gen = gen_now();
	if (fp_fd_identity(ret, &id) || id.inode != h->inode ||
	    id.mnt != h->mnt)
		return 0;
	/*
	 * The same dentry, with no rename, rmdir, mount or chdir anywhere
	 * since it was held: the kernel reached the same name in the tree,
	 * so the caller's bytes for it (which may be spelt another way) are
	 * not read. That read, from the caller's memory after the call, was
	 * most of a repeat's cost.
	 */
	if (id.dentry == h->dentry && gen == h->file_gen) {
		held->count++;
		return 1;
	}
	/* where put_path() copies it: on a miss, it keeps it */
	name = s->buf + sizeof(*held);
	n = bpf_probe_read_user_str((void *)name, FP_HELD_MAX, (void *)upath);
	/* a name cut at FP_HELD_MAX is read again, whole */
	miss = n > 0 && n < FP_HELD_MAX ? -n : 0;
	if (n <= 0 || n != held->path[0].raw_len ||
	    n > FP_HELD_MAX - sizeof(*held) ||
	    !same_name(name, h->rec + sizeof(*held), n))
		return miss;
	if (name[0] != '/' && !same_dir(h, task, dirfd))
		return miss;
	held->count++;
	/* this name reaches this dentry now: the next repeat need not read */
	h->dentry = id.dentry;
	h->file_gen = gen;
	return 1;
}

#endif /* FP_COLLAPSE_BPF_H */
