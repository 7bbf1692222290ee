// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring: the requests of the traced tasks' rings, by opcode, from the
 * io_uring tracepoints alone.
 *
 * io_uring_submit_req (io_uring_submit_sqe before 6.5) fires once a
 * request is prepared: its arguments are then the kernel's own copy in
 * the request (the struct filename of an open, the sockaddr a connect
 * copied), which is what this reads, never user memory. A request whose
 * syscall would make a record makes that record here, wrapped as
 * FP_EV_URING_REQ; its completion (io_uring_complete) adds the result as
 * FP_EV_URING_DONE, and the collector pairs the two into the syscall's
 * event. A completion may never be seen (IOSQE_CQE_SKIP_SUCCESS, a full
 * completion ring): the request is then judged as if it succeeded.
 *
 * Each opcode is handled, harmless, or not understood (uring_class());
 * one not understood makes an FP_EV_URING record, and the trace is then
 * incomplete. The requests run in the submitting task, in an io-wq worker
 * or in an SQPOLL thread: both are threads of the process that made them
 * (create_io_thread()), in its cgroup, so traced() holds for them and the
 * header names that process. Only processes that use io_uring pay for
 * any of this.
 */
#include "common.bpf.h"
#include "scope.bpf.h"

#define O_CREAT 0100
#define FMODE_CREATED 0x100000
#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
#define AF_NETLINK 16
#define IOSQE_FIXED_FILE 1
#define IOSQE_CQE_SKIP_SUCCESS (1 << 6)
#define IORING_CQE_F_MORE 2
#define IORING_FILE_INDEX_ALLOC (~0U)
#define IORING_ACCEPT_MULTISHOT 1
/* the number of the first opcode this build does not know */
#define FP_URING_OPS 63

/* the generation of cached walks (walk_cache.bpf.h, in file.bpf.c) */
extern __u64 path_gen;

/*
 * What the pairing needs at completion, per request in flight: LRU, as a
 * request whose completion is never seen is never removed. The collector
 * judges a request whose completion it never got as if it succeeded.
 */
enum uring_kind {
	UK_PLAIN, /* the result alone */
	UK_OPEN, /* and the file it opened */
	UK_SOCK, /* and the socket it used: connect, send, bind */
	UK_ACCEPT, /* and the socket it made */
};

struct uring_track {
	__u32 kind;
	__u32 slot; /* an open's or accept's file_slot: 0, or direct */
	__u64 ring; /* its io_ring_ctx: a completion must be of the same */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct uring_track);
} uring_reqs SEC(".maps");

/* A multishot accept's completions name no request: its ring and
 * user_data do (each completion of one request carries its user_data). */
struct uring_multi_key {
	__u64 ring;
	__u64 user_data;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);
	__type(key, struct uring_multi_key);
	__type(value, __u64);
} uring_multi SEC(".maps");

/* (process, opcode) already reported as not understood */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u32);
} uring_told SEC(".maps");

/* a request has been tracked: completions are looked up from then on */
__u32 uring_active SEC(".bss");

/* the submission program is attached on this kernel (hooks.c) */
const volatile bool uring_traced = false;

/* the tracer's own calibration CONNECT (uring_calib.c), and what it
 * learned: FP_URING_ADDR_* */
__u32 uring_calib_tgid SEC(".bss");
__u32 uring_addr_at SEC(".bss");

enum uring_class {
	UC_HARMLESS,
	UC_UNKNOWN,
	UC_OPEN,
	UC_PATH,
	UC_FTRUNC,
	UC_CONNECT,
	UC_SEND,
	UC_BIND,
	UC_ACCEPT,
};

/*
 * Every opcode of Linux 6.18 (IORING_OP_NOP to IORING_OP_PIPE), by what
 * footprint makes of it (docs/security.md has the same list). Harmless:
 * no effect footprint judges for the syscall either (a read or write on
 * an fd whose open was judged, a wait, a timeout, a cancel, a stat,
 * a socket not yet connected anywhere). Not understood: xattr writes,
 * which footprint does not judge; URING_CMD, whose meaning is the
 * driver's behind the file (NVMe passthrough writes a disk's blocks); and
 * any opcode newer than this list.
 */
