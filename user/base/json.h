/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal JSON output. Byte strings are written losslessly: valid UTF-8
 * goes out as is (control characters escaped), and a string that is not
 * valid UTF-8 gets U+FFFD in its place plus a sibling "<key>_b64" field
 * holding the exact bytes in base64.
 */
#ifndef FP_JSON_H
#define FP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* f is written with unlocked stdio: by one thread at a time */
struct json_out {
	FILE *f;
	bool need_comma;
};

void json_begin_object(struct json_out *j);
void json_end_object(struct json_out *j);
void json_key(struct json_out *j, const char *key);
/* writes a JSON string; returns false if s was not valid UTF-8 */
bool json_string(FILE *f, const char *s, size_t len);
void json_base64(FILE *f, const char *s, size_t len);
/* n bytes as 2n lower-case hex digits and a NUL: out holds 2n + 1 */
void fp_hex(char *out, const unsigned char *d, size_t n);
bool json_utf8_valid(const char *s, size_t len);

void json_field_bytes(struct json_out *j, const char *key, const char *s,
		      size_t len);
void json_field_str(struct json_out *j, const char *key, const char *s);
void json_field_u64(struct json_out *j, const char *key, uint64_t v);
/* permission bits as an octal string, "4755": a decimal hides the set-id */
void json_field_mode(struct json_out *j, const char *key, uint64_t mode);
void json_field_i64(struct json_out *j, const char *key, int64_t v);
void json_field_bool(struct json_out *j, const char *key, bool v);
/* NUL-separated list (argv) as an array, with "<key>_b64" if needed */
void json_field_strv(struct json_out *j, const char *key, const char *s,
		     size_t len);

#endif
