// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <errno.h>
#include <openssl/evp.h>
#include <string.h>

#include "lock.h"
#include "unit_util.h"

static struct fp_fentry entry(const char *path, char type, unsigned mode,
			      unsigned char fill)
{
	struct fp_fentry e = { 0 };

	e.path = bytes(path, strlen(path));
	e.type = type;
	e.mode = mode;
	e.uid = 1000;
	if (type == 'f') {
		memset(e.sha256, fill, 32);
		e.hashed = true;
	}
	return e;
}

/* the documented encoding, hashed independently */
static void expected(unsigned char out[32])
{
	static const char text[] =
		"a.txt\0f\0000644\0"
		"0101010101010101010101010101010101010101010101010101010101010101\n"
		"d\0d\0000755\0\n";
	unsigned int n;

	EVP_Digest(text, sizeof(text) - 1, out, &n, EVP_sha256(), NULL);
}

Test(lock, tree_hash_is_the_documented_encoding)
{
	struct fp_fentry e[4] = {
		entry("/srv/job", 'd', 0700, 0),
		entry("/srv/job/a.txt", 'f', 0644, 1),
		entry("/srv/job/d", 'd', 0755, 0),
		entry("/srv/jobber", 'f', 0644, 2), /* not under the root */
	};
	struct fp_fs_snapshot s = { .e = e, .n = 4 };
	const struct fp_fentry *bad;
	unsigned char h[32], want[32];

	cr_assert_eq(fp_lock_tree_hash(&s, "/srv/job", h, &bad), 0);
	expected(want);
	cr_assert_eq(memcmp(h, want, 32), 0);
	/* owners and the root's own mode are left out */
	e[0].mode = 0755;
	e[1].uid = 0;
	cr_assert_eq(fp_lock_tree_hash(&s, "/srv/job", h, &bad), 0);
	cr_assert_eq(memcmp(h, want, 32), 0);
	/* a mode or a byte of content is not */
	e[2].mode = 0700;
	cr_assert_eq(fp_lock_tree_hash(&s, "/srv/job", h, &bad), 0);
	cr_assert_neq(memcmp(h, want, 32), 0);
}

Test(lock, an_unreadable_entry_cannot_be_locked)
{
	struct fp_fentry e[2] = {
		entry("/srv/job", 'd', 0700, 0),
		entry("/srv/job/secret", 'f', 0600, 1),
	};
	struct fp_fs_snapshot s = { .e = e, .n = 2 };
	const struct fp_fentry *bad;
	unsigned char h[32];

	e[1].hashed = false;
	e[1].err = EACCES;
	cr_assert_eq(fp_lock_tree_hash(&s, "/srv/job", h, &bad), -EIO);
	cr_assert_eq(bad, &e[1]);
}

Test(lock, hex)
{
	unsigned char h[32];
	char out[65];

	memset(h, 0xab, 32);
	h[0] = 0x01;
	fp_lock_hex(out, h);
	cr_assert_eq(strlen(out), 64);
	cr_assert_eq(strncmp(out, "01abab", 6), 0);
}
