/* SPDX-License-Identifier: GPL-2.0 */
/* A run, written to and read back from the event log (docs/event-log.md). */
#ifndef FP_LOGRUN_H
#define FP_LOGRUN_H

#include <sys/types.h>

#include "creds.h"
#include "event.h"
#include "evlog.h"
#include "run.h"

/* Where a log's segments go (--record-max): beside segment 0. */
struct fp_log_where {
	int dirfd; /* segment 0's directory; the caller keeps it open */
	const char *name; /* segment 0's name in it; segment n is name.n */
	const char *path; /* segment 0 as the user named it, for messages */
	const struct fp_creds *creds; /* who creates them; NULL: root */
	bool replace; /* replace a segment an earlier log left (--force) */
};

struct fp_log_sink {
	struct fp_evlog_writer w;
	struct fp_enc *enc;
	uint64_t prev_ts;
	struct fp_log_where at; /* name and path are copies */
	struct fp_log_made {
		dev_t dev;
		ino_t ino;
	} * made; /* segments 1, 2, ...: what the hand-over checks */
	size_t nmade;
};

/*
 * Start the log on fd, a file made like an output (segment 0, at at).
 * max: segments of at most max bytes (>= FP_LOG_SEG_MIN), each made as
 * segment 0 was, root's until fp_log_hand_over; 0: one file. 0, or
 * -errno with err filled (a segment an earlier log left is refused
 * unless at->replace).
 */
int fp_log_open(struct fp_log_sink *s, int fd, const struct fp_log_where *at,
		uint64_t max, char *err, size_t errlen);
/*
 * Give segments 1, 2, ... to uid:gid, each only if its name still names
 * the file footprint made (segment 0 is the caller's output).
 */
void fp_log_hand_over(struct fp_log_sink *s, uid_t uid, gid_t gid,
		      const char *who);
/* Flush, close every segment; the first write error, or 0. */
int fp_log_close(struct fp_log_sink *s);

int fp_log_header(struct fp_log_sink *s, const struct fp_run *run);
int fp_log_snapshot(struct fp_log_sink *s, const struct fp_run *run,
		    unsigned int phase, bool fs, bool rest);
int fp_log_event(struct fp_log_sink *s, const struct fp_event *ev);
int fp_log_trailer(struct fp_log_sink *s, const struct fp_run *run);
/* the after snapshot's outside writers (run->holders), if any */
int fp_log_holders(struct fp_log_sink *s, const struct fp_run *run);

/* called for each event as it is read; ev is freed after the call */
typedef int (*fp_log_event_fn)(void *ctx, const struct fp_event *ev);

/*
 * Read a log into run (fp_run_init'ed), with its segments path.1,
 * path.2, ... when it has some. 0: complete. -ENODATA: cut short, or a
 * segment missing or not of this log (a gap): run->incomplete_why says
 * where; what came before is in run. -EBADMSG: damaged; -EPROTO: newer
 * format; err says which and where.
 */
int fp_log_load(const char *path, struct fp_run *run, fp_log_event_fn fn,
		void *ctx, char *err, size_t errlen);
/*
 * The same from fd (segment 0, taken); segment n is name.n in dirfd
 * (-1: none is looked for); shown names segment 0 in messages.
 */
int fp_log_load_fd(int fd, int dirfd, const char *name, const char *shown,
		   struct fp_run *run, fp_log_event_fn fn, void *ctx, char *err,
		   size_t errlen);

#endif
