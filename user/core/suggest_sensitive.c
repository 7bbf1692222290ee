// SPDX-License-Identifier: GPL-2.0
/*
 * What a learned policy needs for files.read, processes.signalled_outside
 * and processes.ptraced: the rules judge_sensitive.c matches, so that the
 * lines suggested let the same run pass.
 */
#include "judge.h"
#include "sensitive.h"
#include "suggest.h"

/* by the target's executable, which the signal and ptrace rules name; a
 * target of no known executable (kill -1, gone) no allow rule covers */
static int signal_needs(struct fp_suggester *s, const struct fp_vec *v,
			enum fp_rule_target t)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < v->n && !ret; i++) {
		const struct fp_signal_finding *x =
			fp_vec_at(v, const struct fp_signal_finding, i);

		if (x->failing && !x->forbidden && x->target_exe.len)
			ret = fp_suggester_need(s, t, x->target_exe.data,
						x->target_exe.len, false);
	}
	return ret;
}

int fp_sensitive_needs(struct fp_suggester *s, const struct fp_findings *f)
{
	size_t i;
	int ret = 0;

	/* scoped to the program that read it: a secret is never allowed
	 * to every process; a reader of no known executable gets none */
	for (i = 0; i < f->reads.n && !ret; i++) {
		const struct fp_read_finding *x = &FP_READS(f)[i];

		if (x->failing && !x->forbidden && x->by.exe.len)
			ret = fp_suggester_need_by(
				s, FP_T_READ, x->path.data, x->path.len, false,
				x->by.exe.data, x->by.exe.len);
	}
	if (!ret)
		ret = signal_needs(s, &f->signalled, FP_T_SIGNAL);
	return ret ? ret : signal_needs(s, &f->ptraced, FP_T_PTRACE);
}
