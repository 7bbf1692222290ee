/* SPDX-License-Identifier: GPL-2.0 */
/*
 * network.connected, network.accepted and network.dns of the receipt
 * (docs/receipt.schema.json). Written only when the run made a connection,
 * an accept or a lookup, so that the receipt of a log recorded before
 * they were traced replays byte for byte.
 */
#ifndef FP_RECEIPT_NET_H
#define FP_RECEIPT_NET_H

#include "findings.h"
#include "json.h"

void fp_receipt_netflow(struct json_out *j, const struct fp_findings *fi);

#endif
