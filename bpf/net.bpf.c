// SPDX-License-Identifier: GPL-2.0
/*
 * Network: bind(2) of the traced tasks. The syscall is picked and its
 * arguments kept by the syscall programs of file.bpf.c, which call
 * fp_bind_exit() when it returns.
 */
#include "common.bpf.h"
#include "path.bpf.h"
#include "flowcache.bpf.h"

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

	f = cur_fd(e->fd);
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

/*
 * Connections, datagrams with a destination, accepts and DNS: counted per
 * (process, destination, result) in net_flows, so that a loop of a
 * million sendto()s makes one record and one counter, not a million
 * records. Userspace reads the counters at the end of the run
 * (FP_EV_NET_COUNT). A call the table has no room for is emitted alone
 * with a count of 1 and counted in net_unagg: never dropped.
 */
#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
#define AF_NETLINK 16
#define EEXIST 17
#define FP_DNS_SOCKS 4096

/* ports whose traffic is DNS, set before load; 0 ends the list */
const volatile __u16 dns_ports[FP_MAX_DNS_PORTS] = { 53 };

struct dns_sock {
	__u8 peer[28];
	__u16 sock_type;
	__u16 _pad;
};

/*
 * Sockets that talked to a DNS port, by struct sock address. LRU: a
 * closed socket is never removed, and the oldest are the ones to forget.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FP_DNS_SOCKS);
	__type(key, __u64);
	__type(value, struct dns_sock);
} dns_socks SEC(".maps");

/*
 * Processes that marked a DNS socket: only their reads are looked at, so
 * that a build which resolved one name does not pay for every read after.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} dns_tgids SEC(".maps");

/*
 * The struct sock behind the current task's fd, or NULL if fd is not a
 * socket, with its type and protocol (fp_fd_sock() in shared.bpf.c).
 */
static __always_inline struct sock *fd_sock(int fd, __u16 *type,
					    __u16 *protocol)
{
	struct fp_sock_ref r;

	fp_fd_sock(fd, &r);
	*type = r.kind >> 16;
	*protocol = r.kind & 0xffff;
	return (struct sock *)r.sk;
}

/* sockaddr at uaddr into addr: its family says how much to read */
static __always_inline __u16 read_sockaddr(__u8 *addr, __u64 uaddr,
					   __u64 addrlen)
{
	__u16 family = 0;
	__u64 len;

	if (!uaddr ||
	    bpf_probe_read_user(&family, sizeof(family), (void *)uaddr))
		return 0;
	if (family == AF_INET)
		len = 16;
	else if (family == AF_INET6)
		len = 28;
	else if (family == AF_UNIX)
		len = 110;
	else
		len = 2;
	if (addrlen && addrlen < len)
		len = addrlen;
	if (len > 112)
		len = 112;
	/* a path name ends at its NUL: what follows is stack garbage that
	 * would make each call a key of its own */
	if (family == AF_UNIX && len > 2) {
		long n;

		addr[0] = AF_UNIX;
		addr[1] = 0;
		n = bpf_probe_read_user_str(addr + 2, 108, (void *)(uaddr + 2));
		if (n > 1)
			return 2 + n;
	}
	if (bpf_probe_read_user(addr, len, (void *)uaddr))
		bpf_probe_read_user(addr, 2, (void *)uaddr);
	return len;
}

static __always_inline __u16 sa_port(const __u8 *addr)
{
	__u16 family = *(__u16 *)addr;

	if (family != AF_INET && family != AF_INET6)
		return 0;
	return (__u16)addr[2] << 8 | addr[3];
}

static __always_inline bool is_dns_port(__u16 port)
{
	int i;

	for (i = 0; i < FP_MAX_DNS_PORTS; i++) {
		if (!dns_ports[i])
			break;
		if (dns_ports[i] == port)
			return true;
	}
	return false;
}

static __always_inline void dns_mark(struct sock *sk, const __u8 *addr,
				     __u16 type)
{
	struct dns_sock d = { .sock_type = type };
	__u64 key = (__u64)sk;
	__u32 tgid;

	if (!sk)
		return;
	bpf_probe_read_kernel(d.peer, sizeof(d.peer), addr);
	if (bpf_map_update_elem(&dns_socks, &key, &d, BPF_ANY)) {
		struct fp_stats *st = stats_cpu();

		if (st)
			__sync_fetch_and_add(&st->dns_full, 1);
		return;
	}
	tgid = bpf_get_current_pid_tgid() >> 32;
	bpf_map_update_elem(&dns_tgids, &tgid, &tgid, BPF_ANY);
	if (!dns_active)
		dns_active = 1;
}

