/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Judging connections, accepts and DNS lookups (netflow.h): by default a
 * connection to loopback or a unix socket is reported and does not fail,
 * any other destination fails unless a connect rule allows it by address
 * or by a DNS name of the run that gave the address. Lookups fail only
 * when forbidden, or when the policy has dns allow rules and none covers
 * the name. Accepts are reported; a forbid connect rule fails them.
 */
#ifndef FP_JUDGE_NET_H
#define FP_JUDGE_NET_H

#include "judge.h"

struct fp_suggester;

/*
 * With o->no_network (a scratch box with its own network namespace), a
 * connect or send that reached a pathname unix socket (a host daemon's:
 * an ssh-agent, docker.sock) fails too, unless a connect rule allows it.
 */
int fp_judge_netflow(const struct fp_policy *p, struct fp_findings *f,
		     const struct fp_outcome *o, struct fp_verdict *v);
/* the failing, not forbidden, connections and lookups as rules to suggest */
int fp_netflow_needs(struct fp_suggester *s, const struct fp_findings *f);

#endif
