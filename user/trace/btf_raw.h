/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw BTF as the kernel shows it (/sys/kernel/btf/vmlinux) or as an
 * object carries it (.BTF): its sections checked, its records walked,
 * and, when asked, indexed by type id. For the few passes footprint
 * makes itself; libbpf's parse validates and indexes everything, which
 * costs a cold start tens of ms.
 */
#ifndef FP_BTF_RAW_H
#define FP_BTF_RAW_H

#include <linux/btf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* BTF grows with the kernel; a file this big is not one */
#define FP_BTF_MAX (256u << 20)

struct fp_btf_raw {
	const unsigned char *types;
	size_t type_len;
	const char *strs;
	size_t str_len;
	uint32_t n; /* types, void not counted: ids 1..n */
	uint32_t *off; /* off[id]: the record's offset in types, when indexed */
};

/* bytes that follow struct btf_type for this kind, or -1 if unknown;
 * inline: it is called once for each of the kernel's 126,000 types */
static inline long fp_btf_type_extra(const struct btf_type *t)
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
/*
 * Checks the header and the sections of data and counts the records
 * (index: and notes where each starts). 0 or -EINVAL, -ENOMEM. b points
 * into data, which must outlive it.
 */
int fp_btf_raw_parse(struct fp_btf_raw *b, const void *data, size_t len,
		     bool index);
void fp_btf_raw_free(struct fp_btf_raw *b);
/* the record of id (1..n) of an indexed b */
const struct btf_type *fp_btf_raw_type(const struct fp_btf_raw *b, uint32_t id);
/* the string at off, or NULL if off is outside the string section */
const char *fp_btf_raw_str(const struct fp_btf_raw *b, uint32_t off);

/* a BTF file, mapped read-only (sysfs maps vmlinux BTF since 6.16) or
 * read, and its parse */
struct fp_btf_file {
	void *data;
	size_t len;
	bool mapped;
	struct fp_btf_raw raw;
};

/*
 * Reads and parses (index: indexes) the file at path. 0, or -errno
 * (-EINVAL: not BTF this reader understands), and f holds nothing.
 */
int fp_btf_file_open(struct fp_btf_file *f, const char *path, bool index);
/* frees what f holds; a file never opened or whose open failed, too */
void fp_btf_file_close(struct fp_btf_file *f);

#endif