/*
 * Count one call under key (in the scratch record e); emit it if new.
 * True if the flow is in net_flows, false if it was emitted alone.
 */
static __always_inline bool flow_count(struct fp_net *e)
{
	struct flow_val one = { 0 }, *v;
	struct fp_stats *st;
	long err;

	v = bpf_map_lookup_elem(&net_flows, &e->key);
	if (v) {
		__sync_fetch_and_add(&v->count, 1);
		return true;
	}
	err = bpf_map_update_elem(&net_flows, &e->key, &one, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* another thread put it there first */
		v = bpf_map_lookup_elem(&net_flows, &e->key);
		if (v) {
			__sync_fetch_and_add(&v->count, 1);
			return true;
		}
	}
	if (err) {
		st = stats_cpu();
		if (st)
			__sync_fetch_and_add(&st->net_unagg, 1);
	}
	/* the header only for a record that goes out: not per call */
	fill_hdr(&e->hdr, FP_EV_NET);
	e->hdr.size = sizeof(*e);
	e->count = 1;
	emit(e, sizeof(*e));
	return !err;
}

/*
 * Is the address read into e a peer on a network? AF_UNSPEC dissolves a
 * datagram socket's association, and netlink talks to the kernel (glibc's
 * getaddrinfo does both): neither reaches anyone.
 */
static __always_inline bool net_peer(const struct fp_net *e)
{
	__u16 family = e->key.addr[0] | e->key.addr[1] << 8;

	return e->key.addrlen >= 2 && family && family != AF_NETLINK;
}

/* The scratch record for one call of op on fd, key filled but addr. */
static __always_inline struct fp_net *net_rec(__u16 op, long ret, __u64 fd)
{
	struct fp_net *e = (struct fp_net *)scratch_buf();

	if (!e)
		return NULL;
	__builtin_memset(&e->key, 0, sizeof(e->key));
	e->key.tgid = bpf_get_current_pid_tgid() >> 32;
	e->key.op = op;
	e->key.ret = ret < 0 ? ret : 0;
	e->fd = (int)fd;
	e->_pad = 0;
	e->count = 1;
	return e;
}

__noinline int fp_connect_exit(long ret, __u64 fd, __u64 uaddr, __u64 addrlen)
{
	struct fp_net *e = net_rec(FP_NET_CONNECT, ret, fd);
	struct sock *sk;
	__u16 type;

	if (!e)
		return 0;
	e->key.addrlen = read_sockaddr(e->key.addr, uaddr, (__u32)addrlen);
	if (!net_peer(e))
		return 0;
	sk = fd_sock(e->fd, &type, &e->key.protocol);
	e->key.sock_type = type;
	if (is_dns_port(sa_port(e->key.addr)))
		dns_mark(sk, e->key.addr, type);
	flow_count(e);
	return 0;
}

/* Copy the first FP_DNS_MAX bytes at ubuf of a DNS socket's traffic;
 * ino: the socket's inode number (dns.bpf.c's answers name it too) */
static __always_inline void dns_copy(__u16 dir, __u64 fd, __u64 ubuf,
				     long moved, const struct dns_sock *d,
				     __u32 ino)
{
	struct fp_dns *e = (struct fp_dns *)scratch_buf();
	__u32 n;

	if (!e || moved <= 0 || !ubuf)
		return;
	fill_hdr(&e->hdr, FP_EV_DNS);
	e->fd = (int)fd;
	e->dir = dir;
	e->sock_type = d->sock_type;
	e->total = moved;
	e->sock = ino;
	bpf_probe_read_kernel(e->peer, sizeof(e->peer), d->peer);
	n = moved < FP_DNS_MAX ? moved : FP_DNS_MAX;
	barrier_var(n);
	n &= FP_DNS_MAX * 2 - 1;
	if (n > FP_DNS_MAX)
		n = FP_DNS_MAX;
	if (bpf_probe_read_user(e->data, n, (void *)ubuf))
		n = 0;
	e->len = n;
	e->hdr.size = sizeof(*e) - FP_DNS_MAX + n;
	emit(e, e->hdr.size);
}

