/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network part of reconciliation: connections, datagrams with a
 * destination, accepts and DNS lookups folded from the events (pure, like
 * the rest of reconcile), then turned into the findings network.connected,
 * network.accepted and network.dns, each connection named by the DNS
 * answers of the run that gave its address.
 */
#ifndef FP_NETFLOW_H
#define FP_NETFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dns.h"
#include "event.h"
#include "findings.h"

/* distinct outcomes kept per connection; more are counted as the last */
#define FP_CONN_OUTCOMES 8

/* a connection (connect, or sendto/sendmsg with a destination) or accept */
struct fp_conn_finding {
	struct fp_actor who;
	uint32_t op; /* enum fp_net_op */
	int family;
	char address[112];
	struct fp_bytes unix_path; /* AF_UNIX */
	uint16_t port; /* accept: the listener's */
	uint16_t sock_type;
	int protocol;
	int64_t ret; /* 0 or -errno; -EINPROGRESS: attempted */
	uint64_t count; /* calls */
	/* DNS names of the run whose answers held address, NUL-separated:
	 * only answers that may name it (dns_trust.h) */
	struct fp_bytes names;
	/* a unix socket of a resolver footprint cannot read:
	 * "systemd-resolved" or "nscd"; NULL otherwise */
	const char *resolver;
	bool loopback; /* loopback address or unix socket: no default fail */
	bool allowed, forbidden, failing;
	const char *rule;
	/* a TCP connect that returned EINPROGRESS: how its attempts ended
	 * (FP_NET_OUTCOME events), by result (0 established, or -errno) */
	unsigned int noutcomes;
	int32_t outcome_ret[FP_CONN_OUTCOMES];
	uint64_t outcome_n[FP_CONN_OUTCOMES];
	/* names of answers that held address but may not name it, each with
	 * why (dns_trust.h): "name\0why\0" pairs */
	struct fp_bytes unverified;
};

struct fp_dns_finding {
	struct fp_actor who; /* the process that asked */
	char name[FP_DNS_NAME_MAX];
	uint16_t qtype;
	char server[64];
	uint16_t port;
	bool answered;
	int rcode;
	uint64_t count; /* queries of this name, type and server */
	uint64_t answers_n; /* answers to them */
	struct fp_bytes answers; /* NUL-separated addresses and CNAMEs */
	bool allowed, forbidden, failing;
	const char *rule;
};

struct fp_netrec;

struct fp_netrec *fp_netrec_new(void);
void fp_netrec_free(struct fp_netrec *n);
/*
 * Fold one FP_EV_NET, FP_EV_NET_COUNT or FP_EV_DNS event. who is the
 * process as reconcile knows it, copied if the event starts a record.
 * charge(ctx, bytes) is asked before anything new is kept; its error is
 * returned and nothing is kept.
 */
int fp_netrec_feed(struct fp_netrec *n, const struct fp_event *ev,
		   const struct fp_actor *who, int (*charge)(void *, uint64_t),
		   void *ctx);
/* A bind of the run (FP_EV_BIND): an address it could answer DNS from. */
int fp_netrec_bound(struct fp_netrec *n, const struct fp_event *ev,
		    int (*charge)(void *, uint64_t), void *ctx);
/* DNS messages that did not parse: counted, not kept */
uint64_t fp_netrec_unparsed(const struct fp_netrec *n);
/* The findings, sorted; 0 or -ENOMEM. n may be NULL (no network events). */
int fp_netrec_findings(const struct fp_netrec *n, struct fp_findings *out);
/* findings held groups (sidecar); now they name steps, as reconcile's */
void fp_netflow_steps(struct fp_findings *out, const uint32_t *g2s, size_t n);
void fp_conn_finding_clear(struct fp_conn_finding *x);
/* connected, accepted and dns of f (fp_findings_free) */
void fp_netflow_findings_free(struct fp_findings *f);
void fp_dns_finding_clear(struct fp_dns_finding *x);
/* "tcp/140.82.112.3:443", "udp/[::1]:53", "unix/PATH"; with name, the
 * host is the name instead */
void fp_conn_subject(const struct fp_conn_finding *x, const char *name,
		     size_t namelen, char *buf, size_t len);
/* "api.github.com (140.82.112.3):443", or the subject without names */
void fp_conn_display(const struct fp_conn_finding *x, char *buf, size_t len);

/*
 * How a TCP connect ended (netflow_outcome.c): "established", "refused",
 * "timed_out", "reset", "unreachable", "closed" (by the caller first),
 * "failed" (another error), "unknown" (not seen before the trace ended),
 * or "mixed" (attempts that ended differently); NULL for a connection
 * that is no TCP connect. *ret is the result it stands for: 0, -errno,
 * or -EINPROGRESS for unknown and mixed.
 */
const char *fp_conn_outcome(const struct fp_conn_finding *x, int64_t *ret);
/* the name fp_conn_outcome() gives a result (0 or -errno) */
const char *fp_conn_outcome_name(int64_t ret);
/* attempts whose outcome was not seen: count less the outcomes */
uint64_t fp_conn_outcome_unknown(const struct fp_conn_finding *x);

#endif