static __always_inline int uring_class(__u8 op)
{
	switch (op) {
	case IORING_OP_OPENAT:
	case IORING_OP_OPENAT2:
		return UC_OPEN;
	case IORING_OP_UNLINKAT:
	case IORING_OP_RENAMEAT:
	case IORING_OP_MKDIRAT:
	case IORING_OP_SYMLINKAT:
	case IORING_OP_LINKAT:
		return UC_PATH;
	case IORING_OP_FTRUNCATE:
		return UC_FTRUNC;
	case IORING_OP_CONNECT:
		return UC_CONNECT;
	case IORING_OP_SEND:
	case IORING_OP_SENDMSG:
	case IORING_OP_SEND_ZC:
	case IORING_OP_SENDMSG_ZC:
		return UC_SEND;
	case IORING_OP_BIND:
		return UC_BIND;
	case IORING_OP_ACCEPT:
		return UC_ACCEPT;
	case IORING_OP_FSETXATTR:
	case IORING_OP_SETXATTR:
	case IORING_OP_URING_CMD:
		return UC_UNKNOWN;
	}
	return op < FP_URING_OPS ? UC_HARMLESS : UC_UNKNOWN;
}

/* io_uring RENAMEAT and UNLINKAT move directories: see walk_cache.bpf.h */
static __always_inline void gen_uring(struct io_kiocb *req)
{
	__u8 op = BPF_CORE_READ(req, opcode);

	if (op == IORING_OP_RENAMEAT || op == IORING_OP_UNLINKAT)
		__sync_fetch_and_add(&path_gen, 1);
}

/* The request's own argument block (io_kiocb_to_cmd()). */
static __always_inline void *req_cmd(struct io_kiocb *req)
{
	return (void *)req + bpf_core_field_offset(struct io_kiocb, cmd);
}

/* Before 6.13 a ring's direct descriptors were an array of these. */
struct io_fixed_file___old {
	unsigned long file_ptr;
};

struct io_file_table___old {
	struct io_fixed_file___old *files;
};

struct io_ring_ctx___old {
	struct io_file_table___old file_table;
	unsigned int nr_user_files;
};

/* The file in slot of ring's table of direct descriptors, or 0. */
static __always_inline __u64 fixed_file(struct io_ring_ctx *ring, __u32 slot)
{
	unsigned long ptr = 0;

	if (bpf_core_field_exists(struct io_rsrc_data, nodes)) {
		struct io_rsrc_node **nodes, *node = NULL;

		if (slot >= BPF_CORE_READ(ring, file_table.data.nr))
			return 0;
		nodes = BPF_CORE_READ(ring, file_table.data.nodes);
		bpf_probe_read_kernel(&node, sizeof(node), nodes + slot);
		if (node)
			ptr = BPF_CORE_READ(node, file_ptr);
	} else if (bpf_core_field_exists(struct io_ring_ctx___old,
					 nr_user_files)) {
		struct io_ring_ctx___old *old = (void *)ring;
		struct io_fixed_file___old *files;

		if (slot >= BPF_CORE_READ(old, nr_user_files))
			return 0;
		files = BPF_CORE_READ(old, file_table.files);
		bpf_probe_read_kernel(&ptr, sizeof(ptr), &files[slot].file_ptr);
	}
	/* the low bits are flags (FFS_NOWAIT, FFS_ISREG) */
	return ptr & ~7UL;
}

/* The file an open or accept made: fd res, or a direct descriptor. */
static __always_inline __u64 made_file(struct io_ring_ctx *ring, __u32 slot,
				       long res)
{
	__u64 f = 0;

	if (res < 0)
		return 0;
	if (!slot) {
		fp_cur_fd(res, &f);
		return f;
	}
	return fixed_file(ring,
			  slot == IORING_FILE_INDEX_ALLOC ? res : slot - 1);
}

/* The file a request names by its fd (req->cqe.fd), as it submits. */
static __always_inline __u64 named_file(struct io_kiocb *req)
{
	__s32 fd = BPF_CORE_READ(req, cqe.fd);
	__u64 f = 0;

	if (BPF_CORE_READ(req, flags) & IOSQE_FIXED_FILE)
		return fixed_file(BPF_CORE_READ(req, ctx), fd);
	fp_cur_fd(fd, &f);
	return f;
}

