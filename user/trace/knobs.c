// SPDX-License-Identifier: GPL-2.0
/* The options a load is made with (knobs.h). */
#include <string.h>

#include <bpf/libbpf.h>

#include "hooks.h"
#include "knobs.h"
#include "skel_index.h"
#include "tracer.h"

void fp_knobs_of(struct fp_load_knobs *k, const struct fp_tracer_opts *o)
{
	memset(k, 0, sizeof(*k));
	k->max_argv_bytes = o->max_argv_bytes;
	/* the consumer is woken once a quarter of the ring is full */
	k->wakeup_bytes = o->ring_bytes / 4;
	k->every_open = o->every_open;
	k->ring_bytes = o->ring_bytes;
	k->max_tree_pids = o->max_tree_pids;
	k->debug_hooks = fp_hooks_debug();
	memcpy(k->dns_ports, o->dns_ports, sizeof(k->dns_ports));
}

int fp_knobs_apply(struct footprint_bpf *skel, const struct fp_load_knobs *k)
{
	int ret;

	skel->rodata->max_argv_bytes = k->max_argv_bytes;
	skel->rodata->wakeup_bytes = k->wakeup_bytes;
	skel->rodata->every_open = k->every_open;
	/* all 0: the object's own (port 53) */
	if (k->dns_ports[0])
		memcpy((void *)skel->rodata->dns_ports, k->dns_ports,
		       sizeof(k->dns_ports));
	ret = bpf_map__set_max_entries(skel->maps.events, k->ring_bytes);
	if (!ret && k->max_tree_pids)
		ret = bpf_map__set_max_entries(skel->maps.traced_pids,
					       k->max_tree_pids);
	return ret;
}

bool fp_knobs_in(const struct footprint_bpf__rodata *ro,
		 const struct fp_load_knobs *k)
{
	return ro->max_argv_bytes == k->max_argv_bytes &&
	       ro->wakeup_bytes == k->wakeup_bytes &&
	       ro->every_open == k->every_open &&
	       (!k->dns_ports[0] ||
		!memcmp((const void *)ro->dns_ports, k->dns_ports,
			sizeof(k->dns_ports)));
}

bool fp_knobs_sized(int map_index, __u32 max_entries,
		    const struct fp_load_knobs *k)
{
	if (map_index == (int)FP_SKEL_MAP(events))
		return max_entries == k->ring_bytes;
	if (map_index == (int)FP_SKEL_MAP(traced_pids) && k->max_tree_pids)
		return max_entries == k->max_tree_pids;
	return true;
}
