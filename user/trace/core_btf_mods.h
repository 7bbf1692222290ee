/* SPDX-License-Identifier: GPL-2.0 */
/* The modules' BTF, for a type the kernel's own lacks (core_btf.h). */
#ifndef FP_CORE_BTF_MODS_H
#define FP_CORE_BTF_MODS_H

#include <stdbool.h>
#include <stddef.h>

#include "btf_raw.h"
#include "core_btf.h"

struct fp_core_mods {
	const struct fp_btf_raw *kern;
	const char *dir;
	struct fp_core_modules iface;
	struct fp_btf_file *mods; /* read at the first question */
	size_t n;
	bool read, unreadable;
};

/*
 * Whether any module has BTF (or whether that cannot be told); if so,
 * m->iface answers for them, reading the modules' BTF when first asked.
 */
bool fp_core_mods_init(struct fp_core_mods *m, const struct fp_btf_raw *kern);
/* the same for the files of dir other than vmlinux (tests) */
bool fp_core_mods_init_at(struct fp_core_mods *m, const struct fp_btf_raw *kern,
			  const char *dir);
void fp_core_mods_free(struct fp_core_mods *m);

/* whether mod (split BTF on kern) has a type of that name and kind */
bool fp_core_mod_has(const struct fp_btf_raw *kern,
		     const struct fp_btf_raw *mod, const char *name, size_t len,
		     unsigned int kind);

#endif
