// SPDX-License-Identifier: GPL-2.0
/*
 * The least a tracer on the raw sys_exit tracepoint can cost: a program
 * that does nothing. scripts/bench/ab's outside workload runs its loop
 * beside it, so that the tax of footprint's attachment is told from the
 * tax of footprint's program.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("tp_btf/sys_exit")
int BPF_PROG(bare_sys_exit, struct pt_regs *regs, long ret)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
