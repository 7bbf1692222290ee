// SPDX-License-Identifier: GPL-2.0
/*
 * Replay of recorded logs: golden logs give their live receipts back byte
 * for byte; cut and damaged logs give the documented outcome.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "evlog.h"
#include "logrun.h"
#include "run.h"
#include "unit_util.h"

/* the receipt a replay of log gives, with the recorded policy */
static char *replay(const char *log, int *load_ret, size_t *len)
{
	struct fp_policy pol = { 0 };
	struct fp_findings f = { 0 };
	struct fp_verdict v = { 0 };
	struct fp_outcome o;
	struct fp_run run;
	char err[600], *out = NULL;
	FILE *mem;

	cr_assert_eq(fp_run_init(&run), 0);
	*load_ret = fp_log_load(log, &run, NULL, NULL, err, sizeof(err));
	if (*load_ret == 0 || *load_ret == -ENODATA) {
		cr_assert_eq(fp_run_policy(&run, &pol, err, sizeof(err)), 0,
			     "%s", err);
		cr_assert_eq(fp_run_judge(&run, &pol, &f, &v, &o), 0);
		mem = open_memstream(&out, len);
		fp_run_receipt(mem, &run, &f, &v, &o);
		fclose(mem);
	}
	fp_verdict_free(&v);
	fp_findings_free(&f);
	fp_policy_free(&pol);
	fp_run_free(&run);
	return out;
}

static void golden(const char *name)
{
	char log[64], rec[64], *want, *got;
	size_t wlen, glen;
	int ret;

	snprintf(log, sizeof(log), "%s.fplog", name);
	snprintf(rec, sizeof(rec), "%s.receipt.json", name);
	want = slurp(data_path(rec), &wlen);
	got = replay(data_path(log), &ret, &glen);
	cr_assert_eq(ret, 0);
	cr_assert_eq(glen, wlen, "%s: %zu bytes, want %zu", name, glen, wlen);
	cr_assert(!memcmp(got, want, wlen), "%s: receipt differs", name);
	free(want);
	free(got);
}

Test(replay, golden_changes)
{
	golden("changes");
}

Test(replay, golden_leftover)
{
	golden("leftover");
}

Test(replay, golden_clean)
{
	golden("clean");
}

static int load_bytes(const char *buf, size_t len, char *why, size_t whylen)
{
	char path[64], err[600];
	struct fp_run run;
	int fd = memfd_create("log", 0), ret;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	cr_assert_eq(fp_run_init(&run), 0);
	err[0] = '\0';
	ret = fp_log_load(path, &run, NULL, NULL, err, sizeof(err));
	if (why)
		snprintf(why, whylen, "%s",
			 ret == -ENODATA ? run.incomplete_why : err);
	fp_run_free(&run);
	close(fd);
	return ret;
}

/* end of the first frame: the one that holds the header */
static size_t first_frame_end(const char *buf)
{
	uint32_t zlen;

	memcpy(&zlen, buf + FP_LOG_FILE_HDR + 8, 4);
	return FP_LOG_FILE_HDR + FP_FRAME_HDR + zlen;
}

Test(replay, cut_at_every_offset)
{
	size_t len, off, first;
	char *buf = slurp(data_path("clean.fplog"), &len);
	char why[600];
	int ret, cut = 0;

	first = first_frame_end(buf);
	for (off = 0; off <= len; off++) {
		ret = load_bytes(buf, off, why, sizeof(why));
		if (off == len)
			cr_assert_eq(ret, 0);
		else if (off < first)
			cr_assert_eq(ret, -EBADMSG, "cut at %zu: %d", off, ret);
		else {
			cr_assert_eq(ret, -ENODATA, "cut at %zu: %d", off, ret);
			cr_assert(strstr(why, "the log stops at offset"),
				  "cut at %zu: %s", off, why);
			cut++;
		}
	}
	cr_assert_gt(cut, 100);
	free(buf);
}

