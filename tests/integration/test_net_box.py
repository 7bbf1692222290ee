"""--no-network and the host's unix sockets (issue 28, Low).

A scratch box with --no-network has a network namespace of its own, but
a pathname unix socket is a file: the box still reaches a host daemon's
(an ssh-agent, docker.sock) through the overlay of its tree. Such a
connect that reached the socket fails the verdict unless a connect rule
allows it; a refused one, and a box without --no-network, do not fail for
it. footprint runs as root the way sudo starts it, the command as the
invoking user nobody (test_scratch's ScratchCase); the receipts are
replayed byte for byte.
"""

import os
import socket
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402

import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, EXIT_VERDICT, PY  # noqa: E402
from test_scratch import ScratchCase  # noqa: E402


def setUpModule():
    su.check_binary()


class Daemon:
    """A host daemon's unix socket, which any user may connect to: it
    answers "pong" to whatever it is sent."""

    def __init__(self, test):
        self.dir = tempfile.mkdtemp(prefix="fpdaemon-")
        os.chmod(self.dir, 0o755)
        self.path = os.path.join(self.dir, "daemon.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        os.chmod(self.path, 0o666)
        self.sock.listen(8)
        self.served = 0
        t = threading.Thread(target=self.serve, daemon=True)
        t.start()
        test.addCleanup(self.close)

    def serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with c:
                if c.recv(16):
                    c.sendall(b"pong")
                    self.served += 1

    def close(self):
        self.sock.close()
        os.unlink(self.path)
        os.rmdir(self.dir)


PROBE = ("import socket, sys\n"
         "s = socket.socket(socket.AF_UNIX)\n"
         "try:\n"
         "    s.connect(sys.argv[1])\n"
         "except OSError as e:\n"
         "    print('refused', e.errno)\n"
         "    sys.exit(0)\n"
         "s.sendall(b'ping')\n"
         "print(s.recv(4).decode())\n")


class TestNoNetworkUnix(ScratchCase):
    def probe(self, name, path, extra=()):
        rc, err, r, _ = self.scratch_run(name, [PY, "-c", PROBE, path],
                                         list(extra))
        self.assertReplaySame(name)
        conns = [c for c in r["network"]["connected"]
                 if c["family"] == "unix" and c["address"] == path]
        return rc, err, r, conns

    def test_a_host_daemons_socket_fails_the_box(self):
        self.seed_job()
        d = Daemon(self)
        rc, err, r, conns = self.probe("n1", d.path, ["--no-network"])
        self.assertEqual(self.last_out.strip(), "pong")
        self.assertEqual(d.served, 1)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIs(r["network"]["no_network"], True)
        self.assertEqual(len(conns), 1, r["network"]["connected"])
        self.assertTrue(conns[0]["failing"])
        self.assertIn("network.connected: unix/%s by pid %d (a host "
                      "socket, out of --no-network)" % (d.path,
                                                       conns[0]["pid"]),
                      r["reasons"])
        self.assertIn("allow connect unix/%s" % d.path, fptest.rules(r))

    def test_a_rule_allows_it(self):
        self.seed_job()
        d = Daemon(self)
        rc, err, r, conns = self.probe(
            "n2", d.path, ["--no-network", "--policy", self.policy(
                "allow connect unix/%s\n" % d.path)])
        self.assertEqual(self.last_out.strip(), "pong")
        self.assertEqual(rc, EXIT_OK, err)
        self.assertTrue(conns[0]["allowed"])
        self.assertFalse(conns[0]["failing"])

    def test_a_refused_socket_and_a_box_with_a_network_do_not_fail(self):
        self.seed_job()
        d = Daemon(self)
        gone = os.path.join(d.dir, "gone.sock")
        rc, err, r, conns = self.probe("n3", gone, ["--no-network"])
        self.assertEqual(self.last_out.split()[0], "refused")
        self.assertEqual(rc, EXIT_OK, err)
        self.assertFalse(conns[0]["failing"])
        rc, err, r, conns = self.probe("n4", d.path)
        self.assertEqual(self.last_out.strip(), "pong")
        self.assertEqual(rc, EXIT_OK, err)
        self.assertNotIn("no_network", r["network"])
        self.assertFalse(conns[0]["failing"])

    def policy(self, text):
        p = os.path.join(self.top, "p%d.policy" % len(os.listdir(self.top)))
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, 0o644)
        return p


if __name__ == "__main__":
    unittest.main()
