"""Issue 11: repeated identical read-only opens are one event with a count.

A thread that opens one file read-only again and again gets one open
event with the first timestamp and the exact number in `count`; any
other traced file syscall of the thread emits it first, mutating opens
are never collapsed, `--every-open` turns it off, a record held back by
a process still running when tracing stops is drained with its count,
and replay of the log gives the receipt byte for byte. Counts are
checked against `strace -f` where it runs.

Needs root and BPF (see fptest.py).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
from fptest import FOOTPRINT  # noqa: E402

PY = "/usr/bin/python3"

# open FILE read-only N times, then (if W) once for writing, then M reads
OPENER = r"""
import os, sys
path, n, w, m = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
for _ in range(n):
    os.close(os.open(path, os.O_RDONLY))
if w != "-":
    os.close(os.open(w, os.O_WRONLY | os.O_CREAT, 0o644))
for _ in range(m):
    os.close(os.open(path, os.O_RDONLY))
"""


class CollapseTest(fptest.TraceCase):

    def setUp(self):
        super().setUp()
        self.file = self.path("data")
        with open(self.file, "w") as f:
            f.write("x")

    def opens(self, r, path):
        return [ev for ev in r.of(type="open") if ev["path"] == path]

    def opener(self, n, w="-", m=0, opts=()):
        return self.trace([PY, "-c", OPENER, self.file, str(n), w, str(m)],
                          opts=opts)

    def test_repeats_are_one_event_with_the_exact_count(self):
        r = self.opener(500)
        evs = self.opens(r, self.file)
        self.assertEqual(len(evs), 1, evs)
        self.assertEqual(evs[0]["count"], 500)
        self.assertTrue(evs[0]["flags_text"].startswith("O_RDONLY"), evs)
        self.assertIs(evs[0]["ok"], True)

    def test_every_open_turns_it_off(self):
        r = self.opener(50, opts=["--every-open"])
        evs = self.opens(r, self.file)
        self.assertEqual(len(evs), 50)
        self.assertTrue(all("count" not in ev for ev in evs), evs)

    def test_a_write_open_ends_the_run_and_keeps_the_order(self):
        w = self.path("w")
        r = self.opener(30, w=w, m=7)
        mine = [ev for ev in r.of(type="open")
                if ev["path"] in (self.file, w)]
        self.assertEqual([(ev["path"], ev.get("count", 1)) for ev in mine],
                         [(self.file, 30), (w, 1), (self.file, 7)])
        self.assertLess(mine[0]["ts_ns"], mine[1]["ts_ns"])
        self.assertLess(mine[1]["ts_ns"], mine[2]["ts_ns"])

    def test_write_opens_are_never_collapsed(self):
        script = ("import os\nfor _ in range(40):\n"
                  "    os.close(os.open(%r, os.O_WRONLY))\n" % self.file)
        r = self.trace([PY, "-c", script])
        evs = self.opens(r, self.file)
        self.assertEqual(len(evs), 40)
        self.assertTrue(all("count" not in ev for ev in evs))

    def test_count_matches_strace(self):
        if not shutil.which("strace"):
            self.skipTest("strace is not installed")
        out = self.path("strace.out")
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat",
                        "-o", out, PY, "-c", OPENER, self.file, "123", "-",
                        "0"], check=True)
        with open(out) as f:
            want = sum(1 for line in f if '"%s"' % self.file in line)
        self.assertEqual(want, 123)
        r = self.opener(123)
        self.assertEqual(sum(ev.get("count", 1)
                             for ev in self.opens(r, self.file)), want)


# Repeats told apart without a file syscall in between, which would emit
# the held open first: each step changes one thing a repeat must match,
# then opens "data" again, relative to the cwd or to a dirfd.
CHANGES = r"""
import ctypes, os, sys, threading
a, b, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
libc = ctypes.CDLL(None, use_errno=True)

def loop(name="data", dirfd=None):
    for _ in range(n):
        os.close(os.open(name, os.O_RDONLY, dir_fd=dirfd))

