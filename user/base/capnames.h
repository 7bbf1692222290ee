/* SPDX-License-Identifier: GPL-2.0 */
/* Capability names as in include/uapi/linux/capability.h. */
#ifndef FP_CAPNAMES_H
#define FP_CAPNAMES_H

#include <stddef.h>

/* "CAP_NET_ADMIN", or "CAP_63" for a bit past the table */
const char *fp_cap_name(unsigned int cap, char *buf, size_t len);
/* the number of a name as fp_cap_name writes it, or -1 */
int fp_cap_number(const char *name);

#endif
