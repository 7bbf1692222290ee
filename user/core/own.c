// SPDX-License-Identifier: GPL-2.0
/* Dropping the findings of footprint's own processes (own.h). */
#include <stdlib.h>

#include "netflow.h"
#include "own.h"
#include "sensitive.h"

static int ptr_cmp(const void *a, const void *b)
{
	const struct fp_cmdline *x = *(struct fp_cmdline *const *)a;
	const struct fp_cmdline *y = *(struct fp_cmdline *const *)b;

	return (x > y) - (x < y);
}

bool fp_actor_is_own(const struct fp_actor *a, struct fp_cmdline *const *own,
		     size_t n)
{
	if (a->own)
		return true;
	return a->cmd && n && bsearch(&a->cmd, own, n, sizeof(*own), ptr_cmp);
}

/* nobody, or footprint's own */
static bool none_or_own(const struct fp_actor *a, struct fp_cmdline *const *own,
			size_t n)
{
	return !a->pid || fp_actor_is_own(a, own, n);
}

#define DROP(vec, type, keep_it, clear)                         \
	do {                                                    \
		size_t i_ = 0;                                  \
		while (i_ < (vec)->n) {                         \
			type *x = fp_vec_at((vec), type, i_);   \
			if (keep_it) {                          \
				i_++;                           \
				continue;                       \
			}                                       \
			clear(x);                               \
			fp_vec_remove((vec), i_, sizeof(type)); \
		}                                               \
	} while (0)

void fp_findings_drop_own(struct fp_findings *out,
			  struct fp_cmdline *const *own, size_t n)
{
	size_t l;

	for (l = 0; l < FP_F_NLISTS; l++)
		DROP(&out->files[l], struct fp_file_finding,
		     !x->by.pid || !fp_actor_is_own(&x->by, own, n) ||
			     !none_or_own(fp_ff_actor(x, created_by), own, n) ||
			     !none_or_own(fp_ff_actor(x, removed_by), own, n),
		     fp_file_finding_clear);
	/* executed stays: it lists what ran, and is no finding */
	for (l = 0; l < FP_P_NLISTS; l++)
		if (l != FP_P_EXECUTED)
			DROP(&out->procs[l], struct fp_proc_finding,
			     !fp_actor_is_own(&x->p, own, n),
			     fp_proc_finding_clear);
	DROP(&out->privileged, struct fp_proc_finding,
	     !fp_actor_is_own(&x->p, own, n), fp_proc_finding_clear);
	DROP(&out->connected, struct fp_conn_finding,
	     !fp_actor_is_own(&x->who, own, n), fp_conn_finding_clear);
	DROP(&out->accepted, struct fp_conn_finding,
	     !fp_actor_is_own(&x->who, own, n), fp_conn_finding_clear);
	DROP(&out->dns, struct fp_dns_finding,
	     !fp_actor_is_own(&x->who, own, n), fp_dns_finding_clear);
	DROP(&out->reads, struct fp_read_finding,
	     !fp_actor_is_own(&x->by, own, n), fp_read_finding_clear);
	DROP(&out->signalled, struct fp_signal_finding,
	     !fp_actor_is_own(&x->by, own, n), fp_signal_finding_clear);
	DROP(&out->ptraced, struct fp_signal_finding,
	     !fp_actor_is_own(&x->by, own, n), fp_signal_finding_clear);
}

/* the array fp_findings_drop_own and fp_actor_is_own search */
void fp_own_sort(struct fp_cmdline **own, size_t n)
{
	if (n)
		qsort(own, n, sizeof(*own), ptr_cmp);
}