os.chdir(a)
loop()
os.chdir(b)                      # another cwd: b/data
loop()
libc.prctl(15, b"renamed", 0, 0, 0)  # PR_SET_NAME: another comm
loop()
# another thread puts another file under the name: another inode
t = threading.Thread(target=os.rename, args=("other", "data"))
t.start(); t.join()
loop()
# dirfd: a's, then b's at the same number
fd = os.open(a, os.O_RDONLY | os.O_DIRECTORY)
loop(dirfd=fd)
os.close(fd)
fd2 = os.open(b, os.O_RDONLY | os.O_DIRECTORY)
assert fd2 == fd
loop(dirfd=fd2)
os.setresgid(65534, 65534, 65534)
os.setresuid(65534, 65534, 65534)  # other credentials
loop(dirfd=fd2)
"""


class RepeatTest(fptest.TraceCase):
    """An open repeats the held one only if everything its record holds
    is the same: these checks run before the record is built."""

    def test_a_repeat_matches_every_field(self):
        a, b = self.path("a"), self.path("b")
        for d in (a, b):
            os.mkdir(d)
            os.chmod(d, 0o755)
            for name in ("data", "other"):
                with open(os.path.join(d, name), "w") as f:
                    f.write(name)
                os.chmod(os.path.join(d, name), 0o644)
        os.chmod(self.path(), 0o755)
        r = self.trace([PY, "-c", CHANGES, a, b, "25"])
        got = [(ev["path"], ev["comm"], ev["uid"], ev.get("path_dirfd"),
                ev.get("count", 1))
               for ev in r.of(type="open")
               if ev["path"] in (a + "/data", b + "/data") and ev.get("ok")]
        self.assertEqual(
            [(p, c, u, d is not None and d >= 0, k)
             for p, c, u, d, k in got],
            [(a + "/data", "python3", 0, False, 25),
             (b + "/data", "python3", 0, False, 25),
             (b + "/data", "renamed", 0, False, 25),
             (b + "/data", "renamed", 0, False, 25),
             (a + "/data", "renamed", 0, True, 25),
             (b + "/data", "renamed", 0, True, 25),
             (b + "/data", "renamed", 65534, True, 25)], got)


# The process moved to a cgroup below the run's and back by another thread
# (no file call of the opening thread in between, which would emit the
# held open first): a repeat is told by the css_set the task was in when
# the open was held (same_hdr() in bpf/collapse.bpf.h), not by the
# cgroup's id, and each move ends the run of repeats.
CGROUP_MOVES = r"""
import os, sys, threading
path, n = sys.argv[1], int(sys.argv[2])

def mountpoint():
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        if f[f.index("-") + 1] == "cgroup2":
            return f[4]

rel = [l[3:].strip() for l in open("/proc/self/cgroup") if l.startswith("0::")]
run = mountpoint() + rel[0]
sub = os.path.join(run, "sub")
os.mkdir(sub)

def move(d):
    with open(os.path.join(d, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))

def moved(d):
    t = threading.Thread(target=move, args=(d,))
    t.start(); t.join()

def loop():
    for _ in range(n):
        os.close(os.open(path, os.O_RDONLY))

loop()
moved(sub)
loop()
moved(run)
loop()
"""


class CgroupMoveTest(fptest.TraceCase):
    """A repeat is in the cgroup the held open was in."""

    def test_a_move_to_another_cgroup_and_back_ends_each_run(self):
        data = self.path("data")
        with open(data, "w") as f:
            f.write("x")
        os.chmod(self.path(), 0o755)
        os.chmod(data, 0o644)
        r = self.trace([PY, "-c", CGROUP_MOVES, data, "40"])
        got = [(ev["cgroup_id"], ev.get("count", 1))
               for ev in r.of(type="open") if ev["path"] == data]
        self.assertEqual([k for _, k in got], [40, 40, 40], got)
        first, below, back = (c for c, _ in got)
        self.assertNotEqual(first, below, got)
        self.assertEqual(first, back, got)


# One file reached by other spellings, by a hard link, and by its new name
# after another thread renamed it: only what reaches the same directory
# entry with no rename in between is a repeat, whatever its bytes.
SPELLINGS = r"""
import os, sys, threading
a, n = sys.argv[1], int(sys.argv[2])

def loop(name):
    for _ in range(n):
        os.close(os.open(name, os.O_RDONLY))

