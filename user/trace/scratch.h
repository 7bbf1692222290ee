/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scratch box (footprint run --scratch DIR, docs/scratch.md): each
 * root is an overlayfs whose lower layer is the real tree and whose upper
 * and work layers are DIR/N/upper and DIR/N/work. The mounts are made
 * detached, by footprint (root), from directories opened with the invoking
 * user's rights and through no symbolic link; the command's child moves
 * them onto the roots in a mount namespace of its own, so nothing outside
 * it ever sees them. footprint keeps the mounts' fds: the snapshots read
 * the merged view through them, before and after, whatever the command
 * did to its namespace.
 */
#ifndef FP_SCRATCH_H
#define FP_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli.h"

struct fp_creds;

#define FP_SCRATCH_LAYERS (FP_ROOTS_MAX + 32) /* roots, --scratch-also */
#define FP_SCRATCH_HIDES 32

struct fp_scratch_layer {
	const char *path; /* absolute, canonical: where it is mounted */
	int mnt; /* the detached overlay */
};

struct fp_scratch_hide {
	const char *path;
	int mnt; /* an empty read-only tmpfs, or a mode-0 file of one */
	bool dir;
};

struct fp_scratch {
	int dirfd; /* DIR, O_PATH */
	struct fp_scratch_layer layer[FP_SCRATCH_LAYERS];
	size_t nlayers;
	struct fp_scratch_hide hide[FP_SCRATCH_HIDES];
	size_t nhide;
	bool no_network;
	/* the command's working directory, entered again once the
	 * overlays are on: the old one is the real tree under them */
	char cwd[4096];
	/* who resolves the mount points in the child */
	bool as_user;
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	int ngroups;
};

struct fp_scratch_args {
	const char *dir;
	char *const *paths; /* the roots, then --scratch-also */
	size_t npaths;
	const char *const *hide;
	size_t nhide;
	bool no_network;
};

/*
 * Make DIR/N/{upper,work} for each path (as c; DIR must not hold an
 * earlier run), open every layer as c, and mount them detached. 0, or
 * -errno with one line in err that says what to do.
 */
int fp_scratch_open(struct fp_scratch *sc, const struct fp_scratch_args *a,
		    const struct fp_creds *c, char *err, size_t errlen);
/*
 * In the child, before it drops to the user: a private mount namespace,
 * the overlays on the roots, the hides, the network namespace. Only system
 * calls (the child of a threaded parent). 0 or -errno.
 */
int fp_scratch_enter(const struct fp_scratch *sc);
void fp_scratch_close(struct fp_scratch *sc);

#endif
