/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small BTF for libbpf's CO-RE relocation of footprint's object
 * (btf_custom_path), cut from the kernel's. libbpf looks each relocated
 * type up by name among all of the kernel's types, ~1 ms a type on
 * 6.18's 126,000, 58 times: ~50 ms of a cold start. Among the small
 * BTF's types the same lookups cost next to nothing, and give the same
 * answers:
 * - every kernel type with the name (flavour aside) and kind of a
 *   relocated type is in it; at its own id where a relocation asks for
 *   that id (bpf_core_type_id_kernel(), which the verifier reads as the
 *   kernel's);
 * - the others, and what all of them hold by value (members, array
 *   elements, typedefs, modifiers), follow the highest own id kept;
 * - a pointer points to void: a field relocation never looks through
 *   one (libbpf's bpf_core_fields_are_compat()), and a type relocation
 *   is made on a struct, union or enum only, or no small BTF is made.
 * (untrusted_as() asks for a kernel id: route.bpf.c reads fib6_result,
 * late in the kernel's BTF, rather than cast it, so that fewer ids are
 * kept.) Ids below the highest own id kept that hold nothing kept are
 * anonymous pointers, which no lookup matches; one more such follows the
 * last type, as more types follow in the kernel's (libbpf reads an int's
 * encoding after any field type it asks the sign of). libbpf looks in
 * module BTFs for a type the kernel's own BTF lacks, and never with a BTF
 * of the caller's: if a module has a relocated type the kernel lacks, no
 * small BTF is made. FOOTPRINT_DEBUG_FULL_BTF=1 makes none.
 */
#ifndef FP_CORE_BTF_H
#define FP_CORE_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "btf_raw.h"
#include "core_relos.h"

struct fp_core_btf {
	int fd; /* a memfd, or -1 */
	char path[40]; /* its name for libbpf, "" when none */
	uint32_t types, kernel_types; /* how many it and the kernel's hold */
};

/*
 * Makes the small BTF for the object obj (an ELF file of obj_len bytes)
 * against the running kernel's BTF kern (indexed; NULL if it could not
 * be read). 0, or -errno and no file (libbpf then relocates against the
 * kernel's whole BTF, as without one).
 */
int fp_core_btf_make(struct fp_core_btf *c, const struct fp_btf_raw *kern,
		     const void *obj, size_t obj_len);
void fp_core_btf_close(struct fp_core_btf *c);

/*
 * Where libbpf looks for a type the kernel's own BTF lacks: whether a
 * module's BTF has a type of the essential name name[0..len) and a kind
 * libbpf matches with kind. NULL when no module has BTF.
 */
struct fp_core_modules {
	bool (*has)(void *ctx, const char *name, size_t len, unsigned int kind);
	void *ctx;
};

/*
 * The builder: the small BTF of kern (indexed) for the relocations r,
 * whose types are local's (indexed). 0 and *out (malloc'd, *len bytes),
 * or -ENOENT when none can stand in for kern, -EINVAL, -ENOMEM.
 */
int fp_core_btf_build(const struct fp_btf_raw *kern,
		      const struct fp_btf_raw *local,
		      const struct fp_core_relos *r,
		      const struct fp_core_modules *mods, void **out,
		      size_t *len);

/* libbpf's bpf_core_essential_name_len(): "x___y" is x's flavour y */
size_t fp_core_essential_len(const char *name);
/* libbpf's btf_kind_core_compat() */
bool fp_core_kinds_compat(unsigned int a, unsigned int b);

#endif
