// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD helper for test_load_fail.py: every bpf() system call made
 * through syscall(3), as libbpf makes them, fails with EPERM, so the
 * tracer cannot load whichever thread loads it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;
	int i;

	if (nr == SYS_bpf) {
		errno = EPERM;
		return -1;
	}
	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
