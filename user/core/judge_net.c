// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "judge_net.h"
#include "netflow.h"
#include "suggest.h"

#define CONNS(vec) fp_vec_arr((vec), struct fp_conn_finding)
#define LOOKUPS(vec) fp_vec_arr((vec), struct fp_dns_finding)

static int rank(enum fp_decision d)
{
	static const int r[] = { [FP_DEC_NONE] = 0,
				 [FP_DEC_ALLOW] = 1,
				 [FP_DEC_IGNORE] = 2,
				 [FP_DEC_FORBID] = 3 };
	return r[d];
}

/* The strongest decision over the address and every name of x. */
static enum fp_decision decide_conn(const struct fp_policy *p,
				    const struct fp_conn_finding *x,
				    const struct fp_rule **rule)
{
	const struct fp_rule *r;
	enum fp_decision best, d;
	char subj[512];
	size_t i = 0;

	fp_conn_subject(x, NULL, 0, subj, sizeof(subj));
	best = fp_policy_decide(p, FP_T_CONNECT, subj, strlen(subj), rule);
	while (x->names.data && i < x->names.len) {
		const char *name = x->names.data + i;

		i += strlen(name) + 1;
		fp_conn_subject(x, name, strlen(name), subj, sizeof(subj));
		d = fp_policy_decide(p, FP_T_CONNECT, subj, strlen(subj), &r);
		if (rank(d) > rank(best)) {
			best = d;
			*rule = r;
		}
	}
	return best;
}

/*
 * A datagram socket connected to port 0 can send nothing (the kernel
 * refuses it): glibc's getaddrinfo connects one to each address it sorts.
 */
static bool no_traffic(const struct fp_conn_finding *x)
{
	return x->op == FP_NET_CONNECT && x->port == 0 &&
	       (x->family == AF_INET || x->family == AF_INET6) &&
	       (x->protocol == IPPROTO_UDP || x->sock_type == SOCK_DGRAM);
}

static void drop_conn(struct fp_vec *v, size_t i)
{
	fp_conn_finding_clear(&CONNS(v)[i]);
	fp_vec_remove(v, i, sizeof(struct fp_conn_finding));
}

/*
 * A pathname unix socket the command reached out of a --no-network box:
 * the socket file is the host's (an ssh-agent, docker.sock), and the
 * daemon behind it acts on the host's network and files.
 */
static bool host_socket(const struct fp_outcome *o,
			const struct fp_conn_finding *x)
{
	return o->no_network && x->op != FP_NET_ACCEPT &&
	       x->family == AF_UNIX && x->unix_path.len &&
	       x->unix_path.data[0] != '\0' && x->ret == 0;
}

static char *conn_reason(const char *list, const struct fp_conn_finding *x,
			 const struct fp_outcome *o)
{
	char what[700], *s = NULL;
	const char *outcome;
	int64_t res;

	fp_conn_display(x, what, sizeof(what));
	outcome = fp_conn_outcome(x, &res);
	if (asprintf(&s, "network.%s: %s by pid %d%s%s%s%s", list, what,
		     (int)x->who.pid, outcome && res ? " (" : "",
		     outcome && res ? outcome : "", outcome && res ? ")" : "",
		     x->forbidden ? " (forbidden)" :
		     host_socket(o, x) ?
				    " (a host socket, out of --no-network)" :
				    "") < 0)
		return NULL;
	return s;
}

/* accepted: only a forbid fails one; nothing there is egress */
static int judge_conns(const struct fp_policy *p, struct fp_findings *f,
		       struct fp_vec *list, const char *name, bool accepted,
		       const struct fp_outcome *o, struct fp_verdict *v)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < list->n && !ret;) {
		struct fp_conn_finding *x = &CONNS(list)[i];
		const struct fp_rule *rule = NULL;
		enum fp_decision d = decide_conn(p, x, &rule);

		if (d == FP_DEC_IGNORE) {
			drop_conn(list, i);
			continue;
		}
		i++;
		x->rule = rule ? rule->text : NULL;
		x->forbidden = d == FP_DEC_FORBID;
		x->allowed = d == FP_DEC_ALLOW;
		if (x->allowed || (!x->forbidden && !host_socket(o, x) &&
				   (x->loopback || accepted || no_traffic(x))))
			continue;
		x->failing = true;
		ret = fp_verdict_fail(v, f, x->who.step,
				      conn_reason(name, x, o));
	}
	return ret;
}

static bool has_dns_allow(const struct fp_policy *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->rules[i].target == FP_T_DNS &&
		    p->rules[i].kind == FP_ALLOW)
			return true;
	return false;
}

/* names that never leave the machine */
static bool local_name(const char *n)
{
	size_t l = strlen(n);

	return !strcmp(n, "localhost") ||
	       (l > 10 && !strcmp(n + l - 10, ".localhost"));
}

static int judge_lookups(const struct fp_policy *p, struct fp_findings *f,
			 struct fp_verdict *v)
{
	bool allowlist = has_dns_allow(p);
	size_t i;
	int ret = 0;

	for (i = 0; i < f->dns.n && !ret;) {
		struct fp_dns_finding *x = &LOOKUPS(&f->dns)[i];
		const struct fp_rule *rule = NULL;
		enum fp_decision d = fp_policy_decide(p, FP_T_DNS, x->name,
						      strlen(x->name), &rule);
		char *s = NULL;

		if (d == FP_DEC_IGNORE) {
			fp_dns_finding_clear(x);
			fp_vec_remove(&f->dns, i, sizeof(*x));
			continue;
		}
		i++;
		x->rule = rule ? rule->text : NULL;
		x->forbidden = d == FP_DEC_FORBID;
		x->allowed = d == FP_DEC_ALLOW;
		if (x->allowed || local_name(x->name) ||
		    (!x->forbidden && !allowlist))
			continue;
		x->failing = true;
		if (asprintf(&s, "network.dns: %s looked up by pid %d%s",
			     x->name, (int)x->who.pid,
			     x->forbidden ? " (forbidden)" : "") < 0)
			s = NULL;
		ret = fp_verdict_fail(v, f, x->who.step, s);
	}
	return ret;
}

int fp_judge_netflow(const struct fp_policy *p, struct fp_findings *f,
		     const struct fp_outcome *o, struct fp_verdict *v)
{
	int ret = judge_conns(p, f, &f->connected, "connected", false, o, v);

	if (!ret)
		ret = judge_conns(p, f, &f->accepted, "accepted", true, o, v);
	return ret ? ret : judge_lookups(p, f, v);
}

/*
 * A connection is suggested by its first name when one is known, else by
 * its address; an accept by the listener's port, never the client's.
 */
int fp_netflow_needs(struct fp_suggester *s, const struct fp_findings *f)
{
	char subj[512];
	size_t i;
	int ret = 0;

	for (i = 0; i < f->connected.n && !ret; i++) {
		const struct fp_conn_finding *x = &CONNS(&f->connected)[i];

		if (!x->failing || x->forbidden)
			continue;
		fp_conn_subject(x, x->names.data,
				x->names.data ? strlen(x->names.data) : 0, subj,
				sizeof(subj));
		ret = fp_suggester_need(s, FP_T_CONNECT, subj, strlen(subj),
					false);
	}
	for (i = 0; i < f->dns.n && !ret; i++) {
		const struct fp_dns_finding *x = &LOOKUPS(&f->dns)[i];

		if (x->failing && !x->forbidden)
			ret = fp_suggester_need(s, FP_T_DNS, x->name,
						strlen(x->name), false);
	}
	return ret;
}
