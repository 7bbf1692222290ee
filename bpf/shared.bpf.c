// SPDX-License-Identifier: GPL-2.0
/*
 * The one definition of what the other objects share (common.bpf.h,
 * scope.bpf.h): they declare it extern and `bpftool gen object` links
 * them to these, and the global functions of common.bpf.h. No programs
 * here.
 */
#define FP_DEFINE_SHARED
#include "common.bpf.h"
#include "path.bpf.h"
#include "scope.bpf.h"
#include "flowcache.bpf.h"
#include "route.bpf.h"

/*
 * The current task's struct file at fd (0 if none). The fd array holds
 * pointers the verifier does not type. With bpf_rdonly_cast its slot is
 * read as a struct kiocb, whose ki_filp is a struct file * at the slot's
 * own address (CO-RE gives the offset, 0 on every kernel so far): a plain
 * load instead of a probe-read call.
 */
static __always_inline __u64 task_fd_file(struct task_struct *task, int fd)
{
	struct fdtable *fdt = untrusted(task)->files->fdt;
	struct file **fds;
	struct file *f = NULL;
	struct kiocb *slot;

	if (fd < 0 || fd >= fdt->max_fds)
		return 0;
	fds = fdt->fd;
	if (has_rdonly_cast) {
		slot = bpf_rdonly_cast(
			(void *)&fds[fd] -
				bpf_core_field_offset(struct kiocb, ki_filp),
			bpf_core_type_id_kernel(struct kiocb));
		return (__u64)slot->ki_filp;
	}
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return (__u64)f;
}

static __always_inline __u64 fd_file(int fd)
{
	return task_fd_file(bpf_get_current_task_btf(), fd);
}

/* fd_file() for the other objects: through *fp, as a global function
 * returns a scalar only */
__noinline int fp_cur_fd(int fd, __u64 *fp)
{
	if (fp)
		*fp = fd_file(fd);
	return 0;
}

/*
 * What tells two opens of the current task's fd apart: its file's inode
 * and mount, into *id. -1 if fd is not open. Typed loads with
 * bpf_rdonly_cast; else one probe read where both fields lie within 64
 * bytes of each other (CO-RE gives their offsets), two where they do not.
 */
__noinline int fp_fd_identity(int fd, struct fp_file_id *id)
{
	__u32 oi = bpf_core_field_offset(struct file, f_inode),
	      om = bpf_core_field_offset(struct file, f_path.mnt),
	      od = bpf_core_field_offset(struct file, f_path.dentry),
	      lo = oi < om ? oi : om;
	struct file *f = (struct file *)fd_file(fd);
	__u64 span[8];

	if (!id || !f)
		return -1;
	if (has_rdonly_cast) {
		f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		id->inode = (__u64)f->f_inode;
		id->mnt = (__u64)f->f_path.mnt;
		id->dentry = (__u64)f->f_path.dentry;
		return 0;
	}
	lo = od < lo ? od : lo;
	if (oi - lo > 56 || om - lo > 56 || od - lo > 56) {
		id->inode = (__u64)BPF_CORE_READ(f, f_inode);
		id->mnt = (__u64)BPF_CORE_READ(f, f_path.mnt);
		id->dentry = (__u64)BPF_CORE_READ(f, f_path.dentry);
		return 0;
	}
	if (bpf_probe_read_kernel(span, sizeof(span), (void *)f + lo))
		return -1;
	id->inode = span[((oi - lo) / 8) & 7];
	id->mnt = span[((om - lo) / 8) & 7];
	id->dentry = span[((od - lo) / 8) & 7];
	return 0;
}

/*
 * What keying a directory by its fd needs (fp_dir_key): its path, its
 * dentry's inode and whether it is on procfs; four probe reads before
 * 6.2, not the fifteen of the whole.
 */
static __always_inline void fd_info_dir(struct fd_info *fi, struct file *f)
{
	struct dentry *d;
	struct inode *inode;
	__u64 magic;

	if (has_rdonly_cast) {
		f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		d = f->f_path.dentry;
		fi->path.mnt = f->f_path.mnt;
		inode = d->d_inode;
		fi->ino = inode->i_ino;
		magic = d->d_sb->s_magic;
	} else {
		bpf_core_read(&fi->path, sizeof(fi->path), &f->f_path);
		d = fi->path.dentry;
		inode = BPF_CORE_READ(d, d_inode);
		fi->ino = BPF_CORE_READ(inode, i_ino);
		magic = BPF_CORE_READ(d, d_sb, s_magic);
	}
	fi->path.dentry = d;
	fi->inode = inode;
	fi->kind = magic == PROC_SUPER_MAGIC ? FP_PATH_PROCFS : 0;
}

/*
 * The fields of f, its dentry, mount and parent that naming the file
 * needs: the directory's, then the rest. Typed loads with
 * bpf_rdonly_cast, each a probe read call before 6.2: some fifteen of
 * those were a third of an fchmod's record. A fault reads 0, as a probe
 * read that fails leaves 0.
 */
