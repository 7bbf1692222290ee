/* SPDX-License-Identifier: GPL-2.0 */
/*
 * footprint promote (docs/scratch.md): the locked changes of one root,
 * verified against the scratch run's upper layer and the real tree, then
 * applied all or nothing.
 */
#ifndef FP_PROMOTE_H
#define FP_PROMOTE_H

#include <stdbool.h>
#include <stddef.h>

#include "jsonread.h"

enum { FP_OP_ADDED, FP_OP_CHANGED, FP_OP_REMOVED };

/* what a path holds: type 0 when nothing */
struct fp_pstate {
	char type;
	unsigned int mode;
	char sha[65]; /* files */
	char target[4096]; /* symlinks */
};

struct fp_pchange {
	char *rel; /* under the root */
	int op;
	struct fp_pstate now; /* after the change (not for removals) */
	struct fp_pstate before;
};

struct fp_pset {
	struct fp_pchange *v;
	size_t n, cap;
};

/* a root of the lock, and its fds */
struct fp_proot {
	const char *root;
	int rootfd; /* the real root, O_RDONLY|O_DIRECTORY, flocked */
	int upperfd; /* DIR/N/upper */
	struct fp_pset locked, scratch;
};

/* the state at rel beneath dirfd (no symlink followed): 0, -errno */
int fp_promote_state(int dirfd, const char *rel, struct fp_pstate *st);
/* the scratch change set: walk the upper layer against the real root.
 * 0 or -errno, with a line on stderr */
int fp_promote_scan(struct fp_proot *r);
int fp_pset_add(struct fp_pset *s, const char *rel, int op,
		const struct fp_pstate *now, const struct fp_pstate *before);
void fp_pset_free(struct fp_pset *s);
/* apply r's locked changes; on failure restore and say so. 0 or 1 */
int fp_promote_apply(struct fp_proot *r);

#endif
