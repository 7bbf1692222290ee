/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether the kernel's BTF has types of given names and kinds, in one pass
 * over its type section once it is parsed (btf_raw.h). libbpf's
 * btf__load_vmlinux_btf() validates and indexes all of it (~13 ms), and
 * the load that follows parses it again: for the few facts hooks.c
 * needs, a scan of the names is enough.
 */
#ifndef FP_BTF_NAMES_H
#define FP_BTF_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "btf_raw.h"

struct fp_btf_query {
	const char *name;
	unsigned int kind; /* BTF_KIND_* */
	bool found;
};

/*
 * Sets found for each query. Returns the number of types scanned, or
 * -errno when path cannot be read or is not BTF this scan understands
 * (the caller then asks libbpf).
 */
long fp_btf_find_names(const char *path, struct fp_btf_query *q, size_t n);
/* the same in b, parsed already (btf_raw.h) */
long fp_btf_find_names_in(const struct fp_btf_raw *b, struct fp_btf_query *q,
			  size_t n);

#endif
