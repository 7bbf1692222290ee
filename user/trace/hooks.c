// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf_names.h"
#include "footprint.skel.h"
#include "hooks.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* What the choice below needs to know of the kernel's BTF. */
enum fact { REQ, SQE, DONE, URING, VPID, CAST, NFACTS };

/* the same facts through libbpf's full parse, where the scan cannot go */
static int ask_libbpf(struct fp_btf_query *q, bool *has)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int err = libbpf_get_error(btf), i;

	if (err)
		return err < 0 ? err : -err;
	for (i = 0; i < NFACTS; i++)
		has[i] = btf__find_by_name_kind(btf, q[i].name, q[i].kind) > 0;
	btf__free(btf);
	return 0;
}

static int kernel_facts(bool *has)
{
	/* a tracepoint has a btf_trace_<name> typedef on kernels that have it */
	struct fp_btf_query q[NFACTS] = {
		[REQ] = { .name = "btf_trace_io_uring_submit_req",
			  .kind = BTF_KIND_TYPEDEF },
		[SQE] = { .name = "btf_trace_io_uring_submit_sqe",
			  .kind = BTF_KIND_TYPEDEF },
		[DONE] = { .name = "btf_trace_io_uring_complete",
			   .kind = BTF_KIND_TYPEDEF },
		[URING] = { .name = "io_kiocb", .kind = BTF_KIND_STRUCT },
		[VPID] = { .name = "bpf_task_from_vpid",
			   .kind = BTF_KIND_FUNC },
		[CAST] = { .name = "bpf_rdonly_cast", .kind = BTF_KIND_FUNC },
	};
	int i;

	if (fp_btf_find_names(VMLINUX_BTF, q, NFACTS) < 0)
		return ask_libbpf(q, has);
	for (i = 0; i < NFACTS; i++)
		has[i] = q[i].found;
	return 0;
}

/*
 * The walk cache is valid only if every io_uring rename and unlink bumps
 * path_gen at submission (before it runs) and at completion (after). The
 * submission tracepoint was io_uring_submit_sqe before 6.5.
 */
static void choose_uring(struct footprint_bpf *skel, const bool *has,
			 char *note, size_t notelen)
{
	/* FOOTPRINT_DEBUG_NO_URING=1 acts as a kernel without the submission
	 * tracepoint would, so that a test can see it fail closed here */
	bool absent = getenv("FOOTPRINT_DEBUG_NO_URING");
	bool req = has[REQ] && !absent;
	bool sqe = !req && has[SQE] && !absent;
	bool done = has[DONE] && !absent;

	bpf_program__set_autoload(skel->progs.handle_uring_submit, req);
	bpf_program__set_autoload(skel->progs.handle_uring_submit_sqe, sqe);
	bpf_program__set_autoload(skel->progs.handle_uring_complete, done);
	/* without both, requests are not seen: a ring set up fails the run
	 * (fp_uring_setup_exit) */
	skel->rodata->uring_traced = (req || sqe) && done;
	if (!has[URING] || ((req || sqe) && done))
		return;
	skel->rodata->walk_cache_on = false;
	snprintf(
		note, notelen,
		"footprint: note: this kernel has io_uring but not its %s tracepoint; the path cache is off, and a command that sets up a ring fails the verdict",
		done	   ? "submission" :
		req || sqe ? "completion" :
			     "submission and completion");
}

int fp_hooks_choose(struct footprint_bpf *skel, char *note, size_t notelen)
{
	bool has[NFACTS];
	int err;

	note[0] = '\0';
	err = kernel_facts(has);
	if (err)
		return err;
	choose_uring(skel, has, note, notelen);
	skel->rodata->has_task_from_vpid = has[VPID];
	/*
	 * FOOTPRINT_DEBUG_PROBE_READS=1 reads as a kernel before 6.2 must, so
	 * that a test can hold the two ways against each other on one kernel.
	 */
	skel->rodata->has_rdonly_cast =
		has[CAST] && !getenv("FOOTPRINT_DEBUG_PROBE_READS");
	if (getenv("FOOTPRINT_DEBUG"))
		fprintf(stderr, "footprint: debug: kernel reads: %s\n",
			skel->rodata->has_rdonly_cast ?
				"typed (bpf_rdonly_cast)" :
			has[CAST] ?
				"probe reads (FOOTPRINT_DEBUG_PROBE_READS)" :
				"probe reads (the kernel lacks bpf_rdonly_cast)");
	return 0;
}

void fp_hooks_note(const struct footprint_bpf *skel)
{
	if (!skel->rodata->walk_cache_on && !skel->rodata->uring_traced)
		fprintf(stderr,
			"footprint: note: this kernel has io_uring but not the tracepoints footprint reads its requests from; a command that sets up a ring fails the verdict\n");
	else if (!skel->rodata->walk_cache_on)
		fprintf(stderr,
			"footprint: note: this kernel has io_uring but not all of its tracepoints; the path cache is off (slower, nothing missed)\n");
}

bool fp_hooks_optional(const struct footprint_bpf *skel,
		       const struct bpf_program *prog)
{
	return prog == skel->progs.handle_uring_submit ||
	       prog == skel->progs.handle_uring_submit_sqe ||
	       prog == skel->progs.handle_uring_complete;
}
