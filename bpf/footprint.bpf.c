// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel side of footprint: process lifecycle and file/bind syscalls of
 * the traced tasks, streamed through one ring buffer. A task is traced when
 * it is in one of up to FP_MAX_CGROUPS cgroup subtrees, or in one of the
 * process trees userspace named (decided at fork, below), and is not one
 * of the tracer's own processes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "footprint.h"

#define AT_FDCWD -100
#define SIGNAL_GROUP_EXIT 0x00000004
#define O_ACCMODE 03
#define O_CREAT 0100
#define O_TRUNC 01000
#define FMODE_CREATED 0x100000
#define PROC_SUPER_MAGIC 0x9fa0
/* Room for the largest record; offsets are masked to FP_BUF_MASK. */
#define FP_BUF_MASK 16383
#define FP_BUF_SIZE (FP_BUF_MASK + 1 + FP_PATH_MAX)
#define FP_WALK_MAX (FP_PATH_MAX / 2)

/* Knobs, set through the skeleton before load. */
const volatile __u64 max_argv_bytes = 1 << 20;
/* Wake the collector only when this much is waiting (0: never force). */
const volatile __u64 wakeup_bytes = 1 << 20;

/*
 * Scope, set by userspace through the mmapped .bss after load, before
 * attach (cgroups and self may be added later too: one word each). For a
 * plain `run` only ncgroups is set, and the rest costs two loads.
 */
__u32 ncgroups; /* entries of target_cgroup in use */
__u32 pid_tree_on; /* traced_pids is in use */
__u32 nself;
__u32 self_tgids[FP_MAX_SELF];
__u32 step_parent; /* tgid whose children's execs carry a step name */
/* tgid of the caller of fp_tracer_heartbeat(), and what it saw run */
__u32 heartbeat_tgid;
__u64 heartbeat[FP_HB_NPROGS];

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/* The cgroups traced; descendants are traced too. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, FP_MAX_CGROUPS);
	__type(key, __u32);
	__type(value, __u32);
} target_cgroup SEC(".maps");

/*
 * tgid -> the root of its process tree. Roots and the processes below them
 * at attach come from userspace; every later one is added at fork, before
 * the child can run, and removed at its exit.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_MAX_TRACED_PIDS);
	__type(key, __u32);
	__type(value, __u32);
} traced_pids SEC(".maps");

struct pending {
	__u64 args[5];
	__u32 sys;
	__u32 active; /* set at entry, cleared at exit */
};

/*
 * Arguments saved at syscall entry, consumed at exit: in the task itself,
 * which is cheaper than a hash keyed by tid and goes away with the task.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pending);
} pending SEC(".maps");

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
	__u32 _pad;
};

struct path_args {
	__u64 upath[2];
	__s32 dirfd[2];
	__u32 pos;
	__u32 _pad;
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

struct scratch {
	char buf[FP_BUF_SIZE];
	struct walk_state walk;
	struct path_args paths;
	struct env_state env;
	char envbuf[FP_ENV_CHUNK];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

struct {
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

static __always_inline bool is_self(__u32 tgid)
{
	__u32 i, n = nself;

	for (i = 0; i < FP_MAX_SELF; i++) {
		if (i >= n)
			break;
		if (self_tgids[i] == tgid)
			return true;
	}
	return false;
}

static __always_inline void heartbeat_bump(__u32 prog)
{
	if (prog < FP_HB_NPROGS)
		__sync_fetch_and_add(&heartbeat[prog], 1);
}

/*
 * The pid-tree lookup runs only when trees are in use, and after the
 * cgroups: a plain `run` pays for one cgroup test, as before.
 */
static __always_inline bool traced(void)
{
	__u32 tgid = 0, i, n = ncgroups;

	if (nself | pid_tree_on) {
		tgid = bpf_get_current_pid_tgid() >> 32;
		if (nself && is_self(tgid))
			return false;
	}
	for (i = 0; i < FP_MAX_CGROUPS; i++) {
		if (i >= n)
			break;
		if (bpf_current_task_under_cgroup(&target_cgroup, i) == 1)
			return true;
	}
	return pid_tree_on && bpf_map_lookup_elem(&traced_pids, &tgid);
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
	if (wakeup_bytes &&
	    bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&events, rec, size, flags)) {
		if (st) {
			__sync_fetch_and_add(&st->lost, 1);
			__sync_fetch_and_add(&st->lost_bytes, size);
		}
		return;
	}
	if (st)
		__sync_fetch_and_add(&st->events, 1);
}

static __always_inline void fill_hdr(struct fp_hdr *h, __u32 type)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid();
	__u64 ugid = bpf_get_current_uid_gid();

	h->type = type;
	h->ts_ns = bpf_ktime_get_ns();
	h->pid = id >> 32;
	h->tid = (__u32)id;
	/* a BTF pointer: a plain load, not a probe-read helper call */
	h->ppid = task->real_parent->tgid;
	h->uid = (__u32)ugid;
	h->gid = ugid >> 32;
	h->_pad = 0;
	h->cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(h->comm, sizeof(h->comm));
}

