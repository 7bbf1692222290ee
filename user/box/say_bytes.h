/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names from the scratch layer, a lock or a receipt, made safe for a
 * terminal in lock's and promote's messages, spelled as the summary
 * spells paths: valid UTF-8 that shows as itself stays, and control
 * bytes (newlines too), '\', bytes that are not UTF-8 and invisible or
 * bidi code points become \xNN, so the text shown names the bytes.
 */
#ifndef FP_SAY_BYTES_H
#define FP_SAY_BYTES_H

#include <stddef.h>
#include <stdio.h>

/* findref.h's */
struct fp_sbuf;

void fp_say_bytes(FILE *f, const char *s, size_t len);
void fp_sbuf_say(struct fp_sbuf *b, const char *s, size_t len);
/*
 * s made safe, in one of four rotating static buffers (four per line),
 * cut with "..." past about 1 KiB: for fprintf's %s.
 */
const char *fp_said(const char *s);

#endif
