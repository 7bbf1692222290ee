/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The summary's lines for connections and lookups: the failing ones (at
 * most max, then "and N more"), and one line when lookups went through a
 * resolver socket whose names footprint cannot see.
 */
#ifndef FP_SUMMARY_NET_H
#define FP_SUMMARY_NET_H

#include <stddef.h>
#include <stdio.h>

#include "findings.h"

void fp_summary_net(FILE *f, const struct fp_findings *fi, size_t max);

#endif
