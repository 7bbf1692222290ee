// SPDX-License-Identifier: GPL-2.0
/*
 * Network: bind(2) of the traced tasks. The syscall is picked and its
 * arguments kept by the syscall programs of file.bpf.c, which call
 * fp_bind_exit() when it returns.
 */
#include "common.bpf.h"
#include "path.bpf.h"
#include "flowcache.bpf.h"
#include "route.bpf.h"
#define DNS_FILTER_DEFINE
#include "dns_filter.bpf.h"

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
#define EINPROGRESS 115
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
	dns_sock_mark(BPF_CORE_READ(sk, sk_socket, file, f_inode, i_ino));
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

/* r, a route the kernel looked up, as the record's address */
static __always_inline void route_addr(struct fp_net *e,
				       const struct fp_route *r)
{
	__builtin_memcpy(e->key.addr, r->sa, sizeof(r->sa));
	e->key.addrlen = r->len;
}

/*
 * The socket a connected unix socket reached, by the name it was bound
 * to (the kernel's copy), if that is absolute or abstract: not the name
 * in the caller's memory, which may have changed since. False for a
 * relative name: the caller's then.
 */
static __always_inline bool unix_peer_name(struct fp_net *e, struct sock *sk)
{
	struct unix_sock *peer =
		(struct unix_sock *)BPF_CORE_READ((struct unix_sock *)sk, peer);
	struct unix_address *a = BPF_CORE_READ(peer, addr);
	int len = BPF_CORE_READ(a, len);
	long n;

	if (!a || len <= 2 || len > 110)
		return false;
	if (bpf_probe_read_kernel(e->key.addr, 3, a->name))
		return false;
	if (e->key.addr[2] == '/') {
		n = bpf_probe_read_kernel_str(e->key.addr + 2, 108,
					      (void *)a->name + 2);
		if (n <= 1)
			return false;
		e->key.addrlen = 2 + n;
		return true;
	}
	if (e->key.addr[2])
		return false;
	len &= 127;
	if (len > 110)
		return false;
	if (bpf_probe_read_kernel(e->key.addr, len, a->name))
		return false;
	e->key.addrlen = len;
	return true;
}

