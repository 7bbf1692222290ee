"""The human reports of a run that reads a secret, kills a process
outside the run and connects out: the stderr summary names each failing
finding, and the lines it suggests let the same run pass.

Each run is recorded and replayed by verdict_util.Env: the replayed
receipt must be the live one, byte for byte.
"""

import os
import signal
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
import verdict_util as vu  # noqa: E402

SH = vu.exe_of("sh")
# TEST-NET-1 (RFC 5737): routed nowhere, so the connect is only attempted
JOB = ('cat "$HOME/.ssh/id_ed25519" >/dev/null; kill -TERM %d; '
       '"$PY" -c "import socket; s = socket.socket(); s.setblocking(0); '
       's.connect_ex((\'192.0.2.1\', 9))"')


class TestReports(unittest.TestCase):
    def setUp(self):
        self.env = vu.Env(self)
        self.root = self.env.root()
        self.home = self.env.root("home", {
            ".ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\n",
        })
        self.policy = os.path.join(self.env.out, "base.policy")

    def target(self):
        p = subprocess.Popen(["sleep", su.unique_seconds()])
        self.addCleanup(p.wait)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        return p

    def run_job(self, extra=()):
        with open(self.policy, "w") as f:
            f.write("ignore bind *\n")
            for line in extra:
                f.write(line + "\n")
        t = self.target()
        e = dict(os.environ, HOME=self.home, PY=vu.exe_of("python3"))
        res = self.env.run([SH, "-c", JOB % t.pid], roots=[self.root],
                           opts=["--policy", self.policy], env=e,
                           cwd=self.root)
        self.assertEqual(t.wait(10), -signal.SIGTERM)
        return res

    def test_summary_names_them_and_suggestions_pass(self):
        res = self.run_job()
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        err = res.stderr.decode("utf-8", "replace")
        key = os.path.join(self.home, ".ssh/id_ed25519")
        sleep = vu.exe_of("sleep")
        self.assertIn("  files.read %s (secret: " % key, err)
        self.assertRegex(err, r"\n  processes.signalled_outside SIGTERM to "
                         r"pid \d+ %s by pid \d+ " % sleep)
        self.assertIn("  network.connected tcp/192.0.2.1:9 by pid ", err)
        sugg = [s.split("  #")[0].strip()
                for s in err.splitlines() if s.startswith("  allow ")]
        # scoped to the program that read it (issue 31)
        self.assertIn("allow read %s by %s" % (key, vu.exe_of("cat")), sugg,
                      err)
        self.assertIn("allow signal %s" % sleep, sugg, err)
        self.assertIn("allow connect tcp/192.0.2.1:9", sugg, err)
        again = self.run_job(sugg)
        self.assertEqual(again.rc, vu.EXIT_OK, again.describe() + again.stderr.decode("utf-8", "replace"))


if __name__ == "__main__":
    unittest.main()
