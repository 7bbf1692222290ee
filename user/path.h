/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FP_PATH_H
#define FP_PATH_H

#include <stddef.h>

#include "event.h"

/*
 * Build the absolute path for a syscall path argument: raw (as passed,
 * without its NUL) and, when raw is relative, base (dentry names from leaf
 * to root, each NUL-terminated). "." and empty components are dropped and
 * ".." is resolved lexically. Returns 0, or -ENOMEM.
 */
int fp_path_join(struct fp_bytes *out, const char *raw, size_t raw_len,
		 const char *base, size_t base_len);

#endif
