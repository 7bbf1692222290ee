/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON documents attest writes (an in-toto link, a statement, a DSSE
 * envelope), built as a tree and written two ways: as securesystemslib's
 * canonical JSON, the bytes in-toto signs and checks, and as ordinary
 * JSON a parser reads back to the same values. Keys are sorted the same
 * way in both (by bytes, which for UTF-8 is by code point, as Python
 * sorts them). Strings must be valid UTF-8 without NUL: the caller
 * checks, since what to do with one that is not is its decision.
 */
#ifndef FP_ATTEST_DOC_H
#define FP_ATTEST_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum fp_ad_type {
	FP_AD_NULL,
	FP_AD_BOOL,
	FP_AD_INT,
	FP_AD_STR,
	FP_AD_ARR,
	FP_AD_OBJ
};

struct fp_ad {
	enum fp_ad_type type;
	bool b;
	int64_t i;
	char *s; /* string bytes, NUL-terminated */
	size_t len;
	struct fp_ad **kids; /* array items or object values */
	char **keys; /* object keys */
	size_t *klens;
	size_t n, cap;
	bool sorted;
};

/* A growing byte buffer; err once an allocation failed. */
struct fp_abuf {
	char *p;
	size_t len, cap;
	bool err;
};

void fp_abuf_put(struct fp_abuf *b, const void *s, size_t n);
void fp_abuf_free(struct fp_abuf *b);

/* New values; NULL when memory runs out. */
struct fp_ad *fp_ad_obj(void);
struct fp_ad *fp_ad_arr(void);
struct fp_ad *fp_ad_str(const char *s, size_t len);
struct fp_ad *fp_ad_cstr(const char *s);
struct fp_ad *fp_ad_int(int64_t i);
struct fp_ad *fp_ad_bool(bool b);
struct fp_ad *fp_ad_null(void);
/* Add v (taken, freed on failure; NULL is a failure) to an object under
 * key, or to the end of an array. 0 or -ENOMEM. */
int fp_ad_put(struct fp_ad *obj, const char *key, size_t klen, struct fp_ad *v);
int fp_ad_cput(struct fp_ad *obj, const char *key, struct fp_ad *v);
int fp_ad_push(struct fp_ad *arr, struct fp_ad *v);
void fp_ad_free(struct fp_ad *v);

/* securesystemslib's encode_canonical: no whitespace, sorted keys, only
 * '"' and '\' escaped in strings. Into b (check b->err). */
void fp_ad_canonical(struct fp_ad *v, struct fp_abuf *b);
/* Ordinary JSON with sorted keys: control characters escaped; indented
 * by indent spaces per level (in-toto writes 1), or compact for -1. */
void fp_ad_json(struct fp_ad *v, struct fp_abuf *b, int indent);

/* is s valid UTF-8 without a NUL, as in-toto's text fields must be? */
bool fp_ad_text_ok(const char *s, size_t len);
/* standard base64 (RFC 4648, with padding) of n bytes into b */
void fp_abuf_base64(struct fp_abuf *b, const unsigned char *d, size_t n);

#endif
