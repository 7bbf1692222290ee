/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decoded event: what the collector hands to every consumer (NDJSON
 * writer, recorder, reconciliation). Paths are bytes with a length, never
 * NUL-terminated strings, because file names may hold any byte but '/'
 * and NUL, and lossless is the rule.
 */
#ifndef FP_EVENT_H
#define FP_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "footprint.h"

struct fp_bytes {
	char *data;
	size_t len;
};

struct fp_event_path {
	struct fp_bytes path; /* absolute, lexically normalised */
	int dirfd; /* -100 (AT_FDCWD) or the fd the path was relative to */
	bool truncated;
	bool base_unknown; /* relative to a dirfd that named nothing */
	bool from_fd; /* fchmod, fchown, ftruncate: dirfd is the fd itself */
	bool unresolved; /* a symlink target: raw, as given */
	bool magic; /* went through a /proc magic link (path.h) */
	bool anonymous; /* open: the fd's file has no name (pipe, socket) */
	bool named; /* open: the name given; path[0] is the file reached */
	/* open: the file reached is a secret by its device and inode, of
	 * class file.arg[0] (secrets.h); on path[0] after decoding */
	bool secret_id;
};

/*
 * A new image's credentials as exec left them. known is false for an exec
 * recorded by a footprint that did not record them (log version < 5).
 */
struct fp_privs {
	bool known;
	bool no_new_privs;
	bool secure_exec; /* the kernel's AT_SECURE for this exec */
	uint32_t uid, euid, suid, gid, egid, sgid;
	uint64_t cap_eff, cap_prm;
	uint32_t userns_level; /* 0: the caps are the host's (init userns) */
};

struct fp_event {
	uint32_t type; /* enum fp_event_type; never FP_EV_ARGV */
	uint64_t ts_ns;
	uint32_t pid, tid, ppid, uid, gid;
	uint64_t cgroup_id;
	char comm[FP_COMM_LEN + 1];
	/* FP_VIA_*: a file, bind or net event that came through io_uring */
	uint32_t via;
	union {
		struct {
			struct fp_bytes exe;
			bool exe_truncated;
			struct fp_bytes filename;
			/* NUL-separated, as /proc/PID/cmdline */
			struct fp_bytes argv;
			uint64_t argv_total; /* bytes the process had */
			uint64_t argv_dropped; /* of those, not delivered */
			uint32_t old_pid;
			/* GITHUB_ACTION from the new environment of a step's
			 * first process (a child of the step parent); empty
			 * otherwise */
			struct fp_bytes step_name;
			struct fp_privs creds;
			/* the executable's inode as exec found it: owner and
			 * i_mode; known is false in a log recorded before
			 * footprint kept them */
			struct {
				bool known;
				uint32_t uid;
				uint32_t mode;
			} exe_inode;
		} exec;
		struct {
			uint32_t parent_tid;
		} fork;
		struct {
			int code; /* -1 when killed by a signal */
			int signal; /* 0 when it exited */
			bool core_dumped;
			uint64_t start_ns;
		} exit;
		struct {
			uint32_t sys; /* enum fp_sys */
			int64_t ret;
			bool created; /* this open created the file */
			/* identical read-only opens this one stands for, >= 1 */
			uint32_t count;
			uint64_t flags, mode, resolve;
			uint64_t arg[2]; /* chown uid, gid; truncate length */
			unsigned int npaths;
			struct fp_event_path path[2];
		} file;
		struct {
			int64_t ret;
			int fd;
			int family;
			char address[112]; /* printable, "@name" for abstract */
			struct fp_bytes unix_path; /* AF_UNIX: exact bytes */
			uint16_t port; /* asked for, host order */
			uint16_t bound_port; /* after success, host order */
			uint16_t sock_type, protocol;
		} bind;
		struct {
			uint32_t kind; /* enum fp_tamper_kind */
			int32_t sig; /* FP_TAMPER_SIGNAL: the signal */
			uint32_t target_pid; /* the tracer process aimed at */
			int64_t arg; /* bpf: the command; ptrace: the request */
		} tamper;
		struct {
			struct fp_bytes name; /* as given to sidecar mark */
		} mark;
		struct {
			/* FP_EV_NET and FP_EV_NET_COUNT (user/trace/netev.h) */
			uint32_t op; /* enum fp_net_op */
			int64_t ret; /* 0 or -errno */
			int fd;
			int family;
			char address[112]; /* printable IP */
			struct fp_bytes unix_path; /* AF_UNIX: exact bytes */
			uint16_t port; /* accept: the listener's */
			uint16_t sock_type, protocol;
			uint64_t count;
		} net;
		struct {
			/* FP_DNS_QUERY, FP_DNS_ANSWER or FP_DNS_DELIVERED */
			uint32_t dir;
			int fd;
			uint16_t sock_type;
			uint16_t port; /* the server's */
			int family;
			char server[64]; /* printable IP */
			uint32_t total; /* bytes moved; data has the first */
			struct fp_bytes data;
			/* the socket's inode number; 0 unknown */
			uint32_t sock;
			uint32_t flags; /* FP_DNS_F_* */
		} dns;
		struct {
			uint32_t kind; /* enum fp_uring_kind */
			uint32_t opcode; /* IORING_OP_* */
			int64_t arg; /* URING_CMD: cmd_op; untraceable: fd */
		} uring;
		struct {
			/* FP_SYS_KILL..., FP_SYS_PTRACE, and the
			 * cross-process calls (fp_sys_crossproc) */
			uint32_t sys;
			int32_t sig; /* ptrace: 0 */
			int64_t ret;
			int64_t target; /* pid or pidfd as given */
			uint32_t target_tgid; /* 0: every process (kill -1) */
			int64_t request; /* ptrace; pidfd_getfd: the fd */
		} signal;
		struct {
			/* FP_EV_PROCOP: a mount or namespace call */
			uint32_t sys; /* FP_SYS_MOUNT ... FP_SYS_CLONE3 */
			int64_t ret;
			uint64_t flags; /* struct fp_procop.flags */
			int64_t arg; /* setns: the fd */
			struct fp_bytes target; /* as given; may be empty */
			struct fp_bytes source; /* mount, pivot_root */
		} procop;
		struct {
			/* FP_EV_CONTROL: pid, ppid and uid are the sender's */
			uint32_t op; /* enum fp_control_op */
			uint32_t result; /* enum fp_control_result */
			uint64_t start_ticks; /* the sender's, since boot */
			/* start: the job's step that ran it, 0 if none */
			uint32_t step_pid;
			/* footprint's own processes, as the daemon checked
			 * them: the sender, and the footprint and sudo
			 * processes it descends from */
			uint32_t nown;
			uint32_t own[FP_CTL_MAX_OWN];
			/* mark: the name; start: the step's GITHUB_ACTION */
			struct fp_bytes name;
		} control;
	};
};

