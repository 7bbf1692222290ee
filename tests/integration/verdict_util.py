"""Helpers for test_verdict.py: run `footprint run` with a receipt, check
the receipt against docs/receipt.schema.json, and look findings up.

Every run is also recorded (`--record`) and re-judged with `footprint
replay` under the recorded policy: the replayed receipt must be byte for
byte the live one, and replay's exit code the live one (see
Env.check_replay).

Environment:
  FOOTPRINT             the footprint binary (default: build/footprint)
  FOOTPRINT_REQUIRE_BPF 1: "cannot trace" (exit 125) is a failure, not a skip
"""

import base64
import json
import os
import shlex
import shutil
import stat
import subprocess
import tempfile
import threading
import time
import unittest

from jsonschema import Draft202012Validator

import fptest
from fptest import cannot_test  # noqa: F401

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FOOTPRINT = os.environ.get("FOOTPRINT") or os.path.join(TOP, "build",
                                                        "footprint")
REQUIRE_BPF = os.environ.get("FOOTPRINT_REQUIRE_BPF") == "1"
SCHEMA_PATH = os.path.join(TOP, "docs", "receipt.schema.json")
PY = "/usr/bin/python3"

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_USAGE = 2
EXIT_NOTRACE = 125
EXIT_NOEXEC = 126
EXIT_NOTFOUND = 127

with open(SCHEMA_PATH, encoding="utf-8") as _f:
    SCHEMA = json.load(_f)
Draft202012Validator.check_schema(SCHEMA)
VALIDATOR = Draft202012Validator(SCHEMA)


def exe_of(name):
    """The canonical executable path for a command name (/usr/bin/rm)."""
    path = shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin")
    if not path:
        raise unittest.SkipTest("%s is not installed" % name)
    return os.path.realpath(path)


def schema_errors(doc):
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)",
                        e.message)
            for e in sorted(VALIDATOR.iter_errors(doc), key=str)]


def field_bytes(obj, key):
    """The exact bytes of a string field: <key>_b64 when present."""
    if key + "_b64" in obj:
        return base64.b64decode(obj[key + "_b64"], validate=True)
    return obj[key].encode("utf-8")


class Result:
    def __init__(self, argv, rc, stdout, stderr, receipt_path, receipt):
        self.argv = argv
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.receipt_path = receipt_path
        self.r = receipt  # parsed receipt, or None
        self.replay_rc = None  # footprint replay's exit code (check_replay)
        self.replay_stderr = None

    @property
    def err(self):
        return self.stderr.decode("utf-8", "replace")

    @property
    def out(self):
        return self.stdout.decode("utf-8", "replace")

    def describe(self):
        body = json.dumps(self.r, indent=1) if self.r is not None else "-"
        if len(body) > 6000:
            body = body[:6000] + "\n..."
        return "argv=%r\nrc=%s\nstderr=%s\nreceipt=%s" % (
            self.argv, self.rc, self.err, body)

    # finding lookups ---------------------------------------------------
    def files(self, lst, path=None):
        items = self.r["files"][lst]
        if path is None:
            return items
        want = os.fsencode(path)
        return [x for x in items if field_bytes(x, "path") == want]

    def file(self, lst, path):
        found = self.files(lst, path)
        if len(found) != 1:
            raise AssertionError("want exactly one files.%s %r, got %r\n%s" %
                                 (lst, path, found, self.describe()))
        return found[0]

    def paths(self, lst):
        return [os.fsdecode(field_bytes(x, "path"))
                for x in self.r["files"][lst]]

    def procs(self, lst, exe=None, argv=None):
        return [p for p in self.r["processes"][lst]
                if (exe is None or p["exe"] == exe) and
                (argv is None or fptest.argv_of(self.r, p) == argv)]


