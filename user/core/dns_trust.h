/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which DNS answers may name an address (pure, part of netflow.c's
 * reconciliation). A run could answer its own query, or have an answer
 * forged, and so give any address an allowed name. An answer names its
 * addresses only if, as the kernel delivered it (FP_DNS_DELIVERED, read
 * from the kernel's own copy):
 *
 * - it came from the server a query of the same question was sent to
 *   (address and port),
 * - to the socket that sent that query (its inode number),
 * - with that query's id,
 * - from no address and port a process of the run had bound (it could
 *   answer itself), and
 * - in a network namespace of the initial user namespace (one a user
 *   namespace owns, the invoking user or the run may forge in).
 *
 * Every other answer names nothing: the connection is judged by its
 * address alone, and the receipt says why (fp_dns_why_text()). So do the
 * answers the command read that no kernel copy confirms: those over TCP,
 * those read where footprint does not see the kernel's copy, and those of
 * a log of an older footprint, which has no kernel copies.
 */
#ifndef FP_DNS_TRUST_H
#define FP_DNS_TRUST_H

#include <stdint.h>

#include "dns.h"
#include "event.h"
#include "hashmap.h"

struct fp_dns_trust;

struct fp_dns_trust *fp_dns_trust_new(void);
void fp_dns_trust_free(struct fp_dns_trust *t);
/*
 * One parsed DNS event (query, answer read or answer delivered) of ev, m
 * its message. charge(ctx, bytes) is asked before anything new is kept;
 * its error is returned and nothing is kept.
 */
int fp_dns_trust_feed(struct fp_dns_trust *t, const struct fp_event *ev,
		      const struct fp_dns_msg *m,
		      int (*charge)(void *, uint64_t), void *ctx);
/* A successful inet bind of the run: an address:port it can answer from. */
int fp_dns_trust_bound(struct fp_dns_trust *t, int family, const char *address,
		       uint16_t port, int (*charge)(void *, uint64_t),
		       void *ctx);

/* The verdict on every answer, by the address it gave. */
struct fp_dns_names {
	/* address -> struct fp_bytes: names, NUL-separated */
	struct fp_hashmap trusted;
	/* address -> struct fp_bytes: "name\0why\0" pairs, why one of the
	 * fp_dns_why_text() codes; a trusted name is not listed */
	struct fp_hashmap untrusted;
};

int fp_dns_trust_judge(const struct fp_dns_trust *t, struct fp_dns_names *out);
void fp_dns_names_free(struct fp_dns_names *n);
/* "own_server" -> what it means, for the summary and docs */
const char *fp_dns_why_text(const char *why);

#endif
