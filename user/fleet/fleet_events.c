// SPDX-License-Identifier: GPL-2.0
/*
 * A log's exec, file and network events as rows of footprint_events,
 * read straight from the log (no reconciliation: the receipt was made
 * from it already), in batches of bounded size, going on from the last
 * event a push that stopped stored.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "evlog.h"
#include "fleet_push.h"
#include "fleet_rb.h"
#include "fleet_schema.h"
#include "logcodec.h"
#include "userfile.h"

struct ev_ctx {
	struct fp_fleet *fl;
	char *sql;
	struct fp_rb rb;
	size_t n;
	const char *run_id;
	const struct fp_fleet_meta *m;
	uint64_t seq, from, pushed;
	enum fp_ch_status st;
};

static bool wanted(const struct fp_event *ev)
{
	return ev->type == FP_EV_EXEC || ev->type == FP_EV_FILE ||
	       ev->type == FP_EV_BIND || ev->type == FP_EV_NET;
}

static const char *proto(int family, int protocol, int sock_type)
{
	if (family == AF_UNIX)
		return "unix";
	if (protocol == IPPROTO_TCP || sock_type == SOCK_STREAM)
		return "tcp";
	if (protocol == IPPROTO_UDP || sock_type == SOCK_DGRAM)
		return "udp";
	return "ip";
}

static void path_of(struct fp_rb *b, const struct fp_event_path *p)
{
	fp_rb_bytes(b, p->path.data ? p->path.data : "",
		    p->path.data ? p->path.len : 0);
}

static void event_row(struct ev_ctx *c, const struct fp_event *ev)
{
	struct fp_rb *b = &c->rb;
	const struct fp_bytes none = { 0 };
	const struct fp_bytes *unix_path = &none;
	const char *addr = "", *prot = "";
	uint64_t flags = 0;
	int64_t ret = 0;
	uint16_t port = 0;

	fp_rb_str(b, c->run_id);
	fp_rb_str(b, c->m->job);
	fp_rb_u32(b, c->m->started);
	fp_rb_u64(b, c->seq);
	fp_rb_u64(b, ev->ts_ns);
	fp_rb_str(b, fp_event_kind(ev));
	fp_rb_str(b, ev->type == FP_EV_FILE ? fp_sys_name(ev->file.sys) : "");
	fp_rb_u32(b, ev->pid);
	fp_rb_u32(b, ev->ppid);
	fp_rb_u32(b, ev->uid);
	fp_rb_str(b, ev->comm);
	switch (ev->type) {
	case FP_EV_EXEC:
		fp_rb_bytes(b, ev->exec.exe.data ?: "", ev->exec.exe.len);
		fp_rb_bytes(b, ev->exec.filename.data ?: "",
			    ev->exec.filename.len);
		fp_rb_strv(b, ev->exec.argv.data, ev->exec.argv.len);
		break;
	case FP_EV_FILE:
		path_of(b, &ev->file.path[0]);
		if (ev->file.npaths > 1)
			path_of(b, &ev->file.path[1]);
		else
			fp_rb_str(b, "");
		fp_rb_strv(b, NULL, 0);
		flags = ev->file.flags;
		ret = ev->file.ret;
		break;
	case FP_EV_BIND:
		unix_path = &ev->bind.unix_path;
		addr = ev->bind.address;
		port = ev->bind.bound_port ? ev->bind.bound_port :
					     ev->bind.port;
		prot = proto(ev->bind.family, ev->bind.protocol,
			     ev->bind.sock_type);
		ret = ev->bind.ret;
		break;
	default: /* FP_EV_NET */
		unix_path = &ev->net.unix_path;
		addr = ev->net.address;
		port = ev->net.port;
		prot = proto(ev->net.family, ev->net.protocol,
			     ev->net.sock_type);
		ret = ev->net.ret;
		flags = ev->net.count;
		break;
	}
	if (ev->type == FP_EV_BIND || ev->type == FP_EV_NET) {
		fp_rb_bytes(b, unix_path->data ?: "", unix_path->len);
		fp_rb_str(b, "");
		fp_rb_strv(b, NULL, 0);
	}
	fp_rb_u64(b, flags);
	fp_rb_i64(b, ret);
	fp_rb_str(b, addr);
	fp_rb_u16(b, port);
	fp_rb_str(b, prot);
}

/*
 * The rows, as the server reads them: events are decoded and encoded
 * until len bytes are ready (or the log ends), so that footprint encodes
 * while the server parses, and holds about one buffer of rows.
 */
struct ev_stream {
	struct ev_ctx *c;
	struct fp_evlog_reader r;
	uint64_t prev_ts;
	size_t off; /* of c->rb sent already */
	bool end;
	int err; /* -EBADMSG, -ENOMEM: abort */
};

