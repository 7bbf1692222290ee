/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state the suggester's tests work on: the suggester S and the
 * suggestions OUT it finished with; suggest_fixture_setup() and
 * suggest_fixture_free() are their suites' .init and .fini. Each test
 * makes S with its own start().
 */
#ifndef FP_SUGGEST_FIXTURE_H
#define FP_SUGGEST_FIXTURE_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <string.h>

#include "policy.h"
#include "suggest.h"

static struct fp_suggester *S;
static struct fp_vec OUT;

static inline void suggest_fixture_setup(void)
{
	S = NULL;
	memset(&OUT, 0, sizeof(OUT));
}

static inline void suggest_fixture_free(void)
{
	fp_suggester_free(S);
	fp_suggs_free(&OUT);
}

/* the run made p (len bytes), a directory or not */
static inline void made_n(const char *p, size_t len, bool dir)
{
	cr_assert_eq(fp_suggester_created(S, p, len, dir), 0);
}

static inline void made(const char *p, bool dir)
{
	made_n(p, strlen(p), dir);
}

/* a failing finding at path p, made by the run or not */
static inline void need_n(const char *p, size_t len, bool created)
{
	if (created)
		made_n(p, len, false);
	cr_assert_eq(fp_suggester_need(S, FP_T_PATH, p, len, created), 0);
}

static inline void need(const char *p, bool created)
{
	need_n(p, strlen(p), created);
}

/* OUT: the suggestions, each also in the test's log */
static inline void finish(void)
{
	size_t i;

	cr_assert_eq(fp_suggester_finish(S, &OUT), 0);
	for (i = 0; i < OUT.n; i++)
		cr_log_info("%s  # covers %zu",
			    ((struct fp_sugg *)OUT.v)[i].line,
			    ((struct fp_sugg *)OUT.v)[i].count);
}

static inline const struct fp_sugg *sugg(size_t i)
{
	cr_assert_lt(i, OUT.n, "only %zu suggestions", OUT.n);
	return &((struct fp_sugg *)OUT.v)[i];
}

#endif
