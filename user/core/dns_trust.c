// SPDX-License-Identifier: GPL-2.0
/* Which DNS answers may name an address (dns_trust.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns_trust.h"
#include "findings.h"

/* per address: names kept, and names of answers not trusted */
#define NAMES_PER_ADDR 8
/* queries kept per socket and question (a resolver's retries, servers) */
#define QUERIES_PER_QUESTION 32
#define REC_COST 1024

/* one query: what an answer to it must match */
struct query {
	uint16_t id;
	uint16_t port;
	char server[64];
};

/* an answer as the kernel delivered it, checked at the end */
struct delivered {
	uint32_t sock, flags;
	uint16_t id, qtype, port;
	char source[64];
	char qname[FP_DNS_NAME_MAX];
	struct fp_bytes addrs; /* the A and AAAA data, NUL-separated */
};

struct bound {
	char address[112];
	uint16_t port;
};

struct fp_dns_trust {
	/* "sock|qtype|qname" -> struct fp_vec of struct query */
	struct fp_hashmap queries;
	struct fp_vec delivered; /* struct delivered, in order */
	struct fp_vec bound; /* struct bound */
	/* address -> "u" or "t" (TCP) + name, NUL-separated: answers the
	 * command read, which may have no kernel copy */
	struct fp_hashmap told;
};

struct fp_dns_trust *fp_dns_trust_new(void)
{
	return calloc(1, sizeof(struct fp_dns_trust));
}

static void free_vec(void *v)
{
	struct fp_vec *x = v;

	if (x)
		free(x->v);
	free(x);
}

static void free_bytes(void *v)
{
	struct fp_bytes *b = v;

	if (b)
		free(b->data);
	free(b);
}

void fp_dns_trust_free(struct fp_dns_trust *t)
{
	size_t i;

	if (!t)
		return;
	fp_hashmap_free(&t->queries, free_vec);
	for (i = 0; i < t->delivered.n; i++)
		free(fp_vec_at(&t->delivered, struct delivered, i)->addrs.data);
	free(t->delivered.v);
	free(t->bound.v);
	fp_hashmap_free(&t->told, free_bytes);
	free(t);
}

/* Does the NUL-separated list l hold s? */
static bool has(const struct fp_bytes *l, const char *s, size_t k)
{
	size_t i = 0;

	while (l->data && i < l->len) {
		size_t n = strlen(l->data + i);

		if (n == k && !memcmp(l->data + i, s, k))
			return true;
		i += n + 1;
	}
	return false;
}

/* Append the k bytes at s (and a NUL) to l; nothing if there already. */
static int add(struct fp_bytes *l, const char *s, size_t k)
{
	char *p;

	if (has(l, s, k))
		return 0;
	p = realloc(l->data, l->len + k + 2);
	if (!p)
		return -ENOMEM;
	memcpy(p + l->len, s, k);
	l->len += k;
	p[l->len++] = '\0';
	p[l->len] = '\0';
	l->data = p;
	return 0;
}

static size_t count(const struct fp_bytes *l)
{
	size_t i = 0, n = 0;

	while (l->data && i < l->len) {
		i += strlen(l->data + i) + 1;
		n++;
	}
	return n;
}

/*
 * An address as the kernel's copy of a packet prints it: an IPv4 address
 * a v6 socket sees as ::ffff:a.b.c.d is a.b.c.d.
 */
static const char *plain(const char *a)
{
	if (!strncmp(a, "::ffff:", 7) && strchr(a + 7, '.'))
		return a + 7;
	return a;
}

static bool wildcard(const char *a)
{
	return !strcmp(a, "0.0.0.0") || !strcmp(a, "::");
}

static int query_key(char *k, size_t cap, uint32_t sock,
		     const struct fp_dns_msg *m)
{
	int n = snprintf(k, cap, "%u|%u|%s", sock, m->qtype, m->qname);

	return n < 0 ? 0 : (size_t)n < cap ? n : (int)cap - 1;
}

