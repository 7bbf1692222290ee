/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The last flow of each thread (net.bpf.c): a loop of sendto()s to one
 * destination counts here, without the flow table's hash of the whole
 * key. The count goes into net_flows when the thread's flow changes or
 * the thread exits; userspace adds what is left when tracing stops
 * (user/trace/flows.c).
 */
#ifndef FP_FLOWCACHE_H
#define FP_FLOWCACHE_H

/* Threads with a cached flow at once; past that, calls take the table. */
#define FP_FLOW_TASKS 4096

struct fp_flow_cache {
	struct fp_net_key key; /* a flow already in net_flows */
	__u64 pending; /* calls counted here, not yet in net_flows */
};

#endif /* FP_FLOWCACHE_H */
