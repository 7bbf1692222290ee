"""footprint fails closed: a trace that lost events never gives "ok".

A ring buffer far too small for a burst of opens makes the kernel side
drop records; every drop must be counted, the trace marked incomplete and
the verdict failed, even though the command itself did nothing wrong.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import verdict_util as vu


class FailClosedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fp-failclosed-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.root = os.path.join(self.tmp, "root")
        self.work = os.path.join(self.tmp, "work")
        os.mkdir(self.root)
        os.mkdir(self.work)
        with open(os.path.join(self.work, "f"), "w") as f:
            f.write("x\n")

    def run_fp(self, ring):
        receipt = os.path.join(self.tmp, "r-%s.json" % ring)
        events = os.path.join(self.tmp, "e-%s.ndjson" % ring)
        # 20,000 opens from one shell, faster than a 4 KiB ring is drained
        script = ('cd "$1"; i=0; while [ $i -lt 20000 ]; do : < f; '
                  'i=$((i+1)); done')
        argv = [vu.FOOTPRINT, "run", "--root", self.root,
                "--allow", self.work + "/", "--ring-size", ring,
                "--receipt", receipt, "--events", events, "--",
                "sh", "-c", script, "sh", self.work]
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        if p.returncode == 125:
            vu.cannot_test("footprint cannot trace here: %s" %
                           p.stderr.decode(errors="replace"))
            self.skipTest("cannot trace")
        with open(receipt) as f:
            r = json.load(f)
        with open(events) as f:
            stats = json.loads(f.read().splitlines()[-1])
        self.assertEqual(vu.schema_errors(r), [])
        return p, r, stats

    def test_lost_events_fail_the_verdict(self):
        p, r, stats = self.run_fp("4K")
        err = p.stderr.decode(errors="replace")
        self.assertEqual(stats["type"], "stats")
        self.assertGreater(stats["lost_ringbuf"], 0, stats)
        self.assertEqual(stats["lost"], stats["lost_ringbuf"] +
                         stats["lost_pending"] + stats["lost_recursion"] +
                         stats["lost_compat"] + stats["lost_malformed"])
        self.assertEqual(sum(stats["lost_per_cpu"]),
                         stats["lost_ringbuf"] + stats["lost_pending"] +
                         stats["lost_compat"], stats)
        self.assertIs(stats["complete"], False)
        self.assertEqual(r["trace"]["lost"], stats["lost"])
        self.assertIs(r["trace"]["complete"], False)
        self.assertEqual(r["command"]["exit_code"], 0)
        self.assertIs(r["ok"], False)
        self.assertIn("trace incomplete: %d events lost" % stats["lost"],
                      r["reasons"])
        self.assertEqual(p.returncode, 1, err)
        self.assertIn("events were lost; the trace is incomplete", err)

    def test_same_run_with_room_is_ok(self):
        # the control: the same command with the default ring loses nothing
        p, r, stats = self.run_fp("16M")
        self.assertEqual(stats["lost"], 0, stats)
        self.assertIs(r["trace"]["complete"], True)
        self.assertIs(r["ok"], True, r["reasons"])
        self.assertEqual(p.returncode, 0, p.stderr.decode(errors="replace"))


if __name__ == "__main__":
    unittest.main()
