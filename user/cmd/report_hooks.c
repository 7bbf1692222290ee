// SPDX-License-Identifier: GPL-2.0
/* The commands' outputs made of the receipt (report_hooks.h). */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "report_hooks.h"

static const char *doc_name(const struct fp_attest_job *j)
{
	return j->a.format == FP_ATTEST_LINK ? "link" : "statement";
}

/*
 * The link or statement of the receipt's very bytes. A run judged here
 * has one only with a verdict; a receipt judged elsewhere (the sidecar's
 * daemon, or stop failing closed) has one whatever it says.
 */
static int attest(void *ctx, const struct fp_report_receipt *r, int rc)
{
	struct fp_attest_job *j = ctx;
	const struct fp_run *run = r->j ? r->j->run : NULL;
	int ret;

	if (run && (!run->have_trailer || rc == FP_EXIT_NOTRACE ||
		    rc == FP_EXIT_USAGE)) {
		fprintf(stderr,
			"footprint: the run has no verdict; no %s was written\n",
			doc_name(j));
		return rc;
	}
	if (!run && !r->len) {
		fprintf(stderr,
			"footprint: the sidecar gave no receipt; no %s was written\n",
			doc_name(j));
		return rc;
	}
	ret = fp_attest_job_receipt(j, r->buf, r->len,
				    run && run->have_snap[FP_PHASE_BEFORE] ?
					    &run->fs[FP_PHASE_BEFORE] :
					    NULL);
	return rc == FP_EXIT_OK ? ret : rc;
}

/* pushed or spooled; neither is an output that failed */
static int push(void *ctx, const struct fp_report_receipt *r, int rc)
{
	const struct fp_report_push *p = ctx;
	const struct fp_judged *j = r->j;
	int ret, fd;

	if (j) {
		ret = fp_fleet_push_judged(&p->fo, j->run, j->f, j->v, j->o);
	} else {
		fd = dup(r->fd);
		ret = fd < 0 ? -1 :
			       fp_fleet_push_receipt_fd(&p->fo, fd, p->user);
	}
	return ret && rc == FP_EXIT_OK ? FP_EXIT_NOTRACE : rc;
}

void fp_report_hook_attest(struct fp_report_outputs *o, struct fp_attest_job *j)
{
	if (j->key)
		o->hooks[FP_REPORT_ATTEST] =
			(struct fp_report_hook){ attest, j };
}

void fp_report_hook_push(struct fp_report_outputs *o, struct fp_report_push *p)
{
	if (p->fo.url)
		o->hooks[FP_REPORT_PUSH] = (struct fp_report_hook){ push, p };
}
