// SPDX-License-Identifier: GPL-2.0
/*
 * A reused set brought back to what a fresh load has (warm.h), and its
 * global data mapped where the skeleton's code looks for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "footprint.skel.h"
#include "maparray.h"
#include "warm_reset.h"

static int clear_hash(int fd, __u32 key_size)
{
	char key[256];

	if (key_size > sizeof(key))
		return -E2BIG;
	/* deleting the first key each time: a walk would restart anyway */
	while (!bpf_map_get_next_key(fd, NULL, key))
		if (bpf_map_delete_elem(fd, key))
			return -errno;
	return errno == ENOENT ? 0 : -errno;
}

static int zero_percpu(int fd, const struct bpf_map *m)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t sz = (bpf_map__value_size(m) + 7) / 8 * 8;
	void *zero;
	__u32 key;
	int ret = 0;

	if (ncpus <= 0)
		return -EINVAL;
	zero = calloc(ncpus, sz);
	if (!zero)
		return -ENOMEM;
	for (key = 0; key < bpf_map__max_entries(m) && !ret; key++)
		if (bpf_map_update_elem(fd, &key, zero, BPF_ANY))
			ret = -errno;
	free(zero);
	return ret;
}

/* A slot table (flow_cache, held_owner), zeroed in place (maparray.h). */
static int zero_array(int fd, const struct bpf_map *m)
{
	struct fp_map_array a;
	int ret;

	ret = fp_map_array_open(&a, fd, bpf_map__value_size(m),
				bpf_map__max_entries(m), 1);
	if (ret)
		return ret;
	memset(a.base, 0, a.stride * bpf_map__max_entries(m));
	fp_map_array_close(&a);
	return 0;
}

static int clear_cgroups(int fd, const struct bpf_map *m)
{
	__u32 key;

	for (key = 0; key < bpf_map__max_entries(m); key++)
		if (bpf_map_delete_elem(fd, &key) && errno != ENOENT)
			return -errno;
	return 0;
}

/*
 * One map back to what a fresh load has: emptied, zeroed, or (a table a
 * load fills for good, the ring the tracer drains, task storage only a
 * run's own new tasks have) left as it is. With dry set, only whether
 * this kind of map is known: -EOPNOTSUPP if not.
 */
static int reset_map(const struct bpf_map *m, bool dry)
{
	int fd = bpf_map__fd(m);

	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
		return dry ? 0 : clear_hash(fd, bpf_map__key_size(m));
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return dry ? 0 : zero_percpu(fd, m);
	case BPF_MAP_TYPE_CGROUP_ARRAY:
		return dry ? 0 : clear_cgroups(fd, m);
	case BPF_MAP_TYPE_ARRAY:
		/*
		 * An array the kernel side lets userspace map is a slot table
		 * a run writes and the stop reads in place (maparray.h). The
		 * syscall table, global data (.bss is zeroed below) and the
		 * held records (a slot's is written before it is read) are
		 * a load's.
		 */
		if ((bpf_map__map_flags(m) & BPF_F_MMAPABLE) &&
		    !bpf_map__is_internal(m))
			return dry ? 0 : zero_array(fd, m);
		return 0;
	case BPF_MAP_TYPE_RINGBUF:
	case BPF_MAP_TYPE_TASK_STORAGE:
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

bool fp_warm_map_resettable(const struct bpf_map *m)
{
	return !reset_map(m, true);
}

/*
 * What a fresh load would have: empty tables, zero counters, no scope,
 * a zero .bss. path_gen alone goes on, one further: every walk a task
 * cached under an earlier run was read before it and is never trusted,
 * as renames went unbumped while nothing was attached. uring_addr_at,
 * where this kernel keeps an io_uring CONNECT's address, is kept once
 * learned: a set is this kernel's (its key names it), and the tracer's
 * calibration (uring_calib.c, a ring set up and torn down) then runs at
 * the first run only. The ring buffer
 * is drained by the tracer (it owns the consumer); task storage cannot
 * be walked from here, and only the walk cache lives there.
 */
int fp_warm_reset_state(struct footprint_bpf *skel)
{
	const struct bpf_object_skeleton *sk = skel->skeleton;
	__u64 gen;
	__u32 addr_at;
	int i, ret = 0;

	for (i = 0; i < sk->map_cnt && !ret; i++)
		ret = reset_map(*sk->maps[i].map, false);
	if (ret)
		return ret;
	gen = __atomic_load_n(&skel->bss->path_gen, __ATOMIC_ACQUIRE);
	addr_at = skel->bss->uring_addr_at;
	memset(skel->bss, 0, sizeof(*skel->bss));
	skel->bss->uring_addr_at = addr_at;
	__atomic_store_n(&skel->bss->path_gen, gen + 1, __ATOMIC_RELEASE);
	return 0;
}

int fp_warm_map_global_data(const struct bpf_map_skeleton *ms)
{
	const struct bpf_map *m = *ms->map;
	long page = sysconf(_SC_PAGESIZE);
	size_t sz =
		(bpf_map__value_size(m) + 7) / 8 * 8 * bpf_map__max_entries(m);
	int prot = PROT_READ;
	void *p;

	if (!ms->mmaped || !*ms->mmaped ||
	    !(bpf_map__map_flags(m) & BPF_F_MMAPABLE))
		return 0;
	if (!(bpf_map__map_flags(m) & BPF_F_RDONLY_PROG))
		prot |= PROT_WRITE;
	sz = (sz + page - 1) / page * page;
	p = mmap(*ms->mmaped, sz, prot, MAP_SHARED | MAP_FIXED, bpf_map__fd(m),
		 0);
	return p == MAP_FAILED ? -errno : 0;
}
