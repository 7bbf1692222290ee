/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runtime shape of a service: for each of its processes what it runs,
 * as whom, with which capabilities, seccomp, namespaces, listening sockets
 * and mounts (seed 002). Every part that grows with the target is bounded,
 * and a part that could not be read makes the shape incomplete (and says
 * why) rather than quietly smaller.
 */
#ifndef FP_SHAPE_H
#define FP_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"

#define FP_SHAPE_PROCS_MAX 1024
#define FP_SHAPE_MOUNTS_MAX 4096
#define FP_SHAPE_FDS_MAX 65536
#define FP_SHAPE_SOCKS_MAX 4096
#define FP_SHAPE_NOTES_MAX 64

enum {
	FP_NS_CGROUP,
	FP_NS_IPC,
	FP_NS_MNT,
	FP_NS_NET,
	FP_NS_PID,
	FP_NS_TIME,
	FP_NS_USER,
	FP_NS_UTS,
	FP_NS_N
};
extern const char *const fp_ns_names[FP_NS_N];

struct fp_shape_mount {
	struct fp_bytes point, root, fstype, source;
	bool rw;
	char propagation[32]; /* "private", or "shared", "slave"... */
};

struct fp_shape_ns {
	uint64_t ino; /* 0: unreadable */
	bool differs; /* from PID 1's */
	bool known; /* PID 1's could be read (containers may hide it) */
};

struct fp_shape_proc {
	pid_t pid, ppid;
	struct fp_bytes exe, argv, cgroup;
	char exe_sha256[65]; /* "" if the image could not be read */
	uint32_t uids[4], gids[4]; /* real, effective, saved, fs */
	uint64_t cap_eff, cap_prm, cap_bnd, cap_amb, cap_inh;
	int no_new_privs;
	int seccomp; /* 0 disabled, 1 strict, 2 filter */
	int seccomp_filters;
	struct fp_shape_ns ns[FP_NS_N];
	uint64_t *sock_inodes; /* from /proc/PID/fd */
	size_t nsock_inodes;
	char **listeners; /* "tcp/127.0.0.1:8080", sorted */
	size_t nlisteners;
	struct fp_shape_mount *mounts; /* sorted by point, source, fstype */
	size_t nmounts;
};

#define FP_UNIT_PROPS_MAX 24

struct fp_shape_unit {
	char *name;
	char *control_group;
	pid_t main_pid;
	const char *keys[FP_UNIT_PROPS_MAX];
	char *vals[FP_UNIT_PROPS_MAX]; /* rendered as text, sorted where sets */
	size_t nprops;
};

struct fp_shape {
	const char *kind; /* "unit", "pid", "cgroup" */
	char *target;
	bool has_unit;
	struct fp_shape_unit unit;
	pid_t main_pid;
	struct fp_shape_proc *procs; /* sorted by pid */
	size_t nprocs;
	bool init_ns_unreadable; /* every differs_from_init is unknown */
	char *notes[FP_SHAPE_NOTES_MAX]; /* why the shape is incomplete */
	size_t nnotes;
};

/* the shape of one process, of a cgroup (cgroup2 path), of a unit */
int fp_shape_pid(struct fp_shape *s, pid_t pid);
int fp_shape_cgroup(struct fp_shape *s, const char *path);
int fp_shape_unit(struct fp_shape *s, const char *unit);
void fp_shape_free(struct fp_shape *s);
/* record why the shape is incomplete; printf-like */
void fp_shape_note(struct fp_shape *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* internal to the capture, one file each */
int fp_shape_read_proc(struct fp_shape *s, struct fp_shape_proc *p, pid_t pid,
		       const struct fp_shape_ns *init_ns);
/* PID 1's namespaces, to tell whose differ; 0 or -errno */
int fp_shape_init_ns(struct fp_shape_ns init[FP_NS_N]);
int fp_shape_read_mounts(struct fp_shape *s, struct fp_shape_proc *p,
			 int dirfd);
int fp_shape_read_sockets(struct fp_shape *s);
int fp_shape_cgroup_into(struct fp_shape *s, const char *path);
int fp_shape_read_unit(struct fp_shape *s, const char *unit);
void fp_shape_proc_free(struct fp_shape_proc *p);
/* read name under dirfd whole, at most max bytes; -E2BIG if longer */
int fp_shape_slurp(int dirfd, const char *name, struct fp_bytes *out,
		   size_t max);

#endif
