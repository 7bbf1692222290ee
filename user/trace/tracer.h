/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel side as seen from userspace: load, attach, point at a cgroup,
 * drain the ring buffer, and account for every record that did not make it.
 */
#ifndef FP_TRACER_H
#define FP_TRACER_H

#include <stddef.h>
#include <stdint.h>

#include "collector.h"

struct fp_tracer;

struct fp_tracer_opts {
	size_t ring_bytes; /* power of two */
	uint64_t max_argv_bytes;
};

struct fp_trace_stats {
	uint64_t events; /* committed by the kernel side */
	uint64_t lost; /* ring buffer full, arguments not kept, recursion */
	uint64_t lost_ringbuf;
	uint64_t lost_pending;
	uint64_t lost_recursion;
	uint64_t lost_compat; /* 32-bit file syscalls, seen but not decoded */
	unsigned int ncpus;
	uint64_t *lost_per_cpu; /* ring buffer + pending, per CPU */
};

/*
 * Load (and verify) the programs. On failure returns a negative errno and
 * writes one line for the user (what failed, what to do) into err.
 */
int fp_tracer_open(struct fp_tracer **out, const struct fp_tracer_opts *opts,
		   struct fp_collector *collector, char *err, size_t errlen);
/*
 * Attach just before the command starts and detach once it is drained: the
 * raw syscall tracepoints run for every syscall on the machine, footprint's
 * own snapshots included.
 */
int fp_tracer_attach(struct fp_tracer *t, char *err, size_t errlen);
void fp_tracer_detach(struct fp_tracer *t);
int fp_tracer_set_cgroup(struct fp_tracer *t, int cgroup_fd);
/* An fd that becomes readable when the kernel side forces a wakeup. */
int fp_tracer_epoll_fd(struct fp_tracer *t);
/* Hand every committed record to the collector; returns records or -errno. */
int fp_tracer_consume(struct fp_tracer *t);
int fp_tracer_stats(struct fp_tracer *t, struct fp_trace_stats *st);
void fp_trace_stats_free(struct fp_trace_stats *st);
void fp_tracer_close(struct fp_tracer *t);

#endif
