/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Signals and ptrace aimed at processes outside the run: kill, tkill,
 * tgkill, pidfd_send_signal and ptrace, at the exit of the syscall, from
 * the sys_exit program of file.bpf.c. A target that a SIGKILL made exit
 * before the syscall returned is still found while it is a zombie; the
 * pid tree keeps it until it is reaped (sched_process_exit does not
 * drop it).
 */
#ifndef FP_SIGNAL_BPF_H
#define FP_SIGNAL_BPF_H

/*
 * Included by process.bpf.c only, whose object declares the task kfuncs:
 * the static linker refuses the same kfunc declared in two objects.
 */
#include "common.bpf.h"
#include "scope.bpf.h"

#define PF_EXITING 0x00000004

/* deep enough for any cgroup tree a CI runner or systemd makes */
#define FP_CGROUP_DEPTH 32

extern struct task_struct *bpf_task_from_vpid(s32 vpid) __weak __ksym;
/*
 * Set by user space from the kernel's BTF (hooks.c): the version does not
 * tell, Debian's 6.12 lacks the kfunc. False leaves the call dead code.
 */
const volatile bool has_task_from_vpid = false;

/* the task a pid names in the caller's pid namespace, where the kernel can */
static __always_inline struct task_struct *task_of(__s32 pid)
{
	if (pid <= 0)
		return NULL;
	if (has_task_from_vpid)
		return bpf_task_from_vpid(pid);
	if (LINUX_KERNEL_VERSION >= KERNEL_VERSION(6, 2, 0))
		return bpf_task_from_pid(pid);
	return NULL;
}

#define PID_FS_MAGIC 0x50494446
#define ANON_INODE_FS_MAGIC 0x09041934

/*
 * The pid a pidfd refers to. Since 6.9 a pidfd is a pidfs file and its
 * inode holds the pid; before, an anonymous inode file named "[pidfd]"
 * held it as its private data. Any other file names no pid.
 */
static __always_inline int pidfd_nr(int fd)
{
	struct file *f = cur_fd(fd);
	struct inode *inode;
	struct pid *pid = NULL;
	char name[8] = {};
	unsigned long magic;

	if (!f)
		return 0;
	inode = BPF_CORE_READ(f, f_inode);
	magic = BPF_CORE_READ(inode, i_sb, s_magic);
	if (magic == PID_FS_MAGIC) {
		pid = BPF_CORE_READ(inode, i_private);
	} else if (magic == ANON_INODE_FS_MAGIC) {
		bpf_probe_read_kernel_str(
			name, sizeof(name),
			BPF_CORE_READ(f, f_path.dentry, d_name.name));
		if (!__builtin_memcmp(name, "[pidfd]", 8))
			pid = BPF_CORE_READ(f, private_data);
	}
	if (!pid)
		return 0;
	return BPF_CORE_READ(pid, numbers[0].nr);
}

/*
 * A global function, verified once on its own: the task is a plain
 * address (read with probe reads), which any kernel takes as an argument.
 */
struct cgroup_walk {
	struct cgroup *cg;
	int found;
};

/* one level of the walk up: bpf_loop's callback, verified once */
static long cgroup_level(__u32 d, void *ctx)
{
	struct cgroup_walk *w = ctx;
	struct cgroup *cg = w->cg;
	__u32 i, n = ncgroups;
	__u64 id;

	if (!cg)
		return 1;
	id = BPF_CORE_READ(cg, kn, id);
	for (i = 0; i < FP_MAX_CGROUPS; i++) {
		if (i >= n)
			break;
		if (target_cgroup_ids[i] && target_cgroup_ids[i] == id) {
			w->found = 1;
			return 1;
		}
	}
	w->cg = (struct cgroup *)BPF_CORE_READ(cg, self.parent);
	return 0;
}

__noinline int fp_cgroup_traced(__u64 cgroup)
{
	struct cgroup_walk w = { (struct cgroup *)cgroup, 0 };

	bpf_loop(FP_CGROUP_DEPTH, cgroup_level, &w, 0);
	return w.found;
}

/* the process a pidfd refers to */
static __always_inline struct task_struct *task_of_pidfd(int fd)
{
	int nr;

	if (LINUX_KERNEL_VERSION < KERNEL_VERSION(6, 2, 0))
		return NULL;
	nr = pidfd_nr(fd);
	return nr > 0 ? bpf_task_from_pid(nr) : NULL;
}

