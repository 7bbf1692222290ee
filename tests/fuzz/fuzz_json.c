// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for footprint's JSON reader (locks, receipts, shapes):
 * any input either parses into a tree whose lookups are safe, or is
 * refused with a message. Build and run it with scripts/fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "jsonin.h"

static void walk(const struct fp_jv *v, int depth)
{
	size_t i;

	if (depth > FP_JSONIN_DEPTH + 1)
		abort();
	if (v->type == FP_JV_STR && (!v->s || v->s[v->len] != '\0'))
		abort();
	for (i = 0; i < v->n; i++) {
		if (v->type == FP_JV_OBJ && !fp_jv_get(v, v->keys[i]))
			abort();
		walk(&v->items[i], depth + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_jv v;
	char err[128];

	if (fp_json_parse((const char *)data, size, &v, err, sizeof(err))) {
		if (!err[0])
			abort();
		return 0;
	}
	walk(&v, 0);
	fp_jv_str(&v, "path");
	fp_jv_int(&v, "mode", 0);
	fp_jv_free(&v);
	return 0;
}
