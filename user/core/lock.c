// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "lock.h"
#include "sha256.h"

void fp_lock_hex(char *out, const unsigned char *h)
{
	fp_hex(out, h, 32);
}

int fp_lock_entry_ok(const struct fp_fentry *e)
{
	if (e->type == '?' || e->err || e->unstable || e->mount)
		return 0;
	return e->type != 'f' || e->hashed;
}

static void add_entry(struct fp_sha256 *md, const struct fp_fentry *e,
		      size_t skip)
{
	char head[16], hex[65];

	fp_sha256_update(md, e->path.data + skip, e->path.len - skip);
	snprintf(head, sizeof(head), "%c%c%c%04o%c", 0, e->type, 0,
		 e->mode & 07777, 0);
	fp_sha256_update(md, head, 8);
	if (e->type == 'f') {
		fp_lock_hex(hex, e->sha256);
		fp_sha256_update(md, hex, 64);
	} else if (e->type == 'l') {
		fp_sha256_update(md, e->target.data, e->target.len);
	}
	fp_sha256_update(md, "\n", 1);
}

int fp_lock_tree_hash(const struct fp_fs_snapshot *s, const char *root,
		      unsigned char out[32], const struct fp_fentry **bad)
{
	size_t rlen = strlen(root), skip = rlen + (rlen > 1), i;
	struct fp_sha256 md;
	int ret = 0;

	*bad = NULL;
	fp_sha256_init(&md);
	for (i = 0; i < s->n; i++) {
		const struct fp_fentry *e = &s->e[i];

		if (e->path.len == rlen ||
		    !fp_path_under(e->path.data, e->path.len, root, rlen))
			continue;
		if (!fp_lock_entry_ok(e)) {
			*bad = e;
			ret = -EIO;
			break;
		}
		add_entry(&md, e, skip);
	}
	if (!ret)
		fp_sha256_final(&md, out);
	return ret;
}
