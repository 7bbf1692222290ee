/* SPDX-License-Identifier: GPL-2.0 */
/* footprint lock RECEIPT: the output lock of a scratch run. */
#ifndef FP_LOCK_OUTPUT_H
#define FP_LOCK_OUTPUT_H

#include <stdbool.h>

/* 0 written, 1 refused, 2 usage; one line on stderr when not 0 */
int fp_lock_output(const char *receipt, const char *out, bool skip);

#endif
