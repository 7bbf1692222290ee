// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "btf_raw.h"
#include "collapse.h"
#include "core_btf.h"
#include "footprint.skel.h"
#include "hooks.h"
#include "knobs.h"
#include "scope.h"
#include "skel_index.h"
#include "syscalls.h"
#include "tracer.h"
#include "flows.h"
#include "heap.h"
#include "maparray.h"
#include "ring.h"
#include "warm.h"
#include "uring_calib.h"

struct fp_tracer {
	struct footprint_bpf *skel;
	struct fp_ring ring;
	struct fp_collector *col;
	bool attached;
	pid_t roots[FP_TRACER_MAX_PID_TREES];
	unsigned int nroots;
	/* what the links were at attach, to tell a closed or swapped fd */
	__u32 link_ids[FP_WARM_MAX_PROGS];
	uint64_t lost_scope; /* processes of /proc the tree table lacked */
	uint64_t lost_held; /* held-back opens that could not be drained */
	struct fp_warm warm; /* programs kept loaded between runs (warm.h) */
	/* recursion misses of reused programs before this run began */
	uint64_t recursion_before;
	bool discarding; /* what the ring buffer holds is an earlier run's */
	int tasks_link; /* the task iterator's (proctab.bpf.c), or -1 */
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

/* native enum fp_sys in the low half of each entry, compat in the high */
static int sys_table_values(__u32 *v)
{
	const struct fp_syscall_nr *s;

	memset(v, 0, FP_NR_SYSCALLS * sizeof(*v));
	for (s = fp_native_syscalls; s->nr >= 0; s++) {
		if (s->nr >= FP_NR_SYSCALLS)
			return -EINVAL;
		v[s->nr] |= s->sys;
	}
	for (s = fp_compat_syscalls; s->nr >= 0; s++) {
		if (s->nr >= FP_NR_SYSCALLS)
			return -EINVAL;
		v[s->nr] |= s->sys << 16;
	}
	return 0;
}

/*
 * The native numbers of the calls whose route the fib programs keep or
 * count (route.bpf.c): connect, sendto, sendmsg, sendmmsg.
 */
static void fill_route_nr(struct footprint_bpf *skel)
{
	static const __u32 want[4] = { FP_SYS_CONNECT, FP_SYS_SENDTO,
				       FP_SYS_SENDMSG, FP_SYS_SENDMMSG };
	long *nr = (long *)skel->rodata->route_nr;
	const struct fp_syscall_nr *s;
	int k;

	for (s = fp_native_syscalls; s->nr >= 0; s++)
		for (k = 0; k < 4; k++)
			if (FP_SYS_NATIVE(s->sys) == want[k])
				nr[k] = s->nr;
}

static bool reused(const struct fp_tracer *t)
{
	return t->warm.mode == FP_WARM_REUSE;
}

/*
 * The skeleton's map of index i (FP_SKEL_MAP): loaded here, or reused,
 * where libbpf never opened the object and the skeleton's maps are NULL.
 */
static int map_fd(const struct fp_tracer *t, size_t i)
{
	if (reused(t))
		return t->warm.map_fd[i];
	return bpf_map__fd(*t->skel->skeleton->maps[i].map);
}

static int fill_sys_table(struct fp_tracer *t, const __u32 *v)
{
	int fd = map_fd(t, FP_SKEL_MAP(sys_table));
	__u32 key;

	for (key = 0; key < FP_NR_SYSCALLS; key++)
		if (v[key] && bpf_map_update_elem(fd, &key, &v[key], BPF_ANY))
			return -EINVAL;
	return 0;
}

static int apply_scope(struct fp_tracer *t, const struct fp_tracer_opts *o,
		       char *err, size_t errlen)
{
	unsigned int i;
	int ret = 0;

	if (o->ncgroups > FP_TRACER_MAX_CGROUPS ||
	    o->npid_trees > FP_TRACER_MAX_PID_TREES ||
	    o->nself > FP_TRACER_MAX_SELF) {
		snprintf(
			err, errlen,
			"footprint: at most %d cgroups, %d process trees and %d own processes can be traced at once",
			FP_TRACER_MAX_CGROUPS, FP_TRACER_MAX_PID_TREES,
			FP_TRACER_MAX_SELF);
		return -ENOSPC;
	}
	/* self first: a tree must not take in the tracer's processes */
	for (i = 0; i < o->nself && !ret; i++)
		ret = fp_tracer_add_self(t, o->self_tgids[i]);
	for (i = 0; i < o->ncgroups && !ret; i++)
		ret = fp_tracer_add_cgroup(t, o->cgroup_fds[i]);
	if (ret) {
		snprintf(err, errlen,
			 "footprint: cannot set the tracer's scope: %s",
			 strerror(-ret));
		return ret;
	}
	if (o->step_parent)
		fp_tracer_set_step_parent(t, o->step_parent);
	for (i = 0; i < o->npid_trees; i++) {
		ret = fp_tracer_add_pid_tree(t, o->pid_trees[i]);
		if (ret) {
			snprintf(
				err, errlen,
				"footprint: cannot trace the process tree of pid %d: %s; give the pid of a running process",
				(int)o->pid_trees[i], strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * libbpf's load reads the kernel's BTF into one buffer and copies it into
 * another (btf__load_vmlinux_btf()), then frees the first: room for both,
 * and for the small BTF's indexes of it (core_btf.h).
 */
static size_t load_heap_size(void)
{
	struct stat st;

	if (stat(FP_VMLINUX_BTF, &st) || st.st_size <= 0)
		return 0;
	return 2 * (size_t)st.st_size + (size_t)st.st_size / 2 + (1 << 20);
}

static void debug_core_btf(const struct fp_core_btf *c, int err)
{
	if (!getenv("FOOTPRINT_DEBUG"))
		return;
	if (!err)
		fprintf(stderr,
			"footprint: debug: CO-RE: a small BTF, %u of the kernel's %u types\n",
			c->types, c->kernel_types);
	else if (getenv("FOOTPRINT_DEBUG_FULL_BTF"))
		fprintf(stderr,
			"footprint: debug: CO-RE: the kernel's BTF (FOOTPRINT_DEBUG_FULL_BTF)\n");
	else
		fprintf(stderr,
			"footprint: debug: CO-RE: the kernel's BTF (no small one: %s)\n",
			strerror(-err));
}

/*
 * libbpf's open of the object, the choice of hooks, the load. libbpf
 * reads the kernel's BTF for the load; its CO-RE relocation reads the
 * small BTF of core_btf.h instead, when one could be made. The populated
 * heap spans the small BTF's making too (its indexes, 1.5 MB); glibc's
 * thresholds are the process's, so while they are raised the snapshot
 * threads' large tables come from their heaps too: a cold run over
 * 101k files peaked 1.5-3 MiB higher, a narrower window cost ~7 ms.
 */
static int load_fresh(struct fp_tracer *t, const struct fp_load_knobs *knobs,
		      const char **step)
{
	const struct bpf_object_skeleton *sk = t->skel->skeleton;
	DECLARE_LIBBPF_OPTS(bpf_object_open_opts, oo);
	const struct fp_btf_raw *kp = NULL;
	struct fp_core_btf core;
	struct fp_btf_file kern;
	char note[256];
	int ret;

	fp_heap_populated_begin(load_heap_size());
	/* read once for the small BTF and the hooks' choice */
	if (!fp_btf_file_open(&kern, FP_VMLINUX_BTF, true))
		kp = &kern.raw;
	ret = fp_core_btf_make(&core, kp, sk->data, sk->data_sz);
	if (!ret)
		oo.btf_custom_path = core.path;
	debug_core_btf(&core, ret);
	*step = "open";
	ret = bpf_object__open_skeleton(t->skel->skeleton, &oo);
	if (ret)
		goto cleanup;
	*step = "size the ring buffer and process-tree table of";
	ret = fp_knobs_apply(t->skel, knobs);
	if (ret)
		goto cleanup;
	*step = "read the kernel's BTF for";
	ret = fp_hooks_choose(t->skel, kp, note, sizeof(note));
	if (ret)
		goto cleanup;
	if (note[0])
		fprintf(stderr, "%s\n", note);
	fill_route_nr(t->skel);
	/* read when a snapshot wants it (fp_tracer_tasks_fd), not attached */
	bpf_program__set_autoattach(t->skel->progs.fp_proc_iter, false);
	*step = "load";
	ret = footprint_bpf__load(t->skel);
cleanup:
	fp_heap_populated_end();
	fp_core_btf_close(&core);
	fp_btf_file_close(&kern);
	return ret;
}

/* a failed reuse removed the set: the next run makes it again */
static const char reuse_step[] = "reuse the loaded programs of";

/*
 * The programs and maps: loaded afresh (and, for a warm run, pinned for
 * the next), or the pinned set of an earlier run, reset (warm.h).
 */
static int load(struct fp_tracer *t, const struct fp_tracer_opts *opts,
		const char **step)
{
	__u32 sys_table[FP_NR_SYSCALLS];
	struct fp_load_knobs knobs;
	int ret;

	*step = "fill the syscall table of";
	ret = sys_table_values(sys_table);
	if (ret)
		return ret;
	fp_knobs_of(&knobs, opts);
	/* a set made on this kernel holds what the choice below made */
	if (opts->warm && fp_warm_begin(&t->warm, t->skel, &knobs, sys_table,
					FP_NR_SYSCALLS) == FP_WARM_REUSE) {
		*step = reuse_step;
		ret = fp_warm_reuse(&t->warm, t->skel);
		if (!ret)
			fp_hooks_note(t->skel);
		return ret;
	}
	/* only a fresh load needs libbpf to read the object (~12 ms) */
	ret = load_fresh(t, &knobs, step);
	if (ret)
		return ret;
	*step = "fill the syscall table of";
	ret = fill_sys_table(t, sys_table);
	if (!ret && t->warm.mode == FP_WARM_SAVE)
		fp_warm_save(&t->warm, t->skel);
	return ret;
}

static uint64_t recursion_misses(struct fp_tracer *t);
static bool reused(const struct fp_tracer *t);

static int feed(void *ctx, void *data, size_t size)
{
	struct fp_tracer *t = ctx;

	if (t->discarding)
		return 0;
	return fp_collector_feed(t->col, data, size);
}

/*
 * A reused ring buffer may hold what a run that died left unread. The
 * consumer reads it and drops it, before anything is attached.
 */
static int drain_earlier_run(struct fp_tracer *t)
{
	int ret;

	if (!reused(t))
		return 0;
	t->discarding = true;
	ret = fp_ring_consume(&t->ring);
	t->discarding = false;
	return ret < 0 ? ret : 0;
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
	fp_warm_init(&t->warm);
	fp_ring_init(&t->ring);
	t->tasks_link = -1;
	t->col = collector;
	libbpf_set_print(silent_print);
	ret = ensure_tracefs();
	if (ret) {
		snprintf(
			err, errlen,
			"footprint: cannot mount tracefs at /sys/kernel/tracing: %s; mount it (mount -t tracefs tracefs /sys/kernel/tracing) or run as root",
			strerror(-ret));
		goto cleanup;
	}
	/* created, not opened: a reused set needs no libbpf open (load()) */
	t->skel = calloc(1, sizeof(*t->skel));
	if (!t->skel) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = footprint_bpf__create_skeleton(t->skel);
	if (ret)
		goto fail;
	step = "index the skeleton of";
	if (!fp_skel_in_order(t->skel)) {
		ret = -EINVAL;
		goto fail;
	}
	ret = load(t, opts, &step);
	if (ret)
		goto fail;
	fp_warm_report(&t->warm);
	step = "set up the ring buffer of";
	ret = fp_ring_open(&t->ring, map_fd(t, FP_SKEL_MAP(events)), feed, t);
	if (ret)
		goto fail;
	ret = drain_earlier_run(t);
	if (ret)
		goto fail;
	ret = apply_scope(t, opts, err, errlen);
	if (ret)
		goto cleanup;
	/* a program's counters cannot be reset: an earlier run's are not ours */
	t->recursion_before = recursion_misses(t);
	*out = t;
	return 0;
fail:
	if (ret > 0)
		ret = -ret;
	if (!ret)
		ret = -EINVAL;
	snprintf(
		err, errlen, "footprint: cannot %s the BPF tracer: %s; %s",
		step, strerror(-ret),
		step == reuse_step ?
			"run again (the set kept loaded was removed) or with --cold" :
			hint(-ret));
cleanup:
	fp_tracer_close(t);
	return ret;
}

/* The skeleton's i-th program and its link, loaded here or reused. */
static int prog_fd(struct fp_tracer *t, int i)
{
	if (reused(t))
		return t->warm.prog_fd[i];
	return bpf_program__fd(*t->skel->skeleton->progs[i].prog);
}

static int link_fd(struct fp_tracer *t, int i)
{
	struct bpf_link *l;

	if (reused(t))
		return t->warm.link_fd[i];
	l = *t->skel->skeleton->progs[i].link;
	return l ? bpf_link__fd(l) : -1;
}

static void save_link_ids(struct fp_tracer *t)
{
	const struct bpf_object_skeleton *sk = t->skel->skeleton;
	int i;

	for (i = 0; i < sk->prog_cnt && i < FP_WARM_MAX_PROGS; i++) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);

		t->link_ids[i] = 0;
		if (prog_fd(t, i) < 0)
			continue;
		if (link_fd(t, i) >= 0 &&
		    !bpf_obj_get_info_by_fd(link_fd(t, i), &info, &len))
			t->link_ids[i] = info.id;
	}
}

static int complete_trees(struct fp_tracer *t);

int fp_tracer_attach(struct fp_tracer *t, char *err, size_t errlen)
{
	int ret = reused(t) ? fp_warm_attach(&t->warm) :
			      footprint_bpf__attach(t->skel);

	if (ret) {
		if (ret > 0)
			ret = -ret;
		snprintf(err, errlen,
			 "footprint: cannot attach the BPF tracer: %s; %s",
			 strerror(-ret), hint(-ret));
		return ret;
	}
	t->attached = true;
	save_link_ids(t);
	/* a process forked before attach by one not yet in the table */
	ret = complete_trees(t);
	if (ret < 0) {
		snprintf(
			err, errlen,
			"footprint: cannot read the process trees to trace from /proc: %s",
			strerror(-ret));
		fp_tracer_detach(t);
		return ret;
	}
	/* a failure leaves io_uring CONNECT and BIND not understood */
	fp_uring_calibrate(t->skel);
	return 0;
}

void fp_tracer_stop(struct fp_tracer *t)
{
	/* as traced() reads them: no cgroup, no tree, nothing in scope */
	__atomic_store_n(&t->skel->bss->pid_tree_on, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&t->skel->bss->ncgroups, 0, __ATOMIC_RELEASE);
}

int fp_tracer_end_fds(struct fp_tracer *t, int *fds, int max)
{
	int i, n = 0, set;

	for (i = 0; i < t->skel->skeleton->prog_cnt; i++) {
		if (link_fd(t, i) < 0)
			continue;
		if (n == max)
			return -ENOSPC;
		fds[n++] = link_fd(t, i);
	}
	if (n == max)
		return -ENOSPC;
	set = fp_warm_detaching(&t->warm);
	if (set >= 0)
		fds[n++] = set;
	return n;
}

void fp_tracer_detach(struct fp_tracer *t)
{
	t->attached = false;
	if (reused(t))
		fp_warm_detach(&t->warm);
	else
		footprint_bpf__detach(t->skel);
}

int fp_tracer_set_cgroup(struct fp_tracer *t, int cgroup_fd)
{
	t->skel->bss->ncgroups = 0;
	return fp_tracer_add_cgroup(t, cgroup_fd);
}

int fp_tracer_add_cgroup(struct fp_tracer *t, int cgroup_fd)
{
	__u32 key = t->skel->bss->ncgroups;
	struct stat st;

	if (key >= FP_TRACER_MAX_CGROUPS)
		return -ENOSPC;
	/* a cgroup's id is its inode number in cgroup2 */
	if (fstat(cgroup_fd, &st))
		return -errno;
	t->skel->bss->target_cgroup_ids[key] = st.st_ino;
	if (bpf_map_update_elem(map_fd(t, FP_SKEL_MAP(target_cgroup)), &key,
				&cgroup_fd, BPF_ANY))
		return -errno;
	/* the entry is in place before the programs look at it */
	__atomic_store_n(&t->skel->bss->ncgroups, key + 1, __ATOMIC_RELEASE);
	return 0;
}

static bool is_self(struct fp_tracer *t, pid_t pid)
{
	unsigned int i;

	for (i = 0; i < t->skel->bss->nself && i < FP_TRACER_MAX_SELF; i++)
		if (t->skel->bss->self_tgids[i] == (__u32)pid)
			return true;
	return false;
}

int fp_tracer_add_self(struct fp_tracer *t, pid_t tgid)
{
	__u32 n = t->skel->bss->nself, key = tgid;

	if (tgid <= 0)
		return -EINVAL;
	if (is_self(t, tgid))
		return 0;
	if (n >= FP_TRACER_MAX_SELF)
		return -ENOSPC;
	t->skel->bss->self_tgids[n] = tgid;
	__atomic_store_n(&t->skel->bss->nself, n + 1, __ATOMIC_RELEASE);
	/* it may have been forked by a traced process, as a daemon is */
	bpf_map_delete_elem(map_fd(t, FP_SKEL_MAP(traced_pids)), &key);
	return 0;
}

int fp_tracer_set_step_parent(struct fp_tracer *t, pid_t pid)
{
	if (pid < 0)
		return -EINVAL;
	t->skel->bss->step_parent = pid;
	return 0;
}

static bool tree_has(void *ctx, pid_t pid)
{
	struct fp_tracer *t = ctx;
	__u32 key = pid, root;

	return !bpf_map_lookup_elem(map_fd(t, FP_SKEL_MAP(traced_pids)), &key,
				    &root);
}

static int tree_add(void *ctx, pid_t pid, pid_t parent)
{
	struct fp_tracer *t = ctx;
	int fd = map_fd(t, FP_SKEL_MAP(traced_pids));
	__u32 key = parent, root = parent;

	bpf_map_lookup_elem(fd, &key, &root);
	key = pid;
	if (bpf_map_update_elem(fd, &key, &root, BPF_NOEXIST)) {
		if (errno == EEXIST) /* the kernel side was first */
			return 1;
		if (errno != E2BIG)
			return -errno;
		/* as the kernel side does at fork: not traced, counted */
		t->lost_scope++;
		return 0;
	}
	/* gone meanwhile: its exit may have run before the entry existed */
	if (kill(pid, 0) && errno == ESRCH)
		bpf_map_delete_elem(fd, &key);
	return 1;
}

static bool tree_excluded(void *ctx, pid_t pid)
{
	return is_self(ctx, pid);
}

/*
 * Add what /proc shows below the roots, until a read of /proc adds
 * nothing: once attached, a process forked by a member is added by the
 * kernel, and one forked by a process not yet added shows up next pass.
 */
static int complete_trees(struct fp_tracer *t)
{
	struct fp_tree_set set = { tree_has, tree_add, tree_excluded, t };
	struct fp_proc_link *links;
	long n, added;
	int proc, pass;

	if (!t->nroots)
		return 0;
	proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc < 0)
		return -errno;
	for (pass = 0; pass < 64; pass++) {
		n = fp_proc_links(proc, &links);
		if (n < 0) {
			close(proc);
			return n;
		}
		added = fp_tree_close(links, n, &set);
		free(links);
		if (added <= 0) {
			close(proc);
			return added;
		}
	}
	close(proc);
	return 0;
}

int fp_tracer_add_pid_tree(struct fp_tracer *t, pid_t root)
{
	int fd = map_fd(t, FP_SKEL_MAP(traced_pids));
	__u32 key = root, val = root;

	if (root <= 0)
		return -EINVAL;
	if (t->nroots >= FP_TRACER_MAX_PID_TREES)
		return -ENOSPC;
	if (is_self(t, root))
		return -EINVAL;
	if (kill(root, 0) && errno == ESRCH)
		return -ESRCH;
	if (bpf_map_update_elem(fd, &key, &val, BPF_ANY))
		return errno == E2BIG ? -ENOSPC : -errno;
	t->roots[t->nroots++] = root;
	__atomic_store_n(&t->skel->bss->pid_tree_on, 1, __ATOMIC_RELEASE);
	return complete_trees(t);
}

void fp_tracer_boost_collector(void)
{
	/* PRIO_PROCESS with a thread id acts on that thread alone */
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid),
			  -FP_COLLECTOR_BOOST);
}

