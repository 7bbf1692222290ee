/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turns ring-buffer records into decoded events, in a stream: an exec is
 * held only until its argv records have arrived, so memory stays bounded
 * however long the run.
 */
#ifndef FP_COLLECTOR_H
#define FP_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "uring_pair.h"

typedef int (*fp_sink_fn)(void *ctx, const struct fp_event *ev);

#define FP_COLLECTOR_PENDING_EXECS 64
/*
 * argv held for execs still waiting for their chunks, all together: one
 * exec may have 2 MiB. Past it the oldest waiting exec goes out with what
 * it has, and its late chunks are counted as lost.
 */
#define FP_COLLECTOR_PENDING_BYTES (16UL << 20)
#define FP_COLLECTOR_RECENT_EXITS 256

struct fp_pending_exec {
	struct fp_event ev;
	uint32_t chunks_expected;
	uint32_t chunks_seen;
	size_t argv_cap;
	uint64_t seq; /* age, for evicting the oldest */
};

struct fp_collector {
	fp_sink_fn sink;
	void *sink_ctx;
	struct fp_pending_exec execs[FP_COLLECTOR_PENDING_EXECS];
	/*
	 * The slots in use, one bit each, and their tids: every record is
	 * looked up by its tid, and a scan of execs[] touched 64 events
	 */
	uint64_t execs_used;
	uint32_t exec_tid[FP_COLLECTOR_PENDING_EXECS];
	uint64_t exec_seq;
	struct {
		uint32_t pid;
		uint64_t start_ns;
	} recent_exits[FP_COLLECTOR_RECENT_EXITS];
	unsigned int recent_next;
	size_t pending_bytes; /* argv_cap of every used slot */
	/* counters */
	uint64_t records;
	uint64_t delivered;
	uint64_t malformed; /* records that failed to decode: lost */
	uint64_t argv_incomplete; /* execs whose argv came short */
	uint64_t duplicate_exits;
	int sink_error;
	/* io_uring requests held until their completion (uring_pair.h) */
	struct fp_uring_pair uring;
};

void fp_collector_init(struct fp_collector *c, fp_sink_fn sink, void *ctx);
/* Feed one raw record; matches libbpf's ring_buffer_sample_fn. */
int fp_collector_feed(void *c, void *data, size_t size);
/* Deliver whatever is still held (end of stream). */
void fp_collector_flush(struct fp_collector *c);

#endif
