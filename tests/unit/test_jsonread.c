// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <string.h>

#include "jsonread.h"

static struct fp_jval parse_ok(const char *s)
{
	struct fp_jval v;
	size_t at;

	cr_assert_eq(fp_json_parse(s, strlen(s), &v, &at), 0,
		     "refused %s at %zu", s, at);
	return v;
}

static size_t parse_bad(const char *s, size_t len)
{
	struct fp_jval v;
	size_t at = 0;

	cr_assert_neq(fp_json_parse(s, len, &v, &at), 0, "took %s", s);
	return at;
}

Test(jsonread, objects_arrays_scalars)
{
	struct fp_jval v = parse_ok(
		" {\"lock\": \"outputs\", \"version\": 1, \"ok\": false,"
		" \"a\": [1, -2.5e1, null, true], \"o\": {}} ");

	cr_assert_str_eq(fp_json_str(&v, "lock"), "outputs");
	cr_assert_eq(fp_json_get(&v, "version")->num, 1);
	cr_assert_eq(fp_json_get(&v, "ok")->type, FP_J_BOOL);
	cr_assert_not(fp_json_get(&v, "ok")->b);
	cr_assert_eq(fp_json_get(&v, "a")->n, 4);
	cr_assert_eq(fp_json_get(&v, "a")->items[1].num, -25);
	cr_assert_eq(fp_json_get(&v, "a")->items[2].type, FP_J_NULL);
	cr_assert_eq(fp_json_get(&v, "o")->n, 0);
	cr_assert_null(fp_json_get(&v, "missing"));
	cr_assert_null(fp_json_str(&v, "version"), "a number is no string");
	fp_json_free(&v);
}

Test(jsonread, escapes_become_bytes)
{
	struct fp_jval v =
		parse_ok("\"a\\\"b\\\\c\\/\\n\\u00e9\\ud83d\\ude00\\u0000z\"");
	const char want[] = "a\"b\\c/\n\xc3\xa9\xf0\x9f\x98\x80\0z";

	cr_assert_eq(v.type, FP_J_STR);
	cr_assert_eq(v.len, sizeof(want) - 1);
	cr_assert_eq(memcmp(v.s, want, v.len), 0);
	fp_json_free(&v);
}

Test(jsonread, refuses_damage_with_its_offset)
{
	cr_assert_eq(parse_bad("{\"a\": 1,}", 9), 8);
	parse_bad("[1 2]", 5);
	parse_bad("\"\\ud83d\"", 8); /* a lone surrogate */
	parse_bad("\"\\udc00\"", 8);
	parse_bad("\"a\nb\"", 5); /* a raw control character */
	parse_bad("{\"a\" 1}", 7);
	parse_bad("tru", 3);
	parse_bad("{} {}", 5);
	parse_bad("\"abc", 4);
	parse_bad("", 0);
}

Test(jsonread, depth_is_bounded)
{
	char deep[2 * FP_JSON_MAX_DEPTH + 4];
	size_t i, n = FP_JSON_MAX_DEPTH + 1;

	for (i = 0; i < n; i++) {
		deep[i] = '[';
		deep[n + i] = ']';
	}
	parse_bad(deep, 2 * n);
	/* one level less is fine */
	{
		struct fp_jval v;

		cr_assert_eq(fp_json_parse(deep + 1, 2 * n - 2, &v, NULL), 0);
		fp_json_free(&v);
	}
}
