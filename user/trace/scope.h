/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process trees from /proc: the processes already below a --pid-tree root
 * when tracing starts. Later ones are added by the kernel side at fork.
 */
#ifndef FP_SCOPE_H
#define FP_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct fp_proc_link {
	pid_t pid; /* a process (tgid) */
	pid_t ppid;
};

/*
 * Every process under proc_dirfd (a procfs root) with its parent; *out is
 * malloc'd. Processes that exit while being read are left out. Returns the
 * count or -errno.
 */
long fp_proc_links(int proc_dirfd, struct fp_proc_link **out);

/* The set being grown: a member test and an insert, e.g. a BPF map. */
struct fp_tree_set {
	bool (*has)(void *ctx, pid_t pid);
	/* 1 added, 0 not (no room: the callee counts it), -errno to stop */
	int (*add)(void *ctx, pid_t pid, pid_t parent);
	/* never a member, nor are its children: the tracer's own */
	bool (*excluded)(void *ctx, pid_t pid);
	void *ctx;
};

/*
 * Add every process of links[] that descends from a member of s, however
 * the list is ordered; each is offered to add() once. Returns how many
 * were added, or -errno from add.
 */
long fp_tree_close(const struct fp_proc_link *links, size_t n,
		   const struct fp_tree_set *s);

#endif
