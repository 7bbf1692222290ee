"""The receipt's process table and format version (issue 31, "Receipts
people can store"; docs/receipt.md).

Real runs: every process is in "process_table" once, with its parent, its
times and how it ended; findings name their process's row ("proc") instead
of repeating its argv; the receipt says "format": 2 first; replay gives the
same bytes (verdict_util checks every run so), and the schema holds.
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
import verdict_util as vu  # noqa: E402
from verdict_util import EXIT_VERDICT  # noqa: E402

# a long command line that writes many files: once per file before
LONG = "x" * 300
SCRIPT = """
for i in $(seq 1 40); do echo $i > f$i; done
cat f1 > /dev/null
sh -c 'exit 3'
sh -c 'kill -9 $$'
sh -c 'echo e > execd; exec true'
: %s
""" % LONG


class ProcessTableTest(unittest.TestCase):
    def setUp(self):
        self.env = vu.Env(self)

    def run_script(self):
        root = self.env.root()
        res = self.env.run(["sh", "-c", SCRIPT], roots=[root], cwd=root)
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        return res, root

    def test_format_first_and_every_process_once(self):
        res, root = self.run_script()
        with open(res.receipt_path, "rb") as f:
            raw = f.read()
        self.assertTrue(raw.startswith(b'{"format":2,"ok":false,'), raw[:40])
        r = res.r
        rows = r["process_table"]
        self.assertEqual([p["id"] for p in rows], list(range(len(rows))))
        for p in rows:
            # parents come first, and hold the parent's pid (or, for a
            # second exec, the same pid)
            if p["parent"] is not None:
                par = rows[p["parent"]]
                self.assertLess(p["parent"], p["id"], p)
                self.assertIn(par["pid"], (p["ppid"], p["pid"]), (p, par))
                self.assertGreaterEqual(p["start_us"], par["start_us"])
            if p["end_us"] is not None:
                self.assertGreaterEqual(p["end_us"], p["start_us"], p)
        # every exec has its row, and names it
        for e in r["processes"]["executed"]:
            row = rows[e["proc"]]
            self.assertEqual((row["pid"], row["exe"], row["argv"]),
                             (e["pid"], e["exe"], e["argv"]), e)
        # the rows of execs (a forked shell that did not exec runs its
        # parent's command line, and has a row of its own with it)
        execd = [rows[e["proc"]] for e in r["processes"]["executed"]]
        by_argv = {tuple(p["argv"]): p for p in execd}
        self.assertEqual(len(by_argv), len(execd))
        top = by_argv[("sh", "-c", SCRIPT)]
        self.assertIsNone(top["parent"], top)
        self.assertEqual(top["start_us"], 0, top)
        self.assertEqual(top["exit_code"], 0, top)
        self.assertEqual(by_argv[("cat", "f1")]["exit_code"], 0)
        self.assertEqual(by_argv[("cat", "f1")]["parent"], top["id"])
        self.assertEqual(by_argv[("sh", "-c", "exit 3")]["exit_code"], 3)
        killed = by_argv[("sh", "-c", "kill -9 $$")]
        self.assertEqual((killed["signal"], killed["exit_code"]),
                         ("KILL", None), killed)
        # a second exec: a row per command, the second the first's child
        first = by_argv[("sh", "-c", "echo e > execd; exec true")]
        second = by_argv[("true",)]
        self.assertEqual(second["parent"], first["id"])
        self.assertEqual(second["pid"], first["pid"])
        self.assertEqual((first["exit_code"], first["signal"]), (None, None))
        self.assertEqual(first["end_us"], second["start_us"])
        self.assertIsNone(second["step"])

    def test_findings_name_the_row_not_the_argv(self):
        res, root = self.run_script()
        r = res.r
        rows = r["process_table"]
        added = {os.path.basename(f["path"]): f for f in r["files"]["added"]}
        for i in range(1, 41):
            by = added["f%d" % i]["by"]
            self.assertNotIn("argv", by, by)
            row = rows[by["proc"]]
            self.assertEqual((row["pid"], row["exe"]), (by["pid"], by["exe"]))
            self.assertEqual(row["argv"], ["sh", "-c", SCRIPT])
        by = added["execd"]["by"]
        self.assertEqual(fptest.argv_of(r, by),
                         ["sh", "-c", "echo e > execd; exec true"])
        # the long command line: in "command", in the table (once per
        # process that ran it: the shell and its $(seq) subshell) and in
        # the process lists, not once per file it wrote (40 more before)
        with open(res.receipt_path, "rb") as f:
            raw = f.read()
        argv = ["sh", "-c", SCRIPT]
        ran_it = [p for p in rows if p["argv"] == argv]
        self.assertLessEqual(len(ran_it), 3, ran_it)
        listed = [p for lst in r["processes"].values() for p in lst
                  if isinstance(p, dict) and p.get("argv") == argv]
        self.assertEqual(raw.count(LONG.encode()),
                         1 + len(ran_it) + len(listed))

    def test_old_log_replays_as_format_2(self):
        log = os.path.join(vu.TOP, "tests", "data", "old",
                           "changes-0.1.0.fplog")
        out = os.path.join(self.env.out, "old.json")
        p = vu.subprocess.run([vu.FOOTPRINT, "replay", "-q", "--receipt",
                               out, log], stdout=vu.subprocess.PIPE,
                              stderr=vu.subprocess.PIPE)
        self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
        with open(out) as f:
            r = json.load(f)
        self.assertEqual(vu.schema_errors(r), [])
        self.assertEqual(r["format"], 2)
        pids = {p["pid"] for p in r["process_table"]}
        for e in r["processes"]["executed"]:
            self.assertIn(e["pid"], pids)
        for f in r["files"]["changed"]:
            self.assertIsNotNone(f["by"]["proc"], f)


if __name__ == "__main__":
    unittest.main()
