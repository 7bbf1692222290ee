/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Judging: a pure function of (findings, policy, how the command ended).
 * Marks each finding allowed or forbidden, drops ignored ones, and decides.
 */
#ifndef FP_JUDGE_H
#define FP_JUDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "findings.h"
#include "policy.h"

struct fp_outcome {
	int exit_code; /* -1 when killed by a signal or never run */
	int signal;
	bool timed_out;
	bool interrupted;
	bool complete; /* trace complete: nothing lost, log not cut */
	uint64_t lost;
	const char *incomplete_why; /* replay: where the log stopped */
	/* the watched trees: no suggested rule covers one or a parent */
	char *const *roots;
	size_t nroots;
	/* run --scratch --no-network: a reached host unix socket fails */
	bool no_network;
	/* home directories (the log's header): suggestions never collapse
	 * churn into a rule for one */
	char *const *homes;
	size_t nhomes;
};

struct fp_expect {
	const struct fp_rule *rule;
	bool met;
};

struct fp_verdict {
	bool ok;
	struct fp_vec reasons; /* char * */
	struct fp_vec suggestions; /* char *, policy lines, most used first */
	struct fp_vec suggestion_counts; /* size_t: findings each covers */
	struct fp_vec expects; /* struct fp_expect */
	size_t failing; /* findings that fail */
	/* once reasons is full: 1 + the least severe rank in it
	 * (severity.h), 0 before */
	int reasons_floor;
	/* the policy's severity of each kind (its "severity" lines) */
	struct fp_sevmap sev;
};

int fp_judge(const struct fp_policy *p, struct fp_findings *f,
	     const struct fp_outcome *o, struct fp_verdict *v);
void fp_verdict_free(struct fp_verdict *v);
/* Count a failing finding and keep its reason (taken; NULL: no memory),
 * naming the step it happened in. 0 or -ENOMEM. */
int fp_verdict_fail(struct fp_verdict *v, const struct fp_findings *f,
		    unsigned int step, char *reason);
/* Sensitive reads and signals outside the run (judge_sensitive.c). */
int fp_judge_sensitive(const struct fp_policy *p, struct fp_findings *f,
		       struct fp_verdict *v);
/* fail v for a reason judged elsewhere (run --unit's shape drift); takes
 * reason. 0 or -ENOMEM */
int fp_verdict_fail_external(struct fp_verdict *v, char *reason);

extern const char *const fp_file_list_names[FP_F_NLISTS];
extern const char *const fp_proc_list_names[FP_P_NLISTS];
extern const char *const fp_net_list_names[FP_N_NLISTS];

/* "tcp/127.0.0.1:8080", "udp/[::1]:53", "unix/path": what bind rules match */
void fp_net_subject(const struct fp_net_finding *n, char *buf, size_t len);
/* The same with port 0 for a bind that asked for it: what a suggested
 * rule names. */
void fp_net_suggest_subject(const struct fp_net_finding *n, char *buf,
			    size_t len);

struct fp_suggester;
/*
 * Feed the judged findings of one run to s: the failing, not forbidden
 * ones are needs; added, transient and created outside paths are what
 * the run made. Ends the run in s.
 */
int fp_judge_needs(struct fp_suggester *s, const struct fp_findings *f);

#endif
