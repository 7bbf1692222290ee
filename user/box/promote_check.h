/* SPDX-License-Identifier: GPL-2.0 */
/* promote's checks: all of them pass before anything is written. */
#ifndef FP_PROMOTE_CHECK_H
#define FP_PROMOTE_CHECK_H

#include "jsonin.h"
#include "promote.h"

/* the lock is of a passing receipt, or one locked with --skip-disallowed:
 * 0, or 1 after one line */
int fp_promote_receipt_ok(const struct fp_jv *lk);
/* r's locked changes from the lock; 0 or 2 after one line */
int fp_promote_load(struct fp_proot *r, const struct fp_jv *lk);
/* set drift, hash miss, input drift: 0, or 1 after the reason; 2 when
 * the scratch layer cannot be read */
int fp_promote_verify(struct fp_proot *r, const struct fp_jv *lk);

#endif
