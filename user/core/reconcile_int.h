/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside reconciliation (reconcile.h): the state events are folded into,
 * shared by the files that fold and compare each kind of thing.
 *
 *   reconcile.c            the state's life, the feed, fp_reconcile
 *   reconcile_files.c      file events folded into path states; what a
 *                          generated script did (made executable, ran)
 *   reconcile_fs.c         the file snapshots compared, changes explained
 *   reconcile_paths.c      paths changed: cut, transient, outside, moved
 *   reconcile_procs.c      execs, forks, exits, mounts; processes compared
 *   reconcile_net.c        binds, connections, DNS; sockets compared
 *   reconcile_sensitive.c  sensitive reads and signals outside the run
 *   reconcile_tamper.c     tamper evidence
 *   reconcile_steps.c      the sidecar's steps: groups, marks, names
 */
#ifndef FP_RECONCILE_INT_H
#define FP_RECONCILE_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "findings.h"
#include "hashmap.h"
#include "privilege.h"
#include "procops.h"
#include "proctab.h"
#include "reconcile.h"
#include "sensitive.h"
#include "uring_seen.h"

struct exec_rec {
	pid_t pid, ppid;
	struct fp_cmdline *cmd; /* shared with every actor naming it */
	uint64_t ts_ns;
	struct fp_privs creds;
	/* the image before it (its own, or its parent's at fork) */
	int32_t base;
	unsigned int rose; /* FP_PRIV_* */
	bool own; /* footprint's own (own.h), as FP_EV_CONTROL said */
	int auth; /* an authentication program (authprog.h), or -1 */
};

struct proc_state {
	pid_t pid, ppid;
	long exec_idx; /* into execs, -1 if it never exec'd (nor its parent) */
	bool started; /* fork or exec seen during the run */
	bool exited;
	uint32_t group; /* 1-based into groups, 0 none (sidecar only) */
	/* it predates the trace and is footprint's own (exec_idx is -1) */
	bool own;
	/* opens left to find the script a relative exec ran, and which
	 * argument of the interpreter names it (note_ran) */
	uint16_t script_opens;
	uint8_t script_arg;
	uint32_t row; /* its row in the process table (proctab.h), 1-based */
};

/* a process as one event saw it */
struct who {
	pid_t pid;
	int32_t exec; /* into execs, or -1 */
	uint32_t group; /* 1-based into groups, or 0 */
};

struct path_state {
	unsigned int ops; /* FP_OP_* */
	bool born; /* the file now at this path was created during the run */
	int exists; /* per events: 1, 0, or -1 unknown */
	struct who last, created, removed;
	uint64_t seq; /* the event that last touched it (fp_recon.fed) */
	/* an event surely changed it: created, truncated, replaced; an open
	 * for writing alone may have written nothing */
	bool wrote;
	uint32_t moves; /* its last rename away: 1-based into fp_recon.moves */
	/*
	 * A hard link the run made here to a file outside the roots: that
	 * file's key in fp_recon.paths. A write through this name is one
	 * to that file.
	 */
	const char *link_src;
	size_t link_src_len;
	/* made executable (chmod +x, created with an x bit); run by an exec
	 * (runner: the first) */
	bool made_exec, ran;
	struct who runner;
};

/*
 * A rename away from a path. A directory's takes what is in it along, and
 * the files in it are reported where they ended: the renames of its
 * ancestors after a file's last event say where that is.
 */
struct move {
	const char *to; /* the key of the new name in fp_recon.paths */
	size_t to_len;
	uint64_t seq;
	uint32_t prev; /* the rename before it from the same path, or 0 */
};

/*
 * Processes of one step, or of what may turn out to be one. A fork by the
 * step parent starts a step; a process first seen without a known parent
 * (it predates the trace) starts a group that fp_reconcile places by the
 * process snapshots: a step's, or none (say a --cgroup container).
 */
