/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A traced session: outputs, tracer and collector, log sink, snapshots,
 * judge and receipt. It is driven either by a launched command (`run`) or
 * by targets that already exist (`sidecar`); the driver decides what is
 * traced and when it ends, the session does the rest in this order:
 *
 *   fp_session_init, fp_session_prepare, fp_session_outputs,
 *   fp_session_open_tracer,
 *   fp_session_header, fp_session_before, fp_session_attach,
 *   ... the driver's loop ..., fp_session_after_procs, fp_session_drain,
 *   fp_session_after_files, fp_session_verdict, fp_session_finish.
 *
 * The pure core (reconcile, judge) sees only what the session recorded,
 * so the replay of a session's log gives its receipt byte for byte.
 */
#ifndef FP_SESSION_H
#define FP_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collector.h"
#include "creds.h"
#include "judge.h"
#include "logcodec.h"
#include "logrun.h"
#include "outputs.h"
#include "policy.h"
#include "receipt.h"
#include "report_path.h"
#include "run.h"
#include "snapshot_fs.h"
#include "tracer.h"
#include "watchdog.h"

struct fp_session_opts {
	char *const *roots; /* absolute, canonical */
	size_t nroots;
	const struct fp_policy *pol; /* the caller's */
	const struct fp_creds *invoker;
	const char *receipt_path, *events_path, *record_path;
	/* the HTML report: created here with the other outputs, before
	 * anything runs; the commands' hook writes it (report_hooks.h) */
	const char *html_path;
	/* the log already made by the caller (record_path names it in
	 * messages), or -1: record_path is created as an output */
	int log_fd;
	int log_dirfd; /* log_fd's directory, where its segments go */
	uint64_t record_max; /* segments of at most this size; 0: one file */
	bool force; /* replace an existing log */
	bool quiet, cross_mounts, rehash_all;
	bool report_reads; /* list every file read, not only secrets */
	size_t summary_max; /* examples per category; 0: the default */
	uint64_t mem_budget;
	/* the ring, collapsed opens, warm (warm.h), argv bytes, DNS ports;
	 * what it traces is the driver's to add once it is open */
	struct fp_tracer_opts tracer;
	int64_t deadline_ms; /* CLOCK_MONOTONIC; 0: none */
	int64_t timeout_ms; /* what deadline_ms came from, for the grace */
	/* run --scratch: the roots are read through these overlays */
	const int *root_fds;
	const char *unit; /* --unit: its shape before and after */
	const char *shape_policy; /* the text of --shape-policy, or NULL */
};

enum { FP_OUT_LOG, FP_OUT_EVENTS, FP_OUT_RECEIPT, FP_OUT_HTML, FP_OUT_N };

struct fp_loader;
struct fp_closer;

struct fp_session {
	struct fp_session_opts o;
	struct fp_run run;
	struct fp_output outs[FP_OUT_N];
	FILE *events, *receipt;
	bool receipt_written;
	struct fp_collector *col;
	struct fp_tracer *tracer;
	struct fp_loader *loader; /* the tracer's load, in flight */
	/* run: the drain stops the tracer and its close (the links' detach)
	 * goes on a thread while the verdict is written (tracer_async.c) */
	bool close_async;
	struct fp_closer *closer; /* the tracer's close, in flight */
	void *secret_ids; /* read, not yet handed over (secret_ids.c) */
	struct fp_enc enc;
	struct fp_log_sink log;
	bool logging;
	int recon_err, log_err;
	struct fp_fs_opts fo;
	struct fp_trace_stats st;
	struct fp_findings findings;
	struct fp_verdict verdict;
	struct fp_outcome out;
	int snap_ret; /* of the last snapshot: 0, -ETIMEDOUT, -E2BIG, ... */
	int trace_err; /* the driver's loop failed: the trace is incomplete */
	/* the verdict's outputs beyond the receipt: the driver's hooks
	 * (attest, push, ...), the daemon's markdown and annotations */
	struct fp_report_outputs report;
};

/* 0 or -ENOMEM */
int fp_session_init(struct fp_session *s, const struct fp_session_opts *o);
/* Open the outputs' directories, as the user; refuse one in a root. 0,
 * or an exit code after one line. Before anything else is done. */
int fp_session_prepare(struct fp_session *s);
/* Create the outputs (the log first: it refuses to overwrite). 0, or an
 * exit code after one line. */
