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
#include "cli.h"
#include "creds.h"
#include "rule_args.h"
#include "session.h"
#include "tracer.h"

/* the default --state, per invoking user: /run/footprint/sidecar-UID */
#define DEFAULT_STATE "/run/footprint/sidecar-UID"
#define MAX_CGROUPS 8

struct sidecar_opts {
	const char *state;
	bool default_state; /* no --state: state is /run/footprint/sidecar-UID */
	uid_t state_uid; /* that UID: the invoking user */
	char state_buf[64];
	const char *daemon_id; /* stop --daemon PID:TICKS */
	const char *push_url, *push_job; /* stop --push URL, --job NAME */
	const char *roots_arg[FP_ROOTS_MAX];
	size_t nroots;
	const char *record_path;
	uint64_t record_max;
	const char *cgroups[MAX_CGROUPS];
	size_t ncgroups;
	pid_t pid_trees[FP_TRACER_MAX_PID_TREES];
	size_t npid_trees;
	pid_t step_parent;
	const char *receipt_path, *summary_path;
	bool annotations, json, quiet;
	size_t summary_max;
	uint64_t mem_budget;
	size_t ring_bytes;
	bool every_open; /* --every-open */
	bool report_reads; /* --report-reads */
	struct fp_rule_args rules;
	const char *verb;
	const char *name; /* mark */
	struct fp_attest_args attest; /* stop --attest KEY ... */
};

/* The state directory: made (make) or found; an fd, or -1 after a line. */
int sidecar_open_state(const struct sidecar_opts *o, const struct fp_creds *c,
		       bool make);
/* none of a daemon's files is there (only, maybe, its journal) */
bool sidecar_state_empty(int statefd);
/* The daemon's control socket: a connected fd, or -errno. */
int sidecar_connect(int statefd, const char *state);
bool sidecar_alive(int statefd);
int sidecar_listen(int statefd);
void sidecar_write_log_id(int statefd, struct fp_session *s);
void sidecar_write_pidfile(int statefd, const struct fp_cgroup *cg);
void sidecar_write_roots(int statefd, char *const *roots, size_t n);
size_t sidecar_read_roots(int statefd, char *buf, size_t len, char **roots,
			  size_t max);

/* The verbs; each returns the exit code. */
int sidecar_start(struct sidecar_opts *o, const struct fp_creds *c);
int sidecar_status(struct sidecar_opts *o);
int sidecar_mark(struct sidecar_opts *o);
int sidecar_stop(struct sidecar_opts *o, const struct fp_creds *c);

/* stop --attest (sidecar_attest.c): the receipt goes through a memfd of
 * stop's, from begin to end, and the link is made of it */
struct sidecar_attest {
	struct fp_attest_job job;
	int mfd; /* -1: not attesting */
	int fd; /* the receipt's own fd and path, while the memfd stands in */
	const char *path;
};

/* Before the verdict: the key, the link's directory, the memfd. 0 or an
 * exit code after one line. */
int sidecar_attest_begin(struct sidecar_attest *sa, struct fp_output *receipt,
			 struct sidecar_opts *o, const struct fp_creds *c);
/* After it (rc its exit code): the receipt passed on, the link made; the
 * exit code to go on with. */
int sidecar_attest_end(struct sidecar_attest *sa, struct fp_output *receipt,
		       struct sidecar_opts *o, int rc);

#endif
