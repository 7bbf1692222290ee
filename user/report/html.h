/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTML report: one self-contained page (inline CSS, no script, no
 * network) made from a receipt, the JSON document footprint writes. It
 * shows the verdict, the findings by severity, the process tree with its
 * timeline (steps as lanes for a sidecar run), the files grouped by
 * directory with their writers, and the network destinations with their
 * counts. Every part is bounded ("and N more"): a receipt of any size
 * gives a page of a few MiB at most (docs/report.md).
 */
#ifndef FP_HTML_H
#define FP_HTML_H

#include <stddef.h>
#include <stdio.h>

/*
 * Render the receipt receipt[0..len) as HTML to out. 0; -EINVAL if it is
 * not a receipt (err says why), -ENOMEM, or -EIO if writing out failed.
 */
int fp_html_write(FILE *out, const char *receipt, size_t len, char *err,
		  size_t errlen);

#endif
