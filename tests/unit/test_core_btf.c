// SPDX-License-Identifier: GPL-2.0
/*
 * The small BTF for CO-RE (core_btf.h) against the running kernel's and
 * footprint's own object, read back by libbpf; and the cases where none
 * may stand in for the kernel's. The relocations themselves are compared
 * by a load each way in tests/integration/test_core_btf.py.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <criterion/criterion.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_btf.h"
#include "core_btf_mods.h"
#include "footprint.skel.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"

struct kernel {
	struct fp_btf_file file;
	struct btf *btf; /* libbpf's parse, to hold the small one against */
};

static void kernel_open(struct kernel *k)
{
	if (access(VMLINUX, R_OK))
		cr_skip_test("this kernel has no " VMLINUX);
	cr_assert_eq(fp_btf_file_open(&k->file, VMLINUX, true), 0);
	k->btf = btf__parse(VMLINUX, NULL);
	cr_assert(!libbpf_get_error(k->btf));
}

static void kernel_close(struct kernel *k)
{
	btf__free(k->btf);
	fp_btf_file_close(&k->file);
}

/* modules that have every type asked about, or none */
static bool have_all(void *ctx, const char *name, size_t len, unsigned int kind)
{
	(void)ctx, (void)name, (void)len, (void)kind;
	return true;
}

static bool have_none(void *ctx, const char *name, size_t len,
		      unsigned int kind)
{
	(void)ctx, (void)name, (void)len, (void)kind;
	return false;
}

static const struct fp_core_modules all_mods = { .has = have_all };
static const struct fp_core_modules no_mods = { .has = have_none };

/* the small BTF for relocations r of local, parsed by libbpf */
static struct btf *small_for(struct kernel *k, const struct fp_btf_raw *local,
			     const struct fp_core_relos *r,
			     const struct fp_core_modules *mods, int *err)
{
	struct btf *small = NULL;
	size_t len;
	void *out;

	*err = fp_core_btf_build(&k->file.raw, local, r, mods, &out, &len);
	if (*err)
		return NULL;
	small = btf__new(out, len);
	free(out);
	cr_assert(!libbpf_get_error(small), "libbpf cannot parse it");
	return small;
}

/* a struct's members, names and offsets, the same in both */
static void assert_same_struct(const struct btf *a, const struct btf *b,
			       __u32 id)
{
	const struct btf_type *ta = btf__type_by_id(a, id);
	const struct btf_type *tb = btf__type_by_id(b, id);
	const struct btf_member *ma = btf_members(ta), *mb = btf_members(tb);
	int i;

	cr_assert_eq(btf_kind(ta), btf_kind(tb));
	cr_assert_eq(ta->size, tb->size);
	cr_assert_eq(btf_vlen(ta), btf_vlen(tb));
	cr_assert_str_eq(btf__name_by_offset(a, ta->name_off),
			 btf__name_by_offset(b, tb->name_off));
	for (i = 0; i < btf_vlen(ta); i++) {
		cr_assert_str_eq(btf__name_by_offset(a, ma[i].name_off),
				 btf__name_by_offset(b, mb[i].name_off));
		cr_assert_eq(ma[i].offset, mb[i].offset);
	}
}

Test(core_btf, footprints_types_keep_their_kernel_ids)
{
	static const char *const names[] = { "task_struct", "file", "dentry",
					     "mount", "socket" };
	struct fp_core_relos r;
	struct fp_btf_raw local;
	struct kernel k;
	struct btf *small;
	const void *obj;
	size_t obj_len, i;
	int err;

	kernel_open(&k);
	obj = footprint_bpf__elf_bytes(&obj_len);
	cr_assert_eq(fp_core_relos_read(&r, obj, obj_len), 0);
	cr_assert_gt(r.n, 10, "the object relocates %zu types", r.n);
	cr_assert_eq(fp_btf_raw_parse(&local, r.btf, r.btf_len, true), 0);
	small = small_for(&k, &local, &r, NULL, &err);
	cr_assert_eq(err, 0);
	cr_assert_lt(btf__type_cnt(small), btf__type_cnt(k.btf) / 2);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		__s32 id = btf__find_by_name_kind(k.btf, names[i],
						  BTF_KIND_STRUCT);

		cr_assert_gt(id, 0);
		cr_assert_eq(btf__find_by_name_kind(small, names[i],
						    BTF_KIND_STRUCT),
			     id, "%s moved", names[i]);
		assert_same_struct(k.btf, small, id);
	}
	btf__free(small);
	fp_btf_raw_free(&local);
	fp_core_relos_free(&r);
	kernel_close(&k);
}