static __always_inline struct mount *real_mount(struct vfsmount *v)
{
	return (struct mount *)((void *)v -
				bpf_core_field_offset(struct mount, mnt));
}

/*
 * One step up the dentry tree, writing the name of the current dentry.
 * bpf_d_path() is not allowed on tracepoints, so this is d_path() by hand:
 * at the root of a mount, continue from its mountpoint in the parent.
 */
static long walk_step(__u32 i, void *unused)
{
	struct scratch *s = scratch_get();
	struct walk_state *w;
	/* locals: BPF_CORE_READ must start from a kernel type */
	struct dentry *d, *mnt_root, *parent;
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
	parent = BPF_CORE_READ(d, d_parent);
	if (d == mnt_root || d == parent) {
		struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

		if (d != mnt_root || up == mnt) {
			/* above the task's root, or an unlinked/lazy-unmounted tree */
			w->flags |= FP_PATH_BASE_DETACHED;
			return 1;
		}
		w->dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		w->vfsmnt = &up->mnt;
		w->mnt_root = BPF_CORE_READ(&up->mnt, mnt_root);
		return 0;
	}
	pos = w->pos;
	/* length and name pointer in one read: this runs per component */
	if (bpf_core_read(&q, sizeof(q), &d->d_name)) {
		w->flags |= FP_PATH_BASE_TRUNC;
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
		return 1;
	}
	w->pos = pos + n;
	w->dentry = parent;
	return 0;
}

/* Write the names of path p leaf-first at pos; returns bytes written. */
static __always_inline __u32 walk_path(struct scratch *s, struct path *p,
				       __u32 pos, __u32 limit, __u32 *flags)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct walk_state *w = &s->walk;
	struct vfsmount *vfsmnt = BPF_CORE_READ(p, mnt);
	long loops;

	w->dentry = BPF_CORE_READ(p, dentry);
	w->vfsmnt = vfsmnt;
	w->mnt = real_mount(vfsmnt);
	w->mnt_root = BPF_CORE_READ(vfsmnt, mnt_root);
	w->root_dentry = BPF_CORE_READ(task, fs, root.dentry);
	w->root_mnt = BPF_CORE_READ(task, fs, root.mnt);
	w->pos = pos;
	w->limit = limit;
	w->flags = 0;
	loops = bpf_loop(FP_WALK_MAX, walk_step, NULL, 0);
	if (loops == FP_WALK_MAX)
		w->flags |= FP_PATH_BASE_TRUNC;
	*flags |= w->flags;
	return w->pos - pos;
}

