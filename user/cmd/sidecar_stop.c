// SPDX-License-Identifier: GPL-2.0
/* sidecar status, mark and stop: the commands; the socket is
 * sidecar_proto.h's, stop's end of the daemon sidecar_end.c's. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "sidecar.h"

#include "report_hooks.h"
#include "sidecar_cmd.h"

/* ---- status ---- */

int sidecar_status(struct sidecar_opts *o)
{
	char buf[4096], req = o->json ? FP_SC_STATUS : FP_SC_STATUS_TEXT;
	int statefd = sidecar_open_state(o, NULL, false), fd;
	ssize_t n;

	if (statefd < 0)
		return FP_EXIT_USAGE;
	fd = fp_sc_connect(statefd);
	close(statefd);
	if (fd < 0) {
		fprintf(stderr,
			"footprint: no sidecar answers in %s (%s); `footprint sidecar stop` will judge what it recorded\n",
			o->state, strerror(-fd));
		return FP_EXIT_VERDICT;
	}
	n = fp_sc_ask(fd, &req, 1, buf, sizeof(buf), 30);
	close(fd);
	if (n <= 0) {
		fprintf(stderr, "footprint: the sidecar did not answer\n");
		return FP_EXIT_VERDICT;
	}
	/* JSON to stdout, the human lines to stderr */
	fwrite(buf, 1, n, o->json ? stdout : stderr);
	return FP_EXIT_OK;
}

/* ---- mark ---- */

int sidecar_mark(struct sidecar_opts *o)
{
	char req[260], ack = 0;
	int statefd = sidecar_open_state(o, NULL, false), fd;
	size_t len = strlen(o->name);

	if (statefd < 0)
		return FP_EXIT_USAGE;
	fd = fp_sc_connect(statefd);
	close(statefd);
	if (fd < 0) {
		fprintf(stderr, "footprint: no sidecar answers in %s (%s)\n",
			o->state, strerror(-fd));
		return FP_EXIT_VERDICT;
	}
	req[0] = FP_SC_MARK;
	memcpy(req + 1, o->name, len);
	if (fp_sc_ask(fd, req, len + 1, &ack, 1, 30) != 1 || ack != 'K') {
		fprintf(stderr,
			"footprint: the sidecar did not take the mark\n");
		close(fd);
		return FP_EXIT_VERDICT;
	}
	close(fd);
	return FP_EXIT_OK;
}

/* The receipt's own stream, as stop was asked for it (NULL: none). */
static FILE *receipt_stream(const struct fp_output *receipt,
			    const struct sidecar_opts *o)
{
	if (receipt->fd >= 0)
		return fdopen(dup(receipt->fd), "w");
	return o->args.so.receipt_path ? stdout : NULL;
}

/*
 * The verdict, and the outputs made of its receipt (--attest, --push):
 * for them the receipt is written into a memfd of stop's, and goes on
 * from there by the report path's tail (report_path.h), where it was
 * asked for first.
 */
static int stop_verdict(struct fp_sidecar_stop *x, struct fp_output *receipt,
			struct fp_output *summary, const struct sidecar_opts *o,
			struct fp_report_outputs *ro)
{
	bool to_stdout = o->args.so.receipt_path &&
			 !strcmp(o->args.so.receipt_path, "-");
	int mfd, rc;

	if (!fp_report_has_hooks(ro))
		return fp_sidecar_stop_verdict(
			x, to_stdout ? STDOUT_FILENO : receipt->fd,
			summary->fd);
	mfd = memfd_create("footprint-receipt", MFD_CLOEXEC);
	if (mfd < 0) {
		fprintf(stderr, "footprint: no memory for the receipt: %s\n",
			strerror(errno));
		return FP_EXIT_NOTRACE;
	}
	rc = fp_sidecar_stop_verdict(x, mfd, summary->fd);
	ro->receipt = receipt_stream(receipt, o);
	rc = fp_report_receipt_fd(mfd, NULL, ro, rc);
	close(mfd);
	if (ro->receipt && (fflush(ro->receipt) ||
			    (ro->receipt != stdout && fclose(ro->receipt)))) {
		fprintf(stderr,
			"footprint: writing the receipt to %s failed: %s\n",
			o->args.so.receipt_path, strerror(errno));
		rc = rc ? rc : FP_EXIT_NOTRACE;
	}
	return rc;
}

