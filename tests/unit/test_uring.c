// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring in user space: the collector's pairing of a request with its
 * completion (uring_pair.c), the log's encoding of what came through a
 * ring, and why a trace that io_uring left unseen is incomplete
 * (uring_seen.c).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_fixture.h"
#include "collector.h"
#include "logcodec.h"
#include "uring_seen.h"

#define REQ 0xffff888012345600ULL

struct seen {
	uint32_t type, via, npaths, created;
	int64_t ret;
	char path[64], named[64];
	char address[112];
	uint16_t port;
};

struct sink {
	struct seen ev[2048];
	size_t n;
};

static int sink_fn(void *ctx, const struct fp_event *ev)
{
	struct sink *s = ctx;
	struct seen *o;

	cr_assert_lt(s->n, sizeof(s->ev) / sizeof(s->ev[0]));
	o = &s->ev[s->n++];
	memset(o, 0, sizeof(*o));
	o->type = ev->type;
	o->via = ev->via;
	if (ev->type == FP_EV_FILE) {
		o->ret = ev->file.ret;
		o->npaths = ev->file.npaths;
		o->created = ev->file.created;
		snprintf(o->path, sizeof(o->path), "%.*s",
			 (int)ev->file.path[0].path.len,
			 ev->file.path[0].path.data);
		if (ev->file.npaths == 2)
			snprintf(o->named, sizeof(o->named), "%.*s",
				 (int)ev->file.path[1].path.len,
				 ev->file.path[1].path.data);
	} else if (ev->type == FP_EV_NET) {
		o->ret = ev->net.ret;
		snprintf(o->address, sizeof(o->address), "%s", ev->net.address);
		o->port = ev->net.port;
	}
	return 0;
}

/* An FP_EV_URING_REQ wrapping an openat of name (absolute). */
static size_t open_req(char *buf, uint64_t req, const char *name,
		       uint32_t flags)
{
	struct fp_uring_req *w = (struct fp_uring_req *)buf;
	struct fp_file *f = (struct fp_file *)(w + 1);
	size_t n = strlen(name) + 1;

	memset(buf, 0, sizeof(*w) + sizeof(*f));
	f->hdr.type = FP_EV_FILE;
	f->hdr.pid = f->hdr.tid = 7;
	f->sys = FP_SYS_OPENAT;
	f->npaths = 1;
	f->count = 1;
	f->flags = 01 | 0100; /* O_WRONLY|O_CREAT */
	f->path[0].dirfd = -100;
	f->path[0].raw_len = n;
	memcpy(f->data, name, n);
	f->hdr.size = sizeof(*f) + n;
	w->hdr.type = FP_EV_URING_REQ;
	w->hdr.size = sizeof(*w) + f->hdr.size;
	w->req = req;
	w->opcode = 18; /* OPENAT */
	w->flags = flags;
	return w->hdr.size;
}

/* The completion of req: res, and the file it opened named leaf-first. */
static size_t open_done(char *buf, uint64_t req, int64_t res, const char *names,
			size_t names_len, int more)
{
	struct fp_uring_done *d = (struct fp_uring_done *)buf;

	memset(d, 0, sizeof(*d));
	d->hdr.type = FP_EV_URING_DONE;
	d->req = req;
	d->res = res;
	d->more = more;
	d->created = 1;
	if (names_len) {
		d->npaths = 1;
		d->path.dirfd = res;
		d->path.flags = FP_PATH_FROM_FD;
		d->path.base_len = names_len;
		memcpy(d->data, names, names_len);
	}
	d->hdr.size = sizeof(*d) + names_len;
	return d->hdr.size;
}

static struct fp_collector col;
static struct sink sink;

static void setup(void)
{
	memset(&sink, 0, sizeof(sink));
	fp_collector_init(&col, sink_fn, &sink);
}

TestSuite(uring_pair, .init = setup);

Test(uring_pair, open_gets_its_result_and_the_file_it_reached)
{
	char buf[512];

	fp_collector_feed(&col, buf, open_req(buf, REQ, "/r/link", 0));
	cr_assert_eq(sink.n, 0, "held until its completion");
	/* through a symlink: the file reached was /etc/target */
	fp_collector_feed(&col, buf,
			  open_done(buf, REQ, 5, "target\0etc\0", 11, 0));
	cr_assert_eq(sink.n, 1);
	cr_assert_eq(sink.ev[0].type, FP_EV_FILE);
	cr_assert_eq(sink.ev[0].via, FP_VIA_URING);
	cr_assert_eq(sink.ev[0].ret, 5);
	cr_assert_eq(sink.ev[0].created, 1);
	cr_assert_str_eq(sink.ev[0].path, "/etc/target");
	cr_assert_str_eq(sink.ev[0].named, "/r/link");
	fp_collector_flush(&col);
	cr_assert_eq(sink.n, 1, "nothing is left held");
	cr_assert_eq(col.malformed, 0);
}

