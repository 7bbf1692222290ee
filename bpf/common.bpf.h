/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every object of the kernel side shares: the ring buffer, the
 * counters, the per-CPU working space, the knobs, and the helpers that
 * fill and commit a record.
 *
 * The objects are linked into one (`bpftool gen object`), so a map or a
 * global may be defined in one of them only: shared.bpf.c defines these
 * (FP_DEFINE_SHARED), every other object sees them as extern, and the
 * static linker makes both the same.
 */
#ifndef FP_COMMON_BPF_H
#define FP_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "footprint.h"

#ifdef FP_DEFINE_SHARED
#define FP_SHARED
#else
#define FP_SHARED extern
#endif

#define AT_FDCWD -100
#define PROC_SUPER_MAGIC 0x9fa0
#define S_IFMT 00170000
#define S_IFSOCK 0140000
/* Room for the largest record; offsets are masked to FP_BUF_MASK. */
#define FP_BUF_MASK 16383
#define FP_BUF_SIZE (FP_BUF_MASK + 1 + FP_PATH_MAX)
#define FP_WALK_MAX (FP_PATH_MAX / 2)
#define TS_COMPAT 0x0002

/* Is task in a 32-bit syscall? Its syscall numbers are another table's. */
static __always_inline bool task_in_compat_syscall(struct task_struct *task)
{
	if (!bpf_core_field_exists(task->thread_info.status))
		return false;
	return task->thread_info.status & TS_COMPAT;
}

/*
 * A kernel function of 6.2 and later, weak so that an older kernel still
 * loads the object: has_rdonly_cast (set by user space from the kernel's
 * BTF, hooks.c) leaves its calls dead code there. It makes a pointer
 * read from the kernel a typed one, whose fields are then plain loads (a
 * fault reads 0), not a probe-read helper call each (some 30 ns). The
 * static linker of Debian 12's bpftool (libbpf 1.1) refuses a kfunc
 * declared __ksym in two objects: shared.bpf.c, linked first, declares
 * it so, and the others as a plain extern function, which the linker
 * merges into that one (linked the other way round it refuses it).
 */
#ifdef FP_DEFINE_SHARED
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __weak __ksym;
const volatile bool has_rdonly_cast = false;
#else
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __weak;
extern const volatile bool has_rdonly_cast;
#endif

/*
 * p (a pointer to a kernel struct) as one the verifier does not trust:
 * its fields are loaded the same way, but each pointer the verifier
 * loads from a trusted (or RCU) one costs it a search of the kernel's
 * BTF by name for the type's "__safe_trusted" and "__safe_rcu" lists,
 * some 0.5 ms a load on 6.18 (a linear scan of 126,000 types), again
 * on every path it explores: that was the larger part of the cold
 * start. A helper that takes a task (task storage, pt_regs) needs the
 * trusted one. Left out of put_path(): the cast's dead branch grows its
 * frame on 6.1, whose verifier allows handle_sys_exit's longest chain of
 * frames (put_path's walk) 512 bytes in all (scripts/portability).
 */
#define untrusted_as(p, T)                                               \
	(has_rdonly_cast ?                                               \
		 (T *)bpf_rdonly_cast((p), bpf_core_type_id_kernel(T)) : \
		 (T *)(p))
/* the same for p not const-qualified: the kernel type is p's own */
#define untrusted(p) untrusted_as(p, typeof(*(p)))

/* Knobs, set through the skeleton before load (values in shared.bpf.c). */
extern const volatile __u64 max_argv_bytes;
/* Wake the collector only when this much is waiting (0: never force). */
extern const volatile __u64 wakeup_bytes;

/* tgid of the caller of fp_tracer_heartbeat(), and what it saw run */
FP_SHARED __u32 heartbeat_tgid;
FP_SHARED __u64 heartbeat[FP_HB_NPROGS];
/* a DNS socket of the run has been seen: read and recv are looked at */
FP_SHARED __u32 dns_active;

FP_SHARED struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/*
 * Per-CPU working space: the record being built and the state of the
 * loops that build it. Loop state lives here rather than on the stack so
 * that the verifier sees it as unknown and checks each callback once,
 * instead of once per possible offset.
 */
