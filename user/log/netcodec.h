/* SPDX-License-Identifier: GPL-2.0 */
/* Log bodies of the network events (log format version 5). */
#ifndef FP_NETCODEC_H
#define FP_NETCODEC_H

#include "logcodec.h"

void fp_enc_net_event(struct fp_enc *e, const struct fp_event *ev);
void fp_dec_net_event(struct fp_dec *d, struct fp_event *ev);

#endif