/* Is t part of the run? The tracer's own processes are tamper's. */
static __always_inline bool in_run(struct task_struct *t, __u32 tgid)
{
	if (nself && is_self(tgid))
		return true;
	if (pid_tree_on && bpf_map_lookup_elem(&traced_pids, &tgid))
		return true;
	/* read, so a plain number: a global function takes no task pointer */
	return fp_cgroup_traced((__u64)BPF_CORE_READ(t, cgroups, dfl_cgrp));
}

/*
 * Before 6.2 no pid can be turned into its task here. A target is inside
 * only when it is the caller's own process, the tracer's or in the pid
 * tree table; any other is taken for outside, so that a signal out of the
 * run is never missed, at the price of reporting one to another process
 * of a cgroup-scoped run (docs: portability).
 */
static __always_inline __u64 target_by_pid(__u32 sys, __u64 a0, __u64 a1)
{
	__u32 self = bpf_get_current_pid_tgid() >> 32, tgid;
	__s32 pid = (__s32)a0;

	if (sys == FP_SYS_KILL && pid == -1)
		return 1ULL << 32;
	if (sys == FP_SYS_KILL && pid < 0)
		pid = -pid;
	else if (sys == FP_SYS_PTRACE)
		pid = a0 == PTRACE_TRACEME ? 0 : (__s32)a1;
	else if (sys == FP_SYS_PIDFD_SEND_SIGNAL || sys == FP_SYS_PIDFD_GETFD)
		pid = pidfd_nr(pid);
	if (pid <= 0)
		return 0;
	tgid = pid;
	if (tgid == self || (nself && is_self(tgid)) ||
	    (pid_tree_on && bpf_map_lookup_elem(&traced_pids, &tgid)))
		return 0;
	return (1ULL << 32) | tgid;
}

/*
 * The target of a signal or ptrace syscall of a traced task, when it is
 * outside the run: (1 << 32) | its tgid, and 1 << 32 for kill(-1), which
 * reaches every process. 0 when it is inside, names nothing, or is the
 * caller's own process group (kill(0)). A group (kill(-pgid)) is judged
 * by its leader.
 */
__noinline __u64 fp_signal_target(__u32 sys, __u64 a0, __u64 a1)
{
	struct task_struct *t = NULL;
	__s32 pid = (__s32)a0;
	__u32 tgid;
	bool inside;

	if (LINUX_KERNEL_VERSION < KERNEL_VERSION(6, 2, 0))
		return target_by_pid(sys, a0, a1);
	if (sys == FP_SYS_KILL) {
		if (pid == -1)
			return 1ULL << 32;
		t = task_of(pid < 0 ? -pid : pid);
	} else if (sys == FP_SYS_TKILL) {
		t = task_of(pid);
	} else if (sys == FP_SYS_TGKILL) {
		t = task_of((__s32)a1);
	} else if (sys == FP_SYS_PIDFD_SEND_SIGNAL ||
		   sys == FP_SYS_PIDFD_GETFD) {
		t = task_of_pidfd(pid);
	} else if (sys == FP_SYS_PROCESS_VM_READV ||
		   sys == FP_SYS_PROCESS_VM_WRITEV) {
		t = task_of(pid);
	} else if (sys == FP_SYS_PTRACE) {
		if (a0 == PTRACE_TRACEME)
			return 0;
		t = task_of((__s32)a1);
	}
	if (!t)
		return 0;
	tgid = BPF_CORE_READ(t, tgid);
	inside = in_run(t, tgid);
	/*
	 * One the signal already made exit has left the pid tree: judge it
	 * by its parent, which has not reaped it yet.
	 */
	if (!inside && (BPF_CORE_READ(t, flags) & PF_EXITING)) {
		struct task_struct *parent = BPF_CORE_READ(t, real_parent);

		inside = in_run(parent, BPF_CORE_READ(parent, tgid));
	}
	bpf_task_release(t);
	return inside ? 0 : (1ULL << 32) | tgid;
}

/*
 * At exit: the record, with the result. given is the pid (or pidfd) as
 * the caller named it, what the signal or the ptrace request, target
 * what fp_signal_target() returned.
 */
__noinline int fp_signal_exit(long ret, __u32 sys, __u64 given, __u64 what,
			      __u64 target)
{
	struct fp_signal e = {};

	fill_hdr(&e.hdr, FP_EV_SIGNAL);
	e.hdr.size = sizeof(e);
	e.ret = ret;
	e.sys = sys;
	e.target = (__s32)given;
	e.target_tgid = (__u32)target;
	if (fp_sys_is_signal(sys))
		e.sig = (__s32)what;
	else
		e.request = (__s64)what;
	emit(&e, sizeof(e));
	return 0;
}

#endif /* FP_SIGNAL_BPF_H */
