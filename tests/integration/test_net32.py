"""32-bit network calls (issue 28, High 1): a program that sends and
connects through the i386 int $0x80 entry, by the socketcall(2)
multiplexer and by the direct socket syscalls (net32.c), is traced as a
64-bit one would be: every destination in the receipt and the events,
with its count, sendmmsg's messages each. A 32-bit file syscall is still
only counted, and the message for it says so, not "try a larger
--ring-size". In the network namespace of test_net; every run is
replayed byte for byte (verdict_util.Env).
"""

import json
import os
import unittest

import fptest
from test_net import WEB, NetCase
from verdict_util import EXIT_VERDICT

class TestNet32(NetCase):
    def test_every_32bit_socket_call_is_traced(self):
        prog = fptest.build_i386(self, "net32", self.env.base)
        events = os.path.join(self.env.out, "events.ndjson")
        res = self.run_fp([prog, WEB, "9300", "8080", "8081"],
                          opts=["--events", events])
        self.assertIn("connect 0", res.out, res.describe())
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        self.assertTrue(res.r["trace"]["complete"], res.describe())
        got = sorted((c["via"], c["protocol"], c["port"], c["count"],
                      c.get("errno"), c.get("outcome"))
                     for c in self.conns(res, address=WEB))
        want = sorted([("sendto", "udp", 9300 + i, 1, None, None)
                       for i in range(8)] +
                      [("connect", "udp", 9308, 1, None, None),
                       ("connect", "tcp", 8080, 1, None, "established"),
                       ("connect", "tcp", 8081, 1, "ECONNREFUSED",
                        "refused")])
        self.assertEqual(got, want, res.describe())
        for c in self.conns(res, address=WEB):
            self.assertTrue(c["failing"], c)
        bound = [(b["address"], b["protocol"]) for b in
                 res.r["network"]["bound"] if b["pid"] == c["pid"]]
        self.assertEqual(bound, [(WEB, "udp")], res.describe())
        with open(events) as f:
            evs = [json.loads(line) for line in f]
        stats = evs[-1]
        self.assertEqual(stats["type"], "stats")
        self.assertEqual((stats["lost"], stats["lost_compat"]), (0, 0))
        net = [e for e in evs if e["type"] in ("sendto", "connect") and
               e.get("address") == WEB]
        self.assertEqual(len(net), 11, net)
        refused = [e for e in net if e.get("port") == 8081]
        self.assertEqual((refused[0]["ret"], refused[0]["errno"]),
                         (-111, "ECONNREFUSED"))

    def test_a_32bit_file_call_is_lost_without_ring_advice(self):
        prog = fptest.build_i386(self, "rename32", self.env.base)
        src = os.path.join(self.root, "a")
        with open(src, "w") as f:
            f.write("x\n")
        res = self.run_fp([prog, src, os.path.join(self.root, "b")],
                          opts=["--allow", "*"])
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        self.assertFalse(res.r["trace"]["complete"])
        self.assertIn("32-bit (int $0x80) file syscalls could not be "
                      "decoded", res.err)
        self.assertNotIn("ring-size", res.err)


if __name__ == "__main__":
    unittest.main()
