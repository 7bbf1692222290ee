/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run did, as reconciliation finds it and judging marks it. Every
 * list is sorted, so the same inputs always give the same receipt.
 */
#ifndef FP_FINDINGS_H
#define FP_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"
#include "snapshot_fs.h"

/*
 * A process's exe and (capped) argv, kept once per exec and shared by
 * every finding that names the process, instead of a copy per finding.
 */
struct fp_cmdline {
	unsigned int refs;
	bool argv_cut;
	struct fp_bytes exe;
	struct fp_bytes argv; /* NUL-separated, at most FP_ARGV_KEEP bytes */
};

/* who did it: a process as its exec showed it */
struct fp_actor {
	pid_t pid; /* 0: nobody known */
	pid_t ppid;
	struct fp_bytes exe;
	struct fp_bytes argv; /* NUL-separated */
	bool argv_cut; /* argv is only the start of the command line */
	/* footprint's own (a sidecar client, or the sudo that ran it): it
	 * is never a finding (reconcile drops it); fits in padding */
	bool own;

	/* the step it ran in (1-based index into fp_findings.steps), 0 for
	 * none; fits in padding, so findings cost what they did */
	unsigned int step;
	struct fp_cmdline *cmd; /* owns exe and argv when set; else they are
				   the actor's own */
};

/* file change bits */
#define FP_CH_CONTENT (1U << 0)
#define FP_CH_MODE (1U << 1)
#define FP_CH_OWNER (1U << 2)
#define FP_CH_TYPE (1U << 3)
#define FP_CH_TARGET (1U << 4)

/* outside_roots, cut and magic_link operations */
#define FP_OP_CREATED (1U << 0)
#define FP_OP_WRITTEN (1U << 1)
#define FP_OP_REMOVED (1U << 2)
#define FP_OP_RENAMED_FROM (1U << 3)
#define FP_OP_RENAMED_TO (1U << 4)
#define FP_OP_ATTRS (1U << 5) /* chmod, chown */
/* a hard link made to it: a write through the link writes it */
#define FP_OP_LINKED (1U << 6)

enum fp_file_list {
	FP_F_ADDED,
	FP_F_REMOVED,
	FP_F_CHANGED,
	FP_F_TRANSIENT,
	FP_F_OUTSIDE,
	FP_F_UNEXPLAINED,
	FP_F_UNREADABLE,
	FP_F_CUT, /* a path cut at PATH_MAX: only its end is known */
	FP_F_MAGIC, /* a change through a /proc magic link */
	FP_F_NLISTS,
};

/*
 * The actors only some file findings have, kept apart: a run that writes
 * outside its roots makes a finding per file, 128 bytes each without
 * them, 360 with (and a fresh page costs ~10 us on the VMs measured,
 * docs/BENCHMARKS.md).
 */
struct fp_file_actors {
	struct fp_actor created_by, removed_by; /* transient */
	/* ran_by: the first process that ran it (exec'd, or a script its
	 * interpreter read as exec'd). created_by is also set on added and
	 * outside_roots files the run created when another process touched
	 * them last (reconcile_files.c). */
	struct fp_actor ran_by;
	/* a change only an open for writing explained, while a process
	 * outside the run held the file open for writing: that process (the
	 * change is unexplained) */
	struct fp_actor outside_writer;
};

struct fp_file_finding {
	struct fp_bytes path;
	unsigned int changes; /* FP_CH_* (changed), or FP_OP_* (outside) */
	enum fp_file_list what; /* for unexplained: which list it came from */
	const struct fp_fentry *before, *after; /* snapshot entries, or NULL */
	struct fp_actor by; /* last process that touched it */
	/* NULL while none is known: read through fp_ff_actor(), made by
	 * fp_ff_more() */
	struct fp_file_actors *more;
	const char *rule; /* judging: the deciding rule's text, or NULL */
	int err; /* unreadable */
	/* by only opened it for writing: it may not have written it */
	bool by_open;
	bool explained;
	/* judging */
	bool allowed;
	bool forbidden;
	bool failing; /* judged: this finding fails the verdict */
	/* a file the run made executable (chmod +x, or created with an x
	 * bit), and one it ran (ran_by in more) */
	bool made_exec;
	bool ran;
};

/* a finding's created_by, removed_by, ran_by or outside_writer, read:
 * fp_actor_nobody (pid 0) when it has none */
extern const struct fp_actor fp_actor_nobody;
#define fp_ff_actor(x, name)                                     \
	((x)->more ? (const struct fp_actor *)&(x)->more->name : \
		     &fp_actor_nobody)