Test(replay, cut_log_judges_incomplete)
{
	size_t len, glen;
	char *buf = slurp(data_path("changes.fplog"), &len);
	char path[] = "/tmp/fp-replay-cut-XXXXXX", *receipt;
	int fd = mkstemp(path), ret;

	cr_assert_eq(write(fd, buf, len * 2 / 3), (ssize_t)(len * 2 / 3));
	close(fd);
	receipt = replay(path, &ret, &glen);
	unlink(path);
	cr_assert_eq(ret, -ENODATA);
	cr_assert(strstr(receipt, "\"ok\":false"));
	cr_assert(strstr(receipt, "\"complete\":false"));
	cr_assert(strstr(receipt, "trace incomplete: the log stops at offset"));
	free(receipt);
	free(buf);
}

Test(replay, every_bit_flip_is_damage)
{
	size_t len, off;
	char *buf = slurp(data_path("clean.fplog"), &len);
	int ret;

	/* past the file header, every byte belongs to a checked frame */
	for (off = FP_LOG_FILE_HDR; off < len; off++) {
		buf[off] ^= 1 << (off % 8);
		ret = load_bytes(buf, len, NULL, 0);
		cr_assert_eq(ret, -EBADMSG, "flip at %zu: %d", off, ret);
		buf[off] ^= 1 << (off % 8);
	}
	free(buf);
}

Test(replay, not_a_log)
{
	char why[600];

	cr_assert_eq(load_bytes("", 0, why, sizeof(why)), -EBADMSG);
	cr_assert(strstr(why, "not a footprint event log"), "%s", why);
	cr_assert_eq(
		load_bytes("#!/bin/sh\necho hello\n", 21, why, sizeof(why)),
		-EBADMSG);
	cr_assert(strstr(why, "not a footprint event log"), "%s", why);
}

