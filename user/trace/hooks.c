// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "footprint.skel.h"
#include "hooks.h"

/* A tracepoint has a btf_trace_<name> typedef on kernels that have it. */
static bool has_tp(const struct btf *btf, const char *tp)
{
	char name[96];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) > 0;
}

/*
 * The walk cache is valid only if every io_uring rename and unlink bumps
 * path_gen at submission (before it runs) and at completion (after). The
 * submission tracepoint was io_uring_submit_sqe before 6.5.
 */
static void choose_uring(struct footprint_bpf *skel, const struct btf *btf,
			 char *note, size_t notelen)
{
	bool req = has_tp(btf, "io_uring_submit_req");
	bool sqe = !req && has_tp(btf, "io_uring_submit_sqe");
	bool done = has_tp(btf, "io_uring_complete");
	bool uring =
		btf__find_by_name_kind(btf, "io_kiocb", BTF_KIND_STRUCT) > 0;

	bpf_program__set_autoload(skel->progs.handle_uring_submit, req);
	bpf_program__set_autoload(skel->progs.handle_uring_submit_sqe, sqe);
	bpf_program__set_autoload(skel->progs.handle_uring_complete, done);
	if (!uring || ((req || sqe) && done))
		return;
	skel->rodata->walk_cache_on = false;
	snprintf(
		note, notelen,
		"footprint: note: this kernel has io_uring but not its %s tracepoint; the path cache is off (slower, nothing missed)",
		done ? "submission" : "completion");
}

int fp_hooks_choose(struct footprint_bpf *skel, char *note, size_t notelen)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int err = libbpf_get_error(btf);

	note[0] = '\0';
	if (err)
		return err < 0 ? err : -err;
	choose_uring(skel, btf, note, notelen);
	skel->rodata->has_task_from_vpid =
		btf__find_by_name_kind(btf, "bpf_task_from_vpid",
				       BTF_KIND_FUNC) > 0;
	btf__free(btf);
	return 0;
}