static __always_inline struct file *task_fd(struct task_struct *task, int fd)
{
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds;
	struct file *f = NULL;

	if (fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

/*
 * What kind of name a file has. A pseudo file (pipe, socket, anon inode,
 * memfd) has a dentry that is its own parent without being a mount root:
 * no path in any filesystem reaches it, so nothing on disk changes
 * through it. procfs files are told apart so that userspace can keep the
 * name a process gave them (/proc/self/...) rather than /proc/PID/....
 */
static __always_inline __u32 on_procfs(struct path *p)
{
	return BPF_CORE_READ(p, dentry, d_sb, s_magic) == PROC_SUPER_MAGIC ?
		       FP_PATH_PROCFS :
		       0;
}

static __always_inline __u32 file_kind(struct path *p)
{
	struct dentry *d = BPF_CORE_READ(p, dentry);
	__u32 flags = on_procfs(p);

	if (d == BPF_CORE_READ(d, d_parent) &&
	    d != BPF_CORE_READ(p, mnt, mnt_root))
		flags |= FP_PATH_ANON;
	return flags;
}

/*
 * Append one path argument at *pos: the raw user string, then, if it is
 * relative, the directory it is relative to.
 */
static __always_inline void put_path(struct scratch *s, __u32 *pos,
				     struct fp_path *fp, int dirfd,
				     const char *upath)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	char *buf = s->buf;
	__u32 start = *pos;
	long n;
	char c0;

	fp->dirfd = dirfd;
	fp->flags = 0;
	fp->base_len = 0;
	fp->raw_len = 0;
	if (!upath) {
		/* fchmod, fchown, ftruncate: the path of the fd itself */
		struct file *f = task_fd(task, dirfd);
		struct path fpath;

		fp->flags |= FP_PATH_FROM_FD;
		if (!f) {
			fp->flags |= FP_PATH_BASE_UNKNOWN;
			return;
		}
		fpath = BPF_CORE_READ(f, f_path);
		fp->flags |= file_kind(&fpath);
		fp->base_len = walk_path(s, &fpath, start, start + FP_PATH_MAX,
					 &fp->flags);
		*pos = start + fp->base_len;
		return;
	}
	n = bpf_probe_read_user_str(buf + (start & FP_BUF_MASK), FP_PATH_MAX,
				    upath);
	if (n <= 0) {
		fp->flags |= FP_PATH_RAW_FAULT;
		fp->raw_len = 0;
		return;
	}
	if (n >= FP_PATH_MAX)
		fp->flags |= FP_PATH_RAW_TRUNC;
	fp->raw_len = n;
	*pos = start + n;
	c0 = buf[start & FP_BUF_MASK];
	if (c0 == '/' || dirfd == FP_DIRFD_NONE)
		return;

	if (dirfd == AT_FDCWD) {
		struct path pwd = BPF_CORE_READ(task, fs, pwd);

		fp->base_len = walk_path(s, &pwd, *pos, start + FP_PATH_MAX,
					 &fp->flags);
	} else {
		struct file *f = task_fd(task, dirfd);
		struct path fpath;

		if (!f) {
			fp->flags |= FP_PATH_BASE_UNKNOWN;
			return;
		}
		fpath = BPF_CORE_READ(f, f_path);
		fp->base_len = walk_path(s, &fpath, *pos, start + FP_PATH_MAX,
					 &fp->flags);
	}
	*pos += fp->base_len;
}

static __always_inline int sys_enter(__u32 sys, __u64 a0, __u64 a1, __u64 a2,
				     __u64 a3, __u64 a4)
{
	struct pending *p;

	if (!traced())
		return 0;
	p = bpf_task_storage_get(&pending, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!p) {
		struct fp_stats *st = stats_cpu();

		if (st)
			__sync_fetch_and_add(&st->pending_full, 1);
		return 0;
	}
	p->sys = sys;
	p->args[0] = a0;
	p->args[1] = a1;
	p->args[2] = a2;
	p->args[3] = a3;
	p->args[4] = a4;
	p->active = 1;
	return 0;
}

/* One path argument per iteration, so the verifier checks put_path once. */
static long path_step(__u32 i, void *unused)
{
	struct scratch *s = scratch_get();
	struct fp_file *e;
	__u32 k = i;

	if (!s || i > 1)
		return 1;
	/* keep the mask: the compiler knows k < 2, the verifier does not */
	barrier_var(k);
	k &= 1;
	e = (struct fp_file *)s->buf;

	put_path(s, &s->paths.pos, &e->path[k], s->paths.dirfd[k],
		 (const char *)s->paths.upath[k]);
	return 0;
}

/*
 * Could the name of a read-only open have gone through /proc: directly,
 * through /dev/fd, /dev/stdin..., or relative to a directory in /proc?
 * Resolving an open costs about 0.8 us and reads change nothing, so only
 * these reads are resolved, to report them under the file they reached.
 * Opens that can write are always resolved.
 */
static __always_inline bool via_proc(struct task_struct *task, int dirfd,
				     __u64 upath)
{
	char head[6] = {};
	struct path base;

	if (bpf_probe_read_user(head, sizeof(head), (void *)upath))
		return true; /* cannot tell: resolve */
	if (head[0] == '/')
		return (head[1] == 'p' && head[2] == 'r' && head[3] == 'o' &&
			head[4] == 'c' && head[5] == '/') ||
		       (head[1] == 'd' && head[2] == 'e' && head[3] == 'v' &&
			head[4] == '/');
	if (dirfd == AT_FDCWD) {
		/* BTF pointers: plain loads, no helper calls, on every read */
		struct task_struct *t = bpf_get_current_task_btf();

		return t->fs->pwd.dentry->d_sb->s_magic == PROC_SUPER_MAGIC;
	} else {
		struct file *f = task_fd(task, dirfd);

		if (!f)
			return true;
		base = BPF_CORE_READ(f, f_path);
	}
	return on_procfs(&base);
}

/*
 * A name can lead elsewhere (a symlink, /proc/self/fd/N, /proc/PID/root),
 * so a successful open also reports the file behind the fd it returned:
 * fd_install() ran before sys_exit, so fd[ret] is that file unless
 * another thread of the process closed and reused the number since.
 */
static __always_inline void opened_file(struct fp_file *e, struct path_args *pa,
					long ret)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	bool read_only = (e->flags & O_ACCMODE) == 0 &&
			 !(e->flags & (O_CREAT | O_TRUNC));
	struct file *f;

	if (read_only && !via_proc(task, pa->dirfd[0], pa->upath[0]))
		return;
	f = task_fd(task, ret);
	if (!f)
		return;
	/* whether O_CREAT made the file decides "added" vs "changed" later */
	if ((e->flags & O_CREAT) && (BPF_CORE_READ(f, f_mode) & FMODE_CREATED))
		e->created = 1;
	e->npaths = 2;
	pa->dirfd[1] = ret;
	pa->upath[1] = 0;
}

