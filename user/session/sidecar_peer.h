/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who is on the other end of the sidecar's control socket, by what the
 * kernel says (SO_PEERCRED, a pidfd, /proc), never by what the peer says:
 * its pid and start time, its uid, and whether its executable is the very
 * file the daemon runs (device and inode). A process is footprint's own
 * when it is that, is not being ptraced, and was not started with a
 * loader variable that could put foreign code in it (LD_PRELOAD, ...).
 * Above it, the footprint processes it descends from and the sudo (the
 * system's /usr/bin/sudo, by device and inode) that launched them are
 * footprint's too: the daemon logs them all (FP_EV_CONTROL), and what
 * they did is never a finding of the job.
 */
#ifndef FP_SIDECAR_PEER_H
#define FP_SIDECAR_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "footprint.h"
#include "proc_walk.h"

/* The daemon's own identity, and the sudo it knows. */
struct fp_sc_self {
	dev_t exe_dev;
	ino_t exe_ino;
	bool have_sudo;
	dev_t sudo_dev;
	ino_t sudo_ino;
	uint64_t start_ticks; /* the daemon's start time */
	/* the daemon's cgroup v2 ("0::/footprint/run-..."), where stop's
	 * child is born (clone3 CLONE_INTO_CGROUP); set once the daemon is
	 * in it (fp_sc_self_cgroup) */
	char cgroup[512];
};

struct fp_sc_peer {
	pid_t pid; /* 0: unknown (it is gone, or the kernel would not say) */
	uid_t uid;
	pid_t ppid;
	uint64_t start_ticks;
	bool footprint; /* its executable is the daemon's */
	bool clean; /* not ptraced, no loader variables */
	bool in_cgroup; /* in the daemon's own cgroup: started for it */
	/* footprint's own: the peer, then the footprint and sudo processes
	 * above it, nearest first; empty unless footprint && clean */
	uint32_t own[FP_CTL_MAX_OWN];
	unsigned int nown;
};

/* 0, or -errno when the daemon cannot know itself */
int fp_sc_self_init(struct fp_sc_self *self);
/* The daemon's cgroup, once it moved into it: 0 or -errno */
int fp_sc_self_cgroup(struct fp_sc_self *self);
/* The peer of a connected unix socket; fills p (pid 0 if unknown). */
void fp_sc_peer_identify(int conn, const struct fp_sc_self *self,
			 struct fp_sc_peer *p);
/*
 * The same for a process named by pid (the `sidecar start` that made the
 * daemon). Returns 0, or -ESRCH when it is gone.
 */
int fp_sc_pid_identify(pid_t pid, const struct fp_sc_self *self,
		       struct fp_sc_peer *p);
/*
 * The process's environment variable name (NAME=value) into buf (NUL-
 * terminated), read from /proc/PID/environ: 0, or -ENOENT, -errno.
 */
int fp_proc_getenv(pid_t pid, const char *name, char *buf, size_t len);
/* "PID:TICKS", the identity the journal and the action pin */
#define FP_SC_ID_LEN 48
void fp_sc_id(char *buf, pid_t pid, uint64_t ticks);
/* "PID:TICKS" back; 0 or -EINVAL */
int fp_sc_id_parse(const char *s, pid_t *pid, uint64_t *ticks);

#endif
