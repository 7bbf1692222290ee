/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options run, sidecar and replay share (roots, rules, outputs, the
 * log, the ring, the budget, the summary, --push), as one table and one
 * parser that writes them straight into the session's options: nothing
 * is copied from one struct of options to another on the way.
 */
#ifndef FP_SESSION_ARGS_H
#define FP_SESSION_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "longopts.h"
#include "rule_args.h"
#include "session.h"

/* the subcommands that take an option of the table */
enum {
	FP_SUB_RUN = 1 << 0,
	FP_SUB_SIDECAR = 1 << 1,
	FP_SUB_REPLAY = 1 << 2,
};

/* room for one subcommand's whole getopt table */
#define FP_LONGOPTS_MAX 64

struct fp_session_args {
	/* the session's own options, written straight (roots, pol and
	 * invoker are filled once the roots are resolved) */
	struct fp_session_opts so;
	const char *roots_arg[FP_ROOTS_MAX]; /* --root, as given */
	size_t nroots;
	struct fp_rule_args rules;
	bool mem_budget_given; /* replay: else the recorded budget */
	const char *push_url, *push_job; /* --push URL, --job NAME */
};

/* The defaults of subcommand sub (FP_SUB_*), before parsing. */
void fp_session_args_init(struct fp_session_args *a, unsigned int sub);
/*
 * Take option id if it is one of the table: 1 taken, 0 not one of them,
 * -FP_EXIT_USAGE after one line on stderr (sub names the subcommand).
 */
int fp_session_args_take(struct fp_session_args *a, const char *sub, int id,
			 const char *arg);
/* Once every option is read: --job needs --push. 0 or FP_EXIT_USAGE. */
int fp_session_args_check(const struct fp_session_args *a, const char *sub);
/*
 * The getopt table of subcommand sub: the shared options it takes, then
 * its own (ended by a NULL name), into out (FP_LONGOPTS_MAX entries).
 */
const struct option *fp_longopts_build(struct option *out, unsigned int sub,
				       const struct option *own);

#endif
