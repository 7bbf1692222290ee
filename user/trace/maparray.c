// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "maparray.h"

int fp_map_array_open(struct fp_map_array *a, int fd, size_t value_size,
		      unsigned int n, int writable)
{
	long page = sysconf(_SC_PAGESIZE);
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);

	/* the kernel lays an array's elements out 8-byte aligned */
	a->stride = (value_size + 7) / 8 * 8;
	a->len = (a->stride * n + page - 1) / page * page;
	a->base = mmap(NULL, a->len, prot, MAP_SHARED, fd, 0);
	if (a->base == MAP_FAILED) {
		a->base = NULL;
		return -errno;
	}
	return 0;
}

void fp_map_array_close(struct fp_map_array *a)
{
	if (a->base)
		munmap(a->base, a->len);
	a->base = NULL;
}
