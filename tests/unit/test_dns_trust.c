// SPDX-License-Identifier: GPL-2.0
/* dns_trust: which answers may name an address, through netflow's feed */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "netflow.h"
#include "unit_util.h"

#define NAME "api.github.com"
#define ADDR "140.82.112.3"
#define SOCK 4242
#define ID 0x1234

static struct fp_netrec *N;
static struct fp_findings F;

static void setup(void)
{
	N = fp_netrec_new();
	cr_assert(N);
}

static void teardown(void)
{
	fp_netrec_free(N);
	fp_findings_free(&F);
}

TestSuite(dns_trust, .init = setup, .fini = teardown, .timeout = 10);

static int charge(void *ctx, uint64_t cost)
{
	(void)ctx;
	(void)cost;
	return 0;
}

static void feed(struct fp_event *ev)
{
	struct fp_actor who = { 0 };

	cr_assert_eq(fp_actor_own(&who, "/usr/bin/curl", 13, "curl", 5), 0);
	who.pid = ev->pid;
	cr_assert_eq(fp_netrec_feed(N, ev, &who, charge, NULL), 0);
	fp_actor_clear(&who);
	fp_event_free(ev);
}

/*
 * A DNS message about NAME with id: a query, or an answer with ADDR, on
 * socket sock, to or from server:port.
 */
static struct fp_event msg(uint32_t dir, uint32_t sock, uint16_t id,
			   const char *server, uint16_t port, int stream)
{
	static const uint8_t q[] = "\3api\6github\3com";
	struct fp_event ev = { .type = FP_EV_DNS,
			       .pid = dir == FP_DNS_DELIVERED ? 0 : 7 };
	uint8_t m[300] = {
		id >> 8, id & 0xff, 0x01, 0, 0, 1, 0, 0, 0, 0, 0, 0
	};
	size_t n = 12;

	memcpy(m + n, q, sizeof(q));
	n += sizeof(q);
	memcpy(m + n, "\0\1\0\1", 4);
	n += 4;
	if (dir != FP_DNS_QUERY) {
		m[2] = 0x81;
		m[3] = 0x80;
		m[7] = 1;
		memcpy(m + n, "\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4\x8c\x52\x70\x03",
		       16);
		n += 16;
	}
	ev.dns.dir = dir;
	ev.dns.sock = sock;
	ev.dns.sock_type = stream ? SOCK_STREAM : SOCK_DGRAM;
	ev.dns.family = strchr(server, ':') ? AF_INET6 : AF_INET;
	snprintf(ev.dns.server, sizeof(ev.dns.server), "%s", server);
	ev.dns.port = port;
	ev.dns.total = n;
	ev.dns.data = bytes((const char *)m, n);
	return ev;
}

/* a lookup: the query, and the answer read, as glibc makes them */
static void lookup(void)
{
	struct fp_event q = msg(FP_DNS_QUERY, SOCK, ID, "127.0.0.1", 53, 0);
	struct fp_event a = msg(FP_DNS_ANSWER, SOCK, ID, "127.0.0.1", 53, 0);

	feed(&q);
	feed(&a);
}

static void delivered(uint32_t sock, uint16_t id, const char *from,
		      uint16_t port, uint32_t flags)
{
	struct fp_event d = msg(FP_DNS_DELIVERED, sock, id, from, port, 0);

	d.dns.flags = flags;
	feed(&d);
}

static void connect_to_addr(void)
{
	struct fp_event ev = { .type = FP_EV_NET, .pid = 7 };

	ev.net.op = FP_NET_CONNECT;
	ev.net.family = AF_INET;
	snprintf(ev.net.address, sizeof(ev.net.address), ADDR);
	ev.net.port = 443;
	ev.net.sock_type = SOCK_STREAM;
	ev.net.protocol = 6;
	ev.net.count = 1;
	feed(&ev);
}

static void bound(const char *addr, uint16_t port)
{
	struct fp_event ev = { .type = FP_EV_BIND, .pid = 8 };

	ev.bind.family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	snprintf(ev.bind.address, sizeof(ev.bind.address), "%s", addr);
	ev.bind.port = port;
	ev.bind.bound_port = port;
	cr_assert_eq(fp_netrec_bound(N, &ev, charge, NULL), 0);
}

static const struct fp_conn_finding *conn(void)
{
	if (!F.connected.n)
		cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(F.connected.n, 1);
	return F.connected.v;
}