/* A query or answer on an already marked DNS socket (send, read, ...) */
static __always_inline void dns_on_sock(__u16 dir, __u64 fd, __u64 ubuf,
					long moved)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct dns_sock *d;
	struct fp_sock_ref r;
	__u64 key;

	if (!dns_active || moved <= 0 ||
	    !bpf_map_lookup_elem(&dns_tgids, &tgid))
		return;
	fp_fd_sock((int)fd, &r);
	if (!r.sk)
		return;
	key = r.sk;
	d = bpf_map_lookup_elem(&dns_socks, &key);
	if (d)
		dns_copy(dir, fd, ubuf, moved, d, (__u32)r.ino);
}

/* A datagram sent to uaddr, or on a connected socket if uaddr is 0 */
static __always_inline int sent_to(long ret, __u64 fd, __u64 ubuf, __u64 uaddr,
				   bool cache_missed)
{
	struct fp_net *e;
	struct dns_sock d = {};
	struct fp_sock_ref r;
	struct sock *sk;
	__u16 type, family;

	if (!cache_missed && fp_sendto_again(ret, fd, uaddr))
		return 0;
	/* what may emit a record: the task's held open goes out first */
	fp_open_flush();
	if (!uaddr) {
		dns_on_sock(FP_DNS_QUERY, fd, ubuf, ret);
		return 0;
	}
	e = net_rec(FP_NET_SENDTO, ret, fd);
	if (!e)
		return 0;
	e->key.addrlen = read_sockaddr(e->key.addr, uaddr, 0);
	if (!net_peer(e))
		return 0;
	fp_fd_sock(e->fd, &r);
	sk = (struct sock *)r.sk;
	type = r.kind >> 16;
	e->key.sock_type = type;
	e->key.protocol = r.kind & 0xffff;
	if (is_dns_port(sa_port(e->key.addr))) {
		dns_mark(sk, e->key.addr, type);
		bpf_probe_read_kernel(d.peer, sizeof(d.peer), e->key.addr);
		d.sock_type = type;
		flow_count(e);
		dns_copy(FP_DNS_QUERY, fd, ubuf, ret, &d, (__u32)r.ino);
		return 0;
	}
	/* DNS traffic is never cached: each query is copied */
	family = e->key.addr[0] | e->key.addr[1] << 8;
	if (flow_count(e) && (family == AF_INET || family == AF_INET6))
		flow_cache_set(&e->key, &r);
	return 0;
}

/* The exiting thread's cached count into net_flows, and its slot freed. */
__noinline int fp_net_task_exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fp_flow_cache *c = flow_slot(tid);

	if (!c || c->tid != tid)
		return 0;
	flow_cache_put(c);
	__sync_val_compare_and_swap(&c->tid, (__u64)tid, 0);
	return 0;
}

/*
 * sendto(fd, buf, len, flags, dest, addrlen), after fp_sendto_again()
 * said no: addrlen is not kept
 */
__noinline int fp_sendto_exit(long ret, __u64 fd, __u64 ubuf, __u64 len,
			      __u64 uaddr)
{
	return sent_to(ret, fd, ubuf, uaddr, true);
}

/* sendmsg(fd, msg, flags): a destination only if msg_name is set; a DNS
 * query is looked for in the first iovec */
__noinline int fp_sendmsg_exit(long ret, __u64 fd, __u64 umsg)
{
	struct user_msghdr m = {};
	struct iovec iov = {};

	if (bpf_probe_read_user(&m, sizeof(m), (void *)umsg))
		return 0;
	if (m.msg_iovlen && m.msg_iov)
		bpf_probe_read_user(&iov, sizeof(iov), m.msg_iov);
	if (ret > (long)iov.iov_len)
		ret = iov.iov_len;
	return sent_to(ret, fd, (__u64)iov.iov_base, (__u64)m.msg_name, false);
}

/* messages of one sendmmsg() looked at for DNS queries */
#define FP_MMSG_DNS 4

/*
 * One message of a sendmmsg(): a DNS query if its socket is a DNS one,
 * or its destination (at uaddr) a DNS port.
 */