static __always_inline void file_event(struct pending *p, long ret)
{
	struct scratch *s = scratch_get();
	struct path_args *pa;
	struct fp_file *e;
	__u64 *a = p->args;
	__u32 size;

	if (!s)
		return;
	e = (struct fp_file *)s->buf;
	pa = &s->paths;
	fill_hdr(&e->hdr, FP_EV_FILE);
	e->ret = ret;
	e->sys = p->sys;
	e->npaths = 1;
	e->created = 0;
	e->_pad = 0;
	e->flags = 0;
	e->mode = 0;
	e->resolve = 0;
	e->arg[0] = 0;
	e->arg[1] = 0;
	__builtin_memset(&e->path[1], 0, sizeof(e->path[1]));
	pa->dirfd[0] = AT_FDCWD;
	pa->dirfd[1] = AT_FDCWD;

	switch (p->sys) {
	case FP_SYS_OPEN: /* path, flags, mode */
		pa->upath[0] = a[0];
		e->flags = a[1];
		e->mode = a[2];
		break;
	case FP_SYS_CREAT: /* path, mode */
		pa->upath[0] = a[0];
		e->flags = 01 | 0100 | 01000; /* O_WRONLY|O_CREAT|O_TRUNC */
		e->mode = a[1];
		break;
	case FP_SYS_OPENAT: /* dirfd, path, flags, mode */
		pa->dirfd[0] = a[0];
		pa->upath[0] = a[1];
		e->flags = a[2];
		e->mode = a[3];
		break;
	case FP_SYS_OPENAT2: { /* dirfd, path, how, size */
		struct open_how how = {};

		pa->dirfd[0] = a[0];
		pa->upath[0] = a[1];
		bpf_probe_read_user(&how, sizeof(how), (void *)a[2]);
		e->flags = how.flags;
		e->mode = how.mode;
		e->resolve = how.resolve;
		break;
	}
	case FP_SYS_UNLINK: /* path */
		pa->upath[0] = a[0];
		break;
	case FP_SYS_UNLINKAT: /* dirfd, path, flags */
		pa->dirfd[0] = a[0];
		pa->upath[0] = a[1];
		e->flags = a[2];
		break;
	case FP_SYS_RENAME: /* old, new */
		e->npaths = 2;
		pa->upath[0] = a[0];
		pa->upath[1] = a[1];
		break;
	case FP_SYS_RENAMEAT: /* olddirfd, old, newdirfd, new[, flags] */
	case FP_SYS_RENAMEAT2:
		e->npaths = 2;
		pa->dirfd[0] = a[0];
		pa->upath[0] = a[1];
		pa->dirfd[1] = a[2];
		pa->upath[1] = a[3];
		if (p->sys == FP_SYS_RENAMEAT2)
			e->flags = a[4];
		break;
	case FP_SYS_MKDIR: /* path, mode */
	case FP_SYS_CHMOD:
		pa->upath[0] = a[0];
		e->mode = a[1];
		break;
	case FP_SYS_MKDIRAT: /* dirfd, path, mode */
	case FP_SYS_FCHMODAT:
		pa->dirfd[0] = a[0];
		pa->upath[0] = a[1];
		e->mode = a[2];
		break;
	case FP_SYS_FCHMODAT2: /* dirfd, path, mode, flags */
		pa->dirfd[0] = a[0];
		pa->upath[0] = a[1];
		e->mode = a[2];
		e->flags = a[3];
		break;
	case FP_SYS_RMDIR: /* path */
		pa->upath[0] = a[0];
		break;
	case FP_SYS_MKNOD: /* path, mode, dev */
		pa->upath[0] = a[0];
		e->mode = a[1];
		e->arg[0] = a[2];
		break;
	case FP_SYS_MKNODAT: /* dirfd, path, mode, dev */
		pa->dirfd[0] = a[0];
		pa->upath[0] = a[1];
		e->mode = a[2];
		e->arg[0] = a[3];
		break;
	case FP_SYS_SYMLINK: /* target, linkpath */
		e->npaths = 2;
		pa->upath[0] = a[1];
		pa->dirfd[1] = FP_DIRFD_NONE;
		pa->upath[1] = a[0];
		break;
	case FP_SYS_SYMLINKAT: /* target, newdirfd, linkpath */
		e->npaths = 2;
		pa->dirfd[0] = a[1];
		pa->upath[0] = a[2];
		pa->dirfd[1] = FP_DIRFD_NONE;
		pa->upath[1] = a[0];
		break;
	case FP_SYS_LINK: /* old, new */
		e->npaths = 2;
		pa->upath[0] = a[0];
		pa->upath[1] = a[1];
		break;
	case FP_SYS_LINKAT: /* olddirfd, old, newdirfd, new, flags */
		e->npaths = 2;
		pa->dirfd[0] = a[0];
		pa->upath[0] = a[1];
		pa->dirfd[1] = a[2];
		pa->upath[1] = a[3];
		e->flags = a[4];
		break;
	case FP_SYS_FCHMOD: /* fd, mode */
		pa->dirfd[0] = a[0];
		pa->upath[0] = 0;
		e->mode = a[1];
		break;
	case FP_SYS_CHOWN: /* path, uid, gid */
	case FP_SYS_LCHOWN:
		pa->upath[0] = a[0];
		e->arg[0] = a[1];
		e->arg[1] = a[2];
		break;
	case FP_SYS_FCHOWN: /* fd, uid, gid */
		pa->dirfd[0] = a[0];
		pa->upath[0] = 0;
		e->arg[0] = a[1];
		e->arg[1] = a[2];
		break;
	case FP_SYS_FCHOWNAT: /* dirfd, path, uid, gid, flags */
		pa->dirfd[0] = a[0];
		pa->upath[0] = a[1];
		e->arg[0] = a[2];
		e->arg[1] = a[3];
		e->flags = a[4];
		break;
	case FP_SYS_TRUNCATE: /* path, length */
		pa->upath[0] = a[0];
		e->arg[0] = a[1];
		break;
	case FP_SYS_FTRUNCATE: /* fd, length */
		pa->dirfd[0] = a[0];
		pa->upath[0] = 0;
		e->arg[0] = a[1];
		break;
	default:
		return;
	}
	if (p->sys <= FP_SYS_CREAT && ret >= 0)
		opened_file(e, pa, ret);
	pa->pos = sizeof(*e);
	bpf_loop(e->npaths, path_step, NULL, 0);
	if (e->npaths == 2 && p->sys <= FP_SYS_CREAT)
		e->path[1].flags |= FP_PATH_OPENED;
	size = pa->pos;
	e->hdr.size = size;
	emit(e, size);
}