struct group_rec {
	pid_t root; /* its first process */
	bool step; /* root is known to be a child of the step parent */
	bool forked; /* and was forked during the trace: a step of its own */
	/* the mark in effect when it was forked: 1-based, 0 none */
	uint32_t mark;
	uint64_t ts_ns; /* its first event */
	struct fp_bytes name; /* exec.step_name of root, else empty */
	bool own; /* root is footprint's own: a sidecar client, not a step */
};

/* the process looked up last: most events follow one of the same */
struct proc_memo {
	pid_t pid;
	struct proc_state *p;
};

struct fp_recon {
	struct fp_hashmap paths;
	struct fp_hashmap procs;
	/* a pointer, so that lookups through a const fp_recon keep it */
	struct proc_memo *memo;
	struct fp_vec execs; /* struct exec_rec */
	struct fp_vec short_lived; /* struct fp_proc_finding, actor by index */
	struct fp_vec binds; /* struct fp_net_finding */
	struct fp_vec moves; /* struct move */
	/* sidecar: steps, marks and tamper evidence */
	pid_t step_parent; /* 0: no steps */
	struct fp_vec groups; /* struct group_rec */
	struct fp_vec exec_groups; /* uint32_t, one per exec (steps only) */
	struct fp_vec marks; /* struct fp_bytes */
	struct fp_vec tampers; /* struct fp_tamper_finding */
	struct fp_netrec *net; /* connections and DNS (netflow.c) */
	/* sensitive.h: reads kept (path -> struct fp_read_state) and
	 * signals outside the run (struct fp_signal_key -> state) */
	struct fp_reads_conf rconf;
	struct fp_hashmap reads, signals;
	uint64_t reads_listed, reads_omitted;
	/* the budget: bytes charged for the state, and events left out */
	uint64_t budget, used, fed, unfolded;
	char why[200];
	/* procops.h: mounts, namespaces, fileless execs, set-ID files */
	struct fp_vec procops[FP_PO_NKINDS];
	uint64_t procops_omitted[FP_PO_NKINDS];
	/* what io_uring left unseen (uring_seen.h) */
	struct fp_uring_seen uring;
	struct fp_proctab ptab; /* the process table (proctab.h) */
};

/*
 * What one piece of state costs, counted the same way live and in replay
 * (never by asking malloc), so that a replayed run reaches the budget at
 * the same event. The findings each piece becomes are charged up front.
 */
#define MALLOC_OVERHEAD 16
#define ALLOC(n) ((n) + MALLOC_OVERHEAD)
/* a map holds at most half its slots, and doubles */
#define SLOT_COST (4 * sizeof(struct fp_hslot))
/* a vector doubles */
#define VEC_COST(elem) (2 * (elem))

/* 0, or -EDQUOT once the budget is spent: then nothing new is kept */
static inline int charge(struct fp_recon *r, uint64_t cost)
{
	if (r->unfolded || (r->budget && r->used + cost > r->budget))
		return -EDQUOT;
	r->used += cost;
	return 0;
}

/*
 * The state of pid, NULL if none. States are never removed nor moved (the
 * table holds pointers), so the last one found stays right for its pid.
 */
static inline struct proc_state *proc_of(const struct fp_recon *r, pid_t pid)
{
	struct proc_memo *m = r->memo;
	struct proc_state *p;

	if (m->p && m->pid == pid)
		return m->p;
	p = fp_hashmap_get(&r->procs, &pid, sizeof(pid));
	if (p) {
		m->pid = pid;
		m->p = p;
	}
	return p;
}

static inline long exec_of(const struct fp_recon *r, pid_t pid)
{
	struct proc_state *p = proc_of(r, pid);

	return p ? p->exec_idx : -1;
}

/* pid as its state stands now */
static inline struct who who_now(const struct fp_recon *r, pid_t pid)
{
	struct proc_state *p = proc_of(r, pid);
	struct who w = { pid, -1, 0 };

	if (p) {
		w.exec = p->exec_idx;
		w.group = p->group;
	}
	return w;
}

static inline struct exec_rec *exec_at(const struct fp_recon *r, long i)
{
	return fp_vec_at(&r->execs, struct exec_rec, i);
}