/* type << 16 | protocol of the socket f is, 0 if none; its sock in *skp */
static __always_inline __u32 sock_kind(__u64 file, struct sock **skp)
{
	struct file *f = (struct file *)file;
	struct socket *sock;
	struct sock *sk;

	*skp = NULL;
	if (!f || (BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT) != S_IFSOCK)
		return 0;
	sock = BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(sock, sk);
	*skp = sk;
	return (__u32)BPF_CORE_READ(sock, type) << 16 |
	       (sk ? BPF_CORE_READ(sk, sk_protocol) : 0);
}

/* ---- submission ---- */

/* Where the record being built lies in the scratch buffer. */
#define REQ_AT sizeof(struct fp_uring_req)

/*
 * The record in the scratch buffer, not on the stack: this frame is part
 * of every call chain below the program's (512 bytes in all).
 */
__noinline int fp_uring_unknown(__u64 reqp, __u32 op)
{
	struct io_kiocb *req = (struct io_kiocb *)reqp;
	struct fp_uring *e = (struct fp_uring *)scratch_buf();
	__u64 key = (bpf_get_current_pid_tgid() & ~0xffffffffULL) | op;
	__u32 one = 1;

	if (!e || bpf_map_update_elem(&uring_told, &key, &one, BPF_NOEXIST))
		return 0;
	/* a read-only open this task held back goes out first */
	fp_open_flush();
	__builtin_memset(e, 0, sizeof(*e));
	fill_hdr(&e->hdr, FP_EV_URING);
	e->hdr.size = sizeof(*e);
	e->kind = FP_URING_UNSUPPORTED;
	e->opcode = op;
	if (op == IORING_OP_URING_CMD)
		e->arg = BPF_CORE_READ((struct io_uring_cmd *)req_cmd(req),
				       cmd_op);
	emit(e, sizeof(*e));
	return 0;
}

/*
 * A name the kernel copied (struct filename) at off, as the raw string a
 * syscall's record carries; its struct fp_path at at. dirfd as given, or
 * FP_DIRFD_NONE for a symlink's target. Returns the offset after it.
 */
static __always_inline __u32 put_kname(struct scratch *s, __u32 at, __u32 off,
				       __s32 dirfd, struct filename *fn)
{
	const char *name = BPF_CORE_READ(fn, name);
	struct fp_path *p;
	long n;

	if (off > FP_BUF_MASK || at > FP_BUF_MASK - sizeof(*p))
		return off;
	n = bpf_probe_read_kernel_str(s->buf + off, FP_PATH_MAX, name);
	if (n > 0)
		return fp_put_path_at(at, off, dirfd, n);
	p = (struct fp_path *)(s->buf + at);
	p->raw_len = 0;
	p->base_len = 0;
	p->flags = FP_PATH_RAW_FAULT;
	p->dirfd = dirfd;
	return off;
}

/* The file record a path request makes: its header and fixed fields. */
static __always_inline struct fp_file *file_rec(struct scratch *s, __u32 sys)
{
	struct fp_file *e = (struct fp_file *)(s->buf + REQ_AT);

	__builtin_memset(e, 0, sizeof(*e));
	fill_hdr(&e->hdr, FP_EV_FILE);
	e->sys = sys;
	e->npaths = 1;
	e->count = 1;
	s->fdinfo.file = NULL;
	return e;
}

#define PATH_AT(k) \
	(REQ_AT + offsetof(struct fp_file, path) + (k) * sizeof(struct fp_path))
#define DATA_AT (REQ_AT + sizeof(struct fp_file))

/* OPENAT, OPENAT2: the name, dirfd, flags, mode, resolve as prepared */
static __always_inline __u32 open_rec(struct scratch *s, struct io_kiocb *req,
				      __u8 op, __u32 *slot)
{
	struct io_open *o = req_cmd(req);
	struct fp_file *e = file_rec(
		s, op == IORING_OP_OPENAT2 ? FP_SYS_OPENAT2 : FP_SYS_OPENAT);

	e->flags = BPF_CORE_READ(o, how.flags);
	e->mode = BPF_CORE_READ(o, how.mode);
	if (op == IORING_OP_OPENAT2)
		e->resolve = BPF_CORE_READ(o, how.resolve);
	*slot = BPF_CORE_READ(o, file_slot);
	return put_kname(s, PATH_AT(0), DATA_AT, BPF_CORE_READ(o, dfd),
			 BPF_CORE_READ(o, filename));
}

