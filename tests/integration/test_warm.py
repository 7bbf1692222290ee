"""The warm tracer: programs kept loaded between runs (user/trace/warm.h).

A run loads the BPF programs and leaves them pinned, not attached, under
/sys/fs/bpf/footprint/KEY; the next run with the same KEY attaches them
without a load, after resetting what the last run left. These tests check
that the reuse happens (the same kernel programs, by id), that a reused
set traces exactly what a fresh load does, that the state of a run killed
mid-flood does not leak into the next, and that a busy, stale, swapped or
foreign set is never used.
"""

import fcntl
import json
import os
import shutil
import signal
import subprocess
import threading
import time
import unittest

import fptest

WARM = "/sys/fs/bpf/footprint"
DEBUG_PREFIX = "footprint: debug: tracer: "


def drop_sets():
    if os.path.islink(WARM):
        os.unlink(WARM)
    if not os.path.isdir(WARM):
        return
    for key in os.listdir(WARM):
        d = os.path.join(WARM, key)
        for name in os.listdir(d):
            os.unlink(os.path.join(d, name))
        os.rmdir(d)


def sets():
    return sorted(os.listdir(WARM)) if os.path.isdir(WARM) else []


def prog_ids(key):
    """The kernel ids of a set's pinned programs, by pin name."""
    d = os.path.join(WARM, key)
    ids = {}
    for name in sorted(os.listdir(d)):
        if not name.startswith("p"):
            continue
        out = subprocess.run(
            ["bpftool", "-j", "prog", "show", "pinned",
             os.path.join(d, name)],
            check=True, stdout=subprocess.PIPE).stdout
        ids[name] = json.loads(out)["id"]
    return ids


def live_watchdogs():
    """The pids of fp-watchdog processes not exited."""
    live = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
        except (OSError, ValueError):
            continue
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        state = stat[stat.rfind(")") + 2:].split(" ", 1)[0]
        if comm == "fp-watchdog" and state not in ("Z", "X"):
            live.append(int(pid))
    return live


def tracer_line(stderr):
    lines = [ln for ln in stderr.decode("utf-8", "replace").splitlines()
             if ln.startswith(DEBUG_PREFIX)]
    if len(lines) != 1:
        raise AssertionError("want one tracer debug line: %r" % stderr)
    return lines[0][len(DEBUG_PREFIX):]


def shape(r):
    """What a run traced, without times, ids and pids."""
    out = []
    for ev in r.events:
        path = fptest.field_bytes(ev, "path") if "path" in ev or \
            "path_b64" in ev else None
        out.append((ev["type"], ev.get("sys"), ev.get("comm"), path,
                    ev.get("ret"), ev.get("count")))
    return out


