/* SPDX-License-Identifier: GPL-2.0 */
/*
 * footprint sidecar, the command side: its options, the state directory
 * (root's, 0711: the daemon's pid, roots, log and control socket), the
 * daemon's birth (sidecar_start.c) and the clients of its socket
 * (sidecar_stop.c). The daemon's loop is session/sidecar.c.
 */
#ifndef FP_SIDECAR_CMD_H
#define FP_SIDECAR_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "attest_job.h"
#include "cgroup.h"
#include "creds.h"
#include "session.h"
#include "session_args.h"
#include "tracer.h"

/* the default --state, per invoking user: /run/footprint/sidecar-UID */
#define DEFAULT_STATE "/run/footprint/sidecar-UID"
#define MAX_CGROUPS 8

struct sidecar_opts {
	/* the session's options and those shared with run and replay:
	 * roots, rules, --record, --receipt, --quiet, --push ... */
	struct fp_session_args args;
	const char *state;
	bool default_state; /* no --state: state is /run/footprint/sidecar-UID */
	uid_t state_uid; /* that UID: the invoking user */
	char state_buf[64];
	const char *daemon_id; /* stop --daemon PID:TICKS */
	const char *cgroups[MAX_CGROUPS];
	size_t ncgroups;
	pid_t pid_trees[FP_TRACER_MAX_PID_TREES];
	size_t npid_trees;
	pid_t step_parent;
	const char *summary_path;
	bool annotations, json;
	const char *verb;
	const char *name; /* mark */
	struct fp_attest_args attest; /* stop --attest KEY ... */
};

/* The state directory: made (make) or found; an fd, or -1 after a line. */
int sidecar_open_state(const struct sidecar_opts *o, const struct fp_creds *c,
		       bool make);
/* The verbs; each returns the exit code. */
int sidecar_start(struct sidecar_opts *o, const struct fp_creds *c);
int sidecar_status(struct sidecar_opts *o);
int sidecar_mark(struct sidecar_opts *o);
int sidecar_stop(struct sidecar_opts *o, const struct fp_creds *c);

#endif
