// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>

#include "event_json.h"
#include "secrets.h"
#include "net_json.h"
#include "json.h"
#include "privs_json.h"

#define AT_FDCWD_VALUE -100

struct flag_name {
	uint64_t bit;
	const char *name;
};

/* multi-bit flags first: O_TMPFILE holds O_DIRECTORY, O_SYNC holds O_DSYNC */
static const struct flag_name open_flags[] = {
	{ O_TMPFILE, "O_TMPFILE" },   { O_SYNC, "O_SYNC" },
	{ O_CREAT, "O_CREAT" },	      { O_EXCL, "O_EXCL" },
	{ O_NOCTTY, "O_NOCTTY" },     { O_TRUNC, "O_TRUNC" },
	{ O_APPEND, "O_APPEND" },     { O_NONBLOCK, "O_NONBLOCK" },
	{ O_DSYNC, "O_DSYNC" },	      { O_DIRECT, "O_DIRECT" },
	{ 0100000, "O_LARGEFILE" },   { O_DIRECTORY, "O_DIRECTORY" },
	{ O_NOFOLLOW, "O_NOFOLLOW" }, { O_NOATIME, "O_NOATIME" },
	{ O_CLOEXEC, "O_CLOEXEC" },   { O_PATH, "O_PATH" },
};

static const struct flag_name rename_flags[] = {
	{ RENAME_NOREPLACE, "RENAME_NOREPLACE" },
	{ RENAME_EXCHANGE, "RENAME_EXCHANGE" },
	{ RENAME_WHITEOUT, "RENAME_WHITEOUT" },
};

static const struct flag_name unlink_flags[] = {
	{ AT_REMOVEDIR, "AT_REMOVEDIR" },
};

static const struct flag_name link_flags[] = {
	{ AT_SYMLINK_FOLLOW, "AT_SYMLINK_FOLLOW" },
	{ AT_EMPTY_PATH, "AT_EMPTY_PATH" },
};

static void append(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	if (used && used + 1 < len)
		strncat(buf, "|", len - used - 1);
	used = strlen(buf);
	if (used + 1 < len)
		strncat(buf, s, len - used - 1);
}

static void flags_text(char *buf, size_t len, uint64_t flags,
		       const struct flag_name *names, size_t n)
{
	char rest[32];
	size_t i;

	for (i = 0; i < n; i++) {
		if ((flags & names[i].bit) == names[i].bit) {
			append(buf, len, names[i].name);
			flags &= ~names[i].bit;
		}
	}
	if (flags) {
		snprintf(rest, sizeof(rest), "0x%llx",
			 (unsigned long long)flags);
		append(buf, len, rest);
	}
}

void fp_open_flags_text(char *buf, size_t len, uint64_t flags)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR",
					   "O_ACCMODE" };

	snprintf(buf, len, "%s", acc[flags & O_ACCMODE]);
	flags &= ~(uint64_t)O_ACCMODE;
	flags_text(buf, len, flags, open_flags,
		   sizeof(open_flags) / sizeof(open_flags[0]));
}

static void write_result(struct json_out *j, int64_t ret)
{
	json_field_i64(j, "ret", ret);
	json_field_bool(j, "ok", ret >= 0);
	if (ret < 0) {
		const char *name = strerrorname_np((int)-ret);

		json_field_str(j, "errno", name ? name : "E?");
	}
}

static void write_path(struct json_out *j, const char *key,
		       const struct fp_event_path *p)
{
	char k[48];

	json_field_bytes(j, key, p->path.data, p->path.len);
	if (p->from_fd) {
		json_field_i64(j, "fd", p->dirfd);
	} else if (p->dirfd != AT_FDCWD_VALUE && !p->unresolved) {
		snprintf(k, sizeof(k), "%s_dirfd", key);
		json_field_i64(j, k, p->dirfd);
	}
	if (p->truncated) {
		snprintf(k, sizeof(k), "%s_truncated", key);
		json_field_bool(j, k, true);
	}
	if (p->base_unknown) {
		snprintf(k, sizeof(k), "%s_base_unknown", key);
		json_field_bool(j, k, true);
	}
	if (p->magic) {
		snprintf(k, sizeof(k), "%s_magic", key);
		json_field_bool(j, k, true);
	}
	if (p->anonymous) {
		snprintf(k, sizeof(k), "%s_anonymous", key);
		json_field_bool(j, k, true);
	}
}