/* a local BTF of one type, made by libbpf's writer */
struct one {
	struct btf *btf;
	struct fp_btf_raw raw;
	struct fp_core_root root;
	struct fp_core_relos r;
};

static void one_type(struct one *o, const char *name, bool typedef_of_int,
		     unsigned int relo_kind)
{
	const void *raw;
	__u32 len;
	int id;

	o->btf = btf__new_empty();
	cr_assert_not_null(o->btf);
	if (typedef_of_int) {
		cr_assert_eq(btf__add_int(o->btf, "int", 4, BTF_INT_SIGNED), 1);
		id = btf__add_typedef(o->btf, name, 1);
	} else {
		id = btf__add_struct(o->btf, name, 8);
	}
	cr_assert_gt(id, 0);
	raw = btf__raw_data(o->btf, &len);
	cr_assert_eq(fp_btf_raw_parse(&o->raw, raw, len, true), 0);
	o->root = (struct fp_core_root){ .local_id = id,
					 .kinds = 1u << relo_kind };
	o->r = (struct fp_core_relos){ .roots = &o->root, .n = 1 };
}

static void one_free(struct one *o)
{
	fp_btf_raw_free(&o->raw);
	btf__free(o->btf);
}

static int build_one(struct kernel *k, const char *name, bool typedef_of_int,
		     unsigned int relo_kind, const struct fp_core_modules *mods,
		     struct btf **small)
{
	struct one o;
	int err;

	one_type(&o, name, typedef_of_int, relo_kind);
	*small = small_for(k, &o.raw, &o.r, mods, &err);
	one_free(&o);
	return err;
}

Test(core_btf, a_flavour_finds_its_kernel_type)
{
	struct kernel k;
	struct btf *small;
	__s32 id;

	kernel_open(&k);
	id = btf__find_by_name_kind(k.btf, "task_struct", BTF_KIND_STRUCT);
	cr_assert_eq(build_one(&k, "task_struct___fp", false,
			       BPF_CORE_TYPE_ID_TARGET, &all_mods, &small),
		     0);
	cr_assert_eq(
		btf__find_by_name_kind(small, "task_struct", BTF_KIND_STRUCT),
		id);
	/* nothing above what it holds by value: no task, file or mm */
	cr_assert_eq(
		btf__find_by_name_kind(small, "mm_struct", BTF_KIND_STRUCT),
		-ENOENT);
	btf__free(small);
	kernel_close(&k);
}

Test(core_btf, a_pointer_points_to_void)
{
	const struct btf_type *t;
	const struct btf_member *m;
	struct kernel k;
	struct btf *small;
	__s32 id;
	int i, seen = 0;

	kernel_open(&k);
	cr_assert_eq(build_one(&k, "task_struct", false,
			       BPF_CORE_FIELD_BYTE_OFFSET, NULL, &small),
		     0);
	/* no relocation asks for its id: it need not keep it */
	cr_assert_lt(btf__type_cnt(small), 10000);
	id = btf__find_by_name_kind(small, "task_struct", BTF_KIND_STRUCT);
	cr_assert_gt(id, 0);
	t = btf__type_by_id(small, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_type *mt = btf__type_by_id(small, m[i].type);

		if (!strcmp(btf__name_by_offset(small, m[i].name_off), "mm")) {
			cr_assert(btf_is_ptr(mt));
			cr_assert_eq(mt->type, 0);
			seen++;
		}
	}
	cr_assert_eq(seen, 1);
	btf__free(small);
	kernel_close(&k);
}

