/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ClickHouse's RowBinary format: the rows footprint inserts and the rows
 * its queries read back. Little-endian integers of the column's width,
 * a String as a LEB128 length and its bytes (any bytes: paths stay
 * lossless), an Array as a LEB128 count and its items, a DateTime as a
 * UInt32 of seconds since the epoch, an Enum8 as its Int8 value.
 */
#ifndef FP_FLEET_RB_H
#define FP_FLEET_RB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* rows being encoded; err once an allocation failed (sticky) */
struct fp_rb {
	unsigned char *p;
	size_t len, cap;
	bool err;
};

void fp_rb_reset(struct fp_rb *b);
void fp_rb_free(struct fp_rb *b);
void fp_rb_u8(struct fp_rb *b, uint8_t v);
void fp_rb_u16(struct fp_rb *b, uint16_t v);
void fp_rb_u32(struct fp_rb *b, uint32_t v);
void fp_rb_u64(struct fp_rb *b, uint64_t v);
void fp_rb_i32(struct fp_rb *b, int32_t v);
void fp_rb_i64(struct fp_rb *b, int64_t v);
void fp_rb_varint(struct fp_rb *b, uint64_t v);
void fp_rb_bytes(struct fp_rb *b, const void *s, size_t len);
/* s may be NULL: the empty string */
void fp_rb_str(struct fp_rb *b, const char *s);
/* an Array(String) of the NUL-separated items of s (argv's form) */
void fp_rb_strv(struct fp_rb *b, const char *s, size_t len);

/* rows being read: err once a value did not fit (sticky) */
struct fp_rbin {
	const unsigned char *p;
	size_t len, pos;
	bool err;
};

uint8_t fp_rbin_u8(struct fp_rbin *r);
uint32_t fp_rbin_u32(struct fp_rbin *r);
uint64_t fp_rbin_u64(struct fp_rbin *r);
uint64_t fp_rbin_varint(struct fp_rbin *r);
/* a String, pointing into the input (not NUL-terminated) */
const char *fp_rbin_str(struct fp_rbin *r, size_t *len);
/* nothing is left to read */
static inline bool fp_rbin_done(const struct fp_rbin *r)
{
	return r->err || r->pos >= r->len;
}

#endif
