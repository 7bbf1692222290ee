/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `sidecar stop` gives GitHub: a markdown job summary
 * ($GITHUB_STEP_SUMMARY, --summary FILE.md) and workflow commands that
 * become annotations (--annotations). Every byte that came from the traced
 * job (paths, command lines, step names) is escaped, so a hostile name
 * cannot break a table, a line or a command, nor inject HTML.
 */
#ifndef FP_SUMMARY_MD_H
#define FP_SUMMARY_MD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "findings.h"
#include "findref.h"
#include "judge.h"

/* GitHub takes 1 MiB per step summary; footprint stays well under it */
#define FP_MD_SUMMARY_MAX (64 * 1024 - 1)
/* examples of a category per step */
#define FP_MD_EXAMPLES 3
/* GitHub shows at most 10 error annotations per step */
#define FP_ANNOTATIONS_MAX 10

/*
 * The verdict with the count at each severity first; a row per step
 * with failing findings, the step of the most severe first (the others
 * counted in one row); per step a line per category, most severe first,
 * the files grouped "N under `DIR/`" as on stderr, paths and command
 * lines in code spans; the destinations, the routine ones (loopback,
 * unix sockets, the resolver) folded into one line; the suggested policy
 * lines. At most max bytes: when cut, it ends with "and N more: see the
 * receipt". 0, or -ENOMEM (nothing was written).
 */
int fp_summary_md_write(FILE *f, const struct fp_findings *fi,
			const struct fp_verdict *v, size_t max);

/*
 * One "::error title=footprint::MESSAGE" line per failing finding (after
 * the reasons that are no finding: trace incomplete, command failed), at
 * most max lines. 0, or -ENOMEM.
 */
int fp_annotations_write(FILE *f, const struct fp_findings *fi,
			 const struct fp_verdict *v, size_t max);

/* s as markdown text that stays inside one table cell */
void fp_md_escape(struct fp_sbuf *b, const char *s, size_t len);
/* s as a code span (a path, a command line); in_cell: inside a table */
void fp_md_code(struct fp_sbuf *b, const char *s, size_t len, bool in_cell);
/* s as a workflow command's message: %, CR and LF as %25, %0D, %0A */
void fp_gh_escape_data(struct fp_sbuf *b, const char *s, size_t len);
/* s as a workflow command's property value: also : and , */
void fp_gh_escape_property(struct fp_sbuf *b, const char *s, size_t len);

#endif
