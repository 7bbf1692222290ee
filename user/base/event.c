// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"

int fp_bytes_dup(struct fp_bytes *b, const char *s, size_t len)
{
	b->data = malloc(len + 1);
	if (!b->data)
		return -ENOMEM;
	if (len)
		memcpy(b->data, s, len);
	b->data[len] = '\0';
	b->len = len;
	return 0;
}

void fp_event_free(struct fp_event *ev)
{
	switch (ev->type) {
	case FP_EV_EXEC:
		free(ev->exec.exe.data);
		free(ev->exec.filename.data);
		free(ev->exec.argv.data);
		free(ev->exec.step_name.data);
		break;
	case FP_EV_FILE:
		free(ev->file.path[0].path.data);
		free(ev->file.path[1].path.data);
		break;
	case FP_EV_BIND:
		free(ev->bind.unix_path.data);
		break;
	case FP_EV_MARK:
		free(ev->mark.name.data);
		break;
	case FP_EV_NET:
	case FP_EV_NET_COUNT:
		free(ev->net.unix_path.data);
		break;
	case FP_EV_DNS:
		free(ev->dns.data.data);
		break;
	case FP_EV_PROCOP:
		free(ev->procop.target.data);
		free(ev->procop.source.data);
		break;
	case FP_EV_CONTROL:
		free(ev->control.name.data);
		break;
	}
	memset(ev, 0, sizeof(*ev));
}

static const char *const sys_names[FP_SYS_MAX] = {
	[FP_SYS_OPEN] = "open",		  [FP_SYS_OPENAT] = "openat",
	[FP_SYS_OPENAT2] = "openat2",	  [FP_SYS_CREAT] = "creat",
	[FP_SYS_UNLINK] = "unlink",	  [FP_SYS_UNLINKAT] = "unlinkat",
	[FP_SYS_RENAME] = "rename",	  [FP_SYS_RENAMEAT] = "renameat",
	[FP_SYS_RENAMEAT2] = "renameat2", [FP_SYS_BIND] = "bind",
	[FP_SYS_MKDIR] = "mkdir",	  [FP_SYS_MKDIRAT] = "mkdirat",
	[FP_SYS_RMDIR] = "rmdir",	  [FP_SYS_MKNOD] = "mknod",
	[FP_SYS_MKNODAT] = "mknodat",	  [FP_SYS_SYMLINK] = "symlink",
	[FP_SYS_SYMLINKAT] = "symlinkat", [FP_SYS_LINK] = "link",
	[FP_SYS_LINKAT] = "linkat",	  [FP_SYS_CHMOD] = "chmod",
	[FP_SYS_FCHMOD] = "fchmod",	  [FP_SYS_FCHMODAT] = "fchmodat",
	[FP_SYS_FCHMODAT2] = "fchmodat2", [FP_SYS_CHOWN] = "chown",
	[FP_SYS_LCHOWN] = "lchown",	  [FP_SYS_FCHOWN] = "fchown",
	[FP_SYS_FCHOWNAT] = "fchownat",	  [FP_SYS_TRUNCATE] = "truncate",
	[FP_SYS_FTRUNCATE] = "ftruncate",
};

/* signal.bpf.h's, kept apart from the file syscalls' table */
static const char *signal_sys_name(uint32_t sys)
{
	switch (sys) {
	case FP_SYS_PTRACE:
		return "ptrace";
	case FP_SYS_KILL:
		return "kill";
	case FP_SYS_TKILL:
		return "tkill";
	case FP_SYS_TGKILL:
		return "tgkill";
	case FP_SYS_PIDFD_SEND_SIGNAL:
		return "pidfd_send_signal";
	case FP_SYS_PIDFD_GETFD:
		return "pidfd_getfd";
	case FP_SYS_PROCESS_VM_READV:
		return "process_vm_readv";
	case FP_SYS_PROCESS_VM_WRITEV:
		return "process_vm_writev";
	}
	return NULL;
}

