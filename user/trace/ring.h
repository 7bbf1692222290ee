/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring buffer's consumer, through a window that follows it.
 *
 * libbpf's ring_buffer maps a ring's data pages twice over, whole, and the
 * kernel fills in every page table entry at the mmap and zaps them all at
 * the munmap: for the default 16 MiB ring 8,192 entries, 3.6 ms at the
 * start and 2.4 ms at the end here, a fifth of the CPU footprint spends on
 * a short run, paid whether the run wrote a hundred bytes or a gigabyte.
 * The kernel maps any range of the double mapping, so this maps only the
 * FP_RING_WINDOW bytes from the consumer's position on, and moves them on
 * when a record lies past them: the cost is per byte consumed (about
 * 0.2 ms a MiB), and the ring keeps its headroom for bursts. Records are
 * read as libbpf reads them (the header's busy and discard bits, acquire
 * and release on the positions), and handed over only during the feed
 * call, as there: a record's bytes are gone once it returns.
 */
#ifndef FP_RING_H
#define FP_RING_H

#include <stddef.h>

#include <bpf/libbpf.h>

/* the window: a multiple of the page size; a longer record gets its own */
#define FP_RING_WINDOW (1UL << 20)

struct fp_ring {
	int map_fd; /* our own copy */
	int epoll_fd;
	unsigned long *consumer_pos; /* its page, mapped for writing */
	const unsigned long *producer_pos; /* its page, read only */
	size_t size; /* of the data: a power of two */
	size_t page;
	/* the mapped bytes [win_off, win_off + win_len) of the double mapping */
	const char *win;
	size_t win_off, win_len;
	ring_buffer_sample_fn feed;
	void *ctx;
};

void fp_ring_init(struct fp_ring *r);
/* Consume ring buffer map map_fd into feed(ctx, ...). 0, or -errno. */
int fp_ring_open(struct fp_ring *r, int map_fd, ring_buffer_sample_fn feed,
		 void *ctx);
/* Feed every committed record; the records fed, or -errno (feed's too). */
int fp_ring_consume(struct fp_ring *r);
/* Readable when the kernel side wakes the consumer (epoll, as libbpf's). */
int fp_ring_epoll_fd(const struct fp_ring *r);
void fp_ring_close(struct fp_ring *r);

#endif
