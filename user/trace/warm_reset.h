/* SPDX-License-Identifier: GPL-2.0 */
/* The reset of a reused set (warm.h): what warm.c needs of warm_reset.c. */
#ifndef FP_WARM_RESET_H
#define FP_WARM_RESET_H

#include <stdbool.h>

#include <bpf/libbpf.h>

struct footprint_bpf;

/* Is m of a kind fp_warm_reset_state() brings back to a fresh load? */
bool fp_warm_map_resettable(const struct bpf_map *m);
int fp_warm_reset_state(struct footprint_bpf *skel);
/* As libbpf maps a loaded skeleton's global data, over its first image. */
int fp_warm_map_global_data(const struct bpf_map_skeleton *ms);

#endif
