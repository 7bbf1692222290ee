/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Socket address families by name, for the subject of a bind of a family
 * footprint does not otherwise know: "packet/", not a made-up "ip/:0".
 */
#ifndef FP_NETFAMILY_H
#define FP_NETFAMILY_H

#include <stddef.h>

/* "packet", "netlink", ... or NULL for a family without a name here */
const char *fp_net_family_name(int family);
/* "NAME/" or, for a family without a name, "family-N/", into buf */
void fp_net_family_subject(int family, char *buf, size_t len);

#endif
