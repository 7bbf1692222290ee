/* SPDX-License-Identifier: GPL-2.0 */
/* What learn and new read back: a job's last runs and their findings. */
#ifndef FP_FLEET_QUERY_H
#define FP_FLEET_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet.h"
#include "policy.h"
#include "suggest.h"

struct fp_fleet_past {
	char id[33];
	uint32_t started;
	char *roots; /* NUL-separated */
	size_t roots_len;
};

/* one finding of a past run, pointing into the answer it came in */
struct fp_fleet_row {
	const char *run_id, *kind, *target, *subject, *path, *dest, *rule;
	size_t run_id_len, kind_len, target_len, subject_len, path_len,
		dest_len, rule_len;
	bool created, dir, allowed, failing, forbidden;
};

/*
 * The job's last n runs, newest first (only passing ones with passing;
 * never the run except_id): 0 with *runs (free with fp_fleet_pasts_free)
 * and *got set, or an exit code after a line.
 */
int fp_fleet_last_runs(struct fp_fleet *fl, const char *job, unsigned int n,
		       bool passing, const char *except_id,
		       struct fp_fleet_past **runs, size_t *got);
void fp_fleet_pasts_free(struct fp_fleet_past *runs, size_t n);
/*
 * Their findings that a run is judged by (failing, allowed or forbidden)
 * or that it made (created), each once, ordered by run and place, in
 * fl->ch.answer: call next until it returns 0 (1: *row filled; -1: an
 * answer footprint cannot read). 0, or an exit code after a line.
 */
int fp_fleet_past_findings(struct fp_fleet *fl, const char *job,
			   const struct fp_fleet_past *runs, size_t n);
int fp_fleet_next_row(struct fp_fleet *fl, size_t *pos,
		      struct fp_fleet_row *row);

/*
 * The rules the suggester (policy learn's) makes of the findings of runs
 * in fl->ch.answer: into rules (struct fp_sugg). runs newest first; the
 * suggester is fed the oldest first, as the runs were made.
 */
int fp_fleet_suggest(struct fp_fleet *fl, const struct fp_fleet_past *runs,
		     size_t n, bool passing_only, struct fp_vec *rules);

#endif
