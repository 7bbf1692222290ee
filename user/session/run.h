/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything a verdict is made from: the command and its settings, the
 * snapshots, the folded events and how the run ended. A live run fills it
 * as it goes; replay fills it from a log. Both then call the same
 * fp_run_judge(), so a replayed receipt is byte for byte the live one.
 */
#ifndef FP_RUN_H
#define FP_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "findings.h"
#include "judge.h"
#include "policy.h"
#include "reconcile.h"
#include "sensitive.h"
#include "shape_diff.h"
#include "snapshot_fs.h"
#include "snapshot_holders.h"
#include "snapshot_net.h"
#include "snapshot_proc.h"

enum fp_run_mode {
	FP_MODE_RUN, /* footprint run: one launched command */
	FP_MODE_SIDECAR, /* footprint sidecar: a CI job, step by step */
};

struct fp_run {
	/* header */
	enum fp_run_mode mode;
	pid_t step_parent; /* sidecar: its forks start steps; 0 none */
	char *state_dir; /* sidecar: a change under it is tamper; NULL none */
	char *scratch_dir; /* run --scratch DIR; NULL none */
	char **argv; /* NULL-terminated */
	char *cwd, *user, *hostname, *kernel, *boot_id, *version;
	char *run_cgroup; /* as /proc/PID/cgroup shows it */
	uint32_t uid, gid;
	int64_t start_ns; /* CLOCK_REALTIME */
	char **roots;
	size_t nroots;
	char **policy; /* rule lines, as a policy file would hold them */
	size_t npolicy;
	bool report_noise;
	/* reads_setup.c: the "~" of the secret class, --report-reads, and
	 * what the recon keeps of reads, made from them and the policy */
	char **homes;
	size_t nhomes;
	bool report_reads;
	struct fp_policy read_pol;
	struct fp_reads_conf rconf;
	/* snapshots, [FP_PHASE_BEFORE] and [FP_PHASE_AFTER] */
	struct fp_fs_snapshot fs[2];
	struct fp_proc_table procs[2];
	struct fp_sock_table socks[2];
	bool have_snap[2];
	/* events */
	struct fp_recon *recon;
	uint64_t events;
	/* read-only opens folded into another's count (bpf/collapse.h) */
	uint64_t opens_collapsed;
	bool recon_failed;
	uint64_t mem_budget; /* for recon; in the log's header */
	bool mem_budget_given; /* replay: not the recorded one */
	/* trailer */
	bool have_trailer;
	int status; /* wait(2) status */
	int exec_errno;
	bool timed_out, interrupted;
	uint64_t duration_ms;
	uint64_t lost;
	pid_t *leftover;
	size_t nleftover;
	/* the scratch box's init when the after-snapshot saw it: footprint's
	 * own, not a new process outside the run; 0 if none */
	pid_t own_pid;
	int64_t end_ns;
	/* replay of a log cut short: where it stopped */
	char *incomplete_why;
	/* --unit: the unit, its shapes' JSON (empty: not taken) and the
	 * shape policy's text (run_shape.c) */
	char *unit, *shape_policy;
	struct fp_bytes shape[2];
	/* processes outside the run holding changed files open for writing
	 * at the after snapshot (holders_live.c; in the log) */
	struct fp_holder_table holders;
};

int fp_run_init(struct fp_run *run);
void fp_run_free(struct fp_run *run);
int fp_run_add_str(char ***v, size_t *n, const char *s);
/* The policy from the run's own rule lines. */
int fp_run_policy(const struct fp_run *run, struct fp_policy *pol, char *err,
		  size_t errlen);
/* Record the rule lines of pol (for the log and for replay). */
int fp_run_set_policy(struct fp_run *run, const struct fp_policy *pol);

int fp_run_judge(const struct fp_run *run, const struct fp_policy *pol,
		 struct fp_findings *f, struct fp_verdict *v,
		 struct fp_outcome *o);
void fp_run_receipt(FILE *out, const struct fp_run *run,
		    const struct fp_findings *f, const struct fp_verdict *v,
		    const struct fp_outcome *o);
/* --unit: the shape diff and its policy from the run's two shapes; 0 and
 * nothing to do without a unit, -ENOMEM, or 0 with *why set when the
 * shapes cannot be compared (the verdict then fails) */
int fp_run_shape_diff(const struct fp_run *run, struct fp_shape_policy *pol,
		      struct fp_shape_diff *d, const char **why);
/* fail v on the unit's drift the shape policy does not allow */
int fp_run_shape_verdict(const struct fp_run *run, struct fp_verdict *v);
/* "run" or "sidecar" */
const char *fp_run_mode_name(enum fp_run_mode mode);
/* A sidecar run: its mode, step parent and state directory, for the header
 * and the recon (before any event). 0 or -ENOMEM. */
int fp_run_set_sidecar(struct fp_run *run, pid_t step_parent,
		       const char *state_dir);
/* reads_setup.c. Live: the home directories of the passwd database and
 * $HOME, deduplicated and bounded. 0 or -ENOMEM. */
int fp_run_collect_homes(struct fp_run *run);
/* What the recon keeps of reads, from the run's header (before any
 * event). 0, -ENOMEM, or -EINVAL for a recorded rule that does not
 * parse. */
int fp_run_reads_ready(struct fp_run *run);
/* Set the budget of the recon (before any event). */
void fp_run_set_budget(struct fp_run *run, uint64_t bytes);
/* "budget", "lost", "memory", "log" or "snapshot": why the trace is
 * incomplete; NULL when it is complete */
const char *fp_run_incomplete_reason(const struct fp_run *run);
/* 0 ok, 1 failed, 124 timed out, 126/127 exec failed */
int fp_run_exit_code(const struct fp_run *run, const struct fp_verdict *v);

#endif
