// SPDX-License-Identifier: GPL-2.0
/* collector.c: exec + argv reassembly, exit dedup, counters */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"

/* what the sink saw, copied: the collector frees events after the call */
struct seen {
	uint32_t type, pid, tid;
	char *argv;
	size_t argv_len;
	uint64_t argv_total, argv_dropped;
	int exit_code, exit_signal;
	uint64_t start_ns;
	char *path;
};

struct sink {
	struct seen ev[256];
	size_t n;
	int ret; /* what the sink returns */
};

static int sink_fn(void *ctx, const struct fp_event *ev)
{
	struct sink *s = ctx;
	struct seen *o;

	cr_assert_lt(s->n, sizeof(s->ev) / sizeof(s->ev[0]));
	o = &s->ev[s->n++];
	memset(o, 0, sizeof(*o));
	o->type = ev->type;
	o->pid = ev->pid;
	o->tid = ev->tid;
	if (ev->type == FP_EV_EXEC) {
		o->argv_len = ev->exec.argv.len;
		o->argv = malloc(o->argv_len + 1);
		if (o->argv_len)
			memcpy(o->argv, ev->exec.argv.data, o->argv_len);
		o->argv_total = ev->exec.argv_total;
		o->argv_dropped = ev->exec.argv_dropped;
	} else if (ev->type == FP_EV_EXIT) {
		o->exit_code = ev->exit.code;
		o->exit_signal = ev->exit.signal;
		o->start_ns = ev->exit.start_ns;
	} else if (ev->type == FP_EV_FILE) {
		o->path = strndup(ev->file.path[0].path.data,
				  ev->file.path[0].path.len);
	}
	return s->ret;
}

static void sink_free(struct sink *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->ev[i].argv);
		free(s->ev[i].path);
	}
	s->n = 0;
}

static struct fp_collector coll;
static struct sink snk;

static void setup(void)
{
	memset(&snk, 0, sizeof(snk));
	fp_collector_init(&coll, sink_fn, &snk);
}

static void teardown(void)
{
	sink_free(&snk);
}

TestSuite(collector, .init = setup, .fini = teardown);

/* ---- record builders: feed exactly sized heap copies ---- */

static void fill_hdr(struct fp_hdr *h, uint32_t type, uint32_t size,
		     uint32_t pid, uint32_t tid)
{
	h->type = type;
	h->size = size;
	h->ts_ns = 1000 + tid;
	h->pid = pid;
	h->tid = tid;
	h->ppid = 1;
	memcpy(h->comm, "test", 5);
}

static void feed(void *rec, size_t size)
{
	/* the ring buffer's memory is only valid during the callback */
	void *copy = malloc(size);

	memcpy(copy, rec, size);
	cr_assert_eq(fp_collector_feed(&coll, copy, size), 0);
	memset(copy, 0xa5, size);
	free(copy);
}

static void feed_exec(uint32_t tid, uint32_t argv_len, uint32_t chunks)
{
	struct {
		struct fp_exec e;
		char data[8];
	} r;

	memset(&r, 0, sizeof(r));
	fill_hdr(&r.e.hdr, FP_EV_EXEC, sizeof(r.e) + 8, tid, tid);
	r.e.old_pid = tid;
	r.e.exe_len = 3;
	memcpy(r.data, "sh\0", 3);
	r.e.filename_len = 5;
	memcpy(r.data + 3, "/x/y\0", 5);
	r.e.argv_len = argv_len;
	r.e.argv_chunks = chunks;
	feed(&r, sizeof(r.e) + 8);
}

static void feed_argv(uint32_t tid, uint32_t seq, uint32_t offset,
		      const char *s, uint32_t len)
{
	size_t size = sizeof(struct fp_argv) + len;
	struct fp_argv *a = calloc(1, size);

	fill_hdr(&a->hdr, FP_EV_ARGV, size, tid, tid);
	a->seq = seq;
	a->offset = offset;
	a->len = len;
	memcpy(a->data, s, len);
	feed(a, size);
	free(a);
}

