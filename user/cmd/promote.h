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

#include "jsonin.h"

enum { FP_OP_ADDED, FP_OP_CHANGED, FP_OP_REMOVED };

/*
 * what a path holds: type 0 when nothing. A symlink's target is on the
 * heap, sized to it (NULL reads as ""): a set holds up to a million of
 * these, and an inline PATH_MAX buffer made that 8 GiB. Whoever filled a
 * state (fp_promote_state, a set) owns its target and frees it.
 */
struct fp_pstate {
	char type;
	unsigned int mode;
	char sha[65]; /* files */
	char *target; /* symlinks */
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

/* the state at rel beneath dirfd (no symlink followed): 0, -errno.
 * st is overwritten: free what it held first; free it after, even on error */
int fp_promote_state(int dirfd, const char *rel, struct fp_pstate *st);
void fp_pstate_free(struct fp_pstate *st);
static inline const char *fp_ptarget(const struct fp_pstate *st)
{
	return st->target ? st->target : "";
}

/* the scratch change set: walk the upper layer against the real root.
 * 0 or -errno, with a line on stderr */
int fp_promote_scan(struct fp_proot *r);
/*
 * Add a change; the set keeps copies of rel and the targets. All the sets
 * of one process share one bound (FP_PSET_MAX_BYTES, with the array's
 * capacity and the strings counted), for a lock may name 64 roots: past
 * it, or past FP_PSET_MAX_ENTRIES in one set, -E2BIG.
 */
#define FP_PSET_MAX_ENTRIES (1u << 20)
#define FP_PSET_MAX_BYTES ((size_t)256 << 20)
int fp_pset_add(struct fp_pset *s, const char *rel, int op,
		const struct fp_pstate *now, const struct fp_pstate *before);
void fp_pset_free(struct fp_pset *s);
/* the bytes all sets hold now, as the bound counts them */
size_t fp_pset_held(void);
/* the line for a failed fp_pset_add (e < 0) of the changes of root */
void fp_pset_say(int e, const char *what, const char *root);
/* apply r's locked changes; on failure restore and say so. 0 or 1 */
int fp_promote_apply(struct fp_proot *r);

#endif