static int on_event(struct ev_ctx *c, const unsigned char *body, size_t len,
		    uint64_t *prev_ts)
{
	struct fp_dec d = { .p = body, .len = len };
	struct fp_event ev;

	if (fp_dec_event(&d, &ev, prev_ts))
		return -EBADMSG;
	if (wanted(&ev)) {
		if (c->seq >= c->from) {
			event_row(c, &ev);
			c->n++;
		}
		c->seq++;
	}
	fp_event_free(&ev);
	return c->rb.err ? -ENOMEM : 0;
}

/* the next record into the rows; false at the end or on an error */
static bool more(struct ev_stream *st)
{
	const unsigned char *body;
	unsigned int type;
	size_t len;
	int ret = fp_evlog_next(&st->r, &type, &body, &len);

	if (ret <= 0) {
		/* a log cut short: its events up to the cut, as its receipt
		 * says */
		if (ret < 0 && ret != -ENODATA)
			st->err = ret;
		st->end = true;
		return false;
	}
	if (type == FP_REC_EVENT)
		st->err = on_event(st->c, body, len, &st->prev_ts);
	else if (type == FP_REC_TRAILER)
		st->r.last = true; /* no segment follows the trailer's */
	return !st->err;
}

static size_t fill(void *ctx, char *buf, size_t len)
{
	struct ev_stream *st = ctx;
	struct fp_rb *rb = &st->c->rb;
	size_t n;

	/* what was sent goes: the rows held stay about one buffer */
	if (st->off) {
		memmove(rb->p, rb->p + st->off, rb->len - st->off);
		rb->len -= st->off;
		st->off = 0;
	}
	while (rb->len - st->off < len && !st->end && more(st))
		;
	if (st->err)
		return FP_CH_FILL_ABORT;
	n = rb->len - st->off < len ? rb->len - st->off : len;
	memcpy(buf, rb->p + st->off, n);
	st->off += n;
	return n;
}

/* every event of the log at fd, streamed; 0, -ECONNABORTED (the server
 * said no or was not reached: c->st), or -EBADMSG / -ENOMEM */
static int read_log(struct ev_ctx *c, int fd, int dirfd, const char *base,
		    const char *log)
{
	struct ev_stream st = { .c = c };
	int ret;

	ret = fp_evlog_reader_open_fd(&st.r, fd, dirfd, base, log);
	if (!ret) {
		c->st = fp_ch_insert_stream(&c->fl->ch, c->sql, fill, &st);
		ret = st.err ? st.err : c->st ? -ECONNABORTED : 0;
		if (!ret)
			c->pushed = c->n;
	}
	if (ret < 0 && ret != -ECONNABORTED)
		fprintf(stderr, "footprint: fleet: %s: %s\n", log,
			st.r.err[0] ? st.r.err : strerror(-ret));
	fp_evlog_reader_close(&st.r);
	return ret;
}

enum fp_ch_status fp_fleet_push_events(struct fp_fleet *fl, const char *log,
				       const char *run_id,
				       const struct fp_fleet_meta *m,
				       uint64_t *pushed)
{
	struct ev_ctx c = { .fl = fl, .run_id = run_id, .m = m };
	char err[PATH_MAX + 256];
	struct fp_outdir dir;
	uint64_t count;
	int fd, ret;

	*pushed = 0;
	c.st = fp_fleet_resume(fl, FP_TABLE_EVENTS, run_id, &count, &c.from);
	if (c.st)
		return c.st;
	if (fp_outdir_open(&dir, fl->creds, "the log", log, err, sizeof(err)) ||
	    (fd = fp_input_open(fl->creds, "the log", log, ~(size_t)0, err,
				sizeof(err))) < 0) {
		if (dir.dirfd >= 0)
			fp_outdir_close(&dir);
		snprintf(fl->ch.err, sizeof(fl->ch.err), "%.1000s", err);
		return FP_CH_REFUSED;
	}
	c.sql = fp_fleet_insert_sql(FP_TABLE_EVENTS);
	ret = c.sql ? read_log(&c, fd, dir.dirfd, dir.base, log) : -ENOMEM;
	if (ret && ret != -ECONNABORTED)
		c.st = FP_CH_REFUSED;
	if (ret == -ENOMEM)
		snprintf(fl->ch.err, sizeof(fl->ch.err), "out of memory");
	else if (ret != -ECONNABORTED && ret)
		snprintf(fl->ch.err, sizeof(fl->ch.err),
			 "the events of %.900s cannot be read", log);
	fp_outdir_close(&dir);
	free(c.sql);
	fp_rb_free(&c.rb);
	*pushed = c.pushed;
	return c.st;
}