struct walk_state {
	struct dentry *dentry;
	struct vfsmount *vfsmnt;
	struct mount *mnt;
	struct dentry *mnt_root; /* of vfsmnt, read once per mount */
	struct dentry *root_dentry;
	struct vfsmount *root_mnt;
	__u32 pos; /* next write position in buf */
	__u32 limit;
	__u32 flags;
	/*
	 * For the walk cache's ascent (walk_cache.bpf.h): the steps taken
	 * (a name written or a mount crossed), the length of the first
	 * name and the dentry above it, and whether the walk stopped where
	 * a walk from dentry and vfsmnt, with the room and steps left,
	 * would go on exactly as this one would have.
	 */
	__u32 steps;
	__u32 first;
	__u32 cont;
	struct dentry *first_parent;
};

/* What a walk depends on besides the generation (walk_cache.bpf.h) */
struct walk_key {
	struct dentry *dentry;
	struct vfsmount *mnt;
	struct dentry *root_dentry;
	struct vfsmount *root_mnt;
	struct inode *inode;
	__u64 ino;
};

/* Are k's mount and task root those of o: its walk goes up the same way */
static __always_inline bool walk_key_same_tree(const struct walk_key *k,
					       const struct walk_key *o)
{
	return k->mnt == o->mnt && k->root_dentry == o->root_dentry &&
	       k->root_mnt == o->root_mnt;
}

/* Is k's directory d, with inode at ino (the dentry may have been reused) */
static __always_inline bool walk_key_dir_is(const struct walk_key *k,
					    const struct dentry *d,
					    const struct inode *inode,
					    __u64 ino)
{
	return k->dentry == d && k->inode == inode && k->ino == ino;
}

/* Do k and o key the same walk: all six fields */
static __always_inline bool walk_key_eq(const struct walk_key *k,
					const struct walk_key *o)
{
	return walk_key_dir_is(k, o->dentry, o->inode, o->ino) &&
	       walk_key_same_tree(k, o);
}

/* An extended walk, and its cut to its room (walk_cache.bpf.h) */
struct trim_state {
	struct walk_key key; /* of the directory walked (fp_dir_key) */
	struct path base; /* that directory */
	__u32 proc; /* it is on procfs */
	__u32 at; /* buf offset of the extended names */
	__u32 cut; /* bytes kept: a name boundary */
	__u64 gen; /* path_gen before the last cached_walk() */
	__u32 steps; /* that walk's steps, or more */
	__u32 _pad;
};

struct path_args {
	__u64 upath[2];
	__s32 dirfd[2];
	__u32 pos;
	__u32 fd_leader; /* path[1]'s fd is the thread group leader's */
	__u64 own_gen; /* an rmdir's own bump of path_gen (walk_cache.bpf.h) */
	__u64 name_read; /* path[0]'s bytes already in buf (fp_open_again) */
};

/* The match of a path against /proc/self/fd/N (file.bpf.c) */
struct fdlink_state {
	__u32 len; /* bytes of the raw string, its NUL included */
	__u32 start; /* of the component being read */
	__u32 ncomp; /* components matched so far */
	__u32 ndig; /* digits of the component, 0 if any is not one */
	__u64 num; /* their value */
	__u32 fd;
	__u32 leader; /* the fd table is the thread group leader's */
	__u32 fail;
	__u32 done; /* the NUL was reached */
};

/* The search of a new environment for GITHUB_ACTION (env_step). */
#define FP_ENV_CHUNK 256
struct env_state {
	__u64 addr; /* next user address to read */
	__u64 end;
	__u64 found; /* user address of the value, 0 until found */
	__u32 mid; /* addr is inside a variable, not at its start */
	__u32 _pad;
};

/*
 * What fp_fd_info() (shared.bpf.c) read of the file at an fd: whatever
 * naming it by its fd needs, in one call, typed loads from 6.2 on. For
 * the fd and table (leader) it names; file_event() clears file first.
 */
struct fd_info {
	struct file *file; /* NULL: not read, or fd not open */
	__s32 fd;
	__u16 leader; /* the thread group leader's table */
	__u16 dir_only; /* path, inode, ino and kind's FP_PATH_PROCFS only */
	struct path path; /* f_path */
	struct dentry *mnt_root; /* of path.mnt */
	struct inode *inode; /* path.dentry's */
	__u64 ino;
	struct dentry *parent; /* path.dentry's d_parent */
	struct inode *parent_inode;
	__u64 parent_ino;
	const unsigned char *name; /* path.dentry's */
	__u32 name_len;
	__u32 kind; /* FP_PATH_PROCFS and FP_PATH_ANON, as a walk sees it */
	__u32 f_mode;
	__u32 i_mode; /* of f_inode */
};

