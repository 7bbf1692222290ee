// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "dl_table.h"

int fp_dl_table(const char *lib, const char *pkg, const struct fp_dl_sym *syms,
		size_t n, void *table, size_t size, char *err, size_t errlen)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL), *fn;
	size_t i;

	if (!h) {
		snprintf(err, errlen, "%s; install %s", dlerror(), pkg);
		return -1;
	}
	for (i = 0; i < n; i++) {
		fn = dlsym(h, syms[i].name);
		if (!fn) {
			snprintf(
				err, errlen,
				"%s has no %s; it is older than footprint needs",
				lib, syms[i].name);
			memset(table, 0, size);
			dlclose(h);
			return -1;
		}
		memcpy((char *)table + syms[i].off, &fn, sizeof(fn));
	}
	return 0;
}
