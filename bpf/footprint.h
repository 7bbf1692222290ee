/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records shared by the kernel side (the .bpf.c files of bpf/) and the
 * userspace collector.
 *
 * Every record starts with struct fp_hdr; hdr.size is the whole record
 * length, so a reader can step over record types it does not know.
 * Variable data (paths, argv) follows the fixed part in data[].
 */
#ifndef FOOTPRINT_H
#define FOOTPRINT_H

#define FP_COMM_LEN 16
#define FP_PATH_MAX 4096
#define FP_NAME_MAX 256
#define FP_ARGV_CHUNK 4096
#define FP_SOCKADDR_MAX 128
#define FP_ARGV_MAX_CHUNKS 512 /* 2 MiB, the most exec(2) accepts */

/* Scope beyond one cgroup (the sidecar): bounds of the kernel's tables */
#define FP_MAX_CGROUPS 8
#define FP_MAX_SELF 4 /* the tracer's own processes, never traced */
#define FP_MAX_TRACED_PIDS 32768 /* default size of the pid-tree table */
/* how much of a step process's environment is searched for GITHUB_ACTION */
#define FP_ENV_MAX 32768
#define FP_STEP_NAME_MAX 256

enum fp_event_type {
	FP_EV_EXEC = 1,
	FP_EV_ARGV = 2, /* argv bytes of the preceding FP_EV_EXEC */
	FP_EV_FORK = 3,
	FP_EV_EXIT = 4,
	FP_EV_FILE = 5,
	FP_EV_BIND = 6,
	/* a traced process reached for the tracer itself (sidecar) */
	FP_EV_TAMPER = 7,
	/* never from the kernel: a step named by `footprint sidecar mark` */
	FP_EV_MARK = 8,
	/* connect, sendto/sendmsg with a destination, accept: the first of
	 * each (process, destination, result), counted on in the kernel */
	FP_EV_NET = 9,
	/* the final count of an FP_EV_NET seen more than once (end of run) */
	FP_EV_NET_COUNT = 10,
	/* the first bytes of a DNS query or answer */
	FP_EV_DNS = 11,
	/* kill, tkill, tgkill, pidfd_send_signal or ptrace aimed at a process
	 * outside the run (struct fp_signal) */
	FP_EV_SIGNAL = 13,
	/*
	 * A mount, an unmount or a namespace made or joined by a traced
	 * process (struct fp_procop). Numbered apart from the others, which
	 * other families append to.
	 */
	FP_EV_PROCOP = 24,
	/* never from the kernel: a message on the sidecar's control socket
	 * (or its start), and who sent it as the daemon checked it */
	FP_EV_CONTROL = 14,
};

/* what an FP_EV_TAMPER record saw */
enum fp_tamper_kind {
	FP_TAMPER_SIGNAL = 1, /* a signal sent to the tracer's processes */
	FP_TAMPER_BPF = 2, /* a bpf() syscall */
	FP_TAMPER_PTRACE = 3, /* ptrace of the tracer's processes */
	/* userspace only: the tracer's own programs stopped answering */
	FP_TAMPER_HEARTBEAT = 4,
	/* userspace only (sidecar): a root process that is not footprint's
	 * own said hello or asked for a stop on the control socket */
	FP_TAMPER_CONTROL = 5,
	/* userspace only: this sidecar took over a state directory whose
	 * last sidecar traced a job that still runs (a restart) */
	FP_TAMPER_RESTART = 6,
	/* userspace only: stop found another daemon than the one pinned */
	FP_TAMPER_REPLACED = 7,
};

/* FP_EV_CONTROL: what was asked, and what the daemon made of it */
enum fp_control_op {
	FP_CTL_START = 1,
	FP_CTL_HELLO = 2,
	FP_CTL_MARK = 3,
	FP_CTL_STATUS = 4,
	FP_CTL_STOP = 5,
};

