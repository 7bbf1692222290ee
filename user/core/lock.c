// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "lock.h"

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

static void add_entry(EVP_MD_CTX *md, const struct fp_fentry *e, size_t skip)
{
	char head[16], hex[65];

	EVP_DigestUpdate(md, e->path.data + skip, e->path.len - skip);
	snprintf(head, sizeof(head), "%c%c%c%04o%c", 0, e->type, 0,
		 e->mode & 07777, 0);
	EVP_DigestUpdate(md, head, 8);
	if (e->type == 'f') {
		fp_lock_hex(hex, e->sha256);
		EVP_DigestUpdate(md, hex, 64);
	} else if (e->type == 'l') {
		EVP_DigestUpdate(md, e->target.data, e->target.len);
	}
	EVP_DigestUpdate(md, "\n", 1);
}

int fp_lock_tree_hash(const struct fp_fs_snapshot *s, const char *root,
		      unsigned char out[32], const struct fp_fentry **bad)
{
	size_t rlen = strlen(root), skip = rlen + (rlen > 1), i;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int ret = 0;

	*bad = NULL;
	if (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(md);
		return -ENOMEM;
	}
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
		add_entry(md, e, skip);
	}
	if (!ret && !EVP_DigestFinal_ex(md, out, NULL))
		ret = -ENOMEM;
	EVP_MD_CTX_free(md);
	return ret;
}
