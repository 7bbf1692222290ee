"""Helpers for footprint's integration tests.

These tests load the real BPF programs, so they need root and a kernel that
accepts them. When footprint cannot trace (it exits 125) a test is skipped,
unless FOOTPRINT_REQUIRE_BPF=1, when it fails instead.

Environment:
  FOOTPRINT             the footprint binary (default: build/footprint)
  FOOTPRINT_TEST_BIN    directory holding fpprobe (default: build/tests)
  FOOTPRINT_REQUIRE_BPF 1: "cannot trace" is a failure, not a skip
"""

import base64
import json
import os
import platform
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FOOTPRINT = os.environ.get("FOOTPRINT") or os.path.join(TOP, "build",
                                                        "footprint")
TEST_BIN = os.environ.get("FOOTPRINT_TEST_BIN") or os.path.join(
    TOP, "build", "tests")
# absolute and resolved: tests run commands from other directories, and the
# kernel reports the resolved executable path
FOOTPRINT = os.path.abspath(FOOTPRINT)
FPPROBE = os.path.realpath(os.path.join(TEST_BIN, "fpprobe"))
REQUIRE_BPF = os.environ.get("FOOTPRINT_REQUIRE_BPF") == "1"

EXIT_VERDICT = 1  # includes a command that exited non-zero or was killed
EXIT_USAGE = 2
EXIT_NOTRACE = 125
EXIT_NOEXEC = 126
EXIT_NOTFOUND = 127
PROBE_UNSUPPORTED = 77

# Fields every event has (docs/events.md), and the stats record's.
COMMON_FIELDS = ("type", "ts_ns", "pid", "tid", "ppid", "uid", "gid", "comm",
                 "cgroup_id")
STATS_FIELDS = ("events", "records", "lost", "lost_ringbuf", "lost_pending",
                "lost_recursion", "lost_malformed", "argv_incomplete",
                "lost_per_cpu", "complete")


def cannot_test(why):
    """Skip, or fail when FOOTPRINT_REQUIRE_BPF=1."""
    if REQUIRE_BPF:
        raise AssertionError(why + " (FOOTPRINT_REQUIRE_BPF=1)")
    raise unittest.SkipTest(why)


# where need_tools() looks, whatever PATH the suite was started with
SYS_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def need_tools(*names):
    for name in names:
        if not shutil.which(name, path=SYS_PATH):
            cannot_test("%s is not installed; run scripts/install-deps" %
                        name)


# i386 exit(0) by the int $0x80 entry, without libc
I386_EXIT0 = (b"void _start(void) { __asm__ volatile(\"int $0x80\" :: "
              b"\"a\"(1), \"b\"(0)); for (;;); }\n")
_i386_missing = []


def i386_missing(work_dir):
    """Why this machine has no 32-bit entry to trace, or None.

    Some VMs (a PVM guest, say) refuse i386 binaries and fault on int
    $0x80 even with CONFIG_IA32_EMULATION: there is then no 32-bit call
    for footprint to miss. Asked once, by running a static i386 exit(0)
    untraced."""
    if _i386_missing:
        return _i386_missing[0]
    why = None
    if platform.machine() != "x86_64":
        why = "the 32-bit entry tested is x86's int $0x80"
    else:
        src = os.path.join(work_dir, "i386exit.c")
        out = os.path.join(work_dir, "i386exit")
        with open(src, "wb") as f:
            f.write(I386_EXIT0)
        res = subprocess.run(
            [os.environ.get("CC", "cc"), "-m32", "-static", "-nostdlib",
             "-ffreestanding", "-fno-pie", "-no-pie", "-o", out, src],
            capture_output=True, text=True)
        if res.returncode:
            why = ("cannot build an i386 static binary: " +
                   res.stderr.strip()[:200])
        else:
            try:
                rc = subprocess.run([out]).returncode
                if rc:
                    why = ("int $0x80 does not return here (exit status "
                           "%d): this kernel has no 32-bit entry" % rc)
            except OSError as e:
                why = ("this kernel runs no i386 binary (%s): no 32-bit "
                       "entry" % e.strerror)
    _i386_missing.append(why)
    return why