static void feed_exit(uint32_t pid, uint64_t start_ns, uint32_t status)
{
	struct fp_exit x;

	memset(&x, 0, sizeof(x));
	fill_hdr(&x.hdr, FP_EV_EXIT, sizeof(x), pid, pid);
	x.status = status;
	x.start_ns = start_ns;
	feed(&x, sizeof(x));
}

static void feed_open(uint32_t tid, const char *path)
{
	size_t len = strlen(path) + 1, size = sizeof(struct fp_file) + len;
	struct fp_file *f = calloc(1, size);

	fill_hdr(&f->hdr, FP_EV_FILE, size, tid, tid);
	f->sys = FP_SYS_OPENAT;
	f->npaths = 1;
	f->path[0].raw_len = len;
	f->path[0].dirfd = -100;
	memcpy(f->data, path, len);
	feed(f, size);
	free(f);
}

static void check_argv(const struct seen *s, const char *want, size_t len)
{
	cr_assert_eq(s->type, FP_EV_EXEC);
	cr_assert_eq(s->argv_len, len, "argv len %zu, want %zu", s->argv_len,
		     len);
	cr_assert(memcmp(s->argv, want, len) == 0, "argv \"%.*s\"",
		  (int)s->argv_len, s->argv);
}

#define CHECK_ARGV(s, lit) check_argv(s, lit, sizeof(lit) - 1)

/* ---- tests ---- */

Test(collector, exec_with_chunks_in_order)
{
	feed_exec(100, 14, 3);
	feed_argv(100, 0, 0, "ls\0-l", 5);
	feed_argv(100, 1, 5, "a\0/tm", 5);
	cr_assert_eq(snk.n, 0, "exec delivered before its argv");
	feed_argv(100, 2, 10, "p/\0\0", 4);
	/* the last chunk completes it: out without a flush */
	cr_assert_eq(snk.n, 1);
	CHECK_ARGV(&snk.ev[0], "ls\0-la\0/tmp/\0\0");
	cr_assert_eq(snk.ev[0].tid, 100);
	cr_assert_eq(snk.ev[0].argv_total, 14);
	cr_assert_eq(snk.ev[0].argv_dropped, 0);
	fp_collector_flush(&coll);
	cr_assert_eq(snk.n, 1);
	cr_assert_eq(coll.records, 4);
	cr_assert_eq(coll.delivered, 1);
	cr_assert_eq(coll.argv_incomplete, 0);
	cr_assert_eq(coll.malformed, 0);
}

Test(collector, exec_large_argv_many_chunks)
{
	/* 3 full chunks and a partial one: 3 * 4096 + 100 bytes */
	uint32_t total = 3 * FP_ARGV_CHUNK + 100, off, seq = 0;
	char *want = malloc(total);

	for (off = 0; off < total; off++)
		want[off] = off % 7 ? 'a' + off % 26 : '\0';
	feed_exec(7, total, 4);
	for (off = 0; off < total; off += FP_ARGV_CHUNK) {
		uint32_t len = total - off < FP_ARGV_CHUNK ? total - off :
							     FP_ARGV_CHUNK;

		feed_argv(7, seq++, off, want + off, len);
	}
	cr_assert_eq(snk.n, 1);
	check_argv(&snk.ev[0], want, total);
	cr_assert_eq(snk.ev[0].argv_dropped, 0);
	cr_assert_eq(coll.argv_incomplete, 0);
	free(want);
}

Test(collector, exec_without_argv_chunks_goes_out_at_once)
{
	feed_exec(5, 0, 0);
	cr_assert_eq(snk.n, 1);
	cr_assert_eq(snk.ev[0].argv_len, 0);
	cr_assert_eq(snk.ev[0].argv_total, 0);
	cr_assert_eq(snk.ev[0].argv_dropped, 0);
	cr_assert_eq(coll.argv_incomplete, 0);
}

