"""processes.privileged and the exec creds replay byte for byte (issue 14
review): the live receipt of a run whose set-user-ID helper rose is the
one `replay` writes from its log, as the rule for every log asks.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
from sudo_util import EXIT_VERDICT  # noqa: E402

NOBODY = su.nobody()


def setUpModule():
    su.check_binary()


class PrivilegedReplayTest(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="fpprivrep-")
        self.addCleanup(shutil.rmtree, self.top, True)
        os.chmod(self.top, 0o755)
        self.root = os.path.join(self.top, "root")
        os.mkdir(self.root)
        os.chown(self.root, NOBODY.pw_uid, NOBODY.pw_gid)
        self.suid = os.path.join(self.top, "suid-id")
        shutil.copy("/usr/bin/id", self.suid)
        os.chmod(self.suid, 0o4755)

    def test_privileged_run_replays_byte_for_byte(self):
        out = os.path.join(self.top, "out")
        os.mkdir(out)
        os.chown(out, NOBODY.pw_uid, NOBODY.pw_gid)
        receipt = os.path.join(out, "r.json")
        log = os.path.join(out, "r.fplog")
        p = subprocess.run([su.FOOTPRINT, "run", "--quiet", "--root",
                            self.root, "--receipt", receipt, "--record", log,
                            "--", "sh", "-c", self.suid + " -u"],
                           cwd=self.root, env=su.sudo_env(NOBODY),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
        self.assertEqual(p.stdout.split(), [b"0"])
        with open(receipt, "rb") as f:
            live = f.read()
        priv = json.loads(live)["processes"]["privileged"]
        self.assertEqual([x["exe"] for x in priv], [self.suid])
        again = os.path.join(self.top, "again.json")
        p = subprocess.run([su.FOOTPRINT, "replay", "--quiet", log,
                            "--receipt", again], env=su.base_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
        with open(again, "rb") as f:
            self.assertEqual(f.read(), live)


if __name__ == "__main__":
    unittest.main()
