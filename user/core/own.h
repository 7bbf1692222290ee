/* SPDX-License-Identifier: GPL-2.0 */
/*
 * footprint's own processes in a sidecar's job: the clients of its control
 * socket (`sidecar mark`, `status`, `stop` and the child stop runs in) and
 * the sudo that launched them, as the daemon checked them (FP_EV_CONTROL:
 * the executable is footprint's own, not the name). What they did is
 * footprint's work, not the job's: never a finding, whatever the policy.
 */
#ifndef FP_OWN_H
#define FP_OWN_H

#include <stdbool.h>
#include <stddef.h>

#include "findings.h"

/*
 * Is a footprint's own? Its own flag (a process that predates the trace)
 * or its command line, one of own[] (sorted by address: the exec records
 * of footprint's processes, which every actor naming them shares).
 */
bool fp_actor_is_own(const struct fp_actor *a, struct fp_cmdline *const *own,
		     size_t n);
/* Sort own[] for the two functions here. */
void fp_own_sort(struct fp_cmdline **own, size_t n);
/* Drop from out every finding that only footprint's own processes made
 * (tamper evidence stays, whoever it names). */
void fp_findings_drop_own(struct fp_findings *out,
			  struct fp_cmdline *const *own, size_t n);

#endif
