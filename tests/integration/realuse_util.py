"""Helpers for the real-use tests (test_realuse*.py, test_doc_blocks.py):
footprint used as its users use it, a non-root user who types
`sudo footprint run ...` in a shell.

A throw-away user is made for the module (useradd, a real home under
/home) with a sudoers.d entry that lets it run anything without a
password, as a developer's box or a CI runner does, and whose
secure_path starts with a world-readable directory holding a copy of the
footprint under test, so that `sudo footprint` and plain `footprint` both
find it. Both are removed at the end.

Environment:
  FOOTPRINT             the footprint binary (default: build/footprint)
  FOOTPRINT_REQUIRE_BPF 1: "cannot trace" (exit 125) and a missing tool
                        are failures, not skips
"""

import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import unittest
from fptest import cannot_test, need_tools  # noqa: F401

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FOOTPRINT = os.path.abspath(os.environ.get("FOOTPRINT") or
                            os.path.join(TOP, "build", "footprint"))
REQUIRE_BPF = os.environ.get("FOOTPRINT_REQUIRE_BPF") == "1"
SYS_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_USAGE = 2
EXIT_NOTRACE = 125


class User:
    """A throw-away login user that may sudo, and a bin directory with
    footprint in it. make() once per module, remove() at its end."""

    def __init__(self, prefix="fpru"):
        self.name = "%s-%d" % (prefix, os.getpid() % 100000)
        self.pw = None
        self.bin = None
        self.sudoers = None

    def make(self):
        if os.geteuid() != 0:
            cannot_test("the real-use tests make a user and sudo: run them "
                        "as root")
        need_tools("sudo", "useradd", "userdel")
        if not os.access(FOOTPRINT, os.X_OK):
            cannot_test("%s is not built; run scripts/build" % FOOTPRINT)
        # not under /tmp: the doc blocks run with a /tmp of their own
        self.bin = os.path.realpath(tempfile.mkdtemp(prefix="fprubin-",
                                                     dir="/var/tmp"))
        os.chmod(self.bin, 0o755)
        shutil.copy2(FOOTPRINT, os.path.join(self.bin, "footprint"))
        os.chmod(os.path.join(self.bin, "footprint"), 0o755)
        subprocess.run(["userdel", "-r", self.name],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p = subprocess.run(["useradd", "-m", "-s", "/bin/sh", self.name],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            cannot_test("useradd failed: %s" % p.stdout.decode().strip())
        self.pw = pwd.getpwnam(self.name)
        # a name sudo reads (no dot, no ~), 0440 as visudo makes them
        self.sudoers = "/etc/sudoers.d/%s" % self.name.replace("-", "_")
        with open(self.sudoers, "w") as f:
            f.write("Defaults:%s secure_path=\"%s:%s\"\n"
                    "%s ALL=(ALL) NOPASSWD: ALL\n" %
                    (self.name, self.bin, SYS_PATH, self.name))
        os.chmod(self.sudoers, 0o440)
        p = subprocess.run(["sudo", "-u", self.name, "sudo", "-n", "true"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            self.remove()
            cannot_test("sudo does not work for a new user here: %s" %
                        p.stdout.decode().strip())
        return self

    def remove(self):
        if self.sudoers and os.path.exists(self.sudoers):
            os.unlink(self.sudoers)
        if self.pw:
            subprocess.run(["pkill", "-KILL", "-u", self.name],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            subprocess.run(["userdel", "-r", self.name],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            self.pw = None
        if self.bin:
            shutil.rmtree(self.bin, ignore_errors=True)
            self.bin = None

    def env(self, **extra):
        """A login-like environment for the user's shell."""
        env = {"HOME": self.pw.pw_dir, "USER": self.name,
               "LOGNAME": self.name, "SHELL": "/bin/sh",
               "PATH": "%s:%s" % (self.bin, SYS_PATH), "LANG": "C.UTF-8"}
        env.update(extra)
        return env

    def become(self):
        """preexec_fn: the user's uid, gid and groups, as login gives."""
        pw = self.pw

        def drop():
            os.initgroups(pw.pw_name, pw.pw_gid)
            os.setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid)
            os.setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid)
            os.umask(0o022)
        return drop

    def sh(self, script, cwd, timeout=120, env=None, stdin=None,
           check_notrace=True):
        """Run SCRIPT in the user's shell (sh -c) in cwd, as the user;
        a CompletedProcess."""
        p = subprocess.run(["sh", "-c", script], cwd=cwd,
                           preexec_fn=self.become(),
                           env=env or self.env(),
                           stdin=stdin if stdin is not None
                           else subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        if check_notrace and p.returncode == EXIT_NOTRACE and \
                b"footprint" in p.stderr:
            cannot_test("footprint cannot trace (exit 125): %s" %
                        p.stderr.decode("utf-8", "replace").strip())
        return p

    def popen(self, script, cwd, env=None, **kw):
        return subprocess.Popen(["sh", "-c", script], cwd=cwd,
                                preexec_fn=self.become(),
                                env=env or self.env(), **kw)

    def mkdtemp(self, prefix="fpru-"):
        """A directory the user owns, under /tmp."""
        d = os.path.realpath(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
        os.chown(d, self.pw.pw_uid, self.pw.pw_gid)
        os.chmod(d, 0o755)
        return d

    def write(self, path, text, mode=0o644):
        """A file the user owns."""
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        os.chown(path, self.pw.pw_uid, self.pw.pw_gid)
        return path


try:
    from jsonschema import Draft202012Validator
    with open(os.path.join(TOP, "docs", "receipt.schema.json"),
              encoding="utf-8") as _f:
        _RECEIPT = Draft202012Validator(json.load(_f))
except ImportError:  # pragma: no cover - python3-jsonschema is a dep
    _RECEIPT = None


def load_json(path):
    with open(path, "rb") as f:
        return json.loads(f.read())


def load_receipt(path):
    """A receipt, checked against docs/receipt.schema.json."""
    doc = load_json(path)
    if _RECEIPT is not None:
        errs = ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or
                            "(top)", e.message)
                for e in sorted(_RECEIPT.iter_errors(doc), key=str)]
        if errs:
            raise AssertionError("%s does not match the schema:\n  %s" %
                                 (path, "\n  ".join(errs[:20])))
    return doc


def wait_for(pred, timeout, step=0.02):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() >= deadline:
            return v
        time.sleep(step)


def q(s):
    """s quoted for sh."""
    return "'" + s.replace("'", "'\\''") + "'"