/* libbpf would look in the modules' BTF for it: none is made if a
 * module has it */
Test(core_btf, a_type_the_kernel_lacks_is_looked_for_in_the_modules)
{
	struct kernel k;
	struct btf *small;

	kernel_open(&k);
	cr_assert_eq(build_one(&k, "fp_no_such_type", false,
			       BPF_CORE_FIELD_EXISTS, &all_mods, &small),
		     -ENOENT);
	/* no module has it, or none has BTF: libbpf finds it nowhere */
	cr_assert_eq(build_one(&k, "fp_no_such_type", false,
			       BPF_CORE_FIELD_EXISTS, &no_mods, &small),
		     0);
	cr_assert_eq(btf__find_by_name_kind(small, "fp_no_such_type",
					    BTF_KIND_STRUCT),
		     -ENOENT);
	btf__free(small);
	cr_assert_eq(build_one(&k, "fp_no_such_type", false,
			       BPF_CORE_FIELD_EXISTS, NULL, &small),
		     0);
	btf__free(small);
	kernel_close(&k);
}

/* a module's split BTF names types with the kernel's strings and its own */
Test(core_btf, a_module_type_is_found_by_either_string)
{
	struct fp_btf_raw mod;
	struct kernel k;
	struct btf *split;
	const void *raw;
	__u32 len;

	kernel_open(&k);
	split = btf__new_empty_split(k.btf);
	cr_assert_not_null(split);
	cr_assert_gt(btf__add_struct(split, "fp_module_only", 4), 0);
	cr_assert_gt(btf__add_struct(split, "task_struct", 8), 0);
	raw = btf__raw_data(split, &len);
	cr_assert_eq(fp_btf_raw_parse(&mod, raw, len, false), 0);
	cr_assert_eq(mod.n, 2);
	cr_assert(fp_core_mod_has(&k.file.raw, &mod, "fp_module_only", 14,
				  BTF_KIND_STRUCT));
	cr_assert(fp_core_mod_has(&k.file.raw, &mod, "task_struct", 11,
				  BTF_KIND_STRUCT));
	cr_assert_not(fp_core_mod_has(&k.file.raw, &mod, "task_struct", 11,
				      BTF_KIND_UNION));
	cr_assert_not(fp_core_mod_has(&k.file.raw, &mod, "fp_module", 9,
				      BTF_KIND_STRUCT));
	btf__free(split);
	kernel_close(&k);
}

/* libbpf reads past a field's type for its sign: a type is there */
Test(core_btf, the_last_type_is_followed_by_one)
{
	const struct btf_type *last;
	struct kernel k;
	struct btf *small;

	kernel_open(&k);
	cr_assert_eq(build_one(&k, "task_struct", false, BPF_CORE_FIELD_SIGNED,
			       NULL, &small),
		     0);
	last = btf__type_by_id(small, btf__type_cnt(small) - 1);
	cr_assert(btf_is_ptr(last));
	cr_assert_eq(last->name_off, 0);
	cr_assert_eq(last->type, 0);
	btf__free(small);
	kernel_close(&k);
}

/* libbpf follows pointers for these, which the small BTF cuts */
Test(core_btf, deep_type_relocations_make_none)
{
	struct kernel k;
	struct btf *small;

	kernel_open(&k);
	cr_assert_eq(build_one(&k, "task_struct", false, BPF_CORE_TYPE_MATCHES,
			       NULL, &small),
		     -ENOENT);
	cr_assert_eq(build_one(&k, "pid_t", true, BPF_CORE_TYPE_ID_TARGET, NULL,
			       &small),
		     -ENOENT);
	/* a field relocation on a typedef looks through no pointer */
	cr_assert_eq(build_one(&k, "pid_t", true, BPF_CORE_FIELD_BYTE_SIZE,
			       NULL, &small),
		     0);
	cr_assert_gt(btf__find_by_name_kind(small, "pid_t", BTF_KIND_TYPEDEF),
		     0);
	btf__free(small);
	kernel_close(&k);
}

