/* SPDX-License-Identifier: GPL-2.0 */
/* Standard base64 with its padding, as json_base64() writes it. */
#ifndef FP_BASE64_H
#define FP_BASE64_H

#include <stddef.h>

/* out holds len / 4 * 3 bytes; 0 with *n set, or -EINVAL */
int fp_base64_decode(const char *in, size_t len, char *out, size_t *n);

#endif