enum fp_control_result {
	FP_CTL_OK = 0, /* done; the sender is footprint's own */
	FP_CTL_REFUSED = 1, /* not done; the sender may not ask it */
	FP_CTL_TAMPER = 2, /* not done, and evidence: see FP_TAMPER_CONTROL */
	FP_CTL_FOREIGN = 3, /* done, but the sender is not footprint */
};

#define FP_CTL_MAX_OWN 8 /* the sender and the footprint and sudo above it */

enum fp_sys {
	FP_SYS_OPEN = 1,
	FP_SYS_OPENAT,
	FP_SYS_OPENAT2,
	FP_SYS_CREAT,
	FP_SYS_UNLINK,
	FP_SYS_UNLINKAT,
	FP_SYS_RENAME,
	FP_SYS_RENAMEAT,
	FP_SYS_RENAMEAT2,
	FP_SYS_BIND,
	FP_SYS_MKDIR,
	FP_SYS_MKDIRAT,
	FP_SYS_RMDIR,
	FP_SYS_MKNOD,
	FP_SYS_MKNODAT,
	FP_SYS_SYMLINK,
	FP_SYS_SYMLINKAT,
	FP_SYS_LINK,
	FP_SYS_LINKAT,
	FP_SYS_CHMOD,
	FP_SYS_FCHMOD,
	FP_SYS_FCHMODAT,
	FP_SYS_FCHMODAT2,
	FP_SYS_CHOWN,
	FP_SYS_LCHOWN,
	FP_SYS_FCHOWN,
	FP_SYS_FCHOWNAT,
	FP_SYS_TRUNCATE,
	FP_SYS_FTRUNCATE,
	/* not file syscalls: tamper evidence and the heartbeat */
	FP_SYS_BPF,
	FP_SYS_PTRACE,
	FP_SYS_HEARTBEAT, /* getppid: the tracer checks its programs run */
	/* signals aimed at other processes (signal.bpf.c); ptrace too */
	FP_SYS_KILL,
	FP_SYS_TKILL,
	FP_SYS_TGKILL,
	FP_SYS_PIDFD_SEND_SIGNAL,
	/* network (net.bpf.c), after the others: their numbers are in logs */
	FP_SYS_CONNECT,
	FP_SYS_SENDTO,
	FP_SYS_SENDMSG,
	FP_SYS_ACCEPT,
	FP_SYS_ACCEPT4,
	FP_SYS_RECVFROM,
	FP_SYS_RECVMSG,
	FP_SYS_READ, /* only while a DNS socket of the run is open */
	/* io_uring_setup: on a kernel whose io_uring requests footprint
	 * cannot see (uring.bpf.c), a ring set up fails the run */
	FP_SYS_URING_SETUP,
	/*
	 * Appended to the network calls after io_uring_setup (net.bpf.c):
	 * inside fp_sys_is_net()'s range, which gives them to net_exit().
	 * sendmmsg: each message's destination, and its DNS queries.
	 */
	FP_SYS_SENDMMSG,
	/* i386's multiplexer of the socket calls (compat only; net.bpf.c) */
	FP_SYS_SOCKETCALL,
	/*
	 * Cross-process calls, open_by_handle_at, mounts and namespaces:
	 * numbered from 64, apart from the families above, which append to
	 * their own lists. Their numbers are in logs too.
	 */
	FP_SYS_PIDFD_GETFD = 64, /* as ptrace, an FP_EV_SIGNAL record */
	FP_SYS_PROCESS_VM_READV,
	FP_SYS_PROCESS_VM_WRITEV,
	FP_SYS_OPEN_BY_HANDLE_AT, /* an FP_EV_FILE open, path[0] its fd's */
	FP_SYS_MOUNT, /* FP_SYS_MOUNT ... FP_SYS_CLONE3: FP_EV_PROCOP */
	FP_SYS_UMOUNT2,
	FP_SYS_OPEN_TREE,
	FP_SYS_MOVE_MOUNT,
	FP_SYS_FSMOUNT,
	FP_SYS_MOUNT_SETATTR,
	FP_SYS_PIVOT_ROOT,
	FP_SYS_UNSHARE,
	FP_SYS_SETNS,
	FP_SYS_CLONE,
	FP_SYS_CLONE3,
	FP_SYS_MAX,
};