Test(collector, missing_middle_chunk_keeps_prefix)
{
	feed_exec(100, 12, 3);
	feed_argv(100, 0, 0, "aaa\0", 4);
	/* seq 1 (offset 4) lost */
	feed_argv(100, 2, 8, "ccc\0", 4);
	cr_assert_eq(snk.n, 0);
	fp_collector_flush(&coll);
	cr_assert_eq(snk.n, 1);
	CHECK_ARGV(&snk.ev[0], "aaa\0");
	cr_assert_eq(snk.ev[0].argv_total, 12);
	cr_assert_eq(snk.ev[0].argv_dropped, 8);
	cr_assert_eq(coll.argv_incomplete, 1);
	cr_assert_eq(coll.malformed, 0);
}

Test(collector, missing_first_chunk_delivers_nothing)
{
	feed_exec(100, 8, 2);
	feed_argv(100, 1, 4, "bbb\0", 4);
	feed_exit(100, 1, 0);
	cr_assert_eq(snk.n, 2);
	cr_assert_eq(snk.ev[0].argv_len, 0);
	cr_assert_eq(snk.ev[0].argv_dropped, 8);
	cr_assert_eq(snk.ev[1].type, FP_EV_EXIT);
	cr_assert_eq(coll.argv_incomplete, 1);
}

Test(collector, failed_chunk_read_keeps_prefix)
{
	/* the BPF side sends len 0 when it could not read a chunk */
	feed_exec(9, 12, 3);
	feed_argv(9, 0, 0, "aaa\0", 4);
	feed_argv(9, 1, 4, "", 0);
	feed_argv(9, 2, 8, "ccc\0", 4);
	cr_assert_eq(snk.n, 1);
	CHECK_ARGV(&snk.ev[0], "aaa\0");
	cr_assert_eq(snk.ev[0].argv_dropped, 8);
	cr_assert_eq(coll.argv_incomplete, 1);
}

Test(collector, argv_cut_by_max_argv)
{
	/* 10000 bytes, only one chunk shown (--max-argv 4K) */
	char chunk[FP_ARGV_CHUNK];

	memset(chunk, 'x', sizeof(chunk));
	feed_exec(3, 10000, 1);
	feed_argv(3, 0, 0, chunk, sizeof(chunk));
	cr_assert_eq(snk.n, 1);
	cr_assert_eq(snk.ev[0].argv_len, FP_ARGV_CHUNK);
	cr_assert_eq(snk.ev[0].argv_total, 10000);
	cr_assert_eq(snk.ev[0].argv_dropped, 10000 - FP_ARGV_CHUNK);
	cr_assert_eq(coll.argv_incomplete, 1);
}

Test(collector, other_event_same_tid_releases_exec)
{
	feed_exec(100, 6, 1);
	/* other threads and processes do not release it */
	feed_open(101, "/etc/a");
	feed_exit(102, 5, 0);
	cr_assert_eq(snk.n, 2);
	cr_assert_eq(snk.ev[0].tid, 101);
	cr_assert_eq(snk.ev[1].tid, 102);
	/* same tid: the exec goes first, then the event */
	feed_open(100, "/etc/b");
	cr_assert_eq(snk.n, 4);
	cr_assert_eq(snk.ev[2].type, FP_EV_EXEC);
	cr_assert_eq(snk.ev[2].tid, 100);
	cr_assert_eq(snk.ev[2].argv_len, 0);
	cr_assert_eq(snk.ev[2].argv_dropped, 6);
	cr_assert_eq(snk.ev[3].type, FP_EV_FILE);
	cr_assert_str_eq(snk.ev[3].path, "/etc/b");
	cr_assert_eq(coll.argv_incomplete, 1);
	/* a late chunk has nothing to attach to */
	feed_argv(100, 0, 0, "abcde\0", 6);
	cr_assert_eq(snk.n, 4);
	cr_assert_eq(coll.malformed, 1);
	fp_collector_flush(&coll);
	cr_assert_eq(snk.n, 4);
}

