// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns_trust.h"
#include "hashmap.h"
#include "netflow.h"

/* answers kept per lookup: a hostile resolver cannot grow them */
#define ANSWERS_PER_LOOKUP FP_DNS_ANSWERS_MAX
/* what a new record costs against reconcile's budget */
#define REC_COST 1024

/* how the EINPROGRESS connects of one flow ended (FP_NET_OUTCOME) */
struct conn_outcomes {
	unsigned int n;
	int32_t ret[FP_CONN_OUTCOMES];
	uint64_t count[FP_CONN_OUTCOMES];
};

struct fp_netrec {
	struct fp_hashmap flows; /* key -> struct fp_conn_finding */
	/* the key of the connect flow they ended -> struct conn_outcomes */
	struct fp_hashmap outcomes;
	struct fp_hashmap lookups; /* key -> struct fp_dns_finding */
	/* which answers may name an address (dns_trust.h) */
	struct fp_dns_trust *trust;
	uint64_t unparsed;
};

struct fp_netrec *fp_netrec_new(void)
{
	struct fp_netrec *n = calloc(1, sizeof(struct fp_netrec));

	if (n && !(n->trust = fp_dns_trust_new())) {
		free(n);
		n = NULL;
	}
	return n;
}

void fp_conn_finding_clear(struct fp_conn_finding *x)
{
	fp_actor_clear(&x->who);
	free(x->unix_path.data);
	free(x->names.data);
	free(x->unverified.data);
	memset(x, 0, sizeof(*x));
}

void fp_dns_finding_clear(struct fp_dns_finding *x)
{
	fp_actor_clear(&x->who);
	free(x->answers.data);
	memset(x, 0, sizeof(*x));
}

static void free_conn(void *v)
{
	if (v)
		fp_conn_finding_clear(v);
	free(v);
}

static void free_dns(void *v)
{
	if (v)
		fp_dns_finding_clear(v);
	free(v);
}

void fp_netrec_free(struct fp_netrec *n)
{
	if (!n)
		return;
	fp_hashmap_free(&n->flows, free_conn);
	fp_hashmap_free(&n->lookups, free_dns);
	fp_hashmap_free(&n->outcomes, free);
	fp_dns_trust_free(n->trust);
	free(n);
}

uint64_t fp_netrec_unparsed(const struct fp_netrec *n)
{
	return n ? n->unparsed : 0;
}

/* Does the NUL-separated list l hold s? */
static bool list_has(const struct fp_bytes *l, const char *s)
{
	size_t i = 0;

	while (l->data && i < l->len) {
		if (!strcmp(l->data + i, s))
			return true;
		i += strlen(l->data + i) + 1;
	}
	return false;
}

static size_t list_count(const struct fp_bytes *l)
{
	size_t i = 0, n = 0;

	while (l->data && i < l->len) {
		i += strlen(l->data + i) + 1;
		n++;
	}
	return n;
}

/* Append s (with its NUL) to l unless there or l holds max already. */
static int list_add(struct fp_bytes *l, const char *s, size_t max)
{
	size_t k = strlen(s) + 1;
	char *p;

	if (list_has(l, s) || list_count(l) >= max)
		return 0;
	p = realloc(l->data, l->len + k + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p + l->len, s, k);
	l->len += k;
	p[l->len] = '\0';
	l->data = p;
	return 0;
}