_Static_assert(FP_SYS_SOCKETCALL < FP_SYS_PIDFD_GETFD,
	       "the network calls must stay below the cross-process ones");

#ifndef __bpf__
#include <stdbool.h>
#endif

/*
 * The families of enum fp_sys. Code asks these, never compares numbers,
 * so that the order of the enum is relied on here only: a value added
 * to a family goes inside its range, or the predicate names it.
 */

/* open, openat, openat2, creat: an open of a name */
static inline bool fp_sys_is_name_open(__u32 sys)
{
	return sys >= FP_SYS_OPEN && sys <= FP_SYS_CREAT;
}

/* an open of a name, or open_by_handle_at (path[0] its fd's) */
static inline bool fp_sys_is_open(__u32 sys)
{
	return fp_sys_is_name_open(sys) || sys == FP_SYS_OPEN_BY_HANDLE_AT;
}

/* an FP_EV_FILE syscall: bind, numbered among them, is a network call */
static inline bool fp_sys_is_file(__u32 sys)
{
	return (sys >= FP_SYS_OPEN && sys <= FP_SYS_FTRUNCATE &&
		sys != FP_SYS_BIND) ||
	       sys == FP_SYS_OPEN_BY_HANDLE_AT;
}

/* kill, tkill, tgkill, pidfd_send_signal: an FP_EV_SIGNAL's signal */
static inline bool fp_sys_is_signal(__u32 sys)
{
	return sys >= FP_SYS_KILL && sys <= FP_SYS_PIDFD_SEND_SIGNAL;
}

/*
 * pidfd_getfd, process_vm_readv, process_vm_writev: the calls that need
 * ptrace's access to another process (FP_EV_SIGNAL records, as ptrace)
 */
static inline bool fp_sys_is_ptrace_access(__u32 sys)
{
	return sys >= FP_SYS_PIDFD_GETFD && sys <= FP_SYS_PROCESS_VM_WRITEV;
}

/*
 * The calls net.bpf.c decodes: bind, connect ... sendmmsg, socketcall,
 * and io_uring_setup, numbered among them and passed on from there
 */
static inline bool fp_sys_is_net(__u32 sys)
{
	return sys == FP_SYS_BIND ||
	       (sys >= FP_SYS_CONNECT && sys <= FP_SYS_SOCKETCALL);
}

/* recvfrom, recvmsg, read: traced only while a DNS socket is open */
static inline bool fp_sys_is_recv(__u32 sys)
{
	return sys >= FP_SYS_RECVFROM && sys <= FP_SYS_READ;
}

/* a mount or namespace call: an FP_EV_PROCOP record */
static inline bool fp_sys_is_procop(__u32 sys)
{
	return sys >= FP_SYS_MOUNT && sys <= FP_SYS_CLONE3;
}

/* a mount-family call of FP_EV_PROCOP (else a namespace one) */
static inline bool fp_sys_is_mount(__u32 sys)
{
	return sys >= FP_SYS_MOUNT && sys <= FP_SYS_PIVOT_ROOT;
}

/*
 * Syscall numbers are per architecture, so userspace fills the table that
 * maps them to enum fp_sys, indexed by number: the low 16 bits for the
 * native syscall of that number, the high 16 bits for the 32-bit compat
 * one, so that one lookup tells whether either is of interest. Compat
 * file syscalls are only counted: their arguments are laid out differently.
 */
#define FP_NR_SYSCALLS 1024
#define FP_SYS_NATIVE(v) ((v)&0x7fff)
#define FP_SYS_COMPAT(v) (((v) >> 16) & 0x7fff)
/*
 * Or'ed into an entry's half: the syscall can change what a directory's
 * path is (rename, rmdir, mount, chdir, ...). Its exit bumps the
 * generation that the cached cwd and dirfd walks are checked against.
 */
#define FP_SYS_GEN 0x8000U
#define FP_GEN_NATIVE(v) ((v)&FP_SYS_GEN)
#define FP_GEN_COMPAT(v) ((v) & (FP_SYS_GEN << 16))

