// SPDX-License-Identifier: GPL-2.0
/*
 * The one definition of what the other objects share (common.bpf.h,
 * scope.bpf.h): they declare it extern and `bpftool gen object` links
 * them to these. No programs here.
 */
#define FP_DEFINE_SHARED
#include "common.bpf.h"
#include "scope.bpf.h"

const volatile __u64 max_argv_bytes = 1 << 20;
const volatile __u64 wakeup_bytes = 1 << 20;

char LICENSE[] SEC("license") = "GPL";
