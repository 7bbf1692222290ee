/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network part of the summaries. The failing connections and lookups
 * are findings like the others (findref.h); what is left is a note when
 * lookups went through a resolver socket whose names footprint cannot
 * see, and the markdown rows of the destinations the run reached.
 */
#ifndef FP_SUMMARY_NET_H
#define FP_SUMMARY_NET_H

#include <stddef.h>
#include <stdio.h>

#include "findings.h"
#include "findref.h"

struct fp_conn_finding;

void fp_summary_net(FILE *f, const struct fp_findings *fi);
/* "| DESTINATION | EXE | COUNT | failing |" */
void fp_md_conn_row(struct fp_sbuf *l, const struct fp_conn_finding *x);

#endif