def build_i386(test, name, out_dir, cflags=("-fno-stack-protector",)):
    """tests/integration/NAME.c built for i386 without libc, or a skip
    where this machine has no 32-bit entry or no compiler for it."""
    why = i386_missing(out_dir)
    if why:
        test.skipTest(why)
    out = os.path.join(out_dir, name)
    res = subprocess.run(
        [os.environ.get("CC", "cc"), "-m32", "-static", "-nostdlib",
         "-ffreestanding", "-fno-pie", "-no-pie", "-O2", *cflags, "-o", out,
         os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      name + ".c")],
        capture_output=True, text=True)
    if res.returncode:
        test.skipTest("cannot build an i386 static binary: " +
                      res.stderr.strip()[:200])
    os.chmod(out, 0o755)
    return out


def check_binaries():
    for path in (FOOTPRINT, FPPROBE):
        if not os.access(path, os.X_OK):
            cannot_test("%s is not built; run scripts/build" % path)


def world_readable_copy(test, path, mode=None):
    """A copy of path in a fresh 0755 directory under /tmp, removed when
    test ends, for what an unprivileged process must run or read: the
    checkout and the build directory may be where that user cannot go (a
    clone in a 0700 directory, as mktemp -d makes, or a CI checkout under
    /root). mode: 0755 for an executable, else 0644."""
    d = os.path.realpath(tempfile.mkdtemp(prefix="fppublic-", dir="/tmp"))
    test.addCleanup(shutil.rmtree, d, True)
    os.chmod(d, 0o755)
    dst = os.path.join(d, os.path.basename(path))
    shutil.copyfile(path, dst)
    if mode is None:
        mode = 0o755 if os.access(path, os.X_OK) else 0o644
    os.chmod(dst, mode)
    return dst


def field_bytes(ev, key):
    """The exact bytes of a string field: <key>_b64 when present."""
    if key + "_b64" in ev:
        return base64.b64decode(ev[key + "_b64"], validate=True)
    return ev[key].encode("utf-8")


def argv_bytes(ev):
    """The exec event's argv as a list of bytes, losslessly."""
    if "argv_b64" in ev:
        return [base64.b64decode(a, validate=True) for a in ev["argv_b64"]]
    return [a.encode("utf-8") for a in ev["argv"]]


def rules(receipt):
    """The receipt's suggested policy lines ("suggestions": objects with
    "rule" and "covers", most findings covered first)."""
    return [s["rule"] for s in receipt.get("suggestions") or []]


def argv_of(receipt, actor):
    """An actor's argv in a receipt: its own, else its process_table row's
    (format 2 names the row with "proc" instead of repeating the argv)."""
    if actor is None:
        return None
    if "argv" in actor or actor.get("proc") is None:
        return actor.get("argv")
    return receipt["process_table"][actor["proc"]]["argv"]


def expand_actors(receipt):
    """A copy of receipt whose actors carry their argv again and no "proc",
    to compare with a format 1 receipt."""
    import copy
    keys = ("by", "created_by", "removed_by", "ran_by", "outside_writer",
            "owner", "asked_by")

    def fix(o):
        if isinstance(o, dict):
            for k in keys:
                a = o.get(k)
                if isinstance(a, dict) and "pid" in a:
                    if "argv" not in a and a.get("proc") is not None:
                        row = receipt["process_table"][a["proc"]]
                        for f in ("argv", "argv_b64", "argv_truncated"):
                            if f in row:
                                a[f] = row[f]
                    a.pop("proc", None)
            for v in o.values():
                fix(v)
        elif isinstance(o, list):
            for v in o:
                fix(v)
        return o
    doc = copy.deepcopy(receipt)
    return fix(doc)


def to_bytes(s):
    return os.fsencode(s)


def cgroup2_mount():
    """Where the cgroup v2 hierarchy is mounted (as footprint picks it)."""
    found = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            if right.split()[:1] != ["cgroup2"]:
                continue
            found = left.split()[4]
            if found == "/sys/fs/cgroup":
                break
    return found


