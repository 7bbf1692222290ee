// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "findref.h"
#include "say_bytes.h"

#define SAID_MAX 1024

/* the length of the run at s that shows as itself, 0 if the byte at s
 * must be escaped */
static size_t shows_as_is(const unsigned char *s, size_t left)
{
	uint32_t cp;
	size_t n;

	if (s[0] < 0x20 || s[0] == 0x7f || s[0] == '\\')
		return 0;
	n = fp_utf8_decode(s, left, &cp);
	return n && !(n > 1 && fp_cp_sneaky(cp)) ? n : 0;
}

void fp_sbuf_say(struct fp_sbuf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = shows_as_is(p + i, len - i);
		if (n) {
			fp_sbuf_add(b, s + i, n);
			i += n;
		} else {
			fp_sbuf_printf(b, "\\x%02x", p[i++]);
		}
	}
}

void fp_say_bytes(FILE *f, const char *s, size_t len)
{
	struct fp_sbuf b = { 0 };

	fp_sbuf_say(&b, s, len);
	if (!b.err && b.len)
		fwrite(b.p, 1, b.len, f);
	fp_sbuf_free(&b);
}

const char *fp_said(const char *s)
{
	static char out[4][SAID_MAX + 8];
	static int k;
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, n, len = s ? strlen(s) : 0;
	char *d = out[k = (k + 1) % 4];

	while (i < len && o < SAID_MAX) {
		n = shows_as_is(p + i, len - i);
		if (n) {
			memcpy(d + o, s + i, n);
			o += n;
			i += n;
		} else {
			snprintf(d + o, 5, "\\x%02x", p[i++]);
			o += 4;
		}
	}
	if (i < len)
		memcpy(d + o, "...", 3), o += 3;
	d[o] = '\0';
	return d;
}
