/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Byte strings of a receipt's JSON, exactly: a string that was not UTF-8
 * is written with U+FFFD and a "<key>_b64" sibling holding its bytes
 * (json.h), which these read instead when it is there.
 */
#ifndef FP_FLEET_JV_H
#define FP_FLEET_JV_H

#include <stdbool.h>
#include <stddef.h>

#include "jsonin.h"

/*
 * The bytes of o's string key into *out (malloc'd, NUL-terminated; NULL
 * when o has no such string). 0, -ENOENT (none), -EINVAL (bad base64)
 * or -ENOMEM.
 */
int fp_fleet_jv_bytes(const struct fp_jv *o, const char *key, char **out,
		      size_t *len);
/* o's array of strings key (argv), NUL-separated, each item exactly */
int fp_fleet_jv_strv(const struct fp_jv *o, const char *key, char **out,
		     size_t *len);
/* the string items of the array a, NUL-separated; b64: each is base64 */
int fp_fleet_jv_items(const struct fp_jv *a, bool b64, char **out, size_t *len);

#endif