static void write_file(struct json_out *j, const struct fp_event *ev)
{
	char text[256] = "";
	enum fp_file_op op = fp_file_op(ev);

	json_field_str(j, "syscall", fp_sys_name(ev->file.sys));
	if (op == FP_FOP_RENAME || op == FP_FOP_LINK) {
		write_path(j, "old_path", &ev->file.path[0]);
		write_path(j, "new_path", &ev->file.path[1]);
		json_field_u64(j, "flags", ev->file.flags);
		if (op == FP_FOP_RENAME)
			flags_text(text, sizeof(text), ev->file.flags,
				   rename_flags,
				   sizeof(rename_flags) /
					   sizeof(rename_flags[0]));
		else
			flags_text(text, sizeof(text), ev->file.flags,
				   link_flags,
				   sizeof(link_flags) / sizeof(link_flags[0]));
		json_field_str(j, "flags_text", text);
	} else if (op == FP_FOP_UNLINK) {
		write_path(j, "path", &ev->file.path[0]);
		json_field_u64(j, "flags", ev->file.flags);
		flags_text(text, sizeof(text), ev->file.flags, unlink_flags,
			   sizeof(unlink_flags) / sizeof(unlink_flags[0]));
		json_field_str(j, "flags_text", text);
	} else if (op == FP_FOP_OPEN) {
		write_path(j, "path", &ev->file.path[0]);
		if (ev->file.npaths == 2 && ev->file.path[1].named)
			write_path(j, "named_path", &ev->file.path[1]);
		json_field_u64(j, "flags", ev->file.flags);
		fp_open_flags_text(text, sizeof(text), ev->file.flags);
		json_field_str(j, "flags_text", text);
		json_field_mode(j, "mode", ev->file.mode);
		if (ev->file.sys == FP_SYS_OPENAT2)
			json_field_u64(j, "resolve", ev->file.resolve);
		json_field_bool(j, "created", ev->file.created);
		if (ev->file.path[0].secret_id)
			json_field_str(j, "secret_by_inode",
				       fp_secret_class_name(ev->file.arg[0]));
		if (ev->file.count > 1)
			json_field_u64(j, "count", ev->file.count);
	} else if (op == FP_FOP_SYMLINK) {
		write_path(j, "path", &ev->file.path[0]);
		json_field_bytes(j, "target", ev->file.path[1].path.data,
				 ev->file.path[1].path.len);
	} else {
		write_path(j, "path", &ev->file.path[0]);
		if (ev->file.npaths == 2 && ev->file.path[1].named)
			write_path(j, "named_path", &ev->file.path[1]);
		if (op == FP_FOP_CHOWN) {
			/* -1 means "leave unchanged" */
			json_field_i64(j, "owner_uid",
				       (int32_t)ev->file.arg[0]);
			json_field_i64(j, "owner_gid",
				       (int32_t)ev->file.arg[1]);
		} else if (op == FP_FOP_TRUNCATE) {
			json_field_i64(j, "length", (int64_t)ev->file.arg[0]);
		} else {
			json_field_mode(j, "mode", ev->file.mode);
		}
		if (op == FP_FOP_MKNOD) {
			json_field_u64(j, "dev", ev->file.arg[0]);
			json_field_u64(j, "file_type", ev->file.mode & 0170000);
		}
		if (ev->file.flags)
			json_field_u64(j, "flags", ev->file.flags);
	}
	write_result(j, ev->file.ret);
}

