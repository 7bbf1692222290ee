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
/* the newest a reader knows: 4 segments, 5 exec credentials, signal
 * events, header homes, a count on collapsed opens, network events */
#define FP_LOG_VERSION 5
/* what a log without segments is written as: its execs carry credentials,
 * which a reader of version 4 would silently drop */
#define FP_LOG_VERSION_PLAIN 5
#define FP_LOG_FILE_HDR 16 /* magic, u16 version, u16 flags, u32 reserved */
/*
 * A segment of a log cut into segments (--record-max): version 3, flag
 * FP_LOG_SEGMENTED, the segment number in the reserved u32, then the run
 * id, so the segments of two runs are never read as one.
 */
#define FP_LOG_SEGMENTED 1
#define FP_LOG_RUN_ID 16
#define FP_LOG_SEG_HDR (FP_LOG_FILE_HDR + FP_LOG_RUN_ID)
#define FP_LOG_SEG_MIN (1u << 20) /* the smallest --record-max */
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
	/* a process outside the run holding a changed file open for
	 * writing at the after snapshot (snapshot_holders.h) */
	FP_REC_HOLDER = 16,
};

enum fp_phase { FP_PHASE_BEFORE = 0, FP_PHASE_AFTER = 1 };

/* ---- writing ---- */

/*
 * Open segment n (1, 2, ...) of a log: a new file, the way segment 0 was
 * made. Returns an fd, or -errno with msg filled (one line).
 */
typedef int (*fp_evlog_segment_fn)(void *ctx, unsigned int n, char *msg,
				   size_t msglen);

struct fp_evlog_writer {
	int fd; /* the segment being written */
	int fd0; /* segment 0, open until close (its owner hands it over) */
	unsigned char *raw; /* records not yet framed */
	size_t raw_len, raw_cap;
	unsigned char *zbuf;
	size_t zcap;
	uint64_t offset; /* bytes written to the current segment */
	int64_t last_flush_ms;
	int err; /* first write error, sticky */
	/* segments: none while max is 0 */
	uint64_t max;
	unsigned int seg, seg_frames;
	unsigned char run_id[FP_LOG_RUN_ID];
	fp_evlog_segment_fn next;
	void *next_ctx;
	char msg[512]; /* why a segment could not be made */
};

/* Start a log on fd, a new file footprint created (userfile.h); takes fd. */
int fp_evlog_open(struct fp_evlog_writer *w, int fd, const char *path,
		  char *err, size_t errlen);
/*
 * The same, cut into segments of at most max bytes (>= FP_LOG_SEG_MIN),
 * each opened by next when the frame to write would not fit; a segment is
 * larger only when one frame is. The writer closes each segment it is
 * done with, and fd at fp_evlog_close.
 */
int fp_evlog_open_segments(struct fp_evlog_writer *w, int fd, const char *path,
			   uint64_t max, fp_evlog_segment_fn next, void *ctx,
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
	char err[768]; /* set when a read fails: what and at which offset */
	/* segments */
	bool segmented;
	bool last; /* set by the caller: a segment's clean end is the end */
	unsigned int seg; /* being read */
	unsigned char run_id[FP_LOG_RUN_ID];
	int dirfd; /* segment n is name.n in it; -1: not to be looked for */
	char *name, *shown; /* segment 0's, and as the user named it */
	char *seg_shown; /* the segment being read, for messages */
};

int fp_evlog_reader_open(struct fp_evlog_reader *r, const char *path);
/*
 * Segment 0 is fd (taken), named shown in messages; the segments after
 * it are name.1, name.2, ... in dirfd (AT_FDCWD: name is a path), opened
 * without following a link. dirfd -1: none is looked for.
 */
int fp_evlog_reader_open_fd(struct fp_evlog_reader *r, int fd, int dirfd,
			    const char *name, const char *shown);
/*
 * Next record: 1 with type, body and len set; 0 at a clean end; -ENODATA
 * when the log is cut short, or a segment after a clean one is missing or
 * not of this log (a gap); -EBADMSG for damage (r->err says where).
 */
int fp_evlog_next(struct fp_evlog_reader *r, unsigned int *type,
		  const unsigned char **body, size_t *len);
void fp_evlog_reader_close(struct fp_evlog_reader *r);

#endif
