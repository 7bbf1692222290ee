"""footprint promote against a hostile scratch layer and a root login
(issue 28: setuid files, promote races, escaping).

The scratch layer is the invoking user's: anything running as them may
change it while promote runs. Promote must copy only the regular files
it verified, never hang on what was swapped in, be all or nothing even
when a signal comes, and print what the layer names without letting it
drive the terminal. As root with nobody to act for, it must not make a
root-owned set-user-ID program out of what the command left.

The races are real: a process of the user swaps files while promote
writes, and signals come at a step promote is seen to be at (its
temporary file there, the steps before it applied).
"""

import json
import os
import signal
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
import test_scratch as ts  # noqa: E402
from sudo_util import EXIT_OK, EXIT_USAGE, EXIT_VERDICT  # noqa: E402

NOBODY = ts.NOBODY
BIG = 64 << 20  # a file whose copy lasts long enough to be seen

# run as the user: wait until promote writes (its temporary file in
# WATCH), then put a FIFO, or a copy of the file, in TARGET's place
RACER = r"""
import os, shutil, sys, time
watch, target, how = sys.argv[1:4]
deadline = time.monotonic() + 120
while not any(n.startswith(".footprint-new.") for n in os.listdir(watch)):
    if time.monotonic() > deadline:
        sys.exit(3)
tmp = os.path.join(os.path.dirname(target), ".swap")
if how == "fifo":
    os.mkfifo(tmp, 0o644)
else:
    shutil.copy2(target, tmp)
os.rename(tmp, target)
print("swapped", flush=True)
"""


def setUpModule():
    su.check_binary()


def leftovers(root):
    found = []
    for dirpath, dirs, files in os.walk(root):
        found += [os.path.join(dirpath, n) for n in dirs + files
                  if n.startswith(".footprint-")]
    return found


