"""If footprint dies, the command dies (issue 8, class 4).

footprint runs as root for an unprivileged invoking user (nobody, through
SUDO_UID/SUDO_GID/SUDO_USER) and traces a command nobody trusts. When
footprint is SIGKILLed or killed by the OOM killer, its watchdog kills the
run's cgroup at once, so nothing of the command goes on untraced; when the
watchdog could not (simulated by stopping it), the next footprint kills what
the dead run left and says so, and never touches a live run.

Run as root from the top of the tree:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_sec_watchdog.py
"""

import errno
import os
import signal
import subprocess
import sys
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fptest import cgroup2_mount  # noqa: E402

import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, EXIT_VERDICT, Sandbox  # noqa: E402

NOBODY = su.nobody()
WATCHDOG = "fp-watchdog"
# how long the command may go on after footprint died
BOUND = 2.0


def sh(script, *args):
    return ["sh", "-c", script, "sh"] + list(args)




def cgroup_of(pid):
    """A process's cgroup v2 path (below the mount), or None."""
    try:
        with open("/proc/%d/cgroup" % pid) as f:
            for line in f:
                if line.startswith("0::"):
                    return line[3:].strip()
    except OSError:
        pass
    return None


def read(path, mode="r"):
    try:
        with open(path, mode) as f:
            return f.read()
    except OSError:
        return None


def comm(pid):
    c = read("/proc/%d/comm" % pid)
    return c.strip() if c else None


def children(pid):
    c = read("/proc/%d/task/%d/children" % (pid, pid))
    return [int(x) for x in c.split()] if c else []


def watchdog_of(fp_pid):
    found = [p for p in children(fp_pid) if comm(p) == WATCHDOG]
    return found[0] if found else None


def with_token(token, exclude=()):
    """Live processes whose command line holds token."""
    want = os.fsencode(token)
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in exclude:
            continue
        raw = read("/proc/%s/cmdline" % name, "rb")
        if raw and want in raw and su.proc_state(int(name)) not in ("Z",
                                                                    None):
            found.append(int(name))
    return found


def status_field(pid, key):
    for line in (read("/proc/%d/status" % pid) or "").splitlines():
        if line.startswith(key + ":"):
            return line.split(":", 1)[1].strip()
    return None