static __always_inline void mmsg_query(__u64 fd, __u64 ubuf, long len,
				       __u64 uaddr)
{
	struct dns_sock d = {};
	struct fp_sock_ref r;

	if (!uaddr) {
		dns_on_sock(FP_DNS_QUERY, fd, ubuf, len);
		return;
	}
	if (bpf_probe_read_user(d.peer, 2, (void *)uaddr))
		return;
	if (*(__u16 *)d.peer == AF_INET)
		bpf_probe_read_user(d.peer, 16, (void *)uaddr);
	else if (*(__u16 *)d.peer == AF_INET6)
		bpf_probe_read_user(d.peer, 28, (void *)uaddr);
	else
		return;
	if (!is_dns_port(sa_port(d.peer)))
		return;
	fp_fd_sock((int)fd, &r);
	d.sock_type = r.kind >> 16;
	dns_mark((struct sock *)r.sk, d.peer, d.sock_type);
	dns_copy(FP_DNS_QUERY, fd, ubuf, len, &d, (__u32)r.ino);
}

/*
 * sendmmsg(fd, msgvec, n, flags): the DNS queries among the first
 * messages it sent (glibc sends a lookup's A and AAAA queries so), from
 * the first iovec of each.
 */
__noinline int fp_sendmmsg_exit(long ret, __u64 fd, __u64 uvec)
{
	struct mmsghdr mm;
	struct iovec iov;
	long len;
	int i;

	for (i = 0; i < FP_MMSG_DNS && i < ret; i++) {
		if (bpf_probe_read_user(&mm, sizeof(mm),
					(void *)(uvec + i * sizeof(mm))))
			break;
		iov.iov_base = NULL;
		iov.iov_len = 0;
		if (mm.msg_hdr.msg_iovlen && mm.msg_hdr.msg_iov)
			bpf_probe_read_user(&iov, sizeof(iov),
					    mm.msg_hdr.msg_iov);
		len = mm.msg_len < iov.iov_len ? mm.msg_len : iov.iov_len;
		if (len > 0 && iov.iov_base)
			mmsg_query(fd, (__u64)iov.iov_base, len,
				   (__u64)mm.msg_hdr.msg_name);
	}
	return 0;
}

/*
 * An answer on a DNS socket: recvfrom and read (buf), recvmsg (the
 * first iovec of msghdr umsg).
 */
__noinline int fp_recv_exit(long ret, __u64 fd, __u64 ubuf, __u64 umsg)
{
	struct user_msghdr m = {};
	struct iovec iov = {};

	if (!dns_active || ret <= 0)
		return 0;
	if (umsg) {
		if (bpf_probe_read_user(&m, sizeof(m), (void *)umsg) ||
		    !m.msg_iovlen || !m.msg_iov ||
		    bpf_probe_read_user(&iov, sizeof(iov), m.msg_iov))
			return 0;
		ubuf = (__u64)iov.iov_base;
		if (ret > (long)iov.iov_len)
			ret = iov.iov_len;
	}
	dns_on_sock(FP_DNS_ANSWER, fd, ubuf, ret);
	return 0;
}

/* The peer of an accepted socket, as a sockaddr, into addr. */
static __always_inline __u16 peer_sockaddr(__u8 *addr, struct sock *sk)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);
	__be16 port = BPF_CORE_READ(sk, __sk_common.skc_dport);

	*(__u16 *)addr = family;
	if (family == AF_INET) {
		__be32 a = BPF_CORE_READ(sk, __sk_common.skc_daddr);

		__builtin_memcpy(addr + 2, &port, 2);
		__builtin_memcpy(addr + 4, &a, 4);
		return 16;
	}
	if (family == AF_INET6) {
		__builtin_memcpy(addr + 2, &port, 2);
		BPF_CORE_READ_INTO(addr + 8, sk, __sk_common.skc_v6_daddr);
		return 28;
	}
	return 2;
}

/*
 * accept(fd, ...) and accept4: the peer from the new socket, counted
 * without its port, which is the client's ephemeral one.
 */
__noinline int fp_accept_exit(long ret, __u64 fd)
{
	struct fp_net *e = net_rec(FP_NET_ACCEPT, ret, fd);
	struct sock *sk;
	__u16 type;

	if (!e)
		return 0;
	sk = fd_sock(ret >= 0 ? (int)ret : (int)fd, &type, &e->key.protocol);
	e->key.sock_type = type;
	if (sk) {
		/* the listener's port: the one a rule names */
		e->key.addrlen = peer_sockaddr(e->key.addr, sk);
		e->key.addr[2] = 0;
		e->key.addr[3] = 0;
		if (ret >= 0) {
			__u16 lport = BPF_CORE_READ(sk, __sk_common.skc_num);

			e->key.addr[2] = lport >> 8;
			e->key.addr[3] = lport & 0xff;
		}
	}
	flow_count(e);
	return 0;
}