def octal_modes(v):
    """v with every "mode" number spelled as an octal string, as the
    receipts of engineer procev spell them."""
    if isinstance(v, dict):
        return {k: ("%04o" % x if k == "mode" and isinstance(x, int)
                    else octal_modes(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [octal_modes(x) for x in v]
    return v


class PromoteCase(ts.ScratchCase):
    def start_promote(self, lock, scratch, extra=()):
        """footprint promote as nobody, in the background."""
        p = subprocess.Popen([su.world_copy(su.FOOTPRINT), "promote",
                              "--lock", lock, "--scratch", scratch] +
                             list(extra), cwd=self.top, env=su.base_env(),
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=ts.as_nobody)
        self.addCleanup(lambda: p.poll() is None and (p.kill(), p.wait()))
        return p

    def finish(self, p, timeout=60):
        try:
            _, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
            self.fail("promote did not end within %ds (it hung): %s" %
                      (timeout, err.decode("utf-8", "replace")))
        return p.returncode, err.decode("utf-8", "replace")

    def start_racer(self, watch, target, how):
        script = os.path.join(self.top, "racer.py")
        with open(script, "w") as f:
            f.write(RACER)
        os.chmod(script, 0o644)
        r = subprocess.Popen([su.PY, script, watch, target, how],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=ts.as_nobody)
        self.addCleanup(lambda: r.poll() is None and (r.kill(), r.wait()))
        return r

    def locked(self, name, cmd, allow, roots=()):
        """A scratch run of cmd in job/ (and roots) and its output lock:
        (the scratch dir, the lock's path)."""
        # other suites' listeners on this machine are not this run's
        policy = os.path.join(self.top, "noise.policy")
        with open(policy, "w") as f:
            f.write("ignore bind *\n")
        os.chmod(policy, 0o644)
        extra = ["--policy", policy]
        for root in roots:
            extra += ["--root", root]
        if roots:
            extra += ["--root", self.job]
        for a in allow:
            extra += ["--allow", a]
        rc, err, r, sdir = self.scratch_run(name, cmd, extra)
        self.assertEqual(rc, EXIT_OK, (err, r and r["reasons"]))
        lock = os.path.join(self.fixture, name + ".lock")
        rc, _, err = self.lock_output(os.path.join(self.out, name + ".json"),
                                      lock)
        self.assertEqual(rc, EXIT_OK, err)
        return sdir, lock


class PromoteRaceTest(PromoteCase):
    def test_fifo_swapped_in_after_verification(self):
        """Two roots: the first is promoted while the racer swaps the
        second root's file for a FIFO. Promote must neither hang nor
        leave the first root promoted alone."""
        job2 = os.path.join(self.top, "job2")
        os.mkdir(job2)
        self.write("job2/big.bin", "old\n")
        self.write("job/z.py", "old = 1\n")
        self.chown_all()
        before, before2 = ts.tree(self.job), ts.tree(job2)
        # --root job2 --root job: job2 is promoted first, from layer 0
        sdir, lock = self.locked(
            "s1", ["sh", "-c", "head -c %d /dev/urandom > %s/big.bin; "
                   "echo 'new = 1' > z.py" % (BIG, job2)],
            ["%s/big.bin" % job2, "%s/z.py" % self.job], roots=[job2])
        with open(lock) as f:
            self.assertEqual([x["root"] for x in json.load(f)["roots"]],
                             [job2, self.job])
        z = os.path.join(sdir, "1", "upper", "z.py")
        racer = self.start_racer(job2, z, "fifo")
        rc, err = self.finish(self.start_promote(lock, sdir))
        out, rerr = racer.communicate(timeout=30)
        self.assertEqual(out, b"swapped\n", rerr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(z).st_mode))
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("applying %s/z.py failed: its scratch file is not "
                      "the regular file that was verified" % self.job, err)
        self.assertIn("%s is as it was" % job2, err)
        self.assertIn("%s is as it was" % self.job, err)
        self.assertEqual(ts.tree(self.job), before)
        self.assertEqual(ts.tree(job2), before2)
        self.assertEqual(leftovers(self.job) + leftovers(job2), [])

    def test_file_swapped_for_a_copy_after_verification(self):
        """The same bytes in another inode are not the file verified."""
        self.write("job/a.bin", "old\n")
        self.write("job/z.py", "old = 1\n")
        self.chown_all()
        before = ts.tree(self.job)
        sdir, lock = self.locked(
            "s1", ["sh", "-c", "head -c %d /dev/urandom > a.bin; "
                   "echo 'new = 1' > z.py" % BIG], ["a.bin", "z.py"])
        z = os.path.join(sdir, "0", "upper", "z.py")
        ino = os.lstat(z).st_ino
        racer = self.start_racer(self.job, z, "copy")
        rc, err = self.finish(self.start_promote(lock, sdir))
        self.assertEqual(racer.communicate(timeout=30)[0], b"swapped\n")
        self.assertNotEqual(os.lstat(z).st_ino, ino)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("applying %s/z.py failed: its scratch file is not "
                      "the regular file that was verified" % self.job, err)
        self.assertEqual(ts.tree(self.job), before)
        self.assertEqual(leftovers(self.job), [])
        # nothing raced: the same lock promotes
        rc, err = self.promote(lock, sdir)
        self.assertEqual(rc, EXIT_OK, err)

    def test_signal_mid_promote_restores_the_tree(self):
        """SIGINT, SIGTERM or SIGHUP while promote is at its fifth of
        eight changes, the first four applied: the tree is as it was,
        and promote ends by that signal."""
        names = ["c%d" % i for i in range(1, 9)]
        for n in names:
            self.write("job/" + n, "old %s\n" % n)
        self.chown_all()
        before = ts.tree(self.job)
        sdir, lock = self.locked(
            "s1", ["sh", "-c", "for n in c1 c2 c3 c4 c6 c7 c8; do "
                   "echo new $n > $n; done; head -c %d /dev/urandom > c5"
                   % BIG], ["c*"])
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            p = self.start_promote(lock, sdir)
            fifth = os.path.join(self.job, ".footprint-new.%d.4" % p.pid)
            seen = su.wait_for(lambda: os.path.exists(fifth) or
                               p.poll() is not None, 60, step=0.0005)
            self.assertTrue(seen and p.poll() is None,
                            "promote was not seen at its fifth change")
            os.kill(p.pid, signal.SIGSTOP)
            # mid-promote: the four before it are in the tree
            for n in names[:4]:
                with open(os.path.join(self.job, n)) as f:
                    self.assertEqual(f.read(), "new %s\n" % n)
            os.kill(p.pid, sig)
            os.kill(p.pid, signal.SIGCONT)
            rc, err = self.finish(p)
            self.assertEqual(ts.tree(self.job), before, sig.name)
            self.assertEqual(leftovers(self.job), [])
            self.assertEqual(rc, -sig, err)
            self.assertIn("interrupted by %s while applying %s/c5" %
                          (sig.name, self.job), err)
            self.assertIn("%s is as it was" % self.job, err)
        rc, err = self.promote(lock, sdir)
        self.assertEqual(rc, EXIT_OK, err)
        with open(os.path.join(self.job, "c8")) as f:
            self.assertEqual(f.read(), "new c8\n")


class PromoteRootTest(PromoteCase):
    """A root login: footprint run and promote as root, no SUDO_UID."""

    def root_fp(self, args, env=None, cwd=None):
        p = subprocess.run([su.FOOTPRINT] + args, cwd=cwd or self.top,
                           env=env or su.base_env(), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=300)
        return p.returncode, p.stderr.decode("utf-8", "replace")

    def setuid_lock(self):
        """A root login's scratch run that left a set-user-ID root copy
        of dash in its layer, locked with that mode."""
        self.write("job/calc.py", "x = 1\n")
        sdir = os.path.join(self.top, "s1")
        rpath = os.path.join(self.out, "s1.json")
        rc, err = self.root_fp(
            ["run", "--quiet", "--scratch", sdir, "--receipt", rpath,
             "--allow", "rootsh", "--", "cp", "/bin/dash", "rootsh"],
            cwd=self.job)
        self.assertEqual(rc, EXIT_OK, err)
        lock = os.path.join(self.fixture, "out.lock")
        rc, err = self.root_fp(["lock", rpath, "-o", lock])
        self.assertEqual(rc, EXIT_OK, err)
        # what a command could do in its layer, and lock would record
        up = os.path.join(sdir, "0", "upper", "rootsh")
        self.assertEqual(os.lstat(up).st_uid, 0)
        os.chmod(up, 0o4755)
        with open(lock) as f:
            lk = json.load(f)
        [c] = lk["changes"]
        # a lock of version 1 (decimal modes) asks the same
        self.assertIn(c["mode"], ("0755", 0o755))
        c["mode"] = "4755" if lk["version"] > 1 else 0o4755
        with open(lock, "w") as f:
            json.dump(lk, f)
        return sdir, lock

    def test_root_login_refused_without_as_root(self):
        sdir, lock = self.setuid_lock()
        before = ts.tree(self.job)
        for env in (su.base_env(), su.base_env(SUDO_UID="0", SUDO_GID="0",
                                               SUDO_USER="root")):
            rc, err = self.root_fp(["promote", "--lock", lock, "--scratch",
                                    sdir], env)
            self.assertEqual(rc, EXIT_USAGE, err)
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertIn("refused to run as root", err)
            self.assertIn("--as-root", err)
            self.assertEqual(ts.tree(self.job), before)

    def test_as_root_drops_the_setuid_bit(self):
        sdir, lock = self.setuid_lock()
        rc, err = self.root_fp(["promote", "--as-root", "--lock", lock,
                                "--scratch", sdir])
        self.assertEqual(rc, EXIT_OK, err)
        path = os.path.join(self.job, "rootsh")
        self.assertIn("%s: written 0755, not 4755" % path, err)
        st = os.lstat(path)
        self.assertEqual((st.st_uid, stat.S_IMODE(st.st_mode)), (0, 0o755))
        with open("/bin/dash", "rb") as a, open(path, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_as_root_is_for_a_root_login_only(self):
        sdir, lock = self.setuid_lock()
        before = ts.tree(self.job)
        rc, _, err = self.run_user(["promote", "--as-root", "--lock", lock,
                                    "--scratch", sdir])
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertIn("--as-root is for a root login", err)
        self.assertEqual(ts.tree(self.job), before)


class LockFormatTest(PromoteCase):
    def test_modes_are_octal_and_old_formats_still_read(self):
        self.write("job/calc.py", "x = 1\n")
        self.write("job/tool.sh", "echo 1\n")
        self.chown_all()
        ilock = os.path.join(self.fixture, "input.lock")
        rc, _, err = self.run_user(["lock", "--inputs", "job", "-o", ilock])
        self.assertEqual(rc, EXIT_OK, err)
        with open(ilock) as f:
            il = json.load(f)
        self.assertEqual(il["version"], 2)
        self.assertEqual(ts.lock_schema_errors(il, "input"), [])
        self.assertEqual({e["path"]: e["mode"] for e in il["files"]},
                         {"calc.py": "0644", "tool.sh": "0644"})
        # an input lock of version 1 (decimal modes) is still checked
        old = dict(il, version=1, files=[dict(e, mode=int(e["mode"], 8))
                                         for e in il["files"]])
        self.write("fixture/input1.lock", json.dumps(old))
        sdir, lock = self.locked(
            "s1", ["sh", "-c", "echo x = 2 > calc.py; chmod 750 tool.sh"],
            ["calc.py", "tool.sh"])
        rc, err, _, _ = self.scratch_run(
            "s2", ["true"], ["--inputs-lock",
                             os.path.join(self.fixture, "input1.lock")],
            receipt=False)
        self.assertEqual(rc, EXIT_OK, err)
        with open(lock) as f:
            lk = json.load(f)
        self.assertEqual(lk["version"], 2)
        self.assertEqual(ts.lock_schema_errors(lk, "output"), [])
        self.assertEqual(
            {os.path.basename(c["path"]): (c["mode"], c["before"]["mode"])
             for c in lk["changes"]},
            {"calc.py": ("0644", "0644"), "tool.sh": ("0750", "0644")})
        # a receipt whose modes are octal strings locks the same
        with open(os.path.join(self.out, "s1.json")) as f:
            r = json.load(f)
        self.write("out/octal.json", json.dumps(octal_modes(r)))
        lock2 = os.path.join(self.fixture, "octal.lock")
        rc, _, err = self.lock_output(os.path.join(self.out, "octal.json"),
                                      lock2)
        self.assertEqual(rc, EXIT_OK, err)
        with open(lock2) as f:
            self.assertEqual(json.load(f), lk)
        # a version 1 output lock (decimal modes) still promotes
        v1 = dict(lk, version=1, changes=[
            dict(c, mode=int(c["mode"], 8),
                 before=dict(c["before"], mode=int(c["before"]["mode"], 8)))
            for c in lk["changes"]])
        self.write("fixture/v1.lock", json.dumps(v1))
        rc, err = self.promote(os.path.join(self.fixture, "v1.lock"), sdir)
        self.assertEqual(rc, EXIT_OK, err)
        st = os.lstat(os.path.join(self.job, "tool.sh"))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o750)
        with open(os.path.join(self.job, "calc.py")) as f:
            self.assertEqual(f.read(), "x = 2\n")

    def test_hash_miss_shows_modes_in_octal(self):
        sdir, lock = self.fixed_and_locked()
        os.chmod(os.path.join(sdir, "0", "upper", "calc.py"), 0o6755)
        rc, err = self.promote(lock, sdir)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("(mode 0644), the scratch has", err)
        self.assertIn("(mode 6755)", err)


class PromoteNamesTest(PromoteCase):
    """Names the command chose, in promote's messages and in the lock."""

    ODD = b"new\nline \x1b[31mred"
    LATIN1 = b"caf\xe9.txt"
    LINK = b"ln\x1b]0;title\x07"
    TARGET = b"t\x1b[2J\ngt"

    def test_odd_names_are_promoted_and_escaped(self):
        self.seed_job()
        script = ("import os\n"
                  "for n in (%r, %r):\n"
                  "    open(n, 'wb').write(b'x\\n')\n"
                  "os.symlink(%r, %r)\n" %
                  (self.ODD, self.LATIN1, self.TARGET, self.LINK))
        self.write("odd.py", script)
        self.chown_all()
        sdir, lock = self.locked(
            "s1", [su.PY, os.path.join(self.top, "odd.py")], ["*"])
        with open(lock) as f:
            lk = json.load(f)
        self.assertEqual(ts.lock_schema_errors(lk, "output"), [])
        self.assertEqual(len(lk["changes"]), 3, lk)
        # lossless in JSON: the bytes that are not UTF-8 in _b64
        self.assertIn("path_b64", [k for c in lk["changes"] for k in c])
        jobb = os.fsencode(self.job)
        # a name that drives the terminal, planted after the lock
        evil = b"evil\x1b]0;pwned\x07\nfootprint: promoted 9 locked changes"
        with open(os.path.join(os.fsencode(sdir), b"0/upper", evil),
                  "w") as f:
            f.write("x")
        before = ts.tree(self.job)
        p = subprocess.run([su.world_copy(su.FOOTPRINT), "promote", "--lock",
                            lock, "--scratch", sdir], cwd=self.top,
                           env=su.base_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, preexec_fn=ts.as_nobody)
        err = p.stderr
        self.assertEqual(p.returncode, EXIT_VERDICT, err)
        self.assertNotIn(b"\x1b", err)
        self.assertNotIn(b"\x07", err)
        for line in err.splitlines():
            self.assertTrue(line.startswith(b"footprint: promote:"), err)
        self.assertIn(b"extra " + jobb +
                      b"/evil\\x1b]0;pwned\\x07\\x0afootprint: promoted 9",
                      err)
        self.assertEqual(ts.tree(self.job), before)
        os.unlink(os.path.join(os.fsencode(sdir), b"0/upper", evil))
        # a retargeted symlink: a hash miss naming both targets, escaped
        link = os.path.join(os.fsencode(sdir), b"0/upper/", self.LINK)
        os.unlink(link)
        os.symlink(b"x\x1b[2Jy", link)
        p = subprocess.run([su.world_copy(su.FOOTPRINT), "promote", "--lock",
                            lock, "--scratch", sdir], cwd=self.top,
                           env=su.base_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, preexec_fn=ts.as_nobody)
        self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertIn(b"hash miss at " + jobb +
                      b"/ln\\x1b]0;title\\x07: locked t\\x1b[2J\\x0agt, "
                      b"the scratch has x\\x1b[2Jy", p.stderr)
        os.unlink(link)
        os.symlink(self.TARGET, link)
        rc, err = self.promote(lock, sdir)
        self.assertEqual(rc, EXIT_OK, err)
        for name in (self.ODD, self.LATIN1):
            with open(os.path.join(jobb, name), "rb") as f:
                self.assertEqual(f.read(), b"x\n")
        self.assertEqual(os.readlink(os.path.join(jobb, self.LINK)),
                         self.TARGET)


if __name__ == "__main__":
    unittest.main()
