/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repeated identical read-only opens of one file by one task, emitted as
 * one record with a count. A program that opens the same file again and
 * again (a build reading a header, a loop polling a config) changes
 * nothing by it, and each open costs a record, a ring buffer copy and
 * the collector's time. The first such open is held back in a table by
 * task; each open after it that is identical (every byte of the record
 * but the timestamp, the same fd, the same struct file's inode and
 * mount) only counts. Any other file syscall, exec or exit of the task
 * first emits the held record, so a task's records keep their order;
 * userspace drains what is left when tracing stops. Mutating opens, and
 * reads that went through /proc, are never held.
 */
#ifndef FP_COLLAPSE_BPF_H
#define FP_COLLAPSE_BPF_H

#include "common.bpf.h"
#include "collapse.h"

/* Set before load: 1 emits every open one by one (--every-open). */
const volatile __u32 every_open = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_HELD_TASKS);
	__type(key, __u32); /* tid */
	__type(value, struct fp_held_open);
} held_opens SEC(".maps");

/* Where a new entry is built: too large for the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_held_open);
} held_tmp SEC(".maps");

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
	struct fp_held_open *h = bpf_map_lookup_elem(&held_opens, &tid);

	if (!h)
		return;
	held_emit(h);
	bpf_map_delete_elem(&held_opens, &tid);
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
	return !every_open && sys <= FP_SYS_OPENAT2 && ret >= 0 &&
	       e->npaths == 1 && (e->flags & 03) == 0 &&
	       !(e->flags & (0100 | 01000)); /* O_CREAT, O_TRUNC */
}

/*
 * The collapse, for the record e (of size bytes, in s->buf) that is
 * about to be emitted: true if it was held or counted instead.
 */
__noinline int fp_held_take(__u32 sys, long ret, __u32 size)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), n8, k, zero = 0;
	struct fp_held_open *h = bpf_map_lookup_elem(&held_opens, &tid), *t;
	struct scratch *s = scratch_get();
	struct fp_file *held, *e;
	struct file *f;
	__u64 inode, mnt;

	if (!s)
		return 0;
	e = (struct fp_file *)s->buf;
	n8 = (size + 7) & ~7U;
	if (!holdable(e, sys, ret) || n8 > FP_HELD_MAX || !(f = cur_fd(ret))) {
		if (h) {
			held_emit(h);
			bpf_map_delete_elem(&held_opens, &tid);
		}
		return false;
	}
	inode = (__u64)BPF_CORE_READ(f, f_inode);
	mnt = (__u64)BPF_CORE_READ(f, f_path.mnt);
	/* the words compared end in zeros, not in what the buffer held */
	for (k = 0; k < 8; k++)
		s->buf[(size + k) & FP_BUF_MASK] = 0;
	if (h) {
		held = (struct fp_file *)h->rec;
		e->count = held->count;
		if (h->inode == inode && h->mnt == mnt && h->size == n8 &&
		    held->count < 0xffffffffU &&
		    held_same((const __u64 *)h->rec, (const __u64 *)s->buf,
			      n8 / 8)) {
			held->count++;
			return true;
		}
		held_emit(h);
		e->count = 1;
		e->hdr.ts_ns = bpf_ktime_get_ns();
		h->inode = inode;
		h->mnt = mnt;
		h->size = n8;
		held_copy(h->rec, s->buf, n8);
		return true;
	}
	t = bpf_map_lookup_elem(&held_tmp, &zero);
	if (!t)
		return false;
	t->inode = inode;
	t->mnt = mnt;
	t->size = n8;
	t->_pad = 0;
	e->hdr.ts_ns = bpf_ktime_get_ns();
	held_copy(t->rec, s->buf, n8);
	/* the table is full: this open goes out on its own, uncollapsed */
	return !bpf_map_update_elem(&held_opens, &tid, t, BPF_NOEXIST);
}

#endif /* FP_COLLAPSE_BPF_H */