const char *fp_family_name(int family)
{
	switch (family) {
	case AF_INET:
		return "inet";
	case AF_INET6:
		return "inet6";
	case AF_UNIX:
		return "unix";
	case AF_NETLINK:
		return "netlink";
	case AF_PACKET:
		return "packet";
	}
	return NULL;
}

static const char *sock_type_name(int type)
{
	switch (type) {
	case SOCK_STREAM:
		return "stream";
	case SOCK_DGRAM:
		return "dgram";
	case SOCK_RAW:
		return "raw";
	case SOCK_SEQPACKET:
		return "seqpacket";
	}
	return NULL;
}

static const char *protocol_name(int family, int protocol)
{
	if (family != AF_INET && family != AF_INET6)
		return NULL;
	switch (protocol) {
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 132:
		return "sctp";
	case 1:
		return "icmp";
	case 58:
		return "icmpv6";
	}
	return NULL;
}

static void write_bind(struct json_out *j, const struct fp_event *ev)
{
	const char *name;

	json_field_i64(j, "fd", ev->bind.fd);
	name = fp_family_name(ev->bind.family);
	if (name)
		json_field_str(j, "family", name);
	else
		json_field_i64(j, "family", ev->bind.family);
	if (ev->bind.family == AF_UNIX) {
		const struct fp_bytes *p = &ev->bind.unix_path;
		/* abstract names start with NUL; show them as "@name" */
		if (p->len && p->data[0] == '\0') {
			json_field_bool(j, "abstract", true);
			json_field_bytes(j, "address", p->data + 1, p->len - 1);
		} else {
			json_field_bytes(j, "address", p->data ? p->data : "",
					 p->len);
		}
	} else {
		json_field_str(j, "address", ev->bind.address);
		json_field_u64(j, "port", ev->bind.port);
		json_field_u64(j, "bound_port", ev->bind.bound_port);
	}
	name = sock_type_name(ev->bind.sock_type);
	if (name)
		json_field_str(j, "sock_type", name);
	else
		json_field_i64(j, "sock_type", ev->bind.sock_type);
	name = protocol_name(ev->bind.family, ev->bind.protocol);
	if (name)
		json_field_str(j, "protocol", name);
	else
		json_field_i64(j, "protocol", ev->bind.protocol);
	write_result(j, ev->bind.ret);
}

static const char *const bpf_cmds[] = {
	"BPF_MAP_CREATE",	 "BPF_MAP_LOOKUP_ELEM",
	"BPF_MAP_UPDATE_ELEM",	 "BPF_MAP_DELETE_ELEM",
	"BPF_MAP_GET_NEXT_KEY",	 "BPF_PROG_LOAD",
	"BPF_OBJ_PIN",		 "BPF_OBJ_GET",
	"BPF_PROG_ATTACH",	 "BPF_PROG_DETACH",
	"BPF_PROG_TEST_RUN",	 "BPF_PROG_GET_NEXT_ID",
	"BPF_MAP_GET_NEXT_ID",	 "BPF_PROG_GET_FD_BY_ID",
	"BPF_MAP_GET_FD_BY_ID",	 "BPF_OBJ_GET_INFO_BY_FD",
	"BPF_PROG_QUERY",	 "BPF_RAW_TRACEPOINT_OPEN",
	"BPF_BTF_LOAD",		 "BPF_BTF_GET_FD_BY_ID",
	"BPF_TASK_FD_QUERY",	 "BPF_MAP_LOOKUP_AND_DELETE_ELEM",
	"BPF_MAP_FREEZE",	 "BPF_BTF_GET_NEXT_ID",
	"BPF_MAP_LOOKUP_BATCH",	 "BPF_MAP_LOOKUP_AND_DELETE_BATCH",
	"BPF_MAP_UPDATE_BATCH",	 "BPF_MAP_DELETE_BATCH",
	"BPF_LINK_CREATE",	 "BPF_LINK_UPDATE",
	"BPF_LINK_GET_FD_BY_ID", "BPF_LINK_GET_NEXT_ID",
	"BPF_ENABLE_STATS",	 "BPF_ITER_CREATE",
	"BPF_LINK_DETACH",	 "BPF_PROG_BIND_MAP",
	"BPF_TOKEN_CREATE",
};

