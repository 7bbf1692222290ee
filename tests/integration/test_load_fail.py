"""A tracer that cannot load fails the run before the command starts.

The tracer loads on a thread while the before snapshot is taken
(user/session/tracer_async.c). A load that fails must still fail the run
as one that failed before any snapshot did: exit 125 with footprint's one
line, the command not run, no receipt or log left behind, the run's
cgroup gone. libnobpf.so (tests/integration/nobpf.c) makes every bpf()
call fail, so the load fails whatever thread makes it.
"""

import glob
import os
import subprocess
import tempfile
import unittest

import fptest

NOBPF = os.path.join(fptest.TEST_BIN, "libnobpf.so")


@unittest.skipUnless(os.geteuid() == 0, "footprint run needs root")
class LoadFailTest(unittest.TestCase):

    def setUp(self):
        fptest.check_binaries()
        if not os.path.exists(NOBPF):
            self.fail("%s is missing; build the tests" % NOBPF)
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        self.root = os.path.join(self.dir, "root")
        os.mkdir(self.root)
        # enough in the root that the snapshot is still running when the
        # load fails, or not: either way the outcome must be the same
        for i in range(200):
            with open(os.path.join(self.root, "f%d" % i), "w") as f:
                f.write("x" * i)

    def run_nobpf(self, *opts):
        marker = os.path.join(self.dir, "ran")
        env = dict(os.environ, LD_PRELOAD=NOBPF)
        p = subprocess.Popen(
            [fptest.FOOTPRINT, "run", "--root", self.root] + list(opts) +
            ["--", "touch", marker], cwd=self.dir, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        out, err = p.communicate(timeout=60)
        return p.returncode, out.decode(), err.decode(), marker, p.pid

    def test_nothing_runs_nothing_is_left(self):
        receipt = os.path.join(self.dir, "r.json")
        log = os.path.join(self.dir, "run.fplog")
        events = os.path.join(self.dir, "ev.ndjson")
        rc, out, err, marker, pid = self.run_nobpf(
            "--receipt", receipt, "--record", log, "--events", events)
        self.assertEqual(rc, fptest.EXIT_NOTRACE, err)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(
            lines[0].startswith("footprint: cannot load the BPF tracer: "),
            err)
        self.assertFalse(os.path.exists(marker), "the command ran")
        self.assertFalse(os.path.exists(receipt), "a receipt was left")
        self.assertEqual(glob.glob(log + "*"), [], "a log was left")
        self.assertEqual(out, "")
        mnt = fptest.cgroup2_mount()
        if mnt:
            self.assertEqual(
                glob.glob(os.path.join(mnt, "**", "run-%d-*" % pid),
                          recursive=True), [], "the run's cgroup was left")

    def test_same_without_outputs(self):
        rc, out, err, marker, _ = self.run_nobpf("--quiet")
        self.assertEqual(rc, fptest.EXIT_NOTRACE, err)
        self.assertIn("cannot load the BPF tracer", err)
        self.assertFalse(os.path.exists(marker), "the command ran")


if __name__ == "__main__":
    unittest.main()
