// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the JSON reader of lock and promote: any input
 * either parses into a tree whose lookups are safe, or is refused with an
 * offset inside the input. Build and run it with scripts/fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "jsonread.h"

static void walk(const struct fp_jval *v, int depth)
{
	size_t i;

	if (depth > FP_JSON_MAX_DEPTH + 1)
		abort();
	if (v->type == FP_J_STR && (!v->s || v->s[v->len] != '\0'))
		abort();
	for (i = 0; i < v->n; i++) {
		if (v->type == FP_J_OBJ && !fp_json_get(v, v->keys[i]))
			abort();
		walk(&v->items[i], depth + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_jval v;
	size_t at = 0;

	if (fp_json_parse((const char *)data, size, &v, &at)) {
		if (at > size)
			abort();
		return 0;
	}
	walk(&v, 0);
	fp_json_str(&v, "path");
	fp_json_free(&v);
	return 0;
}