static bool is_loopback(const struct fp_event *ev)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (ev->net.family == AF_UNIX)
		return true;
	if (ev->net.family == AF_INET &&
	    inet_pton(AF_INET, ev->net.address, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (ev->net.family == AF_INET6 &&
	    inet_pton(AF_INET6, ev->net.address, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

/* resolvers whose answers travel over a unix socket footprint cannot read */
static const char *unix_resolver(const struct fp_bytes *p)
{
	static const struct {
		const char *path, *name;
	} known[] = {
		{ "/run/systemd/resolve/io.systemd.Resolve",
		  "systemd-resolved" },
		{ "/run/nscd/socket", "nscd" },
		{ "/var/run/nscd/socket", "nscd" },
	};
	size_t i;

	for (i = 0; p->data && i < sizeof(known) / sizeof(known[0]); i++)
		if (p->len == strlen(known[i].path) &&
		    !memcmp(p->data, known[i].path, p->len))
			return known[i].name;
	return NULL;
}

/* the flow key: everything but the count, in a fixed layout */
static size_t key_of(char *k, size_t cap, uint32_t pid, uint32_t op,
		     int64_t ret, int family, unsigned int sock_type,
		     unsigned int protocol, unsigned int port,
		     const char *address, const struct fp_bytes *unix_path)
{
	int n = snprintf(k, cap, "%u|%u|%lld|%d|%u|%u|%u|%s|", pid, op,
			 (long long)ret, family, sock_type, protocol, port,
			 address);
	size_t len = n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;

	if (unix_path->len && len + unix_path->len <= cap) {
		memcpy(k + len, unix_path->data, unix_path->len);
		len += unix_path->len;
	}
	return len;
}

static size_t flow_key(const struct fp_event *ev, char *k, size_t cap)
{
	return key_of(k, cap, ev->pid, ev->net.op, ev->net.ret, ev->net.family,
		      ev->net.sock_type, ev->net.protocol, ev->net.port,
		      ev->net.address, &ev->net.unix_path);
}

/*
 * How one non-blocking TCP connect ended: counted under the key of the
 * connect flow it ended (EINPROGRESS), whichever event came first.
 */
static int feed_outcome(struct fp_netrec *n, const struct fp_event *ev,
			int (*charge)(void *, uint64_t), void *ctx)
{
	char key[512];
	size_t klen =
		key_of(key, sizeof(key), ev->pid, FP_NET_CONNECT, -EINPROGRESS,
		       ev->net.family, ev->net.sock_type, ev->net.protocol,
		       ev->net.port, ev->net.address, &ev->net.unix_path);
	struct conn_outcomes *o = fp_hashmap_get(&n->outcomes, key, klen);
	struct fp_hslot *s;
	unsigned int i;
	int ret;

	if (!o) {
		ret = charge(ctx, REC_COST + klen);
		if (ret)
			return ret;
		s = fp_hashmap_slot(&n->outcomes, key, klen);
		if (!s || !(o = s->val = calloc(1, sizeof(*o))))
			return -ENOMEM;
	}
	for (i = 0; i < o->n && o->ret[i] != ev->net.ret; i++)
		;
	if (i == FP_CONN_OUTCOMES)
		i--; /* a hostile variety: counted as the last one kept */
	else if (i == o->n)
		o->ret[o->n++] = ev->net.ret;
	o->count[i] += ev->net.count;
	return 0;
}

static int feed_flow(struct fp_netrec *n, const struct fp_event *ev,
		     const struct fp_actor *who,
		     int (*charge)(void *, uint64_t), void *ctx)
{
	char key[512];
	size_t klen = flow_key(ev, key, sizeof(key));
	struct fp_conn_finding *x = fp_hashmap_get(&n->flows, key, klen);
	struct fp_hslot *s;
	int ret;

	if (x) {
		x->count += ev->net.count;
		return 0;
	}
	ret = charge(ctx, REC_COST + klen + ev->net.unix_path.len);
	if (ret)
		return ret;
	s = fp_hashmap_slot(&n->flows, key, klen);
	if (!s || !(x = calloc(1, sizeof(*x))))
		return -ENOMEM;
	s->val = x;
	x->op = ev->net.op;
	x->family = ev->net.family;
	memcpy(x->address, ev->net.address, sizeof(x->address));
	x->port = ev->net.port;
	x->sock_type = ev->net.sock_type;
	x->protocol = ev->net.protocol;
	x->ret = ev->net.ret;
	x->count = ev->net.count;
	x->loopback = is_loopback(ev);
	if (ev->net.family == AF_UNIX) {
		ret = fp_bytes_dup(&x->unix_path, ev->net.unix_path.data ?: "",
				   ev->net.unix_path.len);
		if (ret)
			return ret;
		/* glibc tries nscd's socket first; only a lookup that got
		 * through it hides names */
		if (!x->ret)
			x->resolver = unix_resolver(&x->unix_path);
	}
	/* a count with no first record (its first went to a lost record) */
	if (ev->type == FP_EV_NET_COUNT) {
		ret = fp_actor_own(&x->who, "", 0, "", 0);
		x->who.pid = ev->pid;
		return ret;
	}
	return fp_actor_copy(&x->who, who);
}

static int feed_dns(struct fp_netrec *n, const struct fp_event *ev,
		    const struct fp_actor *who, int (*charge)(void *, uint64_t),
		    void *ctx)
{
	struct fp_dns_msg m;
	struct fp_dns_finding *x;
	struct fp_hslot *s;
	char key[FP_DNS_NAME_MAX + 128];
	unsigned int i;
	int klen, ret;

	if (fp_dns_parse((const uint8_t *)ev->dns.data.data, ev->dns.data.len,
			 ev->dns.sock_type == SOCK_STREAM, &m) ||
	    m.response != (ev->dns.dir != FP_DNS_QUERY)) {
		/* a kernel copy is of a message read here too */
		if (ev->dns.dir != FP_DNS_DELIVERED)
			n->unparsed++;
		return 0;
	}
	ret = fp_dns_trust_feed(n->trust, ev, &m, charge, ctx);
	/* the kernel's copy of an answer only says whether it is trusted */
	if (ret || ev->dns.dir == FP_DNS_DELIVERED)
		return ret;
	klen = snprintf(key, sizeof(key), "%u|%u|%s|%u|%s", ev->pid, m.qtype,
			ev->dns.server, ev->dns.port, m.qname);
	x = fp_hashmap_get(&n->lookups, key, klen);
	if (!x) {
		ret = charge(ctx, REC_COST + klen);
		if (ret)
			return ret;
		s = fp_hashmap_slot(&n->lookups, key, klen);
		if (!s || !(x = s->val = calloc(1, sizeof(*x))))
			return -ENOMEM;
		memcpy(x->name, m.qname, sizeof(x->name));
		x->qtype = m.qtype;
		memcpy(x->server, ev->dns.server, sizeof(x->server));
		x->port = ev->dns.port;
		ret = fp_actor_copy(&x->who, who);
		if (ret)
			return ret;
	}
	if (ev->dns.dir == FP_DNS_QUERY) {
		x->count++;
		return 0;
	}
	x->answered = true;
	x->answers_n++;
	x->rcode = m.rcode;
	for (i = 0; i < m.nanswers; i++) {
		ret = list_add(&x->answers, m.an[i].data, ANSWERS_PER_LOOKUP);
		if (ret)
			return ret;
	}
	return 0;
}

int fp_netrec_bound(struct fp_netrec *n, const struct fp_event *ev,
		    int (*charge)(void *, uint64_t), void *ctx)
{
	if (ev->bind.ret < 0)
		return 0;
	return fp_dns_trust_bound(n->trust, ev->bind.family, ev->bind.address,
				  ev->bind.bound_port ? ev->bind.bound_port :
							ev->bind.port,
				  charge, ctx);
}

int fp_netrec_feed(struct fp_netrec *n, const struct fp_event *ev,
		   const struct fp_actor *who, int (*charge)(void *, uint64_t),
		   void *ctx)
{
	if (ev->type == FP_EV_DNS)
		return feed_dns(n, ev, who, charge, ctx);
	if (ev->net.op == FP_NET_OUTCOME)
		return feed_outcome(n, ev, charge, ctx);
	return feed_flow(n, ev, who, charge, ctx);
}

static const char *proto_name(const struct fp_conn_finding *x)
{
	if (x->family == AF_UNIX)
		return "unix";
	if (x->protocol == IPPROTO_TCP || x->sock_type == SOCK_STREAM)
		return "tcp";
	if (x->protocol == IPPROTO_UDP || x->sock_type == SOCK_DGRAM)
		return "udp";
	return "ip";
}

void fp_conn_subject(const struct fp_conn_finding *x, const char *name,
		     size_t namelen, char *buf, size_t len)
{
	const char *proto = proto_name(x);

	if (x->family == AF_UNIX)
		snprintf(buf, len, "unix/%s", x->unix_path.data ?: "");
	else if (name)
		snprintf(buf, len, "%s/%.*s:%u", proto, (int)namelen, name,
			 x->port);
	else if (x->family == AF_INET6)
		snprintf(buf, len, "%s/[%s]:%u", proto, x->address, x->port);
	else
		snprintf(buf, len, "%s/%s:%u", proto, x->address, x->port);
}

void fp_conn_display(const struct fp_conn_finding *x, char *buf, size_t len)
{
	if (x->family == AF_UNIX || !x->names.len) {
		fp_conn_subject(x, NULL, 0, buf, len);
		return;
	}
	/* the first name is enough on a line; the receipt has them all */
	if (x->family == AF_INET6)
		snprintf(buf, len, "%s/%s ([%s]):%u", proto_name(x),
			 x->names.data, x->address, x->port);
	else
		snprintf(buf, len, "%s/%s (%s):%u", proto_name(x),
			 x->names.data, x->address, x->port);
}

static int conn_cmp(const void *a, const void *b)
{
	const struct fp_conn_finding *x = a, *y = b;
	int c = strcmp(x->address, y->address);

	if (c)
		return c;
	c = fp_bytes_cmp(x->unix_path.data ?: "", x->unix_path.len,
			 y->unix_path.data ?: "", y->unix_path.len);
	if (c)
		return c;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if (x->who.pid != y->who.pid)
		return x->who.pid < y->who.pid ? -1 : 1;
	if (x->protocol != y->protocol)
		return x->protocol < y->protocol ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return (x->ret > y->ret) - (x->ret < y->ret);
}

static int dns_cmp(const void *a, const void *b)
{
	const struct fp_dns_finding *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->qtype != y->qtype)
		return x->qtype < y->qtype ? -1 : 1;
	if (x->who.pid != y->who.pid)
		return x->who.pid < y->who.pid ? -1 : 1;
	c = strcmp(x->server, y->server);
	return c ? c : (x->port > y->port) - (x->port < y->port);
}

/* the outcomes of an EINPROGRESS connect flow, into its finding */
static void copy_outcomes(const struct fp_netrec *n, struct fp_conn_finding *c)
{
	const struct conn_outcomes *o;
	char key[512];
	size_t klen;

	if (c->op != FP_NET_CONNECT || c->ret != -EINPROGRESS)
		return;
	klen = key_of(key, sizeof(key), c->who.pid, c->op, c->ret, c->family,
		      c->sock_type, c->protocol, c->port, c->address,
		      &c->unix_path);
	o = fp_hashmap_get(&n->outcomes, key, klen);
	if (!o)
		return;
	c->noutcomes = o->n;
	memcpy(c->outcome_ret, o->ret, sizeof(o->ret));
	memcpy(c->outcome_n, o->count, sizeof(o->count));
}

static int copy_conn(const struct fp_netrec *n, const struct fp_dns_names *dn,
		     const struct fp_conn_finding *x, struct fp_findings *out)
{
	struct fp_vec *v =
		x->op == FP_NET_ACCEPT ? &out->accepted : &out->connected;
	struct fp_conn_finding *c = fp_vec_push(v, sizeof(*c));
	const struct fp_bytes *names, *untrusted;

	if (!c)
		return -ENOMEM;
	*c = *x;
	memset(&c->who, 0, sizeof(c->who));
	c->unix_path = (struct fp_bytes){ 0 };
	c->names = (struct fp_bytes){ 0 };
	c->unverified = (struct fp_bytes){ 0 };
	if (fp_actor_copy(&c->who, &x->who) ||
	    (x->unix_path.data &&
	     fp_bytes_dup(&c->unix_path, x->unix_path.data, x->unix_path.len)))
		return -ENOMEM;
	copy_outcomes(n, c);
	if (x->family == AF_UNIX)
		return 0;
	names = fp_hashmap_get(&dn->trusted, x->address, strlen(x->address));
	untrusted =
		fp_hashmap_get(&dn->untrusted, x->address, strlen(x->address));
	if ((names && names->len &&
	     fp_bytes_dup(&c->names, names->data, names->len)) ||
	    (untrusted && untrusted->len &&
	     fp_bytes_dup(&c->unverified, untrusted->data, untrusted->len)))
		return -ENOMEM;
	return 0;
}

static int copy_dns(const struct fp_dns_finding *x, struct fp_findings *out)
{
	struct fp_dns_finding *c = fp_vec_push(&out->dns, sizeof(*c));

	if (!c)
		return -ENOMEM;
	*c = *x;
	memset(&c->who, 0, sizeof(c->who));
	c->answers = (struct fp_bytes){ 0 };
	if (c->answers_n > c->count)
		c->count = c->answers_n;
	if (fp_actor_copy(&c->who, &x->who) ||
	    (x->answers.data &&
	     fp_bytes_dup(&c->answers, x->answers.data, x->answers.len)))
		return -ENOMEM;
	return 0;
}

int fp_netrec_findings(const struct fp_netrec *n, struct fp_findings *out)
{
	struct fp_dns_names dn;
	size_t i;
	int ret;

	if (!n)
		return 0;
	ret = fp_dns_trust_judge(n->trust, &dn);
	for (i = 0; i < n->flows.cap && !ret; i++)
		if (n->flows.slots[i].key && n->flows.slots[i].val)
			ret = copy_conn(n, &dn, n->flows.slots[i].val, out);
	fp_dns_names_free(&dn);
	for (i = 0; i < n->lookups.cap && !ret; i++)
		if (n->lookups.slots[i].key && n->lookups.slots[i].val)
			ret = copy_dns(n->lookups.slots[i].val, out);
	if (ret)
		return ret;
	/* hash order is not an order */
	if (out->connected.n)
		qsort(out->connected.v, out->connected.n,
		      sizeof(struct fp_conn_finding), conn_cmp);
	if (out->accepted.n)
		qsort(out->accepted.v, out->accepted.n,
		      sizeof(struct fp_conn_finding), conn_cmp);
	if (out->dns.n)
		qsort(out->dns.v, out->dns.n, sizeof(struct fp_dns_finding),
		      dns_cmp);
	return 0;
}

static void step_of(struct fp_actor *a, const uint32_t *g2s, size_t n)
{
	a->step = a->step && a->step <= n ? g2s[a->step - 1] : 0;
}

void fp_netflow_steps(struct fp_findings *out, const uint32_t *g2s, size_t n)
{
	size_t i;

	for (i = 0; i < out->connected.n; i++)
		step_of(&fp_vec_at(&out->connected, struct fp_conn_finding, i)
				 ->who,
			g2s, n);
	for (i = 0; i < out->accepted.n; i++)
		step_of(&fp_vec_at(&out->accepted, struct fp_conn_finding, i)
				 ->who,
			g2s, n);
	for (i = 0; i < out->dns.n; i++)
		step_of(&fp_vec_at(&out->dns, struct fp_dns_finding, i)->who,
			g2s, n);
}

void fp_netflow_findings_free(struct fp_findings *f)
{
	size_t i;

	for (i = 0; i < f->connected.n; i++)
		fp_conn_finding_clear(
			fp_vec_at(&f->connected, struct fp_conn_finding, i));
	free(f->connected.v);
	for (i = 0; i < f->accepted.n; i++)
		fp_conn_finding_clear(
			fp_vec_at(&f->accepted, struct fp_conn_finding, i));
	free(f->accepted.v);
	for (i = 0; i < f->dns.n; i++)
		fp_dns_finding_clear(
			fp_vec_at(&f->dns, struct fp_dns_finding, i));
	free(f->dns.v);
}
