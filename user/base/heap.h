/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How footprint asks glibc's allocator for memory: the thresholds it runs
 * with, and a block faulted in at once before a phase that would fault
 * in the same amount a page at a time.
 */
#ifndef FP_HEAP_H
#define FP_HEAP_H

#include <stddef.h>

/* The thresholds footprint runs with; once, before any thread starts. */
void fp_heap_init(void);

/*
 * Until fp_heap_populated_end(), blocks up to size come from the calling
 * thread's heap, of which size bytes are faulted in now. For a phase of
 * a library's (libbpf's) whose large allocations are its own.
 */
void fp_heap_populated_begin(size_t size);
/* The thresholds of fp_heap_init() again; what is free goes back. */
void fp_heap_populated_end(void);

#endif