class WatchdogTest(unittest.TestCase):
    def setUp(self):
        su.check_binary()
        self.mnt = cgroup2_mount()
        if not self.mnt:
            su.cannot_test("no cgroup v2 mount")
        self.sb = Sandbox(self)
        self.token = "fpwd-" + uuid.uuid4().hex
        self.addCleanup(self.kill_leftovers)

    def kill_leftovers(self):
        for _ in range(3):
            for pid in with_token(self.token):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.05)

    def start(self, cmd, opts=(), wrapper=()):
        p = self.sb.start(cmd, opts=opts, env=su.sudo_env(NOBODY),
                          wrapper=wrapper)
        p.fp_errpath = p.fp_err.name
        return p

    def wait_running(self, p, pred, what, timeout=20):
        def ready():
            if p.poll() is not None:
                return "ended"
            return pred()
        got = su.wait_for(ready, timeout)
        if got == "ended":
            res = self.sb.finish(p)
            self.fail("footprint ended before %s:\n%s" % (what,
                                                          res.describe()))
        self.assertTrue(got, "%s never happened" % what)
        return got

    def command_pids(self, p):
        return with_token(self.token, exclude=(p.pid,))

    def run_cgroup(self, p, pids):
        cgs = {cgroup_of(x) for x in pids} - {None}
        self.assertEqual(len(cgs), 1, cgs)
        cg = cgs.pop()
        self.assertTrue(cg.startswith("/footprint/run-%d-" % p.pid), cg)
        return self.mnt + cg

    def assert_stops(self, p, cgdir, markers, why):
        """Nothing of the command runs BOUND seconds after footprint died,
        its markers no longer change and its cgroup is gone."""
        t0 = time.monotonic()
        left = su.wait_for(lambda: not self.command_pids(p), BOUND)
        took = time.monotonic() - t0
        self.assertTrue(left, "%s: the command still runs %.1f s after "
                        "footprint died: %s" % (why, BOUND,
                                                self.command_pids(p)))
        self.assertTrue(su.wait_for(lambda: not os.path.exists(cgdir),
                                    BOUND),
                        "%s: the run cgroup %s is still there" % (why,
                                                                  cgdir))
        before = [(read(m), os.stat(m).st_mtime_ns) for m in markers]
        # the loops wrote every 50 ms: six rounds without a change
        time.sleep(0.3)
        after = [(read(m), os.stat(m).st_mtime_ns) for m in markers]
        self.assertEqual(before, after, "%s: a marker still changes" % why)
        return took

    def assert_watchdog_line(self, p, n=None):
        want = "footprint: footprint (pid %d) died while tracing" % p.pid
        err = su.wait_for(lambda: want in (read(p.fp_errpath) or "") and
                          read(p.fp_errpath), BOUND)
        self.assertTrue(err, "no line from the watchdog: %r" %
                        read(p.fp_errpath))
        if n is not None:
            self.assertIn("killed the %d processes" % n, err)

    # (a) ------------------------------------------------------------------
    def test_sigkill_of_footprint_kills_the_command(self):
        m1, m2 = self.sb.in_root("m1"), self.sb.in_root("m2")
        wdfile, res = self.sb.in_root("wdpid"), self.sb.in_root("kill-res")
        # a loop, a double-forked setsid'd loop, and an attempt on the
        # watchdog once the test names it
        script = (
            ": %s; ( ( setsid sh -c ': %s; while :; do date +%%s%%N > m2; "
            "sleep 0.05; done' & ) & ); tried=; while :; do "
            "date +%%s%%N > m1; if [ -z \"$tried\" ] && [ -s wdpid ]; then "
            "tried=1; w=$(cat wdpid); kill -KILL $w 2>/dev/null; a=$?; "
            "kill -STOP $w 2>/dev/null; b=$?; echo \"$a $b\" > kill-res; "
            "fi; sleep 0.05; done" % (self.token, self.token))
        p = self.start(sh(script))
        # the two loops' shells: a third process of the command is only
        # ever a subshell forked for date or sleep, alive for a moment
        self.wait_running(p, lambda: os.path.exists(m1) and
                          os.path.exists(m2) and len(self.command_pids(p))
                          >= 2, "both loops ran")
        pids = self.command_pids(p)
        uids = {}
        for pid in pids:
            try:
                uids[pid] = su.proc_uids(pid)[0]
            except FileNotFoundError:
                pass  # a subshell forked for date or sleep, gone already
        # both loops at least, and every one of them runs as the user
        self.assertGreaterEqual(len(uids), 2, pids)
        self.assertEqual(set(uids.values()), {NOBODY.pw_uid}, uids)
        cgdir = self.run_cgroup(p, pids)
        wd = watchdog_of(p.pid)
        self.assertIsNotNone(wd, "footprint has no %s child: %s" %
                             (WATCHDOG, children(p.pid)))
        # out of the terminal's reach and out of the run's cgroup
        self.assertEqual(os.getsid(wd), wd)
        ign = int(status_field(wd, "SigIgn"), 16)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self.assertTrue(ign & (1 << (sig - 1)), "%s not ignored" % sig)
        self.assertNotEqual(self.mnt + cgroup_of(wd), cgdir)
        self.assertEqual(su.proc_uids(wd)[0], 0)
        # the command, as nobody, cannot kill or stop it
        with open(wdfile + ".tmp", "w") as f:
            f.write("%d\n" % wd)
        os.chmod(wdfile + ".tmp", 0o644)
        os.rename(wdfile + ".tmp", wdfile)
        self.wait_running(p, lambda: os.path.exists(res) and read(res)
                          and read(res).endswith("\n"), "the kill attempt")
        self.assertEqual(read(res).split(), ["1", "1"],
                         "the command could signal the watchdog")
        self.assertEqual(su.proc_state(wd), "S")

        p.kill()
        p.wait()
        took = self.assert_stops(p, cgdir, [m1, m2], "SIGKILL")
        self.assert_watchdog_line(p)
        self.assertTrue(su.wait_for(lambda: su.proc_state(wd) in (None, "Z"),
                                    BOUND), "the watchdog did not exit")
        self.assertLess(took, BOUND)

    # (b) ------------------------------------------------------------------
    def test_oom_kill_of_footprint_kills_the_command(self):
        mem = MemCgroup(self)
        m1 = self.sb.in_root("m1")
        go, survived = self.sb.in_root("go"), self.sb.in_root("survived")
        # once told, the command grows by 32 MiB in a subshell; whatever
        # becomes of that, the loop goes on
        script = (": %s; while [ ! -e go ]; do date +%%s%%N > m1; "
                  "sleep 0.05; done; ( x=$(head -c 33554432 /dev/zero | "
                  "tr '\\0' a); echo > survived ); while :; do "
                  "date +%%s%%N > m1; sleep 0.05; done" % self.token)
        # the OOM killer takes the biggest: a 64M ring makes it footprint
        p = self.start(sh(script), opts=["--ring-size", "64M"],
                       wrapper=["sh", "-c", 'echo $$ > "$0"/cgroup.procs '
                                '&& exec "$@"', mem.path])
        self.wait_running(p, lambda: os.path.exists(m1) and
                          self.command_pids(p), "the command ran")
        cgdir = self.run_cgroup(p, self.command_pids(p))
        mem.limit(mem.usage() + (4 << 20))
        with open(go, "w"):
            pass
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            self.fail("footprint was not killed by the OOM killer")
        self.assertEqual(p.returncode, -signal.SIGKILL)
        self.assertGreaterEqual(mem.oom_kills(), 1,
                                "footprint died, but not of the OOM killer")
        self.assert_stops(p, cgdir, [m1], "OOM")
        self.assertFalse(os.path.exists(survived),
                         "the command went on after footprint died")
        self.assert_watchdog_line(p)

    # (c) ------------------------------------------------------------------
    def test_next_footprint_reaps_dead_runs_only(self):
        secs_dead, secs_live = su.unique_seconds(41), su.unique_seconds(42)
        dead = self.start(["sleep", secs_dead])
        self.wait_running(dead, lambda: su.pgrep_exact(["sleep", secs_dead]),
                          "the first command ran")
        dead_cg = self.run_cgroup(dead, su.pgrep_exact(["sleep", secs_dead]))
        # started while the other still lives, so that its own start does
        # not reap the other run first
        live = self.start(["sleep", secs_live])
        self.wait_running(live, lambda: su.pgrep_exact(["sleep", secs_live]),
                          "the live command ran")
        live_pids = su.pgrep_exact(["sleep", secs_live])
        live_cg = self.run_cgroup(live, live_pids)
        # a watchdog that cannot act: the run stays populated
        wd = watchdog_of(dead.pid)
        self.assertIsNotNone(wd)
        os.kill(wd, signal.SIGSTOP)
        self.addCleanup(self.kill_quietly, wd)
        dead.kill()
        dead.wait()
        time.sleep(0.2)
        self.assertTrue(su.pgrep_exact(["sleep", secs_dead]),
                        "the stopped watchdog still killed the run: the "
                        "test proves nothing")
        # this test's pid with another start time: the pid was reused
        start = int(read("/proc/self/stat").rsplit(")", 1)[1].split()[19])
        pidns = os.stat("/proc/self/ns/pid").st_ino
        reused_cg, reused = self.fake_run(os.getpid(), start + 1, pidns)
        # a pid of another pid namespace cannot be judged: left alone
        other_cg, other = self.fake_run(dead.pid, 1, pidns + 1)

        res = self.sb.run(["true"], env=su.sudo_env(NOBODY))
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        lines = [x for x in res.err.splitlines() if "killed" in x]
        want = ("footprint: killed 1 processes left running by an earlier "
                "footprint (pid %d) that died; " % dead.pid)
        self.assertEqual(len([x for x in lines if x.startswith(want)]), 1,
                         res.err)
        want = ("footprint: killed 1 processes left running by an earlier "
                "footprint (pid %d) that died; " % os.getpid())
        self.assertEqual(len([x for x in lines if x.startswith(want)]), 1,
                         res.err)
        self.assertNotIn("(pid %d)" % live.pid, res.err)
        self.assertFalse(su.pgrep_exact(["sleep", secs_dead]))
        self.assertFalse(os.path.exists(dead_cg))
        self.assertEqual(reused.wait(5), -signal.SIGKILL)
        self.assertFalse(os.path.exists(reused_cg))
        self.assertIsNone(other.poll())
        self.assertTrue(os.path.isdir(other_cg))
        # the live run is untouched
        self.assertEqual(su.pgrep_exact(["sleep", secs_live]), live_pids)
        self.assertTrue(os.path.isdir(live_cg))
        self.assertIsNone(live.poll())

        # the dead run's watchdog, let go, finds its cgroup gone and exits
        os.kill(wd, signal.SIGCONT)
        self.assertTrue(su.wait_for(lambda: su.proc_state(wd) in (None, "Z"),
                                    BOUND), "the watchdog did not exit")
        self.assertNotIn("died while tracing", read(dead.fp_errpath))

        for pid in live_pids:
            os.kill(pid, signal.SIGKILL)
        res = self.sb.finish(live)
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        self.assertNotIn("killed", res.err)

    def fake_run(self, pid, start, pidns):
        """A run cgroup made the way footprint makes them, owned by
        (pid, start, pidns), with a sleep of root's in it."""
        cg = "%s/footprint/run-%d-%d" % (self.mnt, pid, start)
        os.makedirs(os.path.dirname(cg), exist_ok=True)
        os.mkdir(cg)
        self.addCleanup(self.remove_cgroup, cg)
        os.setxattr(cg, "trusted.footprint.owner",
                    b"%d %d %d" % (pid, start, pidns))
        secs = su.unique_seconds(43)
        proc = subprocess.Popen(["sleep", secs])
        # cleanups run last-in first-out: kill, then reap
        self.addCleanup(proc.wait)
        self.addCleanup(self.kill_quietly, proc.pid)
        with open(cg + "/cgroup.procs", "w") as f:
            f.write("%d\n" % proc.pid)
        return cg, proc

    def kill_quietly(self, pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass

    def remove_cgroup(self, cg):
        if not os.path.exists(cg):
            return
        try:
            with open(cg + "/cgroup.kill", "w") as f:
                f.write("1")
        except OSError:
            pass
        su.wait_for(lambda: "populated 0" in (read(cg + "/cgroup.events")
                                              or "populated 0"), 5)
        try:
            os.rmdir(cg)
        except OSError:
            pass


class MemCgroup:
    """A memory-limited cgroup of the test's own: v2 (memory.max) when the
    memory controller is on the v2 hierarchy, else v1 (hybrid mode)."""

    def __init__(self, test):
        self.test = test
        name = "fpwd-oom-" + uuid.uuid4().hex[:12]
        mnt2 = cgroup2_mount()
        ctrl = (read(mnt2 + "/cgroup.controllers") or "").split()
        if "memory" in ctrl:
            self.v2 = True
            sub = read(mnt2 + "/cgroup.subtree_control").split()
            if "memory" not in sub:
                with open(mnt2 + "/cgroup.subtree_control", "w") as f:
                    f.write("+memory")
            self.path = os.path.join(mnt2, name)
        else:
            self.v2 = False
            mnt1 = self.v1_mount()
            if not mnt1:
                su.cannot_test("no memory controller in cgroup v1 or v2")
            own = ""
            for line in read("/proc/self/cgroup").splitlines():
                _, ctrls, path = line.split(":", 2)
                if "memory" in ctrls.split(","):
                    own = path
            self.path = os.path.join(mnt1 + own, name)
        os.mkdir(self.path)
        test.addCleanup(self.remove)

    @staticmethod
    def v1_mount():
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields = right.split()
                if fields[:1] == ["cgroup"] and \
                        "memory" in fields[2].split(","):
                    return left.split()[4]
        return None

    def _read_int(self, name):
        return int(read(os.path.join(self.path, name)).split()[0])

    def usage(self):
        return self._read_int("memory.current" if self.v2 else
                              "memory.usage_in_bytes")

    def limit(self, n):
        if self.v2:
            names = ["memory.swap.max", "memory.max"]
        else:
            names = ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
        for name in names:
            path = os.path.join(self.path, name)
            if os.path.exists(path):
                with open(path, "w") as f:
                    f.write(str(0 if name == "memory.swap.max" else n))

    def oom_kills(self):
        name = "memory.events" if self.v2 else "memory.oom_control"
        for line in read(os.path.join(self.path, name)).splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
        return 0

    def remove(self):
        procs = os.path.join(self.path, "cgroup.procs")

        def empty():
            left = (read(procs) or "").split()
            for pid in left:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass
            return not left
        su.wait_for(empty, 5)
        for _ in range(100):
            try:
                os.rmdir(self.path)
                return
            except OSError as e:
                if e.errno == errno.ENOENT:
                    return
                time.sleep(0.05)


if __name__ == "__main__":
    unittest.main()