static int feed_query(struct fp_dns_trust *t, const struct fp_event *ev,
		      const struct fp_dns_msg *m,
		      int (*charge)(void *, uint64_t), void *ctx)
{
	char key[FP_DNS_NAME_MAX + 32];
	int klen = query_key(key, sizeof(key), ev->dns.sock, m);
	struct fp_vec *v = fp_hashmap_get(&t->queries, key, klen);
	struct fp_hslot *s;
	struct query *q;
	size_t i;
	int ret;

	if (!ev->dns.sock)
		return 0; /* no socket known: no answer can match it */
	for (i = 0; v && i < v->n; i++) {
		q = fp_vec_at(v, struct query, i);
		if (q->id == m->id && q->port == ev->dns.port &&
		    !strcmp(q->server, plain(ev->dns.server)))
			return 0;
	}
	/* past the bound, an answer to a later id is not trusted */
	if (v && v->n >= QUERIES_PER_QUESTION)
		return 0;
	ret = charge(ctx, sizeof(*q) + (v ? 0 : REC_COST + klen));
	if (ret)
		return ret;
	if (!v) {
		s = fp_hashmap_slot(&t->queries, key, klen);
		if (!s || !(v = s->val = calloc(1, sizeof(*v))))
			return -ENOMEM;
	}
	q = fp_vec_push(v, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->id = m->id;
	q->port = ev->dns.port;
	snprintf(q->server, sizeof(q->server), "%s", plain(ev->dns.server));
	return 0;
}

/* the A and AAAA data of m, NUL-separated, into l */
static int addresses(const struct fp_dns_msg *m, struct fp_bytes *l)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < m->nanswers && !ret; i++)
		if (m->an[i].type == FP_DNS_T_A ||
		    m->an[i].type == FP_DNS_T_AAAA)
			ret = add(l, m->an[i].data, strlen(m->an[i].data));
	return ret;
}

