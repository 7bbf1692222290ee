/* SPDX-License-Identifier: GPL-2.0 */
/* The JSON receipt (docs/receipt.schema.json) and the human summary. */
#ifndef FP_RECEIPT_H
#define FP_RECEIPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "findings.h"
#include "judge.h"
#include "shape_diff.h"

/*
 * The receipt's "format": 2 since the process table (docs/receipt.md); a
 * receipt without the key is format 1.
 */
#define FP_RECEIPT_FORMAT 2

struct fp_receipt_info {
	char *const *argv;
	const struct fp_outcome *outcome;
	uint64_t duration_ms;
	uint64_t events;
	uint64_t opens_collapsed; /* shown when not 0 */
	char *const *roots;
	size_t nroots;
	const char *incomplete; /* fp_run_incomplete_reason() */
	bool sidecar; /* the receipt has a mode, tamper and steps */
	/* run --scratch: its directory and the snapshots of the merged view
	 * (receipt_scratch.h); NULL: no scratch object */
	const char *scratch_dir;
	const struct fp_fs_snapshot *fs_before, *fs_after;
	const char *unit; /* run --unit: "unit" and "shape_diff" */
	const struct fp_shape_diff *shape_diff; /* NULL: not compared */
	const struct fp_shape_policy *shape_policy;
	const char *shape_why; /* why not compared */
	/* provenance (receipt_provenance.c), from the log's header and
	 * trailer; a time of 0 is unknown */
	const char *version, *host, *kernel, *user;
	uint32_t uid;
	int64_t start_ns, end_ns;
};

void fp_receipt_write(FILE *f, const struct fp_receipt_info *ri,
		      const struct fp_findings *fi, const struct fp_verdict *v);
/* examples per category in the stderr summary (--summary-max) */
#define FP_SUMMARY_MAX_DEFAULT 10
#define FP_SUMMARY_MAX_LIMIT 10000
/* lines of findings, step headings included, for max examples: 24 for
 * the default, so that the whole summary fits on a screen */
#define FP_SUMMARY_LINES(max) (2 * (max) + 4)

struct fp_summary_opts {
	bool color;
	size_t max; /* examples per category; 0 is taken as 1 */
};

/*
 * The stderr summary (user/report/summary.c): the verdict (a passing run's
 * "ok" with what it saw, summary_ok.c), the reasons no
 * finding tells, then per category the count and at most max examples,
 * many files under one directory as one "N under DIR/" line, "and N more
 * (see the receipt)", then at most max policy lines that would allow what
 * failed. Every byte from the traced command is escaped.
 */
void fp_summary_write_opts(FILE *f, const struct fp_findings *fi,
			   const struct fp_verdict *v,
			   const struct fp_summary_opts *o);
/* The same, given the watched roots: a passing run's line names paths
 * below the one root relative to it (fp_summary_write_opts: absolute). */
void fp_summary_write_roots(FILE *f, const struct fp_findings *fi,
			    const struct fp_verdict *v,
			    const struct fp_summary_opts *o, char *const *roots,
			    size_t nroots);
/* with FP_SUMMARY_MAX_DEFAULT */
void fp_summary_write(FILE *f, const struct fp_findings *fi,
		      const struct fp_verdict *v, bool color);

#endif
