/* SPDX-License-Identifier: GPL-2.0 */
/* Which syscall numbers of this architecture the kernel side decodes. */
#ifndef FP_SYSCALLS_H
#define FP_SYSCALLS_H

#include <stdint.h>

struct fp_syscall_nr {
	long nr;
	uint32_t sys; /* enum fp_sys */
};

/* native syscalls, and 32-bit compat ones (file ones counted, not
 * decoded) */
extern const struct fp_syscall_nr fp_native_syscalls[];
extern const struct fp_syscall_nr fp_compat_syscalls[];

#endif
