/* SPDX-License-Identifier: GPL-2.0 */
/* Pieces of the stderr summary shared by summary.c and summary_ok.c. */
#ifndef FP_SUMMARY_INT_H
#define FP_SUMMARY_INT_H

#include <stddef.h>
#include <stdio.h>

#include "findings.h"

/* bytes from the traced command, made safe for a terminal, as paths are */
void fp_summary_put_path(FILE *f, const char *s, size_t len);
/* "1,204" */
void fp_summary_put_count(FILE *f, size_t n);
/* ": 746 files added under node_modules/ (allowed), 15 connections to
 * registry.npmjs.org:443" after "footprint: ok" (summary_ok.c) */
void fp_summary_ok_line(FILE *f, const struct fp_findings *fi,
			char *const *roots, size_t nroots);

#endif
