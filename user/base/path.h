/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FP_PATH_H
#define FP_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "event.h"

/*
 * Build the absolute path for a syscall path argument: raw (as passed,
 * without its NUL) and, when raw is relative, base (dentry names from leaf
 * to root, each NUL-terminated). "." and empty components are dropped and
 * ".." is resolved lexically. Returns 0, or -ENOMEM.
 */
int fp_path_join(struct fp_bytes *out, const char *raw, size_t raw_len,
		 const char *base, size_t base_len);
/*
 * The same; *magic is set when the path, at any point of the walk, was
 * at a /proc magic link (/proc/PID/fd/N, cwd, root, exe, map_files/N, and
 * the same under task/TID/), whose target no name tells:
 * "/proc/self/fd/3/../../self/x" is "/proc/self/self/x" lexically, but the
 * kernel goes from fd 3's file, wherever that is.
 */
int fp_path_join_magic(struct fp_bytes *out, const char *raw, size_t raw_len,
		       const char *base, size_t base_len, bool *magic);
/* Does the absolute path p pass through a /proc magic link? */
bool fp_path_magic(const char *p, size_t len);

/* s with control bytes and backslashes as \xHH: a name (a log's, a
 * job's) safe on one line of a comment or a policy */
void fp_put_name(FILE *f, const char *s);

#endif
