/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel counts network calls per (process, destination, result) in
 * its net_flows table and emits only the first of each. At the end of the
 * run the counts of the rest go to the collector as FP_EV_NET_COUNT
 * records, so that the log and every consumer see them as events.
 */
#ifndef FP_FLOWS_H
#define FP_FLOWS_H

#include "collector.h"

/* Feed one FP_EV_NET_COUNT per flow counted more than once; returns the
 * number fed, or -errno. Call once the programs are detached. */
int fp_flows_flush(int map_fd, struct fp_collector *c);

/* Add the counts the threads' flow caches hold (bpf/flowcache.h) into the
 * flow table map_fd, before fp_flows_flush(). Call once detached. */
int fp_flows_merge_cache(int cache_fd, int map_fd, struct fp_collector *c);

#endif