int fp_tracer_epoll_fd(struct fp_tracer *t)
{
	return fp_ring_epoll_fd(&t->ring);
}

int fp_tracer_consume(struct fp_tracer *t)
{
	return fp_ring_consume(&t->ring);
}

/*
 * The records still held back in the kernel (bpf/collapse.bpf.h): the
 * owners looked at in place (maparray.h), then the records of the slots
 * taken. Call once detached.
 */
int fp_tracer_drain_held(struct fp_tracer *t)
{
	int rfd = map_fd(t, FP_SKEL_MAP(held_opens));
	struct fp_held_open h;
	struct fp_map_array a;
	__u64 *owner;
	size_t size;
	__u32 i;
	int n = 0, ret;

	ret = fp_map_array_open(&a, map_fd(t, FP_SKEL_MAP(held_owner)),
				sizeof(*owner), FP_HELD_TASKS, 1);
	if (ret)
		return ret;
	for (i = 0; i < FP_HELD_TASKS; i++) {
		owner = fp_map_array_at(&a, i);
		if (!*owner)
			continue;
		size = 0;
		if (!bpf_map_lookup_elem(rfd, &i, &h))
			size = ((struct fp_file *)h.rec)->hdr.size;
		if (size >= sizeof(struct fp_file) && size <= sizeof(h.rec))
			fp_collector_feed(t->col, h.rec, size);
		else
			t->lost_held++;
		*owner = 0;
		n++;
	}
	fp_map_array_close(&a);
	return n;
}