Test(uring_pair, failed_open_keeps_its_errno)
{
	char buf[512];

	fp_collector_feed(&col, buf, open_req(buf, REQ, "/r/f", 0));
	fp_collector_feed(&col, buf, open_done(buf, REQ, -13, "", 0, 0));
	cr_assert_eq(sink.n, 1);
	cr_assert_eq(sink.ev[0].ret, -13);
	cr_assert_eq(sink.ev[0].npaths, 1);
}

Test(uring_pair, a_completion_never_seen_is_judged_as_done)
{
	char buf[512];

	fp_collector_feed(&col, buf, open_req(buf, REQ, "/r/f", 0));
	fp_collector_flush(&col);
	cr_assert_eq(sink.n, 1);
	cr_assert_eq(sink.ev[0].via, FP_VIA_URING | FP_VIA_UNSEEN);
	cr_assert_eq(sink.ev[0].ret, 0);
	cr_assert_str_eq(sink.ev[0].path, "/r/f");
	cr_assert_eq(col.uring.unseen, 1);
}

Test(uring_pair, untracked_goes_out_at_once)
{
	char buf[512];

	fp_collector_feed(&col, buf,
			  open_req(buf, REQ, "/r/f", FP_UREQ_UNTRACKED));
	cr_assert_eq(sink.n, 1);
	cr_assert_eq(sink.ev[0].via, FP_VIA_URING | FP_VIA_UNSEEN);
	/* a completion for it is not waited for, nor taken */
	fp_collector_feed(&col, buf, open_done(buf, REQ, 3, "f\0", 2, 0));
	cr_assert_eq(sink.n, 1);
}

Test(uring_pair, a_request_at_a_reused_address_gives_the_old_one_up)
{
	char buf[512];

	fp_collector_feed(&col, buf, open_req(buf, REQ, "/r/first", 0));
	fp_collector_feed(&col, buf, open_req(buf, REQ, "/r/second", 0));
	cr_assert_eq(sink.n, 1);
	cr_assert_str_eq(sink.ev[0].path, "/r/first");
	cr_assert_eq(sink.ev[0].via, FP_VIA_URING | FP_VIA_UNSEEN);
	fp_collector_feed(&col, buf, open_done(buf, REQ, 4, "", 0, 0));
	cr_assert_eq(sink.n, 2);
	cr_assert_str_eq(sink.ev[1].path, "/r/second");
	cr_assert_eq(sink.ev[1].ret, 4);
}

Test(uring_pair, a_completion_of_no_request_held_is_ignored)
{
	char buf[512];

	fp_collector_feed(&col, buf, open_done(buf, REQ, 4, "", 0, 0));
	fp_collector_flush(&col);
	cr_assert_eq(sink.n, 0);
	cr_assert_eq(col.malformed, 0);
}

Test(uring_pair, held_requests_are_bounded)
{
	char buf[512];
	size_t i;

	for (i = 0; i < FP_URING_PENDING + 3; i++)
		fp_collector_feed(&col, buf, open_req(buf, REQ + i, "/r/f", 0));
	/* the three oldest were given up to make room */
	cr_assert_eq(sink.n, 3);
	cr_assert_eq(col.uring.n, FP_URING_PENDING);
	fp_collector_flush(&col);
	cr_assert_eq(sink.n, FP_URING_PENDING + 3);
}

Test(uring_pair, multishot_accept_gives_one_event_a_completion)
{
	char buf[512];
	struct fp_uring_req *w = (struct fp_uring_req *)buf;
	struct fp_net *n = (struct fp_net *)(w + 1);
	struct fp_uring_done *d = (struct fp_uring_done *)buf;
	int i;

	memset(buf, 0, sizeof(buf));
	n->hdr.type = FP_EV_NET;
	n->hdr.size = sizeof(*n);
	n->key.op = FP_NET_ACCEPT;
	n->count = 1;
	w->hdr.type = FP_EV_URING_REQ;
	w->hdr.size = sizeof(*w) + sizeof(*n);
	w->req = REQ;
	fp_collector_feed(&col, buf, w->hdr.size);
	for (i = 0; i < 3; i++) {
		memset(d, 0, sizeof(*d));
		d->hdr.type = FP_EV_URING_DONE;
		d->hdr.size = sizeof(*d);
		d->req = REQ;
		d->res = i < 2 ? 10 + i : -125; /* the last: cancelled */
		d->more = i < 2;
		d->port = 8080;
		d->peer_len = 16;
		d->peer[0] = 2; /* AF_INET, 10.0.0.9:40000 */
		d->peer[2] = 40000 >> 8;
		d->peer[3] = 40000 & 0xff;
		d->peer[4] = 10;
		d->peer[7] = 9;
		fp_collector_feed(&col, buf, d->hdr.size);
	}
	fp_collector_flush(&col);
	cr_assert_eq(sink.n, 3);
	cr_assert_str_eq(sink.ev[0].address, "10.0.0.9");
	cr_assert_eq(sink.ev[0].port, 8080, "the listener's port, as accept's");
	cr_assert_eq(sink.ev[1].ret, 0);
	cr_assert_eq(sink.ev[2].ret, -125);
}

