/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CO-RE relocations a BPF object carries (.BTF.ext), gathered by the
 * object's own type: the local types libbpf will look for in the
 * kernel's BTF by name, and what it will ask of them.
 */
#ifndef FP_CORE_RELOS_H
#define FP_CORE_RELOS_H

#include <stddef.h>
#include <stdint.h>

struct fp_core_root {
	uint32_t local_id; /* a type of the object's .BTF */
	uint32_t kinds; /* 1u << enum bpf_core_relo_kind, of each on it */
};

struct fp_core_relos {
	const void *btf; /* the object's .BTF, inside the object */
	size_t btf_len;
	struct fp_core_root *roots;
	size_t n;
};

/*
 * Reads the ELF object elf (len bytes, this machine's byte order). 0, or
 * -EINVAL if it is not one this reader understands, -ENOMEM.
 */
int fp_core_relos_read(struct fp_core_relos *r, const void *elf, size_t len);
void fp_core_relos_free(struct fp_core_relos *r);

#endif