/* UNLINKAT, RENAMEAT, MKDIRAT, SYMLINKAT, LINKAT, as their syscalls */
static __always_inline __u32 path_rec(struct scratch *s, struct io_kiocb *req,
				      __u8 op)
{
	struct io_rename *rn = req_cmd(req);
	struct io_unlink *un = req_cmd(req);
	struct io_mkdir *mk = req_cmd(req);
	struct io_link *ln = req_cmd(req);
	struct fp_file *e;
	__u32 pos;

	switch (op) {
	case IORING_OP_UNLINKAT:
		e = file_rec(s, FP_SYS_UNLINKAT);
		e->flags = BPF_CORE_READ(un, flags);
		return put_kname(s, PATH_AT(0), DATA_AT, BPF_CORE_READ(un, dfd),
				 BPF_CORE_READ(un, filename));
	case IORING_OP_MKDIRAT:
		e = file_rec(s, FP_SYS_MKDIRAT);
		e->mode = BPF_CORE_READ(mk, mode);
		return put_kname(s, PATH_AT(0), DATA_AT, BPF_CORE_READ(mk, dfd),
				 BPF_CORE_READ(mk, filename));
	case IORING_OP_RENAMEAT:
		e = file_rec(s, FP_SYS_RENAMEAT2);
		e->npaths = 2;
		e->flags = BPF_CORE_READ(rn, flags);
		pos = put_kname(s, PATH_AT(0), DATA_AT,
				BPF_CORE_READ(rn, old_dfd),
				BPF_CORE_READ(rn, oldpath));
		return put_kname(s, PATH_AT(1), pos, BPF_CORE_READ(rn, new_dfd),
				 BPF_CORE_READ(rn, newpath));
	case IORING_OP_SYMLINKAT:
		/* oldpath is the target, as symlinkat's first argument */
		e = file_rec(s, FP_SYS_SYMLINKAT);
		e->npaths = 2;
		pos = put_kname(s, PATH_AT(0), DATA_AT,
				BPF_CORE_READ(ln, new_dfd),
				BPF_CORE_READ(ln, newpath));
		return put_kname(s, PATH_AT(1), pos, FP_DIRFD_NONE,
				 BPF_CORE_READ(ln, oldpath));
	default: /* LINKAT */
		e = file_rec(s, FP_SYS_LINKAT);
		e->npaths = 2;
		e->flags = BPF_CORE_READ(ln, flags);
		pos = put_kname(s, PATH_AT(0), DATA_AT,
				BPF_CORE_READ(ln, old_dfd),
				BPF_CORE_READ(ln, oldpath));
		return put_kname(s, PATH_AT(1), pos, BPF_CORE_READ(ln, new_dfd),
				 BPF_CORE_READ(ln, newpath));
	}
}

/* FTRUNCATE: ftruncate's record, the file named by itself. 0 if the fd
 * names no file yet (a direct descriptor an earlier linked request is to
 * fill): the open that fills it was judged, as a write's is. */
static __always_inline __u32 ftrunc_rec(struct scratch *s, struct io_kiocb *req)
{
	struct io_ftrunc *t = req_cmd(req);
	__s32 fd = BPF_CORE_READ(req, cqe.fd);
	__u64 f = named_file(req);
	struct fp_file *e;

	/* 6.9 and later: no older kernel has the opcode */
	if (!f || !bpf_core_type_exists(struct io_ftrunc))
		return 0;
	e = file_rec(s, FP_SYS_FTRUNCATE);
	e->arg[0] = BPF_CORE_READ(t, len);
	fp_file_info(f, fd);
	return fp_put_path_at(PATH_AT(0), DATA_AT, fd, 0);
}

/* A sockaddr the kernel copied into addr (at most 112 bytes), as
 * read_sockaddr() in net.bpf.c reads a syscall's. */
static __always_inline __u16 copy_sockaddr(__u8 *addr, const void *ka,
					   __u32 len)
{
	__u16 family = 0;
	__u32 want;

	if (!ka || bpf_probe_read_kernel(&family, sizeof(family), ka))
		return 0;
	want = family == AF_INET  ? 16 :
	       family == AF_INET6 ? 28 :
	       family == AF_UNIX  ? 110 :
				    2;
	if (len && len < want)
		want = len;
	if (want > 112)
		want = 112;
	/* the bound on the value the helper gets (older verifiers) */
	barrier_var(want);
	want &= 127;
	/* a path name ends at its NUL, as for the syscall */
	if (family == AF_UNIX && want > 2) {
		long n;

		addr[0] = AF_UNIX;
		addr[1] = 0;
		n = bpf_probe_read_kernel_str(addr + 2, 108, ka + 2);
		if (n > 1)
			return 2 + n;
	}
	if (want > 112 || bpf_probe_read_kernel(addr, want, ka))
		return 0;
	return want;
}

