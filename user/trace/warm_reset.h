/* SPDX-License-Identifier: GPL-2.0 */
/* The reset of a reused set (warm.h): what warm.c needs of warm_reset.c. */
#ifndef FP_WARM_RESET_H
#define FP_WARM_RESET_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

struct bpf_map;
struct bpf_map_info;
struct footprint_bpf__bss;

/* What a reset needs to know of a map: the kernel's word, or libbpf's. */
struct fp_map_shape {
	__u32 type;
	__u32 key_size;
	__u32 value_size;
	__u32 max_entries;
	__u32 flags;
	bool global_data; /* .rodata, .bss, .kconfig: mapped, a load's */
};

/* libbpf's word (an opened object), or the kernel's (a pinned map) */
void fp_map_shape_of(const struct bpf_map *m, bool global_data,
		     struct fp_map_shape *s);
void fp_map_shape_info(const struct bpf_map_info *info, bool global_data,
		       struct fp_map_shape *s);
/* Is a map of this shape one fp_warm_reset_state() brings back? */
bool fp_warm_map_resettable(const struct fp_map_shape *s);
/* Each of n maps, and the .bss, back to what a fresh load has. */
int fp_warm_reset_state(const int *map_fd, const struct fp_map_shape *shape,
			int n, struct footprint_bpf__bss *bss);
/* A map's global data mapped as libbpf would; its length into *len. */
void *fp_warm_map_global_data(int fd, const struct fp_map_shape *s,
			      size_t *len);

#endif