/*
 * A unix socket bound by a relative name: where the kernel put its file,
 * walked from the socket's own dentry (not the cwd, which another thread
 * sharing it may have changed since).
 */
static __always_inline void bind_unix_path(struct scratch *s, struct fp_bind *e,
					   struct sock *sk)
{
	struct unix_sock *u = (struct unix_sock *)sk;
	struct path up;

	if (e->ret || e->addr[0] != 1 /* AF_UNIX */ || e->addr[1] ||
	    !e->addr[2] || e->addr[2] == '/')
		return;
	up = BPF_CORE_READ(u, path);
	if (!up.dentry || !up.mnt)
		return;
	e->path_len = walk_path(s, &up, sizeof(*e), sizeof(*e) + FP_PATH_MAX,
				&e->path_flags);
}

static __always_inline void bind_event(struct pending *p, long ret)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct scratch *s = scratch_get();
	char *buf = s ? s->buf : NULL;
	struct fp_bind *e = (struct fp_bind *)buf;
	__u32 len = (__u32)p->args[2];
	struct socket *sock;
	struct file *f;

	if (!buf)
		return;
	fill_hdr(&e->hdr, FP_EV_BIND);
	e->hdr.size = sizeof(*e);
	e->ret = ret;
	e->fd = (int)p->args[0];
	e->addrlen = len;
	e->sock_type = 0;
	e->protocol = 0;
	e->bound_port = 0;
	e->_pad = 0;
	e->path_len = 0;
	e->path_flags = 0;
	__builtin_memset(e->addr, 0, sizeof(e->addr));
	if (len > sizeof(e->addr))
		len = sizeof(e->addr);
	bpf_probe_read_user(e->addr, len, (void *)p->args[1]);

	f = task_fd(task, e->fd);
	if (f) {
		struct sock *sk;

		sock = BPF_CORE_READ(f, private_data);
		sk = BPF_CORE_READ(sock, sk);
		e->sock_type = BPF_CORE_READ(sock, type);
		e->protocol = BPF_CORE_READ(sk, sk_protocol);
		e->bound_port = BPF_CORE_READ(sk, __sk_common.skc_num);
		if (sk)
			bind_unix_path(s, e, sk);
	}
	e->hdr.size = sizeof(*e) + e->path_len;
	emit(e, e->hdr.size);
}

static __always_inline int sys_exit(long ret)
{
	struct pending *p = bpf_task_storage_get(
		&pending, bpf_get_current_task_btf(), 0, 0);

	if (!p || !p->active)
		return 0;
	p->active = 0;
	if (p->sys == FP_SYS_BIND)
		bind_event(p, ret);
	else
		file_event(p, ret);
	return 0;
}

/* syscall number -> native and compat enum fp_sys, filled before attach */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_NR_SYSCALLS);
	__type(key, __u32);
	__type(value, __u32);
} sys_table SEC(".maps");

#define TS_COMPAT 0x0002
#define PTRACE_TRACEME 0

static __always_inline bool in_compat_syscall(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	if (!bpf_core_field_exists(task->thread_info.status))
		return false;
	return BPF_CORE_READ(task, thread_info.status) & TS_COMPAT;
}

