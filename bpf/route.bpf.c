// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel did with the traced tasks' sends and connects.
 *
 * The fib tracepoints give the flow the kernel routed, in the sender's own
 * syscall: its destination address and port, from the kernel's copy of
 * the sockaddr. For a connect, sendto or sendmsg the destination is kept
 * for the syscall's exit (the task's note, route_take()), which judges
 * the call by it instead of by the sockaddr in the caller's memory, which
 * another thread may rewrite while the call runs. A sendmmsg may send to
 * as many destinations as it has messages: each one routed is counted
 * here (fp_route_count()).
 *
 * sock:inet_sock_set_state gives, for a TCP connect, the destination its
 * socket has at SYN_SENT and how the attempt ended: established, refused,
 * timed out (conn_waits, route.bpf.h).
 */
#include "common.bpf.h"
#include "scope.bpf.h"
#include "route.bpf.h"

#define AF_INET 2
#define AF_INET6 10
#define EAGAIN 11
#define IPPROTO_DCCP 33
#define IPPROTO_SCTP 132
#define IPPROTO_UDPLITE 136

/* route_call() */
#define RC_NOTE 1 /* connect, sendto, sendmsg: kept for the exit */
#define RC_COUNT 2 /* sendmmsg: counted here */

/*
 * The native numbers of connect, sendto, sendmsg and sendmmsg, set by
 * userspace before load (user/trace/syscalls.c); -1: none.
 */
const volatile long route_nr[4] = { -1, -1, -1, -1 };

#define FP_NR_COMPAT (1ULL << 32)

/*
 * The current task's syscall number (| FP_NR_COMPAT for a 32-bit one) if
 * this runs in that syscall on the task's own kernel stack, which runs up
 * to its saved registers; -1 if not: in a softirq or an interrupt served
 * on top of it. A route looked up there is for a packet that arrived
 * meanwhile (the ICMP error answering a datagram to a closed port is
 * routed in the softirq that runs on top of its sender), not one the
 * task's syscall sends. x86 and arm64 serve both on the CPU's own
 * interrupt stack (ksoftirqd and threaded interrupts run in kernel
 * threads, which are never traced). The preempt count would say so too,
 * but it is a per-CPU variable, and the verifier finds those only in
 * kernels built with KALLSYMS_ALL.
 *
 * The mark is the program's context: a raw tracepoint's arguments, an
 * array on the stack the tracepoint fired on (bpf_trace_run*()), not the
 * program's own frame, which the verifier may move to a private per-CPU
 * stack. Inline, not a function of its own: on this machine's CPU
 * (AMD, "Safe RET") every call and return costs some 15 ns, and this
 * runs on every send of a flood.
 */
static __always_inline long task_syscall(const void *ctx,
					 struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 here = (__u64)ctx;
	long nr;

	if (!regs || here < (__u64)task->stack || here >= (__u64)regs)
		return -1;
#if defined(__TARGET_ARCH_x86)
	nr = regs->orig_ax;
#elif defined(__TARGET_ARCH_arm64)
	nr = BPF_CORE_READ((struct user_pt_regs *)regs, syscallno);
#else
	return -1;
#endif
	if (task_in_compat_syscall(task))
		nr = (__u32)nr | FP_NR_COMPAT;
	return nr;
}

#if defined(__TARGET_ARCH_x86)
/* i386 numbers: socketcall, sendmmsg, connect, sendto, sendmsg */
#define NR32_SOCKETCALL 102
#define NR32_SENDMMSG 345
#define NR32_CONNECT 362
#define NR32_SENDTO 369
#define NR32_SENDMSG 370
/* socketcall's calls (linux/net.h) */
#define SC_CONNECT 3
#define SC_SEND 9
#define SC_SENDTO 11
#define SC_SENDMSG 16
#define SC_SENDMMSG 20

static __always_inline int compat_route_call(struct pt_regs *regs, long nr,
					     __u64 *fd)
{
	__u32 call, a0;

	switch (nr) {
	case NR32_CONNECT:
	case NR32_SENDTO:
	case NR32_SENDMSG:
		return RC_NOTE;
	case NR32_SENDMMSG:
		*fd = (__u32)regs->bx;
		return RC_COUNT;
	case NR32_SOCKETCALL:
		call = regs->bx;
		if (call == SC_CONNECT || call == SC_SEND ||
		    call == SC_SENDTO || call == SC_SENDMSG)
			return RC_NOTE;
		if (call != SC_SENDMMSG)
			return 0;
		/* the fd, for the socket's type: -1 if unreadable (the
		 * datagram is counted all the same) */
		if (bpf_probe_read_user(&a0, sizeof(a0),
					(void *)(__u64)(__u32)regs->cx))
			a0 = -1;
		*fd = (__s32)a0;
		return RC_COUNT;
	}
	return 0;
}
#endif

