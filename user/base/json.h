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

/* deepest nesting json_begin_object/json_begin_array accept */
#define JSON_MAX_DEPTH 64

/*
 * f is written with unlocked stdio: by one thread at a time. Initialise
 * with { .f = f }: the rest starts at zero. As bpftool's json_writer, the
 * writer keeps the nesting: in_array has bit d set when the container at
 * depth d + 1 is an array, whose elements then get their commas. A begin
 * past JSON_MAX_DEPTH, an end with nothing open or an end of the other
 * kind sets bad; json_ok() tells the caller the document is whole.
 */
struct json_out {
	FILE *f;
	bool need_comma;
	bool bad;
	unsigned int depth;
	uint64_t in_array;
};

void json_begin_object(struct json_out *j);
void json_end_object(struct json_out *j);
void json_begin_array(struct json_out *j);
void json_end_array(struct json_out *j);
/* true when every begin was ended, in order, within JSON_MAX_DEPTH */
bool json_ok(const struct json_out *j);
void json_key(struct json_out *j, const char *key);
/* a value after json_key(), or an element of an array */
void json_null(struct json_out *j);
/* array elements; json_elem_bytes returns false if s was not UTF-8 */
bool json_elem_bytes(struct json_out *j, const char *s, size_t len);
void json_elem_str(struct json_out *j, const char *s);
void json_elem_u64(struct json_out *j, uint64_t v);
void json_elem_i64(struct json_out *j, int64_t v);
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
void json_field_null(struct json_out *j, const char *key);
/* "key": [ ... json_end_array() */
void json_field_array(struct json_out *j, const char *key);
/* "key": { ... json_end_object() */
void json_field_object(struct json_out *j, const char *key);
/* NUL-separated list (argv) as an array, with "<key>_b64" if needed */
void json_field_strv(struct json_out *j, const char *key, const char *s,
		     size_t len);

#endif