/* programs whose runs fp_tracer_heartbeat() checks, counters indexed so */
enum fp_heartbeat_prog {
	FP_HB_SYS_EXIT,
	FP_HB_FORK,
	FP_HB_EXIT,
	FP_HB_SIGNAL,
	FP_HB_NPROGS,
};

/*
 * A process as the task iterator sees it (proctab.bpf.c): one record per
 * thread-group leader, read by the process table's snapshot
 * (user/snapshot/snapshot_tasks.c) instead of /proc/PID/stat and cgroup.
 */
struct fp_task_rec {
	__u32 pid; /* the tgid, in the initial pid namespace */
	__u32 ppid; /* real_parent's tgid, as /proc/PID/stat's field 4 */
	__u64 start_ns; /* task->start_boottime: field 22 in ns */
	__u64 cgroup_id; /* its cgroup v2's kernfs id (the default hierarchy) */
	__u32 flags; /* task->flags: PF_KTHREAD */
	__u32 uid; /* real_cred's real uid, as /proc/PID/status's Uid */
	__u64 cap_eff; /* real_cred's effective capabilities (CapEff) */
	__u32 no_new_privs; /* atomic_flags' PFA_NO_NEW_PRIVS (NoNewPrivs) */
	__u32 pad;
	char comm[16];
};

/* dirfd value for a path argument that is not resolved (a symlink target) */
#define FP_DIRFD_NONE (-1000)

/* struct fp_path.flags */
#define FP_PATH_RAW_TRUNC (1U << 0) /* the string passed in was cut */
#define FP_PATH_BASE_TRUNC (1U << 1) /* the directory walk was cut */
#define FP_PATH_BASE_UNKNOWN (1U << 2) /* dirfd did not name an open file */
#define FP_PATH_BASE_DETACHED (1U << 3) /* walk ended off the task's root */
#define FP_PATH_RAW_FAULT (1U << 4) /* the user pointer was unreadable */
#define FP_PATH_FROM_FD (1U << 5) /* no string: the path of an open fd */
#define FP_PATH_OPENED (1U << 6) /* the file an open returned (path[1]) */
#define FP_PATH_ANON (1U << 7) /* the fd's file has no name: pipe, socket */
#define FP_PATH_PROCFS (1U << 8) /* the fd's file is on procfs */
/* path[1] of a non-open syscall: the file its /proc/self/fd/N name reached */
#define FP_PATH_FD_LINK (1U << 9)
/*
 * path[1] of an open: the file behind the fd is a secret by its device
 * and inode (the secret_ids map), whatever name reached it; fp_file.arg[0]
 * is then the secret's class (enum in user/core/secrets.h), 1-based.
 */
#define FP_PATH_SECRET_ID (1U << 10)

struct fp_hdr {
	__u32 type;
	__u32 size;
	__u64 ts_ns;
	__u32 pid; /* tgid */
	__u32 tid;
	__u32 ppid;
	__u32 uid;
	__u32 gid;
	__u32 _pad;
	__u64 cgroup_id;
	char comm[FP_COMM_LEN];
};

/*
 * A path as the kernel saw it: the raw string the syscall got and, when
 * that is relative, the directory it was relative to as dentry names
 * from leaf to root, each NUL-terminated ("base"). Userspace joins them.
 * In data[] the raw string comes first, then the base.
 */
struct fp_path {
	__u32 raw_len; /* bytes including the NUL */
	__u32 base_len; /* bytes of all NUL-terminated names */
	__u32 flags;
	__s32 dirfd; /* AT_FDCWD (-100) when relative to the cwd */
};

/*
 * A successful open carries two paths: path[0] as named, path[1] the file
 * behind the returned fd (FP_PATH_FROM_FD | FP_PATH_OPENED), which differs
 * when the name went through a symlink or a /proc magic link.
 */
