"""Severity, everywhere (issue 31): the first line a reviewer reads is the
most severe finding.

A simulated CI job (ci_job.py, the GitHub action for real) checks out a
repository (a git init and commit: dozens of files in the workspace), builds,
writes under /etc with sudo and reads /etc/shadow. The write under /etc and
the read of /etc/shadow come first in the annotations, the stderr summary
and the markdown job summary, not the checkout's files; the receipt has a
"severity" per finding and "by_severity". A policy's "severity KIND LEVEL"
line changes a kind's level, and the replay of the run's log keeps it.
"""

import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ci_job  # noqa: E402
import verdict_util as vu  # noqa: E402

CHECKOUT = r"""
git init -q .
git config user.email ci@example.com
git config user.name ci
for i in $(seq 1 40); do mkdir -p src/m$i; echo "x$i" > src/m$i/f.c; done
git add -A
git commit -q -m init
"""


class CiJobTest(unittest.TestCase):
    def run_job(self):
        j = ci_job.Job(self)
        j.overlays = ("/etc",)
        policy = os.path.join(j.ws, "ci.policy")
        with open(policy, "w") as f:
            f.write("ignore bind *\n")
        os.chown(policy, j.user.uid, j.user.gid)
        j.run([{"name": "footprint", "uses": "footprint",
                "with": {"policy": "ci.policy", "mode": "gate"}},
               {"id": "checkout", "run": CHECKOUT},
               {"id": "build", "run": "mkdir -p out && cat src/*/f.c > out/a"},
               {"id": "deploy", "run":
                "echo on | sudo -n tee /etc/fpci-feature > /dev/null && "
                "sudo -n cat /etc/shadow > /dev/null"}])
        post = j.step("footprint", post=True)
        self.assertEqual(post["rc"], 1, j.describe())
        return j, post

    def test_the_etc_write_and_the_shadow_read_come_first(self):
        j, post = self.run_job()
        doc = j.receipt(os.path.join(j.temp, "footprint-receipt.json"))
        # the receipt: most severe reasons first (sudo's privilege rise
        # and the shadow read are both critical), the write under /etc
        # before the checkout's files
        r = doc["reasons"]
        crit = ("files.read:", "processes.privileged:")
        n = len([x for x in r[:4] if x.startswith(crit)])
        self.assertTrue(all(x.startswith(crit) for x in r[:n]), r[:6])
        self.assertIn("files.read: /etc/shadow", "\n".join(r[:n]))
        etc = [i for i, x in enumerate(r) if "/etc/fpci-feature" in x]
        low = [i for i, x in enumerate(r) if x.startswith("files.added")]
        self.assertTrue(etc and (not low or etc[0] < low[0]), r)
        self.assertGreaterEqual(doc["by_severity"]["critical"], 1)
        self.assertGreaterEqual(doc["by_severity"]["low"], 40)
        shadow = [r for r in doc["files"]["read"]
                  if r["path"] == "/etc/shadow"]
        self.assertEqual(shadow[0]["severity"], "critical", shadow)
        etc = [f for f in doc["files"]["outside_roots"]
               if f["path"] == "/etc/fpci-feature"]
        self.assertEqual(etc[0]["severity"], "high", etc)
        added = doc["files"]["added"]
        self.assertTrue(all(f["severity"] == "low" for f in added))
        # annotations: the shadow read first, then the write under /etc;
        # none of the checkout's files while those have none
        notes = [ln for ln in post["stdout"].splitlines()
                 if ln.startswith("::error title=footprint::")]
        findings = [n for n in notes if re.search(r": (files|processes|"
                                                  r"network|tamper)", n)]
        self.assertGreaterEqual(len(findings), 3, notes)
        self.assertTrue(re.search(r": (files.read|processes.privileged): ",
                                  findings[0]), notes)
        shadow = [i for i, n in enumerate(findings)
                  if "files.read: /etc/shadow" in n]
        etc = [i for i, n in enumerate(findings) if "/etc/fpci-feature" in n]
        low = [i for i, n in enumerate(findings) if "files.added:" in n]
        self.assertTrue(shadow and etc, notes)
        self.assertLess(shadow[0], etc[0], notes)
        self.assertTrue(not low or etc[0] < low[0], notes)
        # the job summary: the shadow read before any checkout file
        summary = post["summary"]
        at = summary.find("/etc/shadow")
        self.assertGreaterEqual(at, 0, summary)
        src = summary.find("src/")
        self.assertTrue(src < 0 or at < src, summary)


class PolicySeverityTest(unittest.TestCase):
    def setUp(self):
        self.env = vu.Env(self)

    def test_a_policy_line_raises_a_kind_and_replay_keeps_it(self):
        root = self.env.root()
        pol = os.path.join(self.env.out, "p.policy")
        with open(pol, "w") as f:
            f.write("severity files.added critical\n")
        script = ("echo a > a.txt; echo t > /tmp/fp-sev-$$; "
                  "rm /tmp/fp-sev-$$")
        plain = self.env.run(["sh", "-c", script], roots=[root], cwd=root)
        root2 = self.env.root("root2")
        raised = self.env.run(["sh", "-c", script], roots=[root2], cwd=root2,
                              opts=["--policy", pol])
        self.assertEqual(plain.rc, vu.EXIT_VERDICT)
        self.assertEqual(raised.rc, vu.EXIT_VERDICT)
        # by default the transient file (medium) is the first reason
        self.assertTrue(plain.r["reasons"][0].startswith("files.transient"),
                        plain.r["reasons"])
        self.assertEqual(plain.r["files"]["added"][0]["severity"], "low")
        self.assertEqual(plain.r["by_severity"],
                         {"critical": 0, "high": 0, "medium": 1, "low": 1})
        # the policy makes the added file critical: first, and counted so
        self.assertTrue(raised.r["reasons"][0].startswith("files.added"),
                        raised.r["reasons"])
        self.assertEqual(raised.r["files"]["added"][0]["severity"],
                         "critical")
        self.assertEqual(raised.r["by_severity"],
                         {"critical": 1, "high": 0, "medium": 1, "low": 0})
        # and the stderr summary's first finding is it
        err = raised.err
        self.assertLess(err.find("files.added"), err.find("files.transient"),
                        err)
        # (env.run replayed each log and compared the receipts' bytes)

    def test_a_bad_severity_line_is_one_clear_error(self):
        root = self.env.root()
        pol = os.path.join(self.env.out, "bad.policy")
        with open(pol, "w") as f:
            f.write("severity files.added urgent\n")
        res = self.env.run(["true"], roots=[root], opts=["--policy", pol],
                           expect_receipt=False)
        self.assertEqual(res.rc, vu.EXIT_USAGE, res.describe())
        self.assertIn("unknown severity 'urgent'", res.err)
        self.assertEqual(len(res.err.strip().splitlines()), 1, res.err)


if __name__ == "__main__":
    unittest.main()
