// SPDX-License-Identifier: GPL-2.0
/*
 * DNS answers as the kernel delivered them. A name learned from an answer
 * counts only if the answer came from the server the query was sent to,
 * to the querying socket, with the query's id, and not from a socket of
 * the run (netflow.c, dns_trust.c decide). The answer net.bpf.c reads at
 * the syscall's exit is the command's memory, which a second thread may
 * rewrite, and recvfrom's source address is too; and a UDP socket
 * connected to the server still holds what was sent to it before. So
 * each UDP datagram to a DNS socket of the run (net.bpf.c's dns_socks:
 * one that sent to or connected to a DNS port), from wherever it came, is
 * read here from the kernel's own buffer: its source from the IP and UDP
 * headers, the socket it was queued on, and the message.
 *
 * Where: as it is queued on the socket (sk_data_ready, where the kernel has it),
 * or, on an older kernel, as the reading syscall frees it (consume_skb,
 * in the reading task; later kernels defer that free to another context).
 * hooks.c loads one of the two.
 */
#include "common.bpf.h"
#include "scope.bpf.h"
#include "dns_filter.bpf.h"
#include <bpf/bpf_endian.h>

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define PROTO_UDP 17
#define SOCK_DGRAM 2
#define AF_INET 2
#define AF_INET6 10

/* net.bpf.c's DNS sockets of the run (the same definition, linked) */
struct dns_sock {
	__u8 peer[28];
	__u16 sock_type;
	__u16 _pad;
};

extern struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct dns_sock);
} dns_socks SEC(".maps");

/*
 * The record being built: not the shared scratch, which a program this
 * one interrupts (it may run in a softirq) could be using.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_dns);
} dns_rec SEC(".maps");

/*
 * The datagram's source into e->peer (a sockaddr), its destination port
 * into *dport and its UDP length into *ulen: the offset of its UDP header
 * from its head, or -1 if it is no UDP datagram over IPv4 or IPv6.
 */
static __always_inline int datagram_ends(struct sk_buff *skb, struct fp_dns *e,
					 __u16 *dport, __u16 *ulen)
{
	unsigned char *head = BPF_CORE_READ(skb, head);
	__u16 nh = BPF_CORE_READ(skb, network_header);
	__u16 th = BPF_CORE_READ(skb, transport_header);
	__u16 proto = bpf_ntohs(BPF_CORE_READ(skb, protocol));
	struct udphdr uh;

	__builtin_memset(e->peer, 0, sizeof(e->peer));
	if (!head || th == (__u16)~0U ||
	    bpf_probe_read_kernel(&uh, sizeof(uh), head + th))
		return -1;
	if (proto == ETH_P_IP) {
		struct iphdr ip;
		struct sockaddr_in *sin = (struct sockaddr_in *)e->peer;

		if (bpf_probe_read_kernel(&ip, sizeof(ip), head + nh) ||
		    ip.protocol != PROTO_UDP)
			return -1;
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = ip.saddr;
		sin->sin_port = uh.source;
	} else if (proto == ETH_P_IPV6) {
		struct ipv6hdr ip6;
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)e->peer;

		if (bpf_probe_read_kernel(&ip6, sizeof(ip6), head + nh) ||
		    ip6.nexthdr != PROTO_UDP)
			return -1;
		sin6->sin6_family = AF_INET6;
		__builtin_memcpy(&sin6->sin6_addr, &ip6.saddr,
				 sizeof(ip6.saddr));
		sin6->sin6_port = uh.source;
	} else {
		return -1;
	}
	*dport = bpf_ntohs(uh.dest);
	*ulen = bpf_ntohs(uh.len);
	return th;
}

/* The message: what of it lies in the skb's linear part, at most 512. */
static __always_inline void datagram_data(struct sk_buff *skb, struct fp_dns *e,
					  __u16 th, __u16 ulen)
{
	unsigned char *payload =
		BPF_CORE_READ(skb, head) + th + sizeof(struct udphdr);
	unsigned char *end =
		BPF_CORE_READ(skb, data) +
		(BPF_CORE_READ(skb, len) - BPF_CORE_READ(skb, data_len));
	long avail = end - payload;
	__u32 n =
		ulen > sizeof(struct udphdr) ? ulen - sizeof(struct udphdr) : 0;

	e->total = n;
	if (avail < 0)
		avail = 0;
	if (n > avail)
		n = avail;
	if (n > FP_DNS_MAX)
		n = FP_DNS_MAX;
	barrier_var(n);
	n &= FP_DNS_MAX * 2 - 1;
	if (n > FP_DNS_MAX)
		n = FP_DNS_MAX;
	if (n && bpf_probe_read_kernel(e->data, n, payload))
		n = 0;
	e->len = n;
}

/*
 * The socket's inode number (what net.bpf.c's queries name it by), and
 * whether its network namespace is a user namespace's, which the invoking
 * user or the run may own and forge in.
 */
static __always_inline void sock_facts(const struct sock *sk, __u32 *ino,
				       __u16 *flags)
{
	struct socket *so = BPF_CORE_READ(sk, sk_socket);
	__u32 level;

	*ino = so ? (__u32)BPF_CORE_READ(so, file, f_inode, i_ino) : 0;
	level = BPF_CORE_READ(sk, __sk_common.skc_net.net, user_ns, level);
	*flags = level ? FP_DNS_F_USERNS : 0;
}

