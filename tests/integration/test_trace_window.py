"""The window of a run's trace: from before the command's first exec to
after its last exit, and nothing outside the run within it.

A `run` loads its programs on a thread while the before snapshot is
taken, reads the process table beside the load and brings it up to the
launch after it (user/session/tracer_async.c, session.c). At the end
the drain takes every task out of scope (fp_tracer_stop) and the links
are closed on a thread while the verdict is written. These
tests check both ends: a command that forks, execs and exits at once is
traced whole, warm and cold, run after run; and a process outside the
run, busy the whole time, is never in the events.
"""

import os
import subprocess
import sys
import unittest

import fptest

# the command's first exec, a fork whose child execs and exits, then an
# exec in place and a fast exit: every step a process can escape by
FAST = ["/bin/sh", "-c", "/bin/true & wait; exec /bin/true"]

# opens a marker file in a loop until killed: a busy process outside
OUTSIDE = """
import sys
path = sys.argv[1]
open(path, "w").close()
print("ready", flush=True)
while True:
    with open(path) as f:
        f.read()
"""


@unittest.skipUnless(os.geteuid() == 0, "footprint run needs root")
class TraceWindowTest(fptest.TraceCase):

    def assert_whole(self, r):
        """FAST's processes, each exec, fork and exit, in the events."""
        execs = r.of(type="exec")
        self.assertEqual(
            [fptest.field_bytes(e, "filename") for e in execs],
            [b"/bin/sh", b"/bin/true", b"/bin/true"], r.describe())
        sh, child, last = execs
        self.assertEqual(sh["pid"], last["pid"], r.describe())
        fork = self.one(r.of(type="fork"), "fork")
        self.assertEqual((fork["pid"], fork["ppid"]),
                         (child["pid"], sh["pid"]), r.describe())
        exits = r.of(type="exit")
        self.assertEqual(sorted(e["pid"] for e in exits),
                         sorted([sh["pid"], child["pid"]]), r.describe())
        # the first event is the command's exec: nothing came before it
        self.assertEqual(r.events[0]["type"], "exec", r.describe())
        self.assertEqual(r.events[0]["pid"], sh["pid"], r.describe())

    def test_fast_command_is_traced_whole_warm(self):
        for _ in range(5):
            self.assert_whole(self.trace(FAST))

    def test_fast_command_is_traced_whole_cold(self):
        self.assert_whole(self.trace(FAST, opts=["--cold"]))

    def test_outside_process_is_never_traced(self):
        marker = self.path("outside-marker")
        p = subprocess.Popen([sys.executable, "-c", OUTSIDE, marker],
                             stdout=subprocess.PIPE)
        self.addCleanup(p.stdout.close)
        self.addCleanup(p.wait)
        self.addCleanup(p.kill)
        self.assertEqual(p.stdout.readline(), b"ready\n")
        for opts in ([], ["--cold"], []):
            r = self.trace(FAST, opts=opts)
            self.assert_whole(r)
            self.assertEqual(r.with_path(marker), [], r.describe())
            self.assertEqual([e for e in r.events if e["pid"] == p.pid],
                             [], r.describe())
        self.assertIsNone(p.poll())


if __name__ == "__main__":
    unittest.main()
