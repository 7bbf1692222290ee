"""libcurl is loaded when the fleet needs it, not at every start (issue
35's fixed cost): `footprint` does not link it, so its 28 libraries are
not mapped and relocated by every `footprint run`; a fleet command on a
machine without it fails with one line that says what to install. Needs
root for the mount namespace that hides the library; no BPF.
"""

import os
import subprocess
import tempfile
import unittest

from fptest import FOOTPRINT

LIBCURL = "/usr/lib/x86_64-linux-gnu/libcurl.so.4"


class LibcurlLazyTest(unittest.TestCase):
    def test_not_linked(self):
        r = subprocess.run(["readelf", "-d", FOOTPRINT], capture_output=True,
                           text=True, check=True)
        needed = [ln for ln in r.stdout.splitlines() if "(NEEDED)" in ln]
        self.assertTrue(needed, r.stdout)
        self.assertFalse([ln for ln in needed if "libcurl" in ln], needed)

    @unittest.skipUnless(os.geteuid() == 0 and os.path.exists(LIBCURL),
                         "needs root and Debian's libcurl4")
    def test_fleet_without_libcurl_says_what_to_install(self):
        with tempfile.TemporaryDirectory() as d:
            receipt = os.path.join(d, "r.json")
            with open(receipt, "w") as f:
                f.write('{"format": 2, "ok": true}\n')
            # the library hidden in a mount namespace of this command only
            script = ('mount --bind /dev/null "$1" && shift && exec "$@"')
            r = subprocess.run(
                ["unshare", "-m", "--propagation", "private", "sh", "-c",
                 script, "sh", LIBCURL, FOOTPRINT, "fleet", "push",
                 "--clickhouse", "http://127.0.0.1:9/", "--spool",
                 os.path.join(d, "spool")],
                capture_output=True, text=True, timeout=60,
                env=dict(os.environ, FOOTPRINT_SPOOL=os.path.join(d, "sp")))
            err = r.stderr.strip().splitlines()
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(len(err), 1, r.stderr)
            self.assertTrue(err[0].startswith("footprint: "), err)
            self.assertIn("install libcurl4", err[0])
            # the rest of footprint never needed it
            r = subprocess.run(
                ["unshare", "-m", "--propagation", "private", "sh", "-c",
                 script, "sh", LIBCURL, FOOTPRINT, "--version"],
                capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