int fp_tracer_flush_flows(struct fp_tracer *t, struct fp_collector *c)
{
	int flows = map_fd(t, FP_SKEL_MAP(net_flows));
	int merged = 0, ret;

	/* no slot taken: every one is free, with nothing pending */
	if (__atomic_load_n(&t->skel->bss->flow_slots_taken, __ATOMIC_ACQUIRE))
		merged = fp_flows_merge_cache(
			map_fd(t, FP_SKEL_MAP(flow_cache)), flows, c);
	ret = fp_flows_flush(flows, c);
	return merged < 0 ? merged : ret;
}

/* Runs the tracing programs skipped because another was active on the CPU. */
static uint64_t recursion_misses(struct fp_tracer *t)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < t->skel->skeleton->prog_cnt; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (prog_fd(t, i) < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(prog_fd(t, i), &info, &len))
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
	if (bpf_map_lookup_elem(map_fd(t, FP_SKEL_MAP(stats)), &key, per)) {
		ret = -errno;
		goto cleanup;
	}
	st->ncpus = ncpus;
	for (i = 0; i < ncpus; i++) {
		st->events += per[i].events;
		st->lost_ringbuf += per[i].lost;
		st->lost_pending += per[i].pending_full;
		/* not per CPU, but the same kind of loss: counted once */
		if (!i)
			st->lost_pending += t->lost_held;
		st->lost_compat += per[i].compat;
		st->lost_scope += per[i].scope_full;
		st->lost_net += per[i].net_unsure;
		st->lost_per_cpu[i] = per[i].lost + per[i].pending_full +
				      per[i].compat + per[i].scope_full +
				      per[i].net_unsure;
	}
	st->lost_scope += t->lost_scope;
	st->lost_recursion = recursion_misses(t) - t->recursion_before;
	st->lost = st->lost_ringbuf + st->lost_pending + st->lost_recursion +
		   st->lost_compat + st->lost_scope + st->lost_net;
