/* SPDX-License-Identifier: GPL-2.0 */
/* Inside push: one document's rows, and what is spooled (fleet_spool.c). */
#ifndef FP_FLEET_PUSH_H
#define FP_FLEET_PUSH_H

#include <stdint.h>

#include "fleet.h"
#include "fleet_doc.h"
#include "fleet_receipt.h"

/* the run's row as resolved: the receipt's word first, then the doc's */
struct fp_fleet_meta {
	char *job;
	const char *host, *user, *version, *kernel, *origin;
	uint32_t uid;
	int64_t start_ns, end_ns;
	uint32_t started, ended; /* seconds, for DateTime */
};

/* 0, or -ENOMEM */
int fp_fleet_meta(const struct fp_fleet *fl, const struct fp_fleet_doc *d,
		  const struct fp_fleet_run *run, struct fp_fleet_meta *m);
void fp_fleet_meta_free(struct fp_fleet_meta *m);

enum fp_push_result {
	FP_PUSHED,
	FP_PUSHED_ALREADY,
	FP_PUSH_FAILED, /* the server: fl->ch.err says why */
	FP_PUSH_NO_EVENTS, /* the run is in, its events are not (fl->ch.err) */
	FP_PUSH_BAD, /* the input: said on stderr */
};

/* d's run, unless it is there already; with fl->events, then its log's
 * events (from where a push before stopped) */
enum fp_push_result fp_fleet_push_doc(struct fp_fleet *fl,
				      struct fp_fleet_doc *d,
				      struct fp_fleet_run *run);

/*
 * Into fl->spool: d's receipt and what m resolved, as RUNID.fpspool,
 * written as fl->creds. 0 with the entry's path in where, or -1 after a
 * line.
 */
int fp_fleet_spool_put(struct fp_fleet *fl, const struct fp_fleet_doc *d,
		       const struct fp_fleet_run *run,
		       const struct fp_fleet_meta *m, char *where, size_t wlen);
/* the default spool: $FOOTPRINT_SPOOL, or ~/.local/state/footprint/spool */
char *fp_fleet_spool_default(const struct fp_creds *c);

/* fleet_events.c: the events of log (resumed where a push stopped) */
enum fp_ch_status fp_fleet_push_events(struct fp_fleet *fl, const char *log,
				       const char *run_id,
				       const struct fp_fleet_meta *m,
				       uint64_t *pushed);

/* "SELECT count(), max(seq) ..." of run id in table: rows there, and the
 * seq to go on from */
enum fp_ch_status fp_fleet_resume(struct fp_fleet *fl, unsigned int table,
				  const char *run_id, uint64_t *count,
				  uint64_t *next);

#endif
