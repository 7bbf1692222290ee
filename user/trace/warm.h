/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A warm tracer: the programs one run loaded, kept loaded (pinned in
 * bpffs, never attached) for the next run to attach without a load.
 * Loading is most of a short run's time (the kernel's verifier, libbpf's
 * BTF parse and CO-RE relocation); attaching is a fraction of a ms.
 *
 * A set is one directory under FP_WARM_DIR, named by a hash of all that
 * decides what was loaded: the object's bytes, its read-only knobs, map
 * sizes, the programs chosen for this kernel, the syscall table. One run
 * at a time holds it (flock); another run meanwhile loads its own. The
 * holder resets the state the last one left (warm.c) before it attaches.
 * docs/security.md says why this is safe.
 */
#ifndef FP_WARM_H
#define FP_WARM_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

#include "warm_reset.h"

struct footprint_bpf;
struct fp_load_knobs;

#define FP_WARM_BPFFS "/sys/fs/bpf"
#define FP_WARM_DIR FP_WARM_BPFFS "/footprint"
#define FP_WARM_MAX_PROGS 16
#define FP_WARM_MAX_MAPS 32

enum fp_warm_mode {
	FP_WARM_OFF, /* load afresh, keep nothing */
	FP_WARM_SAVE, /* load afresh, then pin for the next run */
	FP_WARM_REUSE, /* the pinned set, reset */
};

struct fp_warm {
	enum fp_warm_mode mode;
	int dirfd; /* the set's directory, flocked while in use; -1: none */
	/* FP_WARM_DIR, whose flock makes choosing, creating and evicting
	 * sets one run's at a time; -1: none */
	int basefd;
	char key[33];
	/* REUSE: the pinned objects, in the skeleton's order; -1: none */
	int prog_fd[FP_WARM_MAX_PROGS];
	int map_fd[FP_WARM_MAX_MAPS];
	int link_fd[FP_WARM_MAX_PROGS];
	struct fp_map_shape map_shape[FP_WARM_MAX_MAPS]; /* the kernel's word */
	/* REUSE: the global data mapped, and the skeleton's pointer to it */
	void *mapped[FP_WARM_MAX_MAPS];
	size_t mapped_len[FP_WARM_MAX_MAPS];
	void **mapped_at[FP_WARM_MAX_MAPS];
	const char *why; /* OFF: why, for FOOTPRINT_DEBUG */
	bool foreign; /* a directory not root's alone where a set would go */
};

void fp_warm_init(struct fp_warm *w);
/*
 * For a skeleton created (libbpf need not have opened it), the knobs of
 * the load and the syscall table user space will fill in: REUSE if a
 * complete set of the same key was free to take, SAVE if this run is to
 * make one, OFF if neither (bpffs missing, the set busy with another
 * run, a directory not root's alone). The sets are chosen, made and
 * evicted under FP_WARM_DIR's flock, so that runs at once cannot evict a
 * set another is making.
 */
enum fp_warm_mode fp_warm_begin(struct fp_warm *w, struct footprint_bpf *skel,
				const struct fp_load_knobs *k,
				const __u32 *sys_table, size_t n);
/*
 * REUSE: the skeleton's global data pointers (rodata, bss) become the
 * set's, its state reset; the maps are used by map_fd[], never through
 * the skeleton's (unopened) maps.
 */
int fp_warm_reuse(struct fp_warm *w, struct footprint_bpf *skel);
/* SAVE, once loaded: pin it all; on failure no set is left, mode OFF */
void fp_warm_save(struct fp_warm *w, struct footprint_bpf *skel);
/* REUSE: link (and unlink) the pinned programs, as the skeleton would */
int fp_warm_attach(struct fp_warm *w);
void fp_warm_detach(struct fp_warm *w);
/*
 * The set, to be handed on with its links to a process that closes them
 * after this one has ended (the watchdog): its flock made shared, which
 * tells the next run the set is being let go, not used (fp_warm_begin
 * waits for it then). Its fd, or -1: no set, or the flock unchanged.
 */
int fp_warm_detaching(struct fp_warm *w);
/*
 * Lets the set go (the next run may take it) and closes what it held;
 * then, under FP_WARM_DIR's flock, no more sets stay pinned than the
 * bound, counting those other runs still hold.
 */
void fp_warm_end(struct fp_warm *w);
/*
 * A note if a directory of the sets was someone else's; with
 * FOOTPRINT_DEBUG=1, one line on what became of the set.
 */
void fp_warm_report(const struct fp_warm *w);

#endif