Test(replay, newer_version_refused)
{
	size_t len;
	char *buf = slurp(data_path("clean.fplog"), &len);
	char why[600];

	buf[8] = FP_LOG_VERSION + 1;
	cr_assert_eq(load_bytes(buf, len, why, sizeof(why)), -EPROTO);
	cr_assert(strstr(why, "upgrade footprint"), "%s", why);
	free(buf);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * Append to buf (at *len) a frame, with good CRCs, holding one record of
 * the given type and an empty body; returns the frame's offset.
 */
static size_t add_frame(char *buf, size_t *len, unsigned char type)
{
	unsigned char raw[2] = { type, 0 }, *h = (unsigned char *)buf + *len;
	uLongf zlen = compressBound(sizeof(raw));
	size_t at = *len;

	cr_assert_eq(compress2(h + FP_FRAME_HDR, &zlen, raw, sizeof(raw), 1),
		     Z_OK);
	put32(h, FP_FRAME_SYNC);
	put32(h + 4, FP_FRAME_RECORDS);
	put32(h + 8, zlen);
	put32(h + 12, sizeof(raw));
	put32(h + 16, crc32(crc32(0, h, 16), h + FP_FRAME_HDR, zlen));
	put32(h + 20, crc32(0, h, 20));
	*len += FP_FRAME_HDR + zlen;
	return at;
}

static void assert_damaged_at(const char *buf, size_t len, size_t at)
{
	char why[600], want[80];
	size_t wl, n;

	cr_assert_eq(load_bytes(buf, len, why, sizeof(why)), -EBADMSG);
	wl = snprintf(want, sizeof(want),
		      ": a damaged record in the frame at offset %zu", at);
	n = strlen(why);
	cr_assert(n >= wl && !strcmp(why + n - wl, want), "'%s', want '...%s'",
		  why, want);
}

/* The first frame follows the file header: its offset is 16, not 0. */
Test(replay, damaged_first_frame_names_its_offset)
{
	char buf[256] = FP_LOG_MAGIC;
	size_t len = FP_LOG_FILE_HDR, at;

	buf[8] = FP_LOG_VERSION;
	/* a snapshot record before the header record is damage */
	at = add_frame(buf, &len, FP_REC_FS);
	cr_assert_eq(at, 16);
	assert_damaged_at(buf, len, at);
}

/* Not the offset of the frame read before it. */
Test(replay, damaged_later_frame_names_its_offset)
{
	size_t len, at;
	char *log = slurp(data_path("clean.fplog"), &len), *buf;

	len = first_frame_end(log);
	buf = malloc(len + 256);
	memcpy(buf, log, len);
	/* a second header record is damage */
	at = add_frame(buf, &len, FP_REC_HEADER);
	cr_assert_gt(at, FP_LOG_FILE_HDR);
	assert_damaged_at(buf, len, at);
	free(buf);
	free(log);
}

/* ---- logs in segments (--record-max) ---- */

#define SEG_MAX (1u << 20)
#define FILLER 99 /* a record type no reader knows: skipped */

struct seglog {
	char dir[64];
	int dirfd;
	char path[128]; /* segment 0 */
	char seg[8][160]; /* segment n's path */
	unsigned int nsegs;
};

static void seg_paths(struct seglog *l)
{
	unsigned int n;

	for (n = 0; n < 8; n++)
		snprintf(l->seg[n], sizeof(l->seg[n]), n ? "%s.%u" : "%s",
			 l->path, n);
	for (l->nsegs = 0; l->nsegs < 8 && !access(l->seg[l->nsegs], F_OK);
	     l->nsegs++)
		;
}

static void fill_random(unsigned char *p, size_t len, unsigned int *seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = rand_r(seed) >> 7;
}

static size_t count_records(const char *golden)
{
	struct fp_evlog_reader r;
	const unsigned char *body;
	unsigned int type;
	size_t len, n = 0;

	cr_assert_eq(fp_evlog_reader_open(&r, data_path(golden)), 0);
	while (fp_evlog_next(&r, &type, &body, &len) == 1)
		n++;
	fp_evlog_reader_close(&r);
	return n;
}

/*
 * Segment 0 at l->path, written through the session's sink with segments
 * of SEG_MAX: every record of the golden log, in order, each followed by
 * filler that does not compress (`filler` bytes in all), so the records
 * of a real run spread over several segments; and `big` bytes of it in
 * one frame of its own after the header's.
 */
static void write_segmented(struct seglog *l, const char *golden, size_t filler,
			    size_t big)
{
	struct fp_evlog_reader r;
	struct fp_log_sink sink = { 0 };
	struct fp_log_where at = { 0 };
	const unsigned char *body;
	size_t per = filler / count_records(golden) + 1;
	unsigned char *junk = malloc(big > per ? big : per);
	unsigned int type, seed = 42;
	char err[600];
	size_t len;
	int fd, ret;

	snprintf(l->dir, sizeof(l->dir), "/tmp/fp-seg-XXXXXX");
	cr_assert_not_null(mkdtemp(l->dir));
	l->dirfd = open(l->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(l->dirfd, 0);
	snprintf(l->path, sizeof(l->path), "%s/job.fplog", l->dir);
	fd = openat(l->dirfd, "job.fplog", O_WRONLY | O_CREAT | O_EXCL, 0600);
	cr_assert_geq(fd, 0);
	at = (struct fp_log_where){ .dirfd = l->dirfd,
				    .name = "job.fplog",
				    .path = l->path };
	cr_assert_eq(fp_log_open(&sink, fd, &at, SEG_MAX, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(fp_evlog_reader_open(&r, data_path(golden)), 0);
	while ((ret = fp_evlog_next(&r, &type, &body, &len)) == 1) {
		cr_assert_eq(fp_evlog_put(&sink.w, type, body, len), 0);
		if (type == FP_REC_HEADER && big) {
			cr_assert_eq(fp_evlog_flush(&sink.w), 0);
			fill_random(junk, big, &seed);
			cr_assert_eq(fp_evlog_put(&sink.w, FILLER, junk, big),
				     0);
			cr_assert_eq(fp_evlog_flush(&sink.w), 0);
		}
		fill_random(junk, per, &seed);
		cr_assert_eq(fp_evlog_put(&sink.w, FILLER, junk, per), 0);
	}
	cr_assert_eq(ret, 0, "%s", r.err);
	fp_evlog_reader_close(&r);
	cr_assert_eq(fp_log_close(&sink), 0);
	free(junk);
	seg_paths(l);
}

static void seglog_free(struct seglog *l)
{
	unsigned int n;

	for (n = 0; n < 8; n++)
		unlink(l->seg[n]);
	close(l->dirfd);
	rmdir(l->dir);
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* the frames of a segment, which must end exactly at its end */
static unsigned int count_frames(const char *path, size_t *largest)
{
	size_t len, off = FP_LOG_SEG_HDR, n;
	unsigned char *buf = (unsigned char *)slurp(path, &len);
	unsigned int frames = 0;

	*largest = 0;
	while (off < len) {
		cr_assert_leq(off + FP_FRAME_HDR, len, "%s: cut header", path);
		cr_assert_eq(get32(buf + off), FP_FRAME_SYNC, "%s at %zu", path,
			     off);
		n = FP_FRAME_HDR + get32(buf + off + 8);
		*largest = n > *largest ? n : *largest;
		off += n;
		frames++;
	}
	cr_assert_eq(off, len, "%s: the last frame runs past the end", path);
	free(buf);
	return frames;
}

static char *load_why(const char *path, int *ret)
{
	struct fp_run run;
	char err[1600], *why;

	cr_assert_eq(fp_run_init(&run), 0);
	*ret = fp_log_load(path, &run, NULL, NULL, err, sizeof(err));
	why = strdup(*ret == -ENODATA ? run.incomplete_why : err);
	fp_run_free(&run);
	return why;
}

Test(segments, rotation_only_at_frame_boundaries)
{
	struct seglog l;
	unsigned char hdr[FP_LOG_SEG_HDR], run_id[FP_LOG_RUN_ID];
	size_t largest, len;
	unsigned int n;
	FILE *f;

	write_segmented(&l, "changes.fplog", 3200000, 0);
	cr_assert_geq(l.nsegs, 3, "only %u segments", l.nsegs);
	for (n = 0; n < l.nsegs; n++) {
		f = fopen(l.seg[n], "rb");
		cr_assert_eq(fread(hdr, 1, sizeof(hdr), f), sizeof(hdr));
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		fclose(f);
		cr_assert(!memcmp(hdr, FP_LOG_MAGIC, 8));
		cr_assert_eq(hdr[8], FP_LOG_VERSION, "version");
		cr_assert_eq(FP_LOG_VERSION, 6);
		cr_assert_eq(hdr[10], FP_LOG_SEGMENTED, "flags");
		cr_assert_eq(get32(hdr + 12), n, "segment number");
		if (!n)
			memcpy(run_id, hdr + 16, sizeof(run_id));
		cr_assert(!memcmp(run_id, hdr + 16, sizeof(run_id)),
			  "segment %u has another run id", n);
		cr_assert_leq(len, SEG_MAX, "segment %u: %zu bytes", n, len);
		cr_assert_geq(count_frames(l.seg[n], &largest), 1);
		/* not rotated early: the next frame would not have fit */
		if (n + 1 < l.nsegs) {
			f = fopen(l.seg[n + 1], "rb");
			fseek(f, FP_LOG_SEG_HDR, SEEK_SET);
			cr_assert_eq(fread(hdr, 1, 12, f), 12);
			fclose(f);
			cr_assert_gt(len + FP_FRAME_HDR + get32(hdr + 8),
				     SEG_MAX, "segment %u ends at %zu", n, len);
		}
	}
	seglog_free(&l);
}

/* one frame larger than a segment gets one of its own */
Test(segments, frame_larger_than_a_segment)
{
	struct seglog l;
	size_t largest, len;
	char *receipt, *want;
	size_t wlen, glen;
	int ret;

	write_segmented(&l, "clean.fplog", 1000, 3u << 20);
	cr_assert_eq(l.nsegs, 3, "%u segments", l.nsegs);
	/* the header's frame, then the big one alone, then the rest */
	cr_assert_eq(count_frames(l.seg[0], &largest), 1);
	cr_assert_eq(count_frames(l.seg[1], &largest), 1);
	cr_assert_gt(largest, SEG_MAX);
	free(slurp(l.seg[1], &len));
	cr_assert_gt(len, SEG_MAX);
	receipt = replay(l.path, &ret, &glen);
	want = slurp(data_path("clean.receipt.json"), &wlen);
	cr_assert_eq(ret, 0);
	cr_assert(glen == wlen && !memcmp(receipt, want, wlen));
	free(receipt);
	free(want);
	seglog_free(&l);
}

Test(segments, read_across_segments_byte_for_byte)
{
	const char *names[] = { "changes", "leftover", "clean" };
	char log[64], rec[64], *want, *got;
	struct seglog l;
	size_t wlen, glen, i;
	int ret;

	for (i = 0; i < 3; i++) {
		snprintf(log, sizeof(log), "%s.fplog", names[i]);
		snprintf(rec, sizeof(rec), "%s.receipt.json", names[i]);
		write_segmented(&l, log, 3200000, 0);
		cr_assert_geq(l.nsegs, 2, "%s: %u segments", log, l.nsegs);
		want = slurp(data_path(rec), &wlen);
		got = replay(l.path, &ret, &glen);
		cr_assert_eq(ret, 0, "%s", log);
		cr_assert(glen == wlen && !memcmp(got, want, wlen),
			  "%s: the receipt differs", log);
		free(want);
		free(got);
		seglog_free(&l);
	}
}

Test(segments, missing_middle_segment_is_a_gap)
{
	struct seglog l;
	char *why, *receipt, want[300];
	size_t glen;
	int ret;

	write_segmented(&l, "changes.fplog", 3200000, 0);
	cr_assert_geq(l.nsegs, 3);
	cr_assert_eq(unlink(l.seg[1]), 0);
	why = load_why(l.path, &ret);
	cr_assert_eq(ret, -ENODATA, "%d: %s", ret, why);
	snprintf(want, sizeof(want), "of %s after ", l.path);
	cr_assert(strstr(why, want), "%s", why);
	snprintf(want, sizeof(want), "its next segment, %s, is missing",
		 l.seg[1]);
	cr_assert(strstr(why, want), "%s", why);
	/* judged as far as it goes, and failed */
	receipt = replay(l.path, &ret, &glen);
	cr_assert(strstr(receipt, "\"ok\":false"));
	cr_assert(strstr(receipt, "\"complete\":false"));
	cr_assert(strstr(receipt, want), "%s", receipt);
	free(receipt);
	free(why);
	seglog_free(&l);
}

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *buf = slurp(from, &len);
	FILE *f = fopen(to, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
	free(buf);
}

Test(segments, segment_of_another_run_refused)
{
	struct seglog a, b;
	char *why;
	int ret;

	write_segmented(&a, "changes.fplog", 3200000, 0);
	write_segmented(&b, "changes.fplog", 3200000, 0);
	/* the same records, the same number: only the run id differs */
	copy_file(b.seg[1], a.seg[1]);
	why = load_why(a.path, &ret);
	cr_assert_eq(ret, -ENODATA, "%d: %s", ret, why);
	cr_assert(strstr(why, "belongs to another run"), "%s", why);
	free(why);
	/* a segment of this run, in the wrong place */
	copy_file(a.seg[2], a.seg[1]);
	why = load_why(a.path, &ret);
	cr_assert_eq(ret, -ENODATA, "%d: %s", ret, why);
	cr_assert(strstr(why, "is segment 2 of this log, not segment 1"), "%s",
		  why);
	free(why);
	/* a log is read from its segment 0 */
	why = load_why(b.seg[1], &ret);
	cr_assert_eq(ret, -EBADMSG, "%d: %s", ret, why);
	cr_assert(strstr(why, "is segment 1 of a log in segments"), "%s", why);
	free(why);
	seglog_free(&a);
	seglog_free(&b);
}

Test(segments, cut_last_segment_is_a_cut_log)
{
	struct seglog l;
	size_t len;
	char *why;
	int ret;

	write_segmented(&l, "changes.fplog", 3200000, 0);
	free(slurp(l.seg[l.nsegs - 1], &len));
	cr_assert_eq(truncate(l.seg[l.nsegs - 1], len - 100), 0);
	why = load_why(l.path, &ret);
	cr_assert_eq(ret, -ENODATA, "%d: %s", ret, why);
	cr_assert(strstr(why, "the log is cut inside the frame"), "%s", why);
	cr_assert_null(strstr(why, "gap"), "%s", why);
	free(why);
	/* cut short in the middle: a gap */
	free(slurp(l.seg[0], &len));
	cr_assert_eq(truncate(l.seg[0], len - 100), 0);
	why = load_why(l.path, &ret);
	cr_assert_eq(ret, -ENODATA, "%d: %s", ret, why);
	cr_assert(strstr(why, "and segment 1 follows: a gap in the log"), "%s",
		  why);
	free(why);
	seglog_free(&l);
}

/* A segment the writer died before filling ends the log there. */
Test(segments, empty_last_segment)
{
	struct seglog l;
	char *why;
	int ret;

	write_segmented(&l, "changes.fplog", 3200000, 0);
	cr_assert_eq(truncate(l.seg[l.nsegs - 1], FP_LOG_SEG_HDR), 0);
	why = load_why(l.path, &ret);
	cr_assert_eq(ret, -ENODATA, "%d: %s", ret, why);
	cr_assert(strstr(why, "is missing"), "%s", why);
	free(why);
	seglog_free(&l);
}

/* version 5: its execs carry credentials a version 4 reader would drop */
Test(segments, plain_log_is_version_5)
{
	struct fp_evlog_writer w;
	char err[300], buf[FP_LOG_FILE_HDR];
	int fd = memfd_create("log", 0);

	cr_assert_eq(fp_evlog_open(&w, fd, "mem", err, sizeof(err)), 0);
	cr_assert_eq(pread(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	cr_assert_eq(buf[8], FP_LOG_VERSION_PLAIN);
	cr_assert_eq(FP_LOG_VERSION_PLAIN, 6);
	cr_assert_eq(buf[10] | buf[11] | buf[12] | buf[13] | buf[14] | buf[15],
		     0);
	fp_evlog_close(&w);
}

Test(segments, earlier_segment_refused_unless_replaced)
{
	struct seglog l;
	struct fp_log_sink sink = { 0 };
	struct fp_log_where at;
	char err[1000];
	int fd;

	write_segmented(&l, "clean.fplog", 3200000, 0);
	cr_assert_eq(unlink(l.path), 0);
	fd = openat(l.dirfd, "job.fplog", O_WRONLY | O_CREAT | O_EXCL, 0600);
	at = (struct fp_log_where){ .dirfd = l.dirfd,
				    .name = "job.fplog",
				    .path = l.path };
	cr_assert_eq(fp_log_open(&sink, fd, &at, SEG_MAX, err, sizeof(err)),
		     -EEXIST);
	cr_assert(strstr(err, "footprint: ") == err, "%s", err);
	cr_assert(strstr(err, "job.fplog.1 exists"), "%s", err);
	cr_assert(strstr(err, "--force"), "%s", err);
	fp_log_close(&sink);
	fd = openat(l.dirfd, "job.fplog", O_WRONLY | O_TRUNC);
	at.replace = true;
	cr_assert_eq(fp_log_open(&sink, fd, &at, SEG_MAX, err, sizeof(err)), 0,
		     "%s", err);
	fp_log_close(&sink);
	/* too small a segment is refused */
	fd = openat(l.dirfd, "job.fplog", O_WRONLY | O_TRUNC);
	cr_assert_eq(fp_log_open(&sink, fd, &at, SEG_MAX - 1, err, sizeof(err)),
		     -EINVAL);
	fp_log_close(&sink);
	seglog_free(&l);
}