/*
 * What the current syscall (nr, from task_syscall()) makes of a route
 * looked up in it (RC_*), and for a sendmmsg its fd.
 */
static __always_inline int route_call(struct task_struct *task, long nr,
				      __u64 *fd)
{
	struct pt_regs *regs;

	if (nr == -1)
		return 0;
	if (nr & FP_NR_COMPAT) {
#if defined(__TARGET_ARCH_x86)
		regs = (struct pt_regs *)bpf_task_pt_regs(task);
		if (regs)
			return compat_route_call(regs, (__u32)nr, fd);
#endif
		return 0;
	}
	if (nr == route_nr[0] || nr == route_nr[1] || nr == route_nr[2])
		return RC_NOTE;
	if (nr != route_nr[3])
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return 0;
	*fd = PT_REGS_PARM1_CORE_SYSCALL(regs);
	return RC_COUNT;
}

/*
 * Whether a route looked up now may concern the run: the current thread
 * holds a flow cache slot (only a traced thread ever takes one,
 * flowcache.bpf.h; the slot goes in *slot), or it is traced. The fib
 * programs ask this first, before they read anything else: they run for
 * every route lookup on the machine, of every process, and an untraced
 * sender leaves after one helper call (the scope's cgroup test) and an
 * array lookup the verifier inlines.
 */
static __always_inline bool route_scope(struct task_struct *task,
					struct fp_flow_cache **slot)
{
	struct fp_flow_cache *c = flow_slot(task->pid);

	if (c && c->tid == task->pid) {
		*slot = c;
		return true;
	}
	*slot = NULL;
	return traced();
}

/*
 * A route the kernel looked up, in r, for task (in scope: its slot c, or
 * NULL): noted for the task's syscall, or counted for a sendmmsg if it is
 * the lookup's last word (final; a table that did not hold the
 * destination passes it on to the next).
 */
