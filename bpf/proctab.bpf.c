// SPDX-License-Identifier: GPL-2.0
/*
 * The process table for the snapshots, as the kernel holds it: a task
 * iterator that writes a struct fp_task_rec for each thread-group leader
 * to the reader of its fd. One read() of a few hundred bytes a process
 * instead of /proc/PID/stat and /proc/PID/cgroup, which cost ~30 us a
 * process on this VM and were most of a run's after snapshot. Never
 * attached to a tracepoint: it runs only when footprint reads it.
 */
#include "common.bpf.h"

SEC("iter/task")
int fp_proc_iter(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct fp_task_rec r = {};

	/* NULL once, at the end; a thread is its leader's */
	if (!task || task->pid != task->tgid)
		return 0;
	r.pid = task->tgid;
	r.ppid = BPF_CORE_READ(task, real_parent, tgid);
	r.start_ns = task->start_boottime;
	r.cgroup_id = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
	r.flags = task->flags;
	BPF_CORE_READ_INTO(&r.comm, task, comm);
	bpf_seq_write(seq, &r, sizeof(r));
	return 0;
}