cleanup:
	free(per);
	return ret;
}

/* Every link still open in this process, and still the one made at attach. */
static bool links_intact(struct fp_tracer *t)
{
	const struct bpf_object_skeleton *sk = t->skel->skeleton;
	int i;

	for (i = 0; i < sk->prog_cnt && i < FP_WARM_MAX_PROGS; i++) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);

		/* not loaded on this kernel (hooks.c), or never attached */
		if (prog_fd(t, i) < 0 || fp_skel_prog_is_iter(i))
			continue;
		if (link_fd(t, i) < 0 || !t->link_ids[i] ||
		    bpf_obj_get_info_by_fd(link_fd(t, i), &info, &len) ||
		    info.id != t->link_ids[i])
			return false;
	}
	return true;
}

static __u64 hb_count(struct fp_tracer *t, int prog)
{
	return __atomic_load_n(&t->skel->bss->heartbeat[prog],
			       __ATOMIC_ACQUIRE);
}

/*
 * Make each checked program run once for this process and see that it
 * did: getppid() (sys_exit), and a child (fork) that kills
 * itself (signal) and so exits (exit). Each program bumps its counter in
 * the context of the syscall or of the child, before wait returns.
 */
static bool programs_run(struct fp_tracer *t)
{
	__u64 before[FP_HB_NPROGS];
	int i, status;
	pid_t child;

	__atomic_store_n(&t->skel->bss->heartbeat_tgid, getpid(),
			 __ATOMIC_RELEASE);
	for (i = 0; i < FP_HB_NPROGS; i++)
		before[i] = hb_count(t, i);
	syscall(SYS_getppid);
	child = fork();
	if (child < 0)
		return false;
	if (child == 0) {
		syscall(SYS_kill, syscall(SYS_getpid), SIGKILL);
		_exit(0);
	}
	/* ECHILD: SIGCHLD is ignored and the kernel reaped it */
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	for (i = 0; i < FP_HB_NPROGS; i++)
		if (hb_count(t, i) == before[i])
			return false;
	return true;
}