/* The sockaddr a connect or bind prepared, where calibration found it. */
static __always_inline void *msg_addr(struct io_kiocb *req)
{
	struct io_async_msghdr *io = BPF_CORE_READ(req, async_data);

	if (!io)
		return NULL;
	if (uring_addr_at == FP_URING_ADDR_PLAIN)
		return io;
	if (uring_addr_at != FP_URING_ADDR_MSGHDR ||
	    !bpf_core_field_exists(struct io_async_msghdr, addr))
		return NULL;
	return (void *)io + bpf_core_field_offset(struct io_async_msghdr, addr);
}

/* Is the sockaddr at ka the calibration's, 127.0.0.1:FP_URING_CALIB_PORT? */
static __always_inline bool calib_addr(const void *ka)
{
	__u8 a[8] = {};

	if (bpf_probe_read_kernel(a, sizeof(a), ka))
		return false;
	return a[0] == AF_INET && a[1] == 0 && a[2] == 0 &&
	       a[3] == FP_URING_CALIB_PORT && a[4] == 127 && a[5] == 0 &&
	       a[6] == 0 && a[7] == 1;
}

/* The tracer's own CONNECT: where did the kernel copy its address? */
static __always_inline void calibrate(struct io_kiocb *req)
{
	void *io = BPF_CORE_READ(req, async_data);

	if (!io)
		return;
	if (calib_addr(io))
		uring_addr_at = FP_URING_ADDR_PLAIN;
	else if (bpf_core_field_exists(struct io_async_msghdr, addr) &&
		 calib_addr(io + bpf_core_field_offset(struct io_async_msghdr,
						       addr)))
		uring_addr_at = FP_URING_ADDR_MSGHDR;
}

/*
 * CONNECT, a SEND or SENDMSG (zero-copy or not) with a destination,
 * ACCEPT: the record connect, sendto and accept make (fp_net). A send
 * without a destination is one on a connected socket: nothing, as for
 * the syscall. 0 when there is no record to make.
 */
static __always_inline __u32 net_rec(struct scratch *s, struct io_kiocb *req,
				     int c)
{
	struct fp_net *e = (struct fp_net *)(s->buf + REQ_AT);
	struct io_async_msghdr *io;
	struct sock *sk;
	__u16 family;
	__u32 len = 0;
	void *ka;

	__builtin_memset(e, 0, sizeof(*e));
	if (c == UC_CONNECT) {
		e->key.op = FP_NET_CONNECT;
		ka = msg_addr(req);
		len = BPF_CORE_READ((struct io_connect *)req_cmd(req),
				    addr_len);
	} else if (c == UC_SEND) {
		e->key.op = FP_NET_SENDTO;
		io = BPF_CORE_READ(req, async_data);
		ka = io ? BPF_CORE_READ(io, msg.msg_name) : NULL;
		len = BPF_CORE_READ(io, msg.msg_namelen);
		if (!ka)
			return 0;
	} else {
		e->key.op = FP_NET_ACCEPT;
		ka = NULL;
	}
	if (c != UC_ACCEPT) {
		e->key.addrlen = copy_sockaddr(e->key.addr, ka, len);
		family = e->key.addr[0] | e->key.addr[1] << 8;
		/* AF_UNSPEC and netlink reach no one (net.bpf.c, net_peer) */
		if (e->key.addrlen < 2 || !family || family == AF_NETLINK)
			return 0;
	}
	fill_hdr(&e->hdr, FP_EV_NET);
	e->hdr.size = sizeof(*e);
	e->key.tgid = e->hdr.pid;
	e->fd = BPF_CORE_READ(req, cqe.fd);
	e->count = 1;
	len = sock_kind(named_file(req), &sk);
	e->key.sock_type = len >> 16;
	e->key.protocol = len & 0xffff;
	return REQ_AT + sizeof(*e);
}

