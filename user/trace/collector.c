// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "decode.h"

static void uring_out(void *ctx, const void *rec, size_t size, uint32_t via);

void fp_collector_init(struct fp_collector *c, fp_sink_fn sink, void *ctx)
{
	memset(c, 0, sizeof(*c));
	c->sink = sink;
	c->sink_ctx = ctx;
	fp_uring_pair_init(&c->uring, uring_out, c);
}

static void deliver(struct fp_collector *c, struct fp_event *ev)
{
	int err = c->sink(c->sink_ctx, ev);

	if (err && !c->sink_error)
		c->sink_error = err;
	c->delivered++;
	fp_event_free(ev);
}

/* An io_uring request made into its syscall's record (uring_pair.h). */
static void uring_out(void *ctx, const void *rec, size_t size, uint32_t via)
{
	struct fp_collector *c = ctx;
	struct fp_event ev;

	if (fp_decode(rec, size, &ev)) {
		c->malformed++;
		return;
	}
	ev.via = via;
	deliver(c, &ev);
}

static void release_exec(struct fp_collector *c, struct fp_pending_exec *p)
{
	/* more than announced is not dropped; a crafted record could try */
	p->ev.exec.argv_dropped =
		p->ev.exec.argv.len < p->ev.exec.argv_total ?
			p->ev.exec.argv_total - p->ev.exec.argv.len :
			0;
	if (p->ev.exec.argv_dropped)
		c->argv_incomplete++;
	deliver(c, &p->ev);
	c->pending_bytes -= p->argv_cap;
	p->argv_cap = 0;
	c->execs_used &= ~(1ULL << (p - c->execs));
}

_Static_assert(FP_COLLECTOR_PENDING_EXECS <= 64,
	       "execs_used has one bit a slot");

static bool slot_used(const struct fp_collector *c, int i)
{
	return c->execs_used >> i & 1;
}

static struct fp_pending_exec *find_exec(struct fp_collector *c, uint32_t tid)
{
	uint64_t left = c->execs_used;

	while (left) {
		int i = __builtin_ctzll(left);

		if (c->exec_tid[i] == tid)
			return &c->execs[i];
		left &= left - 1;
	}
	return NULL;
}

static struct fp_pending_exec *new_exec_slot(struct fp_collector *c)
{
	struct fp_pending_exec *oldest = NULL;
	int i;

	for (i = 0; i < FP_COLLECTOR_PENDING_EXECS; i++) {
		if (!slot_used(c, i))
			return &c->execs[i];
		if (!oldest || c->execs[i].seq < oldest->seq)
			oldest = &c->execs[i];
	}
	/* its argv chunks were lost; it goes out with what it has */
	release_exec(c, oldest);
	return oldest;
}

/* Make room for p to hold cap bytes, releasing the oldest other execs. */
static void make_room(struct fp_collector *c, struct fp_pending_exec *p,
		      size_t cap)
{
	while (c->pending_bytes - p->argv_cap + cap >
	       FP_COLLECTOR_PENDING_BYTES) {
		struct fp_pending_exec *oldest = NULL;
		int i;

		for (i = 0; i < FP_COLLECTOR_PENDING_EXECS; i++) {
			struct fp_pending_exec *q = &c->execs[i];

			if (slot_used(c, i) && q != p && q->argv_cap &&
			    (!oldest || q->seq < oldest->seq))
				oldest = q;
		}
		if (!oldest)
			return;
		release_exec(c, oldest);
	}
}

static void add_argv(struct fp_collector *c, const struct fp_argv *a)
{
	struct fp_pending_exec *p = find_exec(c, a->hdr.tid);
	struct fp_bytes *argv;

	if (!p) {
		c->malformed++;
		return;
	}
	argv = &p->ev.exec.argv;
	p->chunks_seen++;
	/* a gap means a chunk was lost: keep only the contiguous prefix */
	if (a->offset == argv->len && a->len) {
		if (argv->len + a->len > p->argv_cap) {
			size_t cap = p->argv_cap ? p->argv_cap * 2 : 4096;
			char *n;

			while (cap < argv->len + a->len)
				cap *= 2;
			make_room(c, p, cap);
			n = realloc(argv->data, cap);
			if (!n) {
				c->malformed++;
				return;
			}
			argv->data = n;
			c->pending_bytes += cap - p->argv_cap;
			p->argv_cap = cap;
		}
		memcpy(argv->data + argv->len, a->data, a->len);
		argv->len += a->len;
	}
	if (p->chunks_seen >= p->chunks_expected)
		release_exec(c, p);
}

static bool duplicate_exit(struct fp_collector *c, const struct fp_event *ev)
{
	unsigned int i;

	for (i = 0; i < FP_COLLECTOR_RECENT_EXITS; i++)
		if (c->recent_exits[i].pid == ev->pid &&
		    c->recent_exits[i].start_ns == ev->exit.start_ns)
			return true;
	i = c->recent_next++ % FP_COLLECTOR_RECENT_EXITS;
	c->recent_exits[i].pid = ev->pid;
	c->recent_exits[i].start_ns = ev->exit.start_ns;
	return false;
}

int fp_collector_feed(void *ctx, void *data, size_t size)
{
	struct fp_collector *c = ctx;
	const struct fp_hdr *h = data;
	struct fp_pending_exec *p;
	struct fp_event ev;
	int err;

	c->records++;
	if (size < sizeof(*h)) {
		c->malformed++;
		return 0;
	}
	if (h->type == FP_EV_URING_REQ || h->type == FP_EV_URING_DONE) {
		fp_uring_pair_feed(&c->uring, data, size);
		c->malformed += c->uring.malformed;
		c->uring.malformed = 0;
		return 0;
	}
	if (h->type == FP_EV_ARGV) {
		const struct fp_argv *a;

		if (fp_decode_argv(data, size, &a))
			c->malformed++;
		else
			add_argv(c, a);
		return 0;
	}
	err = fp_decode(data, size, &ev);
	if (err) {
		c->malformed++;
		return 0;
	}
	/* anything else from a thread ends the wait for its argv */
	p = find_exec(c, ev.tid);
	if (p)
		release_exec(c, p);

	if (ev.type == FP_EV_EXEC) {
		const struct fp_exec *e = data;

		if (e->argv_chunks == 0) {
			deliver(c, &ev);
			return 0;
		}
		p = new_exec_slot(c);
		p->ev = ev;
		p->chunks_expected = e->argv_chunks;
		p->chunks_seen = 0;
		p->argv_cap = 0;
		p->seq = c->exec_seq++;
		c->exec_tid[p - c->execs] = ev.tid;
		c->execs_used |= 1ULL << (p - c->execs);
		return 0;
	}
	if (ev.type == FP_EV_EXIT && duplicate_exit(c, &ev)) {
		c->duplicate_exits++;
		fp_event_free(&ev);
		return 0;
	}
	deliver(c, &ev);
	return 0;
}

void fp_collector_flush(struct fp_collector *c)
{
	int i;

	for (i = 0; i < FP_COLLECTOR_PENDING_EXECS; i++)
		if (slot_used(c, i))
			release_exec(c, &c->execs[i]);
	fp_uring_pair_flush(&c->uring);
	fp_uring_pair_free(&c->uring);
}
