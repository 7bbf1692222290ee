// SPDX-License-Identifier: GPL-2.0
/* the JSON reader: values, escapes, bounds, malformed input */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "jsonin.h"

static struct fp_jv V;
static char err[256];

static void teardown(void)
{
	fp_jv_free(&V);
}

TestSuite(jsonin, .fini = teardown, .timeout = 10);

static int parse(const char *s)
{
	fp_jv_free(&V);
	return fp_json_parse(s, strlen(s), &V, err, sizeof(err));
}

Test(jsonin, values)
{
	cr_assert_eq(parse(" {\"a\":[1,-2,true,false,null,\"x\"],\"b\":{}} "),
		     0, "%s", err);
	cr_assert_eq(V.type, FP_JV_OBJ);
	cr_assert_eq(fp_jv_get(&V, "a")->n, 6);
	cr_assert_eq(fp_jv_get(&V, "a")->items[1].type, FP_JV_NUM);
	cr_assert_str_eq(fp_jv_get(&V, "a")->items[5].s, "x");
	cr_assert_eq(fp_jv_get(&V, "a")->items[2].b, true);
	cr_assert_eq(fp_jv_get(&V, "b")->type, FP_JV_OBJ);
	cr_assert_null(fp_jv_get(&V, "c"));
}

Test(jsonin, typed_lookups)
{
	cr_assert_eq(parse("{\"n\":42,\"s\":\"t\",\"b\":true,\"f\":1.5}"), 0);
	cr_assert_eq(fp_jv_int(&V, "n", -1), 42);
	cr_assert_eq(fp_jv_int(&V, "f", -1), -1);
	cr_assert_eq(fp_jv_int(&V, "s", -1), -1);
	cr_assert_str_eq(fp_jv_str(&V, "s"), "t");
	cr_assert_null(fp_jv_str(&V, "n"));
	cr_assert_eq(fp_jv_bool(&V, "b"), 1);
	cr_assert_eq(fp_jv_bool(&V, "n"), -1);
}

Test(jsonin, escapes_become_bytes)
{
	cr_assert_eq(parse("\"a\\n\\u00e9\\ud83d\\ude00\\u0000z\\\"\""), 0,
		     "%s", err);
	cr_assert_eq(V.len, 1 + 1 + 2 + 4 + 1 + 1 + 1);
	cr_assert_eq(memcmp(V.s, "a\n\xc3\xa9\xf0\x9f\x98\x80\0z\"", V.len), 0);
}

Test(jsonin, malformed)
{
	const char *bad[] = {
		"",	 "{",	    "[1,]",	   "{\"a\" 1}",	  "{\"a\":1,}",
		"\"abc", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "tru",
		"1 2",	 "{1:2}",   "\"a\nb\"",	   "-",		  "[\"\\u12\"]",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(parse(bad[i]), -1, "accepted '%s'", bad[i]);
	cr_assert_eq(V.type, FP_JV_NULL);
}

Test(jsonin, nesting_is_bounded)
{
	char deep[FP_JSONIN_DEPTH * 2 + 8];
	size_t n = FP_JSONIN_DEPTH + 1;

	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = '\0';
	cr_assert_eq(parse(deep), -1);
	cr_assert(strstr(err, "nested too deeply"), "%s", err);
	n = FP_JSONIN_DEPTH;
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = '\0';
	cr_assert_eq(parse(deep), 0, "%s", err);
}

/* a long array grows geometrically; one value too many is refused */
Test(jsonin, values_are_bounded)
{
	size_t n = FP_JSONIN_VALUES, i;
	char *doc = malloc(2 * n + 8);

	doc[0] = '[';
	for (i = 0; i < n; i++) {
		doc[1 + 2 * i] = '0';
		doc[2 + 2 * i] = ',';
	}
	doc[2 * n] = ']';
	doc[2 * n + 1] = '\0';
	cr_assert_eq(parse(doc), 0, "%s", err);
	cr_assert_eq(V.n, n);
	doc[2 * n] = ',';
	doc[2 * n + 1] = '0';
	doc[2 * n + 2] = ']';
	doc[2 * n + 3] = '\0';
	cr_assert_eq(parse(doc), -1);
	cr_assert(strstr(err, "too many values"), "%s", err);
	free(doc);
}
