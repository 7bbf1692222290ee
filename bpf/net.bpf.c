// SPDX-License-Identifier: GPL-2.0
/*
 * Network: bind(2) of the traced tasks. The syscall is picked and its
 * arguments kept by the syscall programs of file.bpf.c, which call
 * fp_bind_exit() when it returns.
 */
#include "common.bpf.h"
#include "path.bpf.h"

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

/*
 * A global function, so the verifier checks it once on its own: the
 * arguments are plain numbers, as saved at entry.
 */
__noinline int fp_bind_exit(long ret, __u64 fd, __u64 uaddr, __u64 addrlen)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct scratch *s = scratch_get();
	char *buf = s ? s->buf : NULL;
	struct fp_bind *e = (struct fp_bind *)buf;
	/* 64-bit, so the value clamped is the one the helper is given */
	__u64 len = (__u32)addrlen;
	struct socket *sock;
	struct file *f;

	if (!buf)
		return 0;
	fill_hdr(&e->hdr, FP_EV_BIND);
	e->hdr.size = sizeof(*e);
	e->ret = ret;
	e->fd = (int)fd;
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
	bpf_probe_read_user(e->addr, len, (void *)uaddr);

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
	return 0;
}
