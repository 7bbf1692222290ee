/* SPDX-License-Identifier: GPL-2.0 */
/* The fields of a network event in `footprint events` NDJSON. */
#ifndef FP_NET_JSON_H
#define FP_NET_JSON_H

#include "event.h"
#include "json.h"

void fp_net_event_json(struct json_out *j, const struct fp_event *ev);

#endif
