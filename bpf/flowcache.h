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

/*
 * Slots of the cache, a power of two: thread tid may use slot
 * tid % FP_FLOW_SLOTS, if no other live thread holds it; if one does, its
 * calls take the table, slower but counted the same.
 */
#define FP_FLOW_SLOTS 4096

struct fp_flow_cache {
	/* the thread that holds the slot; 0: free. 64-bit, for the atomic
	 * compare-and-swap clang's BPF target has */
	__u64 tid;
	struct fp_net_key key; /* a flow already in net_flows */
	__u64 pending; /* calls counted here, not yet in net_flows */
	/* the socket the flow was cached with: its struct file, and its
	 * inode's number (fp_sendto_again() in shared.bpf.c) */
	__u64 file;
	__u64 ino;
};

#endif /* FP_FLOWCACHE_H */
