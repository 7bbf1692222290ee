/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files a session writes for the invoking user: receipt, events and
 * log. Each is created by userfile.h's rules (the user's rights, no link,
 * a new inode, root's until handed over) and refused inside a watched
 * root, where it would be a finding of its own.
 */
#ifndef FP_OUTPUTS_H
#define FP_OUTPUTS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "creds.h"
#include "userfile.h"

struct fp_output {
	const char *what; /* "the receipt", for messages */
	const char *path; /* NULL: not asked for; "-": stdout */
	struct fp_outdir dir;
	int fd; /* once created, else -1 */
};

#define FP_OUTPUT_INIT(w)                                     \
	{                                                     \
		.what = (w), .dir = { .dirfd = -1 }, .fd = -1 \
	}

/* Open the directory as c; 0 or FP_EXIT_USAGE after one line. */
int fp_output_prepare(struct fp_output *out, const struct fp_creds *c,
		      char *const *roots, size_t nroots);
/* Create the file as c: its fd, or -1 after one line. */
int fp_output_create(struct fp_output *out, const struct fp_creds *c,
		     bool replace);
/* Created and wrapped in a stream; stdout for "-"; NULL after one line. */
FILE *fp_output_stream(struct fp_output *out, const struct fp_creds *c);
/* Give every created output to uid:gid (only files footprint made). */
void fp_output_hand_over(struct fp_output *outs, size_t n, uid_t uid, gid_t gid,
			 const char *name);
/* Remove an output with nothing worth keeping, as c, if its name still
 * names the file footprint made. */
void fp_output_discard(struct fp_output *out, const struct fp_creds *c);
/* The same for one made early that nothing was written to (the HTML
 * report of a run that never got a verdict). */
void fp_output_discard_empty(struct fp_output *out, const struct fp_creds *c);
void fp_output_close(struct fp_output *out);

#endif
