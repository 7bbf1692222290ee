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

/*
 * The destination the kernel routed in a task's current send or
 * connect, from the fib tracepoints (route.bpf.c), kept for the
 * syscall's exit, which takes it: what the call is judged by, where the
 * sockaddr in the caller's memory may have been rewritten since the
 * kernel copied it. In the sockaddr_in or sockaddr_in6 form of a flow
 * key's address, zero past it, so that the two compare as four words.
 * A thread holding a slot below keeps it there; any other, in task
 * storage (flowcache.bpf.h).
 */
struct fp_route {
	__u64 sa[4];
	__u16 len; /* 16 or 28; 0: none noted since the last exit took it */
	__u8 proto; /* IPPROTO_*, as routed */
	__u8 _pad;
	__s32 err; /* the lookup's result */
};

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
	struct fp_route note; /* the holder's, between a lookup and its exit */
};

#endif /* FP_FLOWCACHE_H */
