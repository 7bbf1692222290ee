// SPDX-License-Identifier: GPL-2.0
/* netflow and judge_net: connections folded from events, named through the
 * run's DNS answers, counted, and judged */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "judge_net.h"
#include "netflow.h"
#include "unit_util.h"

static struct fp_netrec *N;
static struct fp_findings F;
static struct fp_policy P;
static struct fp_verdict V;
static struct fp_outcome O;
static uint64_t charged, budget;

static void setup(void)
{
	N = fp_netrec_new();
	cr_assert(N);
	memset(&O, 0, sizeof(O));
	charged = 0;
	budget = 0;
}

static void teardown(void)
{
	fp_netrec_free(N);
	fp_findings_free(&F);
	fp_policy_free(&P);
	fp_verdict_free(&V);
}

TestSuite(netflow, .init = setup, .fini = teardown, .timeout = 10);

static int charge(void *ctx, uint64_t cost)
{
	(void)ctx;
	if (budget && charged + cost > budget)
		return -EDQUOT;
	charged += cost;
	return 0;
}

static void feed(struct fp_event *ev)
{
	struct fp_actor who = { .pid = ev->pid };

	cr_assert_eq(fp_actor_own(&who, "/usr/bin/curl", 13, "curl", 5), 0);
	who.pid = ev->pid;
	cr_assert_eq(fp_netrec_feed(N, ev, &who, charge, NULL), 0);
	fp_actor_clear(&who);
}

static struct fp_event conn(uint32_t type, pid_t pid, const char *addr,
			    uint16_t port, int64_t ret, uint64_t count)
{
	struct fp_event ev = { .type = type, .pid = pid };

	ev.net.op = FP_NET_CONNECT;
	ev.net.family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	snprintf(ev.net.address, sizeof(ev.net.address), "%s", addr);
	ev.net.port = port;
	ev.net.sock_type = SOCK_STREAM;
	ev.net.protocol = 6;
	ev.net.ret = ret;
	ev.net.count = count;
	return ev;
}

/* an answer naming name's A record addr, as the kernel copies it */
static struct fp_event answer(pid_t pid, const char *name, const uint8_t a[4])
{
	struct fp_event ev = { .type = FP_EV_DNS, .pid = pid };
	uint8_t m[300] = { 0xbe, 0xef, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0 };
	size_t n = 12;
	const char *s = name;

	while (*s) {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);

		m[n++] = l;
		memcpy(m + n, s, l);
		n += l;
		s += l + (dot ? 1 : 0);
	}
	m[n++] = 0;
	memcpy(m + n, "\0\1\0\1\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4", 16);
	n += 16;
	memcpy(m + n, a, 4);
	n += 4;
	ev.dns.dir = FP_DNS_ANSWER;
	ev.dns.sock_type = SOCK_DGRAM;
	ev.dns.family = AF_INET;
	snprintf(ev.dns.server, sizeof(ev.dns.server), "127.0.0.1");
	ev.dns.port = 53;
	ev.dns.total = n;
	ev.dns.data = bytes((const char *)m, n);
	return ev;
}

static void policy(const char *line)
{
	policy_rule(&P, NULL, 0, line);
}

static const struct fp_conn_finding *connected(size_t i)
{
	cr_assert_lt(i, F.connected.n);
	return &((const struct fp_conn_finding *)F.connected.v)[i];
}

Test(netflow, counts_of_one_destination_add_up)
{
	struct fp_event a = conn(FP_EV_NET, 10, "10.0.0.1", 443, 0, 1);
	struct fp_event b = conn(FP_EV_NET_COUNT, 10, "10.0.0.1", 443, 0, 999);
	struct fp_event c = conn(FP_EV_NET, 10, "10.0.0.1", 443, -111, 1);

	feed(&a);
	feed(&b);
	feed(&c);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(F.connected.n, 2, "one per result");
	cr_assert_eq(connected(0)->count + connected(1)->count, 1001);
	cr_assert(connected(0)->count == 1000 || connected(1)->count == 1000);
	cr_assert_str_eq(connected(0)->who.exe.data, "/usr/bin/curl");
}

