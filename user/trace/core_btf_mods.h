/* SPDX-License-Identifier: GPL-2.0 */
/* The modules' BTF, for a type the kernel's own lacks (core_btf.h). */
#ifndef FP_CORE_BTF_MODS_H
#define FP_CORE_BTF_MODS_H

#include <stdbool.h>
#include <stddef.h>

#include "core_btf.h"

struct fp_core_mods {
	const struct fp_btf_raw *kern;
	struct fp_core_modules iface;
};

/*
 * Whether any module has BTF (or whether that cannot be told); if so,
 * m->iface answers for them, reading each module's BTF when asked.
 */
bool fp_core_mods_init(struct fp_core_mods *m, const struct fp_btf_raw *kern);

/* whether mod (split BTF on kern) has a type of that name and kind */
bool fp_core_mod_has(const struct fp_btf_raw *kern,
		     const struct fp_btf_raw *mod, const char *name, size_t len,
		     unsigned int kind);

#endif
