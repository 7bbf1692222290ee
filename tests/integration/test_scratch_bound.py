"""The memory of footprint promote, against a scratch layer the traced
command filled: a change must cost about what it holds (its path, its
symlink's target), not two PATH_MAX buffers, or a million of them would
be gigabytes (docs/scratch.md, Limits).

The promotes run as nobody without root; their peak RSS is GNU time's
%M.
"""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
import test_scratch as ts  # noqa: E402
from sudo_util import EXIT_OK, EXIT_USAGE, EXIT_VERDICT  # noqa: E402

LINKS = 20000
TARGET = 1000  # bytes of each link's target: long, but far from PATH_MAX

MAKE_LINKS = """import os, sys
os.mkdir("links")
for i in range(int(sys.argv[1])):
    os.symlink("t%%05d/" %% i + "x" * %d, "links/l%%05d" %% i)
""" % TARGET


def target(i):
    return "t%05d/" % i + "x" * TARGET


def setUpModule():
    su.check_binary()


class PromoteBoundTest(ts.ScratchCase):
    def promote_rss(self, lock, sdir):
        """footprint promote as nobody: (rc, stderr, peak RSS in KiB).
        GNU time forks it: a child forked from this Python would start
        its peak at Python's size."""
        with tempfile.NamedTemporaryFile() as rss:
            os.chmod(rss.name, 0o666)
            p = subprocess.run(
                ["/usr/bin/time", "-f", "%M", "-o", rss.name,
                 su.world_copy(su.FOOTPRINT), "promote", "--lock", lock,
                 "--scratch", sdir], cwd=self.top, env=su.base_env(),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, preexec_fn=ts.as_nobody,
                timeout=300)
            with open(rss.name) as f:
                kib = int(f.read().split()[-1])
        return p.returncode, p.stderr.decode(), kib

    def plant_links(self, sdir, first, end):
        """Symlinks with long targets in the scratch layer, after the
        run, as the command could have left them."""
        d = os.path.join(sdir, "0", "upper", "links")
        os.makedirs(d, exist_ok=True)
        for i in range(first, end):
            os.symlink(target(i), os.path.join(d, "l%05d" % i))

    def test_scanned_links_cost_their_targets(self):
        s1, olock = self.fixed_and_locked()
        self.plant_links(s1, 0, 1)
        rc, err, small = self.promote_rss(olock, s1)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("(2 extra", err)  # links/ and its link
        self.plant_links(s1, 1, LINKS)
        rc, err, big = self.promote_rss(olock, s1)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("(%d extra" % (LINKS + 1), err)
        # a change here is its slot, its path and its target: 1.3 KiB
        # measured; two inline PATH_MAX targets made it 8.4
        per = (big - small) * 1024 // (LINKS - 1)
        self.assertLess(per, 4096, "%d bytes a change" % per)

    def test_past_the_byte_bound_is_one_clear_refusal(self):
        """64,000 links of PATH_MAX - 1 bytes: 4.5 KiB each as the bound
        counts them, past its 256 MiB at 59,000 or so."""
        s1, olock = self.fixed_and_locked()
        d = os.path.join(s1, "0", "upper", "links")
        os.mkdir(d)
        for i in range(64000):
            os.symlink("%05d" % i + "x" * 4090,
                       os.path.join(d, "%05d" % i + "y" * 195))
        before = ts.tree(self.job)
        rc, err, kib = self.promote_rss(olock, s1)
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertEqual(err.splitlines(), [
            "footprint: promote: the scratch changes of %s hold more "
            "changes than promote keeps (1048576, or 256 MiB in all); "
            "promote a smaller job" % self.job])
        self.assertEqual(ts.tree(self.job), before)
        self.assertLess(kib, 320 << 10)

    def test_promotes_many_long_symlinks(self):
        n = 3000
        s1, olock = self.fixed_and_locked()
        rc, _, small = self.promote_rss(olock, s1)
        self.assertEqual(rc, EXIT_OK)
        self.write("make_links.py", MAKE_LINKS)
        rc, err, r, s2 = self.scratch_run(
            "s2", [su.PY, os.path.join(self.top, "make_links.py"), str(n)],
            ["--allow", "links", "--allow", "links/**"])
        self.assertEqual(rc, EXIT_OK, (err, r and r["reasons"]))
        lock = os.path.join(self.fixture, "links.lock")
        rc, _, err = self.lock_output(os.path.join(self.out, "s2.json"),
                                      lock)
        self.assertEqual(rc, EXIT_OK, err)
        # one link retargeted in the scratch after the lock: a hash miss
        bad = os.path.join(s2, "0", "upper", "links", "l00007")
        os.unlink(bad)
        os.symlink("elsewhere", bad)
        before = ts.tree(self.job)
        rc, err, _ = self.promote_rss(lock, s2)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("hash miss at %s/links/l00007: locked %s" %
                      (self.job, target(7)), err)
        self.assertIn("the scratch has elsewhere", err)
        self.assertEqual(ts.tree(self.job), before)
        os.unlink(bad)
        os.symlink(target(7), bad)
        rc, err, big = self.promote_rss(lock, s2)
        self.assertEqual(rc, EXIT_OK, err)
        links = os.path.join(self.job, "links")
        self.assertEqual(len(os.listdir(links)), n)
        for i in range(n):
            self.assertEqual(os.readlink(os.path.join(links, "l%05d" % i)),
                             target(i))
        # the lock's JSON and the two sets: 4.7 KiB a change measured;
        # two inline PATH_MAX targets a set made it 14.8
        per = (big - small) * 1024 // n
        self.assertLess(per, 8192, "%d bytes a change" % per)


if __name__ == "__main__":
    unittest.main()