int fp_session_outputs(struct fp_session *s);
int fp_session_open_tracer(struct fp_session *s, char *err, size_t errlen);
/*
 * The same on a thread (tracer_async.c): the tracer is there once
 * fp_session_join_tracer returns 0; before that, only the snapshot runs.
 * The join prints the load's error unless quiet, and returns it.
 */
int fp_session_start_tracer(struct fp_session *s, char *err, size_t errlen);
int fp_session_join_tracer(struct fp_session *s, bool quiet);
/*
 * The join, if the load ends within ms: 0 (the tracer is there, or none
 * was loading), 1 if it still loads (join it later), or the load's error,
 * said. A kept set loads in a few ms; a load from scratch in ~200.
 */
int fp_session_join_tracer_within(struct fp_session *s, unsigned int ms);
/* Close the drained tracer on a thread (or here, if none can be had);
 * the join waits for it. */
void fp_session_close_tracer(struct fp_session *s);
void fp_session_join_closer(struct fp_session *s);

/* where the tracer's events go */
int fp_session_sink(void *ctx, const struct fp_event *ev);
/* Who traced what, where: argv (NULL-terminated) names the target. */
int fp_session_header(struct fp_session *s, char *const *argv,
		      const char *run_cgroup);
/* What the ring holds, to the collector; a failure is said once and
 * leaves the trace incomplete (trace_err) */
void fp_session_consume(struct fp_session *s);
/* The leftovers (pids, n) forked and not yet exec'd given a moment to
 * exec, the ring consumed meanwhile (settle.c) */
void fp_session_settle_leftovers(struct fp_session *s, const pid_t *pids,
				 size_t n);
/* The before snapshot, and the log's header and first snapshot. 0, or an
 * exit code after one line (a receipt is still written on a timeout). */
int fp_session_before(struct fp_session *s);
/* --unit: the unit's shape for phase into the run (session_shape.c). 0,
 * or an exit code after one line */
int fp_session_shape(struct fp_session *s, unsigned int phase);
/* --unit: seed 002's triage table of the unit's drift, on stderr */
void fp_session_shape_summary(struct fp_session *s);
int fp_session_attach(struct fp_session *s, char *err, size_t errlen);
/* the secrets' devices and inodes to the tracer (secret_ids.c); read
 * first, if fp_session_secret_ids_read did not (it may fail silently:
 * this one then says so) */
int fp_session_secret_ids(struct fp_session *s, char *err, size_t errlen);
void fp_session_secret_ids_read(struct fp_session *s);
/* Processes and sockets, while what is left of the target still runs. */
int fp_session_after_procs(struct fp_session *s);
/*
 * Once the target is gone: read the rest of the ring and detach. wd: the
 * run's watchdog, told to go, and handed the links to close after
 * footprint's copies (their detach, ~4 ms, is then not on its way out);
 * NULL: it stays.
 */
void fp_session_drain(struct fp_session *s, struct fp_watchdog *wd);

/* The files, and the log's trailer. 0 or an exit code. */
int fp_session_after_files(struct fp_session *s);
/* holders_live.c: the writers outside the run of what only an open of
 * the run explains, into run->holders (run mode); 0 or -errno */
int fp_session_holders(struct fp_session *s);
/* Judge, and every output of the report path (report_path.h): the
 * receipt, s->report's, stderr. The exit code. */
int fp_session_verdict(struct fp_session *s);
/*
 * Hand the outputs to uid:gid (when hand is set), drop the empty ones,
 * close everything. *rc becomes FP_EXIT_NOTRACE if an output failed where
 * the verdict said ok.
 */
void fp_session_finish(struct fp_session *s, int *rc, bool hand, uid_t uid,
		       gid_t gid, const char *name);
void fp_session_free(struct fp_session *s);
/* An event the driver saw itself (a step mark, a missing heartbeat): it
 * goes where the kernel's events go, the log included. */
void fp_session_inject(struct fp_session *s, const struct fp_event *ev);

int64_t fp_now_ms(void);
/* The roots are the user's to name: resolved with the user's rights.
 * 0, or FP_EXIT_USAGE after one line. */
int fp_resolve_roots(const char *const *args, size_t n,
		     const struct fp_creds *c, char **roots);

#endif
