// SPDX-License-Identifier: GPL-2.0
/*
 * A reused warm set is never opened by libbpf: the tracer reaches its
 * maps and programs by index (skel_index.h), and a set is named by the
 * knobs of its load (knobs.h). The indexes must name what the skeleton
 * names, and the knobs must hash the same for the same options.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "hooks.h"
#include "knobs.h"
#include "skel_index.h"
#include "tracer.h"

static struct footprint_bpf *created(void)
{
	struct footprint_bpf *skel = calloc(1, sizeof(*skel));

	cr_assert_not_null(skel);
	cr_assert_eq(footprint_bpf__create_skeleton(skel), 0);
	return skel;
}

Test(skel_index, names_what_the_skeleton_names)
{
	struct footprint_bpf *skel = created();
	const struct bpf_object_skeleton *sk = skel->skeleton;

	cr_assert(fp_skel_in_order(skel));
	cr_assert_str_eq(sk->maps[FP_SKEL_MAP(events)].name, "events");
	cr_assert_str_eq(sk->maps[FP_SKEL_MAP(traced_pids)].name,
			 "traced_pids");
	cr_assert_eq(sk->maps[FP_SKEL_MAP(bss)].mmaped, (void **)&skel->bss);
	cr_assert_str_eq(sk->progs[FP_SKEL_PROG(handle_exec)].name,
			 "handle_exec");
	cr_assert_str_eq(sk->progs[FP_SKEL_PROG(handle_fib6)].name,
			 "handle_fib6");
	/* not opened: the maps a reused set's tracer must not touch */
	cr_assert_null(skel->maps.events);
	footprint_bpf__destroy(skel);
}

Test(skel_index, out_of_order_is_refused)
{
	struct footprint_bpf *skel = created();
	struct bpf_map_skeleton m0 = skel->skeleton->maps[0];

	skel->skeleton->maps[0] = skel->skeleton->maps[1];
	skel->skeleton->maps[1] = m0;
	cr_assert_not(fp_skel_in_order(skel));
	footprint_bpf__destroy(skel);
}

Test(skel_index, only_the_chosen_programs_are_optional)
{
	cr_assert(fp_hooks_optional(FP_SKEL_PROG(handle_fib6)));
	cr_assert(fp_hooks_optional(FP_SKEL_PROG(handle_uring_submit_sqe)));
	cr_assert(fp_hooks_optional(FP_SKEL_PROG(handle_dns_consumed)));
	cr_assert_not(fp_hooks_optional(FP_SKEL_PROG(handle_exec)));
	cr_assert_not(fp_hooks_optional(FP_SKEL_PROG(handle_sys_exit)));
	cr_assert_not(fp_hooks_optional(FP_SKEL_PROG(handle_fib4)));
}

Test(knobs, same_options_same_bytes)
{
	struct fp_tracer_opts o = { .ring_bytes = 1 << 20,
				    .max_argv_bytes = 4096 };
	struct fp_load_knobs a, b;

	/* padding is the caller's garbage until fp_knobs_of() zeroes it */
	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	fp_knobs_of(&a, &o);
	fp_knobs_of(&b, &o);
	cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0);
	o.every_open = true;
	fp_knobs_of(&b, &o);
	cr_assert_neq(memcmp(&a, &b, sizeof(a)), 0);
	cr_assert_eq(a.wakeup_bytes, (1 << 20) / 4);
}

Test(knobs, sizes_are_the_options)
{
	struct fp_tracer_opts o = { .ring_bytes = 1 << 20 };
	struct fp_load_knobs k;

	fp_knobs_of(&k, &o);
	cr_assert(fp_knobs_sized(FP_SKEL_MAP(events), 1 << 20, &k));
	cr_assert_not(fp_knobs_sized(FP_SKEL_MAP(events), 1 << 21, &k));
	/* 0: the object's own size, whatever it is */
	cr_assert(fp_knobs_sized(FP_SKEL_MAP(traced_pids), 12345, &k));
	o.max_tree_pids = 64;
	fp_knobs_of(&k, &o);
	cr_assert(fp_knobs_sized(FP_SKEL_MAP(traced_pids), 64, &k));
	cr_assert_not(fp_knobs_sized(FP_SKEL_MAP(traced_pids), 12345, &k));
}

Test(knobs, the_rodata_holds_them_or_not)
{
	struct fp_tracer_opts o = { .ring_bytes = 1 << 20,
				    .max_argv_bytes = 4096,
				    .dns_ports = { 5353 } };
	struct footprint_bpf__rodata ro = {};
	struct fp_load_knobs k;

	fp_knobs_of(&k, &o);
	ro.max_argv_bytes = 4096;
	ro.wakeup_bytes = (1 << 20) / 4;
	ro.dns_ports[0] = 5353;
	cr_assert(fp_knobs_in(&ro, &k));
	ro.dns_ports[0] = 53;
	cr_assert_not(fp_knobs_in(&ro, &k));
	ro.dns_ports[0] = 5353;
	ro.every_open = 1;
	cr_assert_not(fp_knobs_in(&ro, &k));
}

Test(knobs, debug_switches_change_them)
{
	struct fp_tracer_opts o = { .ring_bytes = 1 << 20 };
	struct fp_load_knobs a, b;

	unsetenv("FOOTPRINT_DEBUG_PROBE_READS");
	fp_knobs_of(&a, &o);
	setenv("FOOTPRINT_DEBUG_PROBE_READS", "1", 1);
	fp_knobs_of(&b, &o);
	unsetenv("FOOTPRINT_DEBUG_PROBE_READS");
	cr_assert_neq(a.debug_hooks, b.debug_hooks);
}
