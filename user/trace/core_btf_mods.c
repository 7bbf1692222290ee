// SPDX-License-Identifier: GPL-2.0
/*
 * The modules' BTF (split BTF in /sys/kernel/btf/MODULE, on top of the
 * kernel's), read when a relocated type is missing from the kernel's own:
 * libbpf would look for it there, and a small BTF can stand in for the
 * kernel's only if no module has it.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
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

/* every module's BTF, once; false if one cannot be read */
static bool read_all(struct fp_core_mods *m)
{
	const char *dir = m->dir;
	struct fp_btf_file *mods;
	struct dirent *e;
	bool ok = true;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return false;
	while (ok && (e = readdir(d))) {
		char path[PATH_MAX];

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux"))
			continue;
		mods = NULL;
		if (m->n < MAX_MODULES)
			mods = realloc(m->mods, (m->n + 1) * sizeof(*mods));
		ok = mods != NULL;
		if (!ok)
			break;
		m->mods = mods;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		ok = !fp_btf_file_open(&m->mods[m->n], path, false);
		m->n += ok;
	}
	closedir(d);
	return ok;
}

/* a module that cannot be read may have it */
static bool any_module_has(void *ctx, const char *name, size_t len,
			   unsigned int kind)
{
	struct fp_core_mods *m = ctx;
	size_t i;

	if (!m->read) {
		m->read = true;
		m->unreadable = !read_all(m);
	}
	if (m->unreadable)
		return true;
	for (i = 0; i < m->n; i++)
		if (fp_core_mod_has(m->kern, &m->mods[i].raw, name, len, kind))
			return true;
	return false;
}

void fp_core_mods_free(struct fp_core_mods *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		fp_btf_file_close(&m->mods[i]);
	free(m->mods);
	m->mods = NULL;
	m->n = 0;
}

bool fp_core_mods_init_at(struct fp_core_mods *m, const struct fp_btf_raw *kern,
			  const char *dir)
{
	struct dirent *e;
	bool any = false;
	DIR *d;

	memset(m, 0, sizeof(*m));
	m->kern = kern;
	m->dir = dir;
	m->iface.has = any_module_has;
	m->iface.ctx = m;
	d = opendir(dir);
	if (!d)
		return true; /* not known: as if some had BTF */
	while (!any && (e = readdir(d)))
		any = e->d_name[0] != '.' && strcmp(e->d_name, "vmlinux");
	closedir(d);
	return any;
}

bool fp_core_mods_init(struct fp_core_mods *m, const struct fp_btf_raw *kern)
{
	return fp_core_mods_init_at(m, kern, BTF_DIR);
}
