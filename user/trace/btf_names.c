// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <string.h>

#include "btf_names.h"
#include "btf_raw.h"

static void match(const struct btf_type *t, const char *strs, size_t slen,
		  struct fp_btf_query *q, size_t n)
{
	unsigned int kind = BTF_INFO_KIND(t->info);
	const char *name;
	size_t i, left;

	if (!t->name_off || t->name_off >= slen)
		return;
	name = strs + t->name_off;
	left = slen - t->name_off;
	for (i = 0; i < n; i++)
		if (q[i].kind == kind && name[0] == q[i].name[0] &&
		    strnlen(name, left) < left && !strcmp(name, q[i].name))
			q[i].found = true;
}

long fp_btf_find_names_in(const struct fp_btf_raw *b, struct fp_btf_query *q,
			  size_t n)
{
	const unsigned char *at = b->types;
	uint32_t i;

	for (i = 0; i < n; i++)
		q[i].found = false;
	/* parsed: each record's size was checked against the section */
	for (i = 0; i < b->n; i++) {
		const struct btf_type *t = (const void *)at;

		match(t, b->strs, b->str_len, q, n);
		at += sizeof(*t) + fp_btf_type_extra(t);
	}
	return b->n;
}

long fp_btf_find_names(const char *path, struct fp_btf_query *q, size_t n)
{
	struct fp_btf_file f;
	long ret;
	size_t i;

	for (i = 0; i < n; i++)
		q[i].found = false;
	ret = fp_btf_file_open(&f, path, false);
	if (ret)
		return ret;
	ret = fp_btf_find_names_in(&f.raw, q, n);
	fp_btf_file_close(&f);
	return ret;
}
