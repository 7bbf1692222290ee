/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FP_EVENT_JSON_H
#define FP_EVENT_JSON_H

#include <stdio.h>

#include "event.h"

/* One event as one line of NDJSON (docs/events.md). */
void fp_event_write_json(FILE *f, const struct fp_event *ev);
/* "O_WRONLY|O_CREAT|O_TRUNC" for open flags */
void fp_open_flags_text(char *buf, size_t len, uint64_t flags);
/* "inet", "inet6", "unix", "netlink", "packet"; NULL for another */
const char *fp_family_name(int family);

#endif