struct scratch {
	char buf[FP_BUF_SIZE];
	struct fd_info fdinfo; /* shared.bpf.c */
	struct walk_state walk; /* path.bpf.h */
	struct trim_state trim; /* walk_cache.bpf.h */
	struct path_args paths; /* file.bpf.c */
	struct fdlink_state fdlink; /* file.bpf.c */
	struct env_state env; /* process.bpf.c */
	char envbuf[FP_ENV_CHUNK];
};

FP_SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

FP_SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_stats);
} stats SEC(".maps");

static __always_inline struct fp_stats *stats_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

static __always_inline struct scratch *scratch_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

static __always_inline char *scratch_buf(void)
{
	struct scratch *s = scratch_get();

	return s ? s->buf : NULL;
}

static __always_inline void heartbeat_bump(__u32 prog)
{
	if (prog < FP_HB_NPROGS)
		__sync_fetch_and_add(&heartbeat[prog], 1);
}

/*
 * Commit one record. The collector is woken only when a backlog has built
 * up: a wakeup per event costs more than the rest of the tracing together.
 */
static __always_inline void emit(void *rec, __u64 size)
{
	struct fp_stats *st = stats_cpu();
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (size > FP_BUF_SIZE)
		size = FP_BUF_SIZE;
	/*
	 * The ring's fill is asked once per 1/64 of the threshold this CPU
	 * emitted, not per record: the consumer's position is a cache line
	 * the collector's CPU writes. The wakeup comes that much later.
	 */
	if (wakeup_bytes && st) {
		st->unasked_bytes += size;
		if (st->unasked_bytes >= wakeup_bytes / 64) {
			st->unasked_bytes = 0;
			if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >=
			    wakeup_bytes)
				flags = BPF_RB_FORCE_WAKEUP;
		}
	}
	if (bpf_ringbuf_output(&events, rec, size, flags)) {
		if (st) {
			__sync_fetch_and_add(&st->lost, 1);
			__sync_fetch_and_add(&st->lost_bytes, size);
		}
		return;
	}
	/*
	 * A plain increment, not a locked one: only a program nested on this
	 * CPU (a softirq's) can race it, and this count is informative, the
	 * collector compares nothing with it. Losses above stay atomic.
	 */
	if (st)
		st->events++;
}

/*
 * Plain loads through the current task's BTF pointer (shared.bpf.c): a
 * nanosecond each where a probe-read helper costs tens, but the verifier
 * scans the kernel's BTF for each pointer loaded from a trusted pointer,
 * so these are global functions, verified once rather than wherever
 * they are called.
 */
int fp_cur_fd(int fd, __u64 *fp); /* the task's struct file at fd, or 0 */
__u32 fp_cur_ppid(void);
int fp_cur_hdr(struct fp_hdr *h); /* the header's who: pid ... comm */
struct fp_file_id {
	__u64 inode;
	__u64 mnt;
	__u64 dentry;
};
/* an open file's inode, mount and dentry (shared.bpf.c); -1 if fd is not
 * open */
int fp_fd_identity(int fd, struct fp_file_id *id);
/*
 * The file at fd of the current task's table (of its group leader's if
 * leader) into the scratch's fdinfo, only what keys it as a directory if
 * dir_only; -1 if fd is not open there.
 */
int fp_fd_info(int fd, int leader, int dir_only);
/* What fp_fd_sock() (shared.bpf.c) tells of the socket at an fd. */
struct fp_sock_ref {
	__u64 sk; /* its struct sock; 0 if the fd is not a socket */
	__u64 file; /* the struct file at the fd */
	__u64 ino; /* its inode's number, no other live socket's */
	__u32 kind; /* type << 16 | protocol */
	__u32 _pad;
};
int fp_fd_sock(int fd, struct fp_sock_ref *r);

/*
 * The header's who, pid ... comm, of task (fp_cur_hdr): inline for a
 * caller verified once that has the task already, as a call and its
 * return cost some 15 ns on a kernel with return thunks (SRSO).
 */
