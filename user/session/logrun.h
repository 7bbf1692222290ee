/* SPDX-License-Identifier: GPL-2.0 */
/* A run, written to and read back from the event log (docs/event-log.md). */
#ifndef FP_LOGRUN_H
#define FP_LOGRUN_H

#include "event.h"
#include "evlog.h"
#include "run.h"

struct fp_log_sink {
	struct fp_evlog_writer w;
	struct fp_enc *enc;
	uint64_t prev_ts;
};

int fp_log_header(struct fp_log_sink *s, const struct fp_run *run);
int fp_log_snapshot(struct fp_log_sink *s, const struct fp_run *run,
		    unsigned int phase, bool fs, bool rest);
int fp_log_event(struct fp_log_sink *s, const struct fp_event *ev);
int fp_log_trailer(struct fp_log_sink *s, const struct fp_run *run);

/* called for each event as it is read; ev is freed after the call */
typedef int (*fp_log_event_fn)(void *ctx, const struct fp_event *ev);

/*
 * Read a log into run (fp_run_init'ed). 0: complete. -ENODATA: cut
 * short, run->incomplete_why says where; what came before is in run.
 * -EBADMSG: damaged; -EPROTO: newer format; err says which and where.
 */
int fp_log_load(const char *path, struct fp_run *run, fp_log_event_fn fn,
		void *ctx, char *err, size_t errlen);

#endif
