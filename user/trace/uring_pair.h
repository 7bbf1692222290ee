/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring requests made into their syscalls' events (bpf/uring.bpf.c):
 * the record a request made at its submission (FP_EV_URING_REQ) is held
 * until its completion (FP_EV_URING_DONE) says how it ended, then goes
 * out as the syscall's record would, marked FP_VIA_URING. A request whose
 * completion never comes (IOSQE_CQE_SKIP_SUCCESS; a completion ring so
 * full that the kernel kept the entry aside; no room to hold it) goes out
 * as if it had succeeded, marked FP_VIA_UNSEEN too: when its slot is
 * wanted again, when the request's address is reused, or at the end.
 */
#ifndef FP_URING_PAIR_H
#define FP_URING_PAIR_H

#include <stddef.h>
#include <stdint.h>

/* requests held at once, and the bytes of their records */
#define FP_URING_PENDING 1024
#define FP_URING_PENDING_BYTES (8UL << 20)

struct fp_uring_held {
	uint64_t req; /* 0: a free slot */
	uint64_t seq; /* age, for giving the oldest up */
	void *rec; /* the record the request made, as a syscall's */
	size_t size;
	int delivered; /* a multishot accept: a completion went out */
};

/* A whole record for the collector, with the FP_VIA_* it came by. */
typedef void (*fp_uring_out_fn)(void *ctx, const void *rec, size_t size,
				uint32_t via);

struct fp_uring_pair {
	struct fp_uring_held *held; /* FP_URING_PENDING, made at first use */
	size_t n; /* slots in use */
	size_t bytes;
	uint64_t seq;
	fp_uring_out_fn out;
	void *ctx;
	/* counters */
	uint64_t unseen; /* went out without their completion */
	uint64_t malformed; /* records whose sizes do not add up */
};

void fp_uring_pair_init(struct fp_uring_pair *p, fp_uring_out_fn out,
			void *ctx);
/* One FP_EV_URING_REQ or FP_EV_URING_DONE record of size bytes. */
void fp_uring_pair_feed(struct fp_uring_pair *p, const void *rec, size_t size);
/* Every request still held goes out (end of stream). */
void fp_uring_pair_flush(struct fp_uring_pair *p);
void fp_uring_pair_free(struct fp_uring_pair *p);

#endif
