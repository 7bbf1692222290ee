"""Helpers for test_sudo.py: run `footprint run` as root the way sudo
would start it (SUDO_UID, SUDO_GID, SUDO_USER, SUDO_COMMAND in the
environment), in fresh world-writable roots, and look at what came out.

Environment:
  FOOTPRINT             the footprint binary (default: build/footprint)
  FOOTPRINT_REQUIRE_BPF 1: "cannot trace" (exit 125 from a root run) is a
                        failure, not a skip
"""

import atexit
import errno
import json
import os
import pwd
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import unittest
import uuid
from fptest import cannot_test  # noqa: F401

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FOOTPRINT = os.path.abspath(os.environ.get("FOOTPRINT") or
                            os.path.join(TOP, "build", "footprint"))
REQUIRE_BPF = os.environ.get("FOOTPRINT_REQUIRE_BPF") == "1"
SCHEMA_PATH = os.path.join(TOP, "docs", "receipt.schema.json")
PY = "/usr/bin/python3"

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_USAGE = 2
EXIT_TIMEOUT = 124
EXIT_NOTRACE = 125

# every variable sudo itself puts into the environment of what it runs
SUDO_VARS = ("SUDO_UID", "SUDO_GID", "SUDO_USER", "SUDO_COMMAND",
             "SUDO_HOME")

try:
    from jsonschema import Draft202012Validator
    with open(SCHEMA_PATH, encoding="utf-8") as _f:
        _VALIDATOR = Draft202012Validator(json.load(_f))
except ImportError:  # pragma: no cover - the schema check is a bonus here
    _VALIDATOR = None


_SHARED = []


def world_copy(path):
    """A copy of path that any user may read and run, for what a test runs
    as an unprivileged user: the checkout may sit under a directory only
    root can enter (CI's clean clone in a 0700 directory)."""
    if not _SHARED:
        d = tempfile.mkdtemp(prefix="fpshared-")
        os.chmod(d, 0o755)
        atexit.register(shutil.rmtree, d, True)
        _SHARED.append(d)
    dst = os.path.join(_SHARED[0], os.path.basename(path))
    if not os.path.exists(dst):
        shutil.copy2(path, dst)
        os.chmod(dst, 0o755)
    return dst


def check_binary():
    if not os.access(FOOTPRINT, os.X_OK):
        cannot_test("%s is not built; run scripts/build" % FOOTPRINT)
    if os.geteuid() != 0:
        cannot_test("these tests start footprint as root; run them as root")


def schema_errors(doc):
    if _VALIDATOR is None:
        return []
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)",
                        e.message)
            for e in sorted(_VALIDATOR.iter_errors(doc), key=str)]


def base_env(**extra):
    """os.environ without any SUDO_* variable, plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDO_")}
    env.update(extra)
    return env


def sudo_env(pw, **extra):
    """The environment sudo gives a root footprint started by user pw."""
    env = base_env()
    env.update(SUDO_UID=str(pw.pw_uid), SUDO_GID=str(pw.pw_gid),
               SUDO_USER=pw.pw_name,
               SUDO_COMMAND="%s run -- ./job.sh" % FOOTPRINT,
               SUDO_HOME=pw.pw_dir)
    env.update(extra)
    return env


def unique_seconds(whole=30):
    """A sleep argument no other process on the box is using."""
    return "%d.%06d" % (whole, uuid.uuid4().int % 1000000)


def pgrep_exact(argv):
    """pids whose command line is exactly argv (not zombies)."""
    want = b"\0".join(os.fsencode(a) for a in argv) + b"\0"
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                raw = f.read()
            if raw != want:
                continue
            if proc_state(int(name)) in ("Z", None):
                continue
        except OSError:
            continue
        found.append(int(name))
    return found


def proc_state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def proc_uids(pid):
    """(real, effective, saved, fs) uids of pid."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("Uid:"):
                return tuple(int(x) for x in line.split()[1:5])
    return None


