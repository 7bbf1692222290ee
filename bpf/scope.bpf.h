/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which tasks are traced: those in one of up to FP_MAX_CGROUPS cgroup
 * subtrees, or in one of the process trees userspace named (kept up to
 * date at fork and exit by process.bpf.c), and not one of the tracer's own
 * processes. Defined in shared.bpf.c like the rest of common.bpf.h.
 */
#ifndef FP_SCOPE_BPF_H
#define FP_SCOPE_BPF_H

#include "common.bpf.h"

/*
 * Scope, set by userspace through the mmapped .bss after load, before
 * attach (cgroups and self may be added later too: one word each). For a
 * plain `run` only ncgroups is set, and the rest costs two loads.
 */
FP_SHARED __u32 ncgroups; /* entries of target_cgroup in use */
FP_SHARED __u32 pid_tree_on; /* traced_pids is in use */
FP_SHARED __u32 nself;
FP_SHARED __u32 self_tgids[FP_MAX_SELF];
/* the ids of the target_cgroup entries, to test a task other than current */
FP_SHARED __u64 target_cgroup_ids[FP_MAX_CGROUPS];

/* The cgroups traced; descendants are traced too. */
FP_SHARED struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, FP_MAX_CGROUPS);
	__type(key, __u32);
	__type(value, __u32);
} target_cgroup SEC(".maps");

/*
 * tgid -> the root of its process tree. Roots and the processes below them
 * at attach come from userspace; every later one is added at fork, before
 * the child can run, and removed at its exit.
 */
FP_SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	/* see net_flows (flowcache.bpf.h); a failed add is scope_full */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, FP_MAX_TRACED_PIDS);
	__type(key, __u32);
	__type(value, __u32);
} traced_pids SEC(".maps");

static __always_inline bool is_self(__u32 tgid)
{
	__u32 i, n = nself;

	for (i = 0; i < FP_MAX_SELF; i++) {
		if (i >= n)
			break;
		if (self_tgids[i] == tgid)
			return true;
	}
	return false;
}

/*
 * The pid-tree lookup runs only when trees are in use, and after the
 * cgroups: a plain `run` pays for one cgroup test, as before.
 */
static __always_inline bool traced(void)
{
	__u32 tgid = 0, i, n = ncgroups;

	if (nself | pid_tree_on) {
		tgid = bpf_get_current_pid_tgid() >> 32;
		if (nself && is_self(tgid))
			return false;
	}
	for (i = 0; i < FP_MAX_CGROUPS; i++) {
		if (i >= n)
			break;
		if (bpf_current_task_under_cgroup(&target_cgroup, i) == 1)
			return true;
	}
	return pid_tree_on && bpf_map_lookup_elem(&traced_pids, &tgid);
}

#endif /* FP_SCOPE_BPF_H */
