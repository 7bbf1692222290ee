"""Hostile trees under a watched root (issue 8, classes 5, 6 and the
snapshot half of 9), with footprint started as root the way sudo starts it
for the unprivileged user `nobody`, who owns the tree and races it:

- a tree 5,000 levels deep (the recursive walk crashed at about 1,900)
  gives a valid receipt, exit 0, bounded RSS;
- a root-only file outside the roots, reached through a symlink and
  through a directory that a background loop keeps swapping for a
  symlink, never has its hash, size or owner in the receipt, and stays
  untouched;
- a 100 GiB sparse file cannot keep the run going: --timeout 2s bounds the
  whole run, snapshots included, with exit 124 and a receipt saying why.

Run from the top of the tree, as root:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_sec_tree.py
"""

import hashlib
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
from sudo_util import (EXIT_OK, EXIT_VERDICT, EXIT_TIMEOUT, PY,  # noqa: E402
                       Sandbox)

NOBODY = su.nobody()
RSS_LIMIT_KB = 256 * 1024
# a size nothing in the user's tree has
SECRET_SIZE = 7919
NSECRETS = 64


def as_nobody():
    os.setgroups([])
    os.setgid(NOBODY.pw_gid)
    os.setuid(NOBODY.pw_uid)


def run_as_nobody(script, *args, timeout=60):
    p = subprocess.run([PY, "-c", script] + [str(a) for a in args],
                       preexec_fn=as_nobody, cwd="/",
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE,
                       timeout=timeout)
    if p.returncode:
        raise AssertionError("%s failed: %s" % (script[:40], p.stderr))
    return p.stdout


# openat all the way down: the path soon exceeds PATH_MAX
DEEP = r"""
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for i in range(int(sys.argv[2])):
    os.mkdir("d", dir_fd=fd)
    sub = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = sub
f = os.open("bottom", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
os.write(f, b"deep\n")
"""

# The user's side of the race: race/ holds files named like the secrets,
# and spends about half its time swapped for a symlink to the secret
# directory; fifo-or-file flips between a file and a FIFO.
SWAPPER = r"""
import os, sys, time
root, secret, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
os.chdir(root)
end = time.monotonic() + secs
swaps = 0
while time.monotonic() < end:
    try:
        os.rename("race", "race.d")
        os.symlink(secret, "race")
        os.unlink("fifo-or-file")
        os.mkfifo("fifo-or-file")
        time.sleep(0.0005)
        os.unlink("race")
        os.rename("race.d", "race")
        os.unlink("fifo-or-file")
        with open("fifo-or-file", "w") as f:
            f.write("mine\n")
        time.sleep(0.0005)
        swaps += 1
    except OSError:
        pass
print(swaps)
"""

USER_TREE = r"""
import os, sys
root, secret, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.chdir(root)
os.mkdir("race")
for i in range(n):
    with open("race/secret%d" % i, "w") as f:
        f.write("mine %d\n" % i)
with open("fifo-or-file", "w") as f:
    f.write("mine\n")
os.symlink(secret + "/secret0", "link-to-secret")
os.symlink(secret, "link-to-secret-dir")
"""


