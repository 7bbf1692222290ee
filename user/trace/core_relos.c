// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core_relos.h"

/* libbpf's struct btf_ext_header (libbpf_internal.h), core part included */
struct ext_header {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t func_info_off;
	uint32_t func_info_len;
	uint32_t line_info_off;
	uint32_t line_info_len;
	uint32_t core_relo_off;
	uint32_t core_relo_len;
};

struct sec {
	const unsigned char *data;
	size_t len;
};

/* the sections named .BTF and .BTF.ext */
static int find_sections(const unsigned char *elf, size_t len, struct sec *btf,
			 struct sec *ext)
{
	const Elf64_Ehdr *eh = (const void *)elf;
	const Elf64_Shdr *sh, *names;
	unsigned int i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ?
					     ELFDATA2LSB :
					     ELFDATA2MSB) ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_shoff > len ||
	    (len - eh->e_shoff) / sizeof(*sh) < eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum || eh->e_shoff % 8)
		return -EINVAL;
	sh = (const void *)(elf + eh->e_shoff);
	names = &sh[eh->e_shstrndx];
	if (names->sh_offset > len || names->sh_size > len - names->sh_offset)
		return -EINVAL;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *name =
			(const char *)elf + names->sh_offset + sh[i].sh_name;
		struct sec *to = NULL;

		if (sh[i].sh_name >= names->sh_size ||
		    !memchr(name, '\0', names->sh_size - sh[i].sh_name))
			return -EINVAL;
		if (!strcmp(name, ".BTF"))
			to = btf;
		else if (!strcmp(name, ".BTF.ext"))
			to = ext;
		if (!to)
			continue;
		if (sh[i].sh_offset > len ||
		    sh[i].sh_size > len - sh[i].sh_offset)
			return -EINVAL;
		to->data = elf + sh[i].sh_offset;
		to->len = sh[i].sh_size;
	}
	return btf->data && ext->data ? 0 : -EINVAL;
}

static int add(struct fp_core_relos *r, uint32_t local_id, uint32_t kind)
{
	struct fp_core_root *roots;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->roots[i].local_id == local_id) {
			r->roots[i].kinds |= 1u << kind;
			return 0;
		}
	roots = realloc(r->roots, (r->n + 1) * sizeof(*roots));
	if (!roots)
		return -ENOMEM;
	r->roots = roots;
	r->roots[r->n].local_id = local_id;
	r->roots[r->n].kinds = 1u << kind;
	r->n++;
	return 0;
}

/* the core_relo part: a record size, then per ELF section a count and
 * that many records */
static int read_relos(struct fp_core_relos *r, const unsigned char *d,
		      size_t len)
{
	const struct bpf_core_relo *rec;
	uint32_t size, n, i;
	size_t at = 4;
	int ret;

	if (len < 4)
		return -EINVAL;
	memcpy(&size, d, 4);
	if (size < sizeof(*rec))
		return -EINVAL;
	while (at < len) {
		if (len - at < 8)
			return -EINVAL;
		memcpy(&n, d + at + 4, 4);
		at += 8;
		if ((len - at) / size < n)
			return -EINVAL;
		for (i = 0; i < n; i++, at += size) {
			rec = (const void *)(d + at);
			if ((uint32_t)rec->kind > 31)
				return -EINVAL;
			ret = add(r, rec->type_id, rec->kind);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int fp_core_relos_read(struct fp_core_relos *r, const void *elf, size_t len)
{
	struct sec btf = { 0 }, ext = { 0 };
	struct ext_header h = { 0 };
	int ret;

	memset(r, 0, sizeof(*r));
	ret = find_sections(elf, len, &btf, &ext);
	if (ret)
		return ret;
	if (ext.len < offsetof(struct ext_header, core_relo_off))
		return -EINVAL;
	memcpy(&h, ext.data, ext.len < sizeof(h) ? ext.len : sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len > ext.len)
		return -EINVAL;
	r->btf = btf.data;
	r->btf_len = btf.len;
	/* an object without CO-RE relocations has a shorter header */
	if (h.hdr_len < sizeof(h) || !h.core_relo_len)
		return 0;
	if ((uint64_t)h.core_relo_off + h.core_relo_len > ext.len - h.hdr_len)
		return -EINVAL;
	ret = read_relos(r, ext.data + h.hdr_len + h.core_relo_off,
			 h.core_relo_len);
	if (ret)
		fp_core_relos_free(r);
	return ret;
}

void fp_core_relos_free(struct fp_core_relos *r)
{
	free(r->roots);
	r->roots = NULL;
	r->n = 0;
}
