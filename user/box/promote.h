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
#include <sys/types.h>

#include "jsonin.h"

/* a change's op; not findings.h's FP_OP_* flags */
enum fp_promote_op { FP_PROMOTE_ADDED, FP_PROMOTE_CHANGED, FP_PROMOTE_REMOVED };

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

/* a scratch file as promote hashed it: only that file is copied */
struct fp_pident {
	dev_t dev;
	ino_t ino;
	off_t size;
};

struct fp_pchange {
	char *rel; /* under the root */
	int op;
	struct fp_pstate now; /* after the change (not for removals) */
	struct fp_pstate before;
	/* the regular files of the scratch set; a locked change gets its
	 * scratch file's once verified */
	struct fp_pident src;
};

struct fp_pset {
	struct fp_pchange *v;
	size_t n, cap;
};

struct fp_pstep; /* promote_apply.c */

/* a root of the lock, and its fds */
struct fp_proot {
	const char *root;
	int rootfd; /* the real root, O_RDONLY|O_DIRECTORY, flocked */
	int upperfd; /* DIR/N/upper */
	struct fp_pset locked, scratch;
	/* root with nobody to act for (--as-root): regular files are
	 * written without their set-user-ID, set-group-ID and sticky bits */
	bool drop_setid;
	struct fp_pstep *steps; /* applied, not yet committed */
	size_t done;
};

/* the state at rel beneath dirfd (no symlink followed): 0, -errno.
 * st is overwritten: free what it held first; free it after, even on error */
int fp_promote_state(int dirfd, const char *rel, struct fp_pstate *st);
/* the same, and a regular file's identity into id (the fd it hashed) */
int fp_promote_state_id(int dirfd, const char *rel, struct fp_pstate *st,
			struct fp_pident *id);
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
/*
 * Apply r's locked changes, keeping what they replaced: 0, or 1 after
 * undoing what it had applied, and saying so. A held signal (below) that
 * is pending fails it as a step that failed.
 */
int fp_promote_apply(struct fp_proot *r);
/* undo r's applied changes (another root failed after it): 0 or 1 */
int fp_promote_undo(struct fp_proot *r);
/* every root is promoted: drop r's backups */
void fp_promote_commit(struct fp_proot *r);

/*
 * From the first write to the last, the signals that would end promote
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM) are held
 * and looked for between steps and while a file is copied; SIGPIPE and
 * SIGXFSZ are ignored, so their writes fail instead. An interrupted
 * promote undoes what it applied, then ends by that signal.
 */
void fp_promote_hold_signals(void);
/* the held signal pending, or 0 */
int fp_promote_signalled(void);
/* end by sig, as if it had not been held */
void fp_promote_end_by(int sig);

#endif