static const char *ptrace_request_name(int64_t req)
{
	static const char *const names[] = {
		[1] = "PTRACE_PEEKTEXT",   [2] = "PTRACE_PEEKDATA",
		[3] = "PTRACE_PEEKUSER",   [4] = "PTRACE_POKETEXT",
		[5] = "PTRACE_POKEDATA",   [6] = "PTRACE_POKEUSER",
		[7] = "PTRACE_CONT",	   [8] = "PTRACE_KILL",
		[9] = "PTRACE_SINGLESTEP", [12] = "PTRACE_GETREGS",
		[13] = "PTRACE_SETREGS",   [16] = "PTRACE_ATTACH",
		[17] = "PTRACE_DETACH",	   [24] = "PTRACE_SYSCALL",
	};

	if (req == 0x4206)
		return "PTRACE_SEIZE";
	if (req == 0x4207)
		return "PTRACE_INTERRUPT";
	if (req > 0 && req < (int64_t)(sizeof(names) / sizeof(names[0])))
		return names[req];
	return NULL;
}

/* A traced process reached for the tracer (docs/events.md, "tamper"). */
static void write_tamper(struct json_out *j, const struct fp_event *ev)
{
	static const char *const kinds[] = {
		[FP_TAMPER_SIGNAL] = "signal",
		[FP_TAMPER_BPF] = "bpf",
		[FP_TAMPER_PTRACE] = "ptrace",
		[FP_TAMPER_HEARTBEAT] = "heartbeat",
		[FP_TAMPER_CONTROL] = "control",
		[FP_TAMPER_RESTART] = "restart",
		[FP_TAMPER_REPLACED] = "replaced",
	};
	uint32_t k = ev->tamper.kind;
	const char *name;

	json_field_str(j, "kind",
		       k < sizeof(kinds) / sizeof(kinds[0]) && kinds[k] ?
			       kinds[k] :
			       "unknown");
	switch (k) {
	case FP_TAMPER_SIGNAL:
		json_field_i64(j, "signal", ev->tamper.sig);
		json_field_str(j, "signal_name",
			       sigabbrev_np(ev->tamper.sig) ?: "?");
		json_field_u64(j, "target_pid", ev->tamper.target_pid);
		break;
	case FP_TAMPER_BPF:
		json_field_i64(j, "bpf_cmd", ev->tamper.arg);
		if (ev->tamper.arg >= 0 &&
		    ev->tamper.arg <
			    (int64_t)(sizeof(bpf_cmds) / sizeof(bpf_cmds[0])))
			json_field_str(j, "bpf_cmd_name",
				       bpf_cmds[ev->tamper.arg]);
		break;
	case FP_TAMPER_PTRACE:
		json_field_i64(j, "request", ev->tamper.arg);
		name = ptrace_request_name(ev->tamper.arg);
		if (name)
			json_field_str(j, "request_name", name);
		json_field_u64(j, "target_pid", ev->tamper.target_pid);
		break;
	case FP_TAMPER_CONTROL:
		json_field_str(j, "request",
			       fp_control_op_name(ev->tamper.arg));
		break;
	case FP_TAMPER_RESTART:
	case FP_TAMPER_REPLACED:
		/* the daemon before: its pid and start time */
		json_field_u64(j, "target_pid", ev->tamper.target_pid);
		json_field_i64(j, "target_start", ev->tamper.arg);
		break;
	}
}

