"""footprint fails closed: a trace that lost events never gives "ok".

A ring buffer far too small for a burst of opens made while the reader is
stopped makes the kernel side drop records; every drop must be counted, the trace marked incomplete and
the verdict failed, even though the command itself did nothing wrong.
"""
import json
import os
import shutil
import signal
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
        """Run a burst of 20,000 opens while footprint's reader is stopped,
        so that only the ring's size decides whether records are lost."""
        receipt = os.path.join(self.tmp, "r-%s.json" % ring)
        events = os.path.join(self.tmp, "e-%s.ndjson" % ring)
        go = os.path.join(self.tmp, "go-%s" % ring)
        done = os.path.join(self.tmp, "done-%s" % ring)
        os.mkfifo(go)
        os.mkfifo(done)
        script = ('read x < "$2"; cd "$1"; i=0; '
                  'while [ $i -lt 20000 ]; do : < f; i=$((i+1)); done; '
                  'echo done > "$3"')
        argv = [vu.FOOTPRINT, "run", "--root", self.root,
                "--allow", self.work + "/", "--allow", done,
                "--ring-size", ring,
                # one record per open: repeats are not collapsed
                "--every-open",
                "--receipt", receipt, "--events", events, "--",
                "sh", "-c", script, "sh", self.work, go, done]
        p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        try:
            # opening the FIFO waits for the command: it is running now
            w = open(go, "w")
            os.kill(p.pid, signal.SIGSTOP)
            try:
                w.write("go\n")
                w.close()
                with open(done) as r:
                    r.read()
            finally:
                os.kill(p.pid, signal.SIGCONT)
            out, err = p.communicate(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        if p.returncode == 125:
            vu.cannot_test("footprint cannot trace here: %s" %
                           err.decode(errors="replace"))
            self.skipTest("cannot trace")
        with open(receipt) as f:
            r = json.load(f)
        with open(events) as f:
            stats = json.loads(f.read().splitlines()[-1])
        self.assertEqual(vu.schema_errors(r), [])
        return p.returncode, err.decode(errors="replace"), r, stats

    def test_lost_events_fail_the_verdict(self):
        rc, err, r, stats = self.run_fp("4K")
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
        self.assertEqual(rc, 1, err)
        self.assertIn("events were lost; the trace is incomplete", err)

    def test_same_run_with_room_is_ok(self):
        # the control: the same command with the default ring loses nothing
        rc, err, r, stats = self.run_fp("16M")
        self.assertEqual(stats["lost"], 0, stats)
        self.assertIs(r["trace"]["complete"], True)
        self.assertIs(r["ok"], True, r["reasons"])
        self.assertEqual(rc, 0, err)


if __name__ == "__main__":
    unittest.main()
