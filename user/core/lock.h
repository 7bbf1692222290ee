/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tree hash of footprint's locks (docs/scratch.md): one SHA-256 over
 * every entry strictly under a root, in path byte order, each as
 *
 *   REL NUL TYPE NUL MODE NUL CONTENT LF
 *
 * REL the path under the root, TYPE the snapshot's type letter, MODE the
 * permission bits in four octal digits, CONTENT the file's SHA-256 in hex,
 * a symlink's target, or nothing. Owners and times are left out: a copy
 * of the tree (rsync, a checkout) has the same hash.
 */
#ifndef FP_LOCK_H
#define FP_LOCK_H

#include <stddef.h>

#include "snapshot_fs.h"

/*
 * 0 with the hash in out, or -EIO with *bad the first entry that has no
 * lockable content (unreadable, unstable, or not hashed).
 */
int fp_lock_tree_hash(const struct fp_fs_snapshot *s, const char *root,
		      unsigned char out[32], const struct fp_fentry **bad);
/* the lower-case hex of 32 bytes, into 65 */
void fp_lock_hex(char *out, const unsigned char *h);
/* an entry's content is lockable */
int fp_lock_entry_ok(const struct fp_fentry *e);

#endif