Test(collector, second_exec_same_tid_releases_first)
{
	feed_exec(100, 4, 1);
	feed_exec(100, 4, 1);
	cr_assert_eq(snk.n, 1);
	cr_assert_eq(snk.ev[0].argv_dropped, 4);
	feed_argv(100, 0, 0, "new\0", 4);
	cr_assert_eq(snk.n, 2);
	CHECK_ARGV(&snk.ev[1], "new\0");
	cr_assert_eq(snk.ev[1].argv_dropped, 0);
	cr_assert_eq(coll.argv_incomplete, 1);
}

Test(collector, flush_releases_pending)
{
	feed_exec(1, 3, 1);
	feed_exec(2, 5, 2);
	feed_argv(2, 0, 0, "ab", 2);
	cr_assert_eq(snk.n, 0);
	fp_collector_flush(&coll);
	cr_assert_eq(snk.n, 2);
	cr_assert_eq(coll.delivered, 2);
	cr_assert_eq(coll.argv_incomplete, 2);
	/* flushing again delivers nothing twice */
	fp_collector_flush(&coll);
	cr_assert_eq(snk.n, 2);
}

Test(collector, interleaved_execs)
{
	feed_exec(1, 4, 1);
	feed_exec(2, 4, 1);
	feed_argv(2, 0, 0, "two\0", 4);
	feed_argv(1, 0, 0, "one\0", 4);
	cr_assert_eq(snk.n, 2);
	cr_assert_eq(snk.ev[0].tid, 2);
	CHECK_ARGV(&snk.ev[0], "two\0");
	cr_assert_eq(snk.ev[1].tid, 1);
	CHECK_ARGV(&snk.ev[1], "one\0");
	cr_assert_eq(coll.argv_incomplete, 0);
}

Test(collector, duplicate_exit_delivered_once)
{
	feed_exit(50, 111, 3 << 8);
	feed_exit(50, 111, 3 << 8);
	cr_assert_eq(snk.n, 1);
	cr_assert_eq(snk.ev[0].exit_code, 3);
	cr_assert_eq(coll.duplicate_exits, 1);
	/* a reused pid (other start time) is a new process */
	feed_exit(50, 222, 9);
	/* same start time, other pid */
	feed_exit(51, 111, 0);
	cr_assert_eq(snk.n, 3);
	cr_assert_eq(snk.ev[1].exit_signal, 9);
	cr_assert_eq(snk.ev[2].pid, 51);
	cr_assert_eq(coll.duplicate_exits, 1);
	feed_exit(50, 222, 9);
	cr_assert_eq(coll.duplicate_exits, 2);
	cr_assert_eq(coll.delivered, 3);
	cr_assert_eq(coll.records, 5);
}

Test(collector, malformed_counted)
{
	struct fp_exit x;
	unsigned char junk[8] = { 0 };

	/* shorter than a header */
	feed(junk, sizeof(junk));
	/* hdr.size beyond the buffer */
	memset(&x, 0, sizeof(x));
	fill_hdr(&x.hdr, FP_EV_EXIT, sizeof(x) + 1, 1, 1);
	feed(&x, sizeof(x));
	/* unknown type */
	fill_hdr(&x.hdr, 77, sizeof(x), 1, 1);
	feed(&x, sizeof(x));
	/* argv for no exec */
	feed_argv(999, 0, 0, "x\0", 2);
	cr_assert_eq(coll.malformed, 4);
	cr_assert_eq(coll.records, 4);
	cr_assert_eq(coll.delivered, 0);
	cr_assert_eq(snk.n, 0);
}

Test(collector, malformed_file_and_argv)
{
	size_t size = sizeof(struct fp_file) + 4;
	struct fp_file *f = calloc(1, size);
	struct fp_argv *a = calloc(1, sizeof(*a) + 4);

	fill_hdr(&f->hdr, FP_EV_FILE, size, 1, 1);
	f->npaths = 0;
	feed(f, size);
	f->npaths = 3;
	feed(f, size);
	f->npaths = 1;
	f->path[0].raw_len = 5; /* one past the end */
	feed(f, size);
	cr_assert_eq(coll.malformed, 3);

	/* an argv record whose len is more than it holds */
	feed_exec(1, 8, 1);
	fill_hdr(&a->hdr, FP_EV_ARGV, sizeof(*a) + 4, 1, 1);
	a->len = 8;
	feed(a, sizeof(*a) + 4);
	cr_assert_eq(coll.malformed, 4);
	cr_assert_eq(snk.n, 0);
	fp_collector_flush(&coll);
	cr_assert_eq(snk.n, 1);
	cr_assert_eq(snk.ev[0].argv_len, 0);
	free(f);
	free(a);
}