/* ptrace and the calls that need its access to another process:
 * pidfd_getfd, process_vm_readv, process_vm_writev (processes.ptraced) */
static inline bool fp_sys_crossproc(uint32_t sys)
{
	return sys == FP_SYS_PTRACE || fp_sys_is_ptrace_access(sys);
}

/* a mount-family call of FP_EV_PROCOP (else a namespace one) */
static inline bool fp_sys_mountlike(uint32_t sys)
{
	return fp_sys_is_mount(sys);
}

/*
 * fp_event.via: the event is a request of an io_uring ring, made into the
 * syscall's event (user/trace/uring_pair.c); and its completion was not
 * seen (IOSQE_CQE_SKIP_SUCCESS, a full completion ring), so it is judged
 * as if it succeeded.
 */
#define FP_VIA_URING 1U
#define FP_VIA_UNSEEN 2U

/* IORING_OP_* as the kernel's uapi names it ("OPENAT"), or NULL */
const char *fp_uring_op_name(uint32_t opcode);

/* a NUL-terminated copy of len bytes; 0 or -ENOMEM */
int fp_bytes_dup(struct fp_bytes *b, const char *s, size_t len);
void fp_event_free(struct fp_event *ev);
const char *fp_sys_name(uint32_t sys);
/* "open", "unlink", "rename", "mkdir", "mknod", "symlink", "link",
 * "chmod", "chown", "truncate", "bind", "exec", "fork", "exit", "tamper",
 * "mark", "signal", "ptrace", "control" */
const char *fp_event_kind(const struct fp_event *ev);
/* "start", "hello", "mark", "status", "stop", or "unknown" */
const char *fp_control_op_name(uint64_t op);

/*
 * What a file event did, as fp_event_kind() names it: the judging code
 * asks this of every event, where comparing the names cost a string
 * compare each
 */
enum fp_file_op {
	FP_FOP_OPEN,
	FP_FOP_UNLINK,
	FP_FOP_RENAME,
	FP_FOP_MKDIR,
	FP_FOP_MKNOD,
	FP_FOP_SYMLINK,
	FP_FOP_LINK,
	FP_FOP_CHMOD,
	FP_FOP_CHOWN,
	FP_FOP_TRUNCATE,
};

/* of an FP_EV_FILE event only: it reads ev->file */
enum fp_file_op fp_file_op(const struct fp_event *ev);

/*
 * The receipt keeps this much of a command line; argv may be 2 MiB per
 * exec, and a run may exec thousands of times. The whole argv stays in the
 * events stream and the log.
 */
#define FP_ARGV_KEEP 4096

#endif