struct fp_file {
	struct fp_hdr hdr;
	__s64 ret;
	__u32 sys;
	__u32 npaths;
	__u32 created; /* the open created the file (FMODE_CREATED) */
	__u32 count; /* identical read-only opens it stands for (bpf/collapse.h) */
	__u64 flags; /* open/openat2 flags, unlink or rename flags */
	__u64 mode;
	__u64 resolve; /* openat2 RESOLVE_* */
	__u64 arg[2]; /* chown: uid, gid; truncate: length; mknod: dev */
	struct fp_path path[2];
	char data[];
};

/*
 * The credentials of a new image, just after exec committed them. The
 * capability sets are 64-bit masks of CAP_* bits.
 */
struct fp_exec_creds {
	__u32 uid, euid, suid;
	__u32 gid, egid, sgid;
	__u64 cap_eff;
	__u64 cap_prm;
	__u32 no_new_privs;
	__u32 secureexec; /* AT_SECURE: the exec changed privileges */
	__u32 userns_level; /* of the user namespace the caps are in: 0 init */
	__u32 _pad;
};

struct fp_exec {
	struct fp_hdr hdr;
	struct fp_exec_creds creds;
	__u32 old_pid;
	__u32 exe_flags; /* FP_PATH_* for the executable path walk */
	__u32 exe_len; /* leaf-first names, as fp_path.base */
	__u32 filename_len; /* string given to execve, NUL included */
	__u32 argv_len; /* bytes between mm->arg_start and arg_end */
	__u32 argv_chunks; /* FP_EV_ARGV records that follow */
	/* GITHUB_ACTION of a step's first process, NUL included; 0 if none */
	__u32 step_len;
	/* the executable's inode: owner (the kernel's uid, not a user
	 * namespace's) and i_mode, so that an authentication program is
	 * known by the file the kernel ran, not by its name alone */
	__u32 exe_uid;
	__u32 exe_mode;
	__u32 _pad;
	char data[]; /* exe names, filename, step name */
};

struct fp_argv {
	struct fp_hdr hdr;
	__u32 seq;
	__u32 offset;
	__u32 len;
	__u32 _pad;
	char data[];
};

struct fp_fork {
	struct fp_hdr hdr; /* the child */
	__u32 parent_tid;
	__u32 _pad;
};

struct fp_exit {
	struct fp_hdr hdr;
	__u32 status; /* wait(2) status: code << 8, or signal | 0x80 core */
	__u32 _pad;
	__u64 start_ns; /* task start, so a duplicate exit is recognisable */
};

struct fp_bind {
	struct fp_hdr hdr;
	__s64 ret;
	__s32 fd;
	__u32 addrlen;
	__u16 sock_type;
	__u16 protocol;
	__u16 bound_port; /* local port after a successful bind, host order */
	__u16 _pad;
	__u8 addr[FP_SOCKADDR_MAX];
	/* a unix socket bound by a relative name: the socket file's own
	 * names, leaf-first as fp_path.base, in data[]; FP_PATH_* flags */
	__u32 path_len;
	__u32 path_flags;
	char data[];
};

struct fp_tamper {
	struct fp_hdr hdr; /* the traced process that did it */
	__u32 kind; /* enum fp_tamper_kind */
	__s32 sig;
	__u32 target_pid; /* the tracer's process aimed at (tgid) */
	__u32 _pad;
	__s64 arg; /* bpf: the command; ptrace: the request */
};

/* struct fp_net.op */
enum fp_net_op {
	FP_NET_CONNECT = 1,
	FP_NET_SENDTO = 2, /* sendto or sendmsg with a destination */
	FP_NET_ACCEPT = 3,
	/*
	 * How a TCP connect that returned EINPROGRESS ended (ret: 0
	 * established, or the socket's error: ECONNREFUSED, ETIMEDOUT, ...;
	 * ECONNABORTED if it was closed first), from sock:inet_sock_set_state.
	 * The address is the one the socket connected to.
	 */
	FP_NET_OUTCOME = 4,
};

/*
 * One destination of one process: the aggregation key the kernel counts
 * under (net_flows), and the record emitted at its first sight. addr is
 * the sockaddr as given (connect, sendto) or the peer's (accept).
 */
