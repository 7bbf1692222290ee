/* SPDX-License-Identifier: GPL-2.0 */
/* An image's credentials in JSON, for the receipt and the events stream. */
#ifndef FP_PRIVS_JSON_H
#define FP_PRIVS_JSON_H

#include "event.h"
#include "json.h"

/* "key": {...}, or "key": null when the log did not record them */
void fp_json_privs(struct json_out *j, const char *key,
		   const struct fp_privs *c);
/* "key": ["ids", "caps", "secure_exec"], as FP_PRIV_* bits say */
void fp_json_priv_rose(struct json_out *j, const char *key, unsigned int rose);

#endif