/* the open by handle, mount and namespace calls (procops), kept apart */
static const char *procop_sys_name(uint32_t sys)
{
	static const char *const names[] = {
		"open_by_handle_at", "mount",	"umount2",	 "open_tree",
		"move_mount",	     "fsmount", "mount_setattr", "pivot_root",
		"unshare",	     "setns",	"clone",	 "clone3",
	};

	_Static_assert(sizeof(names) / sizeof(names[0]) ==
			       FP_SYS_CLONE3 - FP_SYS_OPEN_BY_HANDLE_AT + 1,
		       "a name for each");
	if (sys < FP_SYS_OPEN_BY_HANDLE_AT ||
	    sys - FP_SYS_OPEN_BY_HANDLE_AT >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[sys - FP_SYS_OPEN_BY_HANDLE_AT];
}

const char *fp_sys_name(uint32_t sys)
{
	if (signal_sys_name(sys))
		return signal_sys_name(sys);
	if (procop_sys_name(sys))
		return procop_sys_name(sys);
	return sys < FP_SYS_MAX && sys_names[sys] ? sys_names[sys] : "unknown";
}

enum fp_file_op fp_file_op(const struct fp_event *ev)
{
	switch (ev->file.sys) {
	case FP_SYS_UNLINK:
	case FP_SYS_UNLINKAT:
	case FP_SYS_RMDIR:
		return FP_FOP_UNLINK;
	case FP_SYS_RENAME:
	case FP_SYS_RENAMEAT:
	case FP_SYS_RENAMEAT2:
		return FP_FOP_RENAME;
	case FP_SYS_MKDIR:
	case FP_SYS_MKDIRAT:
		return FP_FOP_MKDIR;
	case FP_SYS_MKNOD:
	case FP_SYS_MKNODAT:
		return FP_FOP_MKNOD;
	case FP_SYS_SYMLINK:
	case FP_SYS_SYMLINKAT:
		return FP_FOP_SYMLINK;
	case FP_SYS_LINK:
	case FP_SYS_LINKAT:
		return FP_FOP_LINK;
	case FP_SYS_CHMOD:
	case FP_SYS_FCHMOD:
	case FP_SYS_FCHMODAT:
	case FP_SYS_FCHMODAT2:
		return FP_FOP_CHMOD;
	case FP_SYS_CHOWN:
	case FP_SYS_LCHOWN:
	case FP_SYS_FCHOWN:
	case FP_SYS_FCHOWNAT:
		return FP_FOP_CHOWN;
	case FP_SYS_TRUNCATE:
	case FP_SYS_FTRUNCATE:
		return FP_FOP_TRUNCATE;
	default:
		return FP_FOP_OPEN;
	}
}

static const char *const file_op_names[] = {
	[FP_FOP_OPEN] = "open",	    [FP_FOP_UNLINK] = "unlink",
	[FP_FOP_RENAME] = "rename", [FP_FOP_MKDIR] = "mkdir",
	[FP_FOP_MKNOD] = "mknod",   [FP_FOP_SYMLINK] = "symlink",
	[FP_FOP_LINK] = "link",	    [FP_FOP_CHMOD] = "chmod",
	[FP_FOP_CHOWN] = "chown",   [FP_FOP_TRUNCATE] = "truncate",
};

const char *fp_event_kind(const struct fp_event *ev)
{
	switch (ev->type) {
	case FP_EV_EXEC:
		return "exec";
	case FP_EV_FORK:
		return "fork";
	case FP_EV_EXIT:
		return "exit";
	case FP_EV_BIND:
		return "bind";
	case FP_EV_TAMPER:
		return "tamper";
	case FP_EV_MARK:
		return "mark";
	case FP_EV_NET:
		return ev->net.op == FP_NET_ACCEPT ? "accept" :
		       ev->net.op == FP_NET_SENDTO ? "sendto" :
						     "connect";
	case FP_EV_NET_COUNT:
		return "net_count";
	case FP_EV_DNS:
		return "dns";
	case FP_EV_SIGNAL:
		return fp_sys_crossproc(ev->signal.sys) ? "ptrace" : "signal";
	case FP_EV_PROCOP:
		return fp_sys_mountlike(ev->procop.sys) ? "mount" : "namespace";
	case FP_EV_CONTROL:
		return "control";
	case FP_EV_FILE:
		return file_op_names[fp_file_op(ev)];
	case FP_EV_URING:
		return "io_uring";
	}
	return "unknown";
}

const char *fp_control_op_name(uint64_t op)
{
	static const char *const names[] = {
		[FP_CTL_START] = "start", [FP_CTL_HELLO] = "hello",
		[FP_CTL_MARK] = "mark",	  [FP_CTL_STATUS] = "status",
		[FP_CTL_STOP] = "stop",
	};

	return op < sizeof(names) / sizeof(names[0]) && names[op] ? names[op] :
								    "unknown";
}
