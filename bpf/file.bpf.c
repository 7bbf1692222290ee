// SPDX-License-Identifier: GPL-2.0
/*
 * Files: the file syscalls of the traced tasks, read at their exit, with
 * their path arguments resolved in the kernel.
 *
 * The program here is the only one on the raw sys_exit tracepoint (one
 * attachment, not one per syscall, keeps start and stop fast): a table
 * turns away every syscall footprint does not trace, and the few that
 * are not file syscalls go to their family, bind to net.bpf.c, bpf() and
 * ptrace() to process.bpf.c. File syscalls, nearly all of the traffic,
 * stay inline.
 */
#include "common.bpf.h"
#include "path.bpf.h"
#include "scope.bpf.h"
#include "collapse.bpf.h"
#include "walk_cache.bpf.h"

#define O_ACCMODE 03
#define O_CREAT 0100
#define O_TRUNC 01000
#define FMODE_CREATED 0x100000

/* five arguments, then the generation of the syscall's own rmdir */
#define FP_EXIT_ARGS 8
#define FP_ARG_OWN_GEN 5
/* then the bytes of the name fp_open_again() already read */
#define FP_ARG_NAME_READ 6
/* and a 0, for the arguments a syscall does not have (struct file_args) */
#define FP_ARG_ZERO 7

/*
 * Append one path argument at *pos: the raw user string (already there
 * if known, its length with the NUL), then, if it is relative, the
 * directory it is relative to.
 */
static __always_inline void put_path(struct scratch *s, __u32 *pos,
				     struct fp_path *fp, int dirfd,
				     const char *upath, __u32 fd_leader,
				     __u64 known)
{
	char *buf = s->buf;
	__u32 start = *pos, limit = start + FP_PATH_MAX, n0, flags = 0;
	struct task_struct *task;
	long n;
	char c0;

	fp->dirfd = dirfd;
	fp->flags = 0;
	fp->base_len = 0;
	fp->raw_len = 0;
	if (!upath) {
		/*
		 * The file an open returned, fchmod's, fchown's, ftruncate's:
		 * the path of the fd itself
		 */
		struct fd_info *fi = &s->fdinfo;
		struct path fpath;

		fp->flags |= FP_PATH_FROM_FD;
		/* opened_file() read it already for an open's own fd */
		if ((!fi->file || fi->fd != dirfd || fi->leader != fd_leader ||
		     fi->dir_only) &&
		    fp_fd_info(dirfd, fd_leader, 0)) {
			fp->flags |= FP_PATH_BASE_UNKNOWN;
			return;
		}
		fpath = fi->path;
		fp->flags |= fi->kind;
		/* one helper call for the task, for the key and the cache */
		task = bpf_get_current_task_btf();
		n0 = file_name_key(s, task, fi, start, limit);
		if (n0) {
			n0 += cached_walk(s, task, &s->trim.base, &s->trim.key,
					  start + n0, limit, &flags,
					  FP_WC_FILE);
			/*
			 * one step more than the directory's walk: the same
			 * bytes unless that one ran to the steps' limit
			 */
			if (s->trim.steps + 3 > FP_WALK_MAX)
				n0 = 0;
		}
		if (!n0) {
			flags = 0;
			n0 = walk_path(s, &fpath, start, limit, &flags);
		}
		fp->flags |= flags;
		fp->base_len = n0;
		*pos = start + n0;
		return;
	}
	n = known ? (long)known :
		    bpf_probe_read_user_str(buf + (start & FP_BUF_MASK),
					    FP_PATH_MAX, upath);
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

	/* one helper call for the task, for the key and the cache */
	task = bpf_get_current_task_btf();
	if (dirfd == AT_FDCWD) {
		dir_key_cwd(&s->trim, task->fs);
	} else if (fp_dir_key(dirfd)) {
		fp->flags |= FP_PATH_BASE_UNKNOWN;
		return;
	}
	fp->base_len = cached_walk(s, task, &s->trim.base, &s->trim.key, *pos,
				   start + FP_PATH_MAX, &fp->flags,
				   dirfd == AT_FDCWD ? FP_WC_CWD : FP_WC_DIRFD);
	*pos += fp->base_len;
}

/*
 * Path argument k of the record in the scratch buffer: a global function,
 * so that the verifier checks put_path() once, not at each call.
 */
__noinline int fp_put_path(__u32 k)
{
	struct scratch *s = scratch_get();
	struct fp_file *e;

	if (!s || k > 1)
		return 0;
	/* keep the mask: the compiler knows k < 2, the verifier does not */
	barrier_var(k);
	k &= 1;
	e = (struct fp_file *)s->buf;
	/* fp_open_again() read path[0]'s name where it goes */
	put_path(s, &s->paths.pos, &e->path[k], s->paths.dirfd[k],
		 (const char *)s->paths.upath[k], k && s->paths.fd_leader,
		 !k && s->paths.pos == sizeof(*e) ? s->paths.name_read : 0);
	return 0;
}