static __always_inline int route_seen(const void *ctx, struct task_struct *task,
				      struct fp_flow_cache *c,
				      const struct fp_route *r, bool final)
{
	struct fp_route *n;
	__u64 fd = -1;
	int kind;

	kind = route_call(task, task_syscall(ctx, task), &fd);
	if (!kind)
		return 0;
	if (kind == RC_COUNT)
		return final ? fp_route_count(fd, (struct fp_route *)r) : 0;
	/* one that cannot be kept: the exit finds none, and says so */
	n = c ? &c->note :
		bpf_task_storage_get(&routes, task, 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (n)
		__builtin_memcpy(n, r, sizeof(*r));
	return 0;
}

/* The destination port of a protocol that has one (not ICMP, raw IP). */
static __always_inline bool has_port(__u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_DCCP;
}

/*
 * A packet's own output route: looked up from the loopback interface
 * (ip_route_output_key_hash(), ip6_route_output_flags() set it), for a
 * protocol. A lookup for anything else in the same syscall has no input
 * interface, no protocol, or another one: the local table's answer of
 * inet_addr_type() for the source of an ARP request the send triggered,
 * made on the sender's stack, would otherwise replace the note.
 */
#define LOOPBACK_IFINDEX 1

SEC("tp_btf/fib_table_lookup")
int BPF_PROG(handle_fib4, u32 tb_id, const struct flowi4 *flp,
	     const struct fib_nh_common *nhc, int err)
{
	struct fp_route r = {};
	__u8 *sa = (__u8 *)r.sa;
	struct task_struct *task;
	struct fp_flow_cache *c;
	__be32 daddr;
	__be16 port;

	if (flp->__fl_common.flowic_iif != LOOPBACK_IFINDEX ||
	    !flp->__fl_common.flowic_proto)
		return 0;
	task = bpf_get_current_task_btf();
	if (!route_scope(task, &c))
		return 0;
	daddr = flp->daddr;
	port = flp->uli.ports.dport;
	r.len = 16;
	r.proto = flp->__fl_common.flowic_proto;
	r.err = err;
	sa[0] = AF_INET;
	if (has_port(r.proto))
		__builtin_memcpy(sa + 2, &port, 2);
	__builtin_memcpy(sa + 4, &daddr, 4);
	return route_seen(ctx, task, c, &r, err != -EAGAIN);
}

SEC("tp_btf/fib6_table_lookup")
int BPF_PROG(handle_fib6, const struct net *net, const struct fib6_result *res,
	     struct fib6_table *table, const struct flowi6 *flp)
{
	struct fp_route r = {};
	__u8 *sa = (__u8 *)r.sa;
	struct task_struct *task;
	struct fp_flow_cache *c;
	__be16 port;
	bool found;

	if (flp->__fl_common.flowic_iif != LOOPBACK_IFINDEX ||
	    !flp->__fl_common.flowic_proto)
		return 0;
	task = bpf_get_current_task_btf();
	if (!route_scope(task, &c))
		return 0;
	port = flp->uli.ports.dport;
	/*
	 * res by a probe read, not a cast: a cast asks for the kernel's id of
	 * fib6_result, which sits near the end of some kernels' BTF, and the
	 * small BTF for CO-RE keeps every id below it (user/trace/core_btf.h).
	 * One read, and only for a traced task's lookup.
	 */
	found = BPF_CORE_READ(res, f6i) !=
		untrusted_as(net, struct net)->ipv6.fib6_null_entry;
	r.len = 28;
	r.proto = flp->__fl_common.flowic_proto;
	r.err = found ? 0 : -101 /* ENETUNREACH */;
	sa[0] = AF_INET6;
	if (has_port(r.proto))
		__builtin_memcpy(sa + 2, &port, 2);
	__builtin_memcpy(sa + 8, &flp->daddr, 16);
	return route_seen(ctx, task, c, &r, found);
}

/*
 * Set (and never cleared) once a traced task's connect put an entry in
 * conn_waits: until then the state changes of every TCP socket on the
 * machine leave after this load, with no map lookup, while a run that
 * makes no TCP connect is active.
 */
__u32 conn_waits_used SEC(".bss");

/*
 * A TCP socket's state changes. At SYN_SENT, in the connecting task, a
 * traced task's socket gets an entry: where it connects to, and the
 * task's header. When it leaves SYN_SENT (ESTABLISHED, or CLOSE with the
 * socket's error) the entry gets the outcome. Other sockets cost a
 * lookup once a traced task connected (conn_waits_used), none before.
 */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(handle_sock_state, const struct sock *sk, const int oldstate,
	     const int newstate)
{
	__u64 key = (__u64)sk;
	struct conn_wait *w, nw = {};
	struct fp_net e;
	__u64 old;
	int serr;

	if (sk->sk_protocol != IPPROTO_TCP)
		return 0;
	if (newstate == TCP_SYN_SENT) {
		/* another socket's, at the same address: stale */
		if (conn_waits_used)
			bpf_map_delete_elem(&conn_waits, &key);
		if (!traced() ||
		    task_syscall(ctx, bpf_get_current_task_btf()) == -1)
			return 0;
		if (!conn_waits_used)
			conn_waits_used = 1;
		fill_hdr(&nw.hdr, FP_EV_NET);
		nw.addrlen = v4_unmap(nw.addr, sock_peer(nw.addr, sk));
		bpf_map_update_elem(&conn_waits, &key, &nw, BPF_ANY);
		return 0;
	}
	if (!conn_waits_used)
		return 0;
	w = bpf_map_lookup_elem(&conn_waits, &key);
	if (!w)
		return 0;
	if (oldstate != TCP_SYN_SENT ||
	    (newstate != TCP_ESTABLISHED && newstate != TCP_CLOSE)) {
		if (newstate == TCP_CLOSE)
			bpf_map_delete_elem(&conn_waits, &key);
		return 0;
	}
	serr = sk->sk_err;
	w->outcome = newstate == TCP_ESTABLISHED ? 0 :
		     serr			 ? -serr :
						   -ECONNABORTED;
	old = __sync_fetch_and_or(&w->flags, CW_DONE);
	if (old & CW_WAIT)
		outcome_count(w, &e);
	else if (!(old & CW_EXITED))
		return 0; /* the connect's exit takes it from here */
	bpf_map_delete_elem(&conn_waits, &key);
	return 0;
}
