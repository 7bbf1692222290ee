// SPDX-License-Identifier: GPL-2.0
/* json.c: lossless JSON strings, "<key>_b64" siblings, argv arrays */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	cr_assert_not_null(m->f);
}

/* closes the stream; the caller frees m->buf */
static char *mem_close(struct mem *m)
{
	cr_assert_eq(fclose(m->f), 0);
	return m->buf;
}

static void check_string(const char *s, size_t len, const char *want,
			 bool want_valid)
{
	struct mem m;
	bool valid;

	mem_open(&m);
	valid = json_string(m.f, s, len);
	mem_close(&m);
	cr_assert_str_eq(m.buf, want);
	cr_assert_eq(m.len, strlen(want));
	cr_assert_eq(valid, want_valid, "json_string returned %d for %s", valid,
		     want);
	cr_assert_eq(json_utf8_valid(s, len), want_valid);
	free(m.buf);
}

#define STR(lit, want, valid) check_string(lit, sizeof(lit) - 1, want, valid)

/* one field in an object: {"<key>":...} */
static void check_bytes_field(const char *key, const char *s, size_t len,
			      const char *want)
{
	struct mem m;
	struct json_out j = { 0 };

	mem_open(&m);
	j.f = m.f;
	json_begin_object(&j);
	json_field_bytes(&j, key, s, len);
	json_end_object(&j);
	mem_close(&m);
	cr_assert_str_eq(m.buf, want);
	free(m.buf);
}

#define BYTES(key, lit, want) check_bytes_field(key, lit, sizeof(lit) - 1, want)

static void check_strv_field(const char *s, size_t len, const char *want)
{
	struct mem m;
	struct json_out j = { 0 };

	mem_open(&m);
	j.f = m.f;
	json_begin_object(&j);
	json_field_strv(&j, "argv", s, len);
	json_end_object(&j);
	mem_close(&m);
	cr_assert_str_eq(m.buf, want);
	free(m.buf);
}

#define STRV(lit, want) check_strv_field(lit, sizeof(lit) - 1, want)

static void check_base64(const char *s, size_t len, const char *want)
{
	struct mem m;

	mem_open(&m);
	json_base64(m.f, s, len);
	mem_close(&m);
	cr_assert_str_eq(m.buf, want);
	free(m.buf);
}