/* Is the component [start, start + len) of buf the string lit? */
static __always_inline bool comp_is(const char *buf, __u32 start, __u32 len,
				    const char *lit, __u32 litlen)
{
	__u32 k;

	if (len != litlen)
		return false;
		/* a constant bound, for clang 14 to unroll */
#pragma unroll
	for (k = 0; k < 12; k++)
		if (k < litlen && buf[(start + k) & FP_BUF_MASK] != lit[k])
			return false;
	return true;
}

/*
 * /proc/PID/fd/N names the process's own file only when PID is the
 * caller's tgid as that /proc counts it: taken so only when the caller
 * is in the initial pid namespace, where the numbers are the kernel's.
 */
static __always_inline bool own_tgid(__u64 num)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(task, thread_pid, level) == 0 &&
	       num == bpf_get_current_pid_tgid() >> 32;
}

/* One component of /proc/{self,thread-self,TGID}/fd/N, just ended. */
static __always_inline void fdlink_comp(struct fdlink_state *st,
					const char *buf, __u32 end)
{
	__u32 start = st->start, len = end - start;
	char c0 = buf[start & FP_BUF_MASK];
	bool digits = st->ndig == len && len <= 10;

	if (len == 0 || (len == 1 && c0 == '.'))
		return;
	switch (st->ncomp) {
	case 0:
		st->fail |= !comp_is(buf, start, len, "proc", 4);
		break;
	case 1:
		if (comp_is(buf, start, len, "self", 4) ||
		    (digits && own_tgid(st->num)))
			st->leader = 1;
		else
			st->fail |=
				!comp_is(buf, start, len, "thread-self", 11);
		break;
	case 2:
		st->fail |= !comp_is(buf, start, len, "fd", 2);
		break;
	case 3:
		st->fail |= !digits || st->num > 0x7fffffff;
		st->fd = st->num;
		break;
	default: /* fd/N/..: the kernel goes on from the file, not /proc */
		st->fail = 1;
	}
	st->ncomp++;
}

static long fdlink_step(__u32 i, void *unused)
{
	struct scratch *s = scratch_get();
	struct fdlink_state *st;
	const char *buf;
	char c;

	if (!s)
		return 1;
	st = &s->fdlink;
	buf = s->buf + sizeof(struct fp_file);
	if (i >= st->len || st->fail)
		return 1;
	c = buf[i & FP_BUF_MASK];
	if (c == '/' || c == '\0') {
		fdlink_comp(st, buf, i);
		st->start = i + 1;
		st->ndig = 0;
		st->num = 0;
		st->done = c == '\0';
		return st->done;
	}
	if (c >= '0' && c <= '9' && st->ndig == i - st->start &&
	    st->ndig < 11) {
		st->num = st->num * 10 + (c - '0');
		st->ndig++;
	}
	return 0;
}

/*
 * Does a syscall that follows a final magic link name one of the caller's
 * own fds: /proc/self/fd/N, /proc/thread-self/fd/N, /proc/TGID/fd/N with
 * its own TGID, absolute, with nothing after N but "/" or "."? Then it
 * changes that fd's file, which the kernel side can name (glibc's lchmod
 * and fchmodat(AT_SYMLINK_NOFOLLOW) chmod /proc/self/fd/N of an O_PATH
 * fd). Any other name through a magic link stays unresolved.
 */
static __always_inline void fd_link(struct scratch *s, struct fp_file *e,
				    struct path_args *pa)
{
	struct fdlink_state *st = &s->fdlink;
	const char *raw = s->buf + sizeof(*e);

	if (e->path[0].flags & (FP_PATH_RAW_TRUNC | FP_PATH_RAW_FAULT) ||
	    e->path[0].raw_len < 2 || raw[0] != '/')
		return;
	__builtin_memset(st, 0, sizeof(*st));
	st->len = e->path[0].raw_len;
	bpf_loop(FP_PATH_MAX, fdlink_step, NULL, 0);
	if (st->fail || !st->done || st->ncomp != 4)
		return;
	e->npaths = 2;
	pa->dirfd[1] = st->fd;
	pa->upath[1] = 0;
	pa->fd_leader = st->leader;
	fp_put_path(1);
	e->path[1].flags |= FP_PATH_FD_LINK;
}

#define AT_SYMLINK_NOFOLLOW 0x100

/* Does the syscall act on what a final symlink or magic link points to? */
static __always_inline bool follows_link(__u32 sys, __u64 flags)
{
	switch (sys) {
	case FP_SYS_CHMOD:
	case FP_SYS_FCHMODAT:
	case FP_SYS_CHOWN:
	case FP_SYS_TRUNCATE:
		return true;
	case FP_SYS_FCHMODAT2:
	case FP_SYS_FCHOWNAT:
		return !(flags & AT_SYMLINK_NOFOLLOW);
	}
	return false;
}

/* Why a read-only open is resolved (via_proc) */
#define FP_VIA_NONE 0
#define FP_VIA_PROC 1
#define FP_VIA_DEV 2

/*
 * Could the name of a read-only open have gone through /proc: directly,
 * through /dev/fd, /dev/stdin..., or relative to a directory in /proc?
 * Resolving an open costs about 0.8 us and reads change nothing, so only
 * these reads are resolved, to report them under the file they reached.
 * Opens that can write are always resolved.
 */
