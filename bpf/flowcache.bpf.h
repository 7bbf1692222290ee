/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow tables of net.bpf.c: net_flows counts every call per (process,
 * destination, result), and flow_cache keeps each thread's last sendto()
 * flow, so that a loop to one destination costs one lookup by tid and a
 * compare of the routed address, not a hash of the whole 128-byte key and
 * an atomic add. Only a flow already in net_flows is cached: the pending
 * count always has an entry to go to.
 */
#ifndef FP_FLOWCACHE_BPF_H
#define FP_FLOWCACHE_BPF_H

#include "common.bpf.h"
#include "flowcache.h"

#define FP_NET_FLOWS 16384

struct flow_val {
	__u64 count; /* calls after the one emitted at first sight */
};

/*
 * defined in shared.bpf.c, which tells a flood's calls (fp_sendto_again).
 * Not preallocated: a preallocated table of this size took 8 ms of a
 * cold start to create, and a run adds a flow once; an add that finds
 * no memory is counted as a full table's (net_unagg).
 */
FP_SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, FP_NET_FLOWS);
	__type(key, struct fp_net_key);
	__type(value, struct flow_val);
} net_flows SEC(".maps");

/*
 * An array, not a hash by tid: its lookup is a few instructions the
 * verifier inlines, where a hash's costs ~30 ns on every call of a flood.
 * Not task storage: userspace cannot walk that, and it must add what is
 * pending when tracing stops. A slot is taken by compare-and-swap of its
 * tid and given back at the thread's exit.
 */
FP_SHARED struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_FLOW_SLOTS);
	/* userspace reads and zeroes it in place (user/trace/maparray.h) */
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct fp_flow_cache);
} flow_cache SEC(".maps");

/*
 * Set once a thread of the run takes a slot, never cleared by the
 * programs: a run that sends no flood leaves every slot as it found it
 * (zero), and the stop's scan and the next run's reset of the 800 KB of
 * slots (user/trace/flows.c, warm_reset.c) are skipped.
 */
FP_SHARED __u32 flow_slots_taken;

static __always_inline struct fp_flow_cache *flow_slot(__u32 tid)
{
	__u32 k = tid & (FP_FLOW_SLOTS - 1);

	return bpf_map_lookup_elem(&flow_cache, &k);
}

/* The cached calls into net_flows; only the owning thread runs this. */
static __always_inline void flow_cache_put(struct fp_flow_cache *c)
{
	struct flow_val *v;
	struct fp_stats *st;

	if (!c->pending)
		return;
	v = bpf_map_lookup_elem(&net_flows, &c->key);
	if (v) {
		__sync_fetch_and_add(&v->count, c->pending);
	} else {
		/* net_flows entries are never removed: not expected, but a
		 * count that cannot be kept makes the trace incomplete */
		st = stats_cpu();
		if (st)
			__sync_fetch_and_add(&st->lost, 1);
	}
	c->pending = 0;
}

/*
 * key, just counted in net_flows, becomes the thread's cached flow, with
 * the socket it was sent on (r).
 */
static __always_inline void flow_cache_set(const struct fp_net_key *key,
					   const struct fp_sock_ref *r)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fp_flow_cache *c = flow_slot(tid);

	if (!c)
		return;
	if (c->tid == tid) {
		flow_cache_put(c);
	} else if (c->tid ||
		   __sync_val_compare_and_swap(&c->tid, 0, (__u64)tid) != 0) {
		/* another thread's slot: this one's calls keep taking
		 * net_flows, nothing lost */
		return;
	} else if (!flow_slots_taken) {
		flow_slots_taken = 1;
	}
	/* a slot given back has nothing pending (fp_net_task_exit); the
	 * note was taken before (route_take()) */
	__builtin_memcpy(&c->key, key, sizeof(c->key));
	c->note.len = 0;
	c->file = r->file;
	c->ino = r->ino;
}

/* struct fp_route (flowcache.h) of a task that holds no slot */
FP_SHARED struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fp_route);
} routes SEC(".maps");

/*
 * The thread's cached flow, if this call is one more of it: the same
 * process and result, and the destination the kernel routed in this call
 * (the slot's note, which a hit takes), and socket type and protocol.
 * The fd itself is not part of the key, so it is not compared. The
 * task's ids are read again after the lookup, not kept across it: fewer
 * values live across the calls keep the caller's frame under the size
 * that gives it a private stack.
 */
static __always_inline struct fp_flow_cache *
flow_cache_get(struct task_struct *task, long ret)
{
	struct fp_flow_cache *c = flow_slot(task->pid);
	const __u64 *key;

	if (!c || c->tid != task->pid || c->key.tgid != task->tgid ||
	    c->key.ret != (__s32)(ret < 0 ? ret : 0) ||
	    c->key.addrlen != c->note.len)
		return NULL;
	key = (const __u64 *)c->key.addr;
	if (c->note.sa[0] != key[0] || c->note.sa[1] != key[1] ||
	    c->note.sa[2] != key[2] || c->note.sa[3] != key[3])
		return NULL;
	return c;
}

#endif /* FP_FLOWCACHE_BPF_H */
