/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run did to the system rather than to files under its roots:
 * mounts, namespaces made or joined, fileless execs and set-user-ID or
 * set-group-ID files (docs/policy.md, "Mounts, namespaces, fileless
 * execs and set-ID files"). Reconciliation notes them as events stream
 * in, bounded; the judge decides which fail. Pure, like the rest of core.
 */
#ifndef FP_PROCOPS_H
#define FP_PROCOPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"
#include "findings.h"
#include "policy.h"

enum fp_procop_kind {
	FP_PO_MOUNT, /* processes.mounts: fails unless allowed */
	FP_PO_NAMESPACE, /* processes.namespaces: informational */
	FP_PO_FILELESS, /* processes.fileless_exec: fails unless allowed */
	FP_PO_SETID, /* files.setuid: fails unless allowed */
	FP_PO_NKINDS,
};

/* entries kept per kind; past that they are counted */
#define FP_PROCOPS_MAX 256

struct fp_procop_finding {
	enum fp_procop_kind kind;
	uint32_t sys; /* the call; an exec for fileless */
	int err; /* 0 if one succeeded; else the errno of the first */
	uint64_t flags; /* mount: MS_*; namespace: CLONE_* or nstype */
	uint32_t mode; /* setid: the mode set, 07777 bits */
	struct fp_bytes path; /* target, file, or "memfd:NAME" */
	struct fp_bytes source; /* mount: its source, as given */
	uint64_t count; /* calls folded into this finding */
	uint64_t ts_ns; /* the first */
	/* while reconciling: who did it; then by */
	pid_t pid;
	int32_t exec;
	uint32_t group;
	struct fp_actor by;
	bool allowed;
	bool forbidden;
	bool failing; /* judged */
	const char *rule;
};

#define FP_PROCOPS(f, k) fp_vec_arr(&(f)->procops[k], struct fp_procop_finding)

/*
 * Fold one into the list of its kind: the same call by the same process
 * on the same path counts. 1 if it is new, 0 if folded or counted past
 * the bound, -ENOMEM.
 */
int fp_procop_note(struct fp_vec *lists, uint64_t *omitted,
		   const struct fp_procop_finding *x);
/* the kind a mount or namespace event is, or -1 for none */
int fp_procop_event_kind(const struct fp_event *ev);
/* a file event that made a set-ID file: its mode, else 0 */
uint32_t fp_procop_setid_mode(const struct fp_event *ev);
/* the lists (fp_findings.procops, or reconciliation's own) */
void fp_procops_free(struct fp_vec *lists);

/* the judge's part (judge_procops.c); 0 or -ENOMEM */
struct fp_verdict;
int fp_judge_procops(const struct fp_policy *p, struct fp_findings *f,
		     struct fp_verdict *v);
/* the rules a learned policy needs for the failing ones (allow setuid,
 * mount, fileless; a namespace fails only when forbidden); 0 or -ENOMEM */
struct fp_suggester;
int fp_procop_needs(struct fp_suggester *s, const struct fp_findings *f);
/* the receipt's names of the lists */
extern const char *const fp_procop_list_names[FP_PO_NKINDS];

#endif