def cgroup_of(pid="self"):
    """A process's cgroup v2 directory, or None."""
    mnt = cgroup2_mount()
    if mnt is None:
        return None
    with open("/proc/%s/cgroup" % pid) as f:
        for line in f:
            if line.startswith("0::"):
                return os.path.normpath(mnt + "/" + line[3:].strip())
    return None


def parse_probe(out):
    """fpprobe's report line ("pid=N key=value ...") as a dict.

    Numeric values become ints. With several report lines, the last wins.
    """
    result = None
    for line in out.decode("utf-8", "replace").splitlines():
        if not line.startswith("pid="):
            continue
        result = {}
        for tok in line.split():
            k, _, v = tok.partition("=")
            try:
                result[k] = int(v)
            except ValueError:
                result[k] = v
    if result is None:
        raise AssertionError("fpprobe printed no report line: %r" % out)
    return result


class Run:
    """One `footprint run`: its exit code, events, stats and output."""

    def __init__(self, rc, lines, stdout, stderr, pid):
        self.rc = rc
        self.lines = lines
        self.stdout = stdout
        self.stderr = stderr
        self.pid = pid  # footprint's own pid
        self.records = []
        self.bad_lines = []  # lines that are not one JSON object each
        for line in lines:
            try:
                rec = json.loads(line)
            except ValueError:
                self.bad_lines.append(line)
                continue
            if isinstance(rec, dict):
                self.records.append(rec)
            else:
                self.bad_lines.append(line)
        if self.records and self.records[-1].get("type") == "stats":
            self.stats = self.records[-1]
            self.events = self.records[:-1]
        else:
            self.stats = None
            self.events = list(self.records)

    def probe(self):
        return parse_probe(self.stdout)

    def of(self, **match):
        """Events whose fields equal every key=value given."""
        return [
            ev for ev in self.events
            if all(k in ev and ev[k] == v for k, v in match.items())
        ]

    def with_path(self, path, key="path", **match):
        """Events (matching **match) whose <key> is exactly path."""
        want = to_bytes(path)
        return [ev for ev in self.of(**match)
                if key in ev and field_bytes(ev, key) == want]

    def describe(self):
        return "footprint rc=%s stderr=%r\n%s" % (
            self.rc, self.stderr.decode("utf-8", "replace"),
            b"\n".join(self.lines).decode("utf-8", "replace"))


NEUTRAL_POLICY = """\
# footprint's integration tests check events, not the verdict
allow /**
allow bind *
allow leftover *
"""


