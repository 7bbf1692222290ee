// SPDX-License-Identifier: GPL-2.0
/* fp_btf_find_names against libbpf's own parse of the running kernel's BTF */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_names.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"
#define BATCH 64

static struct btf *kernel_btf(void)
{
	struct btf *btf;

	if (access(VMLINUX, R_OK))
		cr_skip_test("this kernel has no " VMLINUX);
	btf = btf__parse(VMLINUX, NULL);
	cr_assert(!libbpf_get_error(btf), "libbpf cannot parse " VMLINUX);
	return btf;
}

/* the scan walked every type record, so its record sizes are libbpf's */
Test(btf_names, counts_every_type)
{
	struct btf *btf = kernel_btf();
	struct fp_btf_query q = { .name = "task_struct",
				  .kind = BTF_KIND_STRUCT };

	cr_assert_eq(fp_btf_find_names(VMLINUX, &q, 1),
		     (long)btf__type_cnt(btf) - 1);
	cr_assert(q.found);
	btf__free(btf);
}

/* check q[0..k) all found; returns k */
static size_t check_batch(struct fp_btf_query *q, size_t k)
{
	size_t i;

	cr_assert_gt(fp_btf_find_names(VMLINUX, q, k), 0);
	for (i = 0; i < k; i++)
		cr_assert(q[i].found, "%s (kind %u) not found", q[i].name,
			  q[i].kind);
	return k;
}

/* a sample of named types of every kind, spread over the whole section
 * to its last type: a record size read wrong loses the types after it */
Test(btf_names, finds_what_libbpf_finds)
{
	struct btf *btf = kernel_btf();
	struct fp_btf_query q[BATCH];
	__u32 id, n = btf__type_cnt(btf), step = n / 2000 + 1;
	size_t k = 0, checked = 0;

	for (id = 1; id < n;
	     id = id + step < n || id == n - 1 ? id + step : n - 1) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (!name || !name[0])
			continue;
		q[k].name = name;
		q[k++].kind = btf_kind(t);
		if (k == BATCH)
			k = 0, checked += check_batch(q, BATCH);
	}
	checked += check_batch(q, k);
	cr_assert_gt(checked, 500);
	btf__free(btf);
}

/* a name under the wrong kind, or no such name, as libbpf says */
Test(btf_names, misses_what_libbpf_misses)
{
	struct btf *btf = kernel_btf();
	struct fp_btf_query q[] = {
		{ .name = "task_struct", .kind = BTF_KIND_TYPEDEF },
		{ .name = "task_struct", .kind = BTF_KIND_UNION },
		{ .name = "fp_no_such_type_in_any_kernel",
		  .kind = BTF_KIND_STRUCT },
		{ .name = "btf_trace_fp_no_such_tracepoint",
		  .kind = BTF_KIND_TYPEDEF },
		{ .name = "btf_trace_sys_exit", .kind = BTF_KIND_TYPEDEF },
		{ .name = "bpf_task_from_vpid", .kind = BTF_KIND_FUNC },
		{ .name = "io_kiocb", .kind = BTF_KIND_STRUCT },
	};
	size_t i, n = sizeof(q) / sizeof(q[0]);

	cr_assert_gt(fp_btf_find_names(VMLINUX, q, n), 0);
	for (i = 0; i < n; i++)
		cr_assert_eq(q[i].found,
			     btf__find_by_name_kind(btf, q[i].name, q[i].kind) >
				     0,
			     "%s kind %u", q[i].name, q[i].kind);
	cr_assert(!q[0].found && !q[2].found && q[4].found);
	btf__free(btf);
}

static void write_file(const char *path, const void *d, size_t len)
{
	FILE *f = fopen(path, "we");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(d, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* a cut or foreign file is refused (the caller asks libbpf), not misread */
Test(btf_names, refuses_what_is_not_whole_btf)
{
	struct fp_btf_query q = { .name = "task_struct",
				  .kind = BTF_KIND_STRUCT };
	char path[] = "/tmp/fp-btf-names-XXXXXX";
	size_t len = 0, cap = 1 << 20;
	char *d = malloc(cap);
	FILE *f = fopen(VMLINUX, "re");
	size_t r;
	int fd;

	if (!f)
		cr_skip_test("this kernel has no " VMLINUX);
	while ((r = fread(d + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap)
			cr_assert_not_null(d = realloc(d, cap *= 2));
	}
	fclose(f);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	write_file(path, d, len - 1000);
	cr_assert_lt(fp_btf_find_names(path, &q, 1), 0);
	d[0] ^= 0xff;
	write_file(path, d, len);
	cr_assert_lt(fp_btf_find_names(path, &q, 1), 0);
	cr_assert_lt(fp_btf_find_names("/nonexistent/btf", &q, 1), 0);
	unlink(path);
	free(d);
}
