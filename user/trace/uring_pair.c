// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "uring_pair.h"

void fp_uring_pair_init(struct fp_uring_pair *p, fp_uring_out_fn out, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->ctx = ctx;
}

static void drop(struct fp_uring_pair *p, struct fp_uring_held *h)
{
	p->bytes -= h->size;
	p->n--;
	free(h->rec);
	memset(h, 0, sizeof(*h));
}

/* h goes out as if it succeeded, unless a completion of it already did */
static void give_up(struct fp_uring_pair *p, struct fp_uring_held *h)
{
	if (!h->delivered) {
		p->unseen++;
		p->out(p->ctx, h->rec, h->size, FP_VIA_URING | FP_VIA_UNSEEN);
	}
	drop(p, h);
}

static struct fp_uring_held *find(struct fp_uring_pair *p, uint64_t req)
{
	size_t i;

	for (i = 0; p->held && i < FP_URING_PENDING; i++)
		if (p->held[i].req == req)
			return &p->held[i];
	return NULL;
}

static struct fp_uring_held *oldest(struct fp_uring_pair *p)
{
	struct fp_uring_held *o = NULL;
	size_t i;

	for (i = 0; i < FP_URING_PENDING; i++)
		if (p->held[i].req && (!o || p->held[i].seq < o->seq))
			o = &p->held[i];
	return o;
}

/* A free slot with room for size more bytes, giving the oldest up. */
static struct fp_uring_held *slot_for(struct fp_uring_pair *p, size_t size)
{
	struct fp_uring_held *o;

	if (!p->held) {
		p->held = calloc(FP_URING_PENDING, sizeof(*p->held));
		if (!p->held)
			return NULL;
	}
	while (p->n && (p->n >= FP_URING_PENDING ||
			p->bytes + size > FP_URING_PENDING_BYTES)) {
		o = oldest(p);
		if (!o)
			break;
		give_up(p, o);
	}
	return find(p, 0);
}

static bool inner_ok(const struct fp_hdr *h, size_t size)
{
	if (size < sizeof(*h) || h->size != size)
		return false;
	switch (h->type) {
	case FP_EV_FILE:
		return size >= sizeof(struct fp_file);
	case FP_EV_NET:
		return size >= sizeof(struct fp_net);
	case FP_EV_BIND:
		return size >= sizeof(struct fp_bind);
	}
	return false;
}

static void req_feed(struct fp_uring_pair *p, const struct fp_uring_req *w,
		     size_t size)
{
	const struct fp_hdr *in = (const struct fp_hdr *)(w + 1);
	size_t isize = size - sizeof(*w);
	struct fp_uring_held *h;
	void *copy;

	if (size < sizeof(*w) || !inner_ok(in, isize)) {
		p->malformed++;
		return;
	}
	/* the kernel reuses a request's memory once it completed: one held
	 * at this address had its completion go unseen */
	h = find(p, w->req);
	if (h && w->req)
		give_up(p, h);
	if ((w->flags & FP_UREQ_UNTRACKED) || !w->req) {
		p->unseen++;
		p->out(p->ctx, in, isize, FP_VIA_URING | FP_VIA_UNSEEN);
		return;
	}
	h = slot_for(p, isize);
	copy = h ? malloc(isize) : NULL;
	if (!copy) {
		/* out of memory: it goes out now, its result unknown */
		p->unseen++;
		p->out(p->ctx, in, isize, FP_VIA_URING | FP_VIA_UNSEEN);
		return;
	}
	memcpy(copy, in, isize);
	h->req = w->req;
	h->seq = p->seq++;
	h->rec = copy;
	h->size = isize;
	h->delivered = 0;
	p->n++;
	p->bytes += isize;
}

/* An open's record with the file it reached appended as its path[1],
 * as file.bpf.c's opened_file() does for the syscall. NULL if out of
 * memory or the completion's path does not add up. */
static void *with_opened(const struct fp_file *f, size_t size,
			 const struct fp_uring_done *d, size_t dsize,
			 size_t *out)
{
	size_t extra = (size_t)d->path.raw_len + d->path.base_len;
	struct fp_file *n;

	if (d->path.raw_len > dsize - sizeof(*d) ||
	    d->path.base_len > dsize - sizeof(*d) - d->path.raw_len)
		return NULL;
	n = malloc(size + extra);
	if (!n)
		return NULL;
	memcpy(n, f, size);
	memcpy((char *)n + size, d->data, extra);
	n->npaths = 2;
	n->path[1] = d->path;
	n->path[1].flags |= FP_PATH_FROM_FD | FP_PATH_OPENED;
	n->created = d->created;
	n->hdr.size = size + extra;
	*out = size + extra;
	return n;
}