/* w's destination and the route r: the same sockaddr */
static __always_inline bool same_dest(const struct conn_wait *w,
				      const struct fp_route *r)
{
	const __u32 *x = (const __u32 *)w->addr, *y = (const __u32 *)r->sa;
	int i;

	for (i = 0; i < 7; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

/*
 * connect(fd, addr, len). The destination is the kernel's: for TCP the
 * socket's own at SYN_SENT (conn_waits), else the route the kernel looked
 * up in this call, else the socket's peer; the caller's sockaddr only for
 * a call that reached nothing the kernel says (a refused unix path, an
 * invalid family), where it is what was asked for.
 */
__noinline int fp_connect_exit(long ret, __u64 fd, __u64 uaddr, __u64 addrlen)
{
	struct fp_net *e = net_rec(FP_NET_CONNECT, ret, fd);
	struct conn_wait *w = NULL;
	struct fp_route r;
	bool routed = route_take(&r);
	struct sock *sk;
	__u16 type, family = 0;
	__u64 key = 0;

	if (!e)
		return 0;
	sk = fd_sock(e->fd, &type, &e->key.protocol);
	e->key.sock_type = type;
	if (sk)
		family = BPF_CORE_READ(sk, __sk_common.skc_family);
	if ((family == AF_INET || family == AF_INET6) &&
	    e->key.protocol == IPPROTO_TCP) {
		key = (__u64)sk;
		w = bpf_map_lookup_elem(&conn_waits, &key);
		/* this thread's, and of this call: its route went there too
		 * (the fd of a 32-bit socketcall is read again from the
		 * caller, who may have pointed it at another socket) */
		if (w && (w->hdr.tid != (__u32)bpf_get_current_pid_tgid() ||
			  (routed && !same_dest(w, &r))))
			w = NULL;
	}
	if (w) {
		__builtin_memcpy(e->key.addr, w->addr, sizeof(w->addr));
		e->key.addrlen = w->addrlen;
	} else if (routed) {
		route_addr(e, &r);
	} else if ((family == AF_INET || family == AF_INET6) &&
		   (!ret || ret == -EINPROGRESS) &&
		   BPF_CORE_READ(sk, __sk_common.skc_dport)) {
		e->key.addrlen =
			v4_unmap(e->key.addr, sock_peer(e->key.addr, sk));
	} else if (!(family == AF_UNIX && !ret && unix_peer_name(e, sk))) {
		e->key.addrlen =
			read_sockaddr(e->key.addr, uaddr, (__u32)addrlen);
	}
	if (!net_peer(e)) {
		conn_settle(w, key, ret, e);
		return 0;
	}
	if (is_dns_port(sa_port(e->key.addr)))
		dns_mark(sk, e->key.addr, type);
	flow_count(e);
	/* after the connect's own record, which is out: the outcome follows
	 * it, built in the same scratch record */
	conn_settle(w, key, ret, e);
	return 0;
}

/*
 * Copy the first FP_DNS_MAX bytes at ubuf of a DNS socket's traffic;
 * ino_dir: the socket's inode number (dns.bpf.c's answers name it too)
 * and above it the direction, packed as a global function takes five
 * arguments. Global, so that the verifier checks it once rather than in
 * each send and receive path and each of sendmmsg's unrolled messages.
 */
__noinline int fp_dns_copy(__u64 fd, __u64 ubuf, long moved,
			   const struct dns_sock *d, __u64 ino_dir)
{
	struct fp_dns *e = (struct fp_dns *)scratch_buf();
	__u32 n;

	if (!e || !d || moved <= 0 || !ubuf)
		return 0;
	fill_hdr(&e->hdr, FP_EV_DNS);
	e->fd = (int)fd;
	e->dir = ino_dir >> 32;
	e->sock_type = d->sock_type;
	e->total = moved;
	e->sock = (__u32)ino_dir;
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
	return 0;
}

static __always_inline void dns_copy(__u16 dir, __u64 fd, __u64 ubuf,
				     long moved, const struct dns_sock *d,
				     __u32 ino)
{
	fp_dns_copy(fd, ubuf, moved, d, (__u64)dir << 32 | ino);
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

/* 16 bytes at a and b (both 8-aligned), equal */
static __always_inline bool eq16(const void *a, const void *b)
{
	const __u64 *x = a, *y = b;

	return x[0] == y[0] && x[1] == y[1];
}

/* Is r, a route looked up in a send on sk, the socket's own peer? */
static __always_inline bool route_is_peer(struct sock *sk,
					  const struct fp_route *r)
{
	__u64 p[4] = {};

	if (!sk)
		return false;
	v4_unmap((__u8 *)p, sock_peer((__u8 *)p, sk));
	return p[0] == r->sa[0] && p[1] == r->sa[1] && p[2] == r->sa[2] &&
	       p[3] == r->sa[3];
}

/*
 * An IPv4 destination the kernel sends to without a route lookup: local
 * multicast (224.0.0.0/24) and limited broadcast out of a chosen
 * interface, and 0.0.0.0 (this host).
 */
static __always_inline bool unrouted_v4(const __u8 *a)
{
	return (a[0] == 224 && !a[1] && !a[2]) ||
	       (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255) ||
	       !(a[0] | a[1] | a[2] | a[3]);
}

/*
 * A send naming a destination for which the kernel looked up no route:
 * the address from the caller's memory (uaddr), checked against what the
 * kernel can have sent to. A call the kernel refused is what it asked
 * for; TCP ignores the name (the socket's peer); an IPv6 socket reuses
 * its connected route for its peer's address (the port is the caller's);
 * IPv4 looks up a route for everything but unrouted_v4(). Anything else
 * means the memory no longer names what the kernel copied: counted
 * (net_unsure), and the trace is incomplete.
 */
static __always_inline void unrouted_addr(struct fp_net *e, struct sock *sk,
					  long ret, __u64 uaddr)
{
	__u16 family, sfam = sk ? BPF_CORE_READ(sk, __sk_common.skc_family) : 0;
	__u8 *a = e->key.addr;
	struct in6_addr d6;
	struct fp_stats *st;

	e->key.addrlen = read_sockaddr(a, uaddr, 0);
	family = a[0] | a[1] << 8;
	if (ret < 0 || (sfam != AF_INET && sfam != AF_INET6))
		return;
	if (e->key.sock_type == 1 /* SOCK_STREAM */) {
		__builtin_memset(a, 0, 28);
		e->key.addrlen = v4_unmap(a, sock_peer(a, sk));
		return;
	}
	/* an IPv4 socket takes AF_UNSPEC for AF_INET */
	if (!family && sfam == AF_INET && e->key.addrlen >= 8) {
		a[0] = AF_INET;
		family = AF_INET;
		e->key.addrlen = 16;
	}
	if (family == AF_INET && unrouted_v4(a + 4))
		return;
	if (family == AF_INET6) {
		BPF_CORE_READ_INTO(&d6, sk, __sk_common.skc_v6_daddr);
		/* ::ffff:a.b.c.d: an IPv4 send */
		if ((!*(__u64 *)(a + 8) && *(__u32 *)(a + 16) == 0xffff0000 &&
		     unrouted_v4(a + 20)) ||
		    (BPF_CORE_READ(sk, __sk_common.skc_dport) &&
		     eq16(a + 8, &d6)))
			return;
	}
	st = stats_cpu();
	if (st)
		__sync_fetch_and_add(&st->net_unsure, 1);
}

/*
 * A datagram sent to uaddr, or on a connected socket if uaddr is 0 (as
 * read from the caller's registers or msghdr). Judged by the route the
 * kernel looked up in this call, which it took from its own copy of the
 * sockaddr; a route on a send with no name (its socket's dst had to be
 * looked up again) counts only if it is not the socket's peer: a msghdr
 * rewritten to drop its name after the kernel read it. Global, so that
 * the verifier checks it once, not in each of the four sends it serves.
 */
__noinline int fp_sent_to(long ret, __u64 fd, __u64 ubuf, __u64 uaddr,
			  __u32 cache_missed)
{
	struct fp_net *e;
	struct fp_sock_ref r;
	struct fp_route rt;
	struct sock *sk;
	__u16 type, family;
	bool routed;

	if (!cache_missed && fp_sendto_again(ret, fd, uaddr))
		return 0;
	/* what may emit a record: the task's held open goes out first */
	fp_open_flush();
	routed = route_take(&rt);
	fp_fd_sock((int)fd, &r);
	sk = (struct sock *)r.sk;
	if (routed && !uaddr && route_is_peer(sk, &rt))
		routed = false;
	if (!uaddr && !routed) {
		dns_on_sock(FP_DNS_QUERY, fd, ubuf, ret);
		return 0;
	}
	e = net_rec(FP_NET_SENDTO, ret, fd);
	if (!e)
		return 0;
	type = r.kind >> 16;
	e->key.sock_type = type;
	e->key.protocol = r.kind & 0xffff;
	if (routed)
		route_addr(e, &rt);
	else
		unrouted_addr(e, sk, ret, uaddr);
	if (!net_peer(e))
		return 0;
	if (is_dns_port(sa_port(e->key.addr))) {
		struct dns_sock d = {};

		dns_mark(sk, e->key.addr, type);
		bpf_probe_read_kernel(d.peer, sizeof(d.peer), e->key.addr);
		d.sock_type = type;
		flow_count(e);
		dns_copy(FP_DNS_QUERY, fd, ubuf, ret, &d, (__u32)r.ino);
		return 0;
	}
	/* DNS traffic is never cached: each query is copied. Only a routed
	 * flow is: the cache compares the route of the next call */
	family = e->key.addr[0] | e->key.addr[1] << 8;
	if (flow_count(e) && routed &&
	    (family == AF_INET || family == AF_INET6))
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
	return fp_sent_to(ret, fd, ubuf, uaddr, true);
}

/* the i386 layouts of struct msghdr and struct iovec */
struct compat_msghdr32 {
	__u32 msg_name;
	__s32 msg_namelen;
	__u32 msg_iov;
	__u32 msg_iovlen;
	__u32 msg_control;
	__u32 msg_controllen;
	__u32 msg_flags;
};

struct compat_iovec32 {
	__u32 iov_base;
	__u32 iov_len;
};

/*
 * The destination (msg_name) and the first iovec of the msghdr at umsg,
 * 0 where unreadable: a sendmsg is still judged by its route.
 */
static __always_inline void msghdr_read(__u64 umsg, bool compat, __u64 *name,
					__u64 *base, __u64 *len)
{
	*name = 0;
	*base = 0;
	*len = 0;
	if (compat) {
		struct compat_msghdr32 m = {};
		struct compat_iovec32 iov = {};

		if (bpf_probe_read_user(&m, sizeof(m), (void *)umsg))
			return;
		*name = m.msg_name;
		if (m.msg_iovlen && m.msg_iov &&
		    !bpf_probe_read_user(&iov, sizeof(iov),
					 (void *)(__u64)m.msg_iov)) {
			*base = iov.iov_base;
			*len = iov.iov_len;
		}
		return;
	} else {
		struct user_msghdr m = {};
		struct iovec iov = {};

		if (bpf_probe_read_user(&m, sizeof(m), (void *)umsg))
			return;
		*name = (__u64)m.msg_name;
		if (m.msg_iovlen && m.msg_iov &&
		    !bpf_probe_read_user(&iov, sizeof(iov), m.msg_iov)) {
			*base = (__u64)iov.iov_base;
			*len = iov.iov_len;
		}
	}
}

/* what a sendmsg's msghdr names: the destination and the first iovec */
struct msg_parts {
	__u64 name;
	__u64 base;
	__u64 len;
};

/* sendmsg(fd, msg, flags), its msghdr read into m: a destination if
 * msg_name is set or the kernel routed one; a DNS query is looked for in
 * the first iovec */
static __always_inline int msg_sent(long ret, __u64 fd,
				    const struct msg_parts *m, bool compat)
{
	if (ret > (long)m->len)
		ret = m->len;
	return fp_sent_to(ret, fd, m->base, m->name, compat);
}

__noinline int fp_sendmsg_exit(long ret, __u64 fd, __u64 umsg)
{
	struct msg_parts m;

	msghdr_read(umsg, false, &m.name, &m.base, &m.len);
	return msg_sent(ret, fd, &m, false);
}

/*
 * sendmmsg(fd, vec, vlen, flags): each message the kernel routed was
 * counted when it was (fp_route_count()). What it does not route is read
 * here from the caller's vector, as a sendto's name is: the names of a
 * unix socket's messages, and those of an IPv6 datagram socket that name
 * the address it is connected to (its route is reused).
 */
struct mmsg_walk {
	__u64 fd;
	__u64 vec;
	__u32 n;
	__u32 compat;
	__s64 ret;
	struct fp_sock_ref r;
	struct in6_addr peer6; /* the IPv6 peer; all 0 if none */
};

static long mmsg_step(__u32 i, void *ctx)
{
	struct mmsg_walk *w = ctx;
	struct fp_net *e;
	__u64 name = 0;
	__u32 n32 = 0;
	__u16 family = 0;

	if (i >= w->n || i >= 1024)
		return 1;
	if (w->compat) {
		if (bpf_probe_read_user(&n32, sizeof(n32),
					(void *)(w->vec + (__u64)i * 32)))
			return 1;
		name = n32;
	} else if (bpf_probe_read_user(&name, sizeof(name),
				       (void *)(w->vec + (__u64)i * 64))) {
		return 1;
	}
	if (!name || bpf_probe_read_user(&family, sizeof(family), (void *)name))
		return 0;
	e = net_rec(FP_NET_SENDTO, w->ret, w->fd);
	if (!e)
		return 1;
	e->key.sock_type = w->r.kind >> 16;
	e->key.protocol = w->r.kind & 0xffff;
	e->key.addrlen = read_sockaddr(e->key.addr, name, 0);
	if (family == AF_INET6 && !eq16(e->key.addr + 8, &w->peer6))
		return 0; /* routed: counted then */
	if (family == AF_INET || !net_peer(e))
		return 0;
	/* as fp_sent_to() marks a DNS socket it did not see routed */
	if (is_dns_port(sa_port(e->key.addr)))
		dns_mark((struct sock *)w->r.sk, e->key.addr, e->key.sock_type);
	flow_count(e);
	return 0;
}

/* messages of one sendmmsg() looked at for DNS queries */
#define FP_MMSG_DNS 4

/*
 * Message i of the struct mmsghdr vector at vec (i386: 32 bytes each, its
 * msg_len at 28; else 64, at 56) into m, its length cut to what was
 * sent; -1 if unreadable. A global function: the verifier checks it
 * once, not in each unrolled message of both sendmmsg paths.
 */
__noinline int fp_mmsg_sent(__u64 vec, __u32 i, __u32 compat,
			    struct msg_parts *m)
{
	__u64 at = vec + (__u64)i * (compat ? 32 : 64);
	__u32 sent;

	if (!m)
		return -1;
	msghdr_read(at, compat, &m->name, &m->base, &m->len);
	if (bpf_probe_read_user(&sent, sizeof(sent),
				(void *)(at + (compat ? 28 : 56))))
		return -1;
	if (sent < m->len)
		m->len = sent;
	return 0;
}

/*
 * The DNS queries among the first FP_MMSG_DNS messages a sendmmsg() sent
 * (glibc sends a lookup's A and AAAA queries so), from the first iovec
 * of each, if its socket is a DNS one by now: connected to a DNS port,
 * or marked when a message routed to one was counted (fp_route_count())
 * or one was counted from the vector (mmsg_step()). The server a query
 * names is the one the socket was marked with, which the kernel gave (a
 * route, the socket's peer), not the message's name in the caller's
 * memory; a call that sends queries to two servers at once names the
 * last one routed for each (an answer from the other is then not
 * trusted: stricter, never looser).
 */
static __always_inline void mmsg_queries(const struct mmsg_walk *w, long ret)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 key = w->r.sk;
	struct msg_parts m;
	struct dns_sock *d;
	int i;

	if (!dns_active || ret <= 0 || !bpf_map_lookup_elem(&dns_tgids, &tgid))
		return;
	d = bpf_map_lookup_elem(&dns_socks, &key);
	if (!d)
		return;
	for (i = 0; i < FP_MMSG_DNS && i < ret; i++) {
		if (fp_mmsg_sent(w->vec, i, w->compat, &m))
			break;
		if (m.len && m.base)
			dns_copy(FP_DNS_QUERY, w->fd, m.base, m.len, d,
				 (__u32)w->r.ino);
	}
}

static __always_inline int sendmmsg_exit(long ret, __u64 fd, __u64 vec,
					 bool compat)
{
	struct mmsg_walk w = {};
	struct fp_route rt;
	struct sock *sk;
	__u16 family;
	bool walk;

	/* none is noted in a sendmmsg, but one taken is never stale */
	route_take(&rt);
	fp_open_flush();
	fp_fd_sock((int)fd, &w.r);
	sk = (struct sock *)w.r.sk;
	if (!sk)
		return 0;
	w.fd = fd;
	w.vec = vec;
	w.compat = compat;
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	/* IPv4, and IPv6 but to the peer of a connected datagram socket:
	 * every message routed, and counted then */
	walk = family != AF_INET;
	if (family == AF_INET6) {
		walk = (w.r.kind >> 16) != 1 /* SOCK_STREAM */ &&
		       BPF_CORE_READ(sk, __sk_common.skc_dport);
		if (walk)
			BPF_CORE_READ_INTO(&w.peer6, sk,
					   __sk_common.skc_v6_daddr);
	}
	if (walk) {
		/* a call that sent nothing: its first message was the attempt */
		w.n = ret < 0 ? 1 : ret > 1024 ? 1024 : ret;
		w.ret = ret < 0 ? ret : 0;
		bpf_loop(1024, mmsg_step, &w, 0);
	}
	/* after the destinations: they may have marked a DNS socket */
	mmsg_queries(&w, ret);
	return 0;
}

__noinline int fp_sendmmsg_exit(long ret, __u64 fd, __u64 vec)
{
	return sendmmsg_exit(ret, fd, vec, false);
}

/*
 * One datagram of a sendmmsg the kernel routed to r, in the sender's
 * syscall (route.bpf.c): counted as a sendto to r, with the lookup's
 * result (the datagram's own is not known yet).
 */
__noinline int fp_route_count(__u64 fd, struct fp_route *r)
{
	struct fp_sock_ref ref;
	struct fp_net *e;

	if (!r || !r->len)
		return 0;
	fp_open_flush();
	e = net_rec(FP_NET_SENDTO, r->err, fd);
	if (!e)
		return 0;
	route_addr(e, r);
	fp_fd_sock((int)fd, &ref);
	e->key.sock_type = ref.kind >> 16;
	e->key.protocol = ref.kind & 0xffff;
	if (is_dns_port(sa_port(e->key.addr)))
		dns_mark((struct sock *)ref.sk, e->key.addr, e->key.sock_type);
	flow_count(e);
	return 0;
}

/*
 * An answer on a DNS socket: recvfrom and read (buf), recvmsg (the
 * first iovec of msghdr umsg).
 */
static __always_inline int recv_exit(long ret, __u64 fd, __u64 ubuf, __u64 umsg,
				     bool compat)
{
	__u64 name, len;

	if (!dns_active || ret <= 0)
		return 0;
	if (umsg) {
		msghdr_read(umsg, compat, &name, &ubuf, &len);
		if (!ubuf)
			return 0;
		if (ret > (long)len)
			ret = len;
	}
	dns_on_sock(FP_DNS_ANSWER, fd, ubuf, ret);
	return 0;
}

__noinline int fp_recv_exit(long ret, __u64 fd, __u64 ubuf, __u64 umsg)
{
	return recv_exit(ret, fd, ubuf, umsg, false);
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
		e->key.addrlen = sock_peer(e->key.addr, sk);
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

#if defined(__TARGET_ARCH_x86)
/* socketcall(2)'s calls (linux/net.h) and how many arguments each takes */
#define SC_BIND 2
#define SC_CONNECT 3
#define SC_ACCEPT 5
#define SC_SEND 9
#define SC_RECV 10
#define SC_SENDTO 11
#define SC_RECVFROM 12
#define SC_SENDMSG 16
#define SC_RECVMSG 17
#define SC_ACCEPT4 18
#define SC_SENDMMSG 20

static __always_inline __u32 socketcall_sys(__u32 call, __u32 *nargs)
{
	switch (call) {
	case SC_BIND:
		*nargs = 3;
		return FP_SYS_BIND;
	case SC_CONNECT:
		*nargs = 3;
		return FP_SYS_CONNECT;
	case SC_ACCEPT:
		*nargs = 3;
		return FP_SYS_ACCEPT;
	case SC_ACCEPT4:
		*nargs = 4;
		return FP_SYS_ACCEPT4;
	case SC_SEND: /* sendto without a name */
		*nargs = 4;
		return FP_SYS_SENDTO;
	case SC_SENDTO:
		*nargs = 6;
		return FP_SYS_SENDTO;
	case SC_SENDMSG:
		*nargs = 3;
		return FP_SYS_SENDMSG;
	case SC_SENDMMSG:
		*nargs = 4;
		return FP_SYS_SENDMMSG;
	case SC_RECV:
		*nargs = 4;
		return FP_SYS_RECVFROM;
	case SC_RECVFROM:
		*nargs = 6;
		return FP_SYS_RECVFROM;
	case SC_RECVMSG:
		*nargs = 3;
		return FP_SYS_RECVMSG;
	}
	return 0;
}

/*
 * socketcall(call, args): the arguments, which the kernel copied from
 * args at entry, read again into a. Unreadable now means the caller
 * unmapped them during the call: a send or connect that cannot be
 * judged is counted (net_unsure), and the route it took is dropped.
 */
static __always_inline __u32 socketcall_args(__u32 a[8])
{
	__u32 call = a[0], uargs = a[1], nargs = 0, sys;
	struct fp_route rt;
	struct fp_stats *st;

	sys = socketcall_sys(call, &nargs);
	if (!sys)
		return 0;
	a[4] = 0;
	a[5] = 0;
	if (!bpf_probe_read_user(a, (nargs & 7) * 4, (void *)(__u64)uargs))
		return sys;
	if (sys == FP_SYS_RECVFROM || sys == FP_SYS_RECVMSG)
		return 0;
	route_take(&rt);
	st = stats_cpu();
	if (st)
		__sync_fetch_and_add(&st->net_unsure, 1);
	return 0;
}

/*
 * The 32-bit calls, each a global function of its own: inlined into
 * fp_compat_net_exit() they would share its frame, which the 32-bit path
 * stacks between handle_sys_exit's and its callees' (fp_connect_exit's),
 * and kernels before 6.13 allow that chain 512 bytes in all. The sends
 * call fp_sent_to() from fp_compat_net_exit() itself, one frame fewer
 * on that chain; a 32-bit msghdr is read by a leaf of its own.
 */
__noinline int fp_msghdr32_read(__u64 umsg, struct msg_parts *m)
{
	if (m)
		msghdr_read(umsg, true, &m->name, &m->base, &m->len);
	return 0;
}

__noinline int fp_sendmmsg32_exit(long ret, __u64 fd, __u64 vec)
{
	return sendmmsg_exit(ret, fd, vec, true);
}

__noinline int fp_recv32_exit(long ret, __u64 fd, __u64 ubuf, __u64 umsg)
{
	return recv_exit(ret, fd, ubuf, umsg, true);
}

/*
 * A traced 32-bit (int $0x80) network syscall, as its 64-bit one: csys
 * as the compat half of the syscall table gives it (FP_SYS_SOCKETCALL for
 * the multiplexer), the arguments in ebx, ecx, edx, esi, edi, ebp, and
 * struct msghdr and struct mmsghdr in their i386 layouts.
 */
__noinline int fp_compat_net_exit(__u32 csys, long ret)
{
	struct pt_regs *regs =
		(struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	struct msg_parts m = {};
	__u32 a[8] = {};

	if (!regs)
		return 0;
	a[0] = regs->bx;
	a[1] = regs->cx;
	a[2] = regs->dx;
	a[3] = regs->si;
	a[4] = regs->di;
	a[5] = regs->bp;
	if (csys == FP_SYS_SOCKETCALL)
		csys = socketcall_args(a);
	switch (csys) {
	case FP_SYS_BIND:
		return fp_bind_exit(ret, a[0], a[1], a[2]);
	case FP_SYS_CONNECT:
		return fp_connect_exit(ret, a[0], a[1], a[2]);
	case FP_SYS_SENDTO:
		/* as a cache miss: a 32-bit call is never a cached flow's */
		return fp_sent_to(ret, a[0], a[1], a[4], true);
	case FP_SYS_SENDMSG:
		fp_msghdr32_read(a[1], &m);
		return msg_sent(ret, a[0], &m, true);
	case FP_SYS_SENDMMSG:
		return fp_sendmmsg32_exit(ret, a[0], a[1]);
	case FP_SYS_ACCEPT:
	case FP_SYS_ACCEPT4:
		return fp_accept_exit(ret, a[0]);
	case FP_SYS_RECVFROM:
	case FP_SYS_READ:
		return fp_recv32_exit(ret, a[0], a[1], 0);
	case FP_SYS_RECVMSG:
		return fp_recv32_exit(ret, a[0], 0, a[1]);
	}
	return 0;
}
#else
/* 32-bit network syscalls are decoded on x86 only: elsewhere, counted */
__noinline int fp_compat_net_exit(__u32 csys, long ret)
{
	struct fp_stats *st = stats_cpu();

	if (st)
		__sync_fetch_and_add(&st->compat, 1);
	return 0;
}
#endif
