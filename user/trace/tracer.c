// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "footprint.skel.h"
#include "syscalls.h"
#include "tracer.h"

struct fp_tracer {
	struct footprint_bpf *skel;
	struct ring_buffer *rb;
};

/* Syscall tracepoints need tracefs; a minimal system may not mount it. */
static int ensure_tracefs(void)
{
	struct stat st;

	if (!stat("/sys/kernel/tracing/events", &st) ||
	    !stat("/sys/kernel/debug/tracing/events", &st))
		return 0;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL))
		return -errno;
	return 0;
}

static int silent_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_WARN && getenv("FOOTPRINT_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG && getenv("FOOTPRINT_DEBUG_BPF"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static const char *hint(int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
		return "run footprint as root (sudo footprint run ...)";
	case ENOENT:
	case ESRCH:
		return "the kernel lacks BTF or a tracepoint: it needs CONFIG_DEBUG_INFO_BTF and CONFIG_FTRACE_SYSCALLS";
	case EINVAL:
		return "the kernel's verifier rejected the program; rerun with FOOTPRINT_DEBUG_BPF=1 for its log";
	case ENOMEM:
		return "raise the memlock limit (ulimit -l) or lower --ring-size";
	}
	return "rerun with FOOTPRINT_DEBUG=1 for libbpf's messages";
}

static int fill_sys_table(struct fp_tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.sys_table);
	const struct fp_syscall_nr *s;
	__u32 key;

	for (s = fp_native_syscalls; s->nr >= 0; s++) {
		key = s->nr;
		if (s->nr >= FP_NR_SYSCALLS ||
		    bpf_map_update_elem(fd, &key, &s->sys, BPF_ANY))
			return -EINVAL;
	}
	for (s = fp_compat_syscalls; s->nr >= 0; s++) {
		key = FP_NR_SYSCALLS + s->nr;
		if (s->nr >= FP_NR_SYSCALLS ||
		    bpf_map_update_elem(fd, &key, &s->sys, BPF_ANY))
			return -EINVAL;
	}
	return 0;
}

int fp_tracer_open(struct fp_tracer **out, const struct fp_tracer_opts *opts,
		   struct fp_collector *collector, char *err, size_t errlen)
{
	struct fp_tracer *t = calloc(1, sizeof(*t));
	const char *step = "open";
	int ret;

	if (!t) {
		snprintf(err, errlen, "footprint: out of memory");
		return -ENOMEM;
	}
	libbpf_set_print(silent_print);
	ret = ensure_tracefs();
	if (ret) {
		snprintf(
			err, errlen,
			"footprint: cannot mount tracefs at /sys/kernel/tracing: %s; mount it (mount -t tracefs tracefs /sys/kernel/tracing) or run as root",
			strerror(-ret));
		goto cleanup;
	}
	t->skel = footprint_bpf__open();
	if (!t->skel) {
		ret = -errno;
		goto fail;
	}
	t->skel->rodata->max_argv_bytes = opts->max_argv_bytes;
	t->skel->rodata->wakeup_bytes = opts->ring_bytes / 4;
	step = "size the ring buffer of";
	ret = bpf_map__set_max_entries(t->skel->maps.events, opts->ring_bytes);
	if (ret)
		goto fail;
	step = "load";
	ret = footprint_bpf__load(t->skel);
	if (ret)
		goto fail;
	step = "fill the syscall table of";
	ret = fill_sys_table(t);
	if (ret)
		goto fail;
	step = "set up the ring buffer of";
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events),
				 fp_collector_feed, collector, NULL);
	if (!t->rb) {
		ret = -errno;
		goto fail;
	}
	*out = t;
	return 0;
fail:
	if (ret > 0)
		ret = -ret;
	if (!ret)
		ret = -EINVAL;
	snprintf(err, errlen, "footprint: cannot %s the BPF tracer: %s; %s",
		 step, strerror(-ret), hint(-ret));
cleanup:
	fp_tracer_close(t);
	return ret;
}

int fp_tracer_attach(struct fp_tracer *t, char *err, size_t errlen)
{
	int ret = footprint_bpf__attach(t->skel);

	if (ret) {
		if (ret > 0)
			ret = -ret;
		snprintf(err, errlen,
			 "footprint: cannot attach the BPF tracer: %s; %s",
			 strerror(-ret), hint(-ret));
	}
	return ret;
}

void fp_tracer_detach(struct fp_tracer *t)
{
	footprint_bpf__detach(t->skel);
}

int fp_tracer_set_cgroup(struct fp_tracer *t, int cgroup_fd)
{
	__u32 key = 0;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.target_cgroup), &key,
				&cgroup_fd, BPF_ANY))
		return -errno;
	return 0;
}

int fp_tracer_epoll_fd(struct fp_tracer *t)
{
	return ring_buffer__epoll_fd(t->rb);
}

int fp_tracer_consume(struct fp_tracer *t)
{
	return ring_buffer__consume(t->rb);
}

/* Runs the tracing programs skipped because another was active on the CPU. */
static uint64_t recursion_misses(struct fp_tracer *t)
{
	struct bpf_program *prog;
	uint64_t sum = 0;

	bpf_object__for_each_program (prog, t->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(prog) < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

int fp_tracer_stats(struct fp_tracer *t, struct fp_trace_stats *st)
{
	int ncpus = libbpf_num_possible_cpus();
	struct fp_stats *per = NULL;
	__u32 key = 0;
	int i, ret = 0;

	memset(st, 0, sizeof(*st));
	if (ncpus <= 0)
		return -EINVAL;
	per = calloc(ncpus, sizeof(*per));
	st->lost_per_cpu = calloc(ncpus, sizeof(uint64_t));
	if (!per || !st->lost_per_cpu) {
		ret = -ENOMEM;
		goto cleanup;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stats), &key, per)) {
		ret = -errno;
		goto cleanup;
	}
	st->ncpus = ncpus;
	for (i = 0; i < ncpus; i++) {
		st->events += per[i].events;
		st->lost_ringbuf += per[i].lost;
		st->lost_pending += per[i].pending_full;
		st->lost_compat += per[i].compat;
		st->lost_per_cpu[i] =
			per[i].lost + per[i].pending_full + per[i].compat;
	}
	st->lost_recursion = recursion_misses(t);
	st->lost = st->lost_ringbuf + st->lost_pending + st->lost_recursion +
		   st->lost_compat;
cleanup:
	free(per);
	return ret;
}

void fp_trace_stats_free(struct fp_trace_stats *st)
{
	free(st->lost_per_cpu);
	st->lost_per_cpu = NULL;
}

void fp_tracer_close(struct fp_tracer *t)
{
	if (!t)
		return;
	ring_buffer__free(t->rb);
	footprint_bpf__destroy(t->skel);
	free(t);
}
