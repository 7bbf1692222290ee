/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A map or program of the skeleton by its index in the skeleton's lists,
 * which is how a warm set pins them (warm.h). A reused set is never
 * opened by libbpf, so skel->maps.X is NULL there: the tracer reaches
 * a map by FP_SKEL_MAP(X) and the descriptor of that index.
 */
#ifndef FP_SKEL_INDEX_H
#define FP_SKEL_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "footprint.skel.h"

#define FP_SKEL_MAP(name)                             \
	((offsetof(struct footprint_bpf, maps.name) - \
	  offsetof(struct footprint_bpf, maps)) /     \
	 sizeof(struct bpf_map *))
#define FP_SKEL_PROG(name)                             \
	((offsetof(struct footprint_bpf, progs.name) - \
	  offsetof(struct footprint_bpf, progs)) /     \
	 sizeof(struct bpf_program *))

/*
 * The task iterator (proctab.bpf.c): loaded and kept with the rest, but
 * read through links of its own (fp_tracer_tasks_fd), never attached to
 * a tracepoint as every other program is.
 */
static inline bool fp_skel_prog_is_iter(int i)
{
	return (size_t)i == FP_SKEL_PROG(fp_proc_iter);
}

/*
 * bpftool lists the maps and programs in the struct's order; the indexes
 * above hold only while it does, so a created skeleton is checked once.
 */
static inline bool fp_skel_in_order(struct footprint_bpf *skel)
{
	const struct bpf_object_skeleton *sk = skel->skeleton;
	struct bpf_map **maps = (struct bpf_map **)&skel->maps;
	struct bpf_program **progs = (struct bpf_program **)&skel->progs;
	int i;

	if ((size_t)sk->map_cnt * sizeof(*maps) != sizeof(skel->maps) ||
	    (size_t)sk->prog_cnt * sizeof(*progs) != sizeof(skel->progs))
		return false;
	for (i = 0; i < sk->map_cnt; i++)
		if (sk->maps[i].map != &maps[i])
			return false;
	for (i = 0; i < sk->prog_cnt; i++)
		if (sk->progs[i].prog != &progs[i])
			return false;
	return true;
}

#endif
