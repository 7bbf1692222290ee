// SPDX-License-Identifier: GPL-2.0
/*
 * The modules' BTF (split BTF in /sys/kernel/btf/MODULE, on top of the
 * kernel's), read when a relocated type is missing from the kernel's own:
 * libbpf would look for it there, and a small BTF can stand in for the
 * kernel's only if no module has it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_btf_mods.h"

#define BTF_DIR "/sys/kernel/btf"
/* a kernel loads a few hundred modules; more is not one to guess about */
#define MAX_MODULES 4096

/* a module type's name: below the kernel's string section's end, the
 * kernel's string; above it, the module's own */
static const char *name_of(const struct fp_btf_raw *kern,
			   const struct fp_btf_raw *mod, uint32_t off)
{
	if (off < kern->str_len)
		return fp_btf_raw_str(kern, off);
	return fp_btf_raw_str(mod, off - kern->str_len);
}

bool fp_core_mod_has(const struct fp_btf_raw *kern,
		     const struct fp_btf_raw *mod, const char *name, size_t len,
		     unsigned int kind)
{
	const unsigned char *at = mod->types;
	uint32_t i;

	for (i = 0; i < mod->n; i++) {
		const struct btf_type *t = (const void *)at;
		const char *n = name_of(kern, mod, t->name_off);

		at += sizeof(*t) + fp_btf_type_extra(t);
		if (!n || !*n ||
		    !fp_core_kinds_compat(kind, BTF_INFO_KIND(t->info)))
			continue;
		if (fp_core_essential_len(n) == len && !strncmp(n, name, len))
			return true;
	}
	return false;
}

/* each module's BTF in turn; one that cannot be read may have it */
static bool any_module_has(void *ctx, const char *name, size_t len,
			   unsigned int kind)
{
	struct fp_core_mods *m = ctx;
	struct dirent *e;
	bool found = false;
	DIR *d;
	int n = 0;

	d = opendir(BTF_DIR);
	if (!d)
		return true;
	while (!found && (e = readdir(d))) {
		struct fp_btf_raw mod;
		char path[sizeof(BTF_DIR) + 256];
		size_t size;
		bool mapped;
		void *data;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), BTF_DIR "/%s", e->d_name);
		data = fp_btf_map(path, &size, &mapped);
		found = !data || ++n > MAX_MODULES ||
			fp_btf_raw_parse(&mod, data, size, false) ||
			fp_core_mod_has(m->kern, &mod, name, len, kind);
		if (data)
			fp_btf_unmap(data, size, mapped);
	}
	closedir(d);
	return found;
}

bool fp_core_mods_init(struct fp_core_mods *m, const struct fp_btf_raw *kern)
{
	struct dirent *e;
	bool any = false;
	DIR *d;

	m->kern = kern;
	m->iface.has = any_module_has;
	m->iface.ctx = m;
	d = opendir(BTF_DIR);
	if (!d)
		return true; /* not known: as if some had BTF */
	while (!any && (e = readdir(d)))
		any = e->d_name[0] != '.' && strcmp(e->d_name, "vmlinux");
	closedir(d);
	return any;
}
