/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An array map the kernel side marks BPF_F_MMAPABLE, seen in place: the
 * per-thread slot tables (held opens, cached flows) are read at the end
 * of a run and zeroed by a reused set's reset, and one mapping does that
 * in microseconds where a batch call costs a millisecond (it copies
 * element by element).
 */
#ifndef FP_MAPARRAY_H
#define FP_MAPARRAY_H

#include <stddef.h>

struct fp_map_array {
	void *base;
	size_t len; /* of the mapping: whole pages */
	size_t stride; /* bytes from one element to the next */
};

/*
 * Map the n elements of value_size bytes of array map fd, for writing
 * too if writable. 0, or -errno (a map without BPF_F_MMAPABLE: -EPERM or
 * -EINVAL).
 */
int fp_map_array_open(struct fp_map_array *a, int fd, size_t value_size,
		      unsigned int n, int writable);

static inline void *fp_map_array_at(const struct fp_map_array *a,
				    unsigned int i)
{
	return (char *)a->base + (size_t)i * a->stride;
}

void fp_map_array_close(struct fp_map_array *a);

#endif /* FP_MAPARRAY_H */
