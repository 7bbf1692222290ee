// SPDX-License-Identifier: GPL-2.0
/* struct fp_vec's typed access: the element size of the first push holds */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "findings.h"

struct pair {
	uint32_t a, b;
};

struct triple {
	uint32_t a, b, c;
};

static void fill(struct fp_vec *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct pair *p = fp_vec_push(v, sizeof(*p));

		cr_assert_not_null(p);
		p->a = i;
		p->b = 2 * i;
	}
}

Test(vec, typed_access_reads_what_was_pushed)
{
	struct fp_vec v = { 0 };
	const struct pair *arr;
	size_t i;

	fill(&v, 40); /* past the first growth */
	cr_assert_eq(v.elem, sizeof(struct pair));
	arr = fp_vec_arr(&v, const struct pair);
	for (i = 0; i < 40; i++) {
		cr_assert_eq(fp_vec_at(&v, struct pair, i)->a, i);
		cr_assert_eq(arr[i].b, 2 * i);
	}
	fp_vec_remove(&v, 3, sizeof(struct pair));
	cr_assert_eq(v.n, 39);
	cr_assert_eq(fp_vec_at(&v, struct pair, 3)->a, 4);
	free(v.v);
}

Test(vec, an_empty_vec_has_no_array_of_any_type)
{
	struct fp_vec v = { 0 };

	cr_assert_null(fp_vec_arr(&v, struct triple));
}

Test(vec, read_as_another_type_aborts, .signal = SIGABRT)
{
	struct fp_vec v = { 0 };

	fill(&v, 2);
	(void)fp_vec_at(&v, struct triple, 0);
}

Test(vec, array_of_another_type_aborts, .signal = SIGABRT)
{
	struct fp_vec v = { 0 };

	fill(&v, 1);
	(void)fp_vec_arr(&v, struct triple);
}

Test(vec, index_past_the_end_aborts, .signal = SIGABRT)
{
	struct fp_vec v = { 0 };

	fill(&v, 2);
	(void)fp_vec_at(&v, struct pair, 2);
}

Test(vec, push_of_another_size_aborts, .signal = SIGABRT)
{
	struct fp_vec v = { 0 };

	fill(&v, 1);
	(void)fp_vec_push(&v, sizeof(struct triple));
}

Test(vec, remove_of_another_size_aborts, .signal = SIGABRT)
{
	struct fp_vec v = { 0 };

	fill(&v, 2);
	fp_vec_remove(&v, 0, sizeof(struct triple));
}
