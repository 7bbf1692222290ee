"""io_uring requests are seen and judged as their syscalls are (issue 28,
"Critical: io_uring is invisible").

footprint runs as root the way sudo starts it, for the invoking user
`nobody`, whose home (HOME) is a directory of the test's with
.ssh/id_rsa and .bashrc. The command is fpuring (fpuring.c): it opens,
reads, writes, renames, connects and sends through a ring only, never
through the syscall (strace says so in test_fpuring_makes_no_syscall).
Every run is recorded and replayed: the replayed receipt must be the live
one byte for byte.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, EXIT_VERDICT  # noqa: E402

TEST_BIN = os.environ.get("FOOTPRINT_TEST_BIN") or os.path.join(
    su.TOP, "build", "tests")
FPURING = os.path.join(TEST_BIN, "fpuring")
UNSUPPORTED = 77
PEER = "10.78.0.1"  # not loopback: egress


def setUpModule():
    su.check_binary()
    if not os.access(FPURING, os.X_OK):
        su.cannot_test("%s is not built; run scripts/build" % FPURING)


def events_of(path):
    with open(path, "rb") as f:
        return [json.loads(line) for line in f if line.strip()]


class UringCase(unittest.TestCase):
    """A home for nobody, a watched root nobody may write, and runs of
    footprint for nobody with HOME set to that home."""

    maxDiff = None

    def setUp(self):
        self.pw = su.nobody()
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="fpuring-",
                                                      dir="/tmp"))
        self.addCleanup(shutil.rmtree, self.base, True)
        os.chmod(self.base, 0o755)
        self.home = os.path.join(self.base, "home")
        self.root = os.path.join(self.base, "root")
        self.out = os.path.join(self.base, "out")
        for d in (self.home, self.root, os.path.join(self.home, ".ssh")):
            os.mkdir(d)
        os.mkdir(self.out)
        os.chmod(self.out, 0o1777)
        self.key = os.path.join(self.home, ".ssh", "id_rsa")
        self.bashrc = os.path.join(self.home, ".bashrc")
        self.put(self.key, "-----BEGIN OPENSSH PRIVATE KEY-----\n", 0o600)
        self.put(self.bashrc, "# nobody's\n", 0o644)
        for d in (self.home, self.root, os.path.join(self.home, ".ssh")):
            os.chown(d, self.pw.pw_uid, self.pw.pw_gid)
        os.chmod(os.path.join(self.home, ".ssh"), 0o700)
        self.fpuring = su.world_copy(FPURING)
        self.policy = os.path.join(self.base, "noise.policy")
        # listeners other suites open meanwhile are not this test's
        self.put(self.policy, "ignore bind *\n", 0o644)
        self.n = 0

    def put(self, path, text, mode=0o644):
        with open(path, "w") as f:
            f.write(text)
        os.chown(path, self.pw.pw_uid, self.pw.pw_gid)
        os.chmod(path, mode)

    def run_fp(self, cmd, opts=(), wrapper=(), env=None, replay=True,
               roots=None):
        """footprint run as root under sudo for nobody, recorded, with
        events; (rc, receipt, events, stderr). The replay of the log must
        give the same receipt and exit code."""
        self.n += 1
        rpath = os.path.join(self.out, "r%d.json" % self.n)
        lpath = os.path.join(self.out, "r%d.fplog" % self.n)
        epath = os.path.join(self.out, "e%d.ndjson" % self.n)
        argv = list(wrapper) + [su.FOOTPRINT, "run", "--quiet"]
        for r in roots if roots is not None else [self.root]:
            argv += ["--root", r]
        argv += ["--policy", self.policy, "--receipt", rpath,
                 "--record", lpath, "--events", epath] + list(opts)
        argv += ["--"] + list(cmd)
        e = su.sudo_env(self.pw, HOME=self.home)
        e.update(env or {})
        p = subprocess.run(argv, cwd=self.root, env=e,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode == su.EXIT_NOTRACE:
            su.cannot_test("footprint cannot trace (exit 125): " + err)
        self.last = "argv=%r\nrc=%d\nstdout=%s\nstderr=%s" % (
            argv, p.returncode, p.stdout.decode("utf-8", "replace"), err)
        self.assertTrue(os.path.exists(rpath), self.last)
        with open(rpath) as f:
            r = json.load(f)
        self.assertEqual(su.schema_errors(r), [], self.last)
        self.last += "\nreceipt=" + json.dumps(r, indent=1)[:6000]
        if replay:
            self.check_replay(p.returncode, rpath, lpath)
        return p.returncode, r, events_of(epath), err

    def check_replay(self, rc, rpath, lpath):
        rep = os.path.join(self.out, "replay%d.json" % self.n)
        p = subprocess.run([su.FOOTPRINT, "replay", "--quiet", "--receipt",
                            rep, lpath], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        self.assertEqual(p.returncode, rc, p.stderr)
        with open(rpath, "rb") as a, open(rep, "rb") as b:
            self.assertEqual(a.read(), b.read(),
                             "the replayed receipt differs from the live "
                             "one\n" + self.last)

    def uring(self, *args, **kw):
        """footprint run -- fpuring ARGS; skip if this kernel lacks the
        opcode or ring option."""
        rc, r, ev, err = self.run_fp([self.fpuring] + list(args), **kw)
        if r["command"]["exit_code"] == UNSUPPORTED:
            self.skipTest("this kernel lacks it: " + err)
        self.assertEqual(r["command"]["exit_code"], 0, self.last)
        return rc, r, ev, err

    def via_uring(self, ev, kind):
        return [e for e in ev if e["type"] == kind and
                e.get("via") == "io_uring"]

    def read_finding(self, r, path):
        got = [x for x in r["files"].get("read", []) if x["path"] == path]
        self.assertEqual(len(got), 1, self.last)
        return got[0]

    def file_finding(self, r, lst, path):
        got = [x for x in r["files"][lst] if x["path"] == path]
        self.assertEqual(len(got), 1, "files.%s %s\n%s" % (lst, path,
                                                          self.last))
        return got[0]


class TestSecretsAndOutside(UringCase):
    def check_secret_read(self, *opts):
        rc, r, ev, _ = self.uring(*opts, "read", self.key)
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        self.assertTrue(r["trace"]["complete"], self.last)
        x = self.read_finding(r, self.key)
        self.assertEqual(x["secret"], "ssh_key")
        self.assertTrue(x["failing"])
        self.assertEqual(fptest.argv_of(r, x["by"])[0], self.fpuring)
        self.assertIn("files.read: %s (secret: ssh_key) read by pid %d %s" %
                      (self.key, x["by"]["pid"], self.fpuring),
                      r["reasons"])
        opens = [e for e in self.via_uring(ev, "open")
                 if e["path"] == self.key]
        self.assertEqual(len(opens), 1, ev)
        self.assertEqual(opens[0]["syscall"], "openat")
        self.assertGreaterEqual(opens[0]["ret"], 0)
        return opens[0]

    def test_secret_read(self):
        self.check_secret_read()

    def test_secret_read_by_an_io_wq_worker(self):
        self.check_secret_read("--async")

    def test_secret_read_by_the_sqpoll_thread(self):
        e = self.check_secret_read("--sqpoll")
        # the kernel thread that did it is a thread of fpuring's process
        self.assertTrue(e["comm"].startswith("iou-sqp-"), e)
        self.assertNotEqual(e["tid"], e["pid"])

    def test_secret_read_into_a_direct_descriptor(self):
        # no fd is installed: the file is judged by itself
        self.check_secret_read("--direct")

    def test_secret_read_through_a_symlink_is_the_file_reached(self):
        link = os.path.join(self.root, "innocent")
        os.symlink(self.key, link)
        rc, r, ev, _ = self.uring("read", link)
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        self.assertTrue(self.read_finding(r, self.key)["failing"])
        e = [e for e in self.via_uring(ev, "open") if e["path"] == self.key]
        self.assertEqual(e[0]["named_path"], link, ev)

    def check_bashrc(self, *opts):
        rc, r, ev, _ = self.uring(*opts, "append", self.bashrc, "evil\n")
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        with open(self.bashrc) as f:
            self.assertEqual(f.read(), "# nobody's\nevil\n")
        x = self.file_finding(r, "outside_roots", self.bashrc)
        self.assertFalse(x["allowed"])
        self.assertIn("written", x["ops"])
        self.assertEqual(fptest.argv_of(r, x["by"])[0], self.fpuring)
        self.assertTrue(any(y.startswith("files.outside_roots: " +
                                         self.bashrc)
                            for y in r["reasons"]), r["reasons"])

    def test_append_to_bashrc_is_written_outside_the_roots(self):
        self.check_bashrc()

    def test_append_to_bashrc_from_sqpoll(self):
        self.check_bashrc("--sqpoll")

    def test_append_to_bashrc_through_a_direct_descriptor(self):
        self.check_bashrc("--direct", "--async")

    def test_completion_never_seen_is_judged_as_done(self):
        # IOSQE_CQE_SKIP_SUCCESS: a success posts no completion at all
        rc, r, ev, _ = self.uring("--skip-success", "append", self.bashrc,
                                  "evil\n")
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        self.assertFalse(self.file_finding(r, "outside_roots",
                                           self.bashrc)["allowed"])
        e = [e for e in self.via_uring(ev, "open")
             if e["path"] == self.bashrc]
        self.assertEqual(e[0].get("completion_seen"), False, e)

    def test_fpuring_makes_no_syscall(self):
        """The premise: the file is opened by the ring, not by a syscall
        (strace -f, the oracle, sees no open of it)."""
        if not shutil.which("strace"):
            self.skipTest("strace is not installed")
        p = subprocess.run(["strace", "-f", "-e", "trace=%file,%network",
                            self.fpuring, "read", self.key],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"PRIVATE KEY", p.stdout)
        self.assertNotIn(os.fsencode(self.key), p.stderr)
        self.assertIn(b"io_uring_setup", subprocess.run(
            ["strace", "-f", self.fpuring, "nop"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).stderr)


class TestInTheRoot(UringCase):
    """Opens, creates, unlinks, renames, mkdirs, links and symlinks
    through a ring give the findings their syscalls give."""

    SCRIPT = """