Test(netflow, answers_name_the_connection_and_rules_match_the_name)
{
	static const uint8_t ip[4] = { 140, 82, 112, 3 };
	struct fp_event q = answer(7, "API.GitHub.com", ip);
	struct fp_event d = answer(7, "API.GitHub.com", ip);
	struct fp_event k = answer(0, "API.GitHub.com", ip);
	struct fp_event a = conn(FP_EV_NET, 7, "140.82.112.3", 443, -115, 1);
	char line[200];

	/* the query, the answer read and its kernel copy (dns_trust.h;
	 * test_dns_trust.c has the answers that may not name) */
	q.dns.dir = FP_DNS_QUERY;
	q.dns.data.data[2] = 0x01; /* not a response */
	k.dns.dir = FP_DNS_DELIVERED;
	q.dns.sock = d.dns.sock = k.dns.sock = 5;
	feed(&q);
	feed(&k);
	feed(&d);
	fp_event_free(&q);
	fp_event_free(&k);
	fp_event_free(&d);
	feed(&a);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_str_eq(connected(0)->names.data, "api.github.com");
	fp_conn_display(connected(0), line, sizeof(line));
	cr_assert_str_eq(line, "tcp/api.github.com (140.82.112.3):443");
	cr_assert_eq(F.dns.n, 1);
	policy("allow connect tcp/*.github.com:443");
	cr_assert_eq(fp_judge_netflow(&P, &F, &O, &V), 0);
	cr_assert(connected(0)->allowed);
	cr_assert_not(connected(0)->failing);
	cr_assert_eq(V.failing, 0);
}

Test(netflow, other_destinations_fail_loopback_does_not)
{
	struct fp_event a = conn(FP_EV_NET, 7, "192.0.2.9", 80, 0, 1);
	struct fp_event b = conn(FP_EV_NET, 7, "127.0.0.53", 53, 0, 1);
	struct fp_event c = conn(FP_EV_NET, 7, "::1", 80, 0, 1);

	feed(&a);
	feed(&b);
	feed(&c);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(fp_judge_netflow(&P, &F, &O, &V), 0);
	cr_assert_eq(V.failing, 1);
	cr_assert_str_eq(((char **)V.reasons.v)[0],
			 "network.connected: tcp/192.0.2.9:80 by pid 7");
}

Test(netflow, forbid_wins_and_ignore_drops)
{
	struct fp_event a = conn(FP_EV_NET, 7, "127.0.0.1", 80, 0, 1);
	struct fp_event b = conn(FP_EV_NET, 7, "192.0.2.9", 25, 0, 1);

	feed(&a);
	feed(&b);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	policy("ignore connect tcp/192.0.2.9:*");
	policy("forbid connect tcp/127.*");
	cr_assert_eq(fp_judge_netflow(&P, &F, &O, &V), 0);
	cr_assert_eq(F.connected.n, 1);
	cr_assert(connected(0)->forbidden);
	cr_assert_eq(V.failing, 1);
}

Test(netflow, dns_names_are_an_allowlist_once_one_is_allowed)
{
	static const uint8_t ip[4] = { 10, 0, 0, 1 };
	struct fp_event d1 = answer(7, "a.example.org", ip);
	struct fp_event d2 = answer(7, "b.example.net", ip);
	struct fp_event d3 = answer(7, "localhost", ip);

	feed(&d1);
	feed(&d2);
	feed(&d3);
	fp_event_free(&d1);
	fp_event_free(&d2);
	fp_event_free(&d3);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(fp_judge_netflow(&P, &F, &O, &V), 0);
	cr_assert_eq(V.failing, 0, "no dns rule: reported only");
	fp_verdict_free(&V);
	policy("allow dns *.example.org");
	cr_assert_eq(fp_judge_netflow(&P, &F, &O, &V), 0);
	cr_assert_eq(V.failing, 1);
	cr_assert_str_eq(((char **)V.reasons.v)[0],
			 "network.dns: b.example.net looked up by pid 7");
}

Test(netflow, unparsable_dns_is_counted_not_kept)
{
	struct fp_event ev = { .type = FP_EV_DNS, .pid = 3 };

	ev.dns.dir = FP_DNS_ANSWER;
	ev.dns.data = bytes("garbage", 7);
	feed(&ev);
	fp_event_free(&ev);
	cr_assert_eq(fp_netrec_unparsed(N), 1);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(F.dns.n, 0);
}

