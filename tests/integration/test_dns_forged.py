"""Forged DNS answers name nothing (issue 28, High 3).

A run could answer its own DNS query, or have an answer forged, and so
give any address an allowed name: `allow connect tcp/api.example.test:8443`,
then reach an address it chose. A name learned from an answer counts only
if the answer came from the server the query was sent to, to the querying
socket, with the query's id, and not from a socket of the run
(user/core/dns_trust.h). Otherwise the connection is judged by its address
alone and the receipt says why (names_unverified).

Each test runs in a network namespace it makes: a real DNS responder
(dns_responder.py) on 127.0.0.1:53, outside the run, answers
api.example.test with 10.77.0.1; a TCP listener takes port 8443 on
10.77.0.1 and 10.77.0.2 (a veth). footprint runs in the namespace
(nsenter --net); the commands send their queries themselves, so nothing
leaves it. The command runs as the unprivileged invoking user (a root
footprint with sudo's variables), except where a spoofed datagram needs a
raw socket (root). Every run is recorded and replayed: the replayed receipt
must be the live one byte for byte (verdict_util.Env.run).
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
from verdict_util import EXIT_OK, EXIT_VERDICT, Env, cannot_test  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
NAME = "api.example.test"
REAL = "10.77.0.1"
FORGED = "10.77.0.2"
POLICY = ("allow connect tcp/%s:8443\n"
          "allow bind udp/127.0.0.1:*\n" % NAME)

# The command: one DNS lookup made by hand, then a connection to the
# address it was told.
CLIENT = r'''
import socket, struct, sys, time
NAME = %(name)r
mode = sys.argv[1]

def query(qid, qtype=1):
    q = b"".join(bytes([len(l)]) + l.encode() for l in NAME.split("."))
    return (struct.pack(">HHHHHH", qid, 0x100, 1, 0, 0, 0) + q + b"\0" +
            struct.pack(">HH", qtype, 1))

def answer(q, ip, qid=None):
    head = struct.pack(">H", qid) if qid is not None else q[:2]
    return (head + b"\x81\x80\0\1\0\1\0\0\0\0" + q[12:] +
            b"\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4" + socket.inet_aton(ip))

def told(r):
    return socket.inet_ntoa(r[-4:])

def go(ip):
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect((ip, 8443))
        print("connected", ip, flush=True)
    except OSError as e:
        print("connect", ip, e, flush=True)
    s.close()

def udp():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

def sendmmsg(s, msgs, dest):
    # glibc's way: a lookup's A and AAAA queries in one sendmmsg(2), with
    # a destination in each message's name unless dest is None
    import ctypes
    class iovec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_char_p), ("len", ctypes.c_size_t)]
    class msghdr(ctypes.Structure):
        _fields_ = [("name", ctypes.c_char_p), ("namelen", ctypes.c_uint32),
                    ("iov", ctypes.POINTER(iovec)),
                    ("iovlen", ctypes.c_size_t),
                    ("control", ctypes.c_void_p),
                    ("controllen", ctypes.c_size_t),
                    ("flags", ctypes.c_int)]
    class mmsghdr(ctypes.Structure):
        _fields_ = [("hdr", msghdr), ("len", ctypes.c_uint)]
    name = None
    if dest:
        name = (struct.pack("<H", socket.AF_INET) +
                struct.pack(">H", dest[1]) + socket.inet_aton(dest[0]) +
                bytes(8))
    iovs = [iovec(m, len(m)) for m in msgs]
    vec = (mmsghdr * len(msgs))()
    for i in range(len(msgs)):
        vec[i].hdr.name = name
        vec[i].hdr.namelen = len(name) if name else 0
        vec[i].hdr.iov = ctypes.pointer(iovs[i])
        vec[i].hdr.iovlen = 1
    libc = ctypes.CDLL(None, use_errno=True)
    n = libc.sendmmsg(s.fileno(), vec, len(msgs), 0)
    if n != len(msgs):
        raise OSError(ctypes.get_errno(), "sendmmsg sent %%d" %% n)

def a_answer(c):
    # of the two answers, the A one (the AAAA one holds no address)
    for _ in range(2):
        r = c.recv(512)
        if struct.unpack(">H", r[6:8])[0]:
            return r
    raise SystemExit("no A answer")

if mode == "legit":
    # as glibc does: a connected socket, send, recv
    c = udp()
    c.connect(("127.0.0.1", 53))
    c.send(query(0x4242))
    go(told(c.recv(512)))
elif mode == "legit-unconnected":
    # as musl does: sendto, recvfrom
    c = udp()
    c.sendto(query(0x4343), ("127.0.0.1", 53))
    go(told(c.recvfrom(512)[0]))
elif mode == "legit-sendmmsg":
    # both queries name the server in their messages, on a socket that
    # is not connected (the kernel routes each)
    c = udp()
    sendmmsg(c, [query(0x4545), query(0x4546, 28)], ("127.0.0.1", 53))
    go(told(a_answer(c)))
elif mode == "legit-sendmmsg-connected":
    # as glibc does: a connected socket, both queries in one call
    c = udp()
    c.connect(("127.0.0.1", 53))
    sendmmsg(c, [query(0x4646), query(0x4647, 28)], None)
    go(told(a_answer(c)))
elif mode == "own-server":
    # the run's own server (on --dns-port 5353, or 53 in a namespace of
    # its own) answers the run's own query
    port = int(sys.argv[2])
    srv = udp()
    srv.bind(("127.0.0.1", port))
    c = udp()
    c.connect(("127.0.0.1", port))
    c.send(query(0x1111))
    q, peer = srv.recvfrom(512)
    srv.sendto(answer(q, %(forged)r), peer)
    go(told(c.recv(512)))
elif mode == "other-address":
    # a query to a server that does not answer; another socket of the
    # run answers in its place, with the query's id
    c = udp()
    c.bind(("127.0.0.1", 0))
    q = query(0x2222)
    c.sendto(q, ("127.0.0.53", 53))
    f = udp()
    f.sendto(answer(q, %(forged)r), c.getsockname())
    go(told(c.recvfrom(512)[0]))
elif mode == "wrong-id":
    # a datagram spoofed from the very server queried (a raw socket: the
    # run is root), but not with the query's id
    c = udp()
    c.bind(("127.0.0.1", 0))
    q = query(0x3333)
    c.sendto(q, ("127.0.0.53", 53))
    body = answer(q, %(forged)r, qid=0x3334)
    sport, dport = 53, c.getsockname()[1]
    udph = struct.pack(">HHHH", sport, dport, 8 + len(body), 0)
    iph = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 8 + len(body), 1, 0,
                      64, 17, 0, socket.inet_aton("127.0.0.53"),
                      socket.inet_aton("127.0.0.1"))
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    raw.sendto(iph + udph + body, ("127.0.0.1", 0))
    go(told(c.recvfrom(512)[0]))
''' % {"name": NAME, "forged": FORGED}

# A TCP listener that says "ready" once it listens, and takes what comes.
LISTEN = r"""
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 8443))
s.listen(16)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    c.close()
"""


class Netns:
    """A network namespace with lo up, a veth carrying REAL and FORGED, a
    TCP listener on port 8443 and the DNS responder on 127.0.0.1:53."""

    def __init__(self, test):
        self.name = "fpdns-" + uuid.uuid4().hex[:8]
        self.procs = []
        test.addCleanup(self.close)
        self.ip("netns", "add", self.name)
        self.ip("-n", self.name, "link", "set", "lo", "up")
        self.ip("-n", self.name, "link", "add", "v0", "type", "veth", "peer",
                "name", "v1")
        for a in (REAL, FORGED):
            self.ip("-n", self.name, "addr", "add", a + "/24", "dev", "v0")
        self.ip("-n", self.name, "link", "set", "v0", "up")
        self.ip("-n", self.name, "link", "set", "v1", "up")
        self.serve([PY, "-c", LISTEN])
        self.serve([PY, os.path.join(HERE, "dns_responder.py"), "127.0.0.1",
                    "53", NAME + "=" + REAL])

    def ip(self, *args):
        subprocess.run(["ip"] + list(args), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def enter(self):
        return ["nsenter", "--net=/run/netns/" + self.name]

    def serve(self, argv):
        p = subprocess.Popen(self.enter() + argv, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL)
        self.procs.append(p)
        if p.stdout.readline().strip() != b"ready":
            raise AssertionError("server %r did not start" % argv)

    def close(self):
        for p in self.procs:
            p.send_signal(signal.SIGTERM)
            p.wait(10)
            p.stdout.close()
        subprocess.run(["ip", "netns", "del", self.name],
                       stderr=subprocess.DEVNULL)


class ForgedCase(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            cannot_test("needs root")
        for prog in ("ip", "nsenter", "unshare"):
            if not shutil.which(prog):
                cannot_test("%s is not installed" % prog)
        self.env = Env(self)
        # the invoking user creates the outputs: like /tmp
        os.chmod(self.env.base, 0o755)
        os.chmod(self.env.out, 0o1777)
        self.root = self.env.root()
        os.chmod(self.root, 0o777)
        self.ns = Netns(self)
        fd, self.client = tempfile.mkstemp(prefix="fpdns-client-",
                                           suffix=".py", dir=self.env.base)
        with os.fdopen(fd, "w") as f:
            f.write(CLIENT)
        os.chmod(self.client, 0o644)
        self.policy = os.path.join(self.env.base, "dns.policy")
        with open(self.policy, "w") as f:
            f.write(POLICY)
        os.chmod(self.policy, 0o644)

    def run_fp(self, cmd, as_user=True, opts=()):
        env = su.sudo_env(su.nobody()) if as_user else su.base_env()
        return self.env.run(cmd, roots=[self.root],
                            opts=["--policy", self.policy] + list(opts),
                            wrapper=self.ns.enter(), cwd=self.root, env=env)

    def conn_to(self, res, address):
        got = [c for c in res.r["network"]["connected"]
               if c["address"] == address and c.get("port") == 8443]
        self.assertEqual(len(got), 1, "want one connection to %s:8443\n%s" %
                         (address, res.describe()))
        return got[0]

    def assert_forged(self, res, why):
        """The connection to the forged address: no name, failing, and
        the receipt says why."""
        self.assertIn(b"connect", res.stdout, res.describe())
        c = self.conn_to(res, FORGED)
        self.assertEqual(c["names"], [], res.describe())
        self.assertEqual(c.get("names_unverified"),
                         [{"name": NAME, "why": why}], res.describe())
        self.assertFalse(c["allowed"])
        self.assertTrue(c["failing"])
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())


class TestLegitimate(ForgedCase):
    def test_the_real_servers_answer_names_the_connection(self):
        for mode in ("legit", "legit-unconnected"):
            res = self.run_fp([PY, self.client, mode])
            self.assertIn(b"connected " + REAL.encode(), res.stdout,
                          res.describe())
            c = self.conn_to(res, REAL)
            self.assertEqual(c["names"], [NAME], mode + "\n" +
                             res.describe())
            self.assertNotIn("names_unverified", c)
            self.assertTrue(c["allowed"])
            self.assertEqual(res.rc, EXIT_OK, mode + "\n" + res.describe())
            d = [x for x in res.r["network"]["dns"] if x["name"] == NAME]
            self.assertEqual([x["answers"] for x in d], [[REAL]])


    def test_queries_sent_with_sendmmsg_name_the_connection(self):
        """Both queries of one sendmmsg() (glibc's A and AAAA) are read,
        each message's destination counted where the kernel sent it, and
        the real server's answer names the connection: with the server
        in each message (routed) and on a connected socket."""
        for mode in ("legit-sendmmsg", "legit-sendmmsg-connected"):
            res = self.run_fp([PY, self.client, mode])
            self.assertIn(b"connected " + REAL.encode(), res.stdout,
                          res.describe())
            c = self.conn_to(res, REAL)
            self.assertEqual(c["names"], [NAME], mode + "\n" +
                             res.describe())
            self.assertNotIn("names_unverified", c)
            self.assertEqual(res.rc, EXIT_OK, mode + "\n" + res.describe())
            d = sorted((x["qtype"], x["server"], x["answers"])
                       for x in res.r["network"]["dns"]
                       if x["name"] == NAME)
            self.assertEqual(d, [("A", "127.0.0.1", [REAL]),
                                 ("AAAA", "127.0.0.1", [])],
                             mode + "\n" + res.describe())
            udp = [x for x in res.r["network"]["connected"]
                   if x["address"] == "127.0.0.1" and x.get("port") == 53]
            self.assertEqual(len(udp), 1, mode + "\n" + res.describe())
            # a connected socket's sends name no destination: its connect
            self.assertEqual(udp[0]["via"], "sendto" if mode ==
                             "legit-sendmmsg" else "connect", mode)
            self.assertEqual(udp[0]["count"],
                             2 if mode == "legit-sendmmsg" else 1, mode)


class TestOlderKernels(ForgedCase):
    def test_the_way_without_sk_data_ready_loads(self):
        """Without the sk_data_ready tracepoint (Debian 12's 6.1) answers
        are read as the reading syscall frees them (consume_skb);
        FOOTPRINT_DEBUG_DNS_CONSUMED=1 loads that program here, where the
        kernel frees UDP datagrams elsewhere, so it only must load and
        trace, and no forged answer may name."""
        env = dict(su.sudo_env(su.nobody()), FOOTPRINT_DEBUG_DNS_CONSUMED="1")
        res = self.env.run([PY, self.client, "other-address"],
                           roots=[self.root],
                           opts=["--cold", "--policy", self.policy],
                           wrapper=self.ns.enter(), cwd=self.root, env=env)
        self.assertIn(b"connected " + FORGED.encode(), res.stdout,
                      res.describe())
        c = self.conn_to(res, FORGED)
        self.assertEqual(c["names"], [], res.describe())
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())


class TestForged(ForgedCase):
    def test_the_runs_own_server_names_nothing(self):
        """(a) A process of the run answers on a socket it owns: a DNS
        server on --dns-port 5353, which an unprivileged user may bind."""
        res = self.run_fp([PY, self.client, "own-server", "5353"],
                          opts=["--dns-port", "5353"])
        self.assertIn(b"connected " + FORGED.encode(), res.stdout,
                      res.describe())
        self.assert_forged(res, "own_server")

    def test_its_own_server_in_a_namespace_of_its_own_names_nothing(self):
        """(a) The same on port 53, in a user and network namespace the
        run made (where it is root and may bind it)."""
        res = self.run_fp(["unshare", "-rn", "sh", "-c",
                           "ip link set lo up && exec %s %s own-server 53"
                           % (PY, self.client)])
        if b"connect" not in res.stdout:
            self.skipTest("no unprivileged user namespaces here: %s" %
                          res.err)
        self.assert_forged(res, "user_netns")

    def test_an_answer_from_another_address_names_nothing(self):
        """(c) The server queried never answers; another socket of the
        run does, from another address and port, with the query's id."""
        res = self.run_fp([PY, self.client, "other-address"])
        self.assertIn(b"connected " + FORGED.encode(), res.stdout,
                      res.describe())
        self.assert_forged(res, "other_server")

    def test_a_spoofed_answer_with_a_wrong_id_names_nothing(self):
        """(b) A datagram spoofed from the server queried itself (a raw
        socket, so the command is root), with another id."""
        res = self.run_fp([PY, self.client, "wrong-id"], as_user=False)
        self.assertIn(b"connected " + FORGED.encode(), res.stdout,
                      res.describe())
        self.assert_forged(res, "wrong_id")


if __name__ == "__main__":
    unittest.main()