import os, sys
os.chdir(sys.argv[1])
with open("old", "w") as f: f.write("old\\n")
os.rename("old", "moved")
with open("new", "w") as f: f.write("new\\n")
os.mkdir("dir")
os.link("moved", "hard")
os.symlink("moved", "soft")
os.unlink("gone")
with open("kept", "a") as f: f.write("more\\n")
"""

    def fresh(self):
        for name in os.listdir(self.root):
            p = os.path.join(self.root, name)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            else:
                os.unlink(p)
        for name, text in (("gone", "x\n"), ("kept", "k\n")):
            self.put(os.path.join(self.root, name), text)

    @staticmethod
    def files(r):
        """{list: sorted (path, ops)} of the file findings."""
        return {lst: sorted((x["path"], tuple(x.get("ops", ())))
                            for x in items)
                for lst, items in r["files"].items()
                if lst not in ("read",)}

    def test_same_findings_as_the_syscalls(self):
        self.fresh()
        rc, want, _, _ = self.run_fp([su.PY, "-c", self.SCRIPT, self.root])
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        self.fresh()
        j = lambda n: os.path.join(self.root, n)  # noqa: E731
        steps = [("create", j("old"), "old\n"),
                 ("rename", j("old"), j("moved")),
                 ("create", j("new"), "new\n"),
                 ("mkdir", j("dir")),
                 ("link", j("moved"), j("hard")),
                 ("symlink", "moved", j("soft")),
                 ("unlink", j("gone")),
                 ("append", j("kept"), "more\n")]
        script = "; ".join(
            " ".join("'%s'" % a for a in [self.fpuring] + list(s))
            for s in steps)
        rc, got, ev, _ = self.run_fp(["sh", "-c", "set -e; " + script])
        self.assertEqual(got["command"]["exit_code"], 0, self.last)
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        self.assertEqual(self.files(got), self.files(want), self.last)
        kinds = {e["type"] for e in ev if e.get("via") == "io_uring"}
        for k in ("open", "rename", "mkdir", "link", "symlink", "unlink"):
            self.assertIn(k, kinds, ev)

    def test_relative_names_and_rmdir(self):
        os.mkdir(os.path.join(self.root, "d"))
        os.chown(os.path.join(self.root, "d"), self.pw.pw_uid,
                 self.pw.pw_gid)
        rc, r, ev, _ = self.run_fp(
            ["sh", "-c", "'%s' --sqpoll create f x && '%s' rmdir d" %
             (self.fpuring, self.fpuring)])
        self.assertEqual(r["command"]["exit_code"], 0, self.last)
        self.file_finding(r, "added", os.path.join(self.root, "f"))
        self.file_finding(r, "removed", os.path.join(self.root, "d"))
        self.assertEqual(r["files"]["unexplained"], [], self.last)


class TestNotUnderstood(UringCase):
    def check_named(self, args, name):
        rc, r, ev, err = self.uring(*args)
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        self.assertFalse(r["trace"]["complete"], self.last)
        self.assertEqual(r["trace"]["reason"], "io_uring")
        why = [x for x in r["reasons"] if x.startswith("trace incomplete:")]
        self.assertEqual(len(why), 1, r["reasons"])
        self.assertIn("io_uring request footprint does not understand: " +
                      name, why[0])
        # one line on stderr, naming it
        lines = [ln for ln in err.splitlines() if name in ln]
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("footprint: trace incomplete:"),
                        err)
        u = [e for e in ev if e["type"] == "io_uring"]
        self.assertEqual(u[0]["kind"], "unsupported", u)
        self.assertEqual(u[0]["opcode_name"], name.split()[0], u)

    def test_setxattr_fails_and_is_named(self):
        self.put(os.path.join(self.root, "f"), "x\n")
        self.check_named(["xattr", os.path.join(self.root, "f")],
                         "SETXATTR")

    def test_uring_cmd_fails_and_is_named(self):
        # a harmless opcode passes, the same ring with URING_CMD does not
        rc, r, _, _ = self.uring("nop")
        self.assertEqual(rc, EXIT_OK, self.last)
        self.assertTrue(r["trace"]["complete"])
        self.check_named(["sockcmd"], "URING_CMD (cmd_op 0)")

    def test_kernel_without_the_tracepoint_fails_closed(self):
        """As a kernel without io_uring_submit_req would (6.1 names it
        otherwise): a ring set up is a failure, in one line."""
        rc, r, _, err = self.run_fp(
            [self.fpuring, "nop"], opts=["--cold"],
            env={"FOOTPRINT_DEBUG_NO_URING": "1"})
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        self.assertFalse(r["trace"]["complete"])
        self.assertEqual(r["trace"]["reason"], "io_uring")
        self.assertTrue(any("set up an io_uring ring" in x
                            for x in r["reasons"]), r["reasons"])
        lines = [ln for ln in err.splitlines() if "io_uring ring" in ln]
        self.assertEqual(len(lines), 1, err)
        # and a command that sets up no ring is judged as ever
        rc, r, _, _ = self.run_fp(["true"], opts=["--cold"],
                                  env={"FOOTPRINT_DEBUG_NO_URING": "1"})
        self.assertEqual(rc, EXIT_OK, self.last)


class TestNetwork(UringCase):
    """connect and send to a host that is not loopback, in a network
    namespace of the test's: egress, judged from the kernel's copy."""

    SINK = r"""
