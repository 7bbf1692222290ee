// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "flows.h"
#include "flowcache.h"
#include "maparray.h"

struct flow_val {
	__u64 count; /* as bpf/flowcache.bpf.h: calls after the first */
};

static void count_rec(struct fp_net *rec, const struct fp_net_key *key,
		      __u64 count)
{
	struct timespec ts;

	memset(rec, 0, sizeof(*rec));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	rec->hdr.type = FP_EV_NET_COUNT;
	rec->hdr.size = sizeof(*rec);
	/* the clock of bpf_ktime_get_ns */
	rec->hdr.ts_ns = (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	rec->hdr.pid = key->tgid;
	rec->hdr.tid = key->tgid;
	rec->key = *key;
	rec->fd = -1;
	rec->count = count;
}

/*
 * A thread's cached count into its flow's entry; if the entry is gone,
 * it is made, and if the table is full the count goes out alone.
 */
static void merge_one(int map_fd, const struct fp_flow_cache *fc,
		      struct fp_collector *c)
{
	struct flow_val v = { 0 };
	struct fp_net rec;

	if (!fc->pending)
		return;
	bpf_map_lookup_elem(map_fd, &fc->key, &v);
	v.count += fc->pending;
	if (!bpf_map_update_elem(map_fd, &fc->key, &v, BPF_ANY))
		return;
	count_rec(&rec, &fc->key, fc->pending);
	fp_collector_feed(c, &rec, sizeof(rec));
}

/* The slots in place (maparray.h): a slot no thread holds has nothing pending. */
int fp_flows_merge_cache(int cache_fd, int map_fd, struct fp_collector *c)
{
	const struct fp_flow_cache *slot;
	struct fp_map_array a;
	unsigned int i;
	int n = 0, ret;

	ret = fp_map_array_open(&a, cache_fd, sizeof(*slot), FP_FLOW_SLOTS, 0);
	if (ret)
		return ret;
	for (i = 0; i < FP_FLOW_SLOTS; i++) {
		slot = fp_map_array_at(&a, i);
		if (!slot->tid || !slot->pending)
			continue;
		merge_one(map_fd, slot, c);
		n++;
	}
	fp_map_array_close(&a);
	return n;
}

int fp_flows_flush(int map_fd, struct fp_collector *c)
{
	struct fp_net_key key, next;
	struct flow_val v;
	struct fp_net rec;
	void *prev = NULL;
	int n = 0;

	while (!bpf_map_get_next_key(map_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(map_fd, &key, &v) || !v.count)
			continue;
		count_rec(&rec, &key, v.count);
		fp_collector_feed(c, &rec, sizeof(rec));
		n++;
	}
	return errno == ENOENT || !prev ? n : -errno;
}
