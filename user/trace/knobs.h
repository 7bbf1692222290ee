/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a load takes from the options besides the object and the kernel:
 * its read-only knobs and the sizes of two maps. They name a warm set
 * (warm.h), so every one of them is set here and nowhere else: a knob
 * set outside would let a run reuse programs loaded with another value.
 */
#ifndef FP_KNOBS_H
#define FP_KNOBS_H

#include <stdbool.h>

#include <linux/types.h>

#include "footprint.h"

struct footprint_bpf;
struct footprint_bpf__rodata;
struct fp_tracer_opts;

/* hashed whole: padding is zeroed by fp_knobs_of() */
struct fp_load_knobs {
	__u64 max_argv_bytes;
	__u64 wakeup_bytes;
	__u32 every_open;
	__u32 ring_bytes;
	__u32 max_tree_pids; /* 0: the object's own size */
	__u32 debug_hooks; /* fp_hooks_debug() */
	__u16 dns_ports[FP_MAX_DNS_PORTS];
};

void fp_knobs_of(struct fp_load_knobs *k, const struct fp_tracer_opts *o);
/* Into an opened skeleton, before its load. 0 or -errno. */
int fp_knobs_apply(struct footprint_bpf *skel, const struct fp_load_knobs *k);
/* Does a loaded .rodata hold them? */
bool fp_knobs_in(const struct footprint_bpf__rodata *ro,
		 const struct fp_load_knobs *k);
/* Is max_entries what they make of the skeleton's map_index-th map? */
bool fp_knobs_sized(int map_index, __u32 max_entries,
		    const struct fp_load_knobs *k);

#endif