/* reference RFC 4648 encoder, for long inputs */
static char *ref_base64(const unsigned char *s, size_t len)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc(4 * ((len + 2) / 3) + 3), *p = out;
	size_t i;

	*p++ = '"';
	for (i = 0; i + 2 < len; i += 3) {
		*p++ = tab[s[i] >> 2];
		*p++ = tab[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
		*p++ = tab[((s[i + 1] & 15) << 2) | (s[i + 2] >> 6)];
		*p++ = tab[s[i + 2] & 63];
	}
	if (len - i == 1) {
		*p++ = tab[s[i] >> 2];
		*p++ = tab[(s[i] & 3) << 4];
		*p++ = '=';
		*p++ = '=';
	} else if (len - i == 2) {
		*p++ = tab[s[i] >> 2];
		*p++ = tab[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
		*p++ = tab[(s[i + 1] & 15) << 2];
		*p++ = '=';
	}
	*p++ = '"';
	*p = '\0';
	return out;
}

Test(json, ascii_passthrough)
{
	STR("", "\"\"", true);
	STR("hello world", "\"hello world\"", true);
	STR("/usr/bin/env ~!@#$%^&*()", "\"/usr/bin/env ~!@#$%^&*()\"", true);
}

Test(json, multibyte_utf8_passthrough)
{
	STR("h\xc3\xa9llo", "\"h\xc3\xa9llo\"", true); /* 2 bytes: e-acute */
	STR("\xe2\x82\xac", "\"\xe2\x82\xac\"", true); /* 3 bytes: euro */
	STR("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"", true); /* 4: emoji */
	STR("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"", true); /* U+10FFFF */
	STR("\xef\xbf\xbd", "\"\xef\xbf\xbd\"", true); /* U+FFFD itself */
	STR("\xed\x9f\xbf", "\"\xed\x9f\xbf\"", true); /* U+D7FF */
	STR("\xee\x80\x80", "\"\xee\x80\x80\"", true); /* U+E000 */
}

Test(json, control_characters_escaped)
{
	STR("a\nb", "\"a\\nb\"", true);
	STR("a\tb", "\"a\\tb\"", true);
	STR("\x01", "\"\\u0001\"", true);
	STR("\x7f", "\"\\u007f\"", true);
	STR("\x1b[0m", "\"\\u001b[0m\"", true);
	STR("\r", "\"\\u000d\"", true);
	STR("\x1f", "\"\\u001f\"", true);
	/* an embedded NUL is a byte like any other */
	check_string("a\0b", 3, "\"a\\u0000b\"", true);
}

Test(json, quote_and_backslash)
{
	STR("\"", "\"\\\"\"", true);
	STR("\\", "\"\\\\\"", true);
	STR("say \"hi\" \\o/", "\"say \\\"hi\\\" \\\\o/\"", true);
}

Test(json, invalid_utf8_replaced)
{
	STR("\xff", "\"\\ufffd\"", false);
	STR("a\xff"
	    "b",
	    "\"a\\ufffdb\"", false);
	/* overlong "/": two invalid bytes */
	STR("\xc0\xaf", "\"\\ufffd\\ufffd\"", false);
	/* overlong 3-byte NUL */
	STR("\xe0\x80\x80", "\"\\ufffd\\ufffd\\ufffd\"", false);
	/* UTF-16 surrogate U+D800 */
	STR("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", false);
	/* above U+10FFFF */
	STR("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", false);
	/* truncated sequence at the end, and in the middle */
	STR("a\xe2\x82", "\"a\\ufffd\\ufffd\"", false);
	STR("\xe2\x82z", "\"\\ufffd\\ufffdz\"", false);
	/* lone continuation byte */
	STR("\x80", "\"\\ufffd\"", false);
	/* valid parts around an invalid byte are kept */
	STR("\xc3\xa9\xff\xc3\xa9", "\"\xc3\xa9\\ufffd\xc3\xa9\"", false);
}

Test(json, base64_exact)
{
	check_base64("", 0, "\"\"");
	check_base64("\xff", 1, "\"/w==\"");
	check_base64("ok", 2, "\"b2s=\"");
	check_base64("a\xff"
		     "b",
		     3, "\"Yf9i\"");
	check_base64("\xed\xa0\x80", 3, "\"7aCA\"");
	check_base64("\xfe\n", 2, "\"/go=\"");
}

Test(json, base64_long_input)
{
	/* past json_base64's 1 KiB stack buffer */
	size_t len = 5000, i;
	unsigned char *s = malloc(len);
	struct mem m;
	char *want;

	for (i = 0; i < len; i++)
		s[i] = (unsigned char)(i * 7 + 3);
	want = ref_base64(s, len);
	mem_open(&m);
	json_base64(m.f, (const char *)s, len);
	mem_close(&m);
	cr_assert_str_eq(m.buf, want);
	free(m.buf);
	free(want);
	free(s);
}

Test(json, field_bytes_valid_has_no_b64)
{
	BYTES("path", "/tmp/x", "{\"path\":\"/tmp/x\"}");
	BYTES("path", "/tmp/\xc3\xa9\n", "{\"path\":\"/tmp/\xc3\xa9\\n\"}");
	BYTES("path", "", "{\"path\":\"\"}");
}

Test(json, field_bytes_invalid_adds_b64)
{
	BYTES("path", "\xff", "{\"path\":\"\\ufffd\",\"path_b64\":\"/w==\"}");
	BYTES("path",
	      "a\xff"
	      "b",
	      "{\"path\":\"a\\ufffdb\",\"path_b64\":\"Yf9i\"}");
	BYTES("p", "\xc0\xaf", "{\"p\":\"\\ufffd\\ufffd\",\"p_b64\":\"wK8=\"}");
	BYTES("p", "\xed\xa0\x80",
	      "{\"p\":\"\\ufffd\\ufffd\\ufffd\",\"p_b64\":\"7aCA\"}");
	BYTES("p", "a\xe2\x82",
	      "{\"p\":\"a\\ufffd\\ufffd\",\"p_b64\":\"YeKC\"}");
	BYTES("p", "\xfe\n", "{\"p\":\"\\ufffd\\n\",\"p_b64\":\"/go=\"}");
}

Test(json, fields_and_commas)
{
	struct mem m;
	struct json_out j = { 0 };

	mem_open(&m);
	j.f = m.f;
	json_begin_object(&j);
	json_field_str(&j, "s", "v");
	json_field_u64(&j, "u", 18446744073709551615ULL);
	json_field_i64(&j, "i", -9223372036854775807LL - 1);
	json_field_bool(&j, "t", true);
	json_field_bool(&j, "f", false);
	json_field_bytes(&j, "b", "x\xffy", 3);
	json_field_u64(&j, "after", 0);
	json_end_object(&j);
	mem_close(&m);
	cr_assert_str_eq(m.buf, "{\"s\":\"v\",\"u\":18446744073709551615,"
				"\"i\":-9223372036854775808,\"t\":true,"
				"\"f\":false,\"b\":\"x\\ufffdy\","
				"\"b_b64\":\"eP95\",\"after\":0}");
	free(m.buf);
}

/* numbers written by hand, keys in one write: each edge of both */
Test(json, numbers_and_keys)
{
	static const char long_key[] = "k123456789012345678901234567890"
				       "12345678901234567890123456789";
	static const char long_key_1[] = "k12345678901234567890123456789"
					 "0123456789012345678901234567890";
	struct mem m;
	struct json_out j = { 0 };

	mem_open(&m);
	j.f = m.f;
	json_begin_object(&j);
	json_field_u64(&j, "a", 0);
	json_field_u64(&j, "b", 9);
	json_field_u64(&j, "c", 10);
	json_field_i64(&j, "d", -1);
	json_field_i64(&j, "e", 0);
	json_field_i64(&j, "f", 9223372036854775807LL);
	json_field_i64(&j, "q\"\n", -10);
	/* 60 bytes fill the key buffer; 61 take the slow path */
	json_field_u64(&j, long_key, 1000);
	json_field_u64(&j, long_key_1, 1);
	json_field_u64(&j, "", 7);
	json_end_object(&j);
	mem_close(&m);
	cr_assert_str_eq(m.buf, "{\"a\":0,\"b\":9,\"c\":10,\"d\":-1,"
				"\"e\":0,\"f\":9223372036854775807,"
				"\"q\\\"\\n\":-10,\"k123456789012345678901234"
				"56789012345678901234567890123456789\":1000,"
				"\"k12345678901234567890123456789012345678901"
				"2345678901234567890\":1,"
				"\"\":7}");
	free(m.buf);
}

Test(json, strv_valid)
{
	STRV("ls\0-l\0", "{\"argv\":[\"ls\",\"-l\"]}");
	STRV("sh\0-c\0echo \"hi\"\n\0",
	     "{\"argv\":[\"sh\",\"-c\",\"echo \\\"hi\\\"\\n\"]}");
	STRV("caf\xc3\xa9\0", "{\"argv\":[\"caf\xc3\xa9\"]}");
	/* a cut argv may lack its final NUL */
	STRV("a\0bc", "{\"argv\":[\"a\",\"bc\"]}");
}

Test(json, strv_empty_args)
{
	STRV("", "{\"argv\":[]}");
	STRV("\0", "{\"argv\":[\"\"]}");
	STRV("a\0\0b\0", "{\"argv\":[\"a\",\"\",\"b\"]}");
	STRV("\0\0", "{\"argv\":[\"\",\"\"]}");
}

Test(json, strv_invalid_adds_b64_array)
{
	STRV("ok\0\xff\0", "{\"argv\":[\"ok\",\"\\ufffd\"],"
			   "\"argv_b64\":[\"b2s=\",\"/w==\"]}");
	STRV("x\xffy\0\0a\xff"
	     "b\0",
	     "{\"argv\":[\"x\\ufffdy\",\"\",\"a\\ufffdb\"],"
	     "\"argv_b64\":[\"eP95\",\"\",\"Yf9i\"]}");
}

/*
 * Random bytes: output never holds a raw control byte, an invalid input
 * always shows U+FFFD, and the b64 sibling is always the exact input.
 */
Test(json, random_bytes_lossless)
{
	unsigned char s[64];
	unsigned int seed = 12345;
	int iter;

	for (iter = 0; iter < 20000; iter++) {
		size_t len = rand_r(&seed) % sizeof(s), i;
		bool valid;
		struct mem m;

		for (i = 0; i < len; i++)
			s[i] = rand_r(&seed) & 0xff;
		if (iter % 2) /* make valid UTF-8 likely */
			for (i = 0; i < len; i++)
				s[i] &= 0x7f;
		mem_open(&m);
		valid = json_string(m.f, (const char *)s, len);
		mem_close(&m);
		cr_assert_eq(valid, json_utf8_valid((const char *)s, len));
		cr_assert_eq(m.buf[0], '"');
		cr_assert_eq(m.buf[m.len - 1], '"');
		for (i = 0; i < m.len; i++) {
			unsigned char c = m.buf[i];

			cr_assert(c >= 0x20 && c != 0x7f,
				  "raw byte 0x%02x in output", c);
		}
		if (!valid)
			cr_assert_not_null(strstr(m.buf, "\\ufffd"));
		free(m.buf);
		if (!valid) {
			char *want = ref_base64(s, len);

			mem_open(&m);
			json_base64(m.f, (const char *)s, len);
			mem_close(&m);
			cr_assert_str_eq(m.buf, want);
			free(m.buf);
			free(want);
		}
	}
}

/* arrays keep their own commas, nested at any level, with null and numbers */
Test(json, arrays_and_null)
{
	struct mem m;
	struct json_out j = { 0 };

	mem_open(&m);
	j.f = m.f;
	json_begin_object(&j);
	json_field_array(&j, "e");
	json_end_array(&j);
	json_field_array(&j, "a");
	json_elem_u64(&j, 1);
	json_elem_i64(&j, -2);
	json_elem_str(&j, "s");
	json_null(&j);
	cr_assert_not(json_elem_bytes(&j, "\xff", 1));
	json_begin_object(&j);
	json_field_null(&j, "n");
	json_field_array(&j, "in");
	json_begin_array(&j);
	json_end_array(&j);
	json_begin_array(&j);
	json_elem_u64(&j, 0);
	json_end_array(&j);
	json_end_array(&j);
	json_end_object(&j);
	json_begin_object(&j);
	json_end_object(&j);
	json_end_array(&j);
	json_field_object(&j, "o");
	json_field_u64(&j, "x", 3);
	json_end_object(&j);
	json_field_null(&j, "z");
	json_end_object(&j);
	cr_assert(json_ok(&j));
	mem_close(&m);
	cr_assert_str_eq(m.buf, "{\"e\":[],\"a\":[1,-2,\"s\",null,\"\\ufffd\","
				"{\"n\":null,\"in\":[[],[0]]},{}],"
				"\"o\":{\"x\":3},\"z\":null}");
	free(m.buf);
}

/* an unclosed, an unopened or a crossed container is not a whole document */
Test(json, depth_check)
{
	struct mem m;
	struct json_out j = { 0 };
	int i;

	mem_open(&m);
	j.f = m.f;
	json_begin_object(&j);
	cr_assert_not(json_ok(&j), "an open object is not whole");
	json_end_object(&j);
	cr_assert(json_ok(&j));
	json_end_object(&j);
	cr_assert_not(json_ok(&j), "an end with nothing open");

	j = (struct json_out){ .f = m.f };
	json_begin_array(&j);
	json_end_object(&j);
	cr_assert_not(json_ok(&j), "an array ended as an object");

	j = (struct json_out){ .f = m.f };
	for (i = 0; i < JSON_MAX_DEPTH; i++)
		json_begin_array(&j);
	for (i = 0; i < JSON_MAX_DEPTH; i++)
		json_end_array(&j);
	cr_assert(json_ok(&j), "JSON_MAX_DEPTH levels fit");
	for (i = 0; i <= JSON_MAX_DEPTH; i++)
		json_begin_array(&j);
	cr_assert_not(json_ok(&j), "one level past JSON_MAX_DEPTH");
	mem_close(&m);
	free(m.buf);
}