/* BIND: bind's record, the address from the kernel's copy */
static __always_inline __u32 bind_rec(struct scratch *s, struct io_kiocb *req)
{
	struct fp_bind *e = (struct fp_bind *)(s->buf + REQ_AT);
	void *ka = msg_addr(req);
	__u32 len = 0;

	/* 6.11 and later: no older kernel has the opcode */
	if (bpf_core_type_exists(struct io_bind))
		len = BPF_CORE_READ((struct io_bind *)req_cmd(req), addr_len);
	__builtin_memset(e, 0, sizeof(*e));
	fill_hdr(&e->hdr, FP_EV_BIND);
	e->hdr.size = sizeof(*e);
	e->fd = BPF_CORE_READ(req, cqe.fd);
	e->addrlen = len;
	if (len > sizeof(e->addr))
		len = sizeof(e->addr);
	barrier_var(len);
	len &= sizeof(e->addr) * 2 - 1;
	if (ka && len <= sizeof(e->addr))
		bpf_probe_read_kernel(e->addr, len, ka);
	return REQ_AT + sizeof(*e);
}

/* A multishot accept: its later completions carry no request. */
static __always_inline void track_multishot(struct io_kiocb *req)
{
	struct io_accept *a = req_cmd(req);
	struct uring_multi_key k = {};
	__u64 r = (__u64)req;

	if (!bpf_core_field_exists(a->iou_flags) ||
	    !(BPF_CORE_READ(a, iou_flags) & IORING_ACCEPT_MULTISHOT))
		return;
	k.ring = (__u64)BPF_CORE_READ(req, ctx);
	k.user_data = BPF_CORE_READ(req, cqe.user_data);
	bpf_map_update_elem(&uring_multi, &k, &r, BPF_ANY);
}

/*
 * The record of a path request (open, unlink, rename, mkdir, symlink,
 * link, ftruncate), built in the scratch buffer after its wrapper: its
 * end, and an open's file_slot above it (0 when nothing was made). A
 * global function of its own, called by the program itself: the path
 * walks below it are the deepest call chain, whose frames share 512
 * bytes of stack.
 */
__noinline __u64 fp_uring_file_rec(__u64 reqp, __u32 op, __u32 c)
{
	struct io_kiocb *req = (struct io_kiocb *)reqp;
	struct scratch *s = scratch_get();
	__u32 slot = 0, end;

	if (!s)
		return 0;
	/* no rmdir of this task's is what the walks below follow */
	s->paths.own_gen = 0;
	s->fdinfo.file = NULL;
	if (c == UC_OPEN)
		end = open_rec(s, req, op, &slot);
	else if (c == UC_PATH)
		end = path_rec(s, req, op);
	else
		end = ftrunc_rec(s, req);
	s->fdinfo.file = NULL;
	return (__u64)slot << 32 | end;
}

/* The record of a network request: connect, send, accept, bind. */
__noinline __u64 fp_uring_net_rec(__u64 reqp, __u32 op, __u32 c)
{
	struct io_kiocb *req = (struct io_kiocb *)reqp;
	struct scratch *s = scratch_get();
	__u32 slot = 0, end;

	if (!s)
		return 0;
	if (c == UC_BIND)
		return bind_rec(s, req);
	end = net_rec(s, req, c);
	if (c == UC_ACCEPT) {
		slot = BPF_CORE_READ((struct io_accept *)req_cmd(req),
				     file_slot);
		track_multishot(req);
	}
	return (__u64)slot << 32 | end;
}

/*
 * The record built (its end and file_slot in v), wrapped and sent, and
 * what the request's completion will need kept.
 */