static __always_inline int via_proc(struct scratch *s, struct fp_file *e)
{
	/* the name as passed, already copied by fp_put_path() */
	const char *raw = s->buf + sizeof(*e);
	__u32 n = e->path[0].raw_len;

	if (e->path[0].flags & (FP_PATH_RAW_FAULT | FP_PATH_BASE_UNKNOWN))
		return FP_VIA_PROC; /* cannot tell: resolve */
	if (n > 1 && raw[0] == '/') {
		if (n > 6 && raw[1] == 'p' && raw[2] == 'r' && raw[3] == 'o' &&
		    raw[4] == 'c' && raw[5] == '/')
			return FP_VIA_PROC;
		if (n > 5 && raw[1] == 'd' && raw[2] == 'e' && raw[3] == 'v' &&
		    raw[4] == '/')
			return FP_VIA_DEV;
		return FP_VIA_NONE;
	}
	/* relative: fp_put_path() keyed its directory (fp_dir_key) last */
	return s->trim.proc ? FP_VIA_PROC : FP_VIA_NONE;
}

#define S_IFCHR 0020000

/*
 * A name can lead elsewhere (a symlink, /proc/self/fd/N, /proc/PID/root),
 * so a successful open also reports the file behind the fd it returned:
 * fd_install() ran before sys_exit, so fd[ret] is that file unless
 * another thread of the process closed and reused the number since.
 */
static __always_inline bool opened_file(struct scratch *s, struct fp_file *e,
					struct path_args *pa, long ret)
{
	bool read_only = (e->flags & O_ACCMODE) == 0 &&
			 !(e->flags & (O_CREAT | O_TRUNC));
	int via = read_only ? via_proc(s, e) : FP_VIA_PROC;
	struct fd_info *fi = &s->fdinfo;

	if (via == FP_VIA_NONE || fp_fd_info(ret, 0, 0))
		return false;
	/*
	 * A name under /dev/ that reached a character device: /dev/urandom,
	 * /dev/null, a tty through /dev/stdin. No secret is one, and the
	 * name is a device's whichever link led to it, so it is kept as
	 * given: git reads /dev/urandom once for each object it writes, and
	 * each walk of it replaced the cached walk of the object's directory.
	 */
	if (via == FP_VIA_DEV && (fi->i_mode & S_IFMT) == S_IFCHR)
		return false;
	/* whether O_CREAT made the file decides "added" vs "changed" later */
	if ((e->flags & O_CREAT) && (fi->f_mode & FMODE_CREATED))
		e->created = 1;
	e->npaths = 2;
	pa->dirfd[1] = ret;
	pa->upath[1] = 0;
	return true;
}

/*
 * An open whose fd is a secret by device and inode: the file behind the
 * fd is named (path[1]) and marked, whatever name the caller's memory
 * holds now (another thread may have rewritten it since the kernel read
 * it) and whichever link or mount reached it. open_by_handle_at's path[0]
 * is that file already.
 */
static __always_inline void
secret_opened(struct fp_file *e, struct path_args *pa, __u32 sys, long ret)
{
	int cls = fp_fd_secret(ret);

	if (!cls)
		return;
	e->arg[0] = cls;
	if (sys == FP_SYS_OPEN_BY_HANDLE_AT) {
		e->path[0].flags |= FP_PATH_SECRET_ID;
		return;
	}
	if (e->npaths == 1) {
		e->npaths = 2;
		pa->dirfd[1] = ret;
		pa->upath[1] = 0;
		pa->fd_leader = 0;
		fp_put_path(1);
	}
	e->path[1].flags |= FP_PATH_SECRET_ID;
}

/*
 * Where a file syscall's arguments are, by enum fp_sys: the dirfd (d0)
 * and the path (p0) of path[0], those of path[1] (d1, p1: two paths if
 * p1 is given), the flags, the mode, arg[0] and arg[1]. An is saved
 * argument n, NO none: a dirfd then is AT_FDCWD, a path the file of the
 * dirfd itself, anything else 0 (slot FP_ARG_ZERO, which (NO - 1) & 7
 * reaches without a branch).
 */
#define NO 0
#define A0 1
#define A1 2
#define A2 3
#define A3 4
#define A4 5

/* What the argument columns do not say */
#define FA_FILE 0x01 /* an FP_EV_FILE syscall: the others have no entry */
#define FA_NAME_READ 0x02 /* fp_open_again() may have read path[0] */
#define FA_OWN_GEN 0x04 /* it may be an rmdir: its own path_gen bump */
#define FA_TARGET 0x08 /* path[1] is a symlink's target: no directory */
#define FA_CREAT 0x10 /* creat(): flags are O_WRONLY|O_CREAT|O_TRUNC */
#define FA_HOW 0x20 /* openat2(): flags, mode, resolve in A2's open_how */
#define FA_RET_FD 0x40 /* open_by_handle_at(): path[0] is the fd returned */

struct file_args {
	__u8 dirfd, path; /* path[0] */
	__u8 dirfd2, path2; /* path[1] */
	__u8 flags, mode, arg0, arg1;
	__u8 how; /* FA_* */
};