struct fp_net_key {
	__u32 tgid;
	__u16 op; /* enum fp_net_op */
	__u16 sock_type;
	__u16 protocol;
	__u16 addrlen;
	__s32 ret; /* 0 or -errno; -EINPROGRESS is an attempt */
	__u8 addr[112]; /* struct sockaddr_un fits */
};

struct fp_net {
	struct fp_hdr hdr;
	struct fp_net_key key;
	__s32 fd;
	__u32 _pad;
	__u64 count; /* calls so far: 1 at first sight, the total in a COUNT */
};

#define FP_DNS_MAX 512
#define FP_MAX_DNS_PORTS 8
/* struct fp_dns.dir */
#define FP_DNS_QUERY 1
#define FP_DNS_ANSWER 2
/* an answer read from the kernel's own copy as it was delivered
 * (dns.bpf.c): peer is its source, from the IP and UDP headers */
#define FP_DNS_DELIVERED 3
/* or'ed into dir: the socket's network namespace belongs to a user
 * namespace other than the initial one */
#define FP_DNS_F_USERNS 0x100

struct fp_dns {
	struct fp_hdr hdr;
	__s32 fd;
	__u16 dir; /* FP_DNS_QUERY, _ANSWER or _DELIVERED, | FP_DNS_F_* */
	__u16 sock_type;
	__u32 len; /* bytes in data[] */
	__u32 total; /* bytes the syscall moved; DELIVERED: the message's */
	__u8 peer[28]; /* the server: sockaddr_in or sockaddr_in6 */
	__u32 sock; /* the socket's inode number; 0: unknown */
	__u8 data[FP_DNS_MAX];
};

/*
 * A signal or ptrace request from a traced process to a process outside
 * the run, decided at syscall entry (the target may be gone at exit) and
 * sent at exit with the result.
 */
struct fp_signal {
	struct fp_hdr hdr;
	__s64 ret;
	__u32 sys; /* FP_SYS_KILL ... FP_SYS_PIDFD_SEND_SIGNAL, FP_SYS_PTRACE */
	__s32 sig; /* the signal; ptrace: 0 */
	__s64 target; /* the pid or fd as given (kill: < 0 a group, -1 all) */
	__u32 target_tgid; /* as the tracer sees it; 0: every process */
	__u32 _pad;
	__s64 request; /* ptrace: the request */
};

/*
 * A mount, unmount or namespace call of a traced process, at its exit.
 * data[] holds up to two NUL-terminated names as the caller gave them
 * (mount: target then source; umount2, mount_setattr, pivot_root,
 * move_mount: the target), each cut to FP_PROCOP_NAME bytes.
 */
#define FP_PROCOP_NAME 256
struct fp_procop {
	struct fp_hdr hdr;
	__s64 ret;
	__u32 sys; /* FP_SYS_MOUNT ... FP_SYS_CLONE3 */
	__u32 names_len; /* bytes of data[] */
	__u64 flags; /* mount: MS_*; umount2, open_tree, move_mount...:
		      * their flags; unshare, clone, clone3: CLONE_*;
		      * setns: nstype */
	__s64 arg; /* setns: the fd */
	char data[2 * FP_PROCOP_NAME];
};

/* Secrets by identity (the secret_ids map): the kernel's dev_t, inode */
struct fp_secret_id {
	__u64 dev;
	__u64 ino;
};
#define FP_MAX_SECRET_IDS 4096
/*
 * A secret's inode number's low bits, set in a bitmap beside the map: an
 * open whose inode's bit is clear is no secret, without the hash lookup.
 */
#define FP_SECRET_INO_BITS 32768
#define FP_SECRET_INO_BIT(ino) ((ino) & (FP_SECRET_INO_BITS - 1))