__noinline int fp_uring_send(__u64 reqp, __u32 op, __u32 kind, __u64 v)
{
	struct io_kiocb *req = (struct io_kiocb *)reqp;
	struct scratch *s = scratch_get();
	struct uring_track t = { kind, v >> 32, 0 };
	__u32 end = (__u32)v;
	struct fp_uring_req *w;

	if (!s || end <= REQ_AT || end > FP_BUF_SIZE)
		return 0;
	/* the inner record's own size, as the syscall's */
	((struct fp_hdr *)(s->buf + REQ_AT))->size = end - REQ_AT;
	w = (struct fp_uring_req *)s->buf;
	fill_hdr(&w->hdr, FP_EV_URING_REQ);
	w->hdr.size = end;
	w->req = reqp;
	w->opcode = op;
	w->flags = 0;
	t.ring = (__u64)BPF_CORE_READ(req, ctx);
	/*
	 * A success of a request with IOSQE_CQE_SKIP_SUCCESS posts nothing:
	 * it goes out now, as done; its failure, which would post, is not
	 * waited for.
	 */
	if ((BPF_CORE_READ(req, flags) & IOSQE_CQE_SKIP_SUCCESS) ||
	    bpf_map_update_elem(&uring_reqs, &reqp, &t, BPF_ANY))
		w->flags |= FP_UREQ_UNTRACKED;
	else if (!uring_active)
		uring_active = 1;
	/* a read-only open this task held back goes out first */
	fp_open_flush();
	emit(w, end);
	return 0;
}

/* What a completion of class c needs: the file made, the socket used. */
static __always_inline __u32 track_kind(int c)
{
	if (c == UC_OPEN)
		return UK_OPEN;
	if (c == UC_ACCEPT)
		return UK_ACCEPT;
	if (c == UC_CONNECT || c == UC_SEND || c == UC_BIND)
		return UK_SOCK;
	return UK_PLAIN;
}

/*
 * A traced request of class c: its record, and the tracking of its
 * completion, each a global function verified once.
 */
static __always_inline void uring_request(__u64 reqp, __u32 op, int c)
{
	__u64 v;

	if (c == UC_OPEN || c == UC_PATH || c == UC_FTRUNC)
		v = fp_uring_file_rec(reqp, op, c);
	else
		v = fp_uring_net_rec(reqp, op, c);
	fp_uring_send(reqp, op, track_kind(c), v);
}

/*
 * A tracepoint's argument as a plain number: a global function takes no
 * typed kernel pointer, so it gets this and reads through it.
 */
static __always_inline __u64 arg_number(unsigned long long *ctx, int i)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &ctx[i]);
	return v;
}

static __always_inline void uring_submit(unsigned long long *ctx,
					 struct io_kiocb *req)
{
	__u8 op = BPF_CORE_READ(req, opcode);
	int c = uring_class(op);
	__u64 key;

	/*
	 * A request at this address now is not one tracked before: that one
	 * ended without a completion seen (its ring overflowed), and a
	 * completion of this one must not be taken for it. The collector
	 * judges the old one as done.
	 */
	if (uring_active) {
		key = arg_number(ctx, 0);
		bpf_map_delete_elem(&uring_reqs, &key);
	}

