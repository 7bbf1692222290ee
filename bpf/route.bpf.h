/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel did with the run's sends and connects, for net.bpf.c to
 * judge them by: the destination it routed in the task's current syscall
 * (the task's note, struct fp_route in flowcache.bpf.h, written by
 * route.bpf.c's fib programs) and, for a TCP connect, where its socket
 * connects to and how the attempt ended (conn_waits, written by
 * route.bpf.c's sock:inet_sock_set_state program). Neither is the
 * caller's memory, which another thread may rewrite while the call runs.
 */
#ifndef FP_ROUTE_BPF_H
#define FP_ROUTE_BPF_H

#include "common.bpf.h"
#include "flowcache.bpf.h"

#define FP_CONN_WAITS 8192
/* struct conn_wait.flags */
#define CW_EXITED 1 /* the connect's exit ran */
#define CW_WAIT 2 /* it returned EINPROGRESS: its outcome is reported */
#define CW_DONE 4 /* the attempt ended: outcome is set */

#define ECONNABORTED 103

/*
 * A TCP connect of a traced task, from its SYN_SENT (in the task's own
 * connect) until its connect's exit and its outcome have both been seen.
 */
struct conn_wait {
	struct fp_hdr hdr; /* the connecting task's, at SYN_SENT */
	__u8 addr[28]; /* where the socket connects to, as a sockaddr */
	__u16 addrlen;
	__u16 _pad;
	__u32 _pad2;
	__s32 outcome; /* 0 established, or -errno */
	__u64 flags; /* CW_*; 64-bit, for the atomics clang's BPF target has */
};

/*
 * By struct sock address. Not preallocated: an entry deleted by the
 * other side of the handshake stays readable until the program ends.
 */
FP_SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, FP_CONN_WAITS);
	__type(key, __u64);
	__type(value, struct conn_wait);
} conn_waits SEC(".maps");

/*
 * Where the current task keeps its note of a route: its flow cache slot
 * if it holds one, else its task storage (created if create).
 */
static __always_inline struct fp_route *route_note(struct task_struct *task,
						   bool create)
{
	struct fp_flow_cache *c = flow_slot(task->pid);

	if (c && c->tid == task->pid)
		return &c->note;
	return bpf_task_storage_get(
		&routes, task, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* The current task's note of the route its syscall took, taken. */
static __always_inline bool route_take(struct fp_route *out)
{
	struct fp_route *r = route_note(bpf_get_current_task_btf(), false);

	if (!r || !r->len)
		return false;
	__builtin_memcpy(out, r, sizeof(*out));
	r->len = 0;
	return true;
}

/* The peer of a connected or accepted socket, as a sockaddr, into addr. */
static __always_inline __u16 sock_peer(__u8 *addr, const struct sock *sk)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);
	__be16 port = BPF_CORE_READ(sk, __sk_common.skc_dport);

	*(__u16 *)addr = family;
	if (family == 2 /* AF_INET */) {
		__be32 a = BPF_CORE_READ(sk, __sk_common.skc_daddr);

		__builtin_memcpy(addr + 2, &port, 2);
		__builtin_memcpy(addr + 4, &a, 4);
		return 16;
	}
	if (family == 10 /* AF_INET6 */) {
		struct in6_addr a6;

		/* into a struct: _INTO reads sizeof(*dst) bytes */
		BPF_CORE_READ_INTO(&a6, sk, __sk_common.skc_v6_daddr);
		__builtin_memcpy(addr + 2, &port, 2);
		__builtin_memcpy(addr + 8, &a6, sizeof(a6));
		return 28;
	}
	return 2;
}

/*
 * A sockaddr_in6 of ::ffff:a.b.c.d (addr, 4-aligned, len bytes) as the
 * kernel routes it: the sockaddr_in of a.b.c.d, the form its route note
 * has. Its new length.
 */
static __always_inline __u16 v4_unmap(__u8 *addr, __u16 len)
{
	__u32 *w = (__u32 *)addr;

	/* w[4] holds bytes 16-19: 0, 0, 0xff, 0xff (little-endian load) */
	if (len != 28 || addr[0] != 10 || addr[1] || w[2] || w[3] ||
	    w[4] != 0xffff0000)
		return len;
	w[1] = w[5];
	w[2] = 0;
	w[3] = 0;
	w[4] = 0;
	w[5] = 0;
	w[6] = 0;
	addr[0] = 2;
	return 16;
}

/*
 * Count how a non-blocking connect ended, as a flow of its own
 * (FP_NET_OUTCOME) under the connecting task, built in e: the state
 * program's own stack (it may run in a softirq, on top of a program
 * using the scratch buffer), or the connect's exit's scratch record once
 * that went out (a struct fp_net more on the exit's stack is more than
 * the 512 bytes kernels before 6.13 allow a 32-bit connect's chain of
 * calls: handle_sys_exit, fp_compat_net_exit, fp_connect_exit and its
 * callees).
 */
static __always_inline void outcome_count(const struct conn_wait *w,
					  struct fp_net *e)
{
	struct flow_val one = { 0 }, *v;
	struct fp_stats *st;
	long err;

	__builtin_memset(e, 0, sizeof(*e));
	e->key.tgid = w->hdr.pid;
	e->key.op = FP_NET_OUTCOME;
	e->key.sock_type = 1; /* SOCK_STREAM */
	e->key.protocol = 6; /* IPPROTO_TCP */
	e->key.addrlen = w->addrlen;
	e->key.ret = w->outcome;
	__builtin_memcpy(e->key.addr, w->addr, sizeof(w->addr));
	v = bpf_map_lookup_elem(&net_flows, &e->key);
	if (v) {
		__sync_fetch_and_add(&v->count, 1);
		return;
	}
	err = bpf_map_update_elem(&net_flows, &e->key, &one, BPF_NOEXIST);
	if (err == -17 /* EEXIST */) {
		v = bpf_map_lookup_elem(&net_flows, &e->key);
		if (v) {
			__sync_fetch_and_add(&v->count, 1);
			return;
		}
	}
	if (err) {
		st = stats_cpu();
		if (st)
			__sync_fetch_and_add(&st->net_unagg, 1);
	}
	__builtin_memcpy(&e->hdr, &w->hdr, sizeof(e->hdr));
	e->hdr.type = FP_EV_NET;
	e->hdr.size = sizeof(*e);
	e->hdr.ts_ns = bpf_ktime_get_ns();
	e->fd = -1;
	e->count = 1;
	emit(e, sizeof(*e));
}

/*
 * The connect's half of the handshake with the state program: once both
 * its exit and its outcome were seen, the outcome of an EINPROGRESS is
 * counted (by whichever came second, in e: outcome_count()) and the
 * entry goes.
 */
static __always_inline void conn_settle(struct conn_wait *w, __u64 key,
					long ret, struct fp_net *e)
{
	__u64 old;

	if (!w)
		return;
	if (ret == -115 /* EINPROGRESS */) {
		old = __sync_fetch_and_or(&w->flags, CW_EXITED | CW_WAIT);
		if (!(old & CW_DONE))
			return;
		outcome_count(w, e);
	} else {
		/* a blocking connect: its result is its outcome */
		old = __sync_fetch_and_or(&w->flags, CW_EXITED);
		if (!(old & CW_DONE))
			return;
	}
	bpf_map_delete_elem(&conn_waits, &key);
}

/* sendmmsg(): one datagram routed to r, counted (net.bpf.c) */
int fp_route_count(__u64 fd, struct fp_route *r);

#endif /* FP_ROUTE_BPF_H */