int fp_tracer_heartbeat(struct fp_tracer *t)
{
	int tries;

	if (!t->attached)
		return -ENOLINK;
	/* a program skipped once (another ran on the CPU) is not detached */
	for (tries = 0; tries < 3; tries++)
		if (links_intact(t) && programs_run(t))
			return 0;
	return -ENOLINK;
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
	fp_ring_close(&t->ring);
	if (t->tasks_link >= 0)
		close(t->tasks_link);
	/* links first (fp_warm_end closes a reused set's): the next run may
	 * take the set once it is let go */
	if (!reused(t) && t->skel)
		footprint_bpf__detach(t->skel);
	fp_warm_end(&t->warm);
	footprint_bpf__destroy(t->skel);
	free(t);
}

int fp_tracer_tasks_fd(struct fp_tracer *t)
{
	int fd, prog = prog_fd(t, FP_SKEL_PROG(fp_proc_iter));

	if (prog < 0)
		return -EOPNOTSUPP;
	/* one link for the tracer's life; an iterator a read of the table */
	if (t->tasks_link < 0) {
		t->tasks_link = bpf_link_create(prog, 0, BPF_TRACE_ITER, NULL);
		if (t->tasks_link < 0)
			return -errno;
	}
	fd = bpf_iter_create(t->tasks_link);
	return fd < 0 ? -errno : fd;
}

int fp_tracer_set_secret_ids(struct fp_tracer *t,
			     const struct fp_secret_id *ids,
			     const uint32_t *cls, size_t n)
{
	int fd = map_fd(t, FP_SKEL_MAP(secret_ids));
	size_t i;

	if (n > FP_MAX_SECRET_IDS)
		n = FP_MAX_SECRET_IDS;
	for (i = 0; i < n; i++) {
		uint32_t bit = FP_SECRET_INO_BIT(ids[i].ino);

		/* the bit first: an open between the two then looks it up */
		__atomic_fetch_or(&t->skel->bss->secret_ino_bits[bit / 64],
				  1ULL << (bit % 64), __ATOMIC_RELAXED);
		if (bpf_map_update_elem(fd, &ids[i], &cls[i], BPF_ANY))
			return -errno;
	}
	/* the bits and entries before the switch that has them read */
	if (n)
		__atomic_store_n(&t->skel->bss->secret_ids_on, 1,
				 __ATOMIC_RELEASE);
	return 0;
}
