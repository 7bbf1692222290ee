// SPDX-License-Identifier: GPL-2.0
/*
 * The process table for the snapshots, as the kernel holds it: a task
 * iterator that writes a struct fp_task_rec for each thread-group leader
 * to the reader of its fd. One read() of a few hundred bytes a process
 * instead of /proc/PID/stat, status and cgroup, ~15-20 us each a process
 * on this VM: most of a run's after snapshot, and of its before snapshot
 * on a machine of many processes. Never attached to a tracepoint: it
 * runs only when footprint reads it.
 */
#include "common.bpf.h"

/* include/linux/sched.h */
#define PFA_NO_NEW_PRIVS 0

SEC("iter/task")
int fp_proc_iter(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct fp_task_rec r = {};
	const struct cred *cr;

	/* NULL once, at the end; a thread is its leader's */
	if (!task || task->pid != task->tgid)
		return 0;
	r.pid = task->tgid;
	r.ppid = BPF_CORE_READ(task, real_parent, tgid);
	r.start_ns = task->start_boottime;
	r.cgroup_id = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
	r.flags = task->flags;
	/* what /proc/PID/status would give the before table (its Uid,
	 * CapEff, NoNewPrivs): the credentials others see of the task */
	cr = BPF_CORE_READ(task, real_cred);
	r.uid = BPF_CORE_READ(cr, uid.val);
	bpf_probe_read_kernel(&r.cap_eff, sizeof(r.cap_eff),
			      &cr->cap_effective);
	r.no_new_privs = (task->atomic_flags >> PFA_NO_NEW_PRIVS) & 1;
	BPF_CORE_READ_INTO(&r.comm, task, comm);
	bpf_seq_write(seq, &r, sizeof(r));
	return 0;
}
