/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the filesystem snapshot share: the walk
 * (snapshot_walk.c), the hashing (snapshot_hash.c) and the entry point
 * (snapshot_fs.c). Not for the rest of footprint.
 */
#ifndef FP_SNAPSHOT_FS_INT_H
#define FP_SNAPSHOT_FS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "snapshot_fs.h"

/* threads that walk, and then hash, at most */
#define FP_FS_THREADS_MAX 8

/* paths and targets of a walked snapshot, many to a chunk */
#define FP_FS_CHUNK (64 * 1024 - 64)
struct fp_fs_chunk {
	struct fp_fs_chunk *next;
	size_t used, cap;
	char data[];
};

struct fp_fs_root {
	const char *path;
	size_t len;
	int fd; /* the root directory, -1 when it is not one */
	dev_t dev;
	int via; /* fp_fs_opts.root_fds[i], or -1 */
};

static inline int64_t fp_ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static inline int64_t fp_mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return fp_ts_ns(&t);
}

static inline bool fp_past(int64_t deadline_ns)
{
	return deadline_ns && fp_mono_ns() >= deadline_ns;
}

/* The threads a snapshot uses: opts->threads, or one per CPU. */
int fp_fs_threads(const struct fp_fs_opts *o);
void fp_fs_fill_stat(struct fp_fentry *e, const struct stat *st);

/*
 * The regular files a walk left to hash, by their place in its table,
 * and their bytes. The merge lists them as it writes each entry: a pass
 * of its own over a table of 100,000 entries, after the merge had read
 * three such streams, missed the cache (~25 ms).
 */
struct fp_fs_todo {
	size_t *at;
	size_t n;
	uint64_t bytes;
};

/*
 * Walk every root into s->e, sorted by path bytes, each path once, on up
 * to fp_fs_threads() threads, each entering o->creds; the caller's thread
 * has entered them already. Fills in each root's fd and dev, and todo
 * (todo->at the caller's to free). 0, -ENOMEM, -E2BIG, -ETIMEDOUT, or
 * -errno of fp_creds_enter; on failure s holds walker 0's part of the
 * walk, for fp_fs_snapshot_free(), and todo is empty.
 */
int fp_fs_walk(struct fp_fs_snapshot *s, const struct fp_fs_opts *o,
	       struct fp_fs_root *roots, size_t nroots,
	       struct fp_fs_todo *todo);

/* One walker's table sorted by path bytes, on the walker's thread. */
void fp_fs_sort(struct fp_fs_snapshot *s);
/*
 * The sorted tables of the other walkers merged into s, itself sorted,
 * whose array holds cap entries: each path once, a copy given way to the
 * entry it copies (its read error kept). The files left to hash listed
 * in todo (todo->at the caller's to free). 0, or -ENOMEM (s unchanged).
 */
int fp_fs_merge(struct fp_fs_snapshot *s, size_t cap,
		struct fp_fs_snapshot *const *more, int nmore,
		struct fp_fs_todo *todo);

/* Hash every regular file the walk left unhashed (todo); s sorted. 0,
 * -ENOMEM or -ETIMEDOUT. */
int fp_fs_hash_all(struct fp_fs_snapshot *s, const struct fp_fs_opts *o,
		   const struct fp_fs_root *roots, size_t nroots,
		   const struct fp_fs_todo *todo);

#endif
