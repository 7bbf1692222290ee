// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/*
 * The unlocked stdio calls: a json_out's FILE is written by one thread at
 * a time (the collector, or whoever writes a report), and the lock that
 * every call takes once the snapshot has started its hashing threads was
 * the biggest single cost of writing --events.
 */

static void sep(struct json_out *j)
{
	if (j->need_comma)
		fputc_unlocked(',', j->f);
	j->need_comma = true;
}

static bool top_is_array(const struct json_out *j)
{
	return j->depth && j->depth <= JSON_MAX_DEPTH &&
	       (j->in_array >> (j->depth - 1) & 1);
}

/*
 * Before a value: the comma between array elements. In an object the key
 * wrote the comma; arrays laid out by hand (fputc '[') are not tracked,
 * so their callers keep writing their own.
 */
static void elem_sep(struct json_out *j)
{
	if (top_is_array(j) && j->need_comma)
		fputc_unlocked(',', j->f);
	j->need_comma = true;
}

static void begin(struct json_out *j, char c, bool array)
{
	elem_sep(j);
	fputc_unlocked(c, j->f);
	j->need_comma = false;
	if (j->depth >= JSON_MAX_DEPTH) {
		j->bad = true;
		return;
	}
	if (array)
		j->in_array |= (uint64_t)1 << j->depth;
	else
		j->in_array &= ~((uint64_t)1 << j->depth);
	j->depth++;
}

static void end(struct json_out *j, char c, bool array)
{
	fputc_unlocked(c, j->f);
	j->need_comma = true;
	if (!j->depth || top_is_array(j) != array) {
		j->bad = true;
		return;
	}
	j->depth--;
}

void json_begin_object(struct json_out *j)
{
	begin(j, '{', false);
}

void json_end_object(struct json_out *j)
{
	end(j, '}', false);
}

void json_begin_array(struct json_out *j)
{
	begin(j, '[', true);
}

void json_end_array(struct json_out *j)
{
	end(j, ']', true);
}

bool json_ok(const struct json_out *j)
{
	return !j->bad && !j->depth;
}

void json_null(struct json_out *j)
{
	elem_sep(j);
	fputs_unlocked("null", j->f);
}

bool json_elem_bytes(struct json_out *j, const char *s, size_t len)
{
	elem_sep(j);
	return json_string(j->f, s, len);
}

