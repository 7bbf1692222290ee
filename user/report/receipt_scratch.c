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
		fputs("null", j->f);
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
		      const struct fp_fentry *after, bool *first)
{
	const struct fp_fentry *e = after ? after : before;
	struct json_out k = { .f = j->f };

	if (!*first)
		fputc(',', j->f);
	*first = false;
	json_begin_object(&k);
	json_field_bytes(&k, "path", e->path.data, e->path.len);
	if (after)
		write_state(&k, after);
	json_key(&k, "before");
	if (before) {
		json_begin_object(&k);
		write_state(&k, before);
		json_end_object(&k);
	} else {
		fputs("null", k.f);
	}
	json_end_object(&k);
}

/* one merge of the two sorted snapshots, keeping the changes of kind */
static void write_kind(struct json_out *j, int kind,
		       const struct fp_fs_snapshot *b,
		       const struct fp_fs_snapshot *a)
{
	size_t i = 0, k = 0;
	bool first = true;
	int c;

	json_key(j, kind_names[kind]);
	fputc('[', j->f);
	while (i < b->n || k < a->n) {
		if (i == b->n)
			c = 1;
		else if (k == a->n)
			c = -1;
		else
			c = fp_bytes_cmp(b->e[i].path.data, b->e[i].path.len,
					 a->e[k].path.data, a->e[k].path.len);
		if (c < 0 && kind == REMOVED)
			write_one(j, &b->e[i], NULL, &first);
		else if (c > 0 && kind == ADDED)
			write_one(j, NULL, &a->e[k], &first);
		else if (!c && kind == CHANGED && differs(&b->e[i], &a->e[k]))
			write_one(j, &b->e[i], &a->e[k], &first);
		else if (!c && kind == REPLACED && replaced(&b->e[i], &a->e[k]))
			write_one(j, &b->e[i], &a->e[k], &first);
		i += c <= 0;
		k += c >= 0;
	}
	fputc(']', j->f);
}

void fp_receipt_scratch(struct json_out *j, const char *dir, char *const *roots,
			size_t nroots, const struct fp_fs_snapshot *before,
			const struct fp_fs_snapshot *after)
{
	size_t i;
	int kind;

	json_key(j, "scratch");
	json_begin_object(j);
	json_field_str(j, "dir", dir);
	json_key(j, "layers");
	fputc('[', j->f);
	for (i = 0; i < nroots; i++) {
		struct json_out k = { .f = j->f };
		char upper[32];

		const struct fp_fentry *bad;
		unsigned char h[32];
		char hex[65];

		snprintf(upper, sizeof(upper), "%zu/upper", i);
		if (i)
			fputc(',', j->f);
		json_begin_object(&k);
		json_field_str(&k, "root", roots[i]);
		json_field_str(&k, "upper", upper);
		/* the tree it started from, as footprint lock --inputs
		 * hashes it; null when part of it could not be read */
		json_key(&k, "input_sha256");
		if (fp_lock_tree_hash(before, roots[i], h, &bad)) {
			fputs("null", k.f);
		} else {
			fp_lock_hex(hex, h);
			json_string(k.f, hex, 64);
		}
		json_end_object(&k);
	}
	fputc(']', j->f);
	json_key(j, "proposed");
	json_begin_object(j);
	for (kind = 0; kind < NKINDS; kind++)
		write_kind(j, kind, before, after);
	json_end_object(j);
	json_end_object(j);
}