/* x's actors apart, made zeroed on first use; NULL when out of memory */
struct fp_file_actors *fp_ff_more(struct fp_file_finding *x);

enum fp_proc_list {
	FP_P_EXECUTED,
	FP_P_SHORT_LIVED,
	FP_P_LEFTOVER,
	FP_P_NEW_OUTSIDE,
	FP_P_DISAPPEARED,
	FP_P_NLISTS,
};

struct fp_proc_finding {
	struct fp_actor p;
	uint64_t ts_ns; /* exec time, for executed */
	int exit_code; /* short_lived: -1 if killed */
	int signal;
	bool allowed;
	bool forbidden;
	bool failing; /* judged: this finding fails the verdict */
	const char *rule;
	/* executed and privileged: the image's credentials; privileged: the
	 * ones it rose above (unknown for the first of its tree), and what
	 * rose (FP_PRIV_* of privilege.h) */
	struct fp_privs creds, base;
	unsigned int rose;
};

enum fp_net_list { FP_N_BOUND, FP_N_LISTENING, FP_N_NLISTS };

struct fp_net_finding {
	pid_t pid;
	int family; /* AF_INET, AF_INET6, AF_UNIX */
	char address[112];
	struct fp_bytes unix_path;
	uint16_t port;
	int protocol; /* IPPROTO_* or 0 */
	/* the bind asked for port 0 and the kernel chose port (listening:
	 * a socket bound so) */
	bool any_port;
	/* listening: owned by a process that predates the run and is not
	 * part of it, so the run did not open it */
	bool outside_run;
	/* listening: owned by a process outside the run's cgroup that began
	 * during it (another run's, a service's): reported with its owner,
	 * not held against the run, as outside_run */
	bool new_outside;
	bool allowed;
	bool forbidden;
	bool failing; /* judged: this finding fails the verdict */
	unsigned int step; /* as fp_actor's */
	const char *rule;
	/* bound: the process that bound it; listening: the socket's owner
	 * (pid 0: not known), for the command line the summary shows */
	struct fp_actor by;
};

/*
 * Evidence that a traced process reached for the tracer itself: a signal,
 * bpf() or ptrace aimed at it (FP_EV_TAMPER), or a change under the
 * sidecar's state directory. No rule can allow or ignore one.
 */
enum fp_tamper_what {
	FP_TAMPER_EVENT, /* an FP_EV_TAMPER record: kind says which */
	FP_TAMPER_STATE_DIR, /* a change under the state directory: path */
};

struct fp_tamper_finding {
	enum fp_tamper_what what;
	uint32_t kind; /* enum fp_tamper_kind */
	int32_t sig;
	uint32_t target_pid;
	int64_t arg;
	uint64_t ts_ns;
	struct fp_bytes path; /* state_dir: the path changed */
	unsigned int ops; /* state_dir: FP_OP_* */
	struct fp_actor by; /* pid 0 for the tracer's own heartbeat */
	bool failing; /* always, once judged */
};

/*
 * A step of a CI job (sidecar): a direct child of the step parent and all
 * its descendants.
 */
enum fp_step_named {
	FP_STEP_NAMED_ACTION, /* GITHUB_ACTION of its first process */
	FP_STEP_NAMED_MARK, /* the mark in effect when it started */
	FP_STEP_NAMED_ORDER, /* "step N" */
};

struct fp_step {
	unsigned int index; /* 1-based, in order of appearance */
	pid_t first_pid;
	uint64_t started_ns; /* its first event */
	struct fp_bytes name;
	enum fp_step_named named;
};

/*
 * A growable array. Its element size is fixed by the first push and
 * checked by every typed access (fp_vec_at, fp_vec_arr): reading a vec of
 * one struct as another is a bug that aborts instead of reading garbage.
 */
struct fp_vec {
	void *v;
	size_t n, cap;
	size_t elem; /* bytes per element; 0 until the first push */
};

