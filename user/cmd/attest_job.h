/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An attestation asked of a command (footprint attest, run --attest,
 * sidecar stop --attest): its options, the key read with the invoking
 * user's rights, and the file written as the other outputs are
 * (outputs.h). The documents themselves are report/attest.h's.
 */
#ifndef FP_ATTEST_JOB_H
#define FP_ATTEST_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "attest.h"
#include "attest_args.h"
#include "creds.h"
#include "outputs.h"
#include "run.h"
#include "session.h"

struct fp_attest_job {
	struct fp_attest_args a;
	struct fp_attest_key *key;
	struct fp_output out;
	char *path; /* out, or the default name */
	const struct fp_creds *c; /* who reads the key and owns the file */
};

#define FP_ATTEST_JOB_INIT                        \
	{                                         \
		.out = FP_OUTPUT_INIT("the link") \
	}

/*
 * Read the key as c (never through a symbolic link) and open the output's
 * directory as c, before anything else is done. Nothing to do without
 * a->key. 0, or FP_EXIT_USAGE after one line.
 */
int fp_attest_job_prepare(struct fp_attest_job *j,
			  const struct fp_attest_args *a,
			  const struct fp_creds *c);
/*
 * Attest the receipt receipt[0..len) (before: the run's before snapshot,
 * or NULL) and write the file, made as c's and given to c. 0, or an exit
 * code (fp_attest_make's) after one line.
 */
int fp_attest_job_receipt(struct fp_attest_job *j, const char *receipt,
			  size_t len, const struct fp_fs_snapshot *before);
/* The same for a judged run (or a replayed log): its receipt, as
 * fp_run_receipt writes it, byte for byte. */
int fp_attest_job_run(struct fp_attest_job *j, const struct fp_run *run,
		      const struct fp_findings *f, const struct fp_verdict *v,
		      const struct fp_outcome *o);
/*
 * run --attest, once the session is judged (and sidecar stop's, later:
 * one report path): the link of its verdict, if it reached one. rc is the
 * run's exit code; the one to exit with is returned: a link that could
 * not be made turns an ok into 1 (refused) or 125 (not written).
 */
int fp_attest_after_run(struct fp_attest_job *j, const struct fp_session *s,
			int rc);
void fp_attest_job_free(struct fp_attest_job *j);

#endif