/* A message on the sidecar's control socket (docs/events.md, "control"). */
static void write_control(struct json_out *j, const struct fp_event *ev)
{
	static const char *const results[] = {
		[FP_CTL_OK] = "ok",
		[FP_CTL_REFUSED] = "refused",
		[FP_CTL_TAMPER] = "tamper",
		[FP_CTL_FOREIGN] = "foreign",
	};
	uint32_t i, r = ev->control.result;

	json_field_str(j, "request", fp_control_op_name(ev->control.op));
	json_field_str(j, "result",
		       r < sizeof(results) / sizeof(results[0]) ? results[r] :
								  "unknown");
	json_field_u64(j, "start_ticks", ev->control.start_ticks);
	if (ev->control.step_pid)
		json_field_u64(j, "step_pid", ev->control.step_pid);
	json_field_array(j, "own");
	for (i = 0; i < ev->control.nown && i < FP_CTL_MAX_OWN; i++)
		json_elem_u64(j, ev->control.own[i]);
	json_end_array(j);
	if (ev->control.name.len || ev->control.op == FP_CTL_MARK)
		json_field_bytes(j, "name", ev->control.name.data ?: "",
				 ev->control.name.len);
}

/* A signal or ptrace aimed outside the run (docs/events.md, "signal"). */
static void write_signal(struct json_out *j, const struct fp_event *ev)
{
	const char *name;

	json_field_str(j, "syscall", fp_sys_name(ev->signal.sys));
	json_field_i64(j, "ret", ev->signal.ret);
	if (ev->signal.ret < 0)
		json_field_str(j, "errno",
			       strerrorname_np(-ev->signal.ret) ?: "?");
	json_field_i64(j, "target", ev->signal.target);
	json_field_u64(j, "target_pid", ev->signal.target_tgid);
	if (ev->signal.sys == FP_SYS_PIDFD_GETFD) {
		json_field_i64(j, "target_fd", ev->signal.request);
		return;
	}
	if (fp_sys_crossproc(ev->signal.sys) && ev->signal.sys != FP_SYS_PTRACE)
		return;
	if (ev->signal.sys == FP_SYS_PTRACE) {
		json_field_i64(j, "request", ev->signal.request);
		name = ptrace_request_name(ev->signal.request);
		if (name)
			json_field_str(j, "request_name", name);
		return;
	}
	json_field_i64(j, "signal", ev->signal.sig);
	json_field_str(j, "signal_name",
		       ev->signal.sig ? sigabbrev_np(ev->signal.sig) ?: "?" :
					"0");
}

/* A mount or namespace call (docs/events.md, "mount", "namespace"). */
static void write_procop(struct json_out *j, const struct fp_event *ev)
{
	json_field_str(j, "syscall", fp_sys_name(ev->procop.sys));
	json_field_i64(j, "ret", ev->procop.ret);
	if (ev->procop.ret < 0)
		json_field_str(j, "errno",
			       strerrorname_np(-ev->procop.ret) ?: "?");
	json_field_u64(j, "flags", ev->procop.flags);
	if (ev->procop.sys == FP_SYS_SETNS)
		json_field_i64(j, "fd", ev->procop.arg);
	if (ev->procop.target.len)
		json_field_bytes(j, "target", ev->procop.target.data,
				 ev->procop.target.len);
	if (ev->procop.source.len)
		json_field_bytes(j, "source", ev->procop.source.data,
				 ev->procop.source.len);
}

/* an io_uring request footprint does not understand, or a ring whose
 * requests this kernel does not let it see */
static void write_uring(struct json_out *j, const struct fp_event *ev)
{
	const char *name = fp_uring_op_name(ev->uring.opcode);

	if (ev->uring.kind == FP_URING_UNTRACEABLE) {
		json_field_str(j, "kind", "untraceable");
		json_field_i64(j, "fd", ev->uring.arg);
		return;
	}
	json_field_str(j, "kind", "unsupported");
	json_field_u64(j, "opcode", ev->uring.opcode);
	if (name)
		json_field_str(j, "opcode_name", name);
	if (ev->uring.opcode == 46 /* IORING_OP_URING_CMD */)
		json_field_i64(j, "cmd_op", ev->uring.arg);
}

