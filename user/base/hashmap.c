// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

uint64_t fp_hash_extend(uint64_t h, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t fnv1a(const void *key, size_t len)
{
	return fp_hash_extend(FP_HASH_INIT, key, len);
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

void *fp_hashmap_get(const struct fp_hashmap *m, const void *key, size_t len)
{
	return m->cap ? fp_hashmap_get_hashed(m, key, len, fnv1a(key, len)) :
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
	uint64_t h = fnv1a(key, len);
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
