/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernels name and shape their tracepoints differently across versions.
 * Before load, the kernel's BTF says which of the alternative programs
 * can attach; a feature whose hook is missing is turned off in a way
 * that never traces less (the walk cache, say, walks every time).
 */
#ifndef FP_HOOKS_H
#define FP_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

struct footprint_bpf;
struct fp_btf_raw;

/* where the kernel shows its BTF, which libbpf reads for a fresh load */
#define FP_VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/*
 * Set autoload and read-only switches of the opened, not yet loaded
 * skeleton. kern: the kernel's BTF parsed already, or NULL (read here).
 * note gets what this kernel lacks, "" when nothing. Returns 0 or -errno
 * when the kernel's BTF cannot be read.
 */
int fp_hooks_choose(struct footprint_bpf *skel, const struct fp_btf_raw *kern,
		    char *note, size_t notelen);
/*
 * For programs an earlier run chose and kept loaded (warm.h): says again
 * what fp_hooks_choose's note said, from what the choice left in .rodata.
 */
void fp_hooks_note(const struct footprint_bpf *skel);
/* Whether fp_hooks_choose() may turn the i-th program's autoload off. */
bool fp_hooks_optional(int prog_index);
/*
 * The FOOTPRINT_DEBUG_* switches that change fp_hooks_choose()'s choice,
 * as bits: a warm set made without them is not one made with them.
 */
unsigned int fp_hooks_debug(void);

#endif
