/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader for footprint's own documents (shape files). The
 * input is untrusted: nesting is bounded, strings are byte strings (\u
 * escapes become UTF-8, NULs allowed), and numbers are kept as text and
 * read back only as integers.
 */
#ifndef FP_JSONIN_H
#define FP_JSONIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FP_JSONIN_DEPTH 32
/* values in one document: bounds the memory an input can make us use */
#define FP_JSONIN_VALUES (1 << 21)

enum fp_jv_type {
	FP_JV_NULL,
	FP_JV_BOOL,
	FP_JV_NUM,
	FP_JV_STR,
	FP_JV_ARR,
	FP_JV_OBJ
};

struct fp_jv {
	enum fp_jv_type type;
	bool b;
	char *s; /* string bytes or number text, NUL-terminated */
	size_t len;
	struct fp_jv *items; /* array elements or object values */
	char **keys; /* object keys (NUL-terminated, may hold NULs) */
	size_t n;
};

/* Parse len bytes into v. 0, or -1 with a message naming the offset. */
int fp_json_parse(const char *in, size_t len, struct fp_jv *v, char *err,
		  size_t errlen);
/* The same with another bound on the values (footprint's own receipts,
 * whose size the run's budgets bound) */
int fp_json_parse_max(const char *in, size_t len, struct fp_jv *v,
		      size_t max_values, char *err, size_t errlen);
void fp_jv_free(struct fp_jv *v);

/* the value of key in an object, NULL if v is not one or lacks it */
const struct fp_jv *fp_jv_get(const struct fp_jv *v, const char *key);
/* typed lookups: a missing or mistyped value gives the fallback */
const char *fp_jv_str(const struct fp_jv *v, const char *key);
int64_t fp_jv_int(const struct fp_jv *v, const char *key, int64_t fallback);
int fp_jv_bool(const struct fp_jv *v, const char *key); /* -1 if absent */
/* x itself as an integer: fallback if it is none (or NULL) */
int64_t fp_jv_as_int(const struct fp_jv *x, int64_t fallback);

#endif