Test(netflow, the_budget_keeps_new_records_out)
{
	struct fp_event a = conn(FP_EV_NET, 7, "192.0.2.9", 80, 0, 1);
	struct fp_actor who = { .pid = 7 };

	budget = 10;
	cr_assert_eq(fp_netrec_feed(N, &a, &who, charge, NULL), -EDQUOT);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(F.connected.n, 0);
}

Test(netflow, resolver_socket_hides_names)
{
	struct fp_event ev = { .type = FP_EV_NET, .pid = 5 };
	static const char path[] = "/run/systemd/resolve/io.systemd.Resolve";

	ev.net.op = FP_NET_CONNECT;
	ev.net.family = AF_UNIX;
	ev.net.count = 1;
	ev.net.unix_path = bytes(path, sizeof(path) - 1);
	feed(&ev);
	ev.net.ret = -2; /* a failed try does not hide anything */
	ev.net.unix_path.data[5] = 'X';
	feed(&ev);
	fp_event_free(&ev);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(F.connected.n, 2);
	/* sorted by path: "/run/X..." first */
	cr_assert_null(connected(0)->resolver);
	cr_assert_eq(connected(0)->ret, -2);
	cr_assert_str_eq(connected(1)->resolver ?: "", "systemd-resolved");
	cr_assert(connected(1)->loopback);
}

Test(netflow, udp_connect_to_port_0_sends_nothing_and_does_not_fail)
{
	struct fp_event a = conn(FP_EV_NET, 7, "192.0.2.9", 0, 0, 1);
	struct fp_event b = conn(FP_EV_NET, 7, "192.0.2.9", 0, 0, 1);

	a.net.sock_type = SOCK_DGRAM;
	a.net.protocol = 17;
	feed(&a);
	feed(&b); /* TCP to port 0: still judged */
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(fp_judge_netflow(&P, &F, &O, &V), 0);
	cr_assert_eq(F.connected.n, 2);
	cr_assert_eq(V.failing, 1);
	cr_assert_str_eq(((char **)V.reasons.v)[0],
			 "network.connected: tcp/192.0.2.9:0 by pid 7");
}

/* how a non-blocking connect ended: the kernel's FP_NET_OUTCOME, as an
 * event of its own under the connecting process */
static struct fp_event outcome(pid_t pid, const char *addr, uint16_t port,
			       int64_t ret, uint64_t count)
{
	struct fp_event ev = conn(FP_EV_NET, pid, addr, port, ret, count);

	ev.net.op = FP_NET_OUTCOME;
	return ev;
}

Test(netflow, a_refused_nonblocking_connect_is_refused_not_in_progress)
{
	struct fp_event o = outcome(7, "192.0.2.9", 81, -ECONNREFUSED, 1);
	struct fp_event a =
		conn(FP_EV_NET, 7, "192.0.2.9", 81, -EINPROGRESS, 1);
	int64_t res;

	/* either order: the outcome may be read before its connect */
	feed(&o);
	feed(&a);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(F.connected.n, 1, "an outcome is no connection");
	cr_assert_str_eq(fp_conn_outcome(connected(0), &res), "refused");
	cr_assert_eq(res, -ECONNREFUSED);
	cr_assert_eq(fp_conn_outcome_unknown(connected(0)), 0);
	cr_assert_eq(fp_judge_netflow(&P, &F, &O, &V), 0);
	cr_assert_str_eq(
		((char **)V.reasons.v)[0],
		"network.connected: tcp/192.0.2.9:81 by pid 7 (refused)");
}

Test(netflow, outcomes_of_one_destination_are_told_apart)
{
	struct fp_event a =
		conn(FP_EV_NET, 7, "192.0.2.9", 80, -EINPROGRESS, 1);
	struct fp_event c =
		conn(FP_EV_NET_COUNT, 7, "192.0.2.9", 80, -EINPROGRESS, 3);
	struct fp_event e = outcome(7, "192.0.2.9", 80, 0, 1);
	struct fp_event r = outcome(7, "192.0.2.9", 80, -ECONNREFUSED, 1);
	struct fp_event rc = outcome(7, "192.0.2.9", 80, -ECONNREFUSED, 1);
	struct fp_event other = outcome(8, "192.0.2.9", 80, -ETIMEDOUT, 1);
	struct fp_event b = conn(FP_EV_NET, 7, "192.0.2.9", 80, 0, 1);
	int64_t res;

	rc.type = FP_EV_NET_COUNT;
	feed(&a);
	feed(&e);
	feed(&r);
	feed(&rc);
	feed(&other); /* another process's: not this connection's */
	feed(&b); /* a blocking connect: its result is its outcome */
	feed(&c);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(F.connected.n, 2);
	/* sorted by result: the blocking one (0) after -EINPROGRESS */
	cr_assert_eq(connected(0)->count, 4);
	cr_assert_str_eq(fp_conn_outcome(connected(0), &res), "mixed");
	cr_assert_eq(res, -EINPROGRESS);
	cr_assert_eq(fp_conn_outcome_unknown(connected(0)), 1);
	cr_assert_str_eq(fp_conn_outcome(connected(1), &res), "established");
	cr_assert_eq(res, 0);
}

