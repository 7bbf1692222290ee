// SPDX-License-Identifier: GPL-2.0
/*
 * Replay of recorded logs: golden logs give their live receipts back byte
 * for byte; cut and damaged logs give the documented outcome.
 */
#include <criterion/criterion.h>
#include <errno.h>
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

static char *data_path(const char *name)
{
	static char buf[4096];
	char src[4096];

	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(buf, sizeof(buf), "%s/../data/%s", dirname(src), name);
	return buf;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert_not_null(f, "open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	cr_assert_eq(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

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
