// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lock.h"
#include "receipt_scratch.h"

enum { ADDED, CHANGED, REMOVED, REPLACED, NKINDS };
static const char *const kind_names[] = { "added", "changed", "removed",
					  "replaced" };

/* type, mode and content; a file the user may not read, or one that
 * moved while it was hashed, has no sha256 anyone can lock */
static void write_state(struct json_out *j, const struct fp_fentry *e)
{
	char h[65], t[2] = { e->type, 0 };

	json_field_str(j, "type", t);
	json_field_u64(j, "mode", e->mode);
	json_key(j, "sha256");
	if (e->type != 'f' || !fp_lock_entry_ok(e)) {
		json_null(j);
	} else {
		fp_lock_hex(h, e->sha256);
		json_string(j->f, h, 64);
	}
	if (e->type == 'l')
		json_field_bytes(j, "target", e->target.data, e->target.len);
}

static bool differs(const struct fp_fentry *a, const struct fp_fentry *b)
{
	if (a->type != b->type || a->mode != b->mode)
		return true;
	if (a->type == 'l')
		return a->target.len != b->target.len ||
		       memcmp(a->target.data, b->target.data, a->target.len);
	if (a->type != 'f')
		return false;
	if (!a->hashed || !b->hashed)
		return true; /* cannot tell: propose it, the lock decides */
	return memcmp(a->sha256, b->sha256, 32) != 0;
}

/* what the path held before (promote checks the real tree still does)
 * and what it holds after */
/*
 * A directory the overlay made opaque (removed, then made again): the
 * merged view gives a directory that is still the lower one its inode
 * number, and an opaque one the upper one's. What it held is in removed,
 * what it holds in added.
 */
static bool replaced(const struct fp_fentry *b, const struct fp_fentry *a)
{
	return b->type == 'd' && a->type == 'd' && b->ino != a->ino;
}

static void write_one(struct json_out *j, const struct fp_fentry *before,
		      const struct fp_fentry *after)
{
	const struct fp_fentry *e = after ? after : before;

	json_begin_object(j);
	json_field_bytes(j, "path", e->path.data, e->path.len);
	if (after)
		write_state(j, after);
	if (before) {
		json_field_object(j, "before");
		write_state(j, before);
		json_end_object(j);
	} else {
		json_field_null(j, "before");
	}
	json_end_object(j);
}

/* one merge of the two sorted snapshots, keeping the changes of kind */
static void write_kind(struct json_out *j, int kind,
		       const struct fp_fs_snapshot *b,
		       const struct fp_fs_snapshot *a)
{
	size_t i = 0, k = 0;
	int c;

	json_field_array(j, kind_names[kind]);
	while (i < b->n || k < a->n) {
		if (i == b->n)
			c = 1;
		else if (k == a->n)
			c = -1;
		else
			c = fp_bytes_cmp(b->e[i].path.data, b->e[i].path.len,
					 a->e[k].path.data, a->e[k].path.len);
		if (c < 0 && kind == REMOVED)
			write_one(j, &b->e[i], NULL);
		else if (c > 0 && kind == ADDED)
			write_one(j, NULL, &a->e[k]);
		else if (!c && kind == CHANGED && differs(&b->e[i], &a->e[k]))
			write_one(j, &b->e[i], &a->e[k]);
		else if (!c && kind == REPLACED && replaced(&b->e[i], &a->e[k]))
			write_one(j, &b->e[i], &a->e[k]);
		i += c <= 0;
		k += c >= 0;
	}
	json_end_array(j);
}

void fp_receipt_scratch(struct json_out *j, const char *dir, char *const *roots,
			size_t nroots, const struct fp_fs_snapshot *before,
			const struct fp_fs_snapshot *after)
{
	size_t i;
	int kind;

	json_field_object(j, "scratch");
	json_field_str(j, "dir", dir);
	json_field_array(j, "layers");
	for (i = 0; i < nroots; i++) {
		char upper[32];
		const struct fp_fentry *bad;
		unsigned char h[32];
		char hex[65];

		snprintf(upper, sizeof(upper), "%zu/upper", i);
		json_begin_object(j);
		json_field_str(j, "root", roots[i]);
		json_field_str(j, "upper", upper);
		/* the tree it started from, as footprint lock --inputs
		 * hashes it; null when part of it could not be read */
		if (fp_lock_tree_hash(before, roots[i], h, &bad)) {
			json_field_null(j, "input_sha256");
		} else {
			fp_lock_hex(hex, h);
			json_field_str(j, "input_sha256", hex);
		}
		json_end_object(j);
	}
	json_end_array(j);
	json_field_object(j, "proposed");
	for (kind = 0; kind < NKINDS; kind++)
		write_kind(j, kind, before, after);
	json_end_object(j);
	json_end_object(j);
}