Test(uring_pair, malformed_records_are_counted)
{
	char buf[512];
	size_t size = open_req(buf, REQ, "/r/f", 0);
	struct fp_uring_req *w = (struct fp_uring_req *)buf;

	/* the inner record claims more than there is */
	((struct fp_hdr *)(w + 1))->size += 1;
	fp_collector_feed(&col, buf, size);
	cr_assert_eq(col.malformed, 1);
	/* an inner record of a type a request never makes */
	size = open_req(buf, REQ, "/r/f", 0);
	((struct fp_hdr *)(w + 1))->type = FP_EV_EXEC;
	fp_collector_feed(&col, buf, size);
	cr_assert_eq(col.malformed, 2);
	fp_collector_flush(&col);
	cr_assert_eq(sink.n, 0);
}

/* ---- the log ---- */

Test(uring_log, via_and_the_uring_event_roundtrip)
{
	struct fp_event in, out;

	memset(&in, 0, sizeof(in));
	in.type = FP_EV_FILE;
	in.via = FP_VIA_URING | FP_VIA_UNSEEN;
	in.file.sys = FP_SYS_OPENAT;
	in.file.npaths = 1;
	in.file.count = 1;
	in.file.path[0].path = (struct fp_bytes){ "/a", 2 };
	roundtrip(&in, &out);
	cr_assert_eq(out.type, FP_EV_FILE);
	cr_assert_eq(out.via, FP_VIA_URING | FP_VIA_UNSEEN);
	fp_event_free(&out);

	memset(&in, 0, sizeof(in));
	in.type = FP_EV_URING;
	in.uring.kind = FP_URING_UNSUPPORTED;
	in.uring.opcode = 46;
	in.uring.arg = 3;
	roundtrip(&in, &out);
	cr_assert_eq(out.type, FP_EV_URING);
	cr_assert_eq(out.uring.opcode, 46);
	cr_assert_eq(out.uring.arg, 3);
	fp_event_free(&out);
}

Test(uring_log, via_on_an_event_no_ring_makes_is_damage)
{
	struct fp_event in, out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t ts = 0;

	memset(&in, 0, sizeof(in));
	in.type = FP_EV_EXIT;
	in.via = FP_VIA_URING;
	fp_enc_event(&e, &in, &ts);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	ts = 0;
	cr_assert_neq(fp_dec_event(&d, &out, &ts), 0);
	fp_enc_free(&e);
}

/* ---- why the trace is incomplete ---- */

static struct fp_event uring_ev(uint32_t kind, uint32_t op, uint32_t pid)
{
	struct fp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = FP_EV_URING;
	ev.pid = pid;
	ev.uring.kind = kind;
	ev.uring.opcode = op;
	return ev;
}

Test(uring_seen, names_the_first_opcode_and_counts_the_others)
{
	struct fp_uring_seen u = { 0 };
	struct fp_event a = uring_ev(FP_URING_UNSUPPORTED, 42, 10),
			b = uring_ev(FP_URING_UNSUPPORTED, 46, 11),
			c = uring_ev(FP_URING_UNSUPPORTED, 42, 12);

	cr_assert_null(fp_uring_seen_why(&u));
	fp_uring_seen_feed(&u, &a);
	cr_assert_str_eq(
		fp_uring_seen_why(&u),
		"pid 10 made an io_uring request footprint does not understand: SETXATTR");
	fp_uring_seen_feed(&u, &b);
	fp_uring_seen_feed(&u, &c);
	cr_assert_str_eq(
		fp_uring_seen_why(&u),
		"pid 10 made an io_uring request footprint does not understand: SETXATTR (and 1 other opcode)");
}

Test(uring_seen, unknown_opcode_and_untraceable_ring)
{
	struct fp_uring_seen u = { 0 };
	struct fp_event a = uring_ev(FP_URING_UNSUPPORTED, 99, 10),
			b = uring_ev(FP_URING_UNTRACEABLE, 0, 20);

	fp_uring_seen_feed(&u, &a);
	fp_uring_seen_feed(&u, &b);
	cr_assert_str_eq(
		fp_uring_seen_why(&u),
		"pid 10 made an io_uring request footprint does not understand: opcode 99; pid 20 set up an io_uring ring, and this kernel lacks the tracepoint footprint reads its requests from");
}

Test(uring_seen, every_opcode_of_the_kernel_has_its_name)
{
	cr_assert_str_eq(fp_uring_op_name(0), "NOP");
	cr_assert_str_eq(fp_uring_op_name(18), "OPENAT");
	cr_assert_str_eq(fp_uring_op_name(46), "URING_CMD");
	cr_assert_str_eq(fp_uring_op_name(62), "PIPE");
	cr_assert_null(fp_uring_op_name(63));
}
