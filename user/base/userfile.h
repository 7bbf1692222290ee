/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files footprint opens for the invoking user: outputs (receipt, events,
 * log) and inputs (policies, logs). Each is opened with the user's rights
 * (creds.h), never through a symbolic link in any component (openat2
 * RESOLVE_NO_SYMLINKS), and an output is always a new inode that
 * footprint created: an existing file is replaced by rename, never
 * truncated, so footprint never writes into or chowns a file it did not
 * make.
 */
#ifndef FP_USERFILE_H
#define FP_USERFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "creds.h"

/* An output's directory, opened (O_PATH) as the user, and its real path. */
struct fp_outdir {
	int dirfd;
	char *base; /* the file name in it */
	char *real; /* the directory's path as the kernel sees it */
};

/*
 * Open the directory part of path as c. 0, or -errno with a message in
 * err naming what (e.g. "the receipt") and what to do.
 */
int fp_outdir_open(struct fp_outdir *d, const struct fp_creds *c,
		   const char *what, const char *path, char *err,
		   size_t errlen);
/*
 * Create d's file as c: a new inode, mode 0600, then made root's for the
 * length of the run. An existing file is replaced only when replace is
 * set (atomically, by renaming a new file over it). Returns an fd or
 * -errno with err filled.
 */
int fp_outdir_create(struct fp_outdir *d, const struct fp_creds *c,
		     const char *what, const char *path, bool replace,
		     char *err, size_t errlen);
void fp_outdir_close(struct fp_outdir *d);
/*
 * A new file for a report (receipt, policy, lock) at path, as the calling
 * thread's user, never through a link; "-" or NULL is stdout. NULL after
 * one line on stderr.
 */
FILE *fp_outdir_fopen(const char *what, const char *path);

/*
 * Flush and close what fp_outdir_fopen() opened (stdout stays open). -1
 * after one line on stderr when a write failed, naming what and path.
 */
int fp_outdir_fclose(FILE *f, const char *what, const char *path);

/*
 * Open an input file for reading as c: a regular file only, at most max
 * bytes. Returns an fd or -errno with err filled.
 */
int fp_input_open(const struct fp_creds *c, const char *what, const char *path,
		  size_t max, char *err, size_t errlen);

/*
 * A directory of the user's (a spool): opened as c, never through a
 * link in any component; with create, it and its missing parents are
 * made first (mode 0700, as c). Returns an O_DIRECTORY fd, or -errno with
 * err naming what and what to do.
 */
int fp_userdir_open(const struct fp_creds *c, const char *what,
		    const char *path, bool create, char *err, size_t errlen);

#endif
