"""Binds of sockets that open no port (netlink) and of families footprint
has no address syntax for (packet).

glibc's getaddrinfo binds a netlink socket to learn the machine's
addresses; that reaches the kernel only and must not fail a run. A packet
socket's bind is reported, named "packet/", and fails by default. Each run
is in a network namespace of its own (unshare -n), so listeners other
suites open on the host do not reach the verdict; every run is recorded
and replayed byte for byte (verdict_util.Env.run).
"""

import os
import shutil
import subprocess
import sys
import unittest

from verdict_util import EXIT_OK, EXIT_VERDICT, Env, cannot_test

PY = sys.executable
NETLINK_BIND = ("import socket\n"
                "s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)\n"
                "s.bind((0, 0))\n")
PACKET_BIND = ("import socket\n"
               "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)\n"
               "s.bind(('lo', 0))\n")


def events(path):
    import json
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class BindFamily(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            cannot_test("needs root")
        for prog in ("unshare", "getent", "strace"):
            if not shutil.which(prog):
                cannot_test("needs %s" % prog)
        self.env = Env(self)
        self.root = self.env.root()

    def run_fp(self, cmd, opts=()):
        self.evpath = os.path.join(self.env.out, "ev%d.ndjson" % self.env.n)
        return self.env.run(cmd, roots=[self.root],
                            opts=["--events", self.evpath] + list(opts),
                            wrapper=["unshare", "-n"], cwd=self.root)

    def binds(self, family):
        return [e for e in events(self.evpath)
                if e.get("type") == "bind" and e.get("family") == family]

    def test_netlink_bind_is_not_a_bound_port(self):
        res = self.run_fp([PY, "-c", NETLINK_BIND])
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        self.assertEqual(res.r["network"]["bound"], [], res.describe())
        # traced and kept in the events, only not a finding
        self.assertEqual(len(self.binds("netlink")), 1, res.describe())

    def test_getent_lookup_netlink_bind_does_not_fail(self):
        st = subprocess.run(["strace", "-f", "-e", "trace=bind", "getent",
                             "ahosts", "localhost"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        want = st.stderr.decode().count("bind(")
        if "AF_NETLINK" not in st.stderr.decode():
            cannot_test("this glibc's getaddrinfo binds no netlink socket")
        res = self.run_fp(["getent", "ahosts", "localhost"])
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        self.assertEqual(res.r["network"]["bound"], [], res.describe())
        self.assertEqual(len(self.binds("netlink")), want, res.describe())

    def test_packet_bind_is_named_and_fails(self):
        res = self.run_fp([PY, "-c", PACKET_BIND])
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        bound = res.r["network"]["bound"]
        self.assertEqual(len(bound), 1, res.describe())
        self.assertEqual(bound[0]["family"], "other")
        self.assertEqual(bound[0]["port"], 0)
        self.assertFalse(bound[0]["allowed"])
        self.assertIn(b"network.bound packet/", res.stderr)
        self.assertNotIn(b"ip/:0", res.stderr)

    def test_packet_bind_allowed_by_family_rule(self):
        pol = os.path.join(self.env.out, "packet.policy")
        with open(pol, "w") as f:
            f.write("allow bind packet/*\n")
        res = self.run_fp([PY, "-c", PACKET_BIND], opts=["--policy", pol])
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        self.assertTrue(res.r["network"]["bound"][0]["allowed"])


if __name__ == "__main__":
    unittest.main()