Test(netflow, only_tcp_connects_have_an_outcome)
{
	struct fp_event u =
		conn(FP_EV_NET, 7, "192.0.2.9", 53, -EINPROGRESS, 1);
	struct fp_event s = conn(FP_EV_NET, 7, "192.0.2.9", 53, 0, 1);
	int64_t res;

	u.net.sock_type = SOCK_DGRAM;
	u.net.protocol = 17;
	s.net.op = FP_NET_SENDTO;
	feed(&u);
	feed(&s);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(F.connected.n, 2);
	cr_assert_null(fp_conn_outcome(connected(0), &res));
	cr_assert_null(fp_conn_outcome(connected(1), &res));
	cr_assert_str_eq(fp_conn_outcome_name(-ETIMEDOUT), "timed_out");
	cr_assert_str_eq(fp_conn_outcome_name(-EHOSTUNREACH), "unreachable");
	cr_assert_str_eq(fp_conn_outcome_name(-ECONNABORTED), "closed");
	cr_assert_str_eq(fp_conn_outcome_name(-EPERM), "failed");
}

static struct fp_event unix_conn(uint32_t op, const char *path, size_t len,
				 int64_t ret)
{
	struct fp_event ev = { .type = FP_EV_NET, .pid = 7 };

	ev.net.op = op;
	ev.net.family = AF_UNIX;
	ev.net.sock_type = SOCK_STREAM;
	ev.net.ret = ret;
	ev.net.count = 1;
	cr_assert_eq(fp_bytes_dup(&ev.net.unix_path, path, len), 0);
	return ev;
}

Test(netflow, no_network_fails_a_reached_host_unix_socket)
{
	struct fp_event docker =
		unix_conn(FP_NET_CONNECT, "/run/docker.sock", 16, 0);
	struct fp_event agent =
		unix_conn(FP_NET_CONNECT, "/tmp/ssh-x/agent.1", 18, 0);
	struct fp_event gone =
		unix_conn(FP_NET_CONNECT, "/run/nscd/socket", 16, -ENOENT);
	struct fp_event abstr = unix_conn(FP_NET_CONNECT, "\0box", 4, 0);
	struct fp_event log = unix_conn(FP_NET_SENDTO, "/dev/log", 8, 0);

	feed(&docker);
	feed(&agent);
	feed(&gone);
	feed(&abstr);
	feed(&log);
	fp_event_free(&docker);
	fp_event_free(&agent);
	fp_event_free(&gone);
	fp_event_free(&abstr);
	fp_event_free(&log);
	cr_assert_eq(fp_netrec_findings(N, &F), 0);
	cr_assert_eq(fp_judge_netflow(&P, &F, &O, &V), 0);
	cr_assert_eq(V.failing, 0, "outside a box a unix socket is local");
	fp_verdict_free(&V);
	O.no_network = true;
	policy("allow connect unix//tmp/ssh-*/agent.*");
	cr_assert_eq(fp_judge_netflow(&P, &F, &O, &V), 0);
	/* docker.sock and /dev/log; not the refused nscd, the abstract name
	 * (the box's own namespace) or the allowed agent */
	cr_assert_eq(V.failing, 2);
	cr_assert_str_eq(
		((char **)V.reasons.v)[0],
		"network.connected: unix//dev/log by pid 7 (a host socket, out of --no-network)");
	cr_assert_str_eq(
		((char **)V.reasons.v)[1],
		"network.connected: unix//run/docker.sock by pid 7 (a host socket, out of --no-network)");
}
