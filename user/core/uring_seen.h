/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What io_uring left unseen (FP_EV_URING events, bpf/uring.bpf.c): a
 * request footprint does not understand, or a ring set up on a kernel
 * whose requests footprint cannot see. Either makes the trace
 * incomplete, and the verdict fails, naming the opcode and the process.
 * A pure function of the events, so replay says the same.
 */
#ifndef FP_URING_SEEN_H
#define FP_URING_SEEN_H

#include <stdint.h>

#include "event.h"

struct fp_uring_seen {
	uint64_t unsupported; /* (process, opcode) pairs reported */
	uint64_t untraceable; /* rings set up */
	uint64_t ops[4]; /* opcodes reported, one bit each */
	/* the first of each, named in why */
	uint32_t op, op_pid, ring_pid;
	int64_t op_arg;
	char why[320];
};

void fp_uring_seen_feed(struct fp_uring_seen *u, const struct fp_event *ev);
/* Why the trace is incomplete, or NULL when io_uring left nothing unseen */
const char *fp_uring_seen_why(const struct fp_uring_seen *u);

#endif
