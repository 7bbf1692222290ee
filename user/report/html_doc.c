// SPDX-License-Identifier: GPL-2.0
/* The HTML report's page: the receipt parsed, then each section. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_int.h"

static void head(struct fp_html *h)
{
	const struct fp_jv *cmd = fp_jv_get(h->r, "command");

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      /* nothing of the page may reach out: no fetch, no script */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>footprint: ",
	      h->out);
	fputs(fp_jv_bool(h->r, "ok") == 1 ? "ok" : "FAILED", h->out);
	fputs(" &middot; ", h->out);
	fp_html_argv(h->out, cmd, 80);
	fputs("</title>\n", h->out);
	fp_html_style(h->out);
	fputs("</head><body>\n", h->out);
}

static void release(struct fp_html *h)
{
	free(h->find);
	free(h->proc_sev);
	free(h->proc_nfind);
	free(h->by_pid);
}

static int render(struct fp_html *h)
{
	int ret;

	ret = fp_html_findings(h);
	if (ret)
		return ret;
	head(h);
	fp_html_verdict(h);
	fp_html_findings_section(h);
	ret = fp_html_procs_section(h);
	if (!ret)
		ret = fp_html_files_section(h);
	if (!ret)
		ret = fp_html_net_section(h);
	fputs("<footer>Made by <code>footprint report</code> from a receipt; "
	      "rows past each section's bound are counted, not shown "
	      "(docs/report.md).</footer>\n</body></html>\n",
	      h->out);
	return ret;
}

int fp_html_write(FILE *out, const char *receipt, size_t len, char *err,
		  size_t errlen)
{
	struct fp_html h = { .out = out };
	struct fp_jv r;
	const struct fp_jv *pt;
	int ret;

	if (fp_json_parse_max(receipt, len, &r, FP_HTML_VALUES, err, errlen))
		return -EINVAL;
	if (r.type != FP_JV_OBJ || fp_jv_bool(&r, "ok") < 0 ||
	    !fp_jv_get(&r, "command")) {
		snprintf(err, errlen,
			 "not a footprint receipt (no \"ok\" and \"command\")");
		fp_jv_free(&r);
		return -EINVAL;
	}
	h.r = &r;
	pt = fp_jv_get(&r, "process_table");
	if (pt && pt->type == FP_JV_ARR) {
		h.procs = pt;
		h.nprocs = pt->n;
	}
	ret = render(&h);
	release(&h);
	fp_jv_free(&r);
	if (!ret && (ferror(out) || fflush(out)))
		ret = -EIO;
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (ret == -EIO)
		snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
	return ret;
}
