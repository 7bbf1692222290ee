/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sensitive reads and signals outside the run: what reconciliation keeps
 * of them while events stream in, and the findings it makes of that
 * (fp_findings.reads, .signalled, .ptraced). Pure, like the rest of core.
 */
#ifndef FP_SENSITIVE_H
#define FP_SENSITIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"
#include "findings.h"
#include "policy.h"
#include "snapshot_fs.h"

/* files listed in files.read besides the secrets and the forbidden ones */
#define FP_READS_MAX 100000

struct fp_read_finding {
	struct fp_bytes path;
	const char *secret; /* its class (secrets.h), or NULL */
	int err; /* 0: it was read; else the errno of the first attempt */
	uint64_t opens; /* opens of it for reading, failed ones included */
	/* in a root: its snapshot entries, for the hash of what was read */
	const struct fp_fentry *before, *after;
	struct fp_actor by; /* the first process that read it (or tried) */
	bool allowed;
	bool forbidden;
	bool failing; /* judged */
	const char *rule;
	/* a read saw the content it had before the run: it was not read
	 * only after the run had created, truncated or replaced it */
	bool orig_read;
};

struct fp_signal_finding {
	uint32_t sys; /* FP_SYS_KILL ... FP_SYS_PTRACE */
	int32_t sig; /* ptrace: 0 */
	int64_t request; /* ptrace: the first request */
	int64_t target; /* pid, -pgid, -1 or pidfd as given */
	uint32_t target_pid; /* 0: every process (kill -1) */
	struct fp_bytes target_exe; /* from the process snapshot, or empty */
	int err; /* 0 if one succeeded; else the errno of the first */
	uint64_t count; /* calls folded into this finding */
	uint64_t ts_ns; /* the first */
	struct fp_actor by;
	bool allowed;
	bool forbidden;
	bool failing; /* judged */
	const char *rule;
};

#define FP_READS(f) fp_vec_arr(&(f)->reads, struct fp_read_finding)
#define FP_SIGNALLED(f) fp_vec_arr(&(f)->signalled, struct fp_signal_finding)
#define FP_PTRACED(f) fp_vec_arr(&(f)->ptraced, struct fp_signal_finding)

void fp_read_finding_clear(struct fp_read_finding *x);
void fp_signal_finding_clear(struct fp_signal_finding *x);
/* the reads and signal lists of f */
void fp_sensitive_free(struct fp_findings *f);

/* What reconciliation keeps of reads; set before the first event. */
struct fp_reads_conf {
	char *const *roots;
	size_t nroots;
	char *const *homes; /* the "~" of the secret class */
	size_t nhomes;
	const struct fp_policy *pol; /* its read rules name more to keep */
	bool report_all; /* --report-reads */
};

/* is pid a process of the run (for /proc/PID/environ)? */
typedef bool (*fp_in_run_fn)(const void *ctx, pid_t pid);

/*
 * Is open event ev a read to keep? *secret gets its class, or NULL. Kept:
 * every open of a secret, failed or not; a read that a read rule names;
 * with report_all, or in a root, every successful read.
 */
bool fp_read_interest(const struct fp_reads_conf *c, const struct fp_event *ev,
		      fp_in_run_fn in_run, const void *ctx,
		      const char **secret);

/*
 * Is ev, not a secret read (or one excused: an authentication program's
 * own configuration), a read to keep all the same: a read rule names it,
 * --report-reads, or a file in a root?
 */
bool fp_read_kept_plain(const struct fp_reads_conf *c,
			const struct fp_event *ev);
/*
 * Is a kept read folded per reader's executable rather than per path: a
 * secret, or a path a rule scoped "by EXE" names? Then each program that
 * read it is a finding of its own, judged by its own rules, and one
 * program allowed does not hide another.
 */
bool fp_read_per_reader(const struct fp_reads_conf *c,
			const struct fp_event *ev, const char *secret);

/* A kept path as folded so far; the reader is named by pid and exec. */
struct fp_read_state {
	const char *secret;
	int err;
	bool read; /* an open of it succeeded */
	uint64_t opens;
	pid_t pid;
	int32_t exec;
	uint32_t group;
	bool orig_read; /* as in fp_read_finding, so far */
};

/* Fold an open in: true when ev's process is the one to name (the first
 * open, or the first that succeeded). */
bool fp_read_state_note(struct fp_read_state *st, const struct fp_event *ev,
			const char *secret);

/* Signals are folded per (process, target, signal); ptrace per target. */
struct fp_signal_key {
	pid_t pid;
	uint32_t target_pid;
	uint32_t ptrace;
	int32_t sig;
};

struct fp_signal_state {
	struct fp_signal_finding f; /* by is filled at reconcile */
	int32_t exec;
	uint32_t group;
};

void fp_signal_key_of(const struct fp_event *ev, struct fp_signal_key *k);
/* Fold ev in; true when it is the first of its key. */
bool fp_signal_state_note(struct fp_signal_state *st,
			  const struct fp_event *ev);

#endif