	if (op == IORING_OP_RENAMEAT || op == IORING_OP_UNLINKAT)
		__sync_fetch_and_add(&path_gen, 1);
	/* the class first: a harmless request outside the run costs a switch */
	if (c == UC_HARMLESS)
		return;
	if (uring_calib_tgid && op == IORING_OP_CONNECT &&
	    bpf_get_current_pid_tgid() >> 32 == uring_calib_tgid) {
		calibrate(req);
		return;
	}
	if (!traced())
		return;
	/*
	 * Where this kernel keeps the address is not known, or it keeps no
	 * copy of a send's message yet (before 6.10 it makes one only when
	 * it runs the request): not understood, as there is nothing of the
	 * kernel's own to read.
	 */
	if ((c == UC_CONNECT || c == UC_BIND) && !uring_addr_at)
		c = UC_UNKNOWN;
	if (c == UC_SEND && !BPF_CORE_READ(req, async_data))
		c = UC_UNKNOWN;
	if (c == UC_UNKNOWN)
		fp_uring_unknown(arg_number(ctx, 0), op);
	else
		uring_request(arg_number(ctx, 0), op, c);
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(handle_uring_submit, struct io_kiocb *req)
{
	uring_submit(ctx, req);
	return 0;
}

/* Its name before 6.5; user space loads the one this kernel has. */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(handle_uring_submit_sqe, struct io_kiocb *req)
{
	uring_submit(ctx, req);
	return 0;
}

/* ---- completion ---- */

/* The peer of sk as a sockaddr (net.bpf.c's peer_sockaddr). */
static __always_inline __u16 peer_of(__u8 *addr, struct sock *sk)
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
 * The completion of a tracked request: its result, and what the record
 * lacks (the file an open made, the socket used or made). A global
 * function, verified once.
 */
__noinline int fp_uring_done(__u64 reqp, __u64 ringp, long res, __u32 more)
{
	struct io_ring_ctx *ring = (struct io_ring_ctx *)ringp;
	struct io_kiocb *req = (struct io_kiocb *)reqp;
	struct scratch *s = scratch_get();
	struct uring_track *t = bpf_map_lookup_elem(&uring_reqs, &reqp);
	struct fp_uring_done *d;
	struct sock *sk = NULL;
	__u32 size, kind;
	__u64 f;

	if (!t || !s || t->ring != ringp)
		return 0;
	s->paths.own_gen = 0;
	d = (struct fp_uring_done *)s->buf;
	__builtin_memset(d, 0, sizeof(*d));
	fill_hdr(&d->hdr, FP_EV_URING_DONE);
	d->req = reqp;
	d->res = res;
	size = sizeof(*d);
	kind = t->kind;
	if (kind == UK_OPEN) {
		f = made_file(ring, t->slot, res);
		if (f && !fp_file_info(f, (int)res)) {
			d->created = !!(s->fdinfo.f_mode & FMODE_CREATED);
			size = fp_put_path_at(
				offsetof(struct fp_uring_done, path),
				sizeof(*d), (int)res, 0);
			d->npaths = 1;
		}
		s->fdinfo.file = NULL;
	} else if (kind == UK_SOCK) {
		d->sock_kind = sock_kind((__u64)BPF_CORE_READ(req, file), &sk);
		if (sk)
			d->port = BPF_CORE_READ(sk, __sk_common.skc_num);
	} else if (kind == UK_ACCEPT) {
		d->sock_kind = sock_kind(made_file(ring, t->slot, res), &sk);
		if (sk) {
			d->peer_len = peer_of(d->peer, sk);
			d->port = BPF_CORE_READ(sk, __sk_common.skc_num);
		}
	}
	d->more = !!more;
	if (!more)
		bpf_map_delete_elem(&uring_reqs, &reqp);
	if (size < sizeof(*d) || size > FP_BUF_SIZE)
		size = sizeof(*d);
	d->hdr.size = size;
	emit(d, size);
	return 0;
}

/* A completion no request posted: one of a multishot accept's. */
static __always_inline void multishot_done(__u64 ring, __u64 cqep)
{
	struct io_uring_cqe *cqe = (struct io_uring_cqe *)cqep;
	struct uring_multi_key k = {};
	__u64 *r;
	__s32 res = 0;
	__u32 flags = 0;

	k.ring = ring;
	/* the kernel wrote the entry just now; it is read as it wrote it */
	bpf_probe_read_kernel(&k.user_data, sizeof(k.user_data),
			      &cqe->user_data);
	r = bpf_map_lookup_elem(&uring_multi, &k);
	if (!r)
		return;
	bpf_probe_read_kernel(&res, sizeof(res), &cqe->res);
	bpf_probe_read_kernel(&flags, sizeof(flags), &cqe->flags);
	fp_uring_done(*r, k.ring, res, 1);
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(handle_uring_complete, struct io_ring_ctx *ring, void *req,
	     struct io_uring_cqe *cqe)
{
	struct io_kiocb *r = req;

	/* NULL for a CQE that no request posted: the read gives 0 */
	gen_uring(r);
	if (!uring_active)
		return 0;
	if (!r) {
		multishot_done(arg_number(ctx, 0), arg_number(ctx, 2));
		return 0;
	}
	/* the request's own copy of its result, not the shared ring's */
	fp_uring_done(arg_number(ctx, 1), arg_number(ctx, 0),
		      BPF_CORE_READ(r, cqe.res),
		      BPF_CORE_READ(r, cqe.flags) & IORING_CQE_F_MORE);
	return 0;
}

/*
 * io_uring_setup() returned: on a kernel where the submission program
 * is not attached (no such tracepoint, or its layout unknown), a traced
 * process that set up a ring fails the run (file.bpf.c calls this).
 */
__noinline int fp_uring_setup_exit(long ret)
{
	struct fp_uring *e = (struct fp_uring *)scratch_buf();

	if (uring_traced || ret < 0 || !e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));
	fill_hdr(&e->hdr, FP_EV_URING);
	e->hdr.size = sizeof(*e);
	e->kind = FP_URING_UNTRACEABLE;
	e->arg = ret;
	emit(e, sizeof(*e));
	return 0;
}
