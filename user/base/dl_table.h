/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table of functions from a library loaded on first use (dlopen), for
 * what only some commands need: sd-bus for --unit, libcurl for the fleet.
 * Not linking them keeps their libraries out of every footprint start.
 */
#ifndef FP_DL_TABLE_H
#define FP_DL_TABLE_H

#include <stddef.h>

struct fp_dl_sym {
	const char *name;
	size_t off; /* where in the table its address goes */
};

#define FP_DL_SYM(type, field, name)         \
	{                                    \
#name, offsetof(type, field) \
	}

/*
 * Every symbol of syms (n of them) from lib into table (size bytes), all
 * or nothing: 0, or -1 with the table zeroed and why in err, naming pkg,
 * the Debian package to install. Once whole the library stays open: the
 * table points into it.
 */
int fp_dl_table(const char *lib, const char *pkg, const struct fp_dl_sym *syms,
		size_t n, void *table, size_t size, char *err, size_t errlen);

#endif