static bool is_open(uint32_t sys)
{
	return fp_sys_is_name_open(sys);
}

/* What the completion adds to a file record: result, file opened. */
static void *done_file(struct fp_file *f, size_t size,
		       const struct fp_uring_done *d, size_t dsize, size_t *out)
{
	f->ret = d->res;
	if (d->res >= 0 && d->npaths == 1 && f->npaths == 1 && is_open(f->sys))
		return with_opened(f, size, d, dsize, out);
	return NULL;
}

/* ... to a connect, send or accept: result, socket, accept's peer */
static void done_net(struct fp_net *n, const struct fp_uring_done *d)
{
	n->key.ret = d->res < 0 ? d->res : 0;
	if (d->sock_kind) {
		n->key.sock_type = d->sock_kind >> 16;
		n->key.protocol = d->sock_kind & 0xffff;
	}
	if (n->key.op != FP_NET_ACCEPT)
		return;
	/* as fp_accept_exit(): the peer at the listener's port */
	memset(n->key.addr, 0, sizeof(n->key.addr));
	n->key.addrlen = 0;
	if (d->res < 0 || !d->peer_len || d->peer_len > sizeof(d->peer))
		return;
	memcpy(n->key.addr, d->peer, d->peer_len);
	n->key.addrlen = d->peer_len;
	if (d->peer_len >= 4) {
		n->key.addr[2] = d->port >> 8;
		n->key.addr[3] = d->port & 0xff;
	}
}

static void done_bind(struct fp_bind *b, const struct fp_uring_done *d)
{
	b->ret = d->res;
	b->sock_type = d->sock_kind >> 16;
	b->protocol = d->sock_kind & 0xffff;
	b->bound_port = d->res == 0 ? d->port : 0;
}

_Static_assert(offsetof(struct fp_uring_done, data) ==
		       sizeof(struct fp_uring_done),
	       "the kernel writes a completion's path at sizeof()");

static void done_feed(struct fp_uring_pair *p, const struct fp_uring_done *d,
		      size_t size)
{
	struct fp_uring_held *h;
	struct fp_hdr *in;
	void *merged = NULL;
	size_t msize = 0;

	if (size < sizeof(*d)) {
		p->malformed++;
		return;
	}
	h = find(p, d->req);
	if (!d->req || !h)
		return; /* given up on already, or not one to judge */
	in = h->rec;
	/* when it completed: the time its effect is known to have been */
	in->ts_ns = d->hdr.ts_ns;
	if (in->type == FP_EV_FILE)
		merged = done_file(h->rec, h->size, d, size, &msize);
	else if (in->type == FP_EV_NET)
		done_net(h->rec, d);
	else
		done_bind(h->rec, d);
	if (merged)
		p->out(p->ctx, merged, msize, FP_VIA_URING);
	else
		p->out(p->ctx, h->rec, h->size, FP_VIA_URING);
	free(merged);
	h->delivered = 1;
	if (!d->more)
		drop(p, h);
}

void fp_uring_pair_feed(struct fp_uring_pair *p, const void *rec, size_t size)
{
	const struct fp_hdr *h = rec;

	if (size < sizeof(*h) || h->size != size) {
		p->malformed++;
		return;
	}
	if (h->type == FP_EV_URING_REQ)
		req_feed(p, rec, size);
	else if (h->type == FP_EV_URING_DONE)
		done_feed(p, rec, size);
	else
		p->malformed++;
}

void fp_uring_pair_flush(struct fp_uring_pair *p)
{
	struct fp_uring_held *o;

	/* oldest first: the order they were made in */
	while (p->held && p->n && (o = oldest(p)))
		give_up(p, o);
}

void fp_uring_pair_free(struct fp_uring_pair *p)
{
	size_t i;

	for (i = 0; p->held && i < FP_URING_PENDING; i++)
		free(p->held[i].rec);
	free(p->held);
	p->held = NULL;
	p->n = 0;
	p->bytes = 0;
}