static __always_inline __u32 sys_entry(long id)
{
	__u32 key, *v;

	if (id < 0 || id >= FP_NR_SYSCALLS)
		return 0;
	key = id;
	v = bpf_map_lookup_elem(&sys_table, &key);
	return v ? *v : 0;
}

static __always_inline void emit_tamper(__u32 kind, __s32 sig, __u32 target,
					__s64 arg)
{
	struct fp_tamper e = {};

	fill_hdr(&e.hdr, FP_EV_TAMPER);
	e.hdr.size = sizeof(e);
	e.kind = kind;
	e.sig = sig;
	e.target_pid = target;
	e.arg = arg;
	emit(&e, sizeof(e));
}

extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

/* The process a ptrace request names: it may name any of its threads. */
static __always_inline __u32 tgid_of(__s32 pid)
{
	struct task_struct *t;
	__u32 tgid;

	if (pid <= 0)
		return 0;
	t = bpf_task_from_pid(pid);
	if (!t)
		return 0;
	tgid = t->tgid;
	bpf_task_release(t);
	return tgid;
}

/*
 * A traced process reaching for the tracer: bpf() of any kind (it can
 * detach or overwrite footprint's programs and maps), and ptrace of the
 * tracer's processes. Reported at entry, so a call that detaches the
 * programs is still seen, and only while the tracer has named itself.
 */
static __always_inline int tamper_enter(__u32 sys, __u64 a0, __u64 a1)
{
	__u32 target;

	if (!nself || !traced())
		return 0;
	if (sys == FP_SYS_BPF) {
		emit_tamper(FP_TAMPER_BPF, 0, 0, (__s64)a0);
		return 0;
	}
	if (a0 == PTRACE_TRACEME)
		return 0;
	target = tgid_of((__s32)a1);
	if (target && is_self(target))
		emit_tamper(FP_TAMPER_PTRACE, 0, target, (__s64)a0);
	return 0;
}

/* A 32-bit caller's arguments: x86 passes them in bx, cx, ... */
static __always_inline __u64 compat_arg(struct pt_regs *regs, int n)
{
#if defined(__TARGET_ARCH_x86)
	return n == 0 ? BPF_CORE_READ(regs, bx) : BPF_CORE_READ(regs, cx);
#else
	return n == 0 ? PT_REGS_PARM1_CORE_SYSCALL(regs) :
			PT_REGS_PARM2_CORE_SYSCALL(regs);
#endif
}

static __always_inline int compat_enter(struct pt_regs *regs, __u32 csys)
{
	struct fp_stats *st;

	if (!csys)
		return 0;
	if (csys == FP_SYS_BPF || csys == FP_SYS_PTRACE)
		return tamper_enter(csys, compat_arg(regs, 0),
				    compat_arg(regs, 1));
	if (csys >= FP_SYS_BPF || !traced())
		return 0;
	st = stats_cpu();
	if (st)
		__sync_fetch_and_add(&st->compat, 1);
	return 0;
}

/*
 * One program for every syscall entry: a table lookup turns away the
 * syscalls footprint does not trace before anything else is done. One
 * attachment instead of one per syscall also makes start and stop fast.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(handle_sys_enter, struct pt_regs *regs, long id)
{
	__u32 v = sys_entry(id), sys;

	if (!v)
		return 0;
	/* the number may belong to the 32-bit table */
	if (in_compat_syscall())
		return compat_enter(regs, FP_SYS_COMPAT(v));
	sys = FP_SYS_NATIVE(v);
	if (!sys)
		return 0;
	if (sys == FP_SYS_HEARTBEAT) {
		if (heartbeat_tgid &&
		    bpf_get_current_pid_tgid() >> 32 == heartbeat_tgid)
			heartbeat_bump(FP_HB_SYS_ENTER);
		return 0;
	}
	if (sys == FP_SYS_BPF || sys == FP_SYS_PTRACE)
		return tamper_enter(sys, PT_REGS_PARM1_CORE_SYSCALL(regs),
				    PT_REGS_PARM2_CORE_SYSCALL(regs));
	return sys_enter(sys, PT_REGS_PARM1_CORE_SYSCALL(regs),
			 PT_REGS_PARM2_CORE_SYSCALL(regs),
			 PT_REGS_PARM3_CORE_SYSCALL(regs),
			 PT_REGS_PARM4_CORE_SYSCALL(regs),
			 PT_REGS_PARM5_CORE_SYSCALL(regs));
}