void json_elem_str(struct json_out *j, const char *s)
{
	json_elem_bytes(j, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at s, or 0 (RFC 3629, no surrogates). */
static size_t utf8_seq(const unsigned char *s, size_t left)
{
	unsigned char c = s[0];
	size_t n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

bool json_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = utf8_seq(p + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

/* printable ASCII that JSON takes as it is */
static bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

bool json_string(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	bool valid = true;
	size_t i = 0, n, run;

	fputc_unlocked('"', f);
	while (i < len) {
		unsigned char c = p[i];

		/* paths are mostly plain: write runs, not bytes */
		for (run = i; run < len && plain(p[run]); run++)
			;
		if (run > i) {
			fwrite_unlocked(p + i, 1, run - i, f);
			i = run;
			continue;
		}
		n = utf8_seq(p + i, len - i);
		if (!n) {
			fputs_unlocked("\\ufffd", f);
			valid = false;
			i++;
			continue;
		}
		if (n > 1) {
			fwrite_unlocked(p + i, 1, n, f);
		} else if (c == '"' || c == '\\') {
			fputc_unlocked('\\', f);
			fputc_unlocked(c, f);
		} else if (c == '\n') {
			fputs_unlocked("\\n", f);
		} else if (c == '\t') {
			fputs_unlocked("\\t", f);
		} else {
			fprintf(f, "\\u%04x", c);
		}
		i += n;
	}
	fputc_unlocked('"', f);
	return valid;
}

/*
 * The comma, the key and the colon into b (cap bytes), when the key needs
 * no escapes and fits: their length, else 0 and nothing done. Every record
 * of --events has a dozen keys, and three stdio calls and a scan for
 * escapes each were a fifth of the collector's time; a number's field
 * goes out in the same write as its key.
 */
static size_t plain_key(struct json_out *j, const char *key, char *b,
			size_t cap)
{
	size_t n = strlen(key), i;

	for (i = 0; i < n && plain((unsigned char)key[i]); i++)
		;
	if (i < n || n + 4 > cap)
		return 0;
	i = 0;
	if (j->need_comma)
		b[i++] = ',';
	j->need_comma = true;
	b[i++] = '"';
	memcpy(b + i, key, n);
	i += n;
	b[i++] = '"';
	b[i++] = ':';
	return i;
}

void json_key(struct json_out *j, const char *key)
{
	char b[64];
	size_t n = plain_key(j, key, b, sizeof(b));

	if (n) {
		fwrite_unlocked(b, 1, n, j->f);
		return;
	}
	sep(j);
	json_string(j->f, key, strlen(key));
	fputc_unlocked(':', j->f);
}

void json_base64(FILE *f, const char *s, size_t len)
{
	unsigned char stackbuf[1024];
	size_t need = 4 * ((len + 2) / 3) + 1;
	unsigned char *out = need <= sizeof(stackbuf) ? stackbuf : malloc(need);

	fputc_unlocked('"', f);
	if (out) {
		int n = EVP_EncodeBlock(out, (const unsigned char *)s,
					(int)len);

		fwrite_unlocked(out, 1, n, f);
		if (out != stackbuf)
			free(out);
	}
	fputc_unlocked('"', f);
}

void json_field_bytes(struct json_out *j, const char *key, const char *s,
		      size_t len)
{
	char b64key[64];

	json_key(j, key);
	if (json_string(j->f, s, len))
		return;
	snprintf(b64key, sizeof(b64key), "%s_b64", key);
	json_key(j, b64key);
	json_base64(j->f, s, len);
}

void json_field_str(struct json_out *j, const char *key, const char *s)
{
	json_field_bytes(j, key, s, strlen(s));
}

/* the decimal digits of v, ending just before end; returns the first */
static char *digits(char *end, uint64_t v)
{
	do
		*--end = '0' + v % 10;
	while (v /= 10);
	return end;
}

/* key and a number laid at [p, end), in one write where plain_key() can */
static void field_number(struct json_out *j, const char *key, const char *p,
			 const char *end)
{
	char b[64 + 24];
	size_t n = plain_key(j, key, b, 64);

	if (!n) {
		json_key(j, key);
		fwrite_unlocked(p, 1, end - p, j->f);
		return;
	}
	memcpy(b + n, p, end - p);
	fwrite_unlocked(b, 1, n + (end - p), j->f);
}

void json_field_u64(struct json_out *j, const char *key, uint64_t v)
{
	char b[24];
	char *p = digits(b + sizeof(b), v);

	field_number(j, key, p, b + sizeof(b));
}

void json_field_mode(struct json_out *j, const char *key, uint64_t mode)
{
	char b[8];

	snprintf(b, sizeof(b), "%04o", (unsigned int)(mode & 07777));
	json_field_str(j, key, b);
}

void json_field_i64(struct json_out *j, const char *key, int64_t v)
{
	char b[24];
	char *p = digits(b + sizeof(b), v < 0 ? -(uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--p = '-';
	field_number(j, key, p, b + sizeof(b));
}

void json_field_bool(struct json_out *j, const char *key, bool v)
{
	json_key(j, key);
	fputs_unlocked(v ? "true" : "false", j->f);
}

void json_field_null(struct json_out *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}

void json_field_array(struct json_out *j, const char *key)
{
	json_key(j, key);
	json_begin_array(j);
}

void json_field_object(struct json_out *j, const char *key)
{
	json_key(j, key);
	json_begin_object(j);
}

void json_elem_u64(struct json_out *j, uint64_t v)
{
	char b[24];
	char *p = digits(b + sizeof(b), v);

	elem_sep(j);
	fwrite_unlocked(p, 1, b + sizeof(b) - p, j->f);
}

void json_elem_i64(struct json_out *j, int64_t v)
{
	char b[24];
	char *p = digits(b + sizeof(b), v < 0 ? -(uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--p = '-';
	elem_sep(j);
	fwrite_unlocked(p, 1, b + sizeof(b) - p, j->f);
}

static void strv_array(FILE *f, const char *s, size_t len, bool b64,
		       bool *valid)
{
	size_t i = 0;
	bool first = true;

	fputc_unlocked('[', f);
	while (i < len) {
		const char *end = memchr(s + i, '\0', len - i);
		size_t n = end ? (size_t)(end - (s + i)) : len - i;

		if (!first)
			fputc_unlocked(',', f);
		first = false;
		if (b64)
			json_base64(f, s + i, n);
		else if (!json_string(f, s + i, n))
			*valid = false;
		i += n + 1;
	}
	fputc_unlocked(']', f);
}

void json_field_strv(struct json_out *j, const char *key, const char *s,
		     size_t len)
{
	char b64key[64];
	bool valid = true;

	json_key(j, key);
	strv_array(j->f, s, len, false, &valid);
	if (valid)
		return;
	snprintf(b64key, sizeof(b64key), "%s_b64", key);
	json_key(j, b64key);
	strv_array(j->f, s, len, true, &valid);
}

void fp_hex(char *out, const unsigned char *d, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = '\0';
}
