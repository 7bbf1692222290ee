// SPDX-License-Identifier: GPL-2.0
/*
 * Network: bind(2) of the traced tasks. The syscall is picked and its
 * arguments kept by the syscall programs of file.bpf.c, which call
 * fp_bind_exit() when it returns.
 */
#include "common.bpf.h"

/*
 * A global function, so the verifier checks it once on its own: the
 * arguments are plain numbers, as saved at entry.
 */
__noinline int fp_bind_exit(long ret, __u64 fd, __u64 uaddr, __u64 addrlen)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	char *buf = scratch_buf();
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
	}
	emit(e, sizeof(*e));
	return 0;
}
