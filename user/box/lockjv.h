/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fields of the JSON files lock and promote read (receipts, locks), read
 * losslessly and strictly: paths and symlink targets as bytes (their
 * "<key>_b64" sibling when they are not UTF-8), modes as receipts and
 * locks of every version spell them.
 */
#ifndef FP_LOCKJV_H
#define FP_LOCKJV_H

#include <stdbool.h>
#include <stddef.h>

#include "jsonin.h"

/*
 * The bytes of o's key: "<key>_b64" decoded when present, else key's
 * string. NUL-terminated and malloc'd into *out (free it); a value that
 * holds a NUL is refused. 0, -ENOENT (no such field), -EINVAL (not a
 * string, bad base64, a NUL), or -ENOMEM.
 */
int fp_lockjv_bytes(const struct fp_jv *o, const char *key, char **out,
		    size_t *len);
/* the same of one string value (an array's item), base64 when b64 */
int fp_lockjv_value_bytes(const struct fp_jv *v, bool b64, char **out,
			  size_t *len);
/*
 * A mode: the decimal number that receipts and locks of version 1 hold,
 * or a string of octal digits ("0644", "4755"). 0 with the permission
 * bits (& 07777) in *mode, or -EINVAL.
 */
int fp_lockjv_mode(const struct fp_jv *m, unsigned int *mode);
/* mode as locks write it: four octal digits ("4755"), into 8 bytes */
void fp_lock_mode_str(char *out, unsigned int mode);

#endif
