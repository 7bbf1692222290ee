"""`footprint sidecar`: trace a whole CI job, as a real job runs it.

Each test makes a cgroup for the "job" (as a CI runner's service cgroup
holds every step), runs the job's steps as shell scripts inside it, and
starts the sidecar from inside the first step, as a real job does. The
sidecar traces the job's cgroup; an unrelated busy process in another
cgroup must not show up. stop judges the whole job and exits with the
verdict's code; a daemon that was killed makes stop fail closed.

Run as root: FOOTPRINT=build/footprint python3 -m unittest -v \\
    tests/integration/test_sidecar.py
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
from fptest import cgroup2_mount  # noqa: E402
import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, EXIT_VERDICT, EXIT_USAGE  # noqa: E402


class Job:
    """A CI job: a cgroup, a workspace, a state dir; steps run in it."""

    def __init__(self, test):
        self.test = test
        su.check_binary()
        mnt = cgroup2_mount()
        if mnt is None:
            su.cannot_test("no cgroup v2 mount")
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="fpsc-"))
        os.chmod(self.base, 0o755)
        self.ws = os.path.join(self.base, "ws")
        os.mkdir(self.ws)
        self.state = os.path.join(self.base, "state")
        self.out = os.path.join(self.base, "out")
        os.mkdir(self.out)
        self.cg_rel = "/fptest-job-%s" % uuid.uuid4().hex[:12]
        self.cg = mnt + self.cg_rel
        os.mkdir(self.cg)
        test.addCleanup(self.cleanup)

    def cleanup(self):
        # whatever the test left: the daemon, then the job's processes
        self.stop_quietly()
        for path in (self.cg,):
            try:
                with open(os.path.join(path, "cgroup.kill"), "w") as f:
                    f.write("1")
            except OSError:
                pass
            for _ in range(100):
                try:
                    os.rmdir(path)
                    break
                except OSError:
                    time.sleep(0.02)
        shutil.rmtree(self.base, ignore_errors=True)

    def stop_quietly(self):
        if os.path.exists(os.path.join(self.state, "ctl")):
            subprocess.run([su.FOOTPRINT, "sidecar", "stop", "--state",
                            self.state, "--quiet"],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)

    def step(self, script, env=None, timeout=60):
        """One step: sh -c script, born in the job's cgroup."""
        full = 'echo $$ > "%s/cgroup.procs" && cd "%s" && %s' % (
            self.cg, self.ws, script)
        e = su.base_env(FP=su.FOOTPRINT, STATE=self.state, WS=self.ws,
                        OUT=self.out, CG=self.cg_rel)
        if env:
            e.update(env)
        return subprocess.run(["sh", "-c", full], env=e,
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout)

    def start(self, opts=""):
        p = self.step('"$FP" sidecar start --state "$STATE" --root "$WS" '
                      '--cgroup "$CG" %s' % opts)
        self.test.assertEqual(p.returncode, EXIT_OK, p.stderr)
        return p

    def stop(self, opts=""):
        receipt = os.path.join(self.out, "receipt-%s.json" %
                               uuid.uuid4().hex[:6])
        p = self.step('"$FP" sidecar stop --state "$STATE" --receipt "%s" '
                      '%s' % (receipt, opts))
        doc = None
        if os.path.exists(receipt) and os.path.getsize(receipt):
            with open(receipt, "rb") as f:
                raw = f.read()
            doc = json.loads(raw)
            self.test.assertEqual(su.schema_errors(doc), [], doc)
        return p, doc, receipt


def stat_nice(stat):
    """The nice field of a /proc/PID/stat line (the comm may hold spaces)."""
    return int(stat.rsplit(")", 1)[1].split()[16])


def nice_of(path):
    with open(path) as f:
        return stat_nice(f.read())


def busy_elsewhere(test, path):
    """A process outside the job that keeps writing path."""
    p = subprocess.Popen(["sh", "-c", 'while :; do echo x > "%s"; '
                          'sleep 0.01; done' % path])
    test.addCleanup(lambda: (p.kill(), p.wait()))
    return p


