// SPDX-License-Identifier: GPL-2.0
/*
 * promote's change sets: what a change costs in memory, measured by
 * malloc, and the bound that keeps a scratch written by the traced
 * command from costing more.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "findings.h"
#include "promote.h"

/* bytes malloc has handed out and not had back, mmapped chunks included */
static size_t in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

static struct fp_pstate link_to(char *target)
{
	struct fp_pstate st = { .type = 'l', .mode = 0777, .target = target };

	return st;
}

static char *filled(size_t n, char c)
{
	char *s = malloc(n + 1);

	cr_assert_not_null(s);
	memset(s, c, n);
	s[n] = 0;
	return s;
}

Test(promote_pset, a_change_is_small)
{
	/* a million of them fit the byte bound */
	cr_assert_leq(sizeof(struct fp_pchange), 256);
	cr_assert_leq((size_t)FP_PSET_MAX_ENTRIES * sizeof(struct fp_pchange),
		      FP_PSET_MAX_BYTES);
}

Test(promote_pset, a_symlink_costs_its_target_not_path_max)
{
	struct fp_pset s = { 0 };
	char *t = filled(100, 't'), rel[32];
	struct fp_pstate now = link_to(t);
	size_t before = in_use(), i, n = 20000;

	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "d/link%zu", i);
		cr_assert_eq(fp_pset_add(&s, rel, FP_PROMOTE_ADDED, &now, NULL),
			     0);
	}
	/* array slot 216, rel 32, target 112: well under 1 KiB, where two
	 * inline PATH_MAX targets were 8 KiB */
	cr_assert_lt((in_use() - before) / n, 1024, "%zu bytes a change",
		     (in_use() - before) / n);
	cr_assert_leq(in_use() - before, fp_pset_held() + 4096,
		      "the bound counts less than malloc holds");
	fp_pset_free(&s);
	cr_assert_eq(fp_pset_held(), 0);
	/* Criterion's own bookkeeping is a few hundred bytes; valgrind
	 * (docs) finds the exact leaks */
	cr_assert_leq(in_use(), before + 4096, "a set freed leaks %zu",
		      in_use() - before);
	free(t);
}

Test(promote_pset, the_set_keeps_its_own_copies)
{
	struct fp_pset s = { 0 };
	char t[] = "../target", b[] = "old", rel[] = "a/link";
	struct fp_pstate now = link_to(t), was = link_to(b);

	cr_assert_eq(fp_pset_add(&s, rel, FP_PROMOTE_CHANGED, &now, &was), 0);
	t[0] = b[0] = rel[0] = 'X';
	cr_assert_str_eq(s.v[0].rel, "a/link");
	cr_assert_str_eq(fp_ptarget(&s.v[0].now), "../target");
	cr_assert_str_eq(fp_ptarget(&s.v[0].before), "old");
	cr_assert_eq(fp_pset_add(&s, "gone", FP_PROMOTE_REMOVED, NULL, &was),
		     0);
	cr_assert_null(s.v[1].now.target);
	cr_assert_str_eq(fp_ptarget(&s.v[1].now), "");
	fp_pset_free(&s);
	cr_assert_eq(s.n, 0);
	cr_assert_null(s.v);
}

/* long paths and targets until the set is refused */
static size_t fill(struct fp_pset *s, char *rel, struct fp_pstate *st)
{
	size_t i;
	int e = 0;

	for (i = 0; !e; i++) {
		snprintf(rel, 32, "%zu", i);
		rel[strlen(rel)] = '/';
		e = fp_pset_add(s, rel, FP_PROMOTE_CHANGED, st, st);
	}
	cr_assert_eq(e, -E2BIG);
	return i - 1;
}

Test(promote_pset, long_targets_meet_the_byte_bound)
{
	struct fp_pset a = { 0 }, b = { 0 };
	char *rel = filled(PATH_MAX - 1, 'r'), *t = filled(PATH_MAX - 1, 't');
	struct fp_pstate st = link_to(t);
	size_t base = in_use(), n = fill(&a, rel, &st);

	cr_assert_lt(n, FP_PSET_MAX_ENTRIES, "the byte bound never hit");
	cr_assert_leq(fp_pset_held(), FP_PSET_MAX_BYTES);
	/* what malloc really holds: the bound plus a few percent */
	cr_assert_leq(in_use() - base, FP_PSET_MAX_BYTES / 100 * 102,
		      "%zu MiB held", (in_use() - base) >> 20);
	/* the bound is shared: a second set is refused too */
	cr_assert_eq(fp_pset_add(&b, rel, FP_PROMOTE_CHANGED, &st, &st),
		     -E2BIG);
	fp_pset_free(&a);
	cr_assert_eq(fp_pset_add(&b, rel, FP_PROMOTE_CHANGED, &st, &st), 0);
	fp_pset_free(&b);
	cr_assert_eq(fp_pset_held(), 0);
	free(rel);
	free(t);
}

Test(promote_pset, short_changes_meet_the_entry_bound)
{
	struct fp_pset s = { 0 };
	struct fp_pstate st = { .type = 'f', .mode = 0644 };
	size_t i;
	int e = 0;

	for (i = 0; !e; i++)
		e = fp_pset_add(&s, "f", FP_PROMOTE_ADDED, &st, NULL);
	cr_assert_eq(e, -E2BIG);
	cr_assert_eq(s.n, FP_PSET_MAX_ENTRIES);
	fp_pset_free(&s);
}

Test(promote_pset, a_state_reads_a_long_target)
{
	char dir[] = "/tmp/fp-pset-XXXXXX", *t = filled(PATH_MAX - 1, 'x');
	struct fp_pstate st;
	int fd;

	cr_assert_not_null(mkdtemp(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(symlinkat(t, fd, "l"), 0);
	cr_assert_eq(fp_promote_state(fd, "l", &st), 0);
	cr_assert_eq(st.type, 'l');
	cr_assert_str_eq(st.target, t);
	fp_pstate_free(&st);
	cr_assert_null(st.target);
	cr_assert_eq(fp_promote_state(fd, "none", &st), 0);
	cr_assert_eq(st.type, 0);
	fp_pstate_free(&st);
	unlinkat(fd, "l", 0);
	close(fd);
	rmdir(dir);
	free(t);
}

/*
 * promote's ops and the findings' op flags in one file: promote.h named
 * its removal FP_OP_REMOVED, which findings.h defines as a flag, so the
 * two headers could not be included together.
 */
Test(pset, promote_ops_are_not_the_findings_flags)
{
	cr_assert_neq(FP_PROMOTE_REMOVED, FP_PROMOTE_ADDED);
	cr_assert_neq(FP_PROMOTE_REMOVED, FP_PROMOTE_CHANGED);
	cr_assert_eq(FP_OP_REMOVED & FP_OP_CREATED, 0);
}