static __always_inline void fd_info_fill(struct fd_info *fi, struct file *f,
					 int dir_only)
{
	struct dentry *d, *parent;
	struct vfsmount *mnt;
	struct inode *pi;

	fd_info_dir(fi, f);
	if (dir_only)
		return;
	d = fi->path.dentry;
	mnt = fi->path.mnt;
	if (has_rdonly_cast) {
		f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		fi->f_mode = f->f_mode;
		fi->i_mode = f->f_inode->i_mode;
		mnt = bpf_rdonly_cast(mnt,
				      bpf_core_type_id_kernel(struct vfsmount));
		fi->mnt_root = mnt->mnt_root;
		d = bpf_rdonly_cast(d, bpf_core_type_id_kernel(struct dentry));
		parent = d->d_parent;
		pi = parent->d_inode;
		fi->parent_ino = pi->i_ino;
		fi->name = d->d_name.name;
		fi->name_len = d->d_name.len;
	} else {
		fi->f_mode = BPF_CORE_READ(f, f_mode);
		fi->i_mode = BPF_CORE_READ(f, f_inode, i_mode);
		fi->mnt_root = BPF_CORE_READ(mnt, mnt_root);
		parent = BPF_CORE_READ(d, d_parent);
		pi = BPF_CORE_READ(parent, d_inode);
		fi->parent_ino = BPF_CORE_READ(pi, i_ino);
		fi->name = BPF_CORE_READ(d, d_name.name);
		fi->name_len = BPF_CORE_READ(d, d_name.len);
	}
	fi->parent = parent;
	fi->parent_inode = pi;
	/*
	 * A pseudo file's dentry (pipe, socket, anon inode, memfd) is its own
	 * parent without being a mount root: no path reaches it, and nothing
	 * on disk changes through it. procfs files are told apart so that
	 * userspace keeps the name a process gave them (/proc/self/...)
	 * rather than /proc/PID/...
	 */
	if (parent == fi->path.dentry && parent != fi->mnt_root)
		fi->kind |= FP_PATH_ANON;
}

__noinline int fp_fd_info(int fd, int leader, int dir_only)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct scratch *s = scratch_get();
	struct fd_info *fi;
	struct file *f;

	if (!s)
		return -1;
	fi = &s->fdinfo;
	if (leader)
		task = untrusted(task)->group_leader;
	f = (struct file *)task_fd_file(task, fd);
	fi->file = f;
	fi->fd = fd;
	fi->leader = leader;
	fi->dir_only = dir_only;
	if (!f)
		return -1;
	fd_info_fill(fi, f, dir_only);
	return 0;
}

/*
 * The socket f is, into *r (r->sk 0 if f is not a socket). With
 * bpf_rdonly_cast the struct file and the socket are typed pointers, so
 * their fields are plain loads (a fault reads 0); without it each is a
 * probe-read helper call, some 30 ns.
 */
static __always_inline void sock_ref(struct file *f, struct fp_sock_ref *r)
{
	struct socket *sock;
	struct inode *inode;
	struct sock *sk;
	__u16 type;

	r->sk = 0;
	r->file = (__u64)f;
	r->ino = 0;
	r->kind = 0;
	r->_pad = 0;
	if (!f)
		return;
	if (has_rdonly_cast) {
		f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		inode = f->f_inode;
		if ((inode->i_mode & S_IFMT) != S_IFSOCK)
			return;
		sock = bpf_rdonly_cast(f->private_data,
				       bpf_core_type_id_kernel(struct socket));
		sk = sock->sk;
		r->sk = (__u64)sk;
		r->ino = inode->i_ino;
		r->kind = (__u32)sock->type << 16 | (sk ? sk->sk_protocol : 0);
		return;
	}
	inode = BPF_CORE_READ(f, f_inode);
	if ((BPF_CORE_READ(inode, i_mode) & S_IFMT) != S_IFSOCK)
		return;
	sock = BPF_CORE_READ(f, private_data);
	type = BPF_CORE_READ(sock, type);
	sk = BPF_CORE_READ(sock, sk);
	r->sk = (__u64)sk;
	r->ino = BPF_CORE_READ(inode, i_ino);
	r->kind = (__u32)type << 16 | (sk ? BPF_CORE_READ(sk, sk_protocol) : 0);
}

/* The socket behind the current task's fd (sock_ref()). */
__noinline int fp_fd_sock(int fd, struct fp_sock_ref *r)
{
	if (r)
		sock_ref((struct file *)fd_file(fd), r);
	return 0;
}

/* The number of f's inode: two loads, or two probe reads before 6.2. */
static __always_inline __u64 file_ino(struct file *f)
{
	if (has_rdonly_cast) {
		f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		return f->f_inode->i_ino;
	}
	return BPF_CORE_READ(f, f_inode, i_ino);
}

