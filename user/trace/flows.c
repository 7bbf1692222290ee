// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "flows.h"
#include "flowcache.h"

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

/*
 * Every slot in one call: 4096 lookups would cost a few ms at the end of
 * every run. A slot no thread holds has nothing pending.
 */
int fp_flows_merge_cache(int cache_fd, int map_fd, struct fp_collector *c)
{
	struct fp_flow_cache *slots = calloc(FP_FLOW_SLOTS, sizeof(*slots));
	__u32 *keys = calloc(FP_FLOW_SLOTS, sizeof(*keys));
	__u32 count = FP_FLOW_SLOTS, out, i;
	int n = 0, ret;

	if (!slots || !keys) {
		n = -ENOMEM;
		goto cleanup;
	}
	ret = bpf_map_lookup_batch(cache_fd, NULL, &out, keys, slots, &count,
				   NULL);
	/* ENOENT: the end of the array was reached, count is what was read */
	if (ret && errno != ENOENT) {
		n = -errno;
		goto cleanup;
	}
	for (i = 0; i < count; i++) {
		if (!slots[i].tid || !slots[i].pending)
			continue;
		merge_one(map_fd, &slots[i], c);
		n++;
	}
cleanup:
	free(keys);
	free(slots);
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
