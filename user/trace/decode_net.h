/* SPDX-License-Identifier: GPL-2.0 */
/* Decoding of the network records (FP_EV_NET, FP_EV_NET_COUNT, FP_EV_DNS),
 * whose header fp_decode has already decoded. */
#ifndef FP_DECODE_NET_H
#define FP_DECODE_NET_H

#include <stddef.h>

#include "event.h"

/* 0, -EINVAL for a short record, -ENOMEM */
int fp_decode_net(const void *rec, size_t size, struct fp_event *ev);
int fp_decode_dns(const void *rec, size_t size, struct fp_event *ev);

#endif