#define GROUPS(r) fp_vec_arr(&(r)->groups, struct group_rec)

/* reconcile.c: process states and the actors findings name */
/* the state of pid, made if new: 0, -ENOMEM or -EDQUOT */
int fp_rc_proc_new(struct fp_recon *r, pid_t pid, struct proc_state **out);
/* a->step holds the group until fp_reconcile names the steps */
int fp_rc_actor_fill(const struct fp_recon *r, struct fp_actor *a,
		     const struct who *w);

/* reconcile_files.c */
/* the state of path p, made if new: 0, -ENOMEM or -EDQUOT */
int fp_rc_path_get(struct fp_recon *r, const struct fp_bytes *p,
		   struct path_state **out);
/* a file is created at ps by w */
void fp_rc_born(struct path_state *ps, const struct who *w);
int fp_rc_feed_file(struct fp_recon *r, const struct fp_event *ev);

/* an exec that runs a file the run wrote */
void fp_rc_note_ran(struct fp_recon *r, const struct fp_event *ev);
/* what the finding of ps says of it: made executable, run, and (creator)
 * who created it when another process touched it last */
int fp_rc_ran_fill(const struct fp_recon *r, struct fp_file_finding *f,
		   const struct path_state *ps, bool creator);

/* reconcile_fs.c */
bool fp_rc_under_roots(const struct fp_recon_input *in, const char *p,
		       size_t len);
struct fp_file_finding *fp_rc_add_file(struct fp_findings *out,
				       enum fp_file_list l, const char *p,
				       size_t len);
int fp_rc_compare_fs(const struct fp_recon *r, const struct fp_recon_input *in,
		     struct fp_findings *out);

/* reconcile_paths.c */
int fp_rc_path_findings(const struct fp_recon *r,
			const struct fp_recon_input *in,
			struct fp_findings *out);

/* reconcile_procs.c */
int fp_rc_feed_exec(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_feed_fork(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_feed_exit(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_feed_procop(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_feed_exec_fileless(struct fp_recon *r, const struct fp_event *ev);
bool fp_rc_is_leftover(const struct fp_recon_input *in, pid_t pid);
bool fp_rc_in_run_cgroup(const struct fp_recon_input *in,
			 const struct fp_proc *p);
int fp_rc_compare_procs(const struct fp_recon *r,
			const struct fp_recon_input *in,
			struct fp_findings *out);
int fp_rc_procop_findings(const struct fp_recon *r,
			  const struct fp_recon_input *in,
			  struct fp_findings *out);

/* reconcile_net.c */
int fp_rc_feed_bind(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_feed_net(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_feed_net_bind(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_compare_net(const struct fp_recon *r, const struct fp_recon_input *in,
		      struct fp_findings *out);

/* reconcile_sensitive.c */
int fp_rc_feed_read(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_feed_signal(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_read_findings(const struct fp_recon *r,
			const struct fp_recon_input *in,
			struct fp_findings *out);
int fp_rc_signal_findings(const struct fp_recon *r,
			  const struct fp_recon_input *in,
			  struct fp_findings *out);

/* reconcile_tamper.c */
int fp_rc_feed_tamper(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_tamper_findings(const struct fp_recon *r,
			  const struct fp_recon_input *in,
			  struct fp_findings *out);

/* reconcile_steps.c */
int fp_rc_fork_group(struct fp_recon *r, const struct fp_event *ev,
		     struct proc_state *p);
/* the group of the process any other event comes from, made if new */
int fp_rc_event_group(struct fp_recon *r, const struct fp_event *ev,
		      uint32_t *g);
/* GITHUB_ACTION of a step's first process names the step */
int fp_rc_name_group(struct fp_recon *r, const struct fp_event *ev, uint32_t g);
int fp_rc_feed_mark(struct fp_recon *r, const struct fp_event *ev);
int fp_rc_feed_control(struct fp_recon *r, const struct fp_event *ev);
/* findings held groups so far: now they name steps */
int fp_rc_steps(const struct fp_recon *r, const struct fp_recon_input *in,
		struct fp_findings *out);

#endif
