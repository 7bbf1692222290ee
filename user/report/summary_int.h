/* SPDX-License-Identifier: GPL-2.0 */
/* Pieces of the stderr summary shared by summary.c and summary_ok.c. */
#ifndef FP_SUMMARY_INT_H
#define FP_SUMMARY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "findings.h"
#include "findref.h"

/* bytes from the traced command, made safe for a terminal, as paths are */
void fp_summary_put_path(FILE *f, const char *s, size_t len);
/* "1,204" */
void fp_summary_put_count(FILE *f, size_t n);
/* ": 746 files added under node_modules/ (allowed), 15 connections to
 * registry.npmjs.org:443" after "footprint: ok" (summary_ok.c) */
void fp_summary_ok_line(FILE *f, const struct fp_findings *fi,
			char *const *roots, size_t nroots);

/* a group of a file category's findings: one (n 1, its ref) or "n under
 * dir/" */
struct fp_pgroup {
	const struct fp_fref *ref; /* the first, in tree order */
	size_t n;
	const char *dir;
	size_t dlen;
};

/*
 * The findings refs[0..n) of one file category as at most max groups,
 * the stderr summary's "N under DIR/" (summary.c): *out (free() it) holds
 * *nout. 0 or -ENOMEM.
 */
int fp_summary_groups(const struct fp_findings *fi, const struct fp_fref *refs,
		      size_t n, size_t max, struct fp_pgroup **out,
		      size_t *nout);
/* a category the stderr summary groups by directory */
bool fp_summary_groupable(unsigned int cat);

#endif