import socket, sys
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind((sys.argv[1], 9000)); t.listen(8)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((sys.argv[1], 9001))
print("ready", flush=True)
while True:
    c, _ = t.accept(); c.recv(100); c.close()
"""

    def setUp(self):
        super().setUp()
        for prog in ("ip", "nsenter"):
            if not shutil.which(prog):
                su.cannot_test("%s is not installed" % prog)
        self.ns = "fpuring-" + uuid.uuid4().hex[:8]
        ip = lambda *a: subprocess.run(  # noqa: E731
            ["ip"] + list(a), check=True, stdout=subprocess.DEVNULL)
        ip("netns", "add", self.ns)
        self.addCleanup(subprocess.run, ["ip", "netns", "del", self.ns])
        ip("-n", self.ns, "link", "set", "lo", "up")
        ip("-n", self.ns, "link", "add", "v0", "type", "veth", "peer",
           "name", "v1")
        ip("-n", self.ns, "addr", "add", PEER + "/24", "dev", "v0")
        ip("-n", self.ns, "link", "set", "v0", "up")
        ip("-n", self.ns, "link", "set", "v1", "up")
        self.enter = ["nsenter", "--net=/run/netns/" + self.ns]
        sink = subprocess.Popen(self.enter + [su.PY, "-c", self.SINK, PEER],
                                stdout=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        self.addCleanup(sink.wait)
        self.addCleanup(sink.send_signal, signal.SIGKILL)
        self.addCleanup(sink.stdout.close)
        self.assertEqual(sink.stdout.readline().strip(), b"ready")

    def connected(self, r, proto, port):
        return [x for x in r["network"]["connected"]
                if x["address"] == PEER and x.get("port") == port and
                x.get("protocol", proto) == proto]

    def test_connect_and_send_is_egress(self):
        rc, r, ev, _ = self.uring("connect", PEER, "9000", "hello",
                                  wrapper=self.enter)
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        c = self.connected(r, "tcp", 9000)
        self.assertEqual(len(c), 1, self.last)
        self.assertTrue(c[0]["failing"])
        self.assertIn("network.connected: tcp/%s:9000" % PEER,
                      "\n".join(r["reasons"]))
        e = self.via_uring(ev, "connect")
        self.assertEqual(e[0]["address"], PEER, ev)
        self.assertEqual(e[0]["ret"], 0, ev)
        self.assertEqual(e[0]["sock_type"], 1, ev)  # SOCK_STREAM

    def test_allowed_connect_passes(self):
        path = os.path.join(self.base, "allow.policy")
        self.put(path, "ignore bind *\nallow connect tcp/%s:9000\n" % PEER)
        rc, r, _, _ = self.uring("connect", PEER, "9000", "hello",
                                 wrapper=self.enter, opts=["--policy", path])
        self.assertEqual(rc, EXIT_OK, self.last)
        c = self.connected(r, "tcp", 9000)
        self.assertEqual(len(c), 1, self.last)
        self.assertTrue(c[0]["allowed"], self.last)

    def test_datagrams_with_a_destination_are_egress(self):
        for op in ("sendto", "sendmsg", "sendzc"):
            rc, r, ev, _ = self.uring(op, PEER, "9001", "x",
                                      wrapper=self.enter)
            self.assertEqual(rc, EXIT_VERDICT, self.last)
            c = self.connected(r, "udp", 9001)
            self.assertEqual(len(c), 1, "%s: %s" % (op, self.last))
            self.assertTrue(c[0]["failing"])
            self.assertEqual(self.via_uring(ev, "sendto")[0]["address"],
                             PEER)

    def test_connect_from_the_sqpoll_thread(self):
        rc, r, _, _ = self.uring("--sqpoll", "connect", PEER, "9000", "hi",
                                 wrapper=self.enter)
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        self.assertEqual(len(self.connected(r, "tcp", 9000)), 1, self.last)


class TestAccept(UringCase):
    def test_each_connection_of_a_multishot_accept(self):
        port = 20000 + uuid.uuid4().int % 20000
        rc, r, ev, _ = self.uring("accept", "127.0.0.1", str(port), "3")
        # and the last completion, when the ring ends it: a failed accept
        acc = [e for e in self.via_uring(ev, "accept") if e["ret"] == 0]
        self.assertEqual(len(acc), 3, ev)
        for e in acc:
            # the peer at the listener's port, as for accept(2)
            self.assertEqual((e["address"], e["port"], e["ret"]),
                             ("127.0.0.1", port, 0), e)
        got = [x for x in r["network"]["accepted"] if x.get("port") == port]
        self.assertEqual(sum(x.get("count", 1) for x in got), 3, self.last)


class TestScratchBox(UringCase):
    """The box confines io_uring as it confines syscalls. Its workers and
    SQPOLL threads are threads of the process that made the ring, in its
    mount namespace: a write into a root lands in the upper layer. A file
    outside every tree of the box (~/.bashrc here) is not in the box, for
    io_uring as for a syscall: the write is real, and the verdict fails
    (it was "ok" before: the write was not seen at all)."""

    def box(self, script, *opts):
        sdir = os.path.join(self.out, "s%d" % (self.n + 1))
        return self.run_fp(["sh", "-c", script],
                           opts=["--scratch", sdir, "--no-network"] +
                           list(opts)), sdir

    def test_writes_in_a_root_stay_in_the_box(self):
        f = os.path.join(self.root, "calc.py")
        self.put(f, "orig\n")
        u = self.fpuring
        (rc, r, _, _), sdir = self.box(
            "set -e; '%s' append %s a; '%s' --async append %s b; "
            "'%s' --sqpoll append %s c; '%s' --direct create %s/new n"
            % (u, f, u, f, u, f, u, self.root))
        self.assertEqual(r["command"]["exit_code"], 0, self.last)
        with open(f) as fh:
            self.assertEqual(fh.read(), "orig\n")
        self.assertFalse(os.path.exists(os.path.join(self.root, "new")))
        with open(os.path.join(sdir, "0", "upper", "calc.py")) as fh:
            self.assertEqual(fh.read(), "orig\nabc")
        changed = [x["path"] for x in r["scratch"]["proposed"]["changed"]]
        added = [x["path"] for x in r["scratch"]["proposed"]["added"]]
        self.assertEqual(changed, [f], self.last)
        self.assertEqual(added, [os.path.join(self.root, "new")], self.last)
        # every change has its writer: nothing unexplained
        self.assertEqual(r["files"]["unexplained"], [], self.last)

    def test_write_outside_the_box_fails_the_verdict(self):
        u = self.fpuring
        (rc, r, _, _), _ = self.box("'%s' append %s evil; "
                                    "'%s' --sqpoll append %s sq" %
                                    (u, self.bashrc, u, self.bashrc))
        self.assertEqual(rc, EXIT_VERDICT, self.last)
        x = self.file_finding(r, "outside_roots", self.bashrc)
        self.assertFalse(x["allowed"])
        # as `echo evil >> ~/.bashrc` in the box would: the box does not
        # hold that file, footprint's verdict does
        with open(self.bashrc) as f:
            self.assertEqual(f.read(), "# nobody's\nevilsq")

    def test_home_in_the_box_confines_the_write(self):
        u = self.fpuring
        (rc, r, ev, _), sdir = self.box(
            "'%s' append %s evil && '%s' --sqpoll --async append %s sq" %
            (u, self.bashrc, u, self.bashrc), "--scratch-also", self.home)
        self.assertEqual(r["command"]["exit_code"], 0, self.last)
        # seen, both: the writes went to the box's upper layer
        self.assertEqual(len([e for e in self.via_uring(ev, "open")
                              if e["path"] == self.bashrc]), 2, ev)
        with open(self.bashrc) as f:
            self.assertEqual(f.read(), "# nobody's\n")
        with open(os.path.join(sdir, "1", "upper", ".bashrc")) as f:
            self.assertEqual(f.read(), "# nobody's\nevilsq")


if __name__ == "__main__":
    unittest.main()
