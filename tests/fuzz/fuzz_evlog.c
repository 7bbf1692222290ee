// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the event-log reader and everything replay does
 * with what it reads: load, rebuild the policy, reconcile, judge, write a
 * receipt. Build and run it with scripts/fuzz.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "evlog.h"
#include "logrun.h"
#include "run.h"

static void le32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * The CRCs stop a fuzzer at the frame. With an odd first byte the rest is
 * taken as the inside of one valid frame, so the record decoders get
 * fuzzed too.
 */
static unsigned char *wrap(const uint8_t *data, size_t size, size_t *outlen)
{
	uLongf zlen = compressBound(size);
	unsigned char *out = malloc(FP_LOG_FILE_HDR + FP_FRAME_HDR + zlen);
	unsigned char *h;

	if (!out)
		return NULL;
	memset(out, 0, FP_LOG_FILE_HDR);
	memcpy(out, FP_LOG_MAGIC, 8);
	out[8] = FP_LOG_VERSION;
	h = out + FP_LOG_FILE_HDR;
	if (compress2(h + FP_FRAME_HDR, &zlen, data, size, 1) != Z_OK) {
		free(out);
		return NULL;
	}
	le32(h, FP_FRAME_SYNC);
	le32(h + 4, FP_FRAME_RECORDS);
	le32(h + 8, zlen);
	le32(h + 12, size);
	le32(h + 16, crc32(crc32(0, h, 16), h + FP_FRAME_HDR, zlen));
	le32(h + 20, crc32(0, h, 20));
	*outlen = FP_LOG_FILE_HDR + FP_FRAME_HDR + zlen;
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	struct fp_policy pol = { 0 };
	struct fp_findings f = { 0 };
	struct fp_verdict v = { 0 };
	struct fp_outcome o;
	struct fp_run run;
	char err[600];
	FILE *out;
	int ret;

	if (fd < 0) {
		fd = memfd_create("fplog", 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (size && (data[0] & 1)) {
		size_t len;
		unsigned char *log = wrap(data + 1, size - 1, &len);

		if (!log)
			return 0;
		ret = ftruncate(fd, 0) ||
		      pwrite(fd, log, len, 0) != (ssize_t)len;
		free(log);
		if (ret)
			return 0;
	} else if (ftruncate(fd, 0) ||
		   pwrite(fd, data, size, 0) != (ssize_t)size) {
		return 0;
	}
	if (fp_run_init(&run))
		return 0;
	ret = fp_log_load(path, &run, NULL, NULL, err, sizeof(err));
	if ((ret == 0 || ret == -ENODATA) &&
	    !fp_run_policy(&run, &pol, err, sizeof(err)) &&
	    !fp_run_judge(&run, &pol, &f, &v, &o)) {
		out = fopen("/dev/null", "w");
		if (out) {
			fp_run_receipt(out, &run, &f, &v, &o);
			fclose(out);
		}
	}
	fp_verdict_free(&v);
	fp_findings_free(&f);
	fp_policy_free(&pol);
	fp_run_free(&run);
	return 0;
}
