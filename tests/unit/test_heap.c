// SPDX-License-Identifier: GPL-2.0
/* A populated phase serves large blocks from pages already faulted in */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "heap.h"

#define BLOCK (4 << 20)

/* what the compiler may not drop with the free() that follows */
static char *keep(char *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

static long thread_faults(void)
{
	struct rusage ru;

	cr_assert_eq(getrusage(RUSAGE_THREAD, &ru), 0);
	return ru.ru_minflt;
}

/* minor faults taken to write every page of a fresh block of BLOCK bytes */
static long faults_to_fill(void)
{
	long before = thread_faults();
	char *p = malloc(BLOCK);
	long n;

	cr_assert_not_null(p);
	memset(p, 1, BLOCK);
	n = thread_faults() - before;
	free(keep(p));
	return n;
}

Test(heap, a_block_of_a_populated_phase_takes_no_page_faults)
{
	long cold, warm;

	fp_heap_init();
	cold = faults_to_fill();
	fp_heap_populated_begin(2 * BLOCK);
	warm = faults_to_fill();
	fp_heap_populated_end();
	cr_assert_geq(cold, BLOCK / 4096 / 2, "a fresh block faulted %ld pages",
		      cold);
	cr_assert_lt(warm, 16, "the populated block faulted %ld pages", warm);
}

Test(heap, large_blocks_are_mapped_again_after_the_phase)
{
	size_t mapped;
	char *p;

	fp_heap_init();
	fp_heap_populated_begin(2 * BLOCK);
	mapped = mallinfo2().hblks;
	p = keep(malloc(BLOCK));
	cr_assert_eq(mallinfo2().hblks, mapped, "mapped within the phase");
	free(p);
	fp_heap_populated_end();
	p = keep(malloc(BLOCK));
	cr_assert_eq(mallinfo2().hblks, mapped + 1,
		     "a large block is not mapped after the phase");
	free(p);
}

Test(heap, no_size_changes_nothing)
{
	size_t mapped;
	char *p;

	fp_heap_init();
	fp_heap_populated_begin(0);
	mapped = mallinfo2().hblks;
	p = keep(malloc(BLOCK));
	cr_assert_eq(mallinfo2().hblks, mapped + 1);
	free(p);
	fp_heap_populated_end();
}
