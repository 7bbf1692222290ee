// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

#define HASH_MUL 0x9e3779b97f4a7c15ULL

static uint64_t mix_word(uint64_t h, uint64_t w)
{
	h = (h ^ w) * HASH_MUL;
	return h ^ (h >> 29);
}

void fp_hash_init(struct fp_hash *st)
{
	st->h = 0xcbf29ce484222325ULL;
	st->tail = 0;
	st->len = 0;
}

/* One byte into the unfinished word; a word full is mixed in. */
static void feed_byte(struct fp_hash *st, unsigned char c)
{
	st->tail |= (uint64_t)c << (8 * (st->len & 7));
	if (!(++st->len & 7)) {
		st->h = mix_word(st->h, st->tail);
		st->tail = 0;
	}
}

void fp_hash_feed(struct fp_hash *st, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;
	uint64_t w;

	/* finish the word begun by the last piece */
	for (; len && (st->len & 7); len--)
		feed_byte(st, *p++);
	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, 8);
		/* the words as the bytes fed one by one would make them */
		st->h = mix_word(st->h, le64toh(w));
		st->len += 8;
	}
	/*
	 * The rest begins a word afresh (the loops above leave st->len a
	 * multiple of 8 or nothing to feed), whose tail is 0: laid as
	 * feed_byte() would lay it, in one go
	 */
	if (len) {
		unsigned char b[8] = { 0 };

		memcpy(b, p, len);
		memcpy(&w, b, 8);
		st->tail = le64toh(w);
		st->len += len;
	}
}

uint64_t fp_hash_value(const struct fp_hash *st)
{
	uint64_t h = mix_word(st->h, st->tail ^ ((uint64_t)st->len << 56));

	/* murmur3's finaliser: the table index is the low bits */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static uint64_t hash_of(const void *key, size_t len)
{
	struct fp_hash st;

	fp_hash_init(&st);
	fp_hash_feed(&st, key, len);
	return fp_hash_value(&st);
}

static struct fp_hslot *lookup(struct fp_hslot *slots, size_t cap,
			       const void *key, size_t len, uint64_t h)
{
	size_t i = h & (cap - 1);

	while (slots[i].key) {
		if (slots[i].hash == h && slots[i].len == len &&
		    !memcmp(slots[i].key, key, len))
			return &slots[i];
		i = (i + 1) & (cap - 1);
	}
	return &slots[i];
}

void *fp_hashmap_get_hashed(const struct fp_hashmap *m, const void *key,
			    size_t len, uint64_t hash)
{
	struct fp_hslot *s;

	if (!m->cap)
		return NULL;
	s = lookup(m->slots, m->cap, key, len, hash);
	return s->key ? s->val : NULL;
}

void fp_prefix_init(struct fp_prefix *pre)
{
	fp_hash_init(&pre->st);
	pre->len = 0;
}

void *fp_hashmap_get_prefix(const struct fp_hashmap *m, struct fp_prefix *pre,
			    const char *key, size_t len)
{
	fp_hash_feed(&pre->st, key + pre->len, len - pre->len);
	pre->len = len;
	return fp_hashmap_get_hashed(m, key, len, fp_hash_value(&pre->st));
}

void *fp_hashmap_get(const struct fp_hashmap *m, const void *key, size_t len)
{
	return m->cap ? fp_hashmap_get_hashed(m, key, len, hash_of(key, len)) :
			NULL;
}

static int grow(struct fp_hashmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i;
	struct fp_hslot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -1;
	for (i = 0; i < m->cap; i++) {
		struct fp_hslot *o = &m->slots[i];

		if (o->key)
			*lookup(ns, ncap, o->key, o->len, o->hash) = *o;
	}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

struct fp_hslot *fp_hashmap_slot(struct fp_hashmap *m, const void *key,
				 size_t len)
{
	uint64_t h = hash_of(key, len);
	struct fp_hslot *s;

	if ((m->n + 1) * 2 > m->cap && grow(m))
		return NULL;
	s = lookup(m->slots, m->cap, key, len, h);
	if (s->key)
		return s;
	s->key = malloc(len + 1);
	if (!s->key)
		return NULL;
	if (len)
		memcpy(s->key, key, len);
	s->key[len] = '\0';
	s->len = len;
	s->hash = h;
	s->val = NULL;
	m->n++;
	return s;
}

void fp_hashmap_free(struct fp_hashmap *m, void (*free_val)(void *))
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		if (!m->slots[i].key)
			continue;
		if (free_val)
			free_val(m->slots[i].val);
		free(m->slots[i].key);
	}
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