/* clang-format off */
#define FA(sys, sp, d0, p0, d1, p1, fl, md, a0, a1) \
	[FP_SYS_##sys] = { .dirfd = d0, .path = p0, .dirfd2 = d1, .path2 = p1, \
			   .flags = fl, .mode = md, .arg0 = a0, .arg1 = a1, \
			   .how = FA_FILE | (sp) }

static const struct file_args file_args[FP_SYS_MAX] = {
	/* syscall            special       d0  p0  d1  p1  fl  md  a0  a1 */
	FA(OPEN,              FA_NAME_READ, NO, A0, NO, NO, A1, A2, NO, NO),
	FA(CREAT,             FA_CREAT,     NO, A0, NO, NO, NO, A1, NO, NO),
	FA(OPENAT,            FA_NAME_READ, A0, A1, NO, NO, A2, A3, NO, NO),
	FA(OPENAT2,           FA_HOW,       A0, A1, NO, NO, NO, NO, NO, NO),
	FA(OPEN_BY_HANDLE_AT, FA_RET_FD,    NO, NO, NO, NO, A2, NO, NO, NO),
	FA(UNLINK,            0,            NO, A0, NO, NO, NO, NO, NO, NO),
	FA(UNLINKAT,          FA_OWN_GEN,   A0, A1, NO, NO, A2, NO, NO, NO),
	FA(RENAME,            0,            NO, A0, NO, A1, NO, NO, NO, NO),
	FA(RENAMEAT,          0,            A0, A1, A2, A3, NO, NO, NO, NO),
	FA(RENAMEAT2,         0,            A0, A1, A2, A3, A4, NO, NO, NO),
	FA(MKDIR,             0,            NO, A0, NO, NO, NO, A1, NO, NO),
	FA(MKDIRAT,           0,            A0, A1, NO, NO, NO, A2, NO, NO),
	FA(RMDIR,             FA_OWN_GEN,   NO, A0, NO, NO, NO, NO, NO, NO),
	FA(MKNOD,             0,            NO, A0, NO, NO, NO, A1, A2, NO),
	FA(MKNODAT,           0,            A0, A1, NO, NO, NO, A2, A3, NO),
	FA(SYMLINK,           FA_TARGET,    NO, A1, NO, A0, NO, NO, NO, NO),
	FA(SYMLINKAT,         FA_TARGET,    A1, A2, NO, A0, NO, NO, NO, NO),
	FA(LINK,              0,            NO, A0, NO, A1, NO, NO, NO, NO),
	FA(LINKAT,            0,            A0, A1, A2, A3, A4, NO, NO, NO),
	FA(CHMOD,             0,            NO, A0, NO, NO, NO, A1, NO, NO),
	FA(FCHMOD,            0,            A0, NO, NO, NO, NO, A1, NO, NO),
	FA(FCHMODAT,          0,            A0, A1, NO, NO, NO, A2, NO, NO),
	FA(FCHMODAT2,         0,            A0, A1, NO, NO, A3, A2, NO, NO),
	FA(CHOWN,             0,            NO, A0, NO, NO, NO, NO, A1, A2),
	FA(LCHOWN,            0,            NO, A0, NO, NO, NO, NO, A1, A2),
	FA(FCHOWN,            0,            A0, NO, NO, NO, NO, NO, A1, A2),
	FA(FCHOWNAT,          0,            A0, A1, NO, NO, A4, NO, A2, A3),
	FA(TRUNCATE,          0,            NO, A0, NO, NO, NO, NO, A1, NO),
	FA(FTRUNCATE,         0,            A0, NO, NO, NO, NO, NO, A1, NO),
};
/* clang-format on */
#undef FA
#undef NO
#undef A0
#undef A1
#undef A2
#undef A3
#undef A4

/* The table's entry of sys; the check and the index in one register */
static __always_inline const struct file_args *file_args_of(__u32 sys)
{
	__u64 i = sys;

	barrier_var(i);
	if (i >= FP_SYS_MAX)
		return NULL;
	barrier_var(i);
	return &file_args[i];
}

/* Saved argument i of struct file_args: 0 (none) reads FP_ARG_ZERO */
static __always_inline __u64 slot(const __u64 *a, __u8 i)
{
	return a[(i - 1) & (FP_EXIT_ARGS - 1)];
}

static __always_inline int dirfd_of(const __u64 *a, __u8 i)
{
	return i ? (int)slot(a, i) : AT_FDCWD;
}

/*
 * The arguments of file syscall sys into the record e and the path
 * arguments pa, as the table says.
 */
static __always_inline void copy_args(struct fp_file *e, struct path_args *pa,
				      const struct file_args *t, const __u64 *a,
				      long ret)
{
	pa->dirfd[0] = dirfd_of(a, t->dirfd);
	pa->upath[0] = slot(a, t->path);
	e->flags = slot(a, t->flags);
	e->mode = slot(a, t->mode);
	e->arg[0] = slot(a, t->arg0);
	e->arg[1] = slot(a, t->arg1);
	if (t->path2) {
		e->npaths = 2;
		pa->dirfd[1] = t->how & FA_TARGET ? FP_DIRFD_NONE :
						    dirfd_of(a, t->dirfd2);
		pa->upath[1] = slot(a, t->path2);
	}
	if (t->how & FA_NAME_READ)
		pa->name_read = a[FP_ARG_NAME_READ];
	if (t->how & FA_OWN_GEN)
		pa->own_gen = a[FP_ARG_OWN_GEN];
	if (t->how & FA_CREAT)
		e->flags = 01 | 0100 | 01000; /* O_WRONLY|O_CREAT|O_TRUNC */
	if (t->how & FA_RET_FD)
		pa->dirfd[0] = ret;
	if (t->how & FA_HOW) {
		struct open_how how = {};

		bpf_probe_read_user(&how, sizeof(how), (void *)a[2]);
		e->flags = how.flags;
		e->mode = how.mode;
		e->resolve = how.resolve;
	}
}