os.chdir(a)
loop("data")
loop("./data")
loop(os.path.join(a, "data"))
loop("hl")                       # a hard link: the same inode, another name
loop("data")
t = threading.Thread(target=os.rename, args=("data", "moved"))
t.start(); t.join()
loop("moved")                    # the same dentry, under its new name
"""


class SpellingTest(fptest.TraceCase):
    """A repeat is told by the dentry the kernel opened, not by the bytes
    the caller passed: another spelling of the same name is the same
    open; a hard link, or the name a rename gave, is an open of its own."""

    def test_the_kernel_s_dentry_not_the_caller_s_bytes(self):
        a = self.path("a")
        os.mkdir(a)
        os.chmod(a, 0o755)
        os.chmod(self.path(), 0o755)
        with open(os.path.join(a, "data"), "w") as f:
            f.write("data")
        os.chmod(os.path.join(a, "data"), 0o644)
        os.link(os.path.join(a, "data"), os.path.join(a, "hl"))
        r = self.trace([PY, "-c", SPELLINGS, a, "20"])
        names = {a + "/data", a + "/hl", a + "/moved"}
        got = [(ev["path"], ev.get("count", 1))
               for ev in r.of(type="open")
               if ev["path"] in names and ev.get("ok")]
        self.assertEqual(got, [(a + "/data", 60), (a + "/hl", 20),
                               (a + "/data", 20), (a + "/moved", 20)])


class HeldAtStopTest(unittest.TestCase):
    """A process still running when tracing stops: its held open is
    drained from the kernel with its count; replay gives the receipt."""

    def kill_from(self, pidf):
        try:
            with open(pidf) as f:
                os.kill(int(f.read()), 9)
        except (OSError, ValueError):
            pass

    def test_leftover_holds_and_replay_is_byte_for_byte(self):
        fptest.check_binaries()
        tmp = os.path.realpath(tempfile.mkdtemp(prefix="fpit-col-",
                                                dir="/tmp"))
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        data = os.path.join(tmp, "data")
        with open(data, "w") as f:
            f.write("x")
        ready = os.path.join(tmp, "ready")
        os.mkfifo(ready)
        root = os.path.join(tmp, "root")
        os.mkdir(root)
        log, rec, events = (os.path.join(tmp, n)
                            for n in ("log", "receipt.json", "ev.ndjson"))
        pidf = os.path.join(tmp, "pid")
        self.addCleanup(self.kill_from, pidf)
        # the child opens 77 times and outlives the command; it says so
        # through a FIFO opened before, with no file syscall after the
        # opens, so the kernel still holds their record at the end
        child = ("import os, time\nfd = os.open(%r, os.O_WRONLY)\n"
                 "for _ in range(77):\n"
                 "    os.close(os.open(%r, os.O_RDONLY))\n"
                 "os.write(fd, str(os.getpid()).encode())\nos.close(fd)\n"
                 "time.sleep(60)\n" % (ready, data))
        cmd = [PY, "-c", "import subprocess, sys\n"
               "subprocess.Popen([sys.executable, '-c', %r],\n"
               "                 stdout=subprocess.DEVNULL,\n"
               "                 stderr=subprocess.DEVNULL)\n"
               "pid = open(%r).read()\n"
               "open(%r, 'w').write(pid)\n" % (child, ready, pidf)]
        argv = [FOOTPRINT, "run", "-q", "--root", root, "--leftovers",
                "allow", "--allow", "**", "--record", log, "--receipt", rec,
                "--events", events, "--"] + cmd
        p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=60)
        if p.returncode == fptest.EXIT_NOTRACE:
            fptest.cannot_test(p.stderr.decode())
        with open(events) as f:
            evs = [json.loads(line) for line in f]
        opens = [ev for ev in evs
                 if ev["type"] == "open" and ev["path"] == data]
        self.assertEqual([ev.get("count", 1) for ev in opens], [77],
                         p.stderr.decode())
        with open(rec, "rb") as f:
            live = f.read()
        self.assertEqual(json.loads(live)["trace"]["opens_collapsed"], 76)
        rep = os.path.join(tmp, "replay.json")
        q = subprocess.run([FOOTPRINT, "replay", "--receipt", rep, log],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=60)
        self.assertEqual(q.returncode, p.returncode, q.stderr.decode())
        with open(rep, "rb") as f:
            self.assertEqual(f.read(), live)
        ev2 = subprocess.run([FOOTPRINT, "events", log],
                             stdin=subprocess.DEVNULL, capture_output=True,
                             timeout=60)
        counts = [json.loads(line).get("count", 1)
                  for line in ev2.stdout.splitlines()
                  if b'"type":"open"' in line and data.encode() in line]
        self.assertEqual(counts, [77])


if __name__ == "__main__":
    unittest.main()
