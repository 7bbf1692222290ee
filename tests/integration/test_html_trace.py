"""`footprint events --format chrome-trace LOG`: the Trace Event JSON that
Perfetto and chrome://tracing open, checked against the log it came from.

A recorded run forks, execs, writes files (one with a name that is not
UTF-8 and holds a quote) and exits non-zero in a child. The output is one
valid JSON document; there is one track per process, and the processes
with a track are exactly those the log's exec and fork events show; each
track is named after its executable, its images are complete events that
do not overlap, its exit code is on the last one; every file event of the
log is an instant event on its process's track.
"""

import base64
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import verdict_util as vu  # noqa: E402

FOOTPRINT = vu.FOOTPRINT
JOB = ("echo a > a; sh -c 'echo b > b; exit 3'; "
       "touch \"$(printf 'q\\\"\\377')\"; "
       "(cat a >/dev/null; true) ; sh -c 'sleep 0.02'")
FILE_KINDS = {"open", "unlink", "rename", "mkdir", "mknod", "symlink",
              "link", "chmod", "chown", "truncate"}


def events(log, *args):
    p = subprocess.run([FOOTPRINT, "events"] + list(args) + [log],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    return p


class ChromeTraceTest(unittest.TestCase):
    def test_one_track_per_process(self):
        env = vu.Env(self)
        root = env.root()
        res = env.run(["sh", "-c", JOB], roots=[root], cwd=root)
        self.assertIn(res.rc, (vu.EXIT_OK, vu.EXIT_VERDICT), res.describe())
        log = os.path.join(env.out, "record-%d.fplog" % env.n)
        p = events(log, "--format", "chrome-trace")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)  # the whole output is one document
        evs = doc["traceEvents"]
        self.assertEqual(doc["otherData"]["lost_events"], 0)
        self.assertEqual({e["ph"] for e in evs}, {"M", "X", "i"})
        nd = [json.loads(line) for line in
              events(log).stdout.splitlines()]
        nd = [e for e in nd if e["type"] != "stats"]
        want = {e["pid"] for e in nd if e["type"] in ("exec", "fork")}
        slices = [e for e in evs if e["ph"] == "X"]
        self.assertEqual({e["pid"] for e in slices}, want)
        for e in evs:
            self.assertEqual(e["pid"], e["tid"], e)
        names = {e["pid"]: e["args"]["name"] for e in evs
                 if e["ph"] == "M" and e["name"] == "process_name"}
        self.assertEqual(set(names), want)
        last_exec = {}
        for e in nd:
            if e["type"] == "exec":
                last_exec[e["pid"]] = os.path.basename(e["exe"])
        for pid, exe in last_exec.items():
            self.assertEqual(names[pid], exe, pid)
        # a track's images follow one another; the exit is on the last
        exits = {e["pid"]: e for e in nd if e["type"] == "exit"}
        for pid in want:
            mine = sorted((e for e in slices if e["pid"] == pid),
                          key=lambda e: e["ts"])
            for a, b in zip(mine, mine[1:]):
                self.assertLessEqual(a["ts"] + a["dur"], b["ts"] + 0.001)
            self.assertTrue(all(e["dur"] >= 0 for e in mine))
            if pid in exits and "exit_code" in exits[pid]:
                self.assertEqual(mine[-1]["args"].get("exit_code"),
                                 exits[pid]["exit_code"], mine)
        self.assertIn(3, [e["args"].get("exit_code") for e in slices])
        files = [e for e in nd if e["type"] in FILE_KINDS]
        inst = [e for e in evs if e["ph"] == "i" and e["cat"] == "file"]
        self.assertEqual(len(inst), len(files))
        self.assertEqual(sorted((e["pid"], e["type"]) for e in files),
                         sorted((e["pid"], e["name"]) for e in inst))
        odd = [base64.b64decode(e["args"]["path_b64"]) for e in inst
               if "path_b64" in e["args"]]
        self.assertTrue(any(b.endswith(b'"\xff') for b in odd), odd)

    def test_bad_format_and_filters(self):
        log = os.path.join(vu.TOP, "tests", "data", "clean.fplog")
        for args, msg in ((["--format", "xml"], b"unknown --format 'xml'"),
                          (["--format="], b"unknown --format ''"),
                          (["--format", "chrome-trace", "--pid", "1"],
                           b"takes no --pid")):
            with self.subTest(args=args):
                p = events(log, *args)
                self.assertEqual(p.returncode, 2)
                self.assertTrue(p.stderr.startswith(b"footprint: events:"))
                self.assertIn(msg, p.stderr)
                self.assertEqual(p.stdout, b"")
        # the default is unchanged: NDJSON ending in the stats record
        p = events(log, "--format=ndjson")
        self.assertEqual(p.returncode, 0)
        self.assertEqual(json.loads(p.stdout.splitlines()[-1])["type"],
                         "stats")


if __name__ == "__main__":
    unittest.main()
