// SPDX-License-Identifier: GPL-2.0
/*
 * The one definition of what the other objects share (common.bpf.h,
 * scope.bpf.h): they declare it extern and `bpftool gen object` links
 * them to these, and the global functions of common.bpf.h. No programs
 * here.
 */
#define FP_DEFINE_SHARED
#include "common.bpf.h"
#include "path.bpf.h"
#include "scope.bpf.h"

__noinline __u64 fp_cur_fd(int fd)
{
	struct fdtable *fdt = bpf_get_current_task_btf()->files->fdt;
	struct file **fds;
	struct file *f = NULL;

	if (fd < 0 || fd >= fdt->max_fds)
		return 0;
	fds = fdt->fd;
	/* an array of pointers, which the verifier does not type */
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return (__u64)f;
}

__noinline __u32 fp_cur_ppid(void)
{
	return bpf_get_current_task_btf()->real_parent->tgid;
}

const volatile __u64 max_argv_bytes = 1 << 20;
const volatile __u64 wakeup_bytes = 1 << 20;

char LICENSE[] SEC("license") = "GPL";
