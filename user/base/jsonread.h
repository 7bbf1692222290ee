/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader for footprint's own files (receipts, locks): the
 * whole text becomes a tree. Strings are bytes (\u escapes become UTF-8;
 * a lone surrogate is refused). Depth and size are bounded by the caller's
 * input size and FP_JSON_MAX_DEPTH.
 */
#ifndef FP_JSONREAD_H
#define FP_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>

#define FP_JSON_MAX_DEPTH 64

enum fp_jtype { FP_J_NULL, FP_J_BOOL, FP_J_NUM, FP_J_STR, FP_J_ARR, FP_J_OBJ };

struct fp_jval {
	enum fp_jtype type;
	bool b;
	double num;
	char *s; /* string (NUL-terminated, may hold NULs: see len) */
	size_t len;
	struct fp_jval *items; /* array items or object values */
	char **keys; /* object keys */
	size_t n;
};

/* 0, or -EINVAL with the byte offset of the error in *at; -ENOMEM */
int fp_json_parse(const char *text, size_t len, struct fp_jval *out,
		  size_t *at);
void fp_json_free(struct fp_jval *v);
/* the member key of an object, or NULL (also when v is no object) */
const struct fp_jval *fp_json_get(const struct fp_jval *v, const char *key);
/* a string member, or NULL */
const char *fp_json_str(const struct fp_jval *v, const char *key);

#endif
