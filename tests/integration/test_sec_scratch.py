"""The scratch box against its own invoking user (issue 13 review).

footprint runs as root the way sudo starts it, for `nobody`. The upper
layers are nobody's: whatever nobody writes there shows at the roots'
paths inside the box, however the real files there are owned. So nothing
in the box may gain privileges by exec, or a set-user-ID program would
read nobody's files at root's paths.
"""

import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
import test_scratch as ts  # noqa: E402
from sudo_util import EXIT_OK, EXIT_USAGE, EXIT_VERDICT  # noqa: E402

NOBODY = ts.NOBODY


def setUpModule():
    su.check_binary()


class ScratchSecTest(ts.ScratchCase):
    def test_setuid_gains_nothing_in_the_box(self):
        self.chown_all()
        # a root-owned tree whose config nobody may not write
        etc = os.path.join(self.top, "etc")
        os.mkdir(etc)
        with open(os.path.join(etc, "conf"), "w") as f:
            f.write("trusted\n")
        suid = os.path.join(self.top, "suid-id")
        shutil.copy("/usr/bin/id", suid)
        os.chmod(suid, 0o4755)
        sdir = os.path.join(self.top, "s")
        # a name the snapshots have not looked up in the overlay yet
        upper = os.path.join(sdir, "1", "upper", "ld.so.preload")
        rc, err, _, _ = self.scratch_run(
            "s", ["sh", "-c", "echo planted > %s; cat %s/ld.so.preload; %s -u" %
                  (upper, etc, suid)],
            ["--root", self.job, "--root", etc], receipt=False)
        lines = self.last_out.split()
        # the premise: nobody's file is at root's path inside the box
        self.assertEqual(lines[0], "planted", self.last_out)
        # so a set-user-ID root program there must not run as root
        self.assertEqual(lines[1], str(NOBODY.pw_uid), self.last_out)
        # and the plant is no event's: unexplained, the run fails
        self.assertEqual(rc, EXIT_VERDICT, err)
        with open(os.path.join(etc, "conf")) as f:
            self.assertEqual(f.read(), "trusted\n")

    def test_inputs_lock_sees_a_retargeted_symlink(self):
        self.write("job/a", "a\n")
        self.write("job/b", "b\n")
        os.symlink("a", os.path.join(self.job, "link"))
        self.chown_all()
        os.lchown(os.path.join(self.job, "link"), NOBODY.pw_uid,
                  NOBODY.pw_gid)
        ilock = os.path.join(self.fixture, "input.lock")
        rc, _, err = self.run_user(["lock", "--inputs", "job", "-o", ilock])
        self.assertEqual(rc, EXIT_OK, err)
        rc, err, _, _ = self.scratch_run("s1", ["true"],
                                         ["--inputs-lock", ilock],
                                         receipt=False)
        self.assertEqual(rc, EXIT_OK, err)
        # same type, same mode, another target: the input drifted
        os.unlink(os.path.join(self.job, "link"))
        os.symlink("b", os.path.join(self.job, "link"))
        rc, err, _, _ = self.scratch_run("s2", ["true"],
                                         ["--inputs-lock", ilock],
                                         receipt=False)
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertIn("%s/link points elsewhere" % self.job, err)
        self.assertFalse(os.path.exists(os.path.join(self.top, "s2", "0")))

    def test_promoted_tree_removal_leaves_no_backup(self):
        os.makedirs(os.path.join(self.job, "d", "e"))
        self.write("job/d/f", "f\n")
        self.write("job/d/e/g", "g\n")
        self.write("job/keep", "k\n")
        self.chown_all()
        rc, err, _, s1 = self.scratch_run(
            "s1", ["rm", "-r", "d"], ["--allow", "d", "--allow", "d/**"])
        self.assertEqual(rc, EXIT_OK, err)
        olock = os.path.join(self.fixture, "output.lock")
        rc, _, err = self.run_user(["lock", os.path.join(self.out, "s1.json"),
                                    "-o", olock])
        self.assertEqual(rc, EXIT_OK, err)
        rc, err = self.promote(olock, s1)
        self.assertEqual(rc, EXIT_OK, err)
        # the tree is gone, backups and all
        self.assertEqual(os.listdir(self.job), ["keep"])

    def skip_lock(self, script, home):
        """A scratch run of script that also fixes calc.py (allowed);
        then lock --skip-disallowed of its receipt: (rc, stderr)."""
        self.seed_job()
        sdir = os.path.join(self.top, "s1")
        rpath = os.path.join(self.out, "s1.json")
        p = subprocess.run(
            [su.FOOTPRINT, "run", "--quiet", "--scratch", sdir, "--receipt",
             rpath, "--allow", "calc.py", "--", "sh", "-c",
             script + "; echo fixed > calc.py"],
            cwd=self.job, env=su.sudo_env(NOBODY, HOME=home),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, timeout=300)
        self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
        olock = os.path.join(self.fixture, "output.lock")
        rc, _, err = self.run_user(["lock", rpath, "-o", olock,
                                    "--skip-disallowed"])
        if rc != EXIT_OK:
            self.assertFalse(os.path.exists(olock))
        return rc, err

    def test_skip_disallowed_never_sets_aside_a_secret_read(self):
        home = os.path.join(self.top, "home")
        os.makedirs(os.path.join(home, ".ssh"))
        self.write("home/.ssh/id_rsa", "PRIVATE KEY\n")
        self.chown_all()
        key = os.path.join(home, ".ssh", "id_rsa")
        rc, err = self.skip_lock("cat %s >/dev/null" % key, home)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn(key, err)
        self.assertIn("--skip-disallowed cannot", err)

    def test_skip_disallowed_never_sets_aside_a_real_write(self):
        # outside the roots there is no overlay: the write is real
        out = os.path.join(self.top, "outside.txt")
        self.chown_all()
        rc, err = self.skip_lock("echo x > %s" % out, self.top)
        self.assertTrue(os.path.exists(out))
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn(out, err)

    def test_skip_disallowed_still_sets_aside_a_box_change(self):
        self.chown_all()
        rc, err = self.skip_lock("echo x > extra.py", self.top)
        self.assertEqual(rc, EXIT_OK, err)

    def test_promote_of_an_edited_lock_is_a_clear_refusal(self):
        """A lock whose change is also skipped, against a scratch that
        lacks it: refused in one line, not a crash."""
        self.seed_job()
        rc, err, _, s1 = self.scratch_run(
            "s1", ["sh", "-c", "echo x > extra.py"], ["--allow", "extra.py"])
        self.assertEqual(rc, EXIT_OK, err)
        rc, err, _, s2 = self.scratch_run("s2", ["true"])
        self.assertEqual(rc, EXIT_OK, err)
        olock = os.path.join(self.fixture, "output.lock")
        rc, _, err = self.run_user(["lock", os.path.join(self.out, "s1.json"),
                                    "-o", olock])
        self.assertEqual(rc, EXIT_OK, err)
        with open(olock) as f:
            lk = json.load(f)
        lk["skipped"] = [c["path"] for c in lk["changes"]]
        with open(olock, "w") as f:
            json.dump(lk, f)
        rc, err = self.promote(olock, s2)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertTrue(err.startswith("footprint:"), err)
        self.assertIn(os.path.join(self.job, "extra.py"), err)
        self.assertFalse(os.path.exists(os.path.join(self.job, "extra.py")))

    def test_box_cannot_reach_the_real_tree_through_proc(self):
        """The box has a pid namespace and its own /proc: /proc/PID/root of
        a process of the user outside it is not there, so --hide cannot be
        read around nor the real tree written."""
        self.seed_job()
        home = os.path.join(self.top, "home")
        os.makedirs(os.path.join(home, ".ssh"))
        self.write("home/.ssh/id_rsa", "PRIVATE KEY\n")
        self.chown_all()
        before = ts.tree(self.job)
        outside = subprocess.Popen(["sleep", "300"],
                                   preexec_fn=ts.as_nobody)
        self.addCleanup(outside.wait)
        self.addCleanup(outside.kill)
        via = "/proc/%d/root" % outside.pid
        self.scratch_run(
            "s1", ["sh", "-c", "cat %s%s/.ssh/id_rsa; echo x > %s%s/calc.py"
                   % (via, home, via, self.job)],
            ["--hide", os.path.join(home, ".ssh")], receipt=False)
        self.assertNotIn("PRIVATE KEY", self.last_out)
        self.assertEqual(ts.tree(self.job), before)


if __name__ == "__main__":
    unittest.main()
