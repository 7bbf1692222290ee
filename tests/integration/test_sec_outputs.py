"""Issue 8, classes 1 and 2: the invoking user cannot turn root's footprint
against the machine through the paths it names.

Each test starts a root footprint the way sudo does (SUDO_UID of `nobody`)
and points its outputs (--receipt, --events, --record) and inputs (--policy,
replay's log) at things `nobody` may not write or read: a symlink to a
root-only file, a symlinked directory into a root-only directory, a
root-owned directory, a root-owned file in a sticky directory, /dev/zero,
a FIFO. The victim must stay byte for byte the same and root's, nothing of
it may show up on stdout or stderr, and a refusal is one line, exit 2.

Run as root: FOOTPRINT=build/footprint python3 -m unittest -v \\
    tests/integration/test_sec_outputs.py
"""

import os
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, EXIT_USAGE, Sandbox  # noqa: E402

NOBODY = su.nobody()
SECRET = b"root-only secret 6f1d2c\n"
OUTPUTS = ("--receipt", "--events", "--record")


def sh(script, *args):
    return ["sh", "-c", script, "sh"] + list(args)


def as_nobody(*argv):
    subprocess.run(["setpriv", "--reuid", str(NOBODY.pw_uid), "--regid",
                    str(NOBODY.pw_gid), "--clear-groups", "--"] +
                   list(argv), check=True)


class OutputCase(unittest.TestCase):
    def setUp(self):
        self.sb = Sandbox(self)
        b = self.sb.base
        # root's: a 0700 directory holding a 0600 secret
        self.vdir = os.path.join(b, "victim")
        os.mkdir(self.vdir, 0o700)
        self.victim = os.path.join(self.vdir, "secret")
        with open(self.victim, "wb") as f:
            f.write(SECRET)
        os.chmod(self.victim, 0o600)
        self.vstat = os.lstat(self.victim)
        # nobody's: a directory of its own outside the watched root
        self.home = os.path.join(b, "home")
        os.mkdir(self.home, 0o755)
        os.chown(self.home, NOBODY.pw_uid, NOBODY.pw_gid)

    def assertVictimUntouched(self, res):
        st = os.lstat(self.victim)
        with open(self.victim, "rb") as f:
            self.assertEqual(f.read(), SECRET, res.describe())
        self.assertEqual((st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode),
                          st.st_ino, st.st_nlink),
                         (0, 0, 0o600, self.vstat.st_ino, 1),
                         "the victim changed owner, mode or inode\n" +
                         res.describe())
        self.assertEqual(sorted(os.listdir(self.vdir)), ["secret"],
                         "footprint created a file in a root-only "
                         "directory\n" + res.describe())
        self.assertNotIn(SECRET.strip(), res.stdout + res.stderr)

    def run_nobody(self, cmd, opts, receipt=False):
        return self.sb.run(cmd, opts=opts, receipt=receipt,
                           env=su.sudo_env(NOBODY), cwd=self.home)

    def assertRefused(self, res, words):
        self.assertEqual(res.rc, EXIT_USAGE, res.describe())
        self.assertEqual(res.err.count("\n"), 1, res.describe())
        self.assertTrue(res.err.startswith("footprint: "), res.describe())
        self.assertIn(words, res.err, res.describe())


