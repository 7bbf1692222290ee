// SPDX-License-Identifier: GPL-2.0
/* The commands' outputs made of the receipt (report_hooks.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "html.h"
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

int fp_html_page_write(const char *receipt, size_t len, const char *name,
		       const char *path, FILE *(*open_page)(void *ctx),
		       void *ctx)
{
	char *page = NULL, err[300];
	size_t plen = 0;
	FILE *mem = open_memstream(&page, &plen), *out = NULL;
	int ret;

	if (!mem) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_USAGE;
	}
	/* made in memory first: a bad input leaves no half page behind */
	ret = fp_html_write(mem, receipt, len, err, sizeof(err));
	if (fclose(mem) && !ret)
		ret = -ENOMEM;
	if (ret == -EINVAL)
		fprintf(stderr,
			"footprint: %s is neither a receipt nor a footprint log (%s)\n",
			name, err);
	else if (ret)
		fprintf(stderr,
			"footprint: the HTML report of %s: out of memory\n",
			name);
	if (!ret)
		out = open_page(ctx);
	if (out) {
		ret = fwrite(page, 1, plen, out) != plen;
		ret = fflush(out) || ret;
		ret = (out != stdout && fclose(out)) || ret;
		if (ret)
			fprintf(stderr,
				"footprint: writing the HTML report to %s failed: %s\n",
				path, strerror(errno));
	}
	free(page);
	return out && !ret ? FP_EXIT_OK : FP_EXIT_USAGE;
}

/* the page's file: the one made before the run, or made now */
static FILE *html_open(void *ctx)
{
	struct fp_report_html *h = ctx;
	FILE *f;
	int fd;

	if (!strcmp(h->out->path, "-"))
		return stdout;
	if (h->out->fd < 0 && fp_output_create(h->out, h->c, true) < 0)
		return NULL;
	/* out->fd stays open for the owner to hand over */
	fd = dup(h->out->fd);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		fprintf(stderr, "footprint: cannot write %s to %s: %s\n",
			h->out->what, h->out->path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

/* a page that could not be written is an output that failed */
static int html(void *ctx, const struct fp_report_receipt *r, int rc)
{
	struct fp_report_html *h = ctx;

	if (!r->len) {
		fprintf(stderr,
			"footprint: %s gave no receipt; no HTML report was written\n",
			r->j ? "the run" : "the sidecar");
		return rc == FP_EXIT_OK ? FP_EXIT_NOTRACE : rc;
	}
	if (fp_html_page_write(r->buf, r->len, "the receipt", h->out->path,
			       html_open, h))
		return rc == FP_EXIT_OK ? FP_EXIT_NOTRACE : rc;
	return rc;
}

void fp_report_hook_html(struct fp_report_outputs *o, struct fp_report_html *h)
{
	if (h->out->path)
		o->hooks[FP_REPORT_HTML] = (struct fp_report_hook){ html, h };
}