/* per-CPU counters, summed by userspace */
struct fp_stats {
	__u64 events; /* records committed */
	__u64 lost; /* records that could not be reserved */
	__u64 lost_bytes;
	__u64 pending_full; /* syscalls whose arguments could not be kept */
	__u64 compat; /* 32-bit file syscalls, which are not decoded */
	__u64 scope_full; /* processes the pid-tree table had no room for */
	/* network calls the flow table had no room for: each emitted alone */
	__u64 net_unagg;
	__u64 dns_full; /* DNS sockets the table had no room for */
	/* bytes emitted since this CPU last asked how full the ring is */
	__u64 unasked_bytes;
	/*
	 * sends whose destination the kernel did not give (no route was
	 * looked up, none could be kept) and the caller's memory no longer
	 * named (net.bpf.c): the trace is incomplete
	 */
	__u64 net_unsure;
};

/*
 * io_uring (uring.bpf.c). A request of a traced ring whose syscall would
 * make a record comes as FP_EV_URING_REQ at its submission, holding that
 * record as the syscall would make it (the kernel's own copy of the
 * arguments, read after the request was prepared), and as FP_EV_URING_DONE
 * at its completion, with the result. The collector pairs them
 * (user/trace/uring_pair.c) into the syscall's event, marked as come
 * through io_uring. Neither reaches a log or a consumer. A request
 * footprint does not understand, and a ring set up where requests cannot
 * be seen, are FP_EV_URING: the trace is incomplete.
 */
enum fp_uring_event_type {
	FP_EV_URING = 20, /* struct fp_uring */
	FP_EV_URING_REQ = 21, /* struct fp_uring_req, then the record */
	FP_EV_URING_DONE = 22, /* struct fp_uring_done */
};

/* struct fp_uring.kind */
enum fp_uring_kind {
	FP_URING_UNSUPPORTED = 1, /* an opcode footprint does not understand */
	FP_URING_UNTRACEABLE = 2, /* a ring where requests cannot be seen */
};

/* the first of each (process, opcode): the rest are the same finding */
struct fp_uring {
	struct fp_hdr hdr;
	__u32 kind; /* enum fp_uring_kind */
	__u32 opcode; /* IORING_OP_*; untraceable: 0 */
	__s64 arg; /* URING_CMD: its cmd_op; untraceable: the ring's fd */
};

/*
 * Where a kernel keeps the sockaddr an io_uring CONNECT or BIND copied
 * is not in its BTF (stable 6.18 kernels moved it from struct
 * io_async_msghdr to a plain sockaddr_storage), so the tracer makes one
 * CONNECT of its own right after attach, to this address, and the
 * kernel side looks for it at either place (user/trace/uring_calib.c).
 */
#define FP_URING_CALIB_PORT 9 /* discard */
#define FP_URING_ADDR_UNKNOWN 0 /* CONNECT and BIND: not understood */
#define FP_URING_ADDR_PLAIN 1 /* async_data is the sockaddr */
#define FP_URING_ADDR_MSGHDR 2 /* struct io_async_msghdr's addr */

/* struct fp_uring_req.flags */
#define FP_UREQ_UNTRACKED 1 /* no room to pair it: its result is not seen */

struct fp_uring_req {
	struct fp_hdr hdr; /* hdr.size covers the record that follows */
	__u64 req; /* the request (struct io_kiocb), as FP_EV_URING_DONE's */
	__u32 opcode;
	__u32 flags;
	/* then a whole struct fp_file, fp_net or fp_bind record */
};

struct fp_uring_done {
	struct fp_hdr hdr;
	__u64 req;
	__s64 res; /* what the completion says: an fd, a slot, -errno */
	__u32 created; /* an open: it created the file (FMODE_CREATED) */
	__u32 sock_kind; /* type << 16 | protocol of the socket used or made */
	__u16 port; /* bind: the port bound; accept: the listener's */
	__u16 peer_len; /* accept: the peer, as a sockaddr */
	__u8 peer[28];
	__u16 npaths; /* 1: path is the file an open made, named by itself */
	__u16 more; /* a multishot accept's: more completions follow */
	struct fp_path path;
	__u32 _pad; /* data[] at sizeof() */
	char data[];
};

#endif /* FOOTPRINT_H */