void fp_event_write_json(FILE *f, const struct fp_event *ev)
{
	struct json_out j = { .f = f };

	json_begin_object(&j);
	json_field_str(&j, "type", fp_event_kind(ev));
	json_field_u64(&j, "ts_ns", ev->ts_ns);
	json_field_u64(&j, "pid", ev->pid);
	json_field_u64(&j, "tid", ev->tid);
	json_field_u64(&j, "ppid", ev->ppid);
	json_field_u64(&j, "uid", ev->uid);
	json_field_u64(&j, "gid", ev->gid);
	json_field_bytes(&j, "comm", ev->comm, strlen(ev->comm));
	json_field_u64(&j, "cgroup_id", ev->cgroup_id);
	if (ev->via & FP_VIA_URING) {
		json_field_str(&j, "via", "io_uring");
		if (ev->via & FP_VIA_UNSEEN)
			json_field_bool(&j, "completion_seen", false);
	}

	switch (ev->type) {
	case FP_EV_EXEC:
		json_field_bytes(&j, "exe", ev->exec.exe.data,
				 ev->exec.exe.len);
		if (ev->exec.exe_truncated)
			json_field_bool(&j, "exe_truncated", true);
		json_field_bytes(&j, "filename", ev->exec.filename.data,
				 ev->exec.filename.len);
		json_field_strv(&j, "argv", ev->exec.argv.data,
				ev->exec.argv.len);
		json_field_u64(&j, "argv_bytes", ev->exec.argv_total);
		json_field_u64(&j, "argv_dropped", ev->exec.argv_dropped);
		if (ev->exec.old_pid != ev->pid)
			json_field_u64(&j, "old_pid", ev->exec.old_pid);
		if (ev->exec.step_name.len)
			json_field_bytes(&j, "step_name",
					 ev->exec.step_name.data,
					 ev->exec.step_name.len);
		fp_json_privs(&j, "creds", &ev->exec.creds);
		if (ev->exec.exe_inode.known) {
			json_field_u64(&j, "exe_uid", ev->exec.exe_inode.uid);
			json_field_mode(&j, "exe_mode",
					ev->exec.exe_inode.mode);
		}
		break;
	case FP_EV_FORK:
		json_field_u64(&j, "parent_tid", ev->fork.parent_tid);
		break;
	case FP_EV_EXIT:
		if (ev->exit.signal) {
			json_field_i64(&j, "signal", ev->exit.signal);
			json_field_str(&j, "signal_name",
				       sigabbrev_np(ev->exit.signal) ?: "?");
			json_field_bool(&j, "core_dumped",
					ev->exit.core_dumped);
		} else {
			json_field_i64(&j, "exit_code", ev->exit.code);
		}
		break;
	case FP_EV_FILE:
		write_file(&j, ev);
		break;
	case FP_EV_BIND:
		write_bind(&j, ev);
		break;
	case FP_EV_TAMPER:
		write_tamper(&j, ev);
		break;
	case FP_EV_MARK:
		json_field_bytes(&j, "name", ev->mark.name.data ?: "",
				 ev->mark.name.len);
		break;
	case FP_EV_NET:
	case FP_EV_NET_COUNT:
	case FP_EV_DNS:
		fp_net_event_json(&j, ev);
		break;
	case FP_EV_SIGNAL:
		write_signal(&j, ev);
		break;
	case FP_EV_PROCOP:
		write_procop(&j, ev);
		break;
	case FP_EV_URING:
		write_uring(&j, ev);
		break;
	case FP_EV_CONTROL:
		write_control(&j, ev);
		break;
	}
	json_end_object(&j);
	fputc('\n', f);
}