SEC("tp_btf/sys_exit")
int BPF_PROG(handle_sys_exit, struct pt_regs *regs, long ret)
{
	/* the hash lookup in sys_exit is the cost: only for traced syscalls */
#if defined(__TARGET_ARCH_arm64)
	long id = BPF_CORE_READ((struct user_pt_regs *)regs, syscallno);
#else
	long id = BPF_CORE_READ(regs, orig_ax);
#endif
	__u32 sys = FP_SYS_NATIVE(sys_entry(id));

	if (!sys)
		return 0;
	if (sys >= FP_SYS_BPF) {
		if (sys == FP_SYS_HEARTBEAT && heartbeat_tgid &&
		    bpf_get_current_pid_tgid() >> 32 == heartbeat_tgid)
			heartbeat_bump(FP_HB_SYS_EXIT);
		return 0;
	}
	return sys_exit(ret);
}

struct argv_ctx {
	__u64 start;
	__u32 total;
	__u32 hdr_pid;
};

static long argv_step(__u32 i, struct argv_ctx *c)
{
	char *buf = scratch_buf();
	struct fp_argv *e = (struct fp_argv *)buf;
	__u32 off = i * FP_ARGV_CHUNK;
	__u32 len;

	if (!buf || off >= c->total)
		return 1;
	len = c->total - off;
	if (len > FP_ARGV_CHUNK)
		len = FP_ARGV_CHUNK;
	barrier_var(len);
	len &= 2 * FP_ARGV_CHUNK - 1;
	fill_hdr(&e->hdr, FP_EV_ARGV);
	e->seq = i;
	e->offset = off;
	e->len = len;
	e->_pad = 0;
	if (bpf_probe_read_user(e->data, len, (void *)(c->start + off)))
		e->len = 0;
	e->hdr.size = sizeof(*e) + e->len;
	emit(e, sizeof(*e) + (e->len & (FP_ARGV_CHUNK * 2 - 1)));
	return 0;
}

/* compared with bpf_strncmp(), which wants a read-only map value */
const char github_action[] = "GITHUB_ACTION=";
#define GITHUB_ACTION_LEN (sizeof(github_action) - 1)

/*
 * One environment variable, or FP_ENV_CHUNK bytes of a longer one, per
 * iteration: a string read tells where the next variable starts, and only
 * a variable's start is compared.
 */
static long env_step(__u32 i, void *unused)
{
	struct scratch *s = scratch_get();
	struct env_state *st;
	__u32 size, step;
	long n;

	if (!s)
		return 1;
	st = &s->env;
	if (st->addr >= st->end)
		return 1;
	size = st->end - st->addr < FP_ENV_CHUNK ? st->end - st->addr :
						   FP_ENV_CHUNK;
	n = bpf_probe_read_user_str(s->envbuf, size, (void *)st->addr);
	if (n <= 0)
		return 1;
	if (!st->mid && n > GITHUB_ACTION_LEN &&
	    !bpf_strncmp(s->envbuf, GITHUB_ACTION_LEN, github_action)) {
		st->found = st->addr + GITHUB_ACTION_LEN;
		return 1;
	}
	/* n == size: no NUL within the chunk, or exactly at its end */
	step = n == size ? n - 1 : n;
	st->mid = n == size;
	if (!step)
		return 1;
	st->addr += step;
	return 0;
}

/*
 * A step's first process is a child of the step parent (the CI runner's
 * worker); its new environment names the step. The image is fresh, so its
 * environment pages are present. Returns the bytes written at pos.
 */
static __always_inline __u32 step_name(struct scratch *s, struct task_struct *p,
				       __u32 pos)
{
	struct env_state *st = &s->env;
	__u64 start = BPF_CORE_READ(p, mm, env_start);
	__u64 end = BPF_CORE_READ(p, mm, env_end);
	long n;

	if (end <= start)
		return 0;
	if (end - start > FP_ENV_MAX)
		end = start + FP_ENV_MAX;
	st->addr = start;
	st->end = end;
	st->found = 0;
	st->mid = 0;
	bpf_loop(FP_ENV_MAX, env_step, NULL, 0);
	if (!st->found)
		return 0;
	n = bpf_probe_read_user_str(s->buf + (pos & FP_BUF_MASK),
				    FP_STEP_NAME_MAX, (void *)st->found);
	return n > 0 ? n : 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct scratch *s;
	char *buf;
	struct fp_exec *e;
	struct argv_ctx ac = {};
	struct path exe_path;
	__u64 arg_start, arg_end, shown;
	__u32 pos;
	long n;

	if (!traced())
		return 0;
	s = scratch_get();
	if (!s)
		return 0;
	buf = s->buf;
	e = (struct fp_exec *)buf;
	fill_hdr(&e->hdr, FP_EV_EXEC);
	e->old_pid = old_pid;
	e->exe_flags = 0;
	e->step_len = 0;
	e->_pad = 0;
	pos = sizeof(*e);

	exe_path = BPF_CORE_READ(bprm, file, f_path);
	e->exe_len =
		walk_path(s, &exe_path, pos, pos + FP_PATH_MAX, &e->exe_flags);
	pos += e->exe_len;
	n = bpf_probe_read_kernel_str(buf + (pos & FP_BUF_MASK), FP_PATH_MAX,
				      BPF_CORE_READ(bprm, filename));
	e->filename_len = n > 0 ? n : 0;
	pos += e->filename_len;
	if (step_parent && e->hdr.ppid == step_parent) {
		e->step_len = step_name(s, p, pos);
		pos += e->step_len;
	}

	arg_start = BPF_CORE_READ(p, mm, arg_start);
	arg_end = BPF_CORE_READ(p, mm, arg_end);
	e->argv_len = arg_end > arg_start ? arg_end - arg_start : 0;
	shown = e->argv_len;
	if (shown > max_argv_bytes)
		shown = max_argv_bytes;
	if (shown > FP_ARGV_CHUNK * FP_ARGV_MAX_CHUNKS)
		shown = FP_ARGV_CHUNK * FP_ARGV_MAX_CHUNKS;
	e->argv_chunks = (shown + FP_ARGV_CHUNK - 1) / FP_ARGV_CHUNK;
	e->hdr.size = pos;
	emit(e, pos);

	ac.start = arg_start;
	ac.total = shown;
	bpf_loop(FP_ARGV_MAX_CHUNKS, argv_step, &ac, 0);
	return 0;
}

