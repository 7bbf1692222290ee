// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "receipt_scratch.h"

enum { ADDED, CHANGED, REMOVED, NKINDS };
static const char *const kind_names[] = { "added", "changed", "removed" };

static void write_new(struct json_out *j, const struct fp_fentry *e)
{
	static const char digits[] = "0123456789abcdef";
	char h[65], t[2] = { e->type, 0 };
	size_t i;

	json_field_bytes(j, "path", e->path.data, e->path.len);
	json_field_str(j, "type", t);
	json_field_u64(j, "mode", e->mode);
	json_key(j, "sha256");
	/* a file the user may not read, or one that moved while hashed,
	 * has no content anyone can lock */
	if (e->type != 'f' || !e->hashed || e->unstable || e->err) {
		fputs("null", j->f);
		return;
	}
	for (i = 0; i < 32; i++) {
		h[2 * i] = digits[e->sha256[i] >> 4];
		h[2 * i + 1] = digits[e->sha256[i] & 15];
	}
	h[64] = '\0';
	json_string(j->f, h, 64);
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

static void write_one(struct json_out *j, int kind, const struct fp_fentry *e,
		      bool *first)
{
	struct json_out k = { .f = j->f };

	if (!*first)
		fputc(',', j->f);
	*first = false;
	json_begin_object(&k);
	if (kind == REMOVED)
		json_field_bytes(&k, "path", e->path.data, e->path.len);
	else
		write_new(&k, e);
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
			write_one(j, kind, &b->e[i], &first);
		else if (c > 0 && kind == ADDED)
			write_one(j, kind, &a->e[k], &first);
		else if (!c && kind == CHANGED && differs(&b->e[i], &a->e[k]))
			write_one(j, kind, &a->e[k], &first);
		i += c <= 0;
		k += c >= 0;
	}
	fputc(']', j->f);
}

void fp_receipt_scratch(struct json_out *j, const char *dir,
			char *const *roots, size_t nroots,
			const struct fp_fs_snapshot *before,
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

		snprintf(upper, sizeof(upper), "%zu/upper", i);
		if (i)
			fputc(',', j->f);
		json_begin_object(&k);
		json_field_str(&k, "root", roots[i]);
		json_field_str(&k, "upper", upper);
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
