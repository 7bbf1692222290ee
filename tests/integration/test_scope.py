"""What the sidecar's tracer traces, through the tracer API (fptracer).

Scope by process tree (decided in the kernel at fork) and by several
cgroups, never the tracer's own processes; the step name read from a new
environment at exec; tamper evidence (a signal, bpf(), ptrace aimed at the
tracer); the heartbeat that tells the tracer its programs were detached.

Synchronisation is by pipes: every helper process announces itself on
stdout before it blocks, and blocks reading a FIFO that the test holds open
read-write (so opening it never blocks) until it writes one line per
reader. The tracer answers each control signal with one line.
"""

import errno
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import unittest

import fptest
from fptest import FPPROBE, TEST_BIN

FPTRACER = os.path.realpath(os.path.join(TEST_BIN, "fptracer"))


class Tracer:
    """A running fptracer: its events so far, and control signals."""

    def __init__(self, test, *args):
        if not os.access(FPTRACER, os.X_OK):
            fptest.cannot_test("%s is not built" % FPTRACER)
        self.test = test
        self.proc = subprocess.Popen([FPTRACER] + list(args),
                                     stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        test.addCleanup(self.kill)
        self.lines = queue.Queue()
        self.records = []
        threading.Thread(target=self._read, daemon=True).start()
        ready = self.wait_for("ready")
        if ready is None:
            err = self.proc.stderr.read().decode("utf-8", "replace")
            fptest.cannot_test("fptracer cannot trace here: %s" % err)
        self.pid = ready["ready"]

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, key, timeout=30):
        """Read records up to the first one holding key; return it."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError("fptracer said no %r in %ss" %
                                     (key, timeout))
            if line is None:
                return None
            rec = json.loads(line)
            self.records.append(rec)
            if key in rec:
                return rec

    def ask(self, sig, key):
        self.proc.send_signal(sig)
        rec = self.wait_for(key)
        self.test.assertIsNotNone(rec, "fptracer ended")
        return rec[key]

    def stop(self):
        """Drain and end; returns (events, stats)."""
        self.proc.send_signal(signal.SIGTERM)
        stats = self.wait_for("stats")
        self.test.assertIsNotNone(stats, "fptracer ended without stats")
        self.proc.wait(timeout=30)
        self.test.assertEqual(self.proc.returncode, 0)
        return [r for r in self.records if "type" in r], stats["stats"]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


class ScopeCase(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        fptest.check_binaries()
        if os.geteuid() != 0:
            fptest.cannot_test("tracing needs root")
        self.dir = os.path.realpath(
            tempfile.mkdtemp(prefix="fpit-scope-", dir="/tmp"))
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.go = self.path("go")
        os.mkfifo(self.go)
        # read-write: no open of the FIFO ever blocks, and it never sees EOF
        self.go_fd = os.open(self.go, os.O_RDWR)
        self.addCleanup(os.close, self.go_fd)
        self.env = dict(os.environ, FPPROBE=FPPROBE, GO=self.go, D=self.dir)
        self.env.pop("GITHUB_ACTION", None)

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def release(self, readers):
        """Let that many processes blocked on the FIFO go on."""
        os.write(self.go_fd, b"\n" * readers)

    def start(self, script, announcements, env=None, cgroup=None):
        """sh -c script; wait until it printed that many lines (each
        helper's "NAME PID" before it blocks). Returns (proc, {NAME: pid})."""
        def into_cgroup():
            if cgroup:
                with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                    f.write("0")
        p = subprocess.Popen(["sh", "-c", script], env=env or self.env,
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, preexec_fn=into_cgroup)

        def end():
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stdout.close()
        self.addCleanup(end)
        pids = {}
        for _ in range(announcements):
            name, pid = p.stdout.readline().decode().split()
            pids[name] = int(pid)
        return p, pids

    def finish(self, proc):
        self.assertEqual(proc.wait(timeout=30), 0)

    def busy(self):
        """An unrelated process opening a file in a loop, never traced."""
        p = subprocess.Popen([FPPROBE, "busy", "0", self.path("busy-noise")],
                             stdout=subprocess.PIPE)
        self.addCleanup(p.stdout.close)
        self.addCleanup(p.wait)
        self.addCleanup(p.kill)
        self.assertTrue(p.stdout.readline().startswith(b"pid="))
        return p.pid

    def opened(self, events, name):
        """pids of the processes that opened self.path(name)."""
        want = fptest.to_bytes(self.path(name))
        return [ev["pid"] for ev in events if ev["type"] == "open" and
                fptest.field_bytes(ev, "path") == want]

    def cgroup(self, *names):
        mnt = fptest.cgroup2_mount()
        if mnt is None:
            self.skipTest("no cgroup v2 hierarchy")
        top = tempfile.mkdtemp(prefix="fptest-scope-", dir=mnt)
        self.addCleanup(os.rmdir, top)
        out = []
        for n in names:
            d = os.path.join(top, n)
            os.mkdir(d)
            self.addCleanup(os.rmdir, d)
            out.append(d)
        return out

    def assert_complete(self, stats):
        self.assertEqual(stats["lost"], 0, stats)
        self.assertEqual(stats["malformed"], 0, stats)


# A root with a child and a grandchild that exist before the tracer
# attaches; once released, the root forks a new child and grandchild.
TREE = r'''
sh -c '
  sh -c "echo pregrand \$\$; read x < \"\$GO\"; \"\$FPPROBE\" open \"\$D/pregrand\" >/dev/null" &
  echo prechild $$; read x < "$GO"; "$FPPROBE" open "$D/prechild" >/dev/null; wait' &
echo root $$
read x < "$GO"
"$FPPROBE" open "$D/root" >/dev/null
sh -c '"$FPPROBE" open "$D/child" >/dev/null; sh -c "\"\$FPPROBE\" open \"\$D/grandchild\" >/dev/null"'
wait
'''


class TestPidTree(ScopeCase):
    def test_tree_before_and_after_attach(self):
        noise = self.busy()
        proc, pids = self.start(TREE, 3)
        t = Tracer(self, "--pid-tree", str(pids["root"]))
        self.release(3)
        self.finish(proc)
        events, stats = t.stop()
        self.assert_complete(stats)
        # each file opened once, by an fpprobe forked (after attach) by
        # the shell expected: the pre-existing ones, the root, and the
        # root's new child and grandchild
        parents = {ev["pid"]: ev["ppid"] for ev in events
                   if ev["type"] == "fork"}
        opener = {}
        for name in ("root", "prechild", "pregrand", "child", "grandchild"):
            pids_ = self.opened(events, name)
            self.assertEqual(len(pids_), 1, "%s not traced once" % name)
            opener[name] = parents[pids_[0]]
        self.assertEqual(opener["root"], pids["root"])
        self.assertEqual(opener["prechild"], pids["prechild"])
        self.assertEqual(opener["pregrand"], pids["pregrand"])
        self.assertEqual(parents[opener["child"]], pids["root"])
        self.assertEqual(parents[opener["grandchild"]], opener["child"])
        self.assertEqual([ev for ev in events if ev["pid"] == noise], [])
        self.assertEqual(self.opened(events, "busy-noise"), [])
        # every traced process is in the tree
        tree = set(pids.values()) | set(parents)
        self.assertEqual({ev["pid"] for ev in events} - tree, set())

    def test_unknown_root_refused(self):
        p = subprocess.run([FPTRACER, "--pid-tree", "999999999"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=30)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, b"")
        self.assertTrue(p.stderr.startswith(b"footprint: "), p.stderr)
        self.assertIn(b"999999999", p.stderr)

    def test_full_table_counted_as_lost(self):
        # 8 children blocked at once, in a table of 4: fail closed
        script = r'''
for i in 1 2 3 4 5 6 7 8; do sh -c 'read x < "$GO"' & done
echo root $$
read x < "$GO"
wait
'''
        proc, pids = self.start(script, 1)
        t = Tracer(self, "--pid-tree", str(pids["root"]),
                   "--max-tree-pids", "4")
        # the children exist now, or are forked after attach: either way
        # at most 4 fit
        self.release(9)
        self.finish(proc)
        _, stats = t.stop()
        self.assertGreaterEqual(stats["lost_scope"], 5, stats)
        self.assertGreaterEqual(stats["lost"], stats["lost_scope"], stats)


class TestCgroups(ScopeCase):
    def test_two_cgroups_and_below(self):
        a, b, c, a_sub = self.cgroup("a", "b", "c", "a/sub")
        t = Tracer(self, "--cgroup", a, "--cgroup", b)
        for name, cg in (("in-a", a), ("in-b", b), ("in-c", c),
                         ("in-a-sub", a_sub)):
            proc, _ = self.start('"$FPPROBE" open "$D/%s"' % name, 0,
                                 cgroup=cg)
            self.finish(proc)
        events, stats = t.stop()
        self.assert_complete(stats)
        for name in ("in-a", "in-b", "in-a-sub"):
            self.assertEqual(len(self.opened(events, name)), 1, name)
        self.assertEqual(self.opened(events, "in-c"), [])


class TestSelf(ScopeCase):
    def test_self_never_traced_nor_its_children(self):
        script = r'''
sh -c 'echo self $$; read x < "$GO"; echo > "$D/self-own"; "$FPPROBE" open "$D/self-child" >/dev/null' &
echo root $$
read x < "$GO"
"$FPPROBE" open "$D/other" >/dev/null
wait
'''
        proc, pids = self.start(script, 2)
        t = Tracer(self, "--pid-tree", str(pids["root"]),
                   "--self", str(pids["self"]))
        self.release(2)
        self.finish(proc)
        events, stats = t.stop()
        self.assert_complete(stats)
        self.assertEqual(len(self.opened(events, "other")), 1)
        self.assertEqual(self.opened(events, "self-own"), [])
        self.assertEqual(self.opened(events, "self-child"), [])
        self.assertEqual([ev for ev in events if ev["pid"] == pids["self"]
                          or ev["ppid"] == pids["self"]], [])

    def test_self_in_traced_cgroup(self):
        (a,) = self.cgroup("a")
        script = ('echo self $$; read x < "$GO"; echo > "$D/self-own"; '
                  'echo > "$D/self-done"')
        proc, pids = self.start(script, 1, cgroup=a)
        t = Tracer(self, "--cgroup", a, "--self", str(pids["self"]))
        other, _ = self.start('"$FPPROBE" open "$D/other"', 0, cgroup=a)
        self.finish(other)
        self.release(1)
        self.finish(proc)
        events, _ = t.stop()
        self.assertEqual(len(self.opened(events, "other")), 1)
        self.assertEqual(self.opened(events, "self-own"), [])
        self.assertEqual([ev for ev in events if ev["pid"] == pids["self"]],
                         [])
        # and the tracer itself, in no traced scope, never shows up
        self.assertEqual([ev for ev in events if ev["pid"] == t.pid], [])


class TestStepName(ScopeCase):
    def test_step_name_of_step_parents_child_only(self):
        # The step's environment: GITHUB_ACTION after a long variable whose
        # value holds "GITHUB_ACTION=" where a 256-byte read of the
        # variable ends, and after a variable whose name ends with it.
        trap = "A=" + "x" * 253 + "GITHUB_ACTION=inner"
        script = r'''
echo parent $$
read x < "$GO"
env -i "$TRAP" XGITHUB_ACTION=no GITHUB_ACTION=build_step /bin/sh -c '"$0" exit 0; "$0" exit 0; true' "$FPPROBE"
GITHUB_ACTION=other "$FPPROBE" exit 0
true
'''
        env = dict(self.env, TRAP=trap)
        proc, pids = self.start(script, 1, env=env)
        parent = pids["parent"]
        t = Tracer(self, "--pid-tree", str(parent), "--step-parent",
                   str(parent))
        self.release(1)
        self.finish(proc)
        events, stats = t.stop()
        self.assert_complete(stats)
        execs = [ev for ev in events if ev["type"] == "exec"]
        children = [ev for ev in execs if ev["ppid"] == parent]
        grandchildren = [ev for ev in execs if ev["ppid"] != parent]
        # env (no GITHUB_ACTION in the parent's environment), then sh with
        # the step's: the same child; and fpprobe run by the parent
        names = [(ev["filename"], ev.get("step_name")) for ev in children]
        self.assertEqual(names, [("/usr/bin/env", None),
                                 ("/bin/sh", "build_step"),
                                 (FPPROBE, "other")])
        # the step's own children carry the variable but are not steps
        self.assertEqual([(ev["filename"], ev.get("step_name"))
                          for ev in grandchildren],
                         [(FPPROBE, None), (FPPROBE, None)])


class TestTamper(ScopeCase):
    def tampers(self, events):
        return [ev for ev in events if ev["type"] == "tamper"]

    def test_signal_bpf_ptrace_aimed_at_the_tracer(self):
        # the tracer's pid is known once it runs, after the root started
        script = r'''
echo root $$
read x < "$GO"
TRACER=$(cat "$D/tracer")
"$FPPROBE" signal "$TRACER" 1 >/dev/null
"$FPPROBE" signal $$ 28 >/dev/null
"$FPPROBE" bpf >/dev/null
"$FPPROBE" ptrace-seize "$TRACER" >/dev/null
"$FPPROBE" ptrace-seize $$ >/dev/null
setpriv --reuid=65534 --regid=65534 --clear-groups "$PUBPROBE" ptrace-attach "$TRACER" >/dev/null
true
'''
        if not shutil.which("setpriv"):
            self.skipTest("no setpriv")
        # an unprivileged attempt: refused, still evidence
        self.env["PUBPROBE"] = fptest.world_readable_copy(self, FPPROBE)
        proc, pids = self.start(script, 1)
        t = Tracer(self, "--pid-tree", str(pids["root"]))
        with open(self.path("tracer"), "w") as f:
            f.write(str(t.pid))
        # a signal from outside the traced scope is not tamper
        self.assertEqual(t.ask(signal.SIGHUP, "hup"), True)
        self.release(1)
        self.finish(proc)
        # the traced SIGHUP reached the tracer
        self.assertEqual(t.wait_for("hup")["hup"], True)
        events, stats = t.stop()
        self.assert_complete(stats)
        probe = {" ".join(ev["argv"][1:]): ev["pid"] for ev in events
                 if ev["type"] == "exec" and ev["filename"] == FPPROBE}
        attach = [ev for ev in events if ev["type"] == "exec" and
                  ev["argv"][1:] == ["ptrace-attach", str(t.pid)]]
        self.assertEqual([ev["uid"] for ev in attach], [65534])
        attach = [ev["pid"] for ev in attach]
        tampers = self.tampers(events)
        got = [(ev["kind"], ev["pid"], ev.get("signal"), ev.get("bpf_cmd"),
                ev.get("request"), ev.get("target_pid")) for ev in tampers]
        self.assertEqual(got, [
            ("signal", probe["signal %d 1" % t.pid], 1, None, None, t.pid),
            ("bpf", probe["bpf"], None, 11, None, None),
            ("ptrace", probe["ptrace-seize %d" % t.pid], None, None,
             0x4206, t.pid),
            ("ptrace", attach[0], None, None, 16, t.pid),
        ])
        self.assertEqual(tampers[0]["signal_name"], "HUP")
        self.assertEqual(tampers[1]["bpf_cmd_name"], "BPF_PROG_GET_NEXT_ID")
        self.assertEqual(tampers[2]["request_name"], "PTRACE_SEIZE")

    def test_bpf_through_the_32bit_entry(self):
        # some VMs fault on int $0x80: then there is no such call to trace
        untraced = subprocess.run([FPPROBE, "bpf-compat"],
                                  capture_output=True)
        if untraced.returncode < 0:
            self.skipTest("int $0x80 is killed by signal %d here: no "
                          "32-bit entry" % -untraced.returncode)
        proc, pids = self.start(
            'echo root $$; read x < "$GO"; "$FPPROBE" bpf-compat; '
            'echo rc $?', 1)
        t = Tracer(self, "--pid-tree", str(pids["root"]))
        self.release(1)
        out = proc.stdout.read().decode()
        self.finish(proc)
        events, _ = t.stop()
        if "rc %d" % fptest.PROBE_UNSUPPORTED in out:
            self.skipTest("no 32-bit syscall entry here")
        self.assertIn("rc 0", out)
        got = [(ev["kind"], ev["bpf_cmd"]) for ev in self.tampers(events)]
        self.assertEqual(got, [("bpf", 11)])

    def test_no_tamper_without_self(self):
        # `footprint run` names no self process: its commands may use bpf()
        r = fptest.run([FPPROBE, "bpf"])
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual([ev for ev in r.events if ev["type"] == "tamper"],
                         [])


class TestHeartbeat(ScopeCase):
    def test_heartbeat_until_links_closed(self):
        proc, pids = self.start('echo root $$; read x < "$GO"', 1)
        t = Tracer(self, "--pid-tree", str(pids["root"]))
        for _ in range(20):
            self.assertEqual(t.ask(signal.SIGUSR2, "heartbeat"), 0)
        # BPF_LINK_DETACH is refused for tracepoint links: only closing
        # every fd of a link detaches it
        self.assertGreaterEqual(t.ask(signal.SIGUSR1, "closed_links"), 6)
        self.assertEqual(t.ask(signal.SIGUSR2, "heartbeat"), -errno.ENOLINK)
        self.assertEqual(t.ask(signal.SIGUSR2, "heartbeat"), -errno.ENOLINK)
        self.release(1)
        self.finish(proc)
        t.stop()


if __name__ == "__main__":
    unittest.main()