/*
 * A child is in a traced tree when the process that forked it is: the
 * forker, not the parent, so that CLONE_PARENT does not step out of the
 * tree. The tracer's own processes never add theirs. A full table is
 * counted as lost, so the trace is not called complete.
 */
static __always_inline void inherit_tree(__u32 parent, __u32 child)
{
	__u32 *root;
	struct fp_stats *st;

	if (!pid_tree_on || is_self(parent))
		return;
	root = bpf_map_lookup_elem(&traced_pids, &parent);
	if (!root)
		return;
	if (!bpf_map_update_elem(&traced_pids, &child, root, BPF_ANY))
		return;
	st = stats_cpu();
	if (st)
		__sync_fetch_and_add(&st->scope_full, 1);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_fork, struct task_struct *parent, struct task_struct *child)
{
	struct fp_fork e = {};
	__u32 child_pid = BPF_CORE_READ(child, pid);
	__u32 child_tgid = BPF_CORE_READ(child, tgid);
	__u32 forker = bpf_get_current_pid_tgid() >> 32;

	if (heartbeat_tgid && forker == heartbeat_tgid)
		heartbeat_bump(FP_HB_FORK);
	/* a new thread is not a new process */
	if (child_pid != child_tgid)
		return 0;
	/* before the child can run: it is not runnable until this returns */
	inherit_tree(forker, child_tgid);
	if (!traced())
		return 0;
	fill_hdr(&e.hdr, FP_EV_FORK);
	e.hdr.size = sizeof(e);
	e.parent_tid = e.hdr.tid;
	e.hdr.ppid = e.hdr.pid;
	e.hdr.pid = child_tgid;
	e.hdr.tid = child_pid;
	emit(&e, sizeof(e));
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit, struct task_struct *p)
{
	struct signal_struct *sig = BPF_CORE_READ(p, signal);
	struct fp_exit e = {};
	__u32 tgid;

	if (heartbeat_tgid && p->real_parent->tgid == heartbeat_tgid)
		heartbeat_bump(FP_HB_EXIT);
	/* only the last thread of the group reports the process exit */
	if (BPF_CORE_READ(sig, live.counter) != 0)
		return 0;
	tgid = BPF_CORE_READ(p, tgid);
	if (traced()) {
		fill_hdr(&e.hdr, FP_EV_EXIT);
		e.hdr.size = sizeof(e);
		if (BPF_CORE_READ(sig, flags) & SIGNAL_GROUP_EXIT)
			e.status = BPF_CORE_READ(sig, group_exit_code);
		else
			e.status = BPF_CORE_READ(p, exit_code);
		e.start_ns = BPF_CORE_READ(p, group_leader, start_time);
		emit(&e, sizeof(e));
	}
	/* the pid may be reused by a process outside the tree */
	if (pid_tree_on)
		bpf_map_delete_elem(&traced_pids, &tgid);
	return 0;
}

/*
 * Every signal, whatever the path (kill, tgkill, sigqueue, pidfd, a
 * process group, SIGIO). One sent by a traced process to the tracer is
 * tamper evidence. One sent by a child of the tracer is its heartbeat.
 */
SEC("tp_btf/signal_generate")
int BPF_PROG(handle_signal, int sig, struct kernel_siginfo *info,
	     struct task_struct *task, int group, int result)
{
	__u32 target;

	if (!nself && !heartbeat_tgid)
		return 0;
	target = task->tgid;
	if (heartbeat_tgid &&
	    bpf_get_current_task_btf()->real_parent->tgid == heartbeat_tgid)
		heartbeat_bump(FP_HB_SIGNAL);
	if (!nself || !is_self(target) || !traced())
		return 0;
	emit_tamper(FP_TAMPER_SIGNAL, sig, target, result);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