def entries(doc):
    """Every before/after entry object in a receipt."""
    if isinstance(doc, dict):
        if "type" in doc and "uid" in doc and "size" in doc:
            yield doc
        for v in doc.values():
            yield from entries(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from entries(v)


class TreeCase(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        su.check_binary()
        self.sb = Sandbox(self)
        # shutil.rmtree recurses in Python and gives up on a deep tree
        self.addCleanup(subprocess.run, ["rm", "-rf", self.sb.root])

    def run_fp(self, cmd, opts=(), timeout=60):
        """footprint under /usr/bin/time, as sudo starts it for nobody."""
        rss = self.sb.out_path("rss-%d" % (self.sb.n + 1))
        res = self.sb.run(cmd, opts=opts, env=su.sudo_env(NOBODY),
                          timeout=timeout,
                          wrapper=["/usr/bin/time", "-f", "%M", "-o", rss])
        with open(rss) as f:
            res.rss_kb = int(f.read().split()[-1])
        return res

    def assertValidReceipt(self, res):
        self.assertIsNotNone(res.r, "no receipt\n" + res.describe())
        self.assertGreater(os.path.getsize(res.receipt_path), 0)
        self.assertLess(res.rss_kb, RSS_LIMIT_KB, res.describe())
        self.assertNotIn("Segmentation", res.err)


class TestDeepTree(TreeCase):
    def test_5000_levels_give_a_valid_receipt(self):
        run_as_nobody(DEEP, self.sb.root, 5000)
        res = self.run_fp(["true"])
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        self.assertValidReceipt(res)
        self.assertIs(res.r["ok"], True, res.describe())
        self.assertIs(res.r["trace"]["complete"], True)
        self.assertEqual(res.r["files"]["unreadable"], [], res.describe())
        # the command rewrites the deepest file, reached by chdir level by
        # level: the snapshots see the change 5,000 levels down
        prog = ("import os\nfor i in range(5000): os.chdir('d')\n"
                "open('bottom', 'w').write('changed\\n')\n")
        res = self.run_fp([PY, "-c", prog])
        self.assertValidReceipt(res)
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        changed = [f["path"] for f in res.r["files"]["changed"]]
        want = os.path.join(self.sb.root, *(["d"] * 5000 + ["bottom"]))
        self.assertIn(want, changed, res.describe()[:3000])


class TestSwappedTree(TreeCase):
    def make_secret(self):
        """A root-only directory (0700) outside the roots with root-only
        files (0600), each SECRET_SIZE bytes of its own."""
        self.secret_dir = os.path.join(self.sb.base, "secret")
        os.mkdir(self.secret_dir, 0o700)
        self.secret_sha = set()
        self.secret_stat = {}
        for i in range(NSECRETS):
            p = os.path.join(self.secret_dir, "secret%d" % i)
            data = os.urandom(SECRET_SIZE)
            with open(p, "wb") as f:
                f.write(data)
            os.chmod(p, 0o600)
            self.secret_sha.add(hashlib.sha256(data).hexdigest())
            self.secret_stat[p] = self.fingerprint(p)

    @staticmethod
    def fingerprint(p):
        st = os.lstat(p)
        with open(p, "rb") as f:
            h = hashlib.sha256(f.read()).hexdigest()
        return (st.st_uid, st.st_gid, st.st_mode, st.st_size,
                st.st_mtime_ns, st.st_ctime_ns, h)

    def assertNothingLeaked(self, res):
        with open(res.receipt_path, "rb") as f:
            raw = f.read().decode()
        for sha in self.secret_sha:
            # assertFalse: assertNotIn would print the whole receipt
            self.assertFalse(sha in raw, "a secret's hash is in the receipt "
                             + res.receipt_path)
            self.assertFalse(sha in res.out + res.err, res.describe())
        for e in entries(res.r):
            self.assertNotEqual(e["size"], SECRET_SIZE, json.dumps(e))
            self.assertNotEqual(e["uid"], 0, json.dumps(e))

    def test_secret_behind_symlinks_and_a_racing_dir_is_never_read(self):
        self.make_secret()
        run_as_nobody(USER_TREE, self.sb.root, self.secret_dir, NSECRETS)
        swapper = subprocess.Popen(
            [PY, "-c", SWAPPER, self.sb.root, self.secret_dir, "5"],
            preexec_fn=as_nobody, cwd="/", stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self.addCleanup(swapper.wait)
        self.addCleanup(swapper.kill)
        results = []
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline or len(results) < 2:
            # the after snapshot reuses no hash: every file is reopened
            results.append(self.run_fp(["true"], opts=["--rehash-all"]))
            if len(results) >= 8:
                break
        out, err = swapper.communicate(timeout=30)
        self.assertGreater(int(out or 0), 10, "the swapper did not race: %s"
                           % err)
        for res in results:
            self.assertIn(res.rc, (EXIT_OK, EXIT_VERDICT), res.describe())
            self.assertValidReceipt(res)
            self.assertNothingLeaked(res)
        for p, fp in self.secret_stat.items():
            self.assertEqual(self.fingerprint(p), fp, "%s changed" % p)
        self.assertEqual(os.lstat(self.secret_dir).st_uid, 0)


class TestTimeout(TreeCase):
    def sparse(self, name, size=100 << 30):
        p = self.sb.in_root(name)
        with open(p, "wb") as f:
            f.truncate(size)
        os.chown(p, NOBODY.pw_uid, NOBODY.pw_gid)
        return p

    def assertTimedOut(self, res, phase, limit):
        self.assertEqual(res.rc, EXIT_TIMEOUT, res.describe())
        self.assertLess(res.elapsed, limit, res.describe())
        self.assertValidReceipt(res)
        self.assertIs(res.r["ok"], False)
        self.assertIs(res.r["trace"]["complete"], False)
        why = "the %s snapshot did not finish within --timeout" % phase
        self.assertTrue(any(why in r for r in res.r["reasons"]),
                        res.describe())
        self.assertRegex(res.err, r"(?m)^footprint: the %s snapshot did not "
                         r"finish within --timeout" % phase)

    def test_sparse_file_in_the_root_bounded_by_timeout(self):
        self.sparse("huge")
        res = self.run_fp(["true"], opts=["--timeout", "2s"])
        self.assertTimedOut(res, "before", 5)
        self.assertIsNone(res.r["command"]["exit_code"], "was not run")

    def test_sparse_file_made_by_the_command_bounded_by_timeout(self):
        res = self.run_fp(["truncate", "-s", "100G", "huge"],
                          opts=["--timeout", "2s"])
        # the after snapshot gets at least min(2s, 5s) of its own
        self.assertTimedOut(res, "after", 7)
        self.assertEqual(res.r["command"]["exit_code"], 0)


if __name__ == "__main__":
    unittest.main()