static __always_inline void hdr_who(struct fp_hdr *h, struct task_struct *t)
{
	struct task_struct *task = untrusted(t);
	const struct cred *cred = task->cred;

	h->pid = task->tgid;
	h->tid = task->pid;
	h->ppid = task->real_parent->tgid;
	h->uid = cred->uid.val;
	h->gid = cred->gid.val;
	h->_pad = 0;
	h->cgroup_id = task->cgroups->dfl_cgrp->kn->id;
	*(__u64 *)&h->comm[0] = *(const __u64 *)&task->comm[0];
	*(__u64 *)&h->comm[8] = *(const __u64 *)&task->comm[8];
}

static __always_inline struct file *cur_fd(int fd)
{
	__u64 f = 0;

	fp_cur_fd(fd, &f);
	return (struct file *)f;
}

/*
 * The header but the timestamp: a record that may only be counted into a
 * held one (collapse.bpf.h) takes its time when it is kept, as reading
 * the clock costs more than the rest of the header in a virtual machine.
 */
static __always_inline void fill_hdr_untimed(struct fp_hdr *h, __u32 type)
{
	h->type = type;
	h->ts_ns = 0;
	fp_cur_hdr(h);
}

static __always_inline void fill_hdr(struct fp_hdr *h, __u32 type)
{
	fill_hdr_untimed(h, type);
	h->ts_ns = bpf_ktime_get_ns();
}

/*
 * Entry points of one family called from another's program: global
 * functions, resolved by the static linker and checked by the verifier
 * once on their own. Only rare syscalls go through them.
 */
int fp_bind_exit(long ret, __u64 fd, __u64 uaddr, __u64 addrlen); /* net */
int fp_connect_exit(long ret, __u64 fd, __u64 uaddr, __u64 addrlen);
/* one more call of the thread's cached flow: counted (shared.bpf.c) */
int fp_sendto_again(long ret, __u64 fd, __u64 uaddr);
int fp_sendto_exit(long ret, __u64 fd, __u64 ubuf, __u64 len, __u64 uaddr);
int fp_sendmsg_exit(long ret, __u64 fd, __u64 umsg);
int fp_recv_exit(long ret, __u64 fd, __u64 ubuf, __u64 umsg);
int fp_accept_exit(long ret, __u64 fd);
/* sendmmsg: destinations not routed, and its DNS queries */
int fp_sendmmsg_exit(long ret, __u64 fd, __u64 vec);
/* a traced 32-bit network syscall (net.bpf.c) */
int fp_compat_net_exit(__u32 csys, long ret);
int fp_net_task_exit(void); /* the exiting thread's cached flow count */
int fp_tamper_enter(__u32 sys, __u64 a0, __u64 a1); /* process */
/* signal.bpf.c */
__u64 fp_signal_target(__u32 sys, __u64 a0, __u64 a1);
int fp_signal_exit(long ret, __u32 sys, __u64 given, __u64 what, __u64 target);
int fp_open_flush(void); /* file: emit the task's held open (collapse.bpf.h) */

/*
 * Secrets by device and inode, filled by userspace at the start of a run
 * (user/session/secret_ids.c): value the class, 1-based. secret_ids_on
 * is 0 while the map is empty, so that an open pays nothing then.
 */
FP_SHARED __u32 secret_ids_on;
/* FP_SECRET_INO_BIT of each secret's inode, set before secret_ids_on */
FP_SHARED __u64 secret_ino_bits[FP_SECRET_INO_BITS / 64];
FP_SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	/* filled by userspace alone: nothing to allocate while tracing */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, FP_MAX_SECRET_IDS);
	__type(key, struct fp_secret_id);
	__type(value, __u32);
} secret_ids SEC(".maps");
/* the class of the secret the current task's fd is, 0 if none (shared) */
int fp_fd_secret(int fd);
/* a mount or namespace call (process.bpf.c), names as user pointers */
int fp_procop_exit(long ret, __u32 sys, __u64 u0, __u64 u1, __u64 flags);
/* a cross-process call aimed at the tracer: tamper (process.bpf.c) */
int fp_crossproc_tamper(__u32 sys, __u64 a0);

/*
 * io_uring (uring.bpf.c): the file at pointer file into the scratch's
 * fdinfo, as fp_fd_info() reads one by fd (shared.bpf.c); a path of a
 * request into the struct fp_path at s->buf + at, its bytes at off, as a
 * syscall's (file.bpf.c); and io_uring_setup's exit.
 */
int fp_file_info(__u64 file, int fd);
int fp_put_path_at(__u32 at, __u32 off, __s32 dirfd, __u32 known);
int fp_uring_setup_exit(long ret);

#endif /* FP_COMMON_BPF_H */