def run(cmd, opts=(), cwd=None, env=None, timeout=30, events=True):
    """Run `footprint run [--events F] --root R --policy P OPTS -- CMD`.

    These tests judge the trace, not the verdict: the watched root R is a
    fresh empty directory (cheap snapshots) and the policy P allows every
    file, bind and leftover finding, so footprint exits 0 exactly when the
    command exits 0 (1 when it does not; README, Exit status). cmd items
    may be str or bytes. Skips (or fails, see REQUIRE_BPF) when footprint
    cannot trace.
    """
    check_binaries()
    tmp = tempfile.mkdtemp(prefix="fpit-ev-", dir="/tmp")
    try:
        path = os.path.join(tmp, "events.ndjson")
        root = os.path.join(tmp, "root")
        os.mkdir(root)
        policy = os.path.join(tmp, "neutral.policy")
        with open(policy, "w") as f:
            f.write(NEUTRAL_POLICY)
        argv = [FOOTPRINT, "run", "--quiet", "--root", root,
                "--policy", policy]
        if events:
            argv += ["--events", path]
        argv += list(opts) + ["--"] + list(cmd)
        # under sudo, footprint would run the command as the invoking
        # user; these tests expect it to run as the test's own user
        env = {k: v for k, v in (os.environ if env is None else env).items()
               if not k.startswith("SUDO_")}
        proc = subprocess.Popen(argv, cwd=cwd, env=env,
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            raise AssertionError("footprint timed out after %ss: %r" %
                                 (timeout, err))
        if proc.returncode == EXIT_NOTRACE:
            cannot_test("footprint cannot trace here (exit 125): %s" %
                        err.decode("utf-8", "replace").strip())
        lines = []
        if events and os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read()
            if data and not data.endswith(b"\n"):
                raise AssertionError("events file does not end in a "
                                     "newline: %r" % data[-200:])
            lines = data.split(b"\n")[:-1] if data else []
        return Run(proc.returncode, lines, out, err, proc.pid)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class TraceCase(unittest.TestCase):
    """A TestCase with a scratch directory and checked traced runs."""

    maxDiff = None

    def setUp(self):
        check_binaries()
        # realpath: the kernel reports the resolved directory
        self.dir = os.path.realpath(
            tempfile.mkdtemp(prefix="fpit-", dir="/tmp"))
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def deep_dir(self, length):
        """A directory whose absolute path is length bytes long."""
        comp = "d" * 99
        path = self.dir
        while len(path) + 1 + len(comp) <= length:
            path = os.path.join(path, comp)
        path = os.path.join(path, "e" * (length - len(path) - 1))
        self.assertEqual(len(path), length)
        os.makedirs(path)
        return path

    def trace(self, cmd, rc=0, **kw):
        """Run footprint, check what holds for every run, return the Run."""
        r = run(cmd, **kw)
        if rc is not None:
            self.assertEqual(r.rc, rc, r.describe())
        self.check_run(r)
        return r

    def probe(self, *args, rc=0, **kw):
        """Trace `fpprobe ARGS`; skip if the syscall does not exist here."""
        r = run([FPPROBE] + list(args), **kw)
        if r.rc == PROBE_UNSUPPORTED:
            self.skipTest("syscall not available: %r" % (
                r.stderr.decode("utf-8", "replace"),))
        if rc is not None:
            self.assertEqual(r.rc, rc, r.describe())
        self.check_run(r)
        return r

    def check_run(self, r):
        """Every run: one JSON object per line, stats last and complete,
        and nothing from footprint itself."""
        self.assertEqual(r.bad_lines, [], "lines that are not one JSON "
                         "object each")
        self.assertIsNotNone(r.stats, "no stats record last\n" + r.describe())
        for rec in r.records[:-1]:
            self.assertNotEqual(rec.get("type"), "stats",
                                "stats record before the end")
        for line in r.lines:
            self.assertTrue(line.startswith(b"{") and line.endswith(b"}"),
                            "not one object per line: %r" % line[:200])
        for k in STATS_FIELDS:
            self.assertIn(k, r.stats)
        # lost and every lost_* counter (lost_per_cpu: each CPU's)
        for k, v in r.stats.items():
            if k == "lost_per_cpu":
                self.assertEqual(set(v) - {0}, set(), r.stats)
            elif k.startswith("lost"):
                self.assertEqual(v, 0, "%s: %r" % (k, r.stats))
        self.assertIs(r.stats["complete"], True, r.stats)
        self.assertEqual(r.stats["events"], len(r.events), r.stats)
        for ev in r.events:
            for k in COMMON_FIELDS:
                self.assertIn(k, ev, ev)
            self.assertNotEqual(ev["pid"], r.pid,
                                "event from footprint itself: %r" % ev)
            self.assertNotEqual(ev["tid"], r.pid,
                                "event from footprint itself: %r" % ev)

    def one(self, events, what="event"):
        self.assertEqual(len(events), 1,
                         "expected exactly one %s, got %r" % (what, events))
        return events[0]

    def assert_common(self, ev, pid, ppid, comm="fpprobe"):
        """The fields every event has, for a single-threaded process."""
        self.assertEqual(ev["pid"], pid, ev)
        self.assertEqual(ev["tid"], pid, ev)
        self.assertEqual(ev["ppid"], ppid, ev)
        self.assertEqual(ev["uid"], os.getuid(), ev)
        self.assertEqual(ev["gid"], os.getgid(), ev)
        self.assertEqual(ev["comm"], comm, ev)
