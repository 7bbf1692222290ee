"""The scratch box's pid namespace (docs/scratch.md).

The command is pid 2 under a small init, with a proc of its own; it is
still footprint's child: its exit status, the signals passed on to it,
--leftovers and the watchdog work as without a box.
"""

import json
import os
import select
import signal
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402

import sudo_util as su  # noqa: E402
import test_scratch as ts  # noqa: E402
from sudo_util import EXIT_OK, EXIT_VERDICT  # noqa: E402

NOBODY = ts.NOBODY


def setUpModule():
    su.check_binary()


def children_named(ppid, comm):
    out = []
    for name in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % name) as f:
                st = f.read()
        except OSError:
            continue
        c = st[st.index("(") + 1:st.rindex(")")]
        if c == comm and int(st.rsplit(")", 1)[1].split()[1]) == ppid:
            out.append(int(name))
    return out


def comm_of(pid):
    with open("/proc/%d/comm" % pid) as f:
        return f.read().strip()


def ppid_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def wait_gone(pid, timeout):
    """True once pid has exited (its pidfd polls readable)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        r, _, _ = select.select([fd], [], [], timeout)
        return bool(r)
    finally:
        os.close(fd)


class ScratchPidnsTest(ts.ScratchCase):
    def start(self, name, cmd, *opts):
        """footprint run --scratch in the background; returns once the
        command printed its first line."""
        p = subprocess.Popen(
            [su.FOOTPRINT, "run", "--quiet", "--scratch",
             os.path.join(self.top, name), "--receipt",
             os.path.join(self.out, name + ".json")] + list(opts) + ["--"]
            + cmd, cwd=self.job, env=su.sudo_env(NOBODY),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self.addCleanup(p.wait)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        first = p.stdout.readline().decode()
        self.assertTrue(first, p.stderr.read().decode() if p.poll() else "")
        return p, first.strip()

    def receipt(self, name):
        with open(os.path.join(self.out, name + ".json")) as f:
            return json.load(f)

    def test_command_sees_only_the_box(self):
        self.seed_job()
        rc, err, r, _ = self.scratch_run(
            "p1", ["sh", "-c", "echo pid=$$; ls /proc; cat /proc/1/comm"])
        self.assertEqual(rc, EXIT_OK, err)
        lines = self.last_out.split()
        self.assertEqual(lines[0], "pid=2")
        pids = {x for x in lines[1:] if x.isdigit()}
        self.assertIn("1", pids)
        self.assertIn("2", pids)
        self.assertLessEqual(pids, {"1", "2", "3", "4"}, self.last_out)
        self.assertEqual(lines[-1], "fp-box-init")
        # the init is no part of the run: not traced, not a new process
        body = json.dumps(r)
        self.assertNotIn("fp-box-init", body)
        self.assertEqual(r["processes"]["new_outside"], [])
        # events carry host pids: the shell is not pid 2 in the receipt
        self.assertNotIn(2, [x["pid"] for x in r["processes"]["executed"]])
        self.assertReplaySame("p1")
        self.assertEqual(children_named(os.getpid(), "fp-box-init"), [])

    def test_exit_status_is_the_commands(self):
        self.seed_job()
        rc, err, r, _ = self.scratch_run("e1", ["sh", "-c", "exit 7"])
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertEqual((r["command"]["exit_code"], r["command"]["signal"]),
                         (7, None))

    def test_sigterm_reaches_the_command(self):
        """pid 1 would ignore an uncaught SIGTERM; the command is pid 2."""
        self.seed_job()
        secs = su.unique_seconds()
        p, first = self.start("t1", ["sh", "-c", "echo $$; exec sleep " +
                                     secs])
        self.assertEqual(first, "2")
        [pid] = su.wait_for(lambda: su.pgrep_exact(["sleep", secs]), 10)
        self.assertEqual(su.proc_uids(pid)[0], NOBODY.pw_uid)
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(30), EXIT_VERDICT)
        c = self.receipt("t1")["command"]
        self.assertEqual((c["exit_code"], c["signal"]),
                         (None, signal.SIGTERM))
        self.assertEqual(su.pgrep_exact(["sleep", secs]), [])

    def test_leftovers_fail_leave_nothing_of_the_box(self):
        self.seed_job()
        secs = su.unique_seconds()
        rc, err, r, _ = self.scratch_run(
            "l1", ["sh", "-c", "sleep %s & echo started" % secs])
        self.assertEqual(rc, EXIT_VERDICT, err)
        self.assertEqual(len(r["processes"]["leftover"]), 1, r["processes"])
        self.assertNotIn("fp-box-init", json.dumps(r))
        # the init, a fork of footprint alive at the after-snapshot while
        # it kept the leftover's namespace, is not a new process outside
        ours = [p for p in r["processes"]["new_outside"]
                if os.path.join(self.out, "l1.json") in (fptest.argv_of(r, p) or [])]
        self.assertEqual(ours, [], r["processes"]["new_outside"])
        self.assertReplaySame("l1")
        self.assertEqual(su.pgrep_exact(["sleep", secs]), [])
        self.assertEqual(children_named(os.getpid(), "fp-box-init"), [])

    def test_leftovers_allowed_live_on_in_the_box(self):
        self.seed_job()
        secs = su.unique_seconds(300)
        rc, err, r, _ = self.scratch_run(
            "l2", ["sh", "-c", "sleep %s >/dev/null 2>&1 & echo started"
                   % secs],
            ["--leftovers", "allow"])
        self.addCleanup(su.kill_exact, ["sleep", secs])
        pids = su.pgrep_exact(["sleep", secs])
        self.assertEqual(rc, EXIT_OK, err)
        self.assertEqual(len(pids), 1)
        init = ppid_of(pids[0])
        self.assertEqual(comm_of(init), "fp-box-init")
        self.assertEqual(su.proc_uids(pids[0])[0], NOBODY.pw_uid)
        # it holds nothing of footprint's, and goes with the last one
        self.assertEqual(sorted(os.listdir("/proc/%d/fd" % init)),
                         ["0", "1", "2", "3", "4"])
        os.kill(pids[0], signal.SIGKILL)
        self.assertTrue(wait_gone(init, 10))

    def test_footprint_killed_the_box_dies(self):
        self.seed_job()
        secs = su.unique_seconds(300)
        p, _ = self.start("w1", ["sh", "-c", "echo go; exec sleep " + secs])
        [pid] = su.wait_for(lambda: su.pgrep_exact(["sleep", secs]), 10)
        init = ppid_of(pid)
        p.kill()
        p.wait()
        self.assertTrue(wait_gone(pid, 30), "the command outlived footprint")
        self.assertTrue(wait_gone(init, 30), "the box's init outlived it")


if __name__ == "__main__":
    unittest.main()
