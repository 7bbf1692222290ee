/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report path's hooks of the commands (report_path.h): the outputs
 * made of the receipt's bytes that live above the session, each plugged
 * in once for run, replay and sidecar stop.
 */
#ifndef FP_REPORT_HOOKS_H
#define FP_REPORT_HOOKS_H

#include <stdio.h>

#include "attest_job.h"
#include "fleet.h"
#include "outputs.h"
#include "report_path.h"

/* --push: the receipt to the store, or its spool */
struct fp_report_push {
	struct fp_fleet_opts fo;
	/* whose push it is, for a receipt judged elsewhere (sidecar stop) */
	const char *user;
};

/* j (prepared) to o's attestation; nothing without j->key */
void fp_report_hook_attest(struct fp_report_outputs *o,
			   struct fp_attest_job *j);
/* p to o's push; nothing without p->fo.url */
void fp_report_hook_push(struct fp_report_outputs *o, struct fp_report_push *p);

/* --html: the page of the receipt, to out: created (as c, NULL: as we
 * are) before anything ran, as the receipt is; else created here. Its
 * owner hands out->fd over to the user, drops it if it stayed empty
 * (fp_output_discard_empty) and closes it. */
struct fp_report_html {
	struct fp_output *out;
	const struct fp_creds *c;
};

/* h to o's HTML report; nothing without h->out->path */
void fp_report_hook_html(struct fp_report_outputs *o, struct fp_report_html *h);
/*
 * The one page writer (footprint report and --html): the page of the
 * receipt's len bytes (name says whose, in messages), made in memory
 * first, then to the stream open_page(ctx) gives (stdout, or a file it
 * created; NULL after a line), flushed and closed, so a bad input leaves
 * no half page. FP_EXIT_OK, or FP_EXIT_USAGE after one line.
 */
int fp_html_page_write(const char *receipt, size_t len, const char *name,
		       const char *path, FILE *(*open_page)(void *ctx),
		       void *ctx);

#endif
