/* SPDX-License-Identifier: GPL-2.0 */
/* Byte-string keys to pointers; open addressing, grows by doubling. */
#ifndef FP_HASHMAP_H
#define FP_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct fp_hslot {
	char *key; /* owned copy, NUL-terminated */
	size_t len;
	uint64_t hash;
	void *val;
};

struct fp_hashmap {
	struct fp_hslot *slots;
	size_t cap; /* power of two */
	size_t n;
};

void *fp_hashmap_get(const struct fp_hashmap *m, const void *key, size_t len);

/*
 * The hash of a key, fed a piece at a time: a loop over the prefixes of
 * one path feeds each piece once instead of hashing each prefix again,
 * which is quadratic in the depth of the path. fp_hash_value() of a state
 * fed the bytes of key, in any pieces, is the hash fp_hashmap_get() takes
 * of key. Eight bytes a step: a 4 KiB path hashes in under a microsecond.
 */
struct fp_hash {
	uint64_t h;
	uint64_t tail; /* the bytes of an unfinished word */
	size_t len;
};
void fp_hash_init(struct fp_hash *st);
void fp_hash_feed(struct fp_hash *st, const void *bytes, size_t len);
uint64_t fp_hash_value(const struct fp_hash *st);
/*
 * The prefixes of one key looked up shortest first, each hashed from the
 * last: init with fp_prefix_init(), then fp_hashmap_get_prefix() with
 * growing lengths feeds only the bytes added since the last.
 */
struct fp_prefix {
	struct fp_hash st;
	size_t len;
};
void fp_prefix_init(struct fp_prefix *pre);
void *fp_hashmap_get_prefix(const struct fp_hashmap *m, struct fp_prefix *pre,
			    const char *key, size_t len);
/* fp_hashmap_get() of a key whose hash is already known. */
void *fp_hashmap_get_hashed(const struct fp_hashmap *m, const void *key,
			    size_t len, uint64_t hash);
/* Returns the slot for key, inserting an empty one; NULL on ENOMEM. */
struct fp_hslot *fp_hashmap_slot(struct fp_hashmap *m, const void *key,
				 size_t len);
/* Call free_val on every value, then release the map. */
void fp_hashmap_free(struct fp_hashmap *m, void (*free_val)(void *));

#endif
