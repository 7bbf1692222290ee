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
#include "skel_index.h"

/* What the choice below needs to know of the kernel's BTF. */
enum fact { REQ, SQE, DONE, URING, VPID, CAST, FIB6, QUEUED, NFACTS };

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

static int kernel_facts(const struct fp_btf_raw *kern, bool *has)
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
		[FIB6] = { .name = "btf_trace_fib6_table_lookup",
			   .kind = BTF_KIND_TYPEDEF },
		[QUEUED] = { .name = "btf_trace_sk_data_ready",
			     .kind = BTF_KIND_TYPEDEF },
	};
	int i;

	if (kern)
		fp_btf_find_names_in(kern, q, NFACTS);
	else if (fp_btf_find_names(FP_VMLINUX_BTF, q, NFACTS) < 0)
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

int fp_hooks_choose(struct footprint_bpf *skel, const struct fp_btf_raw *kern,
		    char *note, size_t notelen)
{
	bool has[NFACTS];
	int err;

	note[0] = '\0';
	err = kernel_facts(kern, has);
	if (err)
		return err;
	choose_uring(skel, has, note, notelen);
	/* a kernel without IPv6 routes no IPv6 datagram */
	bpf_program__set_autoload(skel->progs.handle_fib6, has[FIB6]);
	/*
	 * DNS answers from the kernel's copy (dns.bpf.c): as queued where the
	 * kernel has the sk_data_ready tracepoint, else as the reading
	 * syscall frees them.
	 * FOOTPRINT_DEBUG_DNS_CONSUMED=1 loads the older way here, so that a
	 * test can see it load (it sees little: later kernels free a UDP
	 * datagram elsewhere).
	 */
	if (getenv("FOOTPRINT_DEBUG_DNS_CONSUMED"))
		has[QUEUED] = false;
	bpf_program__set_autoload(skel->progs.handle_dns_queued, has[QUEUED]);
	bpf_program__set_autoload(skel->progs.handle_dns_consumed,
				  !has[QUEUED]);
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

bool fp_hooks_optional(int prog_index)
{
	static const size_t optional[] = {
		FP_SKEL_PROG(handle_fib6),
		FP_SKEL_PROG(handle_uring_submit),
		FP_SKEL_PROG(handle_uring_submit_sqe),
		FP_SKEL_PROG(handle_uring_complete),
		FP_SKEL_PROG(handle_dns_queued),
		FP_SKEL_PROG(handle_dns_consumed),
	};
	size_t i;

	for (i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		if ((size_t)prog_index == optional[i])
			return true;
	return false;
}

unsigned int fp_hooks_debug(void)
{
	static const char *const names[] = {
		"FOOTPRINT_DEBUG_NO_URING",
		"FOOTPRINT_DEBUG_DNS_CONSUMED",
		"FOOTPRINT_DEBUG_PROBE_READS",
	};
	unsigned int i, bits = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (getenv(names[i]))
			bits |= 1u << i;
	return bits;
}
