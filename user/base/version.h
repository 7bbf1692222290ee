/* SPDX-License-Identifier: GPL-2.0 */
/* What build of footprint this is: for --version, logs and receipts. */
#ifndef FP_VERSION_H
#define FP_VERSION_H

#include <stdio.h>

/* "0.1.0" on a release tag, "0.1.0+g<commit>" between tags ("….dirty"
 * with uncommitted changes) */
const char *fp_version(void);
/* the full commit id, or "unknown" outside a checkout and a release */
const char *fp_version_commit(void);
/* the libbpf this process runs with ("v1.1"), which may not be the one
 * it was built against */
const char *fp_version_libbpf(void);
/* the --version text: three lines */
void fp_version_print(FILE *f);

#endif
