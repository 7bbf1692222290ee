/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one report path: a judged run to every output asked for. run
 * (fp_session_verdict), replay, the sidecar's daemon and sidecar stop's
 * fail-closed judge all come here, in this order:
 *
 *   the JSON receipt, the markdown job summary, annotations on stdout,
 *   the warnings (lost events, memory budget) and the summary on stderr,
 *   then the outputs made of the receipt's bytes (hooks, in the order of
 *   enum fp_report_hook_id).
 *
 * The hooks are what the commands plug in from the layers above this one
 * (an attestation, a fleet push, an HTML report): each gets the receipt
 * exactly as it was written, and the judged run when it was judged here.
 */
#ifndef FP_REPORT_PATH_H
#define FP_REPORT_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "run.h"
#include "tracer.h"

/* A judged run: what every output is made of. */
struct fp_judged {
	const struct fp_run *run;
	const struct fp_findings *f;
	const struct fp_verdict *v;
	const struct fp_outcome *o;
	/* the live trace's losses by cause; NULL for a log (the total only) */
	const struct fp_trace_stats *st;
};

/* The receipt as the hooks get it. */
struct fp_report_receipt {
	int fd; /* a memfd holding it, from offset 0 */
	const char *buf; /* its bytes (len of them) */
	size_t len;
	/* the run it was judged from; NULL when it was judged elsewhere
	 * (sidecar stop: the daemon wrote it) */
	const struct fp_judged *j;
};

/* An output made of the receipt. rc: the exit code so far; returns the
 * one to go on with (a failed output turns an ok into an error). */
typedef int (*fp_report_hook_fn)(void *ctx, const struct fp_report_receipt *r,
				 int rc);

struct fp_report_hook {
	fp_report_hook_fn fn; /* NULL: not asked for */
	void *ctx;
};

enum fp_report_hook_id {
	FP_REPORT_ATTEST, /* --attest: an in-toto link or statement */
	FP_REPORT_PUSH, /* --push: the fleet's store, or its spool */
	FP_REPORT_HTML, /* room for the HTML report */
	FP_REPORT_HOOKS,
};

/* The outputs asked for. */
struct fp_report_outputs {
	FILE *receipt; /* the JSON receipt (a file or stdout), or NULL */
	int markdown_fd; /* the markdown job summary, or -1 */
	bool annotations; /* GitHub annotations on stdout */
	bool quiet; /* no summary on stderr; the warnings stay */
	size_t summary_max; /* examples per category; 0: the default */
	/* more of the stderr summary, after it (run --unit: the shape) */
	void (*summary_more)(void *ctx);
	void *summary_more_ctx;
	struct fp_report_hook hooks[FP_REPORT_HOOKS];
};

#define FP_REPORT_OUTPUTS_INIT    \
	{                         \
		.markdown_fd = -1 \
	}

/*
 * Every output of j that o asks for, in the order above. rc is the
 * verdict's exit code (fp_run_exit_code, or the caller's own); the one to
 * exit with is returned.
 */
int fp_report_judged(const struct fp_judged *j,
		     const struct fp_report_outputs *o, int rc);
/*
 * The tail of the path for a receipt that was written into the memfd fd
 * (j: its run, or NULL): to o->receipt, then to the hooks. The exit
 * code to go on with.
 */
int fp_report_receipt_fd(int fd, const struct fp_judged *j,
			 const struct fp_report_outputs *o, int rc);
/* any hook asked for: the receipt must be held (a memfd) for it */
bool fp_report_has_hooks(const struct fp_report_outputs *o);

#endif