/* the connection has no name, and NAME untrusted for why */
static void untrusted(const char *why)
{
	const struct fp_conn_finding *c = conn();

	cr_assert_eq(c->names.len, 0, "named %s", c->names.data);
	cr_assert(c->unverified.data);
	cr_assert_str_eq(c->unverified.data, NAME);
	cr_assert_str_eq(c->unverified.data + strlen(NAME) + 1, why);
	cr_assert_eq(c->unverified.len, strlen(NAME) + strlen(why) + 2);
}

Test(dns_trust, the_servers_answer_to_the_query_names)
{
	lookup();
	delivered(SOCK, ID, "127.0.0.1", 53, 0);
	connect_to_addr();
	cr_assert_str_eq(conn()->names.data, NAME);
	cr_assert_eq(conn()->unverified.len, 0);
}

Test(dns_trust, a_v4_server_of_a_v6_socket_is_the_same)
{
	struct fp_event q =
		msg(FP_DNS_QUERY, SOCK, ID, "::ffff:127.0.0.1", 53, 0);

	feed(&q);
	delivered(SOCK, ID, "127.0.0.1", 53, 0);
	connect_to_addr();
	cr_assert_str_eq(conn()->names.data, NAME);
}

Test(dns_trust, an_answer_read_without_its_kernel_copy_names_nothing)
{
	/* a log of an older footprint has only what the command read */
	lookup();
	connect_to_addr();
	untrusted("not_read");
}

Test(dns_trust, an_answer_over_tcp_names_nothing)
{
	struct fp_event a = msg(FP_DNS_ANSWER, SOCK, ID, "127.0.0.1", 53, 1);

	feed(&a);
	connect_to_addr();
	untrusted("tcp");
}

Test(dns_trust, the_runs_own_server_names_nothing)
{
	lookup();
	bound("127.0.0.1", 53);
	delivered(SOCK, ID, "127.0.0.1", 53, 0);
	connect_to_addr();
	untrusted("own_server");
}

Test(dns_trust, a_server_bound_to_any_address_is_the_runs_too)
{
	lookup();
	bound("::", 53);
	delivered(SOCK, ID, "127.0.0.1", 53, 0);
	connect_to_addr();
	untrusted("own_server");
}

Test(dns_trust, a_bind_elsewhere_does_not_matter)
{
	lookup();
	bound("127.0.0.1", 5353);
	bound("127.0.0.2", 53);
	delivered(SOCK, ID, "127.0.0.1", 53, 0);
	connect_to_addr();
	cr_assert_str_eq(conn()->names.data, NAME);
}

Test(dns_trust, a_wrong_id_names_nothing)
{
	lookup();
	delivered(SOCK, ID + 1, "127.0.0.1", 53, 0);
	connect_to_addr();
	untrusted("wrong_id");
}

Test(dns_trust, another_socket_names_nothing)
{
	lookup();
	delivered(SOCK + 1, ID, "127.0.0.1", 53, 0);
	connect_to_addr();
	untrusted("no_query");
}

Test(dns_trust, another_server_names_nothing)
{
	lookup();
	delivered(SOCK, ID, "127.0.0.2", 53, 0);
	connect_to_addr();
	untrusted("other_server");
}

Test(dns_trust, another_port_names_nothing)
{
	lookup();
	delivered(SOCK, ID, "127.0.0.1", 5353, 0);
	connect_to_addr();
	untrusted("other_server");
}

Test(dns_trust, a_user_namespaces_network_names_nothing)
{
	lookup();
	delivered(SOCK, ID, "127.0.0.1", 53, FP_DNS_F_USERNS);
	connect_to_addr();
	untrusted("user_netns");
}

Test(dns_trust, a_forged_answer_beside_the_real_one_takes_nothing_away)
{
	lookup();
	delivered(SOCK, ID + 1, "127.0.0.1", 53, 0);
	delivered(SOCK, ID, "127.0.0.1", 53, 0);
	connect_to_addr();
	cr_assert_str_eq(conn()->names.data, NAME);
	cr_assert_eq(conn()->unverified.len, 0);
}

Test(dns_trust, a_query_without_a_socket_matches_nothing)
{
	struct fp_event q = msg(FP_DNS_QUERY, 0, ID, "127.0.0.1", 53, 0);

	feed(&q);
	delivered(0, ID, "127.0.0.1", 53, 0);
	connect_to_addr();
	untrusted("no_query");
}
