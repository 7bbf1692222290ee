// SPDX-License-Identifier: GPL-2.0
/* The ring buffer's consumer, through a window that follows it (ring.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "ring.h"

void fp_ring_init(struct fp_ring *r)
{
	r->map_fd = r->epoll_fd = -1;
	r->consumer_pos = NULL;
	r->producer_pos = NULL;
	r->size = 0;
	r->page = 0;
	r->win = NULL;
	r->win_off = r->win_len = 0;
	r->feed = NULL;
	r->ctx = NULL;
}

/* len bytes of the map from off, or NULL: nothing a forked child needs */
static void *map_range(struct fp_ring *r, size_t len, int prot, off_t off)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, r->map_fd, off);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_DONTFORK);
	return p;
}

int fp_ring_open(struct fp_ring *r, int map_fd, ring_buffer_sample_fn feed,
		 void *ctx)
{
	struct bpf_map_info info = {};
	struct epoll_event ev = { .events = EPOLLIN };
	__u32 len = sizeof(info);
	int ret;

	fp_ring_init(r);
	r->feed = feed;
	r->ctx = ctx;
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	r->map_fd = fcntl(map_fd, F_DUPFD_CLOEXEC, 3);
	if (r->map_fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(r->map_fd, &info, &len))
		return -errno;
	r->size = info.max_entries;
	/* the window's arithmetic goes up to twice the size */
	if (info.type != BPF_MAP_TYPE_RINGBUF || r->size < r->page ||
	    (r->size & (r->size - 1)) || r->size > SIZE_MAX / 4)
		return -EINVAL;
	r->consumer_pos = map_range(r, r->page, PROT_READ | PROT_WRITE, 0);
	if (!r->consumer_pos)
		return -errno;
	r->producer_pos = map_range(r, r->page, PROT_READ, (off_t)r->page);
	if (!r->producer_pos)
		return -errno;
	r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epoll_fd < 0)
		return -errno;
	ret = epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, r->map_fd, &ev);
	return ret ? -errno : 0;
}

/*
 * Map the window so that it holds bytes [off, off + n) of the double
 * mapping, where off < size: from off's page on, FP_RING_WINDOW bytes,
 * or as many as a longer record needs. The data pages follow the two
 * position pages in the map's mmap space, once and then again, and the
 * kernel maps no further: start is at most size - page, and len at most
 * size + page, so the window ends within the second copy.
 */
static int window_cover(struct fp_ring *r, size_t off, size_t n)
{
	size_t start = off & ~(r->page - 1), len;
	void *p;

	if (r->win && off >= r->win_off && off + n <= r->win_off + r->win_len)
		return 0;
	/* a header and record cannot outgrow the ring: a corrupt length */
	if (n > r->size)
		return -EBADMSG;
	len = FP_RING_WINDOW < r->size ? FP_RING_WINDOW : r->size;
	if (len < off - start + n)
		len = (off - start + n + r->page - 1) & ~(r->page - 1);
	if (r->win)
		munmap((void *)r->win, r->win_len);
	r->win = NULL;
	p = map_range(r, len, PROT_READ, (off_t)(2 * r->page + start));
	if (!p)
		return -errno;
	r->win = p;
	r->win_off = start;
	r->win_len = len;
	return 0;
}

/* The record at off, n bytes with its header, mapped; NULL and *ret. */
static const __u32 *record_at(struct fp_ring *r, size_t off, size_t n, int *ret)
{
	*ret = window_cover(r, off, n);
	if (*ret)
		return NULL;
	return (const __u32 *)(r->win + (off - r->win_off));
}

/*
 * The record at position cons: 1 once fed, 2 if discarded, with the
 * position past it in *next; 0 if not committed yet; -errno if it cannot
 * be mapped, or feed's error, once the position is past it.
 */
static int one_record(struct fp_ring *r, unsigned long cons,
		      unsigned long *next)
{
	const size_t hdr_sz = BPF_RINGBUF_HDR_SZ;
	size_t off = cons & (r->size - 1);
	const __u32 *hdr;
	__u32 word, len;
	int ret;

	hdr = record_at(r, off, hdr_sz, &ret);
	if (!hdr)
		return ret;
	word = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
	if (word & BPF_RINGBUF_BUSY_BIT)
		return 0;
	len = word & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
	if (!(word & BPF_RINGBUF_DISCARD_BIT)) {
		hdr = record_at(r, off, hdr_sz + len, &ret);
		if (!hdr)
			return ret;
	}
	*next = cons + ((hdr_sz + len + 7) & ~7UL);
	if (word & BPF_RINGBUF_DISCARD_BIT)
		return 2;
	ret = r->feed(r->ctx, (char *)hdr + hdr_sz, len);
	return ret < 0 ? ret : 1;
}

int fp_ring_consume(struct fp_ring *r)
{
	unsigned long cons, prod, next;
	int64_t cnt = 0;
	bool more;
	int ret;

	if (!r->consumer_pos || !r->producer_pos)
		return 0;
	cons = __atomic_load_n(r->consumer_pos, __ATOMIC_ACQUIRE);
	do {
		more = false;
		prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
		while (cons < prod) {
			next = cons;
			ret = one_record(r, cons, &next);
			/* not committed yet: the rest waits for the next call */
			if (!ret)
				goto done;
			if (next != cons) {
				cons = next;
				__atomic_store_n(r->consumer_pos, cons,
						 __ATOMIC_RELEASE);
			}
			if (ret < 0)
				return ret;
			more = true;
			cnt += ret == 1;
		}
	} while (more);
done:
	return cnt > INT_MAX ? INT_MAX : (int)cnt;
}

int fp_ring_epoll_fd(const struct fp_ring *r)
{
	return r->epoll_fd;
}

void fp_ring_close(struct fp_ring *r)
{
	if (r->win)
		munmap((void *)r->win, r->win_len);
	if (r->producer_pos)
		munmap((void *)r->producer_pos, r->page);
	if (r->consumer_pos)
		munmap(r->consumer_pos, r->page);
	if (r->epoll_fd >= 0)
		close(r->epoll_fd);
	if (r->map_fd >= 0)
		close(r->map_fd);
	fp_ring_init(r);
}
