/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Did an exec raise a process's privileges above what it had before?
 * Pure: decided from the credentials the exec events recorded.
 */
#ifndef FP_PRIVILEGE_H
#define FP_PRIVILEGE_H

#include <stdint.h>

#include "event.h"

/* what rose, as bits */
#define FP_PRIV_IDS (1U << 0) /* a uid or gid the process could not take */
#define FP_PRIV_CAPS (1U << 1) /* capabilities it did not have */
#define FP_PRIV_SECURE (1U << 2) /* no known baseline, and a secure exec */
#define FP_PRIV_NBITS 3

/*
 * What now has that base did not. base NULL or unknown: now is the first
 * image known of its tree, and only the kernel's secure-exec flag tells
 * that the exec itself raised it. now unknown: 0, never a guess.
 */
unsigned int fp_privs_rose(const struct fp_privs *base,
			   const struct fp_privs *now);
/* "ids", "caps", "secure_exec" */
const char *fp_priv_bit_name(unsigned int bit);
/* "CAP_CHOWN", ...; NULL past the last capability known here */
const char *fp_cap_name(unsigned int cap);

#endif
