// SPDX-License-Identifier: GPL-2.0
/* fp_hashmap and its piecewise hash */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

static uint64_t whole(const char *p, size_t n)
{
	struct fp_hash st;

	fp_hash_init(&st);
	fp_hash_feed(&st, p, n);
	return fp_hash_value(&st);
}

/* any split into pieces gives the hash of the whole, at any alignment */
Test(hashmap, hash_fed_in_pieces_is_the_hash_of_the_whole)
{
	static char buf[4096 + 8];
	unsigned int seed = 7;
	size_t n, at, k;
	int t;

	for (k = 0; k < sizeof(buf); k++)
		buf[k] = (char)rand_r(&seed);
	for (t = 0; t < 5000; t++) {
		struct fp_hash st;
		const char *p = buf + rand_r(&seed) % 8;

		n = rand_r(&seed) % 4096;
		fp_hash_init(&st);
		for (at = 0; at < n; at += k) {
			k = 1 + rand_r(&seed) % 20;
			if (k > n - at)
				k = n - at;
			fp_hash_feed(&st, p + at, k);
		}
		cr_assert_eq(fp_hash_value(&st), whole(p, n), "length %zu", n);
	}
}

/*
 * The values themselves, as a byte at a time made them before words were
 * fed whole: what the tables hold, and the order they are walked in,
 * must not move with how the hash is computed
 */
Test(hashmap, hash_values_are_stable)
{
	static const struct {
		const char *key;
		size_t len;
		uint64_t hash;
	} known[] = {
		{ "", 0, 0xbdabe564801db1dfULL },
		{ "a", 1, 0x1487d246b464969dULL },
		{ "abcdefg", 7, 0x6eef50ca44624451ULL },
		{ "abcdefgh", 8, 0x7bb4987a050d1bf8ULL },
		{ "abcdefghi", 9, 0x90b389defaff4714ULL },
		{ "/tmp/x/y.txt", 12, 0x8bfdd823e7767144ULL },
		/* a pid, 12345, as the process table keys it */
		{ "\x39\x30\0\0", 4, 0xe8b98a14107ca58eULL },
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		cr_assert_eq(whole(known[i].key, known[i].len), known[i].hash,
			     "key %zu", i);
}

/* the table index is the low bits: every byte of a key must reach them */
Test(hashmap, low_bits_spread_over_similar_paths)
{
	static unsigned char seen[1 << 16];
	char path[64];
	int i, distinct = 0;

	for (i = 0; i < 10000; i++) {
		uint64_t h;

		snprintf(path, sizeof(path), "/home/user/src/project/f%05d.c",
			 i);
		h = whole(path, strlen(path)) & 0xffff;
		distinct += !seen[h];
		seen[h] = 1;
	}
	/* 10,000 keys into 65,536 buckets: 9,265 distinct expected */
	cr_assert_gt(distinct, 9000, "%d distinct", distinct);
	/* the length is part of the hash: trailing NULs make another key */
	cr_assert_neq(whole("ab\0\0", 4), whole("ab\0", 3));
}

Test(hashmap, keys_in_pieces_find_what_was_stored)
{
	struct fp_hashmap m = { 0 };
	struct fp_hslot *s;
	char key[32];
	int i;

	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "/a/b/%d", i);
		s = fp_hashmap_slot(&m, key, strlen(key));
		cr_assert_not_null(s);
		s->val = (void *)(long)(i + 1);
	}
	for (i = 0; i < 1000; i++) {
		struct fp_hash st;
		size_t n;

		n = (size_t)snprintf(key, sizeof(key), "/a/b/%d", i);
		cr_assert_eq((long)fp_hashmap_get(&m, key, n), i + 1);
		fp_hash_init(&st);
		fp_hash_feed(&st, key, 4);
		fp_hash_feed(&st, key + 4, n - 4);
		cr_assert_eq((long)fp_hashmap_get_hashed(&m, key, n,
							 fp_hash_value(&st)),
			     i + 1);
	}
	cr_assert_null(fp_hashmap_get(&m, "/a/b/1000", 9));
	fp_hashmap_free(&m, NULL);
}

/* prefixes looked up shortest first find what a lookup of each finds */
Test(hashmap, prefixes_of_a_path_find_their_entries)
{
	static const char path[] = "/srv/app/build/obj/x.o";
	struct fp_hashmap m = { 0 };
	struct fp_prefix pre;
	size_t k;

	cr_assert_not_null(fp_hashmap_slot(&m, "/srv", 4));
	fp_hashmap_slot(&m, "/srv", 4)->val = (void *)1;
	fp_hashmap_slot(&m, "/srv/app/build", 14)->val = (void *)2;
	fp_prefix_init(&pre);
	for (k = 1; k < sizeof(path) - 1; k++) {
		if (path[k] != '/')
			continue;
		cr_assert_eq(fp_hashmap_get_prefix(&m, &pre, path, k),
			     fp_hashmap_get(&m, path, k), "prefix of %zu", k);
	}
	fp_prefix_init(&pre);
	cr_assert_eq((long)fp_hashmap_get_prefix(&m, &pre, path, 4), 1);
	cr_assert_null(fp_hashmap_get_prefix(&m, &pre, path, 8));
	cr_assert_eq((long)fp_hashmap_get_prefix(&m, &pre, path, 14), 2);
	fp_hashmap_free(&m, NULL);
}