class TestOutputs(OutputCase):
    def test_output_symlink_to_root_file_is_replaced_not_followed(self):
        """The reproduction of class 1: ~/r.json -> a root-only file."""
        for opt in OUTPUTS:
            with self.subTest(opt=opt):
                link = os.path.join(self.home, "out" + opt)
                as_nobody("ln", "-s", self.victim, link)
                extra = ["--force"] if opt == "--record" else []
                res = self.run_nobody(["true"], [opt, link] + extra)
                self.assertEqual(res.rc, EXIT_OK, res.describe())
                self.assertVictimUntouched(res)
                st = os.lstat(link)
                self.assertTrue(stat.S_ISREG(st.st_mode),
                                "the link was not replaced by a file")
                self.assertEqual((st.st_uid, st.st_gid,
                                  stat.S_IMODE(st.st_mode)),
                                 (NOBODY.pw_uid, NOBODY.pw_gid, 0o600))
                self.assertGreater(st.st_size, 0)

    def test_record_without_force_never_touches_an_existing_name(self):
        link = os.path.join(self.home, "job.fplog")
        as_nobody("ln", "-s", self.victim, link)
        res = self.run_nobody(["true"], ["--record", link])
        self.assertRefused(res, "exists; pick another path")
        self.assertVictimUntouched(res)
        self.assertTrue(os.path.islink(link))

    def test_symlinked_directory_component_is_refused(self):
        """~/d -> a root-only directory: ~/d/x.json would be created in
        it by root."""
        d = os.path.join(self.home, "d")
        as_nobody("ln", "-s", self.vdir, d)
        for opt in OUTPUTS:
            with self.subTest(opt=opt):
                res = self.run_nobody(["true"],
                                      [opt, os.path.join(d, "x" + opt)])
                self.assertRefused(res, "symbolic link")
                self.assertVictimUntouched(res)

    def test_directory_the_user_cannot_write_is_refused(self):
        """A root-owned 0755 directory (as /etc is): root could write
        there, the invoking user cannot, so footprint does not."""
        rootdir = os.path.join(self.sb.base, "rootdir")
        os.mkdir(rootdir, 0o755)
        for opt in OUTPUTS:
            with self.subTest(opt=opt):
                res = self.run_nobody(["true"],
                                      [opt, os.path.join(rootdir, "x")])
                self.assertRefused(res, "permission denied")
                self.assertEqual(os.listdir(rootdir), [])

    def test_root_file_in_sticky_directory_is_not_truncated(self):
        """/tmp/r.json made by root (0644, so the user could not write
        it): footprint must neither truncate nor replace it."""
        sticky = os.path.join(self.sb.base, "tmp")
        os.mkdir(sticky)
        os.chmod(sticky, 0o1777)
        for opt in OUTPUTS:
            with self.subTest(opt=opt):
                path = os.path.join(sticky, "r" + opt)
                with open(path, "wb") as f:
                    f.write(SECRET)
                os.chmod(path, 0o644)
                ino = os.stat(path).st_ino
                res = self.run_nobody(["true"], [opt, path, "--force"])
                self.assertRefused(res, "permission denied")
                st = os.lstat(path)
                self.assertEqual((st.st_ino, st.st_uid, st.st_size),
                                 (ino, 0, len(SECRET)), res.describe())

    def test_special_files_are_never_replaced(self):
        """A device or FIFO at an output path is refused, even for root
        (`--receipt /dev/null` must not turn /dev/null into a file): a
        private null device and a FIFO stand in for the real ones."""
        dev = os.path.join(self.home, "null")
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        fifo = os.path.join(self.home, "fifo")
        os.mkfifo(fifo, 0o666)
        for env in (su.sudo_env(NOBODY), su.base_env()):
            for path in (dev, fifo):
                with self.subTest(path=path, sudo="SUDO_UID" in env):
                    res = self.sb.run(["true"], opts=["--receipt", path],
                                      receipt=False, env=env,
                                      cwd=self.home)
                    self.assertRefused(res, "not a regular file")
                    st = os.lstat(path)
                    self.assertFalse(stat.S_ISREG(st.st_mode))
        self.assertTrue(stat.S_ISCHR(os.lstat(dev).st_mode))
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_hard_link_elsewhere_keeps_its_content(self):
        """A file of the user's with a second name elsewhere: footprint
        writes a new inode, so the other name keeps the old bytes (it
        never writes into a file it did not create)."""
        path = os.path.join(self.home, "r.json")
        other = os.path.join(self.sb.base, "other-name")
        as_nobody("sh", "-c", "printf old > %s" % path)
        os.link(path, other)
        res = self.run_nobody(["true"], ["--receipt", path])
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        with open(other, "rb") as f:
            self.assertEqual(f.read(), b"old")
        self.assertNotEqual(os.stat(path).st_ino, os.stat(other).st_ino)

    def test_command_cannot_swap_its_outputs(self):
        """The command (as the user) renames the receipt away and puts a
        symlink to the victim in its place: footprint writes through the
        file it holds, never by name again."""
        r = os.path.join(self.home, "r.json")
        res = self.run_nobody(
            sh('mv "$1" "$1.moved"; ln -s "$2" "$1"', r, self.victim),
            ["--receipt", r])
        self.assertVictimUntouched(res)
        self.assertTrue(os.path.islink(r))
        with open(r + ".moved", "rb") as f:
            self.assertIn(b'"ok":false', f.read())


class TestInputs(OutputCase):
    def test_root_only_policy_is_not_read_or_echoed(self):
        """The reproduction of class 2: a root-only file whose first line
        is not a rule would have been echoed in the parse error."""
        with open(self.victim, "wb") as f:
            f.write(b"bogus " + SECRET)
        self.vstat = os.lstat(self.victim)
        res = self.run_nobody(["true"], ["--policy", self.victim])
        self.assertRefused(res, "permission denied")
        self.assertNotIn(b"6f1d2c", res.stdout + res.stderr)

    def test_policy_must_be_a_small_regular_file(self):
        fifo = os.path.join(self.home, "fifo")
        as_nobody("mkfifo", fifo)
        big = os.path.join(self.home, "big.policy")
        with open(big, "wb") as f:
            f.write(b"# padding\n" * (110 * 1024))
        os.chmod(big, 0o644)
        link = os.path.join(self.home, "link.policy")
        ok = os.path.join(self.home, "ok.policy")
        with open(ok, "w") as f:
            f.write("allow *\n")
        os.chmod(ok, 0o644)
        as_nobody("ln", "-s", ok, link)
        for path, words in (("/dev/zero", "not a regular file"),
                            (fifo, "not a regular file"),
                            (self.home, "not a regular file"),
                            (big, "larger than 1 MiB"),
                            (link, "symbolic link")):
            with self.subTest(policy=path):
                res = self.run_nobody(["true"], ["--policy", path])
                self.assertRefused(res, words)
                self.assertLess(res.elapsed, 10)

    def test_replay_under_sudo_acts_as_the_user(self):
        """replay and events need no root: under sudo they become the
        invoking user before they open anything."""
        log = os.path.join(self.home, "job.fplog")
        res = self.run_nobody(["true"], ["--record", log])
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        link = os.path.join(self.home, "again.json")
        as_nobody("ln", "-s", self.victim, link)
        cases = (
            (["replay", "--receipt", link, log], None),
            (["replay", "--receipt", os.path.join(self.vdir, "x"), log],
             "ermission denied"),
            (["replay", self.victim], "ermission denied"),
            (["events", self.victim], "ermission denied"),
            (["replay", "--policy", self.victim, log], "permission denied"),
        )
        for argv, words in cases:
            with self.subTest(argv=argv):
                p = subprocess.run([su.FOOTPRINT] + argv,
                                   env=su.sudo_env(NOBODY), cwd=self.home,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=30)
                res = su.Result(argv, p.returncode, p.stdout, p.stderr,
                                None, None, 0)
                self.assertVictimUntouched(res)
                if words is None:
                    self.assertEqual(p.returncode, EXIT_OK, res.describe())
                    continue
                self.assertEqual(p.returncode, EXIT_USAGE, res.describe())
                self.assertIn(words, res.err)


if __name__ == "__main__":
    unittest.main()