/* receipt, summary, html: every directory checked, then each created,
 * before the daemon is stopped */
static int prepare_outputs(int statefd, struct fp_output *receipt,
			   struct fp_output *summary, struct fp_output *html,
			   const struct sidecar_opts *o,
			   const struct fp_creds *c)
{
	static char rootbuf[FP_ROOTS_MAX * (PATH_MAX + 1)];
	char *roots[FP_ROOTS_MAX];
	size_t nroots;
	int rc;

	receipt->path = o->args.so.receipt_path;
	nroots = fp_sidecar_read_roots(statefd, rootbuf, sizeof(rootbuf), roots,
				       FP_ROOTS_MAX);
	summary->path = o->summary_path;
	html->path = o->args.so.html_path;
	rc = fp_output_prepare(receipt, c, roots, nroots);
	if (!rc)
		rc = fp_output_prepare(summary, c, roots, nroots);
	if (!rc)
		rc = fp_output_prepare(html, c, roots, nroots);
	if (!rc && o->args.so.receipt_path &&
	    strcmp(o->args.so.receipt_path, "-") &&
	    fp_output_create(receipt, c, true) < 0)
		rc = FP_EXIT_USAGE;
	if (!rc && o->summary_path && strcmp(o->summary_path, "-") &&
	    fp_output_create(summary, c, true) < 0)
		rc = FP_EXIT_USAGE;
	if (!rc && html->path && strcmp(html->path, "-") &&
	    fp_output_create(html, c, true) < 0)
		rc = FP_EXIT_USAGE;
	return rc;
}

int sidecar_stop(struct sidecar_opts *o, const struct fp_creds *c)
{
	struct fp_output receipt = FP_OUTPUT_INIT("the receipt");
	struct fp_output summary = FP_OUTPUT_INIT("the job summary");
	struct fp_output html = FP_OUTPUT_INIT("the HTML report");
	struct fp_report_html page = { &html, c };
	struct fp_sidecar_stop x = { 0 };
	struct fp_attest_job att = FP_ATTEST_JOB_INIT;
	struct fp_report_outputs ro = FP_REPORT_OUTPUTS_INIT;
	struct fp_report_push push = {
		.fo = { .url = o->args.push_url,
			.creds = c,
			.job = o->args.push_job,
			.quiet = o->args.so.quiet },
		.user = c->active ? c->name : "root",
	};
	int statefd, rc, where;
	bool in_child;

	if (geteuid() != 0) {
		fprintf(stderr,
			"footprint: stopping the sidecar needs root; run it under sudo: sudo footprint sidecar stop\n");
		return FP_EXIT_NOTRACE;
	}
	statefd = sidecar_open_state(o, c, false);
	if (statefd < 0)
		return FP_EXIT_USAGE;
	where = fp_sidecar_leave_job(statefd, &rc);
	if (where == 0) {
		close(statefd);
		return rc;
	}
	in_child = where == 1;
	fp_sidecar_stop_init(&x, statefd, o->daemon_id);
	x.req.annotations = o->annotations;
	x.req.quiet = o->args.so.quiet;
	x.req.summary_max = o->args.so.summary_max;
	rc = prepare_outputs(statefd, &receipt, &summary, &html, o, c);
	o->attest.quiet = o->args.so.quiet;
	if (!rc && o->attest.key)
		rc = fp_attest_job_prepare(&att, &o->attest, c);
	if (!rc) {
		fp_report_hook_attest(&ro, &att);
		fp_report_hook_push(&ro, &push);
		fp_report_hook_html(&ro, &page);
		rc = stop_verdict(&x, &receipt, &summary, o, &ro);
	}
	fp_attest_job_free(&att);
	close(statefd);
	if (c->active) {
		fp_output_hand_over(&receipt, 1, c->uid, c->gid, c->name);
		fp_output_hand_over(&summary, 1, c->uid, c->gid, c->name);
		fp_output_hand_over(&html, 1, c->uid, c->gid, c->name);
	}
	if (receipt.fd >= 0)
		close(receipt.fd);
	if (summary.fd >= 0)
		close(summary.fd);
	fp_output_discard_empty(&html, c);
	if (html.fd >= 0)
		close(html.fd);
	fp_output_close(&receipt);
	fp_output_close(&summary);
	fp_output_close(&html);
	if (in_child) {
		fflush(stdout);
		_exit(rc);
	}
	return rc;
}
