// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
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

static long scan(const void *d, size_t len, struct fp_btf_query *q, size_t n)
{
	const unsigned char *at;
	struct fp_btf_raw b;
	uint32_t i;

	if (fp_btf_raw_parse(&b, d, len, false))
		return -EINVAL;
	at = b.types;
	for (i = 0; i < b.n; i++) {
		const struct btf_type *t = (const void *)at;

		match(t, b.strs, b.str_len, q, n);
		at += sizeof(*t) + fp_btf_type_extra(t);
	}
	return b.n;
}

long fp_btf_find_names(const char *path, struct fp_btf_query *q, size_t n)
{
	bool mapped;
	size_t i, len;
	void *d;
	long ret;

	for (i = 0; i < n; i++)
		q[i].found = false;
	d = fp_btf_map(path, &len, &mapped);
	if (!d)
		return -errno;
	ret = scan(d, len, q, n);
	fp_btf_unmap(d, len, mapped);
	return ret;
}
