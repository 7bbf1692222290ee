"""The before process table with the tracer's task iterator (issue 35;
user/snapshot/snapshot_tasks_fresh.c, bpf/proctab.bpf.c).

fpproctab (a test binary) loads the tracer and reads the whole process
table both ways on the live machine: with the iterator's records (a
kernel thread is its record; of any other process /proc gives argv, exe
and cwd, and a cgroup's path once a cgroup) and from /proc alone, the
way it has always been read. /proc is the oracle: for processes this test
makes unusual on purpose (another uid, no_new_privs, fewer capabilities,
odd bytes in cwd and argv, a cgroup of their own, a zombie) and for pid 1
(which this VM's iterator never shows), every field must be the same both
ways and what the test set up. A machine of more than 512 processes is
read in batches, an iterator read each.

Run from the top of the tree, as root:
  FOOTPRINT=build/footprint FOOTPRINT_TEST_BIN=build/tests \\
      FOOTPRINT_REQUIRE_BPF=1 /usr/bin/python3 -m unittest -v \\
      tests/integration/test_proc_fresh.py
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
import verdict_util as vu  # noqa: E402

SLEEP = shutil.which("sleep")
SETPRIV = shutil.which("setpriv")
CAP_NET_RAW = 13
NOBODY = 65534


def bin_path():
    return os.path.join(os.environ.get("FOOTPRINT_TEST_BIN", "build/tests"),
                        "fpproctab")


start = vu.start_beside
stop = vu.kill_beside


def tables(rounds=1, nofile=None):
    """Each round's two tables, {pid: row} by way, and its iterator fds;
    with nofile, under that soft limit of open files."""
    def limit():
        if nofile:
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))
    p = subprocess.run([bin_path(), str(rounds)], capture_output=True,
                       timeout=120, preexec_fn=limit)
    if p.returncode and b"BPF tracer" in p.stderr:
        fptest.cannot_test(p.stderr.decode().strip())
    if p.returncode:
        raise AssertionError("fpproctab failed: %s" % p.stderr.decode())
    out, cur = [], {"tasks": {}, "proc": {}}
    for line in p.stdout.decode().splitlines():
        row = json.loads(line)
        if "opens" in row:
            out.append((cur, row["opens"]))
            cur = {"tasks": {}, "proc": {}}
        else:
            cur[row["way"]][row["pid"]] = row
    return out


def unhex(row, key):
    return bytes.fromhex(row[key])


def wait_for(cond, what):
    for _ in range(500):
        if cond():
            return
        time.sleep(0.01)
    raise AssertionError("timed out waiting for " + what)


class FreshTableTest(unittest.TestCase):
    def setUp(self):
        if os.geteuid():
            fptest.cannot_test("the tracer needs root")
        if not os.path.exists(bin_path()):
            self.fail("no %s: build the tests first" % bin_path())
        self.tmp = tempfile.mkdtemp(prefix="fp-fresh-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def same_both_ways(self, t, pid):
        a, b = t["tasks"].get(pid), t["proc"].get(pid)
        self.assertIsNotNone(a, "pid %d not in the iterator's table" % pid)
        self.assertIsNotNone(b, "pid %d not in /proc's table" % pid)
        for k in b:
            if k != "way":
                self.assertEqual(a[k], b[k], "pid %d: %s" % (pid, k))
        return a

    def own_cgroup(self):
        root = fptest.cgroup2_mount()
        if not root:
            self.skipTest("no cgroup v2 hierarchy")
        d = os.path.join(root, "fp-fresh-%d" % os.getpid())
        os.mkdir(d)
        self.addCleanup(self.remove_cgroup, d)
        return d

    def remove_cgroup(self, d):
        # its process killed, but maybe not reaped yet
        for _ in range(500):
            try:
                os.rmdir(d)
                return
            except OSError:
                time.sleep(0.01)
        os.rmdir(d)

    def test_odd_processes_agree_with_proc(self):
        if not SETPRIV:
            self.skipTest("no setpriv")
        # another uid, no_new_privs, no capabilities
        nobody = start([SETPRIV, "--reuid=%d" % NOBODY,
                        "--regid=%d" % NOBODY, "--clear-groups",
                        "--no-new-privs", SLEEP, "300.0125"])
        self.addCleanup(stop, nobody)
        # root without CAP_NET_RAW in its bounding set: exec leaves it out
        nonet = start([SETPRIV, "--bounding-set=-net_raw", SLEEP,
                       "300.025"])
        self.addCleanup(stop, nonet)
        # a cwd and an argv[0] of bytes that are no text
        odd = os.path.join(self.tmp.encode(), b"d\xff\nx y")
        os.mkdir(odd)
        arg = b"a\xfe\nb"
        oddp = start([arg, b"300.05"], executable=SLEEP, cwd=odd)
        self.addCleanup(stop, oddp)
        # a cgroup of its own
        cg = self.own_cgroup()
        incg = start([SLEEP, "300.1"])
        self.addCleanup(stop, incg)
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(incg.pid))
        # a zombie: its parent never reaps it
        zparent = start(["/bin/sh", "-c", "%s 0.01 & exec %s 300.2" %
                         (SLEEP, SLEEP)])
        self.addCleanup(stop, zparent)
        wait_for(lambda: self.zombie_of(zparent.pid), "the zombie")
        zombie = self.zombie_of(zparent.pid)
        wait_for(lambda: os.readlink("/proc/%d/exe" % oddp.pid) == SLEEP,
                 "the exec")
        time.sleep(0.05)

        (t, opens), = tables()
        self.assertEqual(opens, 2, "one read for the kinds, one a batch")

        r = self.same_both_ways(t, nobody.pid)
        self.assertEqual(r["uid"], NOBODY)
        self.assertEqual(r["nnp"], 1)
        self.assertEqual(r["cap_eff"], 0)
        r = self.same_both_ways(t, nonet.pid)
        self.assertEqual(r["uid"], 0)
        self.assertEqual(r["nnp"], 0)
        self.assertFalse(r["cap_eff"] & (1 << CAP_NET_RAW))
        self.assertTrue(r["cap_eff"] & 1, "CAP_CHOWN kept")
        r = self.same_both_ways(t, oddp.pid)
        self.assertEqual(unhex(r, "cwd"), odd)
        self.assertEqual(unhex(r, "exe"), SLEEP.encode())
        self.assertEqual(unhex(r, "argv"), arg + b"\x00300.05\x00")
        r = self.same_both_ways(t, incg.pid)
        self.assertEqual(unhex(r, "cgroup"),
                         ("/" + os.path.basename(cg)).encode())
        r = self.same_both_ways(t, zombie)
        self.assertEqual((r["exe"], r["cwd"], r["argv"]), ("", "", ""))
        self.assertEqual(r["ppid"], zparent.pid)
        # pid 1, which this VM's iterator leaves out, read whole; and this
        # test itself
        self.same_both_ways(t, 1)
        r = self.same_both_ways(t, os.getpid())
        self.assertEqual(r["uid"], 0)

    def zombie_of(self, ppid):
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % pid) as f:
                    st = f.read()
            except OSError:
                continue
            fields = st[st.rindex(")") + 2:].split()
            if fields[0] == "Z" and int(fields[1]) == ppid:
                return int(pid)
        return None

    def test_kernel_threads_are_their_records(self):
        (t, _), = tables()
        kthreads = [r for r in t["tasks"].values() if r["kthread"]]
        self.assertGreater(len(kthreads), 0)
        r = t["tasks"].get(2)
        self.assertIsNotNone(r, "kthreadd")
        self.assertEqual(unhex(r, "comm"), b"kthreadd")
        self.assertEqual((r["exe"], r["cwd"], r["argv"], r["cgroup"]),
                         ("", "", "", ""))
        self.assertEqual(r["uid"], 2**32 - 1, "unknown, as /proc leaves it")
        for r in kthreads:
            q = t["proc"].get(r["pid"])
            if q is None or q["start"] != r["start"]:
                continue
            self.assertTrue(q["kthread"])
            # the task's name: /proc's adds a workqueue's suffix
            self.assertTrue(unhex(q, "comm").startswith(unhex(r, "comm")),
                            r)
            for k in ("ppid", "uid", "cap_eff", "nnp", "exe", "cwd",
                      "argv", "cgroup"):
                self.assertEqual(r[k], q[k], "pid %d: %s" % (r["pid"], k))

    def test_a_busy_machine_is_read_in_batches(self):
        many = [start([SLEEP, "300.%03d" % i]) for i in range(600)]
        for p in many:
            self.addCleanup(stop, p)
        wait_for(lambda: all(os.path.exists("/proc/%d" % p.pid) and
                             os.readlink("/proc/%d/exe" % p.pid) == SLEEP
                             for p in many), "the sleeps' exec")
        # a batch is 512 directories, or half what the fd limit leaves
        for nofile, batch in ((None, 512), (200, 68)):
            (t, opens), = tables(nofile=nofile)
            n = len([r for r in t["tasks"].values() if not r["kthread"]])
            self.assertGreater(n, 600)
            # a read for the kinds, one a batch; what the listing held
            # may differ from the table by the few processes that ended
            # in between (this test's own Python threads reap sleeps)
            least = 1 + (n + batch - 1) // batch
            self.assertIn(opens, (least, 1 + (n + 3 + batch - 1) // batch),
                          "%d processes not kernel threads, batches of %d"
                          % (n, batch))
            self.assertGreaterEqual(opens, 3 if batch == 512 else 10)
            for i, p in enumerate(many):
                r = self.same_both_ways(t, p.pid)
                self.assertEqual(unhex(r, "argv"),
                                 SLEEP.encode() + b"\x00300.%03d\x00" % i)


class WarmRunTest(unittest.TestCase):
    """A run whose kept set loads in time reads its before table with the
    iterator: of no process but pid 1 (which has no record here) does it
    open /proc/PID/status, which only the /proc way reads."""

    def status_opens(self, root, env):
        trace = os.path.join(root, "..", "trace-%d" % len(env))
        argv = ["strace", "-f", "--seccomp-bpf", "-e", "trace=openat",
                "-o", trace, os.environ.get("FOOTPRINT", "build/footprint"),
                "run", "-q", "--root", root, "--", "true"]
        p = subprocess.run(argv, env=dict(os.environ, **env),
                           capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        with open(trace) as f:
            return sum('"status"' in line for line in f)

    def test_the_before_table_skips_status(self):
        if os.geteuid():
            fptest.cannot_test("the tracer needs root")
        fptest.need_tools("strace")
        tmp = tempfile.mkdtemp(prefix="fp-warm-")
        self.addCleanup(shutil.rmtree, tmp, True)
        root = os.path.join(tmp, "root")
        os.mkdir(root)
        # the first run may load afresh, and keeps the set for the next
        subprocess.run([os.environ.get("FOOTPRINT", "build/footprint"),
                        "run", "-q", "--root", root, "--", "true"],
                       capture_output=True, timeout=60)
        fast = self.status_opens(root, {})
        slow = self.status_opens(root, {"FOOTPRINT_DEBUG_PROC_READS": "1"})
        self.assertLessEqual(fast, 2, "pid 1, and a newcomer at most")
        self.assertGreater(slow, fast + 2,
                           "/proc alone reads every process's status")


if __name__ == "__main__":
    unittest.main()
