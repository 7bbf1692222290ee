// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dns.h"

#define DNS_HDR 12
#define MAX_HOPS 16 /* compression pointers followed in one name */

struct rd {
	const uint8_t *p;
	size_t len, pos;
};

static bool get16(struct rd *r, uint16_t *v)
{
	if (r->len - r->pos < 2 || r->pos > r->len)
		return false;
	*v = (uint16_t)r->p[r->pos] << 8 | r->p[r->pos + 1];
	r->pos += 2;
	return true;
}

/* one label byte, printable: letters lowered, others as \DDD */
static size_t put_byte(char *out, size_t o, size_t cap, uint8_t c)
{
	if (isalnum(c) || c == '-' || c == '_') {
		if (o + 1 < cap)
			out[o++] = tolower(c);
		return o;
	}
	if (o + 4 < cap)
		o += snprintf(out + o, cap - o, "\\%03u", c);
	return o;
}

/*
 * The name at r->pos into out; r->pos moves past it (past the first
 * pointer if any). Pointers must go strictly backwards, so there is no
 * loop, and at most MAX_HOPS of them are followed anyway.
 */
static bool get_name(struct rd *r, char *out, size_t cap)
{
	size_t pos = r->pos, o = 0, wire = 0, end = 0;
	unsigned int hops = 0;

	out[0] = '\0';
	for (;;) {
		uint8_t n;

		if (pos >= r->len)
			return false;
		n = r->p[pos];
		if ((n & 0xc0) == 0xc0) {
			size_t to;

			if (pos + 1 >= r->len || ++hops > MAX_HOPS)
				return false;
			to = (size_t)(n & 0x3f) << 8 | r->p[pos + 1];
			if (!end)
				end = pos + 2;
			if (to >= pos)
				return false;
			pos = to;
			continue;
		}
		if (n & 0xc0)
			return false; /* extended label types: not DNS as used */
		pos++;
		if (!n)
			break;
		wire += n + 1;
		if (wire > 255 || pos + n > r->len)
			return false;
		if (o && o + 1 < cap)
			out[o++] = '.';
		for (size_t i = 0; i < n; i++)
			o = put_byte(out, o, cap, r->p[pos + i]);
		pos += n;
	}
	out[o < cap ? o : cap - 1] = '\0';
	r->pos = end ? end : pos;
	return true;
}

/* One resource record; an A, AAAA or CNAME is kept in m. */
static bool get_rr(struct rd *r, struct fp_dns_msg *m)
{
	struct fp_dns_rr rr = { 0 };
	uint16_t cls, rdlen, t1, t2;
	size_t rdata;

	if (!get_name(r, rr.owner, sizeof(rr.owner)) || !get16(r, &rr.type) ||
	    !get16(r, &cls) || !get16(r, &t1) || !get16(r, &t2) ||
	    !get16(r, &rdlen) || r->len - r->pos < rdlen)
		return false;
	rdata = r->pos;
	r->pos += rdlen;
	if (m->nanswers >= FP_DNS_ANSWERS_MAX)
		return true;
	if (rr.type == FP_DNS_T_A && rdlen == 4)
		inet_ntop(AF_INET, r->p + rdata, rr.data, sizeof(rr.data));
	else if (rr.type == FP_DNS_T_AAAA && rdlen == 16)
		inet_ntop(AF_INET6, r->p + rdata, rr.data, sizeof(rr.data));
	else if (rr.type == FP_DNS_T_CNAME) {
		struct rd sub = { r->p, rdata + rdlen, rdata };

		if (!get_name(&sub, rr.data, sizeof(rr.data)))
			return true;
	} else {
		return true;
	}
	m->an[m->nanswers++] = rr;
	return true;
}

int fp_dns_parse(const uint8_t *p, size_t len, bool tcp, struct fp_dns_msg *m)
{
	struct rd r = { p, len, 0 };
	uint16_t flags, qd, an, cls;
	unsigned int i;

	memset(m, 0, sizeof(*m));
	/* a TCP message leads with its length; a read may hold it or not */
	if (tcp && len >= 2 + DNS_HDR) {
		size_t l = (size_t)p[0] << 8 | p[1];

		/* whole, or cut at the copy's end */
		if (l + 2 == len || (l + 2 > len && len >= 512)) {
			r.p += 2;
			r.len -= 2;
		}
	}
	if (r.len < DNS_HDR)
		return -EINVAL;
	get16(&r, &m->id);
	get16(&r, &flags);
	get16(&r, &qd);
	get16(&r, &an);
	r.pos = DNS_HDR;
	m->response = flags & 0x8000;
	m->rcode = flags & 0xf;
	if (qd != 1 || ((flags >> 11) & 0xf) != 0)
		return -EINVAL; /* only standard queries with one question */
	if (!get_name(&r, m->qname, sizeof(m->qname)) ||
	    !get16(&r, &m->qtype) || !get16(&r, &cls))
		return -EINVAL;
	for (i = 0; i < an; i++) {
		if (!get_rr(&r, m)) {
			m->cut = true;
			break;
		}
	}
	return 0;
}

const char *fp_dns_type_name(uint16_t type, char *buf, size_t len)
{
	static const struct {
		uint16_t t;
		const char *name;
	} names[] = { { 1, "A" },     { 2, "NS" },     { 5, "CNAME" },
		      { 6, "SOA" },   { 12, "PTR" },   { 15, "MX" },
		      { 16, "TXT" },  { 28, "AAAA" },  { 33, "SRV" },
		      { 64, "SVCB" }, { 65, "HTTPS" }, { 255, "ANY" } };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].t == type)
			return names[i].name;
	snprintf(buf, len, "TYPE%u", type);
	return buf;
}
