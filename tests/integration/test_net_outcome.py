"""How a TCP connect ended (issue 29, item 6). curl connects non-blocking:
connect(2) returns EINPROGRESS and the connection is made, refused or
times out later, which the kernel side sees on the socket
(sock:inet_sock_set_state). The receipt's connection says how it ended
(outcome, ok, errno), and the events have a connect_outcome event for it;
every network event with a negative ret names its errno. Real curl to a
closed and to an open port of the test's namespace (test_net's Netns);
every run is replayed byte for byte (verdict_util.Env).
"""

import json
import os
import unittest

from test_net import PY, WEB, NetCase
from verdict_util import EXIT_OK, EXIT_VERDICT


class TestOutcome(NetCase):
    def curl(self, port, policy=None):
        events = os.path.join(self.env.out, "ev%d.ndjson" % self.env.n)
        res = self.run_fp(self.ns.cmd("curl", "-s", "-o", "/dev/null",
                                      "http://%s:%d/" % (WEB, port)),
                          policy=policy, opts=["--events", events])
        with open(events) as f:
            evs = [json.loads(line) for line in f]
        return res, [e for e in evs if e.get("address") == WEB and
                     e.get("port") == port]

    def test_curl_to_a_closed_port_is_refused(self):
        res, evs = self.curl(8081)
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        c = self.one_conn(res, address=WEB, port=8081)
        self.assertEqual(c["outcome"], "refused")
        self.assertIs(c["ok"], False)
        self.assertEqual(c["errno"], "ECONNREFUSED")
        self.assertIs(c["nonblocking"], True)
        self.assertIn("network.connected: tcp/%s:8081 by pid %d (refused)"
                      % (WEB, c["pid"]), res.r["reasons"])
        kinds = [(e["type"], e["ret"], e.get("errno"), e.get("outcome"))
                 for e in evs]
        self.assertEqual(kinds, [
            ("connect", -115, "EINPROGRESS", None),
            ("connect_outcome", -111, "ECONNREFUSED", "refused")], evs)
        self.assertEqual(evs[1]["pid"], evs[0]["pid"])

    def test_curl_to_an_open_port_is_established(self):
        res, evs = self.curl(8080, policy="allow connect tcp/%s:8080\n" %
                             WEB)
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        c = self.one_conn(res, address=WEB, port=8080)
        self.assertEqual(c["outcome"], "established")
        self.assertIs(c["ok"], True)
        self.assertNotIn("errno", c)
        self.assertIs(c["nonblocking"], True)
        self.assertEqual([(e["type"], e.get("outcome")) for e in evs],
                         [("connect", None),
                          ("connect_outcome", "established")], evs)
        self.assertNotIn("errno", evs[1])

    def test_blocking_and_unreachable_connects(self):
        # 10.77.0.9 is on v0's subnet, and nothing answers its ARP: the
        # non-blocking connect ends unreachable some seconds later
        code = ("import select, socket\n"
                "b = socket.socket()\n"
                "try:\n"
                "    b.connect(('%s', 8082))\n"
                "except ConnectionRefusedError:\n"
                "    print('refused')\n"
                "s = socket.socket()\n"
                "s.setblocking(False)\n"
                "assert s.connect_ex(('10.77.0.9', 80)) == 115\n"
                "select.select([], [s], [], 20)\n"
                "print(s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR))\n"
                % WEB)
        res = self.run_fp(self.ns.cmd(PY, "-c", code))
        self.assertEqual(res.out.split(), ["refused", "113"], res.describe())
        b = self.one_conn(res, address=WEB, port=8082)
        self.assertEqual((b["outcome"], b["errno"], b["ok"]),
                         ("refused", "ECONNREFUSED", False))
        self.assertNotIn("nonblocking", b)
        u = self.one_conn(res, address="10.77.0.9", port=80)
        self.assertEqual((u["outcome"], u["errno"], u["ok"]),
                         ("unreachable", "EHOSTUNREACH", False))
        self.assertIs(u["nonblocking"], True)

    def test_a_send_that_resolves_a_neighbour_is_named_by_its_route(self):
        # 10.77.0.9 is not resolved: the send asks ARP first, whose source
        # the kernel looks up in its local table on the sender's stack;
        # that lookup is not where the datagram went
        code = ("import socket\n"
                "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                "u.sendto(b'x', ('10.77.0.9', 9))\n")
        res = self.run_fp(self.ns.cmd(PY, "-c", code))
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        got = [(c["address"], c["port"], c["via"])
               for c in res.r["network"]["connected"]]
        self.assertEqual(got, [("10.77.0.9", 9, "sendto")], res.describe())
        self.assertTrue(res.r["trace"]["complete"])

    def test_ipv6_connects_and_accepts_name_the_whole_address(self):
        # the socket's own IPv6 peer, read whole (it was cut to its first
        # byte: "::" for ::1)
        code = ("import socket, time\n"
                "ls = socket.socket(socket.AF_INET6)\n"
                "ls.bind(('::1', 8093))\n"
                "ls.listen(1)\n"
                "c = socket.socket(socket.AF_INET6)\n"
                "c.connect(('::1', 8093))\n"
                "a, _ = ls.accept()\n"
                "n = socket.socket(socket.AF_INET6)\n"
                "n.setblocking(False)\n"
                "n.connect_ex(('::1', 8094))\n"
                "time.sleep(0.3)\n")
        res = self.run_fp(self.ns.cmd(PY, "-c", code),
                          policy="allow bind *:8093\n")
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        c = self.one_conn(res, address="::1", port=8093)
        self.assertEqual((c["family"], c["outcome"]), ("inet6", "established"))
        n = self.one_conn(res, address="::1", port=8094)
        self.assertEqual(n["outcome"], "refused")
        acc = res.r["network"]["accepted"]
        self.assertEqual([(a["address"], a["port"]) for a in acc],
                         [("::1", 8093)], res.describe())

    def test_a_v4_mapped_connect_is_its_ipv4_destination(self):
        # a dual-stack socket's connect to ::ffff:a.b.c.d goes out as IPv4:
        # reported as the kernel routed it, with its outcome
        code = ("import select, socket\n"
                "s = socket.socket(socket.AF_INET6)\n"
                "s.setblocking(False)\n"
                "s.connect_ex(('::ffff:%s', 8081))\n"
                "select.select([], [s], [], 5)\n"
                "print(s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR))\n"
                % WEB)
        res = self.run_fp(self.ns.cmd(PY, "-c", code))
        self.assertEqual(res.out.strip(), "111", res.describe())
        c = self.one_conn(res, address=WEB, port=8081)
        self.assertEqual((c["family"], c["outcome"], c["errno"]),
                         ("inet", "refused", "ECONNREFUSED"))


if __name__ == "__main__":
    unittest.main()
