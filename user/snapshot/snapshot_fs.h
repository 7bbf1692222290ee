/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshot of the watched trees: one entry per file, directory, symlink or
 * special file, with its SHA-256 for regular files. Symlinks are never
 * followed, FIFOs, sockets and devices never opened, and other mounts not
 * entered unless asked.
 *
 * The tree belongs to someone footprint does not trust, who may change it
 * while it is read: every directory is opened relative to its parent's fd,
 * every file relative to its root without following any symlink, and a
 * file is hashed only if it is still the regular file the walk saw (else
 * it is marked unstable). With opts->creds, all of it is read with the
 * invoking user's rights. Depth and path length are bounded by memory only.
 */
#ifndef FP_SNAPSHOT_FS_H
#define FP_SNAPSHOT_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct fp_creds;

struct fp_fentry {
	struct fp_bytes path; /* absolute */
	char type; /* f d l p s c b, '?' when it could not be stat'ed */
	uint32_t mode; /* permission bits, st_mode & 07777 */
	uint32_t uid, gid;
	uint64_t size;
	int64_t mtime_ns, ctime_ns;
	uint64_t dev, ino;
	struct fp_bytes target; /* symlink target */
	unsigned char sha256[32];
	bool hashed;
	bool reused; /* hash taken from the previous snapshot */
	bool unstable; /* changed while it was hashed, twice, or replaced
			* between the walk and the hash */
	bool mount; /* a mountpoint that was not entered */
	/* the walk's alone: a directory one walker handed another, entered
	 * again in its reader's table; merged into its entry by the walk */
	bool copy;
	int err; /* errno when the entry or its contents were unreadable */
};

struct fp_fs_chunk;

struct fp_fs_snapshot {
	struct fp_fentry *e; /* sorted by path bytes */
	size_t n;
	/* a walk's: where every path and target is. NULL: each is its own
	 * allocation (a snapshot read back from a log) */
	struct fp_fs_chunk *chunks;
	int64_t started_ns; /* CLOCK_REALTIME, for the racy-clean rule */
	uint64_t files_hashed;
	uint64_t bytes_hashed;
};

typedef bool (*fp_touched_fn)(void *ctx, const char *path, size_t len);
typedef void (*fp_progress_fn)(void *ctx, uint64_t entries, uint64_t bytes);

struct fp_fs_opts {
	bool cross_mounts;
	bool rehash_all;
	/* after-snapshot: reuse hashes of unchanged, untouched files */
	const struct fp_fs_snapshot *prev;
	fp_touched_fn touched;
	void *touched_ctx;
	fp_progress_fn progress;
	void *progress_ctx;
	/* read the tree with these rights (every thread enters them) */
	const struct fp_creds *creds;
	/* CLOCK_MONOTONIC; past it the snapshot gives up with -ETIMEDOUT;
	 * 0: no deadline */
	int64_t deadline_ns;
	/* the entries and their paths may take at most this many bytes,
	 * counted as one table doubling from 1,024 entries would take them
	 * (the same for any number of threads; what they allocate stays
	 * within twice that); past it the snapshot gives up with -E2BIG.
	 * 0: no bound */
	uint64_t max_bytes;
	/* per root: read it through this directory fd (a scratch box's
	 * overlay), not by its path; NULL: every root by path */
	const int *root_fds;
	/* threads that walk and hash at most; 0: one per CPU (up to 8).
	 * touched is called from any of them, progress from the caller's */
	unsigned int threads;
	/* tests: called between the walk and the hashing */
	void (*after_walk)(void *ctx);
	void *after_walk_ctx;
};

/* A reused hash must have a ctime this much older than prev->started_ns. */
#define FP_RACY_MARGIN_NS (2LL * 1000 * 1000 * 1000)

/* roots must be absolute and canonical (realpath). 0, -ENOMEM, -ETIMEDOUT,
 * -E2BIG,
 * or -errno of fp_creds_enter. */
int fp_fs_snapshot(struct fp_fs_snapshot *s, char *const *roots, size_t nroots,
		   const struct fp_fs_opts *opts);
void fp_fs_snapshot_free(struct fp_fs_snapshot *s);
const struct fp_fentry *fp_fs_find(const struct fp_fs_snapshot *s,
				   const char *path, size_t len);
int fp_bytes_cmp(const char *a, size_t alen, const char *b, size_t blen);
/* is path equal to root or below it? */
bool fp_path_under(const char *path, size_t len, const char *root,
		   size_t rootlen);

#endif
