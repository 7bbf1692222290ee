// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for fleet's receipt walker (fleet_receipt.c): any
 * input is either refused with a message or walked entry by entry into
 * rows whose fields are safe to read. Build and run it with scripts/fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_receipt.h"

static int row(void *ctx, const struct fp_fleet_finding *f)
{
	size_t *n = ctx;

	/* every field a row carries is readable as it says */
	if (f->path && strlen(f->path) > f->path_len)
		abort();
	if (f->has_target && (!f->subject || !fp_fleet_target_name(f->target)))
		abort();
	if (f->severity < FP_SEV_LOW || f->severity > FP_SEV_CRITICAL)
		abort();
	if (f->argv && f->argv_len && f->argv[f->argv_len - 1] != '\0')
		abort();
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_fleet_run run;
	char err[256];
	size_t n = 0;

	err[0] = '\0';
	if (fp_fleet_receipt_run((const char *)data, size, &run, err,
				 sizeof(err))) {
		if (!err[0])
			abort();
		return 0;
	}
	if (strlen(run.id) != 32)
		abort();
	if (!fp_fleet_receipt_findings((const char *)data, size, &run, row, &n,
				       err, sizeof(err)) &&
	    n != run.findings)
		abort();
	fp_fleet_run_free(&run);
	return 0;
}