struct fp_findings {
	struct fp_vec files[FP_F_NLISTS]; /* struct fp_file_finding */
	struct fp_vec procs[FP_P_NLISTS]; /* struct fp_proc_finding */
	struct fp_vec net[FP_N_NLISTS]; /* struct fp_net_finding */
	struct fp_vec tamper; /* struct fp_tamper_finding */
	/* netflow.h: struct fp_conn_finding, and struct fp_dns_finding */
	struct fp_vec connected, accepted, dns;
	/* struct fp_proc_finding: execs that raised privileges, judged by
	 * their own rules (allow privileged), never by the process ones */
	struct fp_vec privileged;
	struct fp_vec steps; /* struct fp_step, in order; empty in `run` */
	/* sensitive.h: files read, signals and ptrace outside the run */
	struct fp_vec reads; /* struct fp_read_finding, by path */
	uint64_t reads_omitted; /* past FP_READS_MAX: counted, not listed */
	struct fp_vec signalled, ptraced; /* struct fp_signal_finding */
	/* procops.h: mounts, namespaces, fileless execs, set-ID files, by
	 * enum fp_procop_kind (struct fp_procop_finding) */
	struct fp_vec procops[4];
	uint64_t procops_omitted[4];
	/* proctab.h: the run's processes, which findings' actors name; NULL
	 * when the findings come from elsewhere than fp_reconcile */
	struct fp_proctab *proctab;
};

/* a zeroed new element at the end, or NULL */
void *fp_vec_push(struct fp_vec *v, size_t elem);
void fp_vec_remove(struct fp_vec *v, size_t i, size_t elem);
/* a typed access of the wrong size or out of range: print and abort */
_Noreturn void fp_vec_fault(const struct fp_vec *v, size_t elem, size_t i);

static inline void *fp_vec_arr_(const struct fp_vec *v, size_t elem)
{
	if (v->n && v->elem != elem)
		fp_vec_fault(v, elem, 0);
	return v->v;
}

static inline void *fp_vec_at_(const struct fp_vec *v, size_t elem, size_t i)
{
	if (v->elem != elem || i >= v->n)
		fp_vec_fault(v, elem, i);
	return (char *)v->v + i * elem;
}

/*
 * The array of vec (a struct fp_vec *) as type *, or element i of it:
 * type is named once, at the access, and its size is checked against the
 * element size the first push recorded (and i against n), so a list can
 * no longer be read as one of another struct. A type of the same size
 * passes: the check is of sizes. type may be const-qualified.
 */
#define fp_vec_arr(vec, type) ((type *)fp_vec_arr_((vec), sizeof(type)))
#define fp_vec_at(vec, type, i) ((type *)fp_vec_at_((vec), sizeof(type), (i)))
/* The cut point of an argv of len bytes: at most FP_ARGV_KEEP, and not
 * inside a UTF-8 sequence. */
size_t fp_argv_keep_len(const char *argv, size_t len);
/* A cmdline with one reference; argv is cut to fp_argv_keep_len(). */
struct fp_cmdline *fp_cmdline_new(const char *exe, size_t exelen,
				  const char *argv, size_t argvlen, bool cut);
void fp_cmdline_put(struct fp_cmdline *c);
/* a takes a reference to c; exe and argv become views of it */
void fp_actor_share(struct fp_actor *a, struct fp_cmdline *c);
/* a gets its own copies, argv cut as a cmdline's is; 0 or -ENOMEM */
int fp_actor_own(struct fp_actor *a, const char *exe, size_t exelen,
		 const char *argv, size_t argvlen);
/* dst shares src's cmdline, or copies src's own strings */
int fp_actor_copy(struct fp_actor *dst, const struct fp_actor *src);
void fp_actor_clear(struct fp_actor *a);
void fp_file_finding_clear(struct fp_file_finding *x);
void fp_proc_finding_clear(struct fp_proc_finding *x);
void fp_net_finding_clear(struct fp_net_finding *x);
void fp_tamper_finding_clear(struct fp_tamper_finding *x);
/* "signal", "bpf", "ptrace", "heartbeat", "control", "restart",
 * "replaced", "state_dir", or "other" */
const char *fp_tamper_name(const struct fp_tamper_finding *x);
/* The step a finding belongs to (0: none): that of the process it names
 * (for a transient file, the one that created it). */
unsigned int fp_file_finding_step(const struct fp_file_finding *x);
/* NULL for step 0 or one out of range */
const struct fp_step *fp_findings_step(const struct fp_findings *f,
				       unsigned int step);
void fp_findings_free(struct fp_findings *f);

#define FP_FILES(f, l) fp_vec_arr(&(f)->files[l], struct fp_file_finding)
#define FP_PROCS(f, l) fp_vec_arr(&(f)->procs[l], struct fp_proc_finding)
#define FP_NETS(f, l) fp_vec_arr(&(f)->net[l], struct fp_net_finding)
#define FP_TAMPER(f) fp_vec_arr(&(f)->tamper, struct fp_tamper_finding)
#define FP_STEPS(f) fp_vec_arr(&(f)->steps, struct fp_step)
#define FP_PRIVILEGED(f) fp_vec_arr(&(f)->privileged, struct fp_proc_finding)

#endif