/*
 * An argv record whose hdr.size is smaller than struct fp_argv: its len
 * cannot be trusted (fp_decode_argv's "hdr.size - sizeof(*a)" wraps), so
 * it must count as malformed and add nothing to the exec's argv.
 */
Test(collector, argv_record_shorter_than_its_header_is_malformed)
{
	size_t size = sizeof(struct fp_argv) + 8;
	struct fp_argv *a = calloc(1, size);

	feed_exec(1, 8, 1);
	fill_hdr(&a->hdr, FP_EV_ARGV, sizeof(struct fp_hdr), 1, 1);
	a->len = 8;
	memcpy(a->data, "AAAAAAA\0", 8);
	feed(a, size);
	free(a);
	cr_expect_eq(coll.malformed, 1, "malformed %llu",
		     (unsigned long long)coll.malformed);
	fp_collector_flush(&coll);
	cr_assert_eq(snk.n, 1);
	cr_expect_eq(snk.ev[0].argv_len, 0, "argv_len %zu", snk.ev[0].argv_len);
	cr_expect_eq(snk.ev[0].argv_dropped, 8);
}

Test(collector, too_many_pending_execs_evicts_oldest)
{
	uint32_t n = FP_COLLECTOR_PENDING_EXECS, i;
	int count[FP_COLLECTOR_PENDING_EXECS + 1] = { 0 };

	for (i = 0; i < n; i++)
		feed_exec(1000 + i, 5, 1);
	cr_assert_eq(snk.n, 0);
	/* one more: the oldest (tid 1000) goes out with what it has */
	feed_exec(1000 + n, 5, 1);
	cr_assert_eq(snk.n, 1);
	cr_assert_eq(snk.ev[0].tid, 1000);
	cr_assert_eq(snk.ev[0].argv_dropped, 5);
	/* the others still get their argv */
	feed_argv(1001, 0, 0, "ok\0\0\0", 5);
	cr_assert_eq(snk.n, 2);
	cr_assert_eq(snk.ev[1].tid, 1001);
	cr_assert_eq(snk.ev[1].argv_dropped, 0);
	feed_argv(1000 + n, 0, 0, "new\0\0", 5);
	cr_assert_eq(snk.n, 3);
	cr_assert_eq(snk.ev[2].tid, 1000 + n);
	cr_assert_eq(snk.ev[2].argv_dropped, 0);
	fp_collector_flush(&coll);
	/* every exec out exactly once */
	cr_assert_eq(snk.n, n + 1);
	for (i = 0; i < snk.n; i++) {
		cr_assert_eq(snk.ev[i].type, FP_EV_EXEC);
		cr_assert(snk.ev[i].tid >= 1000 && snk.ev[i].tid <= 1000 + n);
		count[snk.ev[i].tid - 1000]++;
	}
	for (i = 0; i <= n; i++)
		cr_assert_eq(count[i], 1, "tid %u delivered %d times", 1000 + i,
			     count[i]);
	cr_assert_eq(coll.delivered, n + 1);
	cr_assert_eq(coll.argv_incomplete, n - 1);
}

Test(collector, eviction_is_by_age)
{
	uint32_t n = FP_COLLECTOR_PENDING_EXECS, i;

	for (i = 0; i < n; i++)
		feed_exec(1000 + i, 5, 1);
	/* free the oldest slot, then fill it with the newest exec */
	feed_argv(1000, 0, 0, "a\0b\0\0", 5);
	feed_exec(2000, 5, 1);
	cr_assert_eq(snk.n, 1);
	/* full again: next to go is 1001, not 2000 */
	feed_exec(2001, 5, 1);
	cr_assert_eq(snk.n, 2);
	cr_assert_eq(snk.ev[1].tid, 1001);
	feed_exec(2002, 5, 1);
	cr_assert_eq(snk.n, 3);
	cr_assert_eq(snk.ev[2].tid, 1002);
}

