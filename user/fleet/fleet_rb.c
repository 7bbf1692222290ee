// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "fleet_rb.h"

void fp_rb_reset(struct fp_rb *b)
{
	b->len = 0;
	b->err = false;
}

void fp_rb_free(struct fp_rb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static unsigned char *room(struct fp_rb *b, size_t n)
{
	size_t cap;
	unsigned char *p;

	if (b->err)
		return NULL;
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = true;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	p = b->p + b->len;
	b->len += n;
	return p;
}

/* little-endian, n bytes of v */
static void put_le(struct fp_rb *b, uint64_t v, size_t n)
{
	unsigned char *p = room(b, n);
	size_t i;

	if (!p)
		return;
	for (i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

void fp_rb_u8(struct fp_rb *b, uint8_t v)
{
	put_le(b, v, 1);
}

void fp_rb_u16(struct fp_rb *b, uint16_t v)
{
	put_le(b, v, 2);
}

void fp_rb_u32(struct fp_rb *b, uint32_t v)
{
	put_le(b, v, 4);
}

void fp_rb_u64(struct fp_rb *b, uint64_t v)
{
	put_le(b, v, 8);
}

void fp_rb_i32(struct fp_rb *b, int32_t v)
{
	put_le(b, (uint32_t)v, 4);
}

void fp_rb_i64(struct fp_rb *b, int64_t v)
{
	put_le(b, (uint64_t)v, 8);
}

void fp_rb_varint(struct fp_rb *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	unsigned char *p;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	p = room(b, n);
	if (p)
		memcpy(p, tmp, n);
}

void fp_rb_bytes(struct fp_rb *b, const void *s, size_t len)
{
	unsigned char *p;

	fp_rb_varint(b, len);
	p = len ? room(b, len) : NULL;
	if (p)
		memcpy(p, s, len);
}

void fp_rb_str(struct fp_rb *b, const char *s)
{
	fp_rb_bytes(b, s ? s : "", s ? strlen(s) : 0);
}

void fp_rb_strv(struct fp_rb *b, const char *s, size_t len)
{
	size_t i, n = 0, l;

	for (i = 0; s && i < len; i += l + 1, n++)
		l = strnlen(s + i, len - i);
	fp_rb_varint(b, n);
	for (i = 0; s && i < len; i += l + 1) {
		l = strnlen(s + i, len - i);
		fp_rb_bytes(b, s + i, l);
	}
}

static const unsigned char *take(struct fp_rbin *r, size_t n)
{
	const unsigned char *p;

	if (r->err || r->len - r->pos < n) {
		r->err = true;
		return NULL;
	}
	p = r->p + r->pos;
	r->pos += n;
	return p;
}

static uint64_t get_le(struct fp_rbin *r, size_t n)
{
	const unsigned char *p = take(r, n);
	uint64_t v = 0;

	while (p && n--)
		v = v << 8 | p[n];
	return v;
}

uint8_t fp_rbin_u8(struct fp_rbin *r)
{
	return (uint8_t)get_le(r, 1);
}

uint32_t fp_rbin_u32(struct fp_rbin *r)
{
	return (uint32_t)get_le(r, 4);
}

uint64_t fp_rbin_u64(struct fp_rbin *r)
{
	return get_le(r, 8);
}

uint64_t fp_rbin_varint(struct fp_rbin *r)
{
	const unsigned char *p;
	uint64_t v = 0;
	unsigned int shift = 0;

	do {
		p = take(r, 1);
		if (!p || shift > 63)
			return r->err = true, 0;
		v |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
	} while (*p & 0x80);
	return v;
}

const char *fp_rbin_str(struct fp_rbin *r, size_t *len)
{
	uint64_t n = fp_rbin_varint(r);
	const unsigned char *p = r->err || n > r->len ? NULL : take(r, n);

	*len = p ? n : 0;
	return p ? (const char *)p : "";
}