class Env:
    """Temp dirs for one test: roots under /tmp, receipts in another dir.

    Everything is removed in cleanup (directories made unreadable by a test
    are made readable again first)."""

    def __init__(self, test):
        self.test = test
        self.base = tempfile.mkdtemp(prefix="fpv-", dir="/tmp")
        self.out = os.path.join(self.base, "out")
        os.mkdir(self.out)
        self.n = 0
        test.addCleanup(self.cleanup)

    def cleanup(self):
        for dirpath, dirnames, _ in os.walk(self.base):
            for d in dirnames:
                p = os.path.join(dirpath, d)
                try:
                    if not os.path.islink(p):
                        os.chmod(p, 0o700)
                except OSError:
                    pass
        # walk again: chmod above may have exposed more directories
        for dirpath, dirnames, _ in os.walk(self.base):
            for d in dirnames:
                p = os.path.join(dirpath, d)
                if not os.path.islink(p):
                    try:
                        os.chmod(p, 0o700)
                    except OSError:
                        pass
        shutil.rmtree(self.base, ignore_errors=True)

    def root(self, name="root", tree=None):
        """A fresh directory (canonical path) filled from tree:
        {relpath: bytes|str (file) | None (directory)}."""
        path = os.path.realpath(os.path.join(self.base, name))
        os.mkdir(path)
        make_tree(path, tree or {})
        return path

    def scratch(self, name="scratch"):
        path = os.path.join(self.base, name)
        os.makedirs(path, exist_ok=True)
        return os.path.realpath(path)

    def run_during(self, action, roots, opts=(), env=None, wrapper=()):
        """Run a command that blocks on a FIFO; while it runs (strictly
        between footprint's two snapshots) call action() in this process,
        outside the run. Returns (result, whatever action returned). A
        run that ends before the command opens the FIFO fails the test
        rather than hang it."""
        fifo = os.path.join(self.scratch(), "go-%d" % self.n)
        os.mkfifo(fifo)
        result = {}

        def run():
            try:
                result["res"] = self.run(
                    ["sh", "-c", "read x < %s" % shlex.quote(fifo)],
                    roots=roots, opts=opts, env=env, wrapper=wrapper)
            except BaseException as e:  # re-raised below
                result["exc"] = e

        t = threading.Thread(target=run)
        t.start()
        try:
            w = None
            # opening for writing succeeds once the command opened it
            for _ in range(6000):
                try:
                    w = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                    break
                except OSError:
                    if not t.is_alive():
                        break
                    time.sleep(0.01)
            if w is None:
                t.join(60)
                if "exc" in result:
                    raise result["exc"]
                self.test.fail("the command never opened %s" % fifo)
            try:
                got = action()
            finally:
                os.write(w, b"go\n")
                os.close(w)
        finally:
            t.join(60)
        if "exc" in result:
            raise result["exc"]
        return result["res"], got

    def run(self, cmd, roots=(), opts=(), receipt=True, wrapper=(), cwd=None,
            env=None, timeout=60, quiet=False, expect_receipt=True):
        """footprint run [--root R]... OPTS [--receipt F] -- CMD.

        wrapper: argv put in front of footprint (e.g. a shell that opens
        an fd first). Validates the receipt against the schema."""
        self.n += 1
        rpath = None
        argv = list(wrapper) + [FOOTPRINT, "run"]
        if quiet:
            argv.append("--quiet")
        for r in roots:
            argv += ["--root", r]
        argv += list(opts)
        # record every run, unless the test records it itself
        own_record = any(o in ("--record", "-w") or
                         o.startswith(("--record=", "-w"))
                         for o in opts if isinstance(o, str))
        lpath = None
        if not own_record:
            lpath = os.path.join(self.out, "record-%d.fplog" % self.n)
            argv += ["--record", lpath]
        if receipt:
            rpath = receipt if isinstance(receipt, (str, bytes)) else \
                os.path.join(self.out, "receipt-%d.json" % self.n)
            argv += ["--receipt", rpath]
        argv += ["--"] + list(cmd)
        if not os.access(FOOTPRINT, os.X_OK):
            cannot_test("%s is not built; run scripts/build" % FOOTPRINT)
        p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        if p.returncode == EXIT_NOTRACE:
            cannot_test("footprint cannot trace (exit 125): %s" %
                        p.stderr.decode("utf-8", "replace").strip())
        doc = None
        if rpath and os.path.exists(rpath):
            with open(rpath, "rb") as f:
                raw = f.read()
            if raw or expect_receipt:
                try:
                    doc = json.loads(raw)
                except ValueError as e:
                    raise AssertionError(
                        "receipt %s is not JSON (%s): %r\nrc=%s stderr=%s" %
                        (rpath, e, raw[:200], p.returncode,
                         p.stderr.decode("utf-8", "replace")))
                errs = schema_errors(doc)
                if errs:
                    raise AssertionError(
                        "receipt does not match docs/receipt.schema.json:\n"
                        "  " + "\n  ".join(errs[:20]) + "\n" +
                        Result(argv, p.returncode, p.stdout, p.stderr,
                               rpath, doc).describe())
        res = Result(argv, p.returncode, p.stdout, p.stderr, rpath, doc)
        if receipt and expect_receipt and p.returncode in (0, 1) and \
                doc is None:
            raise AssertionError("no receipt written\n" + res.describe())
        if lpath:
            live = None
            if rpath:
                live = os.path.join(os.fsdecode(cwd or os.getcwd()),
                                    os.fsdecode(rpath))
            self.check_replay(res, lpath, live)
        return res

    def check_replay(self, res, lpath, live_receipt):
        """`footprint replay --receipt R LOG` (the recorded policy) must
        give the live run's receipt byte for byte, and its exit code.
        Not checked when footprint stopped before it recorded anything
        (exit 2/125/126/127 and no log)."""
        if not os.path.exists(lpath):
            if res.rc in (EXIT_USAGE, EXIT_NOTRACE, EXIT_NOEXEC,
                          EXIT_NOTFOUND):
                return
            raise AssertionError("footprint exited %d and wrote no log %s"
                                 "\n%s" % (res.rc, lpath, res.describe()))
        rep = os.path.join(self.out, "replay-%d.json" % self.n)
        argv = [FOOTPRINT, "replay", "--receipt", rep, lpath]
        p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        res.replay_rc = p.returncode
        res.replay_stderr = p.stderr
        ctx = "\nreplay: %r\nreplay rc=%d stderr=%s\nlive run:\n%s" % (
            argv, p.returncode, p.stderr.decode("utf-8", "replace"),
            res.describe())
        if p.returncode != res.rc:
            raise AssertionError("replay exited %d, the live run %d%s" %
                                 (p.returncode, res.rc, ctx))
        if live_receipt is None or not os.path.exists(live_receipt):
            return
        with open(live_receipt, "rb") as f:
            want = f.read()
        got = None
        if os.path.exists(rep):
            with open(rep, "rb") as f:
                got = f.read()
        if got != want:
            at = next((i for i, (a, b) in enumerate(zip(want, got or b""))
                       if a != b), min(len(want), len(got or b"")))
            raise AssertionError(
                "the replayed receipt %s differs from the live one %s at "
                "byte %d (live %d bytes, replay %s):\n  live:   %r\n"
                "  replay: %r%s" % (
                    rep, live_receipt, at, len(want),
                    "missing" if got is None else "%d bytes" % len(got),
                    want[max(0, at - 80):at + 80],
                    (got or b"")[max(0, at - 80):at + 80], ctx))