Test(core_btf, an_object_that_is_not_one_is_refused)
{
	static const unsigned char junk[4096] = { 0x7f, 'E', 'L', 'F', 2 };
	struct fp_core_relos r;
	const void *obj;
	size_t len, cut;

	cr_assert_eq(fp_core_relos_read(&r, junk, sizeof(junk)), -EINVAL);
	cr_assert_eq(fp_core_relos_read(&r, junk, 3), -EINVAL);
	obj = footprint_bpf__elf_bytes(&len);
	/* cut anywhere: refused or read, never read past the end */
	for (cut = 0; cut < len; cut += len / 97 + 1) {
		void *copy = malloc(cut + 1);

		memcpy(copy, obj, cut);
		if (!fp_core_relos_read(&r, copy, cut))
			fp_core_relos_free(&r);
		free(copy);
	}
}

Test(core_btf, a_cut_btf_is_refused)
{
	struct fp_btf_raw raw;
	struct kernel k;
	size_t cut;

	kernel_open(&k);
	for (cut = 0; cut < k.file.len; cut += k.file.len / 89 + 1) {
		void *copy = malloc(cut + 1);

		memcpy(copy, k.file.data, cut);
		cr_assert_eq(fp_btf_raw_parse(&raw, copy, cut, true), -EINVAL,
			     "a BTF cut at %zu of %zu read", cut, k.file.len);
		free(copy);
	}
	kernel_close(&k);
}

/* a module's split BTF, as the kernel shows it, at dir/name */
static void write_module(struct kernel *k, const char *dir, const char *name,
			 const char *type)
{
	struct btf *split = btf__new_empty_split(k->btf);
	char path[512];
	const void *raw;
	__u32 len;
	FILE *f;

	cr_assert_not_null(split);
	cr_assert_gt(btf__add_struct(split, type, 4), 0);
	raw = btf__raw_data(split, &len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(raw, 1, len, f), len);
	fclose(f);
	btf__free(split);
}

/* the modules' files are read when first asked, and asked of by name */
Test(core_btf, the_modules_btf_files_are_read_when_asked)
{
	char dir[] = "/tmp/fp-core-mods.XXXXXX", path[600];
	struct fp_core_mods mods;
	struct kernel k;
	FILE *f;

	kernel_open(&k);
	cr_assert_not_null(mkdtemp(dir));
	/* none but the kernel's: no module has BTF */
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_not(fp_core_mods_init_at(&mods, &k.file.raw, dir));
	fp_core_mods_free(&mods);
	write_module(&k, dir, "fp_one", "fp_in_one");
	write_module(&k, dir, "fp_two", "fp_in_two");
	cr_assert(fp_core_mods_init_at(&mods, &k.file.raw, dir));
	cr_assert(mods.iface.has(mods.iface.ctx, "fp_in_two", 9,
				 BTF_KIND_STRUCT));
	cr_assert(mods.iface.has(mods.iface.ctx, "fp_in_one", 9,
				 BTF_KIND_STRUCT));
	cr_assert_not(mods.iface.has(mods.iface.ctx, "fp_in_three", 11,
				     BTF_KIND_STRUCT));
	cr_assert_eq(mods.n, 2);
	fp_core_mods_free(&mods);
	/* one that is not BTF: it may have anything */
	snprintf(path, sizeof(path), "%s/fp_bad", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("not BTF", f);
	fclose(f);
	cr_assert(fp_core_mods_init_at(&mods, &k.file.raw, dir));
	cr_assert(mods.iface.has(mods.iface.ctx, "fp_in_three", 11,
				 BTF_KIND_STRUCT));
	fp_core_mods_free(&mods);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_assert_eq(system(path), 0);
	kernel_close(&k);
}