def kill_exact(argv):
    for pid in pgrep_exact(argv):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def wait_for(pred, timeout, step=0.02):
    """Poll pred() until it is true (returns its value) or timeout."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() >= deadline:
            return v
        time.sleep(step)


def owner_mode(path):
    st = os.stat(path)
    return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)


def fifo_open_writer(path, timeout, proc=None):
    """Open a FIFO for writing once its reader is there; None on timeout
    or when proc (a Popen) has ended first."""
    ended = []

    def attempt():
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
        if proc is not None and proc.poll() is not None:
            ended.append(True)
            return True
        return None
    fd = wait_for(attempt, timeout)
    return None if ended or fd is True else fd


class Result:
    def __init__(self, argv, rc, stdout, stderr, receipt_path, receipt,
                 elapsed):
        self.argv = argv
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.receipt_path = receipt_path
        self.r = receipt
        self.elapsed = elapsed

    @property
    def out(self):
        return self.stdout.decode("utf-8", "replace")

    @property
    def err(self):
        return self.stderr.decode("utf-8", "replace")

    @property
    def cmd(self):
        return self.r["command"]

    def describe(self):
        body = json.dumps(self.r, indent=1) if self.r is not None else "-"
        if len(body) > 5000:
            body = body[:5000] + "\n..."
        return "argv=%r\nrc=%s elapsed=%.2fs\nstdout=%s\nstderr=%s\n" \
            "receipt=%s" % (self.argv, self.rc, self.elapsed, self.out,
                            self.err, body)


class Sandbox:
    """One test's directories: base (0755) holding root (0777, the watched
    tree, writable by the unprivileged user) and out (01777 like /tmp, for
    receipts, events files and logs, which footprint creates with the
    invoking user's rights). Removed in cleanup."""

    def __init__(self, test):
        self.test = test
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="fpsudo-",
                                                      dir="/tmp"))
        os.chmod(self.base, 0o755)
        self.root = os.path.join(self.base, "root")
        os.mkdir(self.root)
        os.chmod(self.root, 0o777)
        self.out = os.path.join(self.base, "out")
        os.mkdir(self.out)
        os.chmod(self.out, 0o1777)
        self.n = 0
        self.procs = []
        test.addCleanup(self.cleanup)

    def cleanup(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(self.base, ignore_errors=True)

    def noise_policy(self):
        """A policy that drops network findings. No test here binds, but
        network.listening lists every listener that appeared anywhere on
        the host during the run, and one whose owner is gone (pid -1) or
        new fails the verdict: other suites running at the same time would
        make these tests flaky."""
        # readable by anyone: the unprivileged runs read it too
        path = os.path.join(self.base, "noise.policy")
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write("ignore bind *\n")
            os.chmod(path, 0o644)
        return path

    def in_root(self, name):
        return os.path.join(self.root, name)

    def out_path(self, name):
        return os.path.join(self.out, name)

    def argv(self, cmd, opts=(), receipt=True, quiet=True, roots=None):
        """footprint run --root ROOT --policy NOISE [-q] OPTS [--receipt F]
        -- CMD."""
        self.n += 1
        rpath = None
        argv = [FOOTPRINT, "run"]
        for r in (roots if roots is not None else [self.root]):
            argv += ["--root", r]
        argv += ["--policy", self.noise_policy()]
        if quiet:
            argv.append("--quiet")
        argv += list(opts)
        if receipt:
            rpath = receipt if isinstance(receipt, str) else \
                self.out_path("receipt-%d.json" % self.n)
            argv += ["--receipt", rpath]
        argv += ["--"] + list(cmd)
        return argv, rpath

    def start(self, cmd, opts=(), env=None, cwd=None, receipt=True,
              quiet=True, preexec_fn=None, stdin=subprocess.DEVNULL,
              wrapper=()):
        """Start footprint in the background; finish() collects it."""
        check_binary()
        argv, rpath = self.argv(cmd, opts, receipt, quiet)
        argv = list(wrapper) + argv
        self.n += 1
        so = open(self.out_path("stdout-%d" % self.n), "w+b")
        se = open(self.out_path("stderr-%d" % self.n), "w+b")
        t0 = time.monotonic()
        p = subprocess.Popen(argv, cwd=cwd or self.root,
                             env=env if env is not None else base_env(),
                             stdin=stdin, stdout=so, stderr=se,
                             preexec_fn=preexec_fn)
        p.fp_argv, p.fp_rpath, p.fp_t0 = argv, rpath, t0
        p.fp_out, p.fp_err = so, se
        self.procs.append(p)
        return p

    def finish(self, p, timeout=30, allow_notrace=False):
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise AssertionError("footprint did not end within %ss: %r" %
                                 (timeout, p.fp_argv))
        elapsed = time.monotonic() - p.fp_t0
        p.fp_out.seek(0)
        p.fp_err.seek(0)
        stdout, stderr = p.fp_out.read(), p.fp_err.read()
        p.fp_out.close()
        p.fp_err.close()
        return self._result(p.fp_argv, p.returncode, stdout, stderr,
                            p.fp_rpath, elapsed, allow_notrace)

    def run(self, cmd, opts=(), env=None, cwd=None, receipt=True,
            quiet=True, preexec_fn=None, timeout=30, allow_notrace=False,
            wrapper=()):
        p = self.start(cmd, opts, env, cwd, receipt, quiet, preexec_fn,
                       wrapper=wrapper)
        return self.finish(p, timeout, allow_notrace)

    def _result(self, argv, rc, stdout, stderr, rpath, elapsed,
                allow_notrace):
        if rc == EXIT_NOTRACE and not allow_notrace:
            cannot_test("footprint cannot trace (exit 125): %s" %
                        stderr.decode("utf-8", "replace").strip())
        doc = None
        if rpath and os.path.exists(rpath):
            with open(rpath, "rb") as f:
                raw = f.read()
            try:
                doc = json.loads(raw)
            except ValueError as e:
                raise AssertionError(
                    "receipt %s is not JSON (%s): %r\nrc=%s stderr=%s" %
                    (rpath, e, raw[:300], rc,
                     stderr.decode("utf-8", "replace")))
            errs = schema_errors(doc)
            if errs:
                raise AssertionError(
                    "receipt does not match docs/receipt.schema.json:\n  " +
                    "\n  ".join(errs[:20]) + "\n" +
                    Result(argv, rc, stdout, stderr, rpath, doc,
                           elapsed).describe())
        return Result(argv, rc, stdout, stderr, rpath, doc, elapsed)


def nobody():
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        raise unittest.SkipTest("there is no user 'nobody'")
