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

/*
 * The current task's struct file at fd, into *fp (0 if none). The fd
 * array holds pointers the verifier does not type. With bpf_rdonly_cast
 * its slot is read as a struct kiocb, whose ki_filp is a struct file *
 * at the slot's own address (CO-RE gives the offset, 0 on every kernel
 * so far): a plain load instead of a probe-read call. Through *fp, as a
 * global function returns a scalar only.
 */
__noinline int fp_cur_fd(int fd, __u64 *fp)
{
	struct fdtable *fdt = bpf_get_current_task_btf()->files->fdt;
	struct file **fds;
	struct file *f = NULL;
	struct kiocb *slot;

	if (!fp)
		return 0;
	*fp = 0;
	if (fd < 0 || fd >= fdt->max_fds)
		return 0;
	fds = fdt->fd;
	if (has_rdonly_cast) {
		slot = bpf_rdonly_cast(
			(void *)&fds[fd] -
				bpf_core_field_offset(struct kiocb, ki_filp),
			bpf_core_type_id_kernel(struct kiocb));
		*fp = (__u64)slot->ki_filp;
		return 0;
	}
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	*fp = (__u64)f;
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
	      lo = oi < om ? oi : om;
	struct file *f = cur_fd(fd);
	__u64 span[8];

	if (!id || !f)
		return -1;
	if (has_rdonly_cast) {
		f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		id->inode = (__u64)f->f_inode;
		id->mnt = (__u64)f->f_path.mnt;
		return 0;
	}
	if (oi - lo > 56 || om - lo > 56) {
		id->inode = (__u64)BPF_CORE_READ(f, f_inode);
		id->mnt = (__u64)BPF_CORE_READ(f, f_path.mnt);
		return 0;
	}
	if (bpf_probe_read_kernel(span, sizeof(span), (void *)f + lo))
		return -1;
	id->inode = span[((oi - lo) / 8) & 7];
	id->mnt = span[((om - lo) / 8) & 7];
	return 0;
}

/*
 * The socket behind the current task's fd: its type << 16 | protocol,
 * and its struct sock in *skp (0 if fd is not a socket). On a sendto()
 * flood this runs on every call. With bpf_rdonly_cast the struct file
 * and the socket are typed pointers, so their fields are plain loads (a
 * fault reads 0); without it each is a probe-read helper call, some 30 ns.
 * The struct sock goes out through *skp: a global function returns a
 * scalar only.
 */
__noinline __u32 fp_fd_sock(int fd, __u64 *skp)
{
	struct file *f = cur_fd(fd);
	struct socket *sock;
	struct inode *inode;
	struct sock *sk;
	__u16 type;

	if (!skp)
		return 0;
	*skp = 0;
	if (!f)
		return 0;
	if (has_rdonly_cast) {
		f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		if ((f->f_inode->i_mode & S_IFMT) != S_IFSOCK)
			return 0;
		sock = bpf_rdonly_cast(f->private_data,
				       bpf_core_type_id_kernel(struct socket));
		sk = sock->sk;
		*skp = (__u64)sk;
		return (__u32)sock->type << 16 | (sk ? sk->sk_protocol : 0);
	}
	inode = BPF_CORE_READ(f, f_inode);
	if ((BPF_CORE_READ(inode, i_mode) & S_IFMT) != S_IFSOCK)
		return 0;
	sock = BPF_CORE_READ(f, private_data);
	type = BPF_CORE_READ(sock, type);
	sk = BPF_CORE_READ(sock, sk);
	*skp = (__u64)sk;
	return (__u32)type << 16 | (sk ? BPF_CORE_READ(sk, sk_protocol) : 0);
}

__noinline __u32 fp_cur_ppid(void)
{
	return bpf_get_current_task_btf()->real_parent->tgid;
}

const volatile __u64 max_argv_bytes = 1 << 20;
const volatile __u64 wakeup_bytes = 1 << 20;

char LICENSE[] SEC("license") = "GPL";
