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
#include "skel_index.h"
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

static int zero_percpu(int fd, const struct fp_map_shape *s)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t sz = (s->value_size + 7) / 8 * 8;
	void *zero;
	__u32 key;
	int ret = 0;

	if (ncpus <= 0)
		return -EINVAL;
	zero = calloc(ncpus, sz);
	if (!zero)
		return -ENOMEM;
	for (key = 0; key < s->max_entries && !ret; key++)
		if (bpf_map_update_elem(fd, &key, zero, BPF_ANY))
			ret = -errno;
	free(zero);
	return ret;
}

/* A slot table (flow_cache, held_owner), zeroed in place (maparray.h). */
static int zero_array(int fd, const struct fp_map_shape *s)
{
	struct fp_map_array a;
	int ret;

	ret = fp_map_array_open(&a, fd, s->value_size, s->max_entries, 1);
	if (ret)
		return ret;
	memset(a.base, 0, a.stride * s->max_entries);
	fp_map_array_close(&a);
	return 0;
}

static int clear_cgroups(int fd, const struct fp_map_shape *s)
{
	__u32 key;

	for (key = 0; key < s->max_entries; key++)
		if (bpf_map_delete_elem(fd, &key) && errno != ENOENT)
			return -errno;
	return 0;
}

/*
 * One map back to what a fresh load has: emptied, zeroed, or (a table a
 * load fills for good, the ring the tracer drains, task storage only a
 * run's own new tasks have) left as it is. With fd -1, only whether
 * this kind of map is known: -EOPNOTSUPP if not.
 */
static int reset_map(int fd, const struct fp_map_shape *s)
{
	bool dry = fd < 0;

	switch (s->type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
		return dry ? 0 : clear_hash(fd, s->key_size);
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return dry ? 0 : zero_percpu(fd, s);
	case BPF_MAP_TYPE_CGROUP_ARRAY:
		return dry ? 0 : clear_cgroups(fd, s);
	case BPF_MAP_TYPE_ARRAY:
		/*
		 * An array the kernel side lets userspace map is a slot table
		 * a run writes and the stop reads in place (maparray.h). The
		 * syscall table, global data (.bss is zeroed below) and the
		 * held records (a slot's is written before it is read) are
		 * a load's.
		 */
		if ((s->flags & BPF_F_MMAPABLE) && !s->global_data)
			return dry ? 0 : zero_array(fd, s);
		return 0;
	case BPF_MAP_TYPE_RINGBUF:
	case BPF_MAP_TYPE_TASK_STORAGE:
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

void fp_map_shape_of(const struct bpf_map *m, bool global_data,
		     struct fp_map_shape *s)
{
	s->type = bpf_map__type(m);
	s->key_size = bpf_map__key_size(m);
	s->value_size = bpf_map__value_size(m);
	s->max_entries = bpf_map__max_entries(m);
	s->flags = bpf_map__map_flags(m);
	s->global_data = global_data;
}

void fp_map_shape_info(const struct bpf_map_info *info, bool global_data,
		       struct fp_map_shape *s)
{
	s->type = info->type;
	s->key_size = info->key_size;
	s->value_size = info->value_size;
	s->max_entries = info->max_entries;
	s->flags = info->map_flags;
	s->global_data = global_data;
}

bool fp_warm_map_resettable(const struct fp_map_shape *s)
{
	return !reset_map(-1, s);
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
int fp_warm_reset_state(const int *map_fd, const struct fp_map_shape *shape,
			int n, struct footprint_bpf__bss *bss)
{
	__u64 gen;
	__u32 addr_at;
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		/* slots no thread took are as the last reset left them */
		if (i == FP_SKEL_MAP(flow_cache) && !bss->flow_slots_taken)
			continue;
		ret = map_fd[i] < 0 ? -EBADF : reset_map(map_fd[i], &shape[i]);
	}
	if (ret)
		return ret;
	gen = __atomic_load_n(&bss->path_gen, __ATOMIC_ACQUIRE);
	addr_at = bss->uring_addr_at;
	memset(bss, 0, sizeof(*bss));
	bss->uring_addr_at = addr_at;
	__atomic_store_n(&bss->path_gen, gen + 1, __ATOMIC_RELEASE);
	return 0;
}

void *fp_warm_map_global_data(int fd, const struct fp_map_shape *s, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t sz = (size_t)(s->value_size + 7) / 8 * 8 * s->max_entries;
	int prot = PROT_READ;
	void *p;

	*len = 0;
	if (!(s->flags & BPF_F_MMAPABLE)) {
		errno = EINVAL;
		return NULL;
	}
	/* as libbpf: what the programs only read is read-only here too */
	if (!(s->flags & BPF_F_RDONLY_PROG))
		prot |= PROT_WRITE;
	sz = (sz + page - 1) / page * page;
	p = mmap(NULL, sz, prot, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	*len = sz;
	return p;
}
