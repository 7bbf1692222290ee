/* SPDX-License-Identifier: GPL-2.0 */
/* The JSON receipt (docs/receipt.schema.json) and the human summary. */
#ifndef FP_RECEIPT_H
#define FP_RECEIPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "findings.h"
#include "judge.h"

struct fp_receipt_info {
	char *const *argv;
	const struct fp_outcome *outcome;
	uint64_t duration_ms;
	uint64_t events;
	char *const *roots;
	size_t nroots;
	const char *incomplete; /* fp_run_incomplete_reason() */
	bool sidecar; /* the receipt has a mode, tamper and steps */
};

void fp_receipt_write(FILE *f, const struct fp_receipt_info *ri,
		      const struct fp_findings *fi, const struct fp_verdict *v);
/* Verdict first, one line per failing finding, then the policy lines that
 * would allow it. */
void fp_summary_write(FILE *f, const struct fp_findings *fi,
		      const struct fp_verdict *v, bool color);

#endif