static int feed_delivered(struct fp_dns_trust *t, const struct fp_event *ev,
			  const struct fp_dns_msg *m,
			  int (*charge)(void *, uint64_t), void *ctx)
{
	struct delivered *d;
	int ret;

	if (!m->response || !m->nanswers)
		return 0;
	ret = charge(ctx, sizeof(*d) + REC_COST);
	if (ret)
		return ret;
	d = fp_vec_push(&t->delivered, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->sock = ev->dns.sock;
	d->flags = ev->dns.flags;
	d->id = m->id;
	d->qtype = m->qtype;
	d->port = ev->dns.port;
	snprintf(d->source, sizeof(d->source), "%s", plain(ev->dns.server));
	memcpy(d->qname, m->qname, sizeof(d->qname));
	return addresses(m, &d->addrs);
}

/* an answer the command read: its names, for the why of the untrusted */
static int feed_told(struct fp_dns_trust *t, const struct fp_event *ev,
		     const struct fp_dns_msg *m,
		     int (*charge)(void *, uint64_t), void *ctx)
{
	char entry[FP_DNS_NAME_MAX + 1];
	struct fp_bytes *l;
	struct fp_hslot *s;
	unsigned int i;
	int ret, k;

	k = snprintf(entry, sizeof(entry), "%c%s",
		     ev->dns.sock_type == SOCK_STREAM ? 't' : 'u', m->qname);
	if (k < 0 || (size_t)k >= sizeof(entry))
		k = sizeof(entry) - 1;
	for (i = 0; i < m->nanswers; i++) {
		const char *a = m->an[i].data;

		if (m->an[i].type != FP_DNS_T_A &&
		    m->an[i].type != FP_DNS_T_AAAA)
			continue;
		l = fp_hashmap_get(&t->told, a, strlen(a));
		if (!l) {
			ret = charge(ctx, REC_COST);
			if (ret)
				return ret;
			s = fp_hashmap_slot(&t->told, a, strlen(a));
			if (!s || !(s->val = calloc(1, sizeof(*l))))
				return -ENOMEM;
			l = s->val;
		}
		if (count(l) < NAMES_PER_ADDR) {
			ret = add(l, entry, k);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int fp_dns_trust_feed(struct fp_dns_trust *t, const struct fp_event *ev,
		      const struct fp_dns_msg *m,
		      int (*charge)(void *, uint64_t), void *ctx)
{
	switch (ev->dns.dir) {
	case FP_DNS_QUERY:
		return feed_query(t, ev, m, charge, ctx);
	case FP_DNS_ANSWER:
		return feed_told(t, ev, m, charge, ctx);
	case FP_DNS_DELIVERED:
		return feed_delivered(t, ev, m, charge, ctx);
	}
	return 0;
}

int fp_dns_trust_bound(struct fp_dns_trust *t, int family, const char *address,
		       uint16_t port, int (*charge)(void *, uint64_t),
		       void *ctx)
{
	struct bound *b;
	int ret;

	if ((family != AF_INET && family != AF_INET6) || !port)
		return 0;
	ret = charge(ctx, sizeof(*b) + 16);
	if (ret)
		return ret;
	b = fp_vec_push(&t->bound, sizeof(*b));
	if (!b)
		return -ENOMEM;
	snprintf(b->address, sizeof(b->address), "%s", plain(address));
	b->port = port;
	return 0;
}

/* Could a socket of the run have sent it (it bound its source)? */
static bool own_server(const struct fp_dns_trust *t, const struct delivered *d)
{
	size_t i;

	for (i = 0; i < t->bound.n; i++) {
		const struct bound *b =
			fp_vec_at(&t->bound, const struct bound, i);

		if (b->port == d->port &&
		    (wildcard(b->address) || !strcmp(b->address, d->source)))
			return true;
	}
	return false;
}

/* NULL if d may name its addresses, else why not (a code) */
static const char *why_untrusted(const struct fp_dns_trust *t,
				 const struct delivered *d)
{
	struct fp_dns_msg m = { .qtype = d->qtype };
	char key[FP_DNS_NAME_MAX + 32];
	const struct fp_vec *v;
	const char *why = "no_query";
	size_t i;
	int klen;

	if (d->flags & FP_DNS_F_USERNS)
		return "user_netns";
	if (own_server(t, d))
		return "own_server";
	memcpy(m.qname, d->qname, sizeof(m.qname));
	klen = query_key(key, sizeof(key), d->sock, &m);
	v = fp_hashmap_get(&t->queries, key, klen);
	for (i = 0; v && i < v->n; i++) {
		const struct query *q = fp_vec_at(v, const struct query, i);

		if (q->id != d->id) {
			if (!strcmp(why, "no_query"))
				why = "wrong_id";
			continue;
		}
		if (q->port != d->port || strcmp(q->server, d->source)) {
			why = "other_server";
			continue;
		}
		return NULL;
	}
	return why;
}

/* the list under address a in map m, made if new */
static struct fp_bytes *list_of(struct fp_hashmap *m, const char *a)
{
	struct fp_bytes *l = fp_hashmap_get(m, a, strlen(a));
	struct fp_hslot *s;

	if (l)
		return l;
	s = fp_hashmap_slot(m, a, strlen(a));
	if (!s || !(s->val = calloc(1, sizeof(*l))))
		return NULL;
	return s->val;
}

/* Does the "name\0why\0" list l hold name? */
static bool pair_has(const struct fp_bytes *l, const char *name)
{
	size_t i = 0;

	while (l && l->data && i < l->len) {
		const char *n = l->data + i, *why = n + strlen(n) + 1;

		if (!strcmp(n, name))
			return true;
		i += strlen(n) + strlen(why) + 2;
	}
	return false;
}

static size_t pair_count(const struct fp_bytes *l)
{
	return count(l) / 2;
}

static int pair_add(struct fp_bytes *l, const char *name, const char *why)
{
	size_t kn = strlen(name) + 1, kw = strlen(why) + 1;
	char *p;

	if (pair_has(l, name) || pair_count(l) >= NAMES_PER_ADDR)
		return 0;
	p = realloc(l->data, l->len + kn + kw + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p + l->len, name, kn);
	memcpy(p + l->len + kn, why, kw);
	l->len += kn + kw;
	p[l->len] = '\0';
	l->data = p;
	return 0;
}

static bool trusted_has(const struct fp_hashmap *m, const char *a,
			const char *name)
{
	const struct fp_bytes *l = fp_hashmap_get(m, a, strlen(a));

	return l && has(l, name, strlen(name));
}

/*
 * The delivered answers: the trusted first, so that a name one trusted
 * answer gave an address is not listed as untrusted for another's.
 */
static int judge_delivered(const struct fp_dns_trust *t,
			   struct fp_dns_names *out, bool trusted)
{
	size_t i, j;
	int ret = 0;

	for (i = 0; i < t->delivered.n && !ret; i++) {
		const struct delivered *d =
			fp_vec_at(&t->delivered, const struct delivered, i);
		const char *why = why_untrusted(t, d), *a;
		struct fp_bytes *l;

		if (!why != trusted)
			continue;
		for (j = 0; d->addrs.data && j < d->addrs.len && !ret;
		     j += strlen(a) + 1) {
			a = d->addrs.data + j;
			if (!trusted && trusted_has(&out->trusted, a, d->qname))
				continue;
			l = list_of(trusted ? &out->trusted : &out->untrusted,
				    a);
			if (!l)
				ret = -ENOMEM;
			else if (trusted && count(l) < NAMES_PER_ADDR)
				ret = add(l, d->qname, strlen(d->qname));
			else if (!trusted)
				ret = pair_add(l, d->qname, why);
		}
	}
	return ret;
}

/* what the command was told that no kernel copy confirmed or refuted */
static int judge_told(const struct fp_dns_trust *t, struct fp_dns_names *out)
{
	struct fp_bytes *u;
	size_t i, j;
	int ret = 0;

	for (i = 0; i < t->told.cap && !ret; i++) {
		const struct fp_hslot *s = &t->told.slots[i];
		const struct fp_bytes *l = s->val;

		for (j = 0; s->key && l && l->data && j < l->len && !ret;
		     j += strlen(l->data + j) + 1) {
			const char *name = l->data + j + 1;

			if (trusted_has(&out->trusted, s->key, name))
				continue;
			u = list_of(&out->untrusted, s->key);
			ret = u ? pair_add(u, name,
					   l->data[j] == 't' ? "tcp" :
							       "not_read") :
				  -ENOMEM;
		}
	}
	return ret;
}

int fp_dns_trust_judge(const struct fp_dns_trust *t, struct fp_dns_names *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	if (!t)
		return 0;
	ret = judge_delivered(t, out, true);
	if (!ret)
		ret = judge_delivered(t, out, false);
	if (!ret)
		ret = judge_told(t, out);
	return ret;
}

void fp_dns_names_free(struct fp_dns_names *n)
{
	fp_hashmap_free(&n->trusted, free_bytes);
	fp_hashmap_free(&n->untrusted, free_bytes);
}

const char *fp_dns_why_text(const char *why)
{
	static const struct {
		const char *code, *text;
	} whys[] = {
		{ "own_server",
		  "the answer came from an address and port a process of the run had bound" },
		{ "user_netns",
		  "the answer came in a network namespace of a user namespace" },
		{ "no_query",
		  "the socket it came to had not asked that question" },
		{ "wrong_id", "its id was not the query's" },
		{ "other_server",
		  "it came from another address or port than the query went to" },
		{ "tcp", "over TCP, read from the command's memory" },
		{ "not_read",
		  "footprint did not see the kernel's copy of the answer" },
	};
	size_t i;

	for (i = 0; i < sizeof(whys) / sizeof(whys[0]); i++)
		if (!strcmp(whys[i].code, why))
			return whys[i].text;
	return why;
}