Test(collector, sink_error_kept_and_delivery_continues)
{
	snk.ret = -EIO;
	feed_exit(1, 1, 0);
	snk.ret = -ENOSPC;
	feed_exit(2, 1, 0);
	cr_assert_eq(snk.n, 2);
	cr_assert_eq(coll.delivered, 2);
	cr_assert_eq(coll.sink_error, -EIO);
}

/* random records never crash the collector, and nothing is counted twice */
Test(collector, garbage)
{
	unsigned int seed = 99;
	int iter;

	for (iter = 0; iter < 20000; iter++) {
		size_t size = rand_r(&seed) % 300, i;
		unsigned char *buf = malloc(size ? size : 1);

		for (i = 0; i < size; i++)
			buf[i] = rand_r(&seed);
		if (size >= sizeof(struct fp_hdr)) {
			struct fp_hdr *h = (struct fp_hdr *)buf;

			h->type = rand_r(&seed) % 8;
			h->size = size - rand_r(&seed) % 2;
			h->tid = rand_r(&seed) % 4;
		}
		if (size >= sizeof(struct fp_exec) &&
		    ((struct fp_hdr *)buf)->type == FP_EV_EXEC)
			((struct fp_exec *)buf)->argv_chunks =
				rand_r(&seed) % 3;
		fp_collector_feed(&coll, buf, size);
		free(buf);
		if (snk.n > 200)
			sink_free(&snk);
	}
	fp_collector_flush(&coll);
	cr_assert_eq(coll.records, 20000);
	cr_assert_leq(coll.malformed + coll.duplicate_exits, coll.records);
}

/*
 * Execs waiting for their argv may not hold more than
 * FP_COLLECTOR_PENDING_BYTES together, however many there are and however
 * their chunks interleave; the oldest go out cut, and the chunks that come
 * for them after that are counted as lost.
 */
Test(collector, pending_argv_bytes_are_bounded)
{
	const uint32_t n = 16, chunks = FP_ARGV_MAX_CHUNKS;
	const uint32_t total = chunks * FP_ARGV_CHUNK;
	static char chunk[FP_ARGV_CHUNK];
	int count[16] = { 0 };
	uint32_t i, k, whole = 0;

	memset(chunk, 'x', sizeof(chunk));
	cr_assert_gt((uint64_t)n * total, FP_COLLECTOR_PENDING_BYTES);
	for (i = 0; i < n; i++)
		feed_exec(3000 + i, total, chunks);
	for (k = 0; k < chunks; k++) {
		for (i = 0; i < n; i++) {
			feed_argv(3000 + i, k, k * FP_ARGV_CHUNK, chunk,
				  FP_ARGV_CHUNK);
			cr_assert_leq(coll.pending_bytes,
				      FP_COLLECTOR_PENDING_BYTES,
				      "%zu bytes pending", coll.pending_bytes);
		}
	}
	fp_collector_flush(&coll);
	cr_assert_eq(coll.pending_bytes, 0);
	cr_assert_eq(snk.n, n);
	for (i = 0; i < snk.n; i++) {
		count[snk.ev[i].tid - 3000]++;
		cr_assert_eq(snk.ev[i].argv_len + snk.ev[i].argv_dropped,
			     total);
		if (!snk.ev[i].argv_dropped)
			whole++;
	}
	for (i = 0; i < n; i++)
		cr_assert_eq(count[i], 1, "tid %u delivered %d times", 3000 + i,
			     count[i]);
	/* some made it whole; the cut ones' late chunks are not dropped
	 * silently */
	cr_assert_gt(whole, 0);
	cr_assert_lt(whole, n);
	cr_assert_eq(coll.argv_incomplete, n - whole);
	cr_assert_gt(coll.malformed, 0);
}
