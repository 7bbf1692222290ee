// SPDX-License-Identifier: GPL-2.0
/* dns: the bounded parser of queries and answers the kernel copied */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "dns.h"

TestSuite(dns, .timeout = 10);

/* a message builder: header, one question, then records */
struct msg {
	uint8_t b[600];
	size_t n;
};

static void put(struct msg *m, const void *p, size_t n)
{
	cr_assert_leq(m->n + n, sizeof(m->b));
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void put16(struct msg *m, unsigned int v)
{
	uint8_t b[2] = { v >> 8, v & 0xff };

	put(m, b, 2);
}

static void put_name(struct msg *m, const char *name)
{
	const char *s = name, *dot;

	while (*s) {
		uint8_t n;

		dot = strchr(s, '.');
		n = dot ? (size_t)(dot - s) : strlen(s);
		put(m, &n, 1);
		put(m, s, n);
		s += n + (dot ? 1 : 0);
	}
	put(m, "", 1);
}

static void header(struct msg *m, unsigned int flags, unsigned int an)
{
	m->n = 0;
	put16(m, 0xbeef);
	put16(m, flags);
	put16(m, 1);
	put16(m, an);
	put16(m, 0);
	put16(m, 0);
}

static void question(struct msg *m, const char *name, unsigned int type)
{
	put_name(m, name);
	put16(m, type);
	put16(m, 1);
}

/* a record whose owner is a pointer to the question's name */
static void rr(struct msg *m, unsigned int type, const void *rd, size_t n)
{
	put16(m, 0xc00c);
	put16(m, type);
	put16(m, 1);
	put16(m, 0);
	put16(m, 60);
	put16(m, n);
	put(m, rd, n);
}

Test(dns, query)
{
	struct msg m;
	struct fp_dns_msg d;

	header(&m, 0x0100, 0);
	question(&m, "API.GitHub.com", FP_DNS_T_A);
	cr_assert_eq(fp_dns_parse(m.b, m.n, false, &d), 0);
	cr_assert_not(d.response);
	cr_assert_str_eq(d.qname, "api.github.com");
	cr_assert_eq(d.qtype, FP_DNS_T_A);
	cr_assert_eq(d.nanswers, 0);
	cr_assert_eq(d.id, 0xbeef);
}

Test(dns, answer_a_aaaa_cname)
{
	static const uint8_t a[4] = { 140, 82, 112, 3 };
	static const uint8_t aaaa[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct msg m, cname;
	struct fp_dns_msg d;

	cname.n = 0;
	put_name(&cname, "edge.example.net");
	header(&m, 0x8180, 3);
	question(&m, "api.github.com", FP_DNS_T_A);
	rr(&m, FP_DNS_T_CNAME, cname.b, cname.n);
	rr(&m, FP_DNS_T_A, a, sizeof(a));
	rr(&m, FP_DNS_T_AAAA, aaaa, sizeof(aaaa));
	cr_assert_eq(fp_dns_parse(m.b, m.n, false, &d), 0);
	cr_assert(d.response);
	cr_assert_eq(d.nanswers, 3);
	cr_assert_str_eq(d.an[0].data, "edge.example.net");
	cr_assert_str_eq(d.an[0].owner, "api.github.com");
	cr_assert_str_eq(d.an[1].data, "140.82.112.3");
	cr_assert_str_eq(d.an[2].data, "2001:db8::1");
	cr_assert_not(d.cut);
}

Test(dns, tcp_length_prefix)
{
	static const uint8_t a[4] = { 10, 0, 0, 1 };
	struct msg m, t;
	struct fp_dns_msg d;

	header(&m, 0x8180, 1);
	question(&m, "deb.debian.org", FP_DNS_T_A);
	rr(&m, FP_DNS_T_A, a, sizeof(a));
	t.n = 0;
	put16(&t, m.n);
	put(&t, m.b, m.n);
	cr_assert_eq(fp_dns_parse(t.b, t.n, true, &d), 0);
	cr_assert_str_eq(d.qname, "deb.debian.org");
	cr_assert_str_eq(d.an[0].data, "10.0.0.1");
	/* read without its prefix, as a second read() gives it */
	cr_assert_eq(fp_dns_parse(m.b, m.n, true, &d), 0);
	cr_assert_str_eq(d.an[0].data, "10.0.0.1");
}

Test(dns, cut_answer_keeps_question)
{
	static const uint8_t a[4] = { 10, 0, 0, 1 };
	struct msg m;
	struct fp_dns_msg d;

	header(&m, 0x8180, 2);
	question(&m, "a.example", FP_DNS_T_A);
	rr(&m, FP_DNS_T_A, a, sizeof(a));
	rr(&m, FP_DNS_T_A, a, sizeof(a));
	cr_assert_eq(fp_dns_parse(m.b, m.n - 3, false, &d), 0);
	cr_assert(d.cut);
	cr_assert_eq(d.nanswers, 1);
}

Test(dns, pointer_loops_and_forward_pointers_refused)
{
	struct msg m;
	struct fp_dns_msg d;

	header(&m, 0x8180, 0);
	put16(&m, 0xc00c); /* the question's name points at itself */
	put16(&m, 1);
	put16(&m, 1);
	cr_assert_eq(fp_dns_parse(m.b, m.n, false, &d), -EINVAL);
	header(&m, 0x8180, 0);
	put16(&m, 0xc020); /* forwards */
	put16(&m, 1);
	put16(&m, 1);
	cr_assert_eq(fp_dns_parse(m.b, m.n, false, &d), -EINVAL);
}

Test(dns, odd_bytes_escaped_and_long_names_refused)
{
	struct msg m;
	struct fp_dns_msg d;
	char label[64];
	int i;

	header(&m, 0x0100, 0);
	put(&m, "\3a\x01Z", 4);
	put(&m, "", 1);
	put16(&m, 1);
	put16(&m, 1);
	cr_assert_eq(fp_dns_parse(m.b, m.n, false, &d), 0);
	cr_assert_str_eq(d.qname, "a\\001z");
	/* five labels of 63: 320 bytes, over the 255 a name may have */
	memset(label, 'x', 63);
	label[63] = '\0';
	header(&m, 0x0100, 0);
	for (i = 0; i < 5; i++) {
		uint8_t n = 63;

		put(&m, &n, 1);
		put(&m, label, 63);
	}
	put(&m, "", 1);
	put16(&m, 1);
	put16(&m, 1);
	cr_assert_eq(fp_dns_parse(m.b, m.n, false, &d), -EINVAL);
}

Test(dns, not_a_query)
{
	uint8_t b[11] = { 0 };
	struct fp_dns_msg d;
	char buf[16];

	cr_assert_eq(fp_dns_parse(b, sizeof(b), false, &d), -EINVAL);
	cr_assert_str_eq(fp_dns_type_name(28, buf, sizeof(buf)), "AAAA");
	cr_assert_str_eq(fp_dns_type_name(999, buf, sizeof(buf)), "TYPE999");
}