static __always_inline void emit_delivered(struct fp_dns *e, int fd, __u32 ino,
					   __u16 flags)
{
	__u32 n = e->len;

	e->fd = fd;
	e->dir = FP_DNS_DELIVERED | flags;
	e->sock_type = SOCK_DGRAM;
	e->sock = ino;
	/* bounded here, for the verifier: e->len is read back from a map */
	if (n > FP_DNS_MAX)
		n = FP_DNS_MAX;
	e->hdr.size = sizeof(*e) - FP_DNS_MAX + n;
	emit(e, sizeof(*e) - FP_DNS_MAX + n);
}

/*
 * A datagram queued on a DNS socket of the run (the last of its receive
 * queue), in whatever context the network stack runs: no process is
 * named (pid 0). Read while it is still queued: the queue's tail and the
 * skb's buffer are read again after, and a change drops the record.
 */
SEC("tp_btf/sk_data_ready")
int BPF_PROG(handle_dns_queued, const struct sock *sk)
{
	__u16 dport = 0, ulen = 0, flags = 0;
	__u64 key = (__u64)sk;
	unsigned char *head;
	struct sk_buff *skb;
	struct fp_dns *e;
	__u32 zero = 0, ino = 0;
	int th;

	/*
	 * every socket on the machine comes here: no DNS socket, no look;
	 * while a run that sent a DNS query is active, plain loads (the
	 * protocol, the filter's bit for the socket's inode) turn away the
	 * machine's other traffic before the lookup's call
	 */
	if (!dns_active || sk->sk_protocol != PROTO_UDP ||
	    !dns_sock_maybe(sk->sk_socket->file->f_inode->i_ino) ||
	    !bpf_map_lookup_elem(&dns_socks, &key) ||
	    !BPF_CORE_READ(sk, sk_receive_queue.qlen))
		return 0;
	e = bpf_map_lookup_elem(&dns_rec, &zero);
	if (!e)
		return 0;
	skb = BPF_CORE_READ(sk, sk_receive_queue.prev);
	head = BPF_CORE_READ(skb, head);
	th = datagram_ends(skb, e, &dport, &ulen);
	if (th < 0 || dport != BPF_CORE_READ(sk, __sk_common.skc_num))
		return 0;
	datagram_data(skb, e, th, ulen);
	if (BPF_CORE_READ(sk, sk_receive_queue.prev) != skb ||
	    BPF_CORE_READ(skb, head) != head)
		return 0;
	sock_facts(sk, &ino, &flags);
	__builtin_memset(&e->hdr, 0, sizeof(e->hdr));
	e->hdr.type = FP_EV_DNS;
	e->hdr.ts_ns = bpf_ktime_get_ns();
	emit_delivered(e, -1, ino, flags);
	return 0;
}

/* i386's socketcall(2), whose arguments are in the caller's memory */
#define NR32_SOCKETCALL 102

/*
 * The first argument of the current task's syscall: an fd, for a read.
 * A 32-bit read (net.bpf.c decodes them) has it in ebx, or for a
 * socketcall in the first word of its arguments: read from the caller,
 * it only picks which socket of the run the datagram was queued on, and
 * that socket's port must still be the datagram's.
 */
static __always_inline int syscall_fd(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

	if (!regs)
		return -1;
#if defined(__TARGET_ARCH_x86)
	if (task_in_compat_syscall(task)) {
		__u32 fd = regs->bx;

		if ((__u32)regs->orig_ax == NR32_SOCKETCALL &&
		    bpf_probe_read_user(&fd, sizeof(fd),
					(void *)(__u64)(__u32)regs->cx))
			return -1;
		return (int)fd;
	}
	return (int)regs->di;
#else
	return (int)PT_REGS_PARM1_CORE_SYSCALL(regs);
#endif
}

/*
 * Without sk_data_ready (Debian 12's 6.1): a UDP datagram freed after a read handed it to a traced
 * process (skb_consume_udp), in the reading task, inside the reading
 * syscall: its socket is the one at the syscall's fd, if the datagram's
 * destination port is that socket's.
 */
SEC("tp_btf/consume_skb")
int BPF_PROG(handle_dns_consumed, struct sk_buff *skb)
{
	__u16 dport = 0, ulen = 0, flags = 0;
	struct fp_sock_ref r;
	struct sock *sk;
	struct fp_dns *e;
	__u32 zero = 0, ino = 0;
	int th, fd;

	/* every skb on the machine comes here: no DNS socket, no look */
	if (!dns_active || !traced())
		return 0;
	e = bpf_map_lookup_elem(&dns_rec, &zero);
	if (!e)
		return 0;
	th = datagram_ends(skb, e, &dport, &ulen);
	if (th < 0)
		return 0;
	fd = syscall_fd();
	if (fd < 0)
		return 0;
	fp_fd_sock(fd, &r);
	/* a local: a CO-RE read relocates every field it goes through */
	sk = (struct sock *)r.sk;
	if (!sk || r.kind >> 16 != SOCK_DGRAM ||
	    !bpf_map_lookup_elem(&dns_socks, &r.sk) ||
	    BPF_CORE_READ(sk, __sk_common.skc_num) != dport)
		return 0;
	sock_facts(sk, &ino, &flags);
	fill_hdr(&e->hdr, FP_EV_DNS);
	datagram_data(skb, e, th, ulen);
	emit_delivered(e, fd, ino, flags);
	return 0;
}
