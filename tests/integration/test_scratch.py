"""footprint run --scratch, lock and promote (issue 13, seed 003).

footprint runs as root the way sudo starts it, for the invoking user
`nobody`: the overlay is mounted by root, the command runs as nobody, and
lock and promote run as nobody without root.
"""

import fcntl
import hashlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, EXIT_VERDICT, EXIT_USAGE, PY  # noqa: E402

NOBODY = su.nobody()

MODEL = """from pathlib import Path
Path("calc.py").write_text("def add(a, b):\\n    return a + b\\n")
Path("README.md").write_text("# rewritten by the model, ignore me\\n")
Path("extra.py").write_text("print('side quest')\\n")
"""


def setUpModule():
    su.check_binary()


def lock_schema_errors(doc, kind):
    """Errors of doc against docs/KIND-lock.schema.json."""
    try:
        from jsonschema import Draft202012Validator
    except ImportError:  # pragma: no cover - the schema check is a bonus
        return []
    with open(os.path.join(su.TOP, "docs", kind + "-lock.schema.json")) as f:
        v = Draft202012Validator(json.load(f))
    return [e.message for e in v.iter_errors(doc)]


def tree(root):
    """{relative path: (type, mode, sha256 or target)} of everything under
    root, read without following symlinks: the real tree's state."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    body = hashlib.sha256(f.read()).hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                body = os.readlink(p)
            else:
                body = ""
            out[rel] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode),
                        body)
    return out


def as_nobody():
    os.setgroups([])
    os.setresgid(NOBODY.pw_gid, NOBODY.pw_gid, NOBODY.pw_gid)
    os.setresuid(NOBODY.pw_uid, NOBODY.pw_uid, NOBODY.pw_uid)


class ScratchCase(unittest.TestCase):
    """A job tree, a scratch dir and the runs of footprint on them: the
    helpers every scratch test file shares (no tests of its own)."""

    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="fpscratch-")
        os.chmod(self.top, 0o755)
        self.job = os.path.join(self.top, "job")
        self.fixture = os.path.join(self.top, "fixture")
        self.out = os.path.join(self.top, "out")
        for d in (self.job, self.fixture, self.out):
            os.mkdir(d)
        self.mounts = []
        self.addCleanup(self.cleanup)

    def cleanup(self):
        for m in reversed(self.mounts):
            subprocess.run(["umount", "-l", m])
        shutil.rmtree(self.top, ignore_errors=True)

    def chown_all(self):
        for dirpath, dirs, files in os.walk(self.top):
            for name in [dirpath] + [os.path.join(dirpath, n)
                                     for n in files]:
                os.lchown(name, NOBODY.pw_uid, NOBODY.pw_gid)

    def write(self, rel, text):
        p = os.path.join(self.top, rel)
        with open(p, "w") as f:
            f.write(text)
        os.lchown(p, NOBODY.pw_uid, NOBODY.pw_gid)

    def run_fp(self, args, cwd=None):
        """footprint ARGS as root under sudo for nobody."""
        p = subprocess.run([su.FOOTPRINT] + args, cwd=cwd or self.job,
                           env=su.sudo_env(NOBODY), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=300)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def run_user(self, args, cwd=None):
        """footprint ARGS as nobody, no root at all."""
        p = subprocess.run([su.world_copy(su.FOOTPRINT)] + args,
                           cwd=cwd or self.top,
                           env=su.base_env(), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           preexec_fn=as_nobody, timeout=300)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def scratch_run(self, name, cmd, extra=(), receipt=True):
        """A scratch run of cmd in job/; (rc, stderr, receipt, dir)."""
        sdir = os.path.join(self.top, name)
        rpath = os.path.join(self.out, name + ".json")
        args = ["run", "--quiet", "--scratch", sdir]
        if receipt:
            args += ["--receipt", rpath, "--record",
                     os.path.join(self.out, name + ".fplog")]
        rc, self.last_out, err = self.run_fp(args + list(extra) + ["--"] +
                                             cmd)
        r = None
        if receipt and os.path.exists(rpath):
            with open(rpath) as f:
                r = json.load(f)
            self.assertEqual(su.schema_errors(r), [])
        return rc, err, r, sdir

    def seed_job(self):
        """Seed 003 stage 1: a job with a broken calc.py."""
        self.write("job/calc.py", "def add(a, b):\n    return a - b\n")
        self.write("job/test_calc.py", "from calc import add\n\n"
                   "def test_add():\n    assert add(2, 3) == 5\n")
        self.write("job/README.md", "add is broken on purpose\n")
        self.write("model.py", MODEL)
        self.chown_all()

    def assertReplaySame(self, name):
        log = os.path.join(self.out, name + ".fplog")
        again = os.path.join(self.out, name + ".replay.json")
        rc, _, err = self.run_user(["replay", "--quiet", log,
                                    "--receipt", again])
        with open(os.path.join(self.out, name + ".json"), "rb") as a, \
                open(again, "rb") as b:
            self.assertEqual(a.read(), b.read(), err)

    def lock_output(self, receipt, lock, *extra):
        return self.run_user(["lock", receipt, "-o", lock] + list(extra))

    def promote(self, lock, scratch):
        """footprint promote as the invoking user: (exit code, stderr)"""
        rc, _, err = self.run_user(["promote", "--lock", lock, "--scratch",
                                    scratch])
        return rc, err

    def fixed_and_locked(self):
        """The seed job, calc.py fixed in scratch s1 and its output lock:
        (the scratch dir, the lock's path)."""
        self.seed_job()
        rc, err, _, s1 = self.scratch_run(
            "s1", ["sh", "-c", "echo fixed > calc.py"],
            ["--allow", "calc.py"])
        self.assertEqual(rc, EXIT_OK, err)
        olock = os.path.join(self.fixture, "output.lock")
        rc, _, err = self.lock_output(os.path.join(self.out, "s1.json"),
                                      olock)
        self.assertEqual(rc, EXIT_OK, err)
        return s1, olock


class ScratchTest(ScratchCase):
    def test_seed_003_stages_1_to_7(self):
        self.seed_job()
        real_before = tree(self.job)
        # stage 2: freeze the fixture
        ilock = os.path.join(self.fixture, "input.lock")
        rc, _, err = self.run_user(["lock", "--inputs", "job", "-o", ilock])
        self.assertEqual(rc, EXIT_OK, err)
        with open(ilock) as f:
            il = json.load(f)
        self.assertEqual(lock_schema_errors(il, "input"), [])
        self.assertEqual(sorted(e["path"] for e in il["files"]),
                         ["README.md", "calc.py", "test_calc.py"])
        # stage 4: the fake model runs in the scratch box, as nobody
        rc, err, r, s1 = self.scratch_run(
            "s1", [PY, "../model.py"],
            ["--allow", "calc.py", "--inputs-lock", ilock])
        self.assertEqual(rc, EXIT_VERDICT, err)  # README, extra.py
        self.assertEqual(tree(self.job), real_before,
                         "the real tree changed under --scratch")
        self.assertReplaySame("s1")
        prop = r["scratch"]["proposed"]
        self.assertEqual([c["path"] for c in prop["added"]],
                         [os.path.join(self.job, "extra.py")])
        self.assertEqual(sorted(c["path"] for c in prop["changed"]),
                         [os.path.join(self.job, n)
                          for n in ("README.md", "calc.py")])
        self.assertEqual(r["scratch"]["layers"][0]["input_sha256"],
                         il["root_sha256"])
        calc_new = hashlib.sha256(
            b"def add(a, b):\n    return a + b\n").hexdigest()
        calc = [c for c in prop["changed"] if c["path"].endswith("calc.py")]
        self.assertEqual(calc[0]["sha256"], calc_new)
        # each change has its writer: the model's python
        for c in r["files"]["changed"] + r["files"]["added"]:
            self.assertIn("python3", c["by"]["exe"], c)
        self.assertEqual(os.stat(os.path.join(s1, "0", "upper",
                                              "calc.py")).st_uid,
                         NOBODY.pw_uid)
        # stage 5: a failing receipt is locked only with --skip-disallowed
        olock = os.path.join(self.fixture, "output.lock")
        rc, _, err = self.lock_output(r_path := os.path.join(
            self.out, "s1.json"), olock)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("--skip-disallowed", err)
        self.assertFalse(os.path.exists(olock))
        rc, _, err = self.lock_output(r_path, olock, "--skip-disallowed")
        self.assertEqual(rc, EXIT_OK, err)
        with open(olock) as f:
            ol = json.load(f)
        self.assertEqual(lock_schema_errors(ol, "output"), [])
        self.assertEqual(sorted(os.path.basename(p) for p in ol["skipped"]),
                         ["README.md", "extra.py"])
        self.assertEqual([(c["path"], c["op"], c["sha256"])
                          for c in ol["changes"]],
                         [(os.path.join(self.job, "calc.py"), "changed",
                           calc_new)])
        # stage 6: promote, as nobody without root
        rc, err = self.promote(olock, s1)
        self.assertEqual(rc, EXIT_OK, err)
        with open(os.path.join(self.job, "calc.py")) as f:
            self.assertIn("return a + b", f.read())
        self.assertEqual(tree(self.job)["README.md"],
                         real_before["README.md"])
        self.assertFalse(os.path.exists(os.path.join(self.job, "extra.py")))
        self.assertEqual([n for n in os.listdir(self.job)
                          if n.startswith(".footprint")], [])
        t = subprocess.run([PY, "-m", "unittest", "-q", "test_calc"],
                           cwd=self.job, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, preexec_fn=as_nobody)
        self.assertEqual(t.returncode, 0, t.stdout)
        # stage 7: a mutated model; promote refuses with a hash miss
        self.write("model.py", MODEL.replace("a + b", "a * b"))
        promoted = tree(self.job)
        rc, err, r2, s2 = self.scratch_run(
            "s2", [PY, "../model.py"], ["--allow", "calc.py"])
        self.assertEqual(rc, EXIT_VERDICT, err)
        rc, err = self.promote(olock, s2)
        self.assertEqual(rc, EXIT_VERDICT, err)
        calc_mul = hashlib.sha256(
            b"def add(a, b):\n    return a * b\n").hexdigest()
        self.assertIn("hash miss", err)
        self.assertIn(calc_new, err)
        self.assertIn(calc_mul, err)
        self.assertEqual(tree(self.job), promoted)
        # and the input lock now sees the promoted calc.py as drift
        rc, err, _, _ = self.scratch_run("s3", ["true"],
                                         ["--inputs-lock", ilock],
                                         receipt=False)
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertIn("calc.py", err)
        self.assertFalse(os.path.exists(os.path.join(self.top, "s3", "0")))

    def test_promote_refuses_input_drift(self):
        s1, olock = self.fixed_and_locked()
        # the target changes after the lock
        self.write("job/calc.py", "def add(a, b):\n    return 42\n")
        changed = tree(self.job)
        rc, err = self.promote(olock, s1)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("input drift", err)
        self.assertIn("calc.py", err)
        self.assertEqual(tree(self.job), changed)

    def test_promote_refuses_set_drift(self):
        s1, olock = self.fixed_and_locked()
        # a file slipped into the scratch layer after the run
        self.write("s1/0/upper/sneaky.py", "import os\n")
        before = tree(self.job)
        rc, err = self.promote(olock, s1)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("set drift", err)
        self.assertIn("sneaky.py", err)
        self.assertEqual(tree(self.job), before)
        # a lock that says its receipt failed, with nothing set aside
        os.unlink(os.path.join(s1, "0", "upper", "sneaky.py"))
        with open(olock) as f:
            ol = json.load(f)
        ol["receipt_ok"] = False
        bad = os.path.join(self.fixture, "failed.lock")
        self.write("fixture/failed.lock", json.dumps(ol))
        rc, err = self.promote(bad, s1)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("not ok", err)
        self.assertEqual(tree(self.job), before)
        # the same lock as written promotes
        rc, err = self.promote(olock, s1)
        self.assertEqual(rc, EXIT_OK, err)

    def test_removal_is_locked_and_promoted(self):
        self.seed_job()
        rc, err, r, s1 = self.scratch_run(
            "s1", ["rm", "README.md"], ["--allow", "README.md"])
        self.assertEqual(rc, EXIT_OK, err)
        self.assertTrue(os.path.exists(os.path.join(self.job, "README.md")))
        self.assertEqual([c["path"] for c in
                          r["scratch"]["proposed"]["removed"]],
                         [os.path.join(self.job, "README.md")])
        olock = os.path.join(self.fixture, "output.lock")
        rc, _, err = self.lock_output(os.path.join(self.out, "s1.json"),
                                      olock)
        self.assertEqual(rc, EXIT_OK, err)
        rc, err = self.promote(olock, s1)
        self.assertEqual(rc, EXIT_OK, err)
        self.assertFalse(os.path.exists(os.path.join(self.job, "README.md")))
        self.assertEqual(sorted(os.listdir(self.job)),
                         ["calc.py", "test_calc.py"])

    def test_replaced_tree(self):
        """A directory removed and made again is opaque in the overlay:
        the receipt says replaced, promote removes what it held."""
        self.seed_job()
        os.makedirs(os.path.join(self.job, "m"))
        os.makedirs(os.path.join(self.job, "o"))
        self.write("job/m/a", "1\n")
        self.write("job/o/b", "2\n")
        self.chown_all()
        rc, err, r, s1 = self.scratch_run(
            "s1", ["sh", "-c", "echo x > m/new; rm -rf o; mkdir o; "
                   "echo y > o/c"], ["--allow", "m/", "--allow", "o/"])
        self.assertEqual(rc, EXIT_OK, err)
        self.assertReplaySame("s1")
        prop = r["scratch"]["proposed"]
        j = self.job
        self.assertEqual([c["path"] for c in prop["replaced"]],
                         [os.path.join(j, "o")])
        self.assertEqual([c["path"] for c in prop["removed"]],
                         [os.path.join(j, "o", "b")])
        self.assertEqual([c["path"] for c in prop["added"]],
                         [os.path.join(j, "m", "new"),
                          os.path.join(j, "o", "c")])
        olock = os.path.join(self.fixture, "output.lock")
        rc, _, err = self.lock_output(os.path.join(self.out, "s1.json"),
                                      olock)
        self.assertEqual(rc, EXIT_OK, err)
        rc, err = self.promote(olock, s1)
        self.assertEqual(rc, EXIT_OK, err)
        self.assertEqual(sorted(os.listdir(os.path.join(j, "o"))), ["c"])
        self.assertEqual(sorted(os.listdir(os.path.join(j, "m"))),
                         ["a", "new"])

    def test_promotes_of_one_tree_never_interleave(self):
        s1, olock = self.fixed_and_locked()
        before = tree(self.job)
        # another promote holds the tree
        held = os.open(self.job, os.O_RDONLY | os.O_DIRECTORY)
        self.addCleanup(os.close, held)
        fcntl.flock(held, fcntl.LOCK_EX)
        p = subprocess.Popen([su.world_copy(su.FOOTPRINT), "promote",
                              "--lock", olock,
                              "--scratch", s1], cwd=self.top,
                             env=su.base_env(), preexec_fn=as_nobody,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(p.kill)

        def waiting():
            with open("/proc/locks") as f:
                return any(" -> " in line and
                           " %d " % p.pid in line for line in f)
        self.assertTrue(su.wait_for(waiting, 30),
                        "promote did not wait for the lock on the tree")
        self.assertEqual(tree(self.job), before)
        fcntl.flock(held, fcntl.LOCK_UN)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, EXIT_OK, err)
        with open(os.path.join(self.job, "calc.py")) as f:
            self.assertEqual(f.read(), "fixed\n")

    def test_disk_full_restores_the_target(self):
        # the target is a small tmpfs; the upper layer is elsewhere
        self.job = os.path.join(self.top, "small")
        os.mkdir(self.job)
        subprocess.run(["mount", "-t", "tmpfs", "-o",
                        "size=256k,mode=0755,uid=%d,gid=%d" %
                        (NOBODY.pw_uid, NOBODY.pw_gid), "fpsmall",
                        self.job], check=True)
        self.mounts.append(self.job)
        self.write("small/a.txt", "a old\n")
        self.write("small/b.txt", "b old\n")
        self.chown_all()
        before = tree(self.job)
        rc, err, r, s1 = self.scratch_run(
            "s1", ["sh", "-c", "echo a new > a.txt; "
                   "head -c 1048576 /dev/zero > b.txt"],
            ["--allow", "a.txt", "--allow", "b.txt"])
        self.assertEqual(rc, EXIT_OK, err)
        self.assertEqual(tree(self.job), before)
        olock = os.path.join(self.fixture, "output.lock")
        rc, _, err = self.lock_output(os.path.join(self.out, "s1.json"),
                                      olock)
        self.assertEqual(rc, EXIT_OK, err)
        rc, err = self.promote(olock, s1)
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertIn("No space left on device", err)
        # a.txt was applied before b.txt failed, and was put back
        self.assertIn("applying %s/b.txt failed" % self.job, err)
        self.assertIn("is as it was", err)
        self.assertEqual(tree(self.job), before)

    def test_hide_cannot_read_the_key(self):
        self.seed_job()
        home = os.path.join(self.top, "home")
        os.makedirs(os.path.join(home, ".ssh"))
        self.write("home/.ssh/id_rsa", "PRIVATE KEY\n")
        self.write("home/.env", "TOKEN=1\n")
        self.write("job/.env", "JOBTOKEN=1\n")
        self.chown_all()
        os.chmod(os.path.join(home, ".ssh"), 0o700)
        key = os.path.join(home, ".ssh", "id_rsa")
        events = os.path.join(self.out, "ev.ndjson")
        for hidden in (True, False):
            extra = ["--events", events, "--scratch-also", home]
            if hidden:
                # a relative one, in the root, too
                extra += ["--hide", os.path.join(home, ".ssh"),
                          "--hide", os.path.join(home, ".env"),
                          "--hide", ".env"]
            # strace -f sees the same attempt footprint reports
            rc, err, r, sdir = self.scratch_run(
                "hide%d" % hidden,
                ["strace", "-f", "-qq", "-e", "trace=openat", "-o",
                 "strace.out", "sh", "-c",
                 "cat %s; cat %s/.env; cat .env" % (key, home)],
                extra)
            # written in the box: it is in the upper layer only
            self.assertFalse(os.path.exists(
                os.path.join(self.job, "strace.out")))
            with open(os.path.join(sdir, "0", "upper", "strace.out")) as f:
                traced = [ln for ln in f
                          if 'openat(AT_FDCWD, "%s"' % key in ln]
            self.assertEqual(len(traced), 1, err)
            opens = []
            with open(events) as f:
                for line in f:
                    ev = json.loads(line)
                    if ev["type"] == "open" and ev.get("path") == key:
                        opens.append(ev)
            self.assertEqual(len(opens), 1, opens)
            # a hide is no change of the tree
            self.assertEqual(r["files"]["changed"], [])
            self.assertEqual(r["scratch"]["proposed"]["changed"], [])
            if hidden:
                self.assertNotIn("PRIVATE KEY", self.last_out)
                self.assertNotIn("TOKEN", self.last_out)
                self.assertIn("Permission denied", err)
                self.assertFalse(opens[0]["ok"])
                self.assertEqual(opens[0]["errno"], "EACCES")
                self.assertIn("= -1 EACCES", traced[0])
            else:
                self.assertTrue(opens[0]["ok"], opens)
                self.assertIn("PRIVATE KEY", self.last_out)
                self.assertIn("JOBTOKEN=1", self.last_out)
        with open(key) as f:
            self.assertEqual(f.read(), "PRIVATE KEY\n")

    def test_no_network_connect_fails(self):
        self.seed_job()
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(4)
        self.addCleanup(srv.close)
        port = srv.getsockname()[1]
        probe = ("import socket,sys\n"
                 "s=socket.socket()\n"
                 "try:\n"
                 "    s.connect(('127.0.0.1', %d))\n"
                 "except OSError as e:\n"
                 "    print('connect failed', e.errno)\n"
                 "    sys.exit(3)\n"
                 "print('connected')\n" % port)
        rc, err, _, _ = self.scratch_run("net1", [PY, "-c", probe],
                                         receipt=False)
        self.assertNotEqual(rc, 125, err)
        self.assertIn("connected", self.last_out)
        p = subprocess.run([su.FOOTPRINT, "run", "--quiet", "--scratch",
                            os.path.join(self.top, "net2"), "--no-network",
                            "--", PY, "-c", probe], cwd=self.job,
                           env=su.sudo_env(NOBODY),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
        self.assertIn(b"connect failed 111", p.stdout)
        p = subprocess.run([su.FOOTPRINT, "run", "--quiet", "--scratch",
                            os.path.join(self.top, "net3"),
                            "--", PY, "-c", probe], cwd=self.job,
                           env=su.sudo_env(NOBODY),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        self.assertIn(b"connected", p.stdout)

    def test_usage_errors(self):
        self.seed_job()
        rc, _, err = self.run_fp(["run", "--hide", "/tmp", "--", "true"])
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertTrue(err.startswith("footprint:"), err)
        rc, err, _, sdir = self.scratch_run("s1", ["true"], receipt=False)
        self.assertEqual(rc, EXIT_OK, err)
        rc, err, _, _ = self.scratch_run("s1", ["true"], receipt=False)
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertIn("empty or new directory", err)
        rc, err, _, _ = self.scratch_run(
            "s2", ["true"], ["--hide", os.path.join(self.top, "nope")],
            receipt=False)
        self.assertEqual(rc, EXIT_USAGE, err)
        rc, err, _, _ = self.scratch_run("job/s", ["true"], receipt=False)
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertEqual(sorted(os.listdir(self.job)),
                         ["README.md", "calc.py", "test_calc.py"])
        for args in (["lock"], ["lock", "--inputs", "job", "x.json",
                                "-o", "l"],
                     ["promote", "--lock", "l"], ["promote", "--bogus"]):
            rc, _, err = self.run_user(args)
            self.assertEqual(rc, EXIT_USAGE, (args, err))
            self.assertTrue(err.startswith("footprint:"), err)
        for sub in ("lock", "promote"):
            rc, out, _ = self.run_user([sub, "--help"])
            self.assertEqual(rc, EXIT_OK)
            self.assertIn("Examples:", out)
        rc, _, err = self.run_user(["promote", "--lock", "model.py",
                                    "--scratch", "job"])
        self.assertEqual(rc, EXIT_USAGE, err)


if __name__ == "__main__":
    unittest.main()
