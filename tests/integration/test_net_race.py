"""Destinations the kernel used, not what the caller's memory says at the
syscall's exit (issue 28, High 2).

A second thread of the command rewrites the sockaddr of a connect() while
the call waits, or flips the address of a sendto()'s, sendmsg()'s or
sendmmsg()'s sockaddr between a real destination and a loopback decoy all
the while (netrace.c). The kernel copied the sockaddr when the call
started: that is where the data went, and the receipt must say so, with
the exact counts the receivers got. All of it in the network namespace of
test_net (Netns), nothing leaves the machine; every run is replayed byte
for byte (verdict_util.Env).
"""

import os
import subprocess
import unittest

from test_net import PY, WEB, NetCase
from verdict_util import EXIT_VERDICT

BIN = os.environ.get("FOOTPRINT_TEST_BIN") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "tests")
NETRACE = os.path.join(BIN, "netrace")
DECOY = "127.0.0.1"

# A TCP listener whose accept queue is full (backlog 0, one connection of
# its own queued): the next SYN is dropped, and its connect() waits for
# the retransmission a second later. A datagram on the control port makes
# room; the connection that then comes gets "world" for its "hello".
SLOW_SERVER = r"""
import socket, sys
host, port, ctl = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind((host, port))
ls.listen(0)
filler = socket.socket()
filler.connect((host, port))
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
c.bind(("127.0.0.1", ctl))
print("ready", flush=True)
c.recv(16)
ls.accept()[0].close()
conn, peer = ls.accept()
data = conn.recv(5)
conn.sendall(b"world")
print("got %s from %s" % (data.decode(), peer[0]), flush=True)
"""

# UDP receivers that count what reaches each address; the counts on
# SIGTERM-free exit: they stop after a second of silence once started.
COUNTER = r"""
import select, socket, sys
port = int(sys.argv[1])
socks = []
for a in sys.argv[2:]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, 33, 1 << 25)  # SO_RCVBUFFORCE
    s.bind((a, port))
    socks.append(s)
n = [0] * len(socks)
print("ready", flush=True)
started = False
while True:
    r, _, _ = select.select(socks, [], [], 1.0 if started else 60)
    if not r:
        break
    started = True
    for s in r:
        while True:
            try:
                s.recv(16, socket.MSG_DONTWAIT)
            except BlockingIOError:
                break
            n[socks.index(s)] += 1
print(" ".join(map(str, n)), flush=True)
"""


class TestRace(NetCase):
    def setUp(self):
        super().setUp()
        if not os.access(NETRACE, os.X_OK):
            self.fail("%s is not built; run scripts/build" % NETRACE)

    def test_connect_judged_by_where_it_went_not_by_rewritten_memory(self):
        srv = subprocess.Popen(
            self.ns.enter() + [PY, "-c", SLOW_SERVER, WEB, "8090", "8091"],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.addCleanup(srv.kill)
        self.assertEqual(srv.stdout.readline().strip(), b"ready")
        res = self.run_fp([NETRACE, "connect", WEB, "8090", DECOY, "8091"])
        got = srv.stdout.readline().decode()
        srv.wait(10)
        srv.stdout.close()
        # the data went to the real address ...
        self.assertIn("connected", res.out, res.describe())
        self.assertEqual(got.strip(), "got hello from %s" % WEB)
        # ... while the sockaddr in memory names the decoy at the exit
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        c = self.one_conn(res, address=WEB, port=8090)
        self.assertEqual(c["via"], "connect")
        self.assertEqual(c["outcome"], "established")
        self.assertTrue(c["failing"])
        self.assertEqual(self.conns(res, address=DECOY, port=8090), [],
                         res.describe())
        self.assertIn("network.connected: tcp/%s:8090 by pid" % WEB,
                      "\n".join(res.r["reasons"]))

    def counted(self, how, n):
        """netrace HOW to WEB:9200 (or the decoy), with the receivers'
        counts: (result, count at WEB, count at the decoy)."""
        rcv = subprocess.Popen(
            self.ns.enter() + [PY, "-c", COUNTER, "9200", WEB, DECOY],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.addCleanup(rcv.kill)
        self.assertEqual(rcv.stdout.readline().strip(), b"ready")
        res = self.run_fp([NETRACE, how, WEB, DECOY, "9200", str(n)])
        counts = rcv.stdout.readline().split()
        rcv.wait(30)
        rcv.stdout.close()
        return res, int(counts[0]), int(counts[1])

    def rewritten_in_every_call(self, how):
        """Each call's sockaddr is rewritten to the decoy while the call
        copies its payload (netrace's userfaultfd): every datagram went to
        WEB, and every call ended with the decoy in memory."""
        res, real, decoy = self.counted(how, 500)
        self.assertEqual(res.out.strip(), "500", res.describe())
        self.assertEqual((real, decoy), (500, 0))
        self.assertTrue(res.r["trace"]["complete"], res.describe())
        self.assertEqual(self.one_conn(res, address=WEB, port=9200)["count"],
                         500)
        self.assertEqual(self.conns(res, address=DECOY, port=9200), [],
                         res.describe())
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())

    def test_sendto_rewritten_during_each_call(self):
        self.rewritten_in_every_call("sendto-fault")

    def test_sendmsg_rewritten_during_each_call(self):
        self.rewritten_in_every_call("sendmsg-fault")

    def flip(self, how, n, per_call=1):
        """netrace HOW with the first sockaddr flipping between WEB and
        the decoy; the receipt's counts must be the receivers'."""
        res, real, decoy = self.counted(how, n)
        self.assertEqual(res.out.strip(), str(n * per_call), res.describe())
        self.assertEqual(real + decoy, n * per_call, "a datagram was dropped")
        self.assertTrue(res.r["trace"]["complete"], res.describe())
        got = {c["address"]: c["count"] for c in self.conns(res, port=9200)}
        self.assertEqual(got, {WEB: real, DECOY: decoy}, res.describe())
        # the thread flipped fast enough to send to both
        self.assertGreater(real, 0)
        self.assertGreater(decoy, 0)
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        return res

    def test_sendto_counts_are_where_each_datagram_went(self):
        self.flip("sendto", 20000)

    def test_sendmsg_counts_are_where_each_datagram_went(self):
        self.flip("sendmsg", 20000)

    def test_sendmmsg_counts_every_message_where_it_went(self):
        # the second message always goes to the decoy: at least n there
        res = self.flip("sendmmsg", 10000, per_call=2)
        decoy = [c for c in self.conns(res, address=DECOY, port=9200)]
        self.assertGreaterEqual(decoy[0]["count"], 10000)


if __name__ == "__main__":
    unittest.main()