class SidecarTest(unittest.TestCase):
    def test_clean_job_is_ok_and_start_means_live(self):
        job = Job(self)
        busy_elsewhere(self, os.path.join(job.ws, "not-the-job"))
        # the first command after start is traced: start returned only
        # once tracing was live
        p = job.step('"$FP" sidecar start --state "$STATE" --root "$WS" '
                     '--cgroup "$CG" --allow busy/ --ignore not-the-job && '
                     'cat /etc/hostname >/dev/null && mkdir busy && '
                     "sh -c 'echo y > busy/first'")
        self.assertEqual(p.returncode, EXIT_OK, p.stderr)
        job.step("true")
        with open(os.path.join(job.state, "daemon.pid")) as f:
            daemon = int(f.readline())
        p, doc, _ = job.stop("--quiet")
        self.assertEqual(p.returncode, EXIT_OK, (p.stderr, doc))
        # stop returns once the daemon left nothing behind: its cgroup
        # is gone already (a CI runner reaps the job's cgroup right after)
        fpcg = os.path.join(cgroup2_mount(), "footprint")
        left = [d for d in os.listdir(fpcg)
                if d.startswith("run-%d-" % daemon)]
        self.assertEqual(left, [])
        self.assertIs(doc["ok"], True, doc["reasons"])
        added = {f["path"] for f in doc["files"]["added"]}
        self.assertIn(os.path.join(job.ws, "busy", "first"), added)
        by = [fptest.argv_of(doc, f["by"]) for f in doc["files"]["added"]
              if f["path"].endswith("/first")]
        self.assertEqual(by, [["sh", "-c", "echo y > busy/first"]], doc)
        # the busy writer outside the job explained nothing
        self.assertFalse([f for f in doc["files"]["changed"]
                          if f.get("by")], doc["files"]["changed"])

    def test_findings_of_the_job_fail_it(self):
        job = Job(self)
        job.start()
        job.step("echo hi > a.txt; mkdir d; touch d/x")
        p, doc, _ = job.stop("--quiet")
        self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
        self.assertEqual(sorted(doc["reasons"]),
                         sorted("files.added: " + os.path.join(job.ws, x)
                                for x in ("a.txt", "d", "d/x")))
        # stop's own receipt is footprint's, not the job's
        self.assertEqual(doc["files"]["outside_roots"], [])

    def test_status(self):
        job = Job(self)
        job.start()
        job.step("for i in 1 2 3; do cat /etc/hostname; done >/dev/null")
        p = job.step('"$FP" sidecar status --state "$STATE" --json')
        self.assertEqual(p.returncode, EXIT_OK, p.stderr)
        st = json.loads(p.stdout)
        self.assertGreater(st["events"], 0)
        self.assertEqual(st["lost"], 0)
        self.assertGreater(st["rss_kib"], 0)
        self.assertLess(st["rss_kib"], 256 * 1024)
        self.assertEqual(st["lost_per_minute"], [0])
        p = job.step('"$FP" sidecar status --state "$STATE"')
        self.assertEqual(p.stdout, b"")
        self.assertIn(b"footprint sidecar: tracing", p.stderr)
        # the daemon's collector runs at auditd's priority boost, so the
        # job's own CPU use cannot starve it into losing events; the
        # job's processes keep theirs
        with open(os.path.join(job.state, "daemon.pid")) as f:
            daemon = int(f.readline())
        task = "/proc/%d/task" % daemon
        nices = {nice_of("%s/%s/stat" % (task, t)) for t in os.listdir(task)}
        self.assertIn(-4, nices)
        p = job.step('cat "/proc/$$/stat"')
        self.assertEqual(stat_nice(p.stdout.decode()), 0, p.stdout)

    def test_anyone_may_ask_status_only_root_may_stop(self):
        job = Job(self)
        job.start()
        nobody = su.nobody()
        probe = os.path.join(job.base, "fp")
        shutil.copy(su.FOOTPRINT, probe)
        os.chmod(probe, 0o755)
        drop = ["setpriv", "--reuid", str(nobody.pw_uid), "--regid",
                str(nobody.pw_gid), "--clear-groups", "--"]
        p = subprocess.run(drop + [probe, "sidecar", "status", "--state",
                                   job.state, "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=30)
        self.assertEqual(p.returncode, EXIT_OK, p.stderr)
        self.assertIn("events", json.loads(p.stdout))
        # a stop request straight on the socket, as nobody: refused
        ask = ("import socket, sys\n"
               "s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n"
               "s.connect(sys.argv[1])\n"
               "socket.send_fds(s, [b'X-'], [0, 1, 1, 2])\n"
               "print(s.recv(64).decode())\n")
        p = subprocess.run(drop + [su.PY, "-c", ask,
                                   os.path.join(job.state, "ctl")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=30)
        self.assertEqual(p.stdout.strip(), b"E refused", p.stderr)
        with open(os.path.join(job.state, "daemon.pid")) as f:
            pid = int(f.readline())
        self.assertNotIn(su.proc_state(pid), (None, "Z"))
        p, doc, _ = job.stop("--quiet")
        self.assertEqual(p.returncode, EXIT_OK, p.stderr)
        # nobody cannot read the log or the daemon's files
        p = subprocess.run(drop + ["cat", os.path.join(job.state,
                                                       "trace.fplog")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertNotEqual(p.returncode, 0)

    def test_killed_daemon_fails_closed(self):
        job = Job(self)
        job.start()
        with open(os.path.join(job.state, "daemon.pid")) as f:
            pid = int(f.readline())
        job.step("echo before > a.txt; sleep 1.2")  # a log frame is out
        os.kill(pid, signal.SIGKILL)
        for _ in range(200):
            if su.proc_state(pid) in (None, "Z"):
                break
            time.sleep(0.01)
        job.step("echo after > b.txt")
        p, doc, _ = job.stop()
        self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
        self.assertIn(b"the sidecar daemon is gone", p.stderr)
        self.assertIs(doc["ok"], False)
        self.assertFalse(doc["trace"]["complete"])
        # the daemon's end, then what the log itself says: no trailer
        self.assertTrue([r for r in doc["reasons"] if r.startswith(
            "trace incomplete: the sidecar daemon is gone (killed, or it "
            "died); the log stops at offset ")], doc["reasons"])

    def test_record_replays_byte_for_byte(self):
        job = Job(self)
        log = os.path.join(job.out, "job.fplog")
        job.start('--record "%s"' % log)
        job.step("echo hi > a.txt")
        p, doc, receipt = job.stop("--quiet")
        self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
        again = os.path.join(job.out, "again.json")
        r = subprocess.run([su.FOOTPRINT, "replay", "--quiet", "--receipt",
                            again, log], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(r.returncode, EXIT_VERDICT, r.stderr)
        with open(receipt, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_report_reads(self):
        """--report-reads lists a read outside the roots; by default only
        secrets and reads inside the roots are listed."""
        outside = os.path.join(self.make_outside(), "notes.txt")
        for opts, listed in (("", False), ("--report-reads", True)):
            job = Job(self)
            log = os.path.join(job.out, "job.fplog")
            job.start('--record "%s" %s' % (log, opts))
            job.step('cat "%s" > /dev/null' % outside)
            p, doc, receipt = job.stop("--quiet")
            self.assertEqual(p.returncode, EXIT_OK, p.stderr)
            reads = [r["path"] for r in doc["files"].get("read", [])]
            self.assertEqual(outside in reads, listed, (opts, reads))
            again = os.path.join(job.out, "again.json")
            r = subprocess.run([su.FOOTPRINT, "replay", "--quiet",
                                "--receipt", again, log],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=60)
            self.assertEqual(r.returncode, EXIT_OK, r.stderr)
            with open(receipt, "rb") as a, open(again, "rb") as b:
                self.assertEqual(a.read(), b.read())

    def make_outside(self):
        d = os.path.realpath(tempfile.mkdtemp(prefix="fpsc-read-"))
        self.addCleanup(shutil.rmtree, d, ignore_errors=True)
        os.chmod(d, 0o755)
        with open(os.path.join(d, "notes.txt"), "w") as f:
            f.write("notes\n")
        os.chmod(os.path.join(d, "notes.txt"), 0o644)
        return d

    def test_usage(self):
        job = Job(self)
        p = job.step('"$FP" sidecar stop --state "$STATE"')
        self.assertEqual(p.returncode, EXIT_USAGE, p.stderr)
        self.assertTrue(p.stderr.startswith(b"footprint: "), p.stderr)
        job.start()
        # a receipt in the watched workspace would be a change of the job's
        p = job.step('"$FP" sidecar stop --state "$STATE" --receipt '
                     'r.json')
        self.assertEqual(p.returncode, EXIT_USAGE, p.stderr)
        self.assertIn(b"inside the watched root", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(job.ws, "r.json")))
        p = job.step('"$FP" sidecar start --state "$STATE" --root "$WS" '
                     '--cgroup "$CG"')
        self.assertEqual(p.returncode, EXIT_USAGE, p.stderr)
        self.assertIn(b"already runs", p.stderr)
        for argv in (["sidecar"], ["sidecar", "bogus"],
                     ["sidecar", "start", "--ring-size", "3"]):
            r = subprocess.run([su.FOOTPRINT] + argv, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=30)
            self.assertEqual(r.returncode, EXIT_USAGE, (argv, r.stderr))
            self.assertEqual(r.stderr.count(b"\n"), 1, r.stderr)
        # options may come after the verb
        r = subprocess.run([su.FOOTPRINT, "sidecar", "status", "--state",
                            job.state, "--json"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(r.returncode, EXIT_OK, r.stderr)


if __name__ == "__main__":
    unittest.main()