@unittest.skipUnless(os.geteuid() == 0, "footprint run needs root")
@unittest.skipUnless(shutil.which("bpftool"), "bpftool reads the pins")
class WarmTest(fptest.TraceCase):

    def setUp(self):
        super().setUp()
        drop_sets()
        self.env = dict(os.environ, FOOTPRINT_DEBUG="1")

    def warm_run(self, cmd, opts=(), **kw):
        r = self.trace(cmd, opts=opts, env=self.env, **kw)
        line = tracer_line(r.stderr)
        # a read-only /sys (some containers): nothing can be kept there
        if line == "loaded afresh, none kept: no bpffs at /sys/fs/bpf":
            self.skipTest("no bpffs at /sys/fs/bpf, and it cannot be "
                          "mounted here")
        return r, line

    def kept(self, line):
        self.assertTrue(line.startswith("loaded afresh, kept in %s/" % WARM),
                        line)
        return line.rsplit("/", 1)[1]

    def reused(self, line, key):
        self.assertEqual(line, "reused the programs kept in %s/%s" %
                         (WARM, key))

    def kill_mid_run(self, key, cmd, started):
        """Run cmd under footprint, SIGKILL footprint once cmd has made
        the file started, and wait until its watchdog has ended cmd."""
        root = self.path("root")
        os.mkdir(root)
        fp = subprocess.Popen(
            [fptest.FOOTPRINT, "run", "--quiet", "--root", root, "--"] +
            cmd, cwd=self.dir, env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while not os.path.exists(started):
            self.assertIsNone(fp.poll(), "footprint ended early")
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.02)
        time.sleep(0.5)
        os.kill(fp.pid, signal.SIGKILL)
        err = fp.communicate(timeout=30)[1]
        self.reused(tracer_line(err), key)
        deadline = time.monotonic() + 30
        while subprocess.run(["pgrep", "-f", started],
                             stdout=subprocess.DEVNULL).returncode == 0:
            self.assertLess(time.monotonic(), deadline, "the command lives on")
            time.sleep(0.1)

    def test_kept_then_reused_traces_the_same(self):
        os.mkdir(self.path("sub"))
        with open(self.path("sub", "f"), "w") as f:
            f.write("x")
        cmd = ["sh", "-c", "cd sub && cat f && mv f g && mv g f"]
        r1, line = self.warm_run(cmd, cwd=self.dir)
        key = self.kept(line)
        self.assertEqual(sets(), [key])
        ids = prog_ids(key)
        self.assertIn("p0", ids)
        self.assertTrue(r1.with_path(self.path("sub", "f"), type="open"),
                        r1.describe())

        # moved while nothing is attached: no generation was bumped
        os.rename(self.path("sub"), self.path("sub2"))
        cmd2 = ["sh", "-c", "cd sub2 && cat f && mv f g && mv g f"]
        r2, line = self.warm_run(cmd2, cwd=self.dir)
        self.reused(line, key)
        self.assertEqual(prog_ids(key), ids, "the programs were loaded again")
        self.assertTrue(r2.with_path(self.path("sub2", "f"), type="open"),
                        r2.describe())
        stale = [ev for ev in r2.events
                 if (b"/sub/" in fptest.field_bytes(ev, "path")
                     if "path" in ev or "path_b64" in ev else False)]
        self.assertEqual(stale, [], "a path of the last run's tree")

        r3, line = self.warm_run(cmd2, opts=["--cold"], cwd=self.dir)
        self.assertEqual(line, "loaded afresh, none kept")
        self.assertEqual(prog_ids(key), ids)
        self.assertEqual(shape(r2), shape(r3),
                         "a reused set traced otherwise than a fresh load")

    def test_cold_keeps_nothing(self):
        r, line = self.warm_run(["true"], opts=["--cold"])
        self.assertEqual(line, "loaded afresh, none kept")
        self.assertEqual(sets(), [])
        self.assertNotIn("note", r.stderr.decode())

    def test_a_killed_run_leaves_nothing_to_the_next(self):
        _, line = self.warm_run(["true"])
        key = self.kept(line)
        ids = prog_ids(key)
        started = self.path("started")
        # a flood of opens (held back in the kernel) and renames, killed
        # with footprint in the middle of it
        loop = ("touch %s; while :; do cat zz-marker-a >/dev/null; "
                "mv zz-marker-a zz-marker-b; mv zz-marker-b zz-marker-a; "
                "done" % started)
        with open(self.path("zz-marker-a"), "w") as f:
            f.write("a")
        # its watchdog ends the loop once footprint is gone
        self.kill_mid_run(key, ["sh", "-c", loop], started)
        # killed between its two renames, maybe
        if os.path.exists(self.path("zz-marker-b")):
            os.rename(self.path("zz-marker-b"), self.path("zz-marker-a"))

        r, line = self.warm_run(["cat", "zz-marker-a"], cwd=self.dir)
        self.reused(line, key)
        self.assertEqual(prog_ids(key), ids)
        cgroups = {ev["cgroup_id"] for ev in r.events}
        self.assertEqual(len(cgroups), 1, r.describe())
        pids = {ev["pid"] for ev in r.events}
        self.assertEqual(len(pids), 1, r.describe())
        self.assertEqual([ev["comm"] for ev in r.of(type="exec")], ["cat"])
        self.assertEqual(r.with_path(self.path("zz-marker-b")), [],
                         "an event of the killed run")
        self.assertEqual(len(r.with_path(self.path("zz-marker-a"),
                                         type="open")), 1, r.describe())

    def test_a_killed_flood_leaves_no_count_to_the_next(self):
        _, line = self.warm_run(["true"])
        key = self.kept(line)
        started = self.path("started")
        # counted in the kernel's flow cache, never flushed: the links die
        # with footprint, before the watchdog ends the sender
        flood = ("import socket\n"
                 "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                 "s.sendto(b'x', ('127.0.0.1', 9013))\n"
                 "open(%r, 'w').close()\n"
                 "while True:\n"
                 "    s.sendto(b'x', ('127.0.0.1', 9013))\n" % started)
        self.kill_mid_run(key, ["python3", "-c", flood], started)

        r, line = self.warm_run(["true"], cwd=self.dir)
        self.reused(line, key)
        counts = [ev for ev in r.events if ev.get("port") == 9013]
        self.assertEqual(counts, [], "a count of the killed run")

    def test_a_killed_holder_leaves_no_open_to_the_next(self):
        _, line = self.warm_run(["true"])
        key = self.kept(line)
        started = self.path("started")
        marker = self.path("zz-held")
        with open(marker, "w") as f:
            f.write("a")
        # a record always held back in the kernel, never flushed: the
        # links die with footprint, before the watchdog ends the reader
        reader = ("import os\n"
                  "open(%r).close()\n"
                  "open(%r, 'w').close()\n"
                  "while True:\n"
                  "    os.close(os.open(%r, os.O_RDONLY))\n"
                  % (marker, started, marker))
        self.kill_mid_run(key, ["python3", "-c", reader], started)

        r, line = self.warm_run(["true"], cwd=self.dir)
        self.reused(line, key)
        self.assertEqual(r.with_path(marker), [], "an open of the killed run")

    def test_a_busy_set_is_left_to_its_run(self):
        _, line = self.warm_run(["true"])
        key = self.kept(line)
        ids = prog_ids(key)
        go = self.path("go")
        started = self.path("started")
        root = self.path("root")
        os.mkdir(root)
        holder = subprocess.Popen(
            [fptest.FOOTPRINT, "run", "--quiet", "--root", root,
             "--allow", self.dir + "/", "--",
             "sh", "-c", "touch %s; while [ ! -e %s ]; do sleep 0.05; done; "
             "cat %s" % (started, go, go)],
            env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 30
            while not os.path.exists(started):
                self.assertIsNone(holder.poll(), "the holder ended early")
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.02)
            with open(self.path("f"), "w") as f:
                f.write("x")
            r, line = self.warm_run(["cat", "f"], cwd=self.dir)
            self.assertEqual(
                line, "loaded afresh, none kept: the set is another run's")
            self.assertEqual(len(r.with_path(self.path("f"), type="open")),
                             1, r.describe())
        finally:
            open(go, "w").close()
            err = holder.communicate(timeout=60)[1]
        self.assertEqual(holder.returncode, 0, err)
        self.reused(tracer_line(err), key)
        self.assertEqual(prog_ids(key), ids)
        self.assertEqual(sets(), [key])

    def links_of(self, ids):
        """The links, attached now, of the programs of these ids."""
        out = subprocess.run(["bpftool", "-j", "link", "show"], check=True,
                             stdout=subprocess.PIPE).stdout
        return [ln for ln in json.loads(out or b"[]")
                if ln.get("prog_id") in ids]

    def test_the_watchdog_detaches_and_lets_the_set_go(self):
        # a run's links are closed by its watchdog once footprint has
        # ended (their detach is not on footprint's way out), and the set
        # goes with them: nothing stays attached, nothing stays held
        _, line = self.warm_run(["true"])
        key = self.kept(line)
        ids = set(prog_ids(key).values())
        r, line = self.warm_run(["true"])
        self.reused(line, key)
        deadline = time.monotonic() + 10
        while self.links_of(ids):
            self.assertLess(time.monotonic(), deadline,
                            "a finished run's links stay attached")
            time.sleep(0.05)
        fd = os.open(os.path.join(WARM, key), os.O_RDONLY | os.O_DIRECTORY)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    self.assertLess(time.monotonic(), deadline,
                                    "a finished run's set stays held")
                    time.sleep(0.05)
        finally:
            os.close(fd)
        # exited, if not reaped yet: init reaps it, as any orphan
        self.assertEqual(live_watchdogs(), [], "a watchdog lives on")

    def run_beside_shared_hold(self, let_go_after):
        """A run while the kept set is held shared (as a finished run's
        watchdog holds it), let go after let_go_after s (None: never)."""
        _, line = self.warm_run(["true"])
        key = self.kept(line)
        fd = os.open(os.path.join(WARM, key), os.O_RDONLY | os.O_DIRECTORY)
        timer = None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            if let_go_after is not None:
                timer = threading.Timer(let_go_after, fcntl.flock,
                                        (fd, fcntl.LOCK_UN))
                timer.start()
            _, line = self.warm_run(["true"])
        finally:
            if timer:
                timer.join()
            os.close(fd)
        return key, line

    def test_a_set_being_let_go_is_waited_for(self):
        # the next run waits for it rather than load afresh
        key, line = self.run_beside_shared_hold(0.1)
        self.reused(line, key)

    def test_a_set_let_go_too_slowly_is_not_waited_for(self):
        # a holder that never lets go (a stopped watchdog) costs a wait
        # of a bounded 200 ms, then a load of the run's own
        _, line = self.run_beside_shared_hold(None)
        self.assertEqual(
            line, "loaded afresh, none kept: the set is another run's")

    def test_two_sets_kept_the_oldest_goes(self):
        _, line = self.warm_run(["true"])
        first = self.kept(line)
        _, line = self.warm_run(["true"], opts=["--every-open"])
        second = self.kept(line)
        self.assertNotEqual(first, second)
        self.assertEqual(sets(), sorted([first, second]))
        # runs that alternate two option sets keep both warm
        _, line = self.warm_run(["true"])
        self.reused(line, first)
        _, line = self.warm_run(["true"], opts=["--every-open"])
        self.reused(line, second)
        _, line = self.warm_run(["true"])
        self.reused(line, first)
        # a third: the set used longest ago goes
        _, line = self.warm_run(["true"], opts=["--max-argv", "64K"])
        third = self.kept(line)
        self.assertEqual(sets(), sorted([first, third]))

    def test_a_debug_switch_is_a_set_of_its_own(self):
        """FOOTPRINT_DEBUG_PROBE_READS changes what a load chooses, not an
        option: a set made without it is not reused with it, nor the
        other way round."""
        _, line = self.warm_run(["true"])
        plain = self.kept(line)
        env = dict(self.env, FOOTPRINT_DEBUG_PROBE_READS="1")
        r = self.trace(["true"], env=env)
        probe = self.kept(tracer_line(r.stderr))
        self.assertNotEqual(probe, plain)
        self.assertIn(b"kernel reads: probe reads", r.stderr)
        r = self.trace(["true"], env=env)
        self.reused(tracer_line(r.stderr), probe)
        _, line = self.warm_run(["true"])
        self.reused(line, plain)

    def test_a_set_cut_short_is_made_again(self):
        _, line = self.warm_run(["true"])
        key = self.kept(line)
        ids = prog_ids(key)
        os.unlink(os.path.join(WARM, key, "ready"))
        _, line = self.warm_run(["true"])
        self.assertEqual(self.kept(line), key)
        self.assertNotEqual(prog_ids(key), ids)
        _, line = self.warm_run(["true"])
        self.reused(line, key)

    def test_swapped_pins_are_not_used(self):
        with open(self.path("f"), "w") as f:
            f.write("x")
        _, line = self.warm_run(["true"])
        key = self.kept(line)
        d = os.path.join(WARM, key)
        progs = sorted(n for n in os.listdir(d) if n.startswith("p"))
        maps = sorted(n for n in os.listdir(d) if n.startswith("m"))
        # two programs, then two maps of different kinds, trade places
        for a, b in ((progs[0], progs[1]), (maps[0], maps[1])):
            os.rename(os.path.join(d, a), os.path.join(d, "swap"))
            os.rename(os.path.join(d, b), os.path.join(d, a))
            os.rename(os.path.join(d, "swap"), os.path.join(d, b))
        r, line = self.warm_run(["cat", "f"], cwd=self.dir)
        self.assertEqual(self.kept(line), key)
        self.assertEqual(len(r.with_path(self.path("f"), type="open")), 1,
                         r.describe())

    def test_only_a_directory_root_alone_has(self):
        _, line = self.warm_run(["true"])
        key = self.kept(line)
        ids = prog_ids(key)
        self.addCleanup(os.chmod, WARM, 0o700)
        os.chmod(WARM, 0o755)
        r, line = self.warm_run(["true"])
        self.assertEqual(line, "loaded afresh, none kept: %s is not a "
                         "directory root's alone" % WARM)
        self.assertIn("footprint: note: %s is not a directory root's alone"
                      % WARM, r.stderr.decode())
        self.assertEqual(prog_ids(key), ids)

    def test_never_through_a_symlink(self):
        elsewhere = "/sys/fs/bpf/fp-test-elsewhere"
        os.mkdir(elsewhere, 0o700)
        self.addCleanup(os.rmdir, elsewhere)
        self.addCleanup(drop_sets)
        if os.path.isdir(WARM):
            os.rmdir(WARM)
        os.symlink(elsewhere, WARM)
        r, line = self.warm_run(["true"])
        self.assertEqual(line, "loaded afresh, none kept: %s is not a "
                         "directory root's alone" % WARM)
        self.assertIn("footprint: note: %s is not a directory root's alone"
                      % WARM, r.stderr.decode())
        self.assertEqual(os.listdir(elsewhere), [])

    def test_runs_at_once_leave_no_more_than_two_sets(self):
        """Runs at once, each with its own --ring-size, each make a set
        that no other may evict while it runs. Once they have all ended,
        no more than two of their sets stay pinned (each a ring buffer of
        kernel memory), both complete. Only this test's sets are counted:
        a run elsewhere on the machine may hold one of its own."""
        keys = set()
        for size in ("64K", "128K"):
            _, line = self.warm_run(["true"], opts=["--ring-size", size])
            keys.add(self.kept(line))
        self.assertEqual(len(keys), 2)
        go = self.path("go")
        root = self.path("root")
        os.mkdir(root)
        sizes = ("256K", "512K", "1M", "2M")
        runs = []
        try:
            for i, size in enumerate(sizes):
                started = self.path("started%d" % i)
                runs.append((started, subprocess.Popen(
                    [fptest.FOOTPRINT, "run", "--quiet", "--ring-size", size,
                     "--root", root, "--allow", self.dir + "/", "--",
                     "sh", "-c", "touch %s; while [ ! -e %s ]; do "
                     "sleep 0.05; done" % (started, go)],
                    env=self.env, stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)))
            deadline = time.monotonic() + 60
            for started, p in runs:
                while not os.path.exists(started):
                    self.assertIsNone(p.poll(), "a run ended early")
                    self.assertLess(time.monotonic(), deadline)
                    time.sleep(0.02)
        finally:
            open(go, "w").close()
            errs = [p.communicate(timeout=120)[1] for _, p in runs]
        for (_, p), err in zip(runs, errs):
            self.assertEqual(p.returncode, 0, err)
            keys.add(self.kept(tracer_line(err)))
        # all at once, each with a set of its own
        self.assertEqual(len(keys), 2 + len(sizes))
        left = [k for k in sets() if k in keys]
        self.assertLessEqual(len(left), 2, left)
        for key in left:
            self.assertIn("ready", os.listdir(os.path.join(WARM, key)))
        # and a run after them keeps to it too
        _, line = self.warm_run(["true"], opts=["--ring-size", "4M"])
        if line.startswith("loaded afresh, kept in"):
            keys.add(self.kept(line))
        left = [k for k in sets() if k in keys]
        self.assertLessEqual(len(left), 2, left)

if __name__ == "__main__":
    unittest.main()