/*
 * A sendto() or sendmsg() naming a destination (uaddr) that is one more
 * call of its thread's cached flow (bpf/flowcache.bpf.h): counted here,
 * and 1. The destination compared is the one the kernel routed in this
 * call (the slot's note, which this takes), never the caller's memory,
 * which another thread may have rewritten since the kernel copied it.
 * The socket must be the one the flow was cached with: the same struct
 * file at the fd, and the same inode number. Both are reused after a
 * close (a file at once, on a new socket of any kind), but a socket's
 * inode number, from the kernel's get_next_ino(), comes back only after
 * 2^32 more such inodes: no two live sockets share one.
 *
 * For a sendto() handle_sys_exit() asks this before its scope test,
 * which costs as much again on every call of a flood: a slot is only
 * ever taken by a traced thread (flow_cache_set() runs after the test),
 * and a hit is a call of that thread's own process (the tgid is
 * compared), so a hit is a traced call, unless the tracer has since named
 * the process its own (tested here). 0 for any other call, the
 * untraced included, and any 32-bit call (its number is another
 * table's). Here, not in net.bpf.c, for the typed reads: one task
 * pointer serves the whole test.
 */
__noinline int fp_sendto_again(long ret, __u64 fd, __u64 uaddr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fp_flow_cache *c;
	struct file *f;

	if (!uaddr || task_in_compat_syscall(task))
		return 0;
	c = flow_cache_get(task, ret);
	/* a process the tracer named its own since (a daemon it forked) */
	if (!c || (nself && is_self(task->tgid)))
		return 0;
	f = (struct file *)task_fd_file(task, (int)fd);
	if (!f || (__u64)f != c->file || file_ino(f) != c->ino)
		return 0;
	c->note.len = 0;
	c->pending++;
	return 1;
}

/*
 * The class of the secret the current task's file at fd is, by its
 * inode's device and number (the secret_ids map), or 0: a secret reached
 * under any other name (a hard link, a bind mount) is still one. The
 * device is the superblock's, as stat() gives it on a disk file system.
 */
__noinline int fp_fd_secret(int fd)
{
	struct file *f = (struct file *)fd_file(fd);
	struct fp_secret_id k;
	struct inode *inode;
	__u32 *cls, bit;

	if (!f)
		return 0;
	if (has_rdonly_cast) {
		f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		inode = f->f_inode;
		k.ino = inode->i_ino;
	} else {
		inode = BPF_CORE_READ(f, f_inode);
		k.ino = BPF_CORE_READ(inode, i_ino);
	}
	/*
	 * Nearly every open stops here: the device's load and the hash
	 * lookup were ~80 ns of each open that makes a record (bpf_stats)
	 */
	bit = FP_SECRET_INO_BIT(k.ino);
	if (!(secret_ino_bits[bit / 64] & (1ULL << (bit % 64))))
		return 0;
	if (has_rdonly_cast)
		k.dev = inode->i_sb->s_dev;
	else
		k.dev = BPF_CORE_READ(inode, i_sb, s_dev);
	cls = bpf_map_lookup_elem(&secret_ids, &k);
	return cls ? *cls : 0;
}

__noinline __u32 fp_cur_ppid(void)
{
	return untrusted(bpf_get_current_task_btf())->real_parent->tgid;
}

/*
 * The header's fields that say who: what the pid_tgid, uid_gid, cgroup_id
 * and comm helpers return, read by plain loads. Four helper calls cost
 * ~50 ns of an event's ~800 here. The uid and gid are the kernel's global
 * ids, as from_kuid(&init_user_ns) gives them; the cgroup is the v2 one;
 * comm is NUL-padded by set_task_comm(), so its two words are the
 * helper's sixteen bytes.
 */
__noinline int fp_cur_hdr(struct fp_hdr *h)
{
	if (h)
		hdr_who(h, bpf_get_current_task_btf());
	return 0;
}

/*
 * fp_fd_info() for a file known by its pointer, not by an fd of the
 * current task: what an io_uring request opened into its ring's table of
 * direct descriptors (uring.bpf.c). fd is the number put_path() will be
 * given for it.
 */
__noinline int fp_file_info(__u64 file, int fd)
{
	struct scratch *s = scratch_get();
	struct fd_info *fi;

	if (!s)
		return -1;
	fi = &s->fdinfo;
	fi->file = (struct file *)file;
	fi->fd = fd;
	fi->leader = 0;
	fi->dir_only = 0;
	if (!file)
		return -1;
	fd_info_fill(fi, (struct file *)file, 0);
	return 0;
}

const volatile __u64 max_argv_bytes = 1 << 20;
const volatile __u64 wakeup_bytes = 1 << 20;

char LICENSE[] SEC("license") = "GPL";