static __always_inline void file_event(__u32 sys, const __u64 *a, long ret)
{
	struct scratch *s = scratch_get();
	const struct file_args *t;
	struct task_struct *task;
	struct path_args *pa;
	struct fp_file *e;
	__u32 size;

	t = file_args_of(sys);
	if (!s || !t || !(t->how & FA_FILE) ||
	    ((t->how & FA_RET_FD) && ret < 0))
		return;
	e = (struct fp_file *)s->buf;
	pa = &s->paths;
	/* fill_hdr_untimed() without fp_cur_hdr()'s call: this is verified once */
	task = bpf_get_current_task_btf();
	e->hdr.type = FP_EV_FILE;
	e->hdr.ts_ns = 0;
	hdr_who(&e->hdr, task);
	e->ret = ret;
	e->sys = sys;
	e->npaths = 1;
	e->created = 0;
	e->count = 1;
	e->resolve = 0;
	__builtin_memset(&e->path[1], 0, sizeof(e->path[1]));
	pa->dirfd[1] = AT_FDCWD;
	pa->own_gen = 0;
	pa->name_read = 0;
	s->fdinfo.file = NULL;
	copy_args(e, pa, t, a, ret);

	pa->pos = sizeof(*e);
	pa->fd_leader = 0;
	fp_put_path(0);
	if (e->npaths == 2)
		fp_put_path(1);
	/* the file an open returned, after its name: see opened_file() */
	else if (fp_sys_is_name_open(sys) && ret >= 0 &&
		 opened_file(s, e, pa, ret))
		fp_put_path(1);
	if (ret >= 0 && follows_link(sys, e->flags))
		fd_link(s, e, pa);
	if (ret >= 0 && secret_ids_on && fp_sys_is_open(sys))
		secret_opened(e, pa, sys, ret);
	if (e->npaths == 2 && fp_sys_is_name_open(sys))
		e->path[1].flags |= FP_PATH_OPENED;
	size = pa->pos;
	e->hdr.size = size;
	/*
	 * fp_held_take() holds the record or flushes the task's held one
	 * first: neither, so not its call either, when the record cannot be
	 * held and the task holds none
	 */
	if (!((holdable(e, sys, ret) || held_owned(task->pid)) &&
	      fp_held_take(sys, ret, size))) {
		e->hdr.ts_ns = bpf_ktime_get_ns();
		emit(e, size);
	}
}

/*
 * The arguments of the syscall being handled, for fp_file_exit: a global
 * function takes at most five plain arguments, and one verified on its
 * own (not in every state of the dispatch) keeps loading fast.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[FP_EXIT_ARGS]);
} exit_args SEC(".maps");

/*
 * Where sys_exit() keeps them from the start: an array on its stack would
 * be part of every call chain's (512 bytes in all). Per CPU, as the rest
 * of the working space: a second run of a program on one CPU while one is
 * under way is not run, and counted (lost_recursion).
 */
static __always_inline __u64 *exit_args_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&exit_args, &zero);
}

__noinline int fp_file_exit(__u32 sys, long ret)
{
	__u32 zero = 0;
	__u64 *a = bpf_map_lookup_elem(&exit_args, &zero);

	if (a) {
		a[FP_ARG_ZERO] = 0;
		file_event(sys, a, ret);
	}
	return 0;
}

/* the network syscalls, to net.bpf.c with their arguments as numbers */
static __always_inline void net_exit(__u32 sys, long ret, __u64 *a)
{
	switch (sys) {
	case FP_SYS_CONNECT:
		fp_connect_exit(ret, a[0], a[1], a[2]);
		break;
	case FP_SYS_SENDTO:
		fp_sendto_exit(ret, a[0], a[1], a[2], a[4]);
		break;
	case FP_SYS_SENDMSG:
		fp_sendmsg_exit(ret, a[0], a[1]);
		break;
	case FP_SYS_ACCEPT:
	case FP_SYS_ACCEPT4:
		fp_accept_exit(ret, a[0]);
		break;
	case FP_SYS_RECVFROM:
	case FP_SYS_READ:
		fp_recv_exit(ret, a[0], a[1], 0);
		break;
	case FP_SYS_RECVMSG:
		fp_recv_exit(ret, a[0], 0, a[1]);
		break;
	case FP_SYS_URING_SETUP:
		fp_uring_setup_exit(ret);
		break;
	case FP_SYS_SENDMMSG:
		fp_sendmmsg_exit(ret, a[0], a[1]);
		break;
	}
}