def make_tree(root, tree):
    for rel, content in sorted(tree.items()):
        path = os.path.join(root, rel)
        if content is None:
            os.makedirs(path, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, str):
            content = content.encode()
        with open(path, "wb") as f:
            f.write(content)


def pid_alive_as(pid, argv):
    """Is pid running with exactly this argv (guards against pid reuse)?"""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            raw = f.read()
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    if state == "Z":
        return False
    return raw.split(b"\0")[:-1] == [os.fsencode(a) for a in argv]


def start_beside(argv, **kw):
    """A process outside any run, reaped by a thread so it never lingers
    as a zombie a test would see."""
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, start_new_session=True,
                         **kw)
    threading.Thread(target=p.wait, daemon=True).start()
    return p


def kill_beside(p):
    """start_beside()'s process killed, if it still runs."""
    try:
        p.kill()
    except ProcessLookupError:
        pass


def pgrep_full(pattern):
    """pids whose full command line matches pattern (pgrep -f)."""
    p = subprocess.run(["pgrep", "-f", pattern], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    return [int(x) for x in p.stdout.split()]


def is_mode(path, bits):
    return stat.S_IMODE(os.lstat(path).st_mode) == bits


def suggested(roots, path):
    """How a suggestion names path (str or bytes): relative to the watched
    root when the run had exactly one and path is below it, as footprint
    writes it (docs/policy.md), else absolute. Bytes out."""
    p = os.fsencode(path)
    if len(roots) == 1 and roots[0] != "/":
        top = os.fsencode(roots[0]).rstrip(b"/") + b"/"
        if p.startswith(top) and len(p) > len(top):
            return p[len(top):]
    return p


def policy_quote(s, escape_glob=True):
    """What fp_policy_quote() makes of bytes s: a policy-file token."""
    bad = b'"#' + (b"*?[\\" if escape_glob else b"")
    if s and s[:1] != b'"' and all(0x20 < c < 0x7f and c not in bad
                                   for c in s):
        return s.decode("ascii")
    out = '"'
    for c in s:
        if c == 0x5c and escape_glob:
            # the matcher's escape for "\", itself escaped for the quotes
            out += "\\" * 4
        elif c in b'"\\':
            out += "\\" + chr(c)
        elif escape_glob and c in b"*?[":
            out += "\\\\" + chr(c)
        elif c < 0x20 or c >= 0x7f:
            out += "\\x%02x" % c
        else:
            out += chr(c)
    return out + '"'
