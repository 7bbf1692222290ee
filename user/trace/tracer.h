/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel side as seen from userspace: load, attach, say what to trace
 * (cgroups, process trees, never the tracer itself), drain the ring buffer,
 * and account for every record that did not make it.
 */
#ifndef FP_TRACER_H
#define FP_TRACER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector.h"

struct fp_tracer;

#define FP_TRACER_MAX_CGROUPS FP_MAX_CGROUPS
#define FP_TRACER_MAX_PID_TREES 16
#define FP_TRACER_MAX_SELF FP_MAX_SELF

/*
 * Zero-initialise, then set what is needed: a task is traced when it is in
 * one of the cgroups (or below), or in one of the process trees, and is
 * not one of the self processes. `run` sets one cgroup and nothing else.
 */
struct fp_tracer_opts {
	size_t ring_bytes; /* power of two */
	/* emit every read-only open; by default repeats are collapsed */
	bool every_open;
	/* keep the programs loaded for the next run, or reuse those an
	 * earlier one kept (warm.h) */
	bool warm;
	uint64_t max_argv_bytes;
	int cgroup_fds
		[FP_TRACER_MAX_CGROUPS]; /* O_DIRECTORY fds of cgroup v2 */
	unsigned int ncgroups;
	/* each: the process and every descendant, present and future */
	pid_t pid_trees[FP_TRACER_MAX_PID_TREES];
	unsigned int npid_trees;
	/* processes of the tree table; 0: FP_MAX_TRACED_PIDS. More alive at
	 * once are counted as lost (lost_scope) */
	uint32_t max_tree_pids;
	/* execs by its direct children carry GITHUB_ACTION (step_name) */
	pid_t step_parent;
	/* the tracer's own processes: never traced, their children not added
	 * to a tree, and a traced process reaching for them is tamper */
	pid_t self_tgids[FP_TRACER_MAX_SELF];
	unsigned int nself;
	/* ports whose traffic is DNS; all 0: port 53 alone */
	uint16_t dns_ports[FP_MAX_DNS_PORTS];
};

struct fp_trace_stats {
	uint64_t events; /* committed by the kernel side */
	uint64_t lost; /* ring buffer full, arguments not kept, recursion */
	uint64_t lost_ringbuf;
	uint64_t lost_pending;
	uint64_t lost_recursion;
	uint64_t lost_compat; /* 32-bit file syscalls, seen but not decoded */
	uint64_t lost_scope; /* processes the tree table had no room for */
	/* sends whose destination neither the kernel gave nor the caller's
	 * memory still named (net.bpf.c) */
	uint64_t lost_net;
	unsigned int ncpus;
	uint64_t *lost_per_cpu; /* ring buffer + pending, per CPU */
};

/*
 * Load (and verify) the programs. On failure returns a negative errno and
 * writes one line for the user (what failed, what to do) into err.
 */
int fp_tracer_open(struct fp_tracer **out, const struct fp_tracer_opts *opts,
		   struct fp_collector *collector, char *err, size_t errlen);
/*
 * Attach just before the command starts and detach once it is drained: the
 * raw syscall tracepoints run for every syscall on the machine, footprint's
 * own snapshots included.
 */
int fp_tracer_attach(struct fp_tracer *t, char *err, size_t errlen);
void fp_tracer_detach(struct fp_tracer *t);
/*
 * Take every task out of scope, links attached: the programs leave at
 * their scope test from here on, as they would detached, at the cost of
 * a store instead of a text patch per tracepoint. What a program that
 * was past the test still writes is read as after a detach. The links go
 * with fp_tracer_detach() or fp_tracer_close(), off the run's path.
 */
void fp_tracer_stop(struct fp_tracer *t);
/*
 * The fds whose last close ends a stopped tracer, for another process to
 * close once this one has ended: every link, then the warm set's
 * directory (fp_warm_detaching). This one's copies are closed as ever.
 * How many, at most max; -ENOSPC for more.
 */
int fp_tracer_end_fds(struct fp_tracer *t, int *fds, int max);
/* Trace this cgroup (and below) only, in place of any set before. */
int fp_tracer_set_cgroup(struct fp_tracer *t, int cgroup_fd);
/*
 * Scope additions, before or after attach. A tree added before attach is
 * completed from /proc again once attached, so a process forked in
 * between is not missed. -ENOSPC past the limits above, -ESRCH for a root
 * that does not exist.
 */
int fp_tracer_add_cgroup(struct fp_tracer *t, int cgroup_fd);
int fp_tracer_add_pid_tree(struct fp_tracer *t, pid_t root);
int fp_tracer_add_self(struct fp_tracer *t, pid_t tgid);
int fp_tracer_set_step_parent(struct fp_tracer *t, pid_t pid);
/*
 * Secrets by device (the kernel's dev_t) and inode, with their class
 * numbers: an open of one is named by its fd and marked, whatever name
 * reached it (bpf/file.bpf.c, secret_opened). 0 or -errno.
 */
int fp_tracer_set_secret_ids(struct fp_tracer *t,
			     const struct fp_secret_id *ids,
			     const uint32_t *cls, size_t n);
/*
 * 0 while every program is attached and runs, -ENOLINK once one is not
 * (its link was closed or detached). Checks by making a getppid() and by
 * forking a child that kills itself, and reaps that child by its pid: the
 * caller must not reap children it did not make. About 0.1 ms.
 */
int fp_tracer_heartbeat(struct fp_tracer *t);
/* An fd that becomes readable when the kernel side forces a wakeup. */
int fp_tracer_epoll_fd(struct fp_tracer *t);
/*
 * Raise the calling thread's priority (nice -FP_COLLECTOR_BOOST) before
 * it runs the poll loop, as auditd's priority_boost does: the ring buffer
 * cannot make the traced command wait, so a collector starved by the
 * command's own CPU use loses events and the trace is incomplete. The
 * thread only runs when there is data. Best effort: without root it
 * stays as it is. Only this thread: the command forked before.
 */
#define FP_COLLECTOR_BOOST 4
void fp_tracer_boost_collector(void);
/* Hand every committed record to the collector; returns records or -errno. */
int fp_tracer_consume(struct fp_tracer *t);
/*
 * After detach: hand the collector the read-only opens the kernel still
 * holds back for tasks that neither exited nor made another file syscall
 * (bpf/collapse.h). Returns records or -errno.
 */
int fp_tracer_drain_held(struct fp_tracer *t);
int fp_tracer_stats(struct fp_tracer *t, struct fp_trace_stats *st);
void fp_trace_stats_free(struct fp_trace_stats *st);
void fp_tracer_close(struct fp_tracer *t);
/*
 * A new fd whose reads give a struct fp_task_rec (footprint.h) for every
 * process on the machine, from the task iterator (proctab.bpf.c); the
 * caller closes it. -EOPNOTSUPP when the program is not loaded, -errno.
 */
int fp_tracer_tasks_fd(struct fp_tracer *t);
/* The kernel's per-destination counts as FP_EV_NET_COUNT records to the
 * collector (flows.h); after detach. Returns records fed or -errno. */
int fp_tracer_flush_flows(struct fp_tracer *t, struct fp_collector *c);

#endif