/* syscall number -> native and compat enum fp_sys, filled before attach */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_NR_SYSCALLS);
	__type(key, __u32);
	__type(value, __u32);
} sys_table SEC(".maps");

static __always_inline bool in_compat_syscall(void)
{
	/* a BTF pointer: a plain load, on every traced syscall */
	return task_in_compat_syscall(bpf_get_current_task_btf());
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

#define AT_REMOVEDIR 0x200

/*
 * Bump the path generation if syscall-table entry v, for this task's
 * syscall ABI, is one that can move a directory. unlinkat moves nothing
 * without AT_REMOVEDIR: its flags are in dx for both ABIs. Returns, for
 * an rmdir, the generation it bumped to (see cached_walk), else 0.
 */
static __always_inline __u64 gen_syscall(struct pt_regs *regs, __u32 v,
					 bool compat)
{
	__u32 sys;
	__u64 gen;

	if (compat ? !FP_GEN_COMPAT(v) : !FP_GEN_NATIVE(v))
		return 0;
	sys = compat ? FP_SYS_COMPAT(v) : FP_SYS_NATIVE(v);
#if defined(__TARGET_ARCH_x86)
	if (sys == FP_SYS_UNLINKAT && !(regs->dx & AT_REMOVEDIR))
		return 0;
#endif
	gen = gen_bump();
	return sys == FP_SYS_RMDIR || sys == FP_SYS_UNLINKAT ? gen : 0;
}

/*
 * The arguments as the caller passed them: the kernel saved its registers
 * in pt_regs at entry and no file syscall writes them back, so at exit
 * they are still there. Plain loads through the BTF pointer, no helpers.
 */
static __always_inline void saved_args(struct pt_regs *regs, __u64 *a)
{
#if defined(__TARGET_ARCH_x86)
	a[0] = regs->di;
	a[1] = regs->si;
	a[2] = regs->dx;
	a[3] = regs->r10;
	a[4] = regs->r8;
#else
	a[0] = PT_REGS_PARM1_CORE_SYSCALL(regs);
	a[1] = PT_REGS_PARM2_CORE_SYSCALL(regs);
	a[2] = PT_REGS_PARM3_CORE_SYSCALL(regs);
	a[3] = PT_REGS_PARM4_CORE_SYSCALL(regs);
	a[4] = PT_REGS_PARM5_CORE_SYSCALL(regs);
#endif
}

/* A 32-bit caller's arguments: x86 passes them in bx, cx, ... */
static __always_inline __u64 compat_arg(struct pt_regs *regs, int n)
{
#if defined(__TARGET_ARCH_x86)
	return n == 0 ? regs->bx : regs->cx;
#else
	return n == 0 ? PT_REGS_PARM1_CORE_SYSCALL(regs) :
			PT_REGS_PARM2_CORE_SYSCALL(regs);
#endif
}

static __always_inline int compat_exit(struct pt_regs *regs, __u32 csys,
				       long ret)
{
	struct fp_stats *st;

	if (!csys)
		return 0;
	if (csys == FP_SYS_BPF || csys == FP_SYS_PTRACE)
		return fp_tamper_enter(csys, compat_arg(regs, 0),
				       compat_arg(regs, 1));
	if (csys == FP_SYS_URING_SETUP)
		return traced() ? fp_uring_setup_exit(ret) : 0;
	/* network calls are decoded (net.bpf.c); reads only for DNS */
	if (fp_sys_is_recv(csys) && !dns_active)
		return 0;
	if (fp_sys_is_net(csys)) {
		if (!traced())
			return 0;
		fp_open_flush();
		return fp_compat_net_exit(csys, ret);
	}
	/* file, cross-process, handle, mount, namespace calls: lost, counted */
	if (!(fp_sys_is_file(csys) || fp_sys_is_ptrace_access(csys) ||
	      fp_sys_is_procop(csys)) ||
	    !traced())
		return 0;
	st = stats_cpu();
	if (st)
		__sync_fetch_and_add(&st->compat, 1);
	return 0;
}

/*
 * A signal or ptrace syscall: a record only when its target is outside
 * the run. Judged at exit, where the target of a SIGKILL may have exited:
 * a zombie is still found, and keeps its cgroup; one already reaped is not
 * (docs/policy.md says so).
 */
static __always_inline int signal_exit(__u32 sys, __u64 *a, long ret)
{
	__u64 target = fp_signal_target(sys, a[0], a[1]), given = a[0],
	      what = a[1];

	if (!target)
		return 0;
	if (sys == FP_SYS_TGKILL) {
		given = a[1];
		what = a[2];
	} else if (sys == FP_SYS_PTRACE) {
		given = a[1];
		what = a[0];
	} else if (fp_sys_is_ptrace_access(sys)) {
		/* pidfd_getfd: the fd taken; process_vm_*: nothing more */
		what = sys == FP_SYS_PIDFD_GETFD ? a[1] : 0;
	}
	fp_open_flush();
	return fp_signal_exit(ret, sys, given, what, target);
}

#define OPEN_TREE_CLONE 1
/* CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME */
#define FP_CLONE_NEW_ANY 0xfe020080ULL

/*
 * A mount or namespace call: which arguments name what (docs/events.md,
 * "mount" and "namespace"). An open_tree() that clones no tree, an
 * unshare() or clone() that makes no namespace, and a clone's child
 * (which returns 0) are not one.
 */
static __always_inline int procop_exit(__u32 sys, __u64 *a, long ret)
{
	__u64 flags = 0, u0 = 0, u1 = 0;

	switch (sys) {
	case FP_SYS_MOUNT: /* source, target, type, flags, data */
		u0 = a[1];
		u1 = a[0];
		flags = a[3];
		break;
	case FP_SYS_UMOUNT2: /* target, flags */
		u0 = a[0];
		flags = a[1];
		break;
	case FP_SYS_OPEN_TREE: /* dfd, path, flags */
		flags = a[2];
		if (!(flags & OPEN_TREE_CLONE))
			return 0;
		u0 = a[1];
		break;
	case FP_SYS_MOVE_MOUNT: /* from_dfd, from, to_dfd, to, flags */
		u0 = a[3];
		flags = a[4];
		break;
	case FP_SYS_FSMOUNT: /* fs_fd, flags, attr_flags */
		flags = a[1];
		break;
	case FP_SYS_MOUNT_SETATTR: /* dfd, path, flags, attr, size */
		u0 = a[1];
		flags = a[2];
		break;
	case FP_SYS_PIVOT_ROOT: /* new_root, put_old */
		u0 = a[0];
		u1 = a[1];
		break;
	case FP_SYS_SETNS: /* fd, nstype: the fd is no name */
		u0 = a[0];
		flags = a[1];
		break;
	case FP_SYS_UNSHARE: /* flags */
	case FP_SYS_CLONE: /* flags, ... */
		flags = a[0];
		break;
	case FP_SYS_CLONE3: /* args, size: flags are its first field */
		if (ret != 0)
			bpf_probe_read_user(&flags, sizeof(flags),
					    (void *)a[0]);
		break;
	default:
		return 0;
	}
	if ((sys == FP_SYS_UNSHARE || sys == FP_SYS_CLONE ||
	     sys == FP_SYS_CLONE3) &&
	    ((ret == 0 && sys != FP_SYS_UNSHARE) ||
	     !(flags & FP_CLONE_NEW_ANY)))
		return 0;
	fp_open_flush();
	return fp_procop_exit(ret, sys, u0, u1, flags);
}

/*
 * A traced syscall of the native ABI: its handler, with the saved args,
 * and the generation its own rmdir bumped path_gen to (0: none).
 */
static __always_inline int sys_exit(struct pt_regs *regs, __u32 sys, long ret,
				    __u64 own_gen, __u64 name_read)
{
	__u64 *a;

	if (sys == FP_SYS_HEARTBEAT) {
		if (heartbeat_tgid &&
		    bpf_get_current_pid_tgid() >> 32 == heartbeat_tgid)
			heartbeat_bump(FP_HB_SYS_EXIT);
		return 0;
	}
	a = exit_args_get();
	if (!a)
		return 0;
	saved_args(regs, a);
	a[FP_ARG_NAME_READ] = name_read;
	/* they check their own scope: the tracer's own tasks matter there */
	if (sys == FP_SYS_BPF || sys == FP_SYS_PTRACE)
		fp_tamper_enter(sys, a[0], a[1]);
	if (sys == FP_SYS_BPF || !traced())
		return 0;
	/* nearly all of the traffic: first */
	if (fp_sys_is_file(sys)) {
		a[FP_ARG_OWN_GEN] = own_gen;
		return fp_file_exit(sys, ret);
	}
	if (sys == FP_SYS_PTRACE || fp_sys_is_signal(sys))
		return signal_exit(sys, a, ret);
	if (fp_sys_is_ptrace_access(sys)) {
		fp_crossproc_tamper(sys, a[0]);
		return signal_exit(sys, a, ret);
	}
	if (fp_sys_is_procop(sys))
		return procop_exit(sys, a, ret);
	if (sys == FP_SYS_BIND) {
		/* a held open of this task goes out first */
		fp_open_flush();
		return fp_bind_exit(ret, a[0], a[1], a[2]);
	}
	if (fp_sys_is_net(sys)) {
		/*
		 * A held open of this task goes out first. sendto() and
		 * sendmsg() flush it themselves once their flow cache missed:
		 * a call only counted emits nothing, and a flood skips the
		 * lookup.
		 */
		if (sys != FP_SYS_SENDTO && sys != FP_SYS_SENDMSG)
			fp_open_flush();
		net_exit(sys, ret, a);
	}
	return 0;
}

/*
 * fp_open_again() for an open (sys FP_SYS_OPEN) or openat of the native
 * ABI, its arguments read from regs as saved_args() reads them.
 */
static __always_inline long open_again(struct pt_regs *regs, __u32 sys,
				       long ret)
{
	__u64 a0, a1, a2, a3;

#if defined(__TARGET_ARCH_x86)
	a0 = regs->di;
	a1 = regs->si;
	a2 = regs->dx;
	a3 = regs->r10;
#else
	a0 = PT_REGS_PARM1_CORE_SYSCALL(regs);
	a1 = PT_REGS_PARM2_CORE_SYSCALL(regs);
	a2 = PT_REGS_PARM3_CORE_SYSCALL(regs);
	a3 = PT_REGS_PARM4_CORE_SYSCALL(regs);
#endif
	if (sys == FP_SYS_OPEN)
		return fp_open_again(ret, (__u32)AT_FDCWD | (__u64)sys << 32,
				     a0, a1, a2);
	return fp_open_again(ret, (__u32)a0 | (__u64)sys << 32, a1, a2, a3);
}

/* Exec and exit (process.bpf.c): the task's held open goes out first. */
__noinline int fp_open_flush(void)
{
	held_flush((__u32)bpf_get_current_pid_tgid());
	return 0;
}

/*
 * The one raw syscall program: a table lookup turns away the syscalls
 * footprint does not trace before anything else is done. There is no
 * sys_enter program: the number and the arguments are still in the
 * saved pt_regs here, and every program on the raw tracepoints runs for
 * every syscall of every process on the machine. One attachment instead
 * of one per syscall keeps start and stop fast.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(handle_sys_exit, struct pt_regs *regs, long ret)
{
#if defined(__TARGET_ARCH_arm64)
	long id = BPF_CORE_READ((struct user_pt_regs *)regs, syscallno);
#else
	long id = regs->orig_ax;
#endif
	__u32 v = sys_entry(id), sys;
	__u64 own_gen = 0;
	long again = 0;
	bool compat;

	if (!v)
		return 0;
	/*
	 * read() is the most frequent syscall there is, and matters only for
	 * DNS answers: most runs never pay for it, not even the task's load
	 * of the compat test, when its 32-bit meaning is none or a read too
	 */
	if (fp_sys_is_recv(FP_SYS_NATIVE(v)) && !dns_active &&
	    !(v & (FP_SYS_GEN | FP_SYS_GEN << 16)) &&
	    (!FP_SYS_COMPAT(v) || fp_sys_is_recv(FP_SYS_COMPAT(v))))
		return 0;
		/*
	 * A flood's call that only counts, told first: before the scope
	 * test, and before the compat test, which fp_sendto_again() makes
	 * with the task pointer it reads anyway (a 32-bit call is never a
	 * hit). Unless the number's 32-bit meaning bumps the generation. fd
	 * and dest as saved_args() reads them, not through an array, as
	 * this frame is part of every call chain's stack (512 bytes in all)
	 */
#if defined(__TARGET_ARCH_x86)
	if (FP_SYS_NATIVE(v) == FP_SYS_SENDTO && !FP_GEN_COMPAT(v) &&
	    fp_sendto_again(ret, regs->di, regs->r8))
		return 0;
#else
	if (FP_SYS_NATIVE(v) == FP_SYS_SENDTO && !FP_GEN_COMPAT(v) &&
	    fp_sendto_again(ret, PT_REGS_PARM1_CORE_SYSCALL(regs),
			    PT_REGS_PARM5_CORE_SYSCALL(regs)))
		return 0;
#endif
	/*
	 * A repeat of the held open only counts: told before building, and
	 * before the scope test and the compat test (fp_open_again() says
	 * why that holds). Unless the number's 32-bit meaning bumps the
	 * generation. The arguments as saved_args() reads them.
	 */
	sys = FP_SYS_NATIVE(v);
	if ((sys == FP_SYS_OPEN || sys == FP_SYS_OPENAT) && !FP_GEN_COMPAT(v) &&
	    ret >= 0 && !every_open) {
		again = open_again(regs, sys, ret);
		if (again > 0)
			return 0;
	}
	/* the number may belong to the 32-bit table */
	compat = in_compat_syscall();
	if (v & (FP_SYS_GEN | FP_SYS_GEN << 16))
		own_gen = gen_syscall(regs, v, compat);
	if (compat)
		return compat_exit(regs, FP_SYS_COMPAT(v), ret);
	sys = FP_SYS_NATIVE(v);
	if (!sys)
		return 0;
	/* reads matter only for DNS answers: most runs never pay for them */
	if (fp_sys_is_recv(sys) && !dns_active)
		return 0;
	return sys_exit(regs, sys, ret, own_gen, -again);
}

/*
 * A path of an io_uring request (uring.bpf.c), as put_path() makes a
 * syscall's: into the struct fp_path at s->buf + at, its bytes from off.
 * With known > 0 the name is already at off (known bytes, its NUL
 * included, copied from the kernel's own copy) and relative to dirfd;
 * with known 0 it is the file fp_file_info() read, dirfd its number.
 * Returns the offset after what was written.
 */
__noinline int fp_put_path_at(__u32 at, __u32 off, __s32 dirfd, __u32 known)
{
	struct scratch *s = scratch_get();
	__u32 pos = off;

	/* a record's struct fp_path lies in its first few hundred bytes */
	if (!s || at > 1023 - sizeof(struct fp_path) || off > FP_BUF_MASK ||
	    known > FP_PATH_MAX)
		return off;
	/* the check on the value used, not on a copy the compiler made */
	barrier_var(at);
	at &= 1023;
	barrier_var(off);
	pos = off & FP_BUF_MASK;
	put_path(s, &pos, (struct fp_path *)(s->buf + at), dirfd,
		 known ? (const char *)1 : NULL, 0, known);
	return pos;
}
