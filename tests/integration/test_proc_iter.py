"""The after process table from the tracer's task iterator (issue 35;
user/snapshot/snapshot_tasks.c, bpf/proctab.bpf.c).

A process of the before table, the same one (pid and start time) in the
same cgroup, is taken from the iterator without a /proc read; any other
is read from /proc. Each test runs a real command while this process
changes the process table beside it, once the default way and once with
FOOTPRINT_DEBUG_PROC_READS=1 (/proc alone), and asserts what the receipt
says of those processes both ways: the two ways must agree with the
machine, not merely with each other.

Run from the top of the tree, as root:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_proc_iter.py
"""

import glob
import os
import shlex
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
import verdict_util as vu  # noqa: E402

SLEEP = vu.exe_of("sleep")
SH = vu.exe_of("sh")
WAYS = (("iterator", {}), ("/proc", {"FOOTPRINT_DEBUG_PROC_READS": "1"}))


start = vu.start_beside
stop = vu.kill_beside


def run_cgroup():
    """The cgroup of the one footprint run under way (run-PID-START)."""
    for _ in range(200):
        got = glob.glob("/sys/fs/cgroup/unified/footprint/run-*") or \
            glob.glob("/sys/fs/cgroup/footprint/run-*")
        got = [g for g in got if os.path.exists(g + "/cgroup.procs")]
        if len(got) == 1:
            return got[0]
        time.sleep(0.01)
    raise AssertionError("no single run cgroup: %r" % got)


class AfterTableTest(unittest.TestCase):
    def setUp(self):
        self.env = vu.Env(self)

    def run_during(self, action, env_extra, wrapper=()):
        """action() beside a command blocked on a FIFO, strictly between
        footprint's two snapshots; its leftovers allowed."""
        return self.env.run_during(
            action, [self.env.root("root-%d" % self.env.n)],
            opts=["--leftovers", "allow"], env=dict(os.environ, **env_extra),
            wrapper=wrapper)

    def procs(self, res, kind):
        return res.r["processes"][kind]

    def test_new_and_gone_outside_the_run(self):
        for way, extra in WAYS:
            with self.subTest(way=way):
                old = start([SLEEP, "300.5"])
                self.addCleanup(stop, old)
                bystander = start([SLEEP, "300.0625"])
                self.addCleanup(stop, bystander)
                time.sleep(0.05)

                def action():
                    stop(old)
                    new = start([SLEEP, "300.25"])
                    self.addCleanup(stop, new)
                    return new
                res, new = self.run_during(action, extra)
                gone = [p for p in self.procs(res, "disappeared")
                        if p["pid"] == old.pid]
                self.assertEqual(len(gone), 1, res.describe())
                self.assertEqual(gone[0]["exe"], SLEEP, res.describe())
                fresh = [p for p in self.procs(res, "new_outside")
                         if p["pid"] == new.pid]
                self.assertEqual(len(fresh), 1, res.describe())
                self.assertEqual(fresh[0]["exe"], SLEEP, res.describe())
                self.assertEqual(fresh[0]["ppid"], os.getpid(),
                                 res.describe())
                # a process alive before and after, untouched, is neither
                # new nor gone: pid 1 (which this VM's iterator never
                # shows), this test, and a sleep beside the run
                listed = [p["pid"] for p in self.procs(res, "new_outside") +
                          self.procs(res, "disappeared")]
                for pid in (1, os.getpid(), bystander.pid):
                    self.assertNotIn(pid, listed, res.describe())

    def test_a_pid_taken_again_is_a_new_process(self):
        # the pid of a process that ended, taken by another during the
        # run: the start time tells them apart, in the iterator too
        for way, extra in WAYS:
            with self.subTest(way=way):
                old = start([SLEEP, "300.75"])
                self.addCleanup(stop, old)
                time.sleep(0.05)

                def action():
                    stop(old)
                    for _ in range(500):
                        if not os.path.exists("/proc/%d" % old.pid):
                            break
                        time.sleep(0.01)
                    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
                        f.write(str(old.pid - 1))
                    new = start([SLEEP, "300.125"])
                    self.addCleanup(stop, new)
                    return new
                res, new = self.run_during(action, extra)
                if new.pid != old.pid:
                    self.skipTest("another process took pid %d first" %
                                  old.pid)
                gone = [p for p in self.procs(res, "disappeared")
                        if p["pid"] == old.pid]
                fresh = [p for p in self.procs(res, "new_outside")
                         if p["pid"] == new.pid]
                self.assertEqual(len(gone), 1, res.describe())
                self.assertEqual(len(fresh), 1, res.describe())
                self.assertIn("300.75", " ".join(gone[0]["argv"]),
                              res.describe())
                self.assertIn("300.125", " ".join(fresh[0]["argv"]),
                              res.describe())

    def test_a_process_moved_into_the_run_is_read_afresh(self):
        # A process of the before table that execs while outside the run
        # and is then moved into the run's cgroup is a leftover named by
        # what it runs now: its cgroup changed, so nothing of it is taken
        # from the before table.
        for way, extra in WAYS:
            with self.subTest(way=way):
                self.moved_into_the_run(way, extra)

    def test_a_time_namespace_reads_proc_alone(self):
        # /proc adds footprint's time namespace's boot-time offset to a
        # start time and the iterator does not: footprint in a time
        # namespace of its own reads /proc alone, or the process moved
        # into the run (read from /proc after) would seem another one
        # than the before table's, and be "disappeared" too.
        fptest.need_tools("unshare")
        self.moved_into_the_run("timens", {}, wrapper=[
            "unshare", "--time", "--fork", "--boottime", "86400"])

    def moved_into_the_run(self, way, extra, wrapper=()):
        go = os.path.join(self.env.scratch(), "exec-%s" %
                          way.strip("/"))
        p = start([SH, "-c", "while [ ! -e %s ]; do sleep 0.01; "
                   "done; exec %s 300.375" %
                   (shlex.quote(go), SLEEP)])
        self.addCleanup(stop, p)
        time.sleep(0.05)

        def action():
            open(go, "w").close()
            for _ in range(500):
                if os.readlink("/proc/%d/exe" % p.pid) == SLEEP:
                    break
                time.sleep(0.01)
            with open(run_cgroup() + "/cgroup.procs", "w") as f:
                f.write(str(p.pid))
        res, _ = self.run_during(action, extra, wrapper)
        left = [x for x in self.procs(res, "leftover")
                if x["pid"] == p.pid]
        self.assertEqual(len(left), 1, res.describe())
        self.assertEqual(left[0]["exe"], SLEEP, res.describe())
        gone = [x["pid"] for x in self.procs(res, "disappeared")]
        self.assertNotIn(p.pid, gone, res.describe())
        stop(p)


class LastMomentForkTest(unittest.TestCase):
    """A script's last line `daemon &`: the fork may not have exec'd when
    the command's exit is seen. footprint waits a moment for the exec
    (user/session/settle.c), so the leftover is named by what it runs,
    run after run, not by the shell it was forked from."""

    def setUp(self):
        self.env = vu.Env(self)

    def test_a_background_job_is_named_by_its_exec(self):
        for i in range(5):
            res = self.env.run([SH, "-c", "sleep 120.5 &"],
                               roots=[self.env.root("r%d" % i)])
            left = res.r["processes"]["leftover"]
            self.assertEqual(len(left), 1, res.describe())
            self.assertEqual(left[0]["exe"], SLEEP, res.describe())
            self.assertFalse(vu.pid_alive_as(left[0]["pid"],
                                             ["sleep", "120.5"]),
                             "footprint left it running")


if __name__ == "__main__":
    unittest.main()
