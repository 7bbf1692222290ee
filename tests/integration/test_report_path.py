"""Issue 30: one report path for run, replay and sidecar stop.

replay reports as run does: the warnings the live run printed come back
wherever the log holds their data (here: a memory budget that ran out),
with --quiet too; and an output made of the receipt (--push, spooled
here) gets the receipt's very bytes.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import fptest as ft

TRUE = shutil.which("true")
BUDGET_LINE = (b"footprint: the memory budget (--memory-budget, 1 MiB) ran "
               b"out; the trace is incomplete and the verdict fails\n")


class ReportPathTest(unittest.TestCase):
    def setUp(self):
        ft.check_binaries()
        self.dir = os.path.realpath(
            tempfile.mkdtemp(prefix="fpit-rp-", dir="/tmp"))
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.root = self.path("root")
        os.mkdir(self.root)

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def fp(self, *args):
        # root's own run: no invoking user; the spool goes under HOME
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("SUDO_")}
        env["HOME"] = self.dir
        p = subprocess.run([ft.FOOTPRINT] + list(args), env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=180)
        if args[0] == "run" and p.returncode == ft.EXIT_NOTRACE:
            ft.cannot_test("footprint cannot trace here: %r" % p.stderr)
        return p

    def record(self, *opts, cmd=(TRUE,)):
        log = self.path("run.fplog")
        p = self.fp("run", "--root", self.root, "--record", log,
                    "--receipt", self.path("live.json"), *opts, "--",
                    *cmd)
        return p, log

    def test_replay_warns_of_the_budget_as_run_does(self):
        p, log = self.record("--memory-budget", "1M",
                             cmd=(ft.FPPROBE, "exec-many", "400", "8192",
                                  TRUE))
        self.assertEqual(p.returncode, ft.EXIT_VERDICT, p.stderr)
        self.assertIn(BUDGET_LINE, p.stderr)
        for quiet in ((), ("--quiet",)):
            r = self.fp("replay", "--receipt", self.path("again.json"),
                        *quiet, log)
            self.assertEqual(r.returncode, ft.EXIT_VERDICT, r.stderr)
            self.assertIn(BUDGET_LINE, r.stderr)
            with open(self.path("live.json"), "rb") as a, \
                    open(self.path("again.json"), "rb") as b:
                self.assertEqual(a.read(), b.read())
        # with room, no budget ran out: no line
        r = self.fp("replay", "--memory-budget", "64M", log)
        self.assertNotIn(b"ran out", r.stderr)

    def test_push_gets_the_receipt_written(self):
        p, log = self.record()
        self.assertIn(p.returncode, (0, ft.EXIT_VERDICT), p.stderr)
        plain = self.fp("replay", "--receipt", self.path("a.json"), log)
        pushed = self.fp("replay", "--receipt", self.path("b.json"),
                         "--push", "http://127.0.0.1:1/", "--job", "rp",
                         log)
        # not reachable: spooled, which is not a failed output
        self.assertEqual(pushed.returncode, plain.returncode, pushed.stderr)
        self.assertIn(b"spooled as", pushed.stderr)
        with open(self.path("a.json"), "rb") as f:
            receipt = f.read()
        with open(self.path("b.json"), "rb") as f:
            self.assertEqual(f.read(), receipt)
        spool = self.path(".local", "state", "footprint", "spool")
        entries = os.listdir(spool)
        self.assertEqual(len(entries), 1)
        with open(os.path.join(spool, entries[0]), "rb") as f:
            entry = f.read()
        self.assertTrue(entry.startswith(b"footprint-spool 1 "), entry[:64])
        self.assertEqual(entry.split(b"\n", 1)[1], receipt)


if __name__ == "__main__":
    unittest.main()
