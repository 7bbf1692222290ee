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

#endif
