// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf_names.h"

/* BTF grows with the kernel; a file this big is not one */
#define BTF_MAX (256u << 20)

/* bytes that follow struct btf_type for this kind, or -1 if unknown */
static long extra_len(const struct btf_type *t)
{
	unsigned long vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return vlen * 12; /* struct btf_enum64 */
	}
	return -1;
}

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

static long scan(const unsigned char *d, size_t len, struct fp_btf_query *q,
		 size_t n)
{
	const struct btf_header *h = (const void *)d;
	const unsigned char *types, *end;
	const char *strs;
	long cnt = 0, x;

	if (len < sizeof(*h) || h->magic != BTF_MAGIC || h->version != 1 ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > len ||
	    (uint64_t)h->type_off + h->type_len > len - h->hdr_len ||
	    (uint64_t)h->str_off + h->str_len > len - h->hdr_len ||
	    h->type_off % 4)
		return -EINVAL;
	types = d + h->hdr_len + h->type_off;
	end = types + h->type_len;
	strs = (const char *)d + h->hdr_len + h->str_off;
	while (types < end) {
		const struct btf_type *t = (const void *)types;

		if ((size_t)(end - types) < sizeof(*t))
			return -EINVAL;
		x = extra_len(t);
		if (x < 0 || (size_t)(end - types) - sizeof(*t) < (size_t)x)
			return -EINVAL;
		match(t, strs, h->str_len, q, n);
		types += sizeof(*t) + x;
		cnt++;
	}
	return cnt;
}

/* sysfs maps vmlinux BTF read-only since 6.16; read it on older kernels */
static void *map_or_read(int fd, size_t len, bool *mapped)
{
	void *d = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	size_t got = 0;
	ssize_t r;

	*mapped = d != MAP_FAILED;
	if (*mapped)
		return d;
	d = malloc(len);
	while (d && got < len) {
		r = read(fd, (char *)d + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	if (d && got == len)
		return d;
	free(d);
	return NULL;
}

long fp_btf_find_names(const char *path, struct fp_btf_query *q, size_t n)
{
	struct stat st;
	bool mapped;
	void *d;
	long ret;
	size_t i;
	int fd;

	for (i = 0; i < n; i++)
		q[i].found = false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size > BTF_MAX) {
		close(fd);
		return -EINVAL;
	}
	d = map_or_read(fd, st.st_size, &mapped);
	close(fd);
	if (!d)
		return -EIO;
	ret = scan(d, st.st_size, q, n);
	if (mapped)
		munmap(d, st.st_size);
	else
		free(d);
	return ret;
}
