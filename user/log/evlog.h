/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorded event log (docs/event-log.md): a file header, then frames.
 * A frame is a fixed header (sync word, type, lengths, CRC-32) and a zlib
 * payload holding typed, length-prefixed records. Each frame is
 * compressed on its own, so a reader can check and decode it alone, and a
 * log cut short is readable up to its last whole frame.
 */
#ifndef FP_EVLOG_H
#define FP_EVLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FP_LOG_MAGIC "FPRINTLG" /* 8 bytes */
#define FP_LOG_VERSION 3
#define FP_LOG_FILE_HDR 16 /* magic, u16 version, u16 flags, u32 reserved */
#define FP_FRAME_SYNC 0x4d524650u /* bytes "PFRM" */
#define FP_FRAME_HDR 24
#define FP_FRAME_RECORDS 1
#define FP_FRAME_MAX (16u << 20) /* raw or compressed, per frame */

/* record types inside a frame */
enum fp_rec {
	FP_REC_HEADER = 1,
	FP_REC_FS = 2,
	FP_REC_PROC = 3,
	FP_REC_SOCK = 4,
	FP_REC_SNAP_DONE = 5,
	FP_REC_EVENT = 6,
	FP_REC_TRAILER = 7,
};

enum fp_phase { FP_PHASE_BEFORE = 0, FP_PHASE_AFTER = 1 };

/* ---- writing ---- */

struct fp_evlog_writer {
	int fd;
	unsigned char *raw; /* records not yet framed */
	size_t raw_len, raw_cap;
	unsigned char *zbuf;
	size_t zcap;
	uint64_t offset; /* bytes written to the file */
	int64_t last_flush_ms;
	int err; /* first write error, sticky */
};

/* Start a log on fd, a new file footprint created (userfile.h); takes fd. */
int fp_evlog_open(struct fp_evlog_writer *w, int fd, const char *path,
		  char *err, size_t errlen);
/* Append one record; frames are written when 64 KiB have gathered. */
int fp_evlog_put(struct fp_evlog_writer *w, unsigned int type, const void *body,
		 size_t len);
/* Write what has gathered as a frame now. */
int fp_evlog_flush(struct fp_evlog_writer *w);
/* Flush if the last flush is a second old (called from the poll loop). */
int fp_evlog_tick(struct fp_evlog_writer *w);
int fp_evlog_close(struct fp_evlog_writer *w);

/* ---- reading ---- */

struct fp_evlog_reader {
	int fd;
	uint64_t size;
	uint64_t offset; /* of the next frame */
	uint64_t frame_offset; /* of the frame being read */
	unsigned char *frame; /* decompressed payload */
	size_t frame_len, pos;
	unsigned int version;
	bool at_end; /* the file ended cleanly at a frame boundary */
	char err[256]; /* set when a read fails: what and at which offset */
};

int fp_evlog_reader_open(struct fp_evlog_reader *r, const char *path);
/*
 * Next record: 1 with type, body and len set; 0 at a clean end; -ENODATA
 * when the log is cut short; -EBADMSG for damage (r->err says where).
 */
int fp_evlog_next(struct fp_evlog_reader *r, unsigned int *type,
		  const unsigned char **body, size_t *len);
void fp_evlog_reader_close(struct fp_evlog_reader *r);

#endif
