// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf_raw.h"

/* one pass over the records: their number, and where each starts */
static int walk(struct fp_btf_raw *b, bool index)
{
	size_t at = 0;
	long x;

	/* a record is at least a struct btf_type: room for the most */
	if (index) {
		b->off = malloc((b->type_len / sizeof(struct btf_type) + 2) *
				sizeof(*b->off));
		if (!b->off)
			return -ENOMEM;
	}
	while (at < b->type_len) {
		const struct btf_type *t = (const void *)(b->types + at);

		if (b->type_len - at < sizeof(*t))
			return -EINVAL;
		x = fp_btf_type_extra(t);
		if (x < 0 || b->type_len - at - sizeof(*t) < (size_t)x)
			return -EINVAL;
		b->n++;
		if (index)
			b->off[b->n] = at;
		at += sizeof(*t) + x;
	}
	return 0;
}

int fp_btf_raw_parse(struct fp_btf_raw *b, const void *data, size_t len,
		     bool index)
{
	const struct btf_header *h = data;
	int ret;

	memset(b, 0, sizeof(*b));
	if (len < sizeof(*h) || h->magic != BTF_MAGIC || h->version != 1 ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > len ||
	    (uint64_t)h->type_off + h->type_len > len - h->hdr_len ||
	    (uint64_t)h->str_off + h->str_len > len - h->hdr_len ||
	    h->type_off % 4 || !h->str_len)
		return -EINVAL;
	b->types = (const unsigned char *)data + h->hdr_len + h->type_off;
	b->type_len = h->type_len;
	b->strs = (const char *)data + h->hdr_len + h->str_off;
	b->str_len = h->str_len;
	if (b->strs[b->str_len - 1])
		return -EINVAL;
	ret = walk(b, index);
	if (ret)
		fp_btf_raw_free(b);
	return ret;
}

void fp_btf_raw_free(struct fp_btf_raw *b)
{
	free(b->off);
	b->off = NULL;
}

const struct btf_type *fp_btf_raw_type(const struct fp_btf_raw *b, uint32_t id)
{
	if (!id || id > b->n || !b->off)
		return NULL;
	return (const void *)(b->types + b->off[id]);
}

const char *fp_btf_raw_str(const struct fp_btf_raw *b, uint32_t off)
{
	return off < b->str_len ? b->strs + off : NULL;
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

int fp_btf_file_open(struct fp_btf_file *f, const char *path, bool index)
{
	struct stat st;
	int fd, ret;

	memset(f, 0, sizeof(*f));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size > FP_BTF_MAX) {
		close(fd);
		return -EINVAL;
	}
	f->len = st.st_size;
	f->data = map_or_read(fd, f->len, &f->mapped);
	close(fd);
	if (!f->data)
		return -EIO;
	ret = fp_btf_raw_parse(&f->raw, f->data, f->len, index);
	if (ret)
		fp_btf_file_close(f);
	return ret;
}

void fp_btf_file_close(struct fp_btf_file *f)
{
	fp_btf_raw_free(&f->raw);
	if (f->data && f->mapped)
		munmap(f->data, f->len);
	else
		free(f->data);
	memset(f, 0, sizeof(*f));
}
