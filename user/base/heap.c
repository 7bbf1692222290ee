// SPDX-License-Identifier: GPL-2.0
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "heap.h"

/*
 * Tables of a snapshot's size (12 MiB for 100,000 files) are mapped and
 * unmapped, as glibc does only until the first such free: it then raises
 * its threshold, and the snapshot walkers' tables, freed once merged,
 * would stay in the heap (57 MiB at the peak, not 46). Smaller ones stay
 * in the heap, as they would after that raise.
 */
#define MMAP_THRESHOLD (1 << 20)
/* glibc's default (M_TRIM_THRESHOLD in mallopt(3)) */
#define TRIM_THRESHOLD (128 << 10)
/* glibc's largest M_MMAP_THRESHOLD on 64 bits, the most one heap serves */
#define POPULATED_MAX (32 << 20)

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void fp_heap_init(void)
{
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
}

/*
 * A fresh load has libbpf read the kernel's BTF (5.4 MB on 6.18) into a
 * new buffer and copy it into another: some 2,800 page faults, ~6 us
 * each on this VM (a PVM guest), 15-17 ms of a cold start. One
 * madvise(MADV_POPULATE_WRITE) faults in as much in ~2 ms. The block is
 * freed at once; with the thresholds raised, glibc keeps it at the top
 * of this thread's heap and serves those buffers from it. On a kernel
 * before 5.14 the madvise fails, and the pages fault as before.
 */
void fp_heap_populated_begin(size_t size)
{
	uintptr_t start, end;
	char *block;

	if (!size)
		return;
	/* below the threshold, or glibc maps the block afresh */
	if (size > POPULATED_MAX - (1 << 20))
		size = POPULATED_MAX - (1 << 20);
	mallopt(M_TRIM_THRESHOLD, 2 * POPULATED_MAX);
	mallopt(M_MMAP_THRESHOLD, POPULATED_MAX);
	block = malloc(size);
	if (!block)
		return;
	start = ((uintptr_t)block + 4095) & ~(uintptr_t)4095;
	end = ((uintptr_t)block + size) & ~(uintptr_t)4095;
	if (end > start)
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
	free(block);
}

/* fp_heap_init()'s thresholds: footprint sets its own, at its start */
void fp_heap_populated_end(void)
{
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
	malloc_trim(0);
}
