// SPDX-License-Identifier: GPL-2.0
/*
 * Receipt bytes as HTML text. Paths are the traced command's, so hostile:
 * markup is escaped, and what a reader could misread is made visible
 * (bytes that are not UTF-8, control bytes, direction overrides that
 * would show a name reversed).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "html_int.h"

/* the length of the valid UTF-8 sequence at s (of n bytes), 0 if none;
 * *cp its code point */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* bidirectional controls: U+202A..U+202E, U+2066..U+2069, U+200E/F */
static bool bidi(uint32_t c)
{
	return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
	       c == 0x200e || c == 0x200f;
}

void fp_html_text(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t c;

	while (i < len) {
		n = utf8_seq(p + i, len - i, &c);
		if (!n || c < 0x20 || c == 0x7f) {
			fprintf(f, "<span class=\"x\">\\x%02x</span>", p[i]);
			i++;
			continue;
		}
		if (bidi(c))
			fprintf(f,
				"<span class=\"x\">\\u{%04" PRIx32 "}</span>",
				c);
		else if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\'')
			fputs("&#39;", f);
		else
			fwrite(p + i, 1, n, f);
		i += n;
	}
}

void fp_html_str(FILE *f, const char *s)
{
	fp_html_text(f, s, strlen(s));
}

bool fp_html_bytes(const struct fp_jv *e, const char *key, const char **s,
		   size_t *len, char **buf)
{
	char k[64];
	const struct fp_jv *v = fp_jv_get(e, key), *b;

	*buf = NULL;
	if (!v || v->type != FP_JV_STR)
		return false;
	*s = v->s;
	*len = v->len;
	if (snprintf(k, sizeof(k), "%s_b64", key) >= (int)sizeof(k))
		return true;
	b = fp_jv_get(e, k);
	if (!b || b->type != FP_JV_STR)
		return true;
	*buf = malloc(b->len / 4 * 3 + 3);
	if (*buf && !fp_base64_decode(b->s, b->len, *buf, len)) {
		*s = *buf;
		return true;
	}
	free(*buf); /* not base64: the lossy string is what there is */
	*buf = NULL;
	*s = v->s;
	*len = v->len;
	return true;
}

void fp_html_field(FILE *f, const struct fp_jv *e, const char *key,
		   const char *fallback)
{
	const char *s;
	size_t len;
	char *buf;

	if (!fp_html_bytes(e, key, &s, &len, &buf)) {
		if (fallback)
			fp_html_str(f, fallback);
		return;
	}
	fp_html_text(f, s, len);
	free(buf);
}

void fp_html_argv(FILE *f, const struct fp_jv *actor, size_t max)
{
	const struct fp_jv *a = fp_jv_get(actor, "argv");
	size_t i, used = 0, n;

	if (!a || a->type != FP_JV_ARR)
		return;
	for (i = 0; i < a->n; i++) {
		if (a->items[i].type != FP_JV_STR)
			continue;
		n = a->items[i].len;
		if (used + n > max) {
			n = max > used ? max - used : 0;
			/* cut at a character, not inside one */
			while (n && (a->items[i].s[n] & 0xc0) == 0x80)
				n--;
			if (i)
				fputc(' ', f);
			fp_html_text(f, a->items[i].s, n);
			fputs("&hellip;", f);
			return;
		}
		if (i)
			fputc(' ', f);
		fp_html_text(f, a->items[i].s, n);
		used += n + 1;
	}
}

void fp_html_duration(FILE *f, int64_t us)
{
	if (us < 0)
		us = 0;
	if (us < 1000)
		fprintf(f, "%" PRId64 " &micro;s", us);
	else if (us < 1000000)
		fprintf(f, "%.1f ms", us / 1e3);
	else if (us < 120000000)
		fprintf(f, "%.2f s", us / 1e6);
	else
		fprintf(f, "%" PRId64 " min %02" PRId64 " s", us / 60000000,
			us / 1000000 % 60);
}
