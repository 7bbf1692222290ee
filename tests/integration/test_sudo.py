"""Integration tests for `footprint run` under sudo.

sudo is not needed: sudo starts footprint as root with SUDO_UID, SUDO_GID,
SUDO_USER and SUDO_COMMAND in its environment, and that is all footprint
reads, so these tests start a root footprint with those variables set (the
invoking user is `nobody`, or a throw-away user made for the group test).
They check who the command runs as (ids, groups, environment, cwd, umask),
--user and --as-root, the refusal to run unprivileged, the ownership and
mode of the output files, --timeout, signal forwarding and the second-signal
kill, --leftovers, that the command cannot signal footprint, and a command
on a terminal.

Run from the top of the tree, as root:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_sudo.py

When footprint cannot trace (a root run exits 125) the tests skip, unless
FOOTPRINT_REQUIRE_BPF=1, when they fail.
"""

import fcntl
import grp
import json
import os
import pwd
import re
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402

from fptest import cgroup2_mount  # noqa: E402

import sudo_util as su  # noqa: E402
from sudo_util import (EXIT_OK, EXIT_VERDICT, EXIT_USAGE,  # noqa: E402
                       EXIT_TIMEOUT, EXIT_NOTRACE, PY, Sandbox)

NOBODY = su.nobody()
SLEEP = os.path.realpath(shutil.which("sleep") or "/bin/sleep")

# a throw-away user with supplementary groups, made in setUpModule
TEST_USER = None
TEST_USER_WHY = "not made yet"

# why footprint cannot trace here (a root run exits 125), or None
NO_BPF = None


def setUpModule():
    global TEST_USER, TEST_USER_WHY, NO_BPF
    su.check_binary()
    with tempfile.TemporaryDirectory(prefix="fpsudo-probe-") as d:
        p = subprocess.run([su.FOOTPRINT, "run", "--quiet", "--root", d,
                            "--", "true"], cwd=d, env=su.base_env(),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
    if p.returncode == EXIT_NOTRACE:
        NO_BPF = "footprint cannot trace (exit 125): %s" % \
            p.stderr.decode("utf-8", "replace").strip()
    name = "fpsudo-%d" % os.getpid()
    extra = [g for g in ("audio", "video") if _group_exists(g)]
    argv = ["useradd", "-M", "-N", "-g", "users", "-d", "/nonexistent-" +
            name, "-s", "/bin/sh"]
    if extra:
        argv += ["-G", ",".join(extra)]
    try:
        p = subprocess.run(argv + [name], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
    except OSError as e:
        TEST_USER_WHY = "useradd: %s" % e
        return
    if p.returncode:
        TEST_USER_WHY = "useradd failed: %s" % p.stdout.decode().strip()
        return
    TEST_USER = pwd.getpwnam(name)


def tearDownModule():
    if TEST_USER is not None:
        subprocess.run(["userdel", TEST_USER.pw_name],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _group_exists(name):
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def sh(script, *args):
    return ["sh", "-c", script, "sh"] + list(args)


def lines(res):
    return res.out.splitlines()


# the probe the command runs to say who and where it is: one JSON line
PROBE = r"""
import json, os
m = os.umask(0); os.umask(m)
caps = {}
with open("/proc/self/status") as f:
    for l in f:
        k, _, v = l.partition(":")
        if k in ("CapInh", "CapPrm", "CapEff", "CapAmb", "Uid", "Gid"):
            caps[k] = v.split()
fds = {}
for fd in os.listdir("/proc/self/fd"):
    try:
        fds[fd] = os.readlink("/proc/self/fd/" + fd)
    except OSError:
        pass  # the directory listing's own fd
print(json.dumps({"env": dict(os.environ), "cwd": os.getcwd(), "umask": m,
                  "uid": os.getresuid(), "gid": os.getresgid(),
                  "groups": sorted(os.getgroups()), "status": caps,
                  "fds": fds, "ppid": os.getppid()}))
"""


class SudoCase(unittest.TestCase):
    maxDiff = None
    needs_bpf = True

    def setUp(self):
        su.check_binary()
        if NO_BPF and self.needs_bpf:
            su.cannot_test(NO_BPF)
        self.sb = Sandbox(self)

    def probe(self, res):
        """The JSON line PROBE printed (the last line of stdout)."""
        for line in reversed(lines(res)):
            if line.startswith("{"):
                return json.loads(line)
        raise AssertionError("the probe printed nothing\n" + res.describe())

    def assertRc(self, res, rc):
        self.assertEqual(res.rc, rc, res.describe())

    def assertOwner(self, path, uid, gid, mode=None, what=""):
        u, g, m = su.owner_mode(path)
        self.assertEqual((u, g), (uid, gid),
                         "%s %s: owner %d:%d, want %d:%d" %
                         (what, path, u, g, uid, gid))
        if mode is not None:
            self.assertEqual(m, mode, "%s %s: mode %o, want %o" %
                             (what, path, m, mode))

    def assertNotRunning(self, argv, what=""):
        left = su.pgrep_exact(argv)
        su.kill_exact(argv)
        self.assertEqual(left, [], "%r still runs after footprint ended %s" %
                         (argv, what))


# --------------------------------------------------------------------------
class TestIdentity(SudoCase):
    """Who the command runs as."""

    def test_sudo_uid_owns_files_and_ids(self):
        sb = self.sb
        # a root with supplementary groups, as a sudo'ed root has: the
        # command must not keep any of them
        res = sb.run(
            sh("id -u; id -g; id -G; : > made; mkdir madedir; "
               "exec %s -c \"$1\"" % PY, PROBE),
            opts=["--allow", "made", "--allow", "madedir"],
            env=su.sudo_env(NOBODY),
            preexec_fn=lambda: os.setgroups([0, 4, 100]))
        self.assertRc(res, EXIT_OK)
        out = lines(res)
        want_groups = sorted(os.getgrouplist(NOBODY.pw_name, NOBODY.pw_gid))
        id_nobody = subprocess.run(["id", "-G", NOBODY.pw_name],
                                   stdout=subprocess.PIPE, check=True)
        self.assertEqual(sorted(int(x) for x in id_nobody.stdout.split()),
                         want_groups)
        self.assertEqual(out[0], str(NOBODY.pw_uid), res.describe())
        self.assertEqual(out[1], str(NOBODY.pw_gid), res.describe())
        self.assertEqual(sorted(int(x) for x in out[2].split()), want_groups,
                         "id -G differs from getgrouplist(nobody)\n" +
                         res.describe())
        p = self.probe(res)
        self.assertEqual(p["uid"], [NOBODY.pw_uid] * 3)
        self.assertEqual(p["gid"], [NOBODY.pw_gid] * 3)
        self.assertEqual(p["groups"], want_groups)
        self.assertEqual(p["status"]["Uid"], [str(NOBODY.pw_uid)] * 4)
        self.assertEqual(p["status"]["Gid"], [str(NOBODY.pw_gid)] * 4)
        for cap in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
            self.assertEqual(int(p["status"][cap][0], 16), 0,
                             "%s of the command: %s" % (cap, p["status"]))
        self.assertOwner(sb.in_root("made"), NOBODY.pw_uid, NOBODY.pw_gid)
        self.assertOwner(sb.in_root("madedir"), NOBODY.pw_uid,
                         NOBODY.pw_gid)
        added = {os.path.basename(a["path"]): a["after"]
                 for a in res.r["files"]["added"]}
        self.assertEqual(sorted(added), ["made", "madedir"], res.describe())
        for a in added.values():
            self.assertEqual((a["uid"], a["gid"]),
                             (NOBODY.pw_uid, NOBODY.pw_gid))

    def test_supplementary_groups_of_the_sudo_user(self):
        if TEST_USER is None:
            self.skipTest("no test user: " + TEST_USER_WHY)
        u = TEST_USER
        res = self.sb.run(sh("id -u; id -g; id -G; : > made"),
                          opts=["--allow", "made"], env=su.sudo_env(u),
                          preexec_fn=lambda: os.setgroups([0]))
        self.assertRc(res, EXIT_OK)
        want = sorted(os.getgrouplist(u.pw_name, u.pw_gid))
        self.assertGreater(len(want), 1, "the test user has no extra groups")
        out = lines(res)
        self.assertEqual(out[:2], [str(u.pw_uid), str(u.pw_gid)],
                         res.describe())
        self.assertEqual(sorted(int(x) for x in out[2].split()), want,
                         res.describe())
        self.assertOwner(self.sb.in_root("made"), u.pw_uid, u.pw_gid)

    def test_environment_cwd_and_umask(self):
        sb = self.sb
        cwd = os.path.join(sb.base, "cwd")
        os.mkdir(cwd)
        os.chmod(cwd, 0o777)
        env = su.sudo_env(NOBODY, FOO="bar", SUDO_PS1="sudo$ ",
                          HOME="/root", USER="root", LOGNAME="root",
                          SHELL="/bin/bash")

        def umask027():
            os.umask(0o027)
        created = sb.in_root("created")
        madedir = sb.in_root("madedir")
        res = sb.run(
            sh("touch \"$1\"; mkdir \"$2\"; exec %s -c \"$3\"" % PY,
               created, madedir, PROBE),
            opts=["--allow", "created", "--allow", "madedir"], env=env,
            cwd=cwd, preexec_fn=umask027)
        self.assertRc(res, EXIT_OK)
        p = self.probe(res)
        e = p["env"]
        pw = pwd.getpwuid(NOBODY.pw_uid)
        self.assertEqual(e.get("HOME"), pw.pw_dir)
        self.assertEqual(e.get("USER"), pw.pw_name)
        self.assertEqual(e.get("LOGNAME"), pw.pw_name)
        self.assertEqual(e.get("SHELL"), pw.pw_shell or "/bin/sh")
        self.assertEqual([k for k in e if k.startswith("SUDO_")], [],
                         "sudo's variables reached the command: %r" % e)
        self.assertEqual(e.get("FOO"), "bar")
        self.assertEqual(e.get("PATH"), env["PATH"])
        self.assertEqual(p["cwd"], cwd)
        self.assertEqual(p["umask"], 0o027)
        self.assertOwner(created, NOBODY.pw_uid, NOBODY.pw_gid, 0o640)
        self.assertOwner(madedir, NOBODY.pw_uid, NOBODY.pw_gid, 0o750)

    def test_user_option_without_sudo(self):
        sb = self.sb
        for spec in ("nobody", str(NOBODY.pw_uid)):
            with self.subTest(user=spec):
                made = sb.in_root("made-" + spec)
                res = sb.run(
                    sh("id -u; id -g; id -G; : > \"$1\"; exec %s -c \"$2\"" %
                       PY, made, PROBE),
                    opts=["--user", spec, "--allow", os.path.basename(made)],
                    env=su.base_env(HOME="/root", USER="root"))
                self.assertRc(res, EXIT_OK)
                out = lines(res)
                self.assertEqual(out[:3], ["65534", str(NOBODY.pw_gid),
                                           " ".join(str(g) for g in sorted(
                                               os.getgrouplist(
                                                   "nobody",
                                                   NOBODY.pw_gid)))],
                                 res.describe())
                self.assertOwner(made, NOBODY.pw_uid, NOBODY.pw_gid)
                e = self.probe(res)["env"]
                self.assertEqual((e.get("HOME"), e.get("USER")),
                                 (NOBODY.pw_dir, "nobody"))


    def test_as_root_and_user_are_refused_under_sudo(self):
        """The invoking user is not trusted with root's rights (README,
        docs/security.md): under sudo the command runs as that user, so
        --as-root, --user root and --user someone-else are usage errors
        and nothing runs; --user naming the invoking user is fine."""
        sb = self.sb
        marker = sb.in_root("ran")
        for opts in (["--as-root"], ["--user", "root"], ["--user", "0"],
                     ["--user", "daemon"]):
            with self.subTest(opts=opts):
                res = sb.run(sh(": > \"$1\"", marker), opts=opts,
                             env=su.sudo_env(NOBODY))
                self.assertRc(res, EXIT_USAGE)
                self.assertFalse(os.path.lexists(marker), res.describe())
                self.assertIsNone(res.r, "no receipt for a refused run")
                self.assertEqual(res.err.count("\n"), 1, res.describe())
                self.assertIn("footprint: under sudo the command runs as "
                              "nobody", res.err)
        res = sb.run(sh("id -u"), opts=["--user", "nobody"],
                     env=su.sudo_env(NOBODY))
        self.assertRc(res, EXIT_OK)
        self.assertEqual(lines(res)[0], str(NOBODY.pw_uid))

    def test_as_root_keeps_root_for_a_root_login(self):
        sb = self.sb
        ev = sb.out_path("events.ndjson")
        res = sb.run(sh("id -u; id -g; : > made"),
                     opts=["--as-root", "--allow", "made", "--events", ev],
                     env=su.base_env())
        self.assertRc(res, EXIT_OK)
        self.assertEqual(lines(res)[:2], ["0", "0"], res.describe())
        self.assertOwner(sb.in_root("made"), 0, 0)
        # nothing is handed over: the outputs stay root's
        self.assertOwner(res.receipt_path, 0, 0, 0o600, "receipt")
        self.assertOwner(ev, 0, 0, 0o600, "events file")

    def test_no_sudo_uid_runs_as_root(self):
        sb = self.sb
        for name, env in (("no SUDO_UID", su.base_env()),
                          ("SUDO_UID=0", su.sudo_env(pwd.getpwuid(0)))):
            with self.subTest(env=name):
                made = sb.in_root("made-%d" % sb.n)
                res = sb.run(sh("id -u; id -G; : > \"$1\"", made),
                             opts=["--allow", os.path.basename(made)],
                             env=env)
                self.assertRc(res, EXIT_OK)
                self.assertEqual(lines(res)[0], "0", res.describe())
                self.assertOwner(made, 0, 0)
                self.assertOwner(res.receipt_path, 0, 0, 0o600, "receipt")

    def test_unknown_user_is_a_usage_error_and_nothing_runs(self):
        sb = self.sb
        marker = sb.in_root("ran")
        cases = (
            ("--user", ["--user", "fp-no-such-user-%d" % os.getpid()],
             su.base_env()),
            ("SUDO_UID", [], su.base_env(SUDO_UID="3999999", SUDO_GID="1",
                                         SUDO_USER="gone")),
            # "" used to be read as uid 0: the command ran as root
            ("--user ''", ["--user", ""], su.sudo_env(NOBODY)),
        )
        for name, opts, env in cases:
            with self.subTest(case=name):
                res = sb.run(sh(": > \"$1\"", marker), opts=opts, env=env,
                             receipt=False)
                self.assertRc(res, EXIT_USAGE)
                self.assertFalse(os.path.exists(marker),
                                 "the command ran\n" + res.describe())
                self.assertEqual(len(res.err.strip().splitlines()), 1,
                                 res.describe())


class TestNotRoot(SudoCase):
    """Needs no BPF: footprint refuses before it loads anything."""
    needs_bpf = False

    def test_not_root_refuses_and_runs_nothing(self):
        sb = self.sb
        if not shutil.which("setpriv"):
            self.skipTest("setpriv is not installed")
        marker = sb.in_root("ran")
        wrapper = ["setpriv", "--reuid=%d" % NOBODY.pw_uid,
                   "--regid=%d" % NOBODY.pw_gid, "--clear-groups"]
        for name, env in (("plain", su.base_env()),
                          ("stale SUDO_UID", su.sudo_env(NOBODY))):
            with self.subTest(env=name):
                res = sb.run(sh(": > \"$1\"", marker), env=env,
                             receipt=False, quiet=False, wrapper=wrapper,
                             allow_notrace=True)
                self.assertRc(res, EXIT_NOTRACE)
                err = res.err.strip().splitlines()
                self.assertEqual(len(err), 1,
                                 "want one line on stderr\n" + res.describe())
                self.assertIn("sudo", err[0])
                self.assertFalse(os.path.exists(marker),
                                 "the command ran\n" + res.describe())
                self.assertEqual(res.out, "")


# --------------------------------------------------------------------------
class TestOutputs(SudoCase):
    def test_outputs_are_roots_while_running_then_handed_over(self):
        sb = self.sb
        fifo = sb.in_root("go")
        os.mkfifo(fifo)
        os.chmod(fifo, 0o666)
        outs = {"receipt": sb.out_path("r.json"),
                "events file": sb.out_path("events.ndjson"),
                "log": sb.out_path("run.fplog")}
        p = sb.start(sh("read x < \"$1\"; echo got:$x", fifo),
                     opts=["--events", outs["events file"],
                           "--record", outs["log"]],
                     receipt=outs["receipt"], env=su.sudo_env(NOBODY))
        fd = su.fifo_open_writer(fifo, 10, p)
        try:
            if fd is None:
                res = sb.finish(p, 5)
                self.fail("the command never opened the FIFO\n" +
                          res.describe())
            self.assertIsNone(p.poll())
            for what, path in sorted(outs.items()):
                self.assertOwner(path, 0, 0, 0o600,
                                 "while the command runs, the " + what)
            os.write(fd, b"now\n")
        finally:
            if fd is not None:
                os.close(fd)
        res = sb.finish(p)
        self.assertRc(res, EXIT_OK)
        self.assertIn("got:now", res.out)
        for what, path in sorted(outs.items()):
            self.assertOwner(path, NOBODY.pw_uid, NOBODY.pw_gid, 0o600,
                             "after the run, the " + what)
        self.assertIs(res.r["ok"], True)
        with open(outs["events file"]) as f:
            self.assertTrue(any('"type":"stats"' in line for line in f))

    def test_outputs_handed_to_user_option(self):
        sb = self.sb
        ev = sb.out_path("events.ndjson")
        res = sb.run(["true"], opts=["--user", "nobody", "--events", ev],
                     env=su.base_env())
        self.assertRc(res, EXIT_OK)
        self.assertOwner(res.receipt_path, NOBODY.pw_uid, NOBODY.pw_gid,
                         0o600, "receipt")
        self.assertOwner(ev, NOBODY.pw_uid, NOBODY.pw_gid, 0o600,
                         "events file")

    def outputs_in_shared_dir(self):
        """Output paths in a sticky 01777 directory outside the root, like
        /tmp: only a file's own owner and mode decide who may open it."""
        d = os.path.join(self.sb.base, "shared")
        os.mkdir(d)
        os.chmod(d, 0o1777)
        return {"receipt": os.path.join(d, "r.json"),
                "events file": os.path.join(d, "events.ndjson"),
                "log": os.path.join(d, "run.fplog")}

    def run_holding(self, outs, check):
        """A run (as nobody, --force) whose command waits on a FIFO and,
        once released, tries to append to each output file; check() is
        called while it waits. Returns (result, the command's append
        statuses by what)."""
        sb = self.sb
        fifo = sb.in_root("go")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
            os.chmod(fifo, 0o666)
        names = sorted(outs)
        # `true`, not `:`: a failed redirection on a special builtin ends
        # dash
        script = ('read x < "$1"; shift; for f; do true >> "$f"; echo $?; '
                  'done')
        p = sb.start(sh(script, fifo, *[outs[n] for n in names]),
                     opts=["--force", "--events", outs["events file"],
                           "--record", outs["log"]],
                     receipt=outs["receipt"], env=su.sudo_env(NOBODY))
        fd = su.fifo_open_writer(fifo, 10, p)
        try:
            if fd is None:
                res = sb.finish(p, 5)
                self.fail("the command never opened the FIFO\n" +
                          res.describe())
            check()
            os.write(fd, b"go\n")
        finally:
            if fd is not None:
                os.close(fd)
        res = sb.finish(p)
        codes = [int(x) for x in lines(res)[-len(names):]]
        self.assertEqual(len(codes), len(names), res.describe())
        return res, dict(zip(names, codes))

    def test_outputs_of_a_previous_run_are_roots_again_while_running(self):
        """Running twice with the same paths: the first run handed the
        files to the user; the second must take them back while its
        command runs (README: root's, mode 0600, while the command runs),
        or the command can rewrite its own receipt, events and log."""
        sb = self.sb
        outs = self.outputs_in_shared_dir()
        first = sb.run(["true"], opts=["--events", outs["events file"],
                                       "--record", outs["log"]],
                       receipt=outs["receipt"], env=su.sudo_env(NOBODY))
        self.assertRc(first, EXIT_OK)
        for what, path in sorted(outs.items()):
            self.assertOwner(path, NOBODY.pw_uid, NOBODY.pw_gid, 0o600,
                             "after the first run, the " + what)
        during = {}

        def check():
            for what, path in outs.items():
                during[what] = su.owner_mode(path)
        res, codes = self.run_holding(outs, check)
        bad = ["%s %s is %d:%d mode %o" % (w, outs[w], *during[w])
               for w in sorted(during) if during[w] != (0, 0, 0o600)]
        bad += ["the command (as nobody) opened the %s for writing" % w
                for w, c in sorted(codes.items()) if c == 0]
        self.assertEqual(bad, [], "while the second run's command runs, "
                         "its outputs must be root's 0600\n" +
                         res.describe())

    def test_preexisting_output_files_get_mode_0600(self):
        """An output path that already exists as the user's 0644 file:
        footprint replaces it with a new file; that must still be 0600
        while the command runs (a receipt may name files the command's
        user should not see)."""
        sb = self.sb
        outs = self.outputs_in_shared_dir()
        for path in outs.values():
            with open(path, "w") as f:
                f.write("old\n")
            os.chmod(path, 0o644)
            os.chown(path, NOBODY.pw_uid, NOBODY.pw_gid)
        during = {}

        def check():
            for what, path in outs.items():
                during[what] = su.owner_mode(path)
        res, codes = self.run_holding(outs, check)
        bad = ["%s %s is %d:%d mode %o" % (w, outs[w], *during[w])
               for w in sorted(during) if during[w] != (0, 0, 0o600)]
        bad += ["the command (as nobody) opened the %s for writing" % w
                for w, c in sorted(codes.items()) if c == 0]
        self.assertEqual(bad, [], "while the command runs, the outputs "
                         "must be root's 0600\n" + res.describe())
        for what, path in sorted(outs.items()):
            self.assertOwner(path, NOBODY.pw_uid, NOBODY.pw_gid, 0o600,
                             "after the run, the " + what)


# --------------------------------------------------------------------------
class TestLifecycle(SudoCase):
    def start_and_wait_for(self, cmd, sleep_argv, opts=(), timeout=10):
        """Start footprint; return once sleep_argv runs in the command."""
        p = self.sb.start(cmd, opts=opts, env=su.sudo_env(NOBODY))
        pids = su.wait_for(lambda: su.pgrep_exact(sleep_argv) or
                           p.poll() is not None, timeout)
        if p.poll() is not None or not pids:
            res = self.sb.finish(p, 5)
            self.fail("%r never started\n%s" % (sleep_argv, res.describe()))
        return p, su.pgrep_exact(sleep_argv)

    def test_timeout_kills_the_run(self):
        secs = su.unique_seconds()
        argv = ["sleep", secs]
        t0 = time.monotonic()
        res = self.sb.run(argv, opts=["--timeout", "2s"],
                          env=su.sudo_env(NOBODY), timeout=30)
        took = time.monotonic() - t0
        try:
            self.assertRc(res, EXIT_TIMEOUT)
            self.assertLess(took, 4.0, res.describe())
            self.assertGreaterEqual(took, 1.9, res.describe())
            c = res.cmd
            self.assertIs(c["timed_out"], True, res.describe())
            self.assertIsNone(c["exit_code"], res.describe())
            self.assertEqual(c["signal"], signal.SIGKILL, res.describe())
            self.assertIs(res.r["ok"], False)
        finally:
            self.assertNotRunning(argv, "(--timeout)")

    def test_sigterm_is_forwarded(self):
        secs = su.unique_seconds()
        argv = ["sleep", secs]
        p, pids = self.start_and_wait_for(
            sh('trap "exit 7" TERM; sleep %s & wait' % secs), argv)
        self.assertEqual(su.proc_uids(pids[0])[0], NOBODY.pw_uid)
        p.send_signal(signal.SIGTERM)
        res = self.sb.finish(p, 10)
        try:
            self.assertRc(res, EXIT_VERDICT)
            c = res.cmd
            self.assertEqual((c["exit_code"], c["signal"]), (7, None),
                             res.describe())
            self.assertIs(c["interrupted"], True, res.describe())
            self.assertIs(c["timed_out"], False)
            self.assertIs(res.r["ok"], False)
        finally:
            self.assertNotRunning(argv, "(SIGTERM)")

    def test_second_signal_kills_the_cgroup(self):
        secs = su.unique_seconds()
        argv = ["sleep", secs]
        p, pids = self.start_and_wait_for(
            sh('trap "" TERM; sleep %s; echo survived' % secs), argv)
        p.send_signal(signal.SIGTERM)
        # the command ignores the first one; footprint keeps tracing
        time.sleep(0.5)
        still = p.poll()
        alive = su.pgrep_exact(argv)
        t2 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        res = self.sb.finish(p, 10)
        took = time.monotonic() - t2
        try:
            self.assertIsNone(still, "footprint ended on the first SIGTERM\n"
                              + res.describe())
            self.assertEqual(alive, pids, "the command did not ignore TERM")
            self.assertRc(res, EXIT_VERDICT)
            self.assertLess(took, 3.0, res.describe())
            c = res.cmd
            self.assertIs(c["interrupted"], True, res.describe())
            self.assertIsNone(c["exit_code"], res.describe())
            self.assertEqual(c["signal"], signal.SIGKILL, res.describe())
            self.assertNotIn("survived", res.out)
        finally:
            self.assertNotRunning(argv, "(two SIGTERMs)")

    def leftover(self, mode):
        secs = su.unique_seconds(33)
        argv = ["sleep", secs]
        opts = ["--leftovers", mode] if mode else []
        # footprint names a leftover by its last exec it traced: wait
        # until the background child sleeps in sleep, or it would still be
        # listed as the shell (read is a builtin: no extra processes). Not
        # until its comm says sleep: the kernel sets that early in the
        # exec, and on one CPU footprint could stop tracing before the
        # exec was done (1 run in 40 of `taskset -c 0`)
        res = self.sb.run(sh("sleep %s & i=0; while [ $i -lt 200000 ]; do "
                             "read -r w < /proc/$!/wchan; "
                             "case $w in *nanosleep*) break;; esac; "
                             "i=$((i+1)); done"
                             % secs), opts=opts, env=su.sudo_env(NOBODY))
        return argv, res

    def test_leftovers_kill(self):
        argv, res = self.leftover("kill")
        try:
            self.assertRc(res, EXIT_VERDICT)
            left = res.r["processes"]["leftover"]
            self.assertEqual([(x["exe"], fptest.argv_of(res.r, x)) for x in left],
                             [(SLEEP, argv)], res.describe())
            self.assertIs(left[0]["allowed"], False)
            self.assertIs(res.r["ok"], False)
        finally:
            self.assertNotRunning(argv, "(--leftovers kill)")

    def test_leftovers_fail_default(self):
        argv, res = self.leftover(None)
        try:
            self.assertRc(res, EXIT_VERDICT)
            self.assertEqual([fptest.argv_of(res.r, x) for x in
                              res.r["processes"]["leftover"]], [argv],
                             res.describe())
        finally:
            self.assertNotRunning(argv, "(--leftovers fail)")

    def test_leftovers_allow_keeps_it_running(self):
        argv, res = self.leftover("allow")
        pids = su.pgrep_exact(argv)
        try:
            self.assertRc(res, EXIT_OK)
            self.assertIs(res.r["ok"], True, res.describe())
            left = res.r["processes"]["leftover"]
            self.assertEqual([(fptest.argv_of(res.r, x), x["allowed"]) for x in left],
                             [(argv, True)], res.describe())
            self.assertEqual(pids, [left[0]["pid"]],
                             "the allowed leftover is not running")
            # still the invoking user's, not root's
            self.assertEqual(su.proc_uids(pids[0]),
                             (NOBODY.pw_uid,) * 4)
        finally:
            su.kill_exact(argv)

    def test_command_cannot_signal_footprint(self):
        sb = self.sb
        status = sb.in_root("status")
        res = sb.run(
            sh('kill -TERM $PPID 2>"$1.err"; echo $? > "$1"; '
               'kill -KILL $PPID 2>>"$1.err"; echo $? >> "$1"; '
               'kill -STOP $PPID 2>>"$1.err"; echo $? >> "$1"; '
               'echo ppid=$PPID', status),
            opts=["--allow", "status", "--allow", "status.err"],
            env=su.sudo_env(NOBODY))
        self.assertRc(res, EXIT_OK)
        with open(status) as f:
            codes = [int(x) for x in f.read().split()]
        self.assertEqual(len(codes), 3, res.describe())
        for c in codes:
            self.assertNotEqual(c, 0, "kill of footprint by the command "
                                "succeeded\n" + res.describe())
        with open(status + ".err") as f:
            self.assertIn("not permitted", f.read().lower())
        c = res.cmd
        self.assertIs(c["interrupted"], False)
        self.assertEqual(c["exit_code"], 0)
        self.assertIn("ppid=%d" % res.r["processes"]["executed"][0]["ppid"],
                      res.out)

    def test_command_inherits_no_footprint_fds(self):
        sb = self.sb
        res = sb.run([PY, "-c", PROBE],
                     opts=["--events", sb.out_path("ev.ndjson"),
                           "--record", sb.out_path("run.fplog")],
                     env=su.sudo_env(NOBODY))
        self.assertRc(res, EXIT_OK)
        fds = self.probe(res)["fds"]
        extra = {k: v for k, v in fds.items() if int(k) > 2}
        self.assertEqual(extra, {}, "the command inherited footprint's "
                         "descriptors: %r" % extra)


    def test_root_only_executable_is_not_run(self):
        """The identity is applied before exec: a 0700 root script is not
        executable by the sudo user (126), and runs --as-root."""
        sb = self.sb
        script = sb.out_path("root-only.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\necho root-only ran\n")
        os.chmod(script, 0o700)
        res = sb.run([script], env=su.sudo_env(NOBODY))
        self.assertRc(res, 126)
        self.assertNotIn("root-only ran", res.out)
        res = sb.run([script], opts=["--as-root"], env=su.base_env())
        self.assertRc(res, EXIT_OK)
        self.assertIn("root-only ran", res.out)

    def test_command_cannot_leave_its_cgroup(self):
        mount = cgroup2_mount()
        if not mount:
            self.skipTest("no cgroup2 mount")
        script = r"""
before=$(sed -n 's/^0:://p' /proc/self/cgroup)
for f in "$1${before%/*}/cgroup.procs" "$1/cgroup.procs"; do
    echo $$ 2>/dev/null > "$f" && echo "MOVED $f"
done
mkdir "$1$before/sub" 2>/dev/null && echo MKDIR
after=$(sed -n 's/^0:://p' /proc/self/cgroup)
echo "cgroup $before -> $after"
"""
        res = self.sb.run(sh(script, mount), env=su.sudo_env(NOBODY))
        self.assertRc(res, EXIT_OK)
        self.assertNotIn("MOVED", res.out)
        self.assertNotIn("MKDIR", res.out)
        m = re.search(r"cgroup (\S+) -> (\S+)", res.out)
        self.assertTrue(m, res.describe())
        self.assertEqual(m.group(1), m.group(2))
        self.assertIn("footprint", m.group(1))




# --------------------------------------------------------------------------
class Pty:
    """A pseudo-terminal with a program on it as session leader."""

    def __init__(self, test, argv, env, cwd, rows=40, cols=100):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ,
                    struct.pack("HHHH", rows, cols, 0, 0))
        self.slave_name = os.ttyname(slave)

        def ctty():
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        self.p = subprocess.Popen(argv, stdin=slave, stdout=slave,
                                  stderr=slave, env=env, cwd=cwd,
                                  start_new_session=True, preexec_fn=ctty)
        os.close(slave)
        self.buf = b""
        test.addCleanup(self.close)

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        try:
            os.close(self.master)
        except OSError:
            pass

    def write(self, data):
        os.write(self.master, data)

    def read_some(self, timeout):
        r, _, _ = select.select([self.master], [], [], timeout)
        if not r:
            return False
        try:
            chunk = os.read(self.master, 4096)
        except OSError:  # EIO: every holder of the slave is gone
            chunk = b""
        if not chunk:
            return None
        self.buf += chunk
        return True

    def expect(self, pattern, timeout=10):
        """Wait for pattern (bytes regex) in the output after what an
        earlier expect consumed; return the match."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.buf)
            if m:
                self.buf = self.buf[m.end():]
                return m
            left = deadline - time.monotonic()
            if left <= 0 or self.read_some(left) is None:
                m = rx.search(self.buf)
                if m:
                    self.buf = self.buf[m.end():]
                    return m
                if self.p.poll() == EXIT_NOTRACE:
                    su.cannot_test("footprint cannot trace (exit 125): %r" %
                                   self.buf[-500:])
                raise AssertionError("no %r on the terminal; got %r" %
                                     (pattern, self.buf[-2000:]))

    def drain(self, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.read_some(deadline - time.monotonic()) is None:
                break
        return self.buf


class TestTerminal(SudoCase):
    def test_command_on_a_terminal(self):
        """The command has a terminal of its own (never the caller's:
        test_terminal.py), the caller's size, owned by the user it runs
        as."""
        sb = self.sb
        argv, rpath = sb.argv(
            sh("stty size; tty; id -u; read x; echo got:$x"),
            opts=["--timeout", "20s"])
        t = Pty(self, argv, su.sudo_env(NOBODY), sb.root)
        t.expect(rb"40 100\r?\n")
        tty = t.expect(rb"(\S+)\r?\n").group(1).decode()
        self.assertTrue(tty.startswith("/dev/pts/"), tty)
        self.assertNotEqual(tty, t.slave_name)
        self.assertEqual(os.stat(tty).st_uid, NOBODY.pw_uid)
        t.expect(b"%d\r?\n" % NOBODY.pw_uid)
        t.write(b"hello\n")
        t.expect(b"got:hello")
        t.drain(10)
        rc = t.p.wait(10)
        if rc == EXIT_NOTRACE:
            su.cannot_test("footprint cannot trace (exit 125)")
        self.assertEqual(rc, EXIT_OK, t.buf)
        with open(rpath) as f:
            r = json.load(f)
        self.assertEqual(r["command"]["exit_code"], 0)
        self.assertIs(r["command"]["interrupted"], False)

    def test_ctrl_c_reaches_the_command_once(self):
        """^C on the terminal signals the whole foreground group: the
        command gets SIGINT once (footprint does not pass a second copy),
        and the run is marked interrupted."""
        sb = self.sb
        prog = (
            "import signal, sys, time\n"
            "n = 0\n"
            "def h(s, f):\n"
            "    global n\n"
            "    n += 1\n"
            "signal.signal(signal.SIGINT, h)\n"
            "print('READY%d' % (1 + 1), flush=True)\n"
            "sys.stdin.readline()\n"
            "time.sleep(0.3)\n"
            "print('INTS=%d' % n, flush=True)\n"
            "sys.exit(3)\n")
        argv, rpath = sb.argv([PY, "-c", prog], opts=["--timeout", "20s"])
        t = Pty(self, argv, su.sudo_env(NOBODY), sb.root)
        t.expect(rb"READY2\r?\n")
        t.write(b"\x03")
        time.sleep(0.3)
        t.write(b"x\n")
        n = int(t.expect(rb"INTS=(\d+)").group(1))
        t.drain(10)
        rc = t.p.wait(10)
        if rc == EXIT_NOTRACE:
            su.cannot_test("footprint cannot trace (exit 125)")
        self.assertEqual(n, 1, "the command got SIGINT %d times" % n)
        self.assertEqual(rc, EXIT_VERDICT, t.buf)
        with open(rpath) as f:
            r = json.load(f)
        self.assertEqual(r["command"]["exit_code"], 3)
        self.assertIs(r["command"]["interrupted"], True)

    def test_job_control_ctrl_z_and_fg(self):
        """An interactive bash runs footprint as a job: Ctrl-Z stops
        footprint and the command together, fg resumes both, and the run
        is neither interrupted nor failed."""
        bash = shutil.which("bash")
        if not bash:
            self.skipTest("bash is not installed")
        sb = self.sb
        argv, rpath = sb.argv(
            sh('echo "pid=$$ READY$((1+1))"; read x; echo got:$x'),
            opts=["--timeout", "30s"])
        env = su.sudo_env(NOBODY, PS1="fpjc$ ", TERM="dumb",
                          HISTFILE="/dev/null")
        t = Pty(self, [bash, "--norc", "--noprofile", "--noediting", "-i"],
                env, sb.root)
        t.write(b"set -m; echo SHELL$((1+1))\n")
        t.expect(rb"SHELL2\r?\n")
        t.write(" ".join(shlex.quote(a) for a in argv).encode() + b"\n")
        m = t.expect(rb"pid=(\d+) READY2\r?\n")
        cmd_pid = int(m.group(1))
        self.assertEqual(su.proc_uids(cmd_pid)[0], NOBODY.pw_uid)
        # footprint is bash's job (the command is a child of its
        # terminal's monitor, which is footprint's)
        with open("/proc/%d/task/%d/children" % (t.p.pid, t.p.pid)) as f:
            fp_pid = [int(x) for x in f.read().split()]
        self.assertEqual(len(fp_pid), 1, fp_pid)
        fp_pid = fp_pid[0]
        t.write(b"\x1a")
        t.expect(rb"Stopped")
        stopped = su.wait_for(lambda: su.proc_state(cmd_pid) == "T" and
                              su.proc_state(fp_pid) == "T", 5)
        self.assertTrue(stopped, "after ^Z: command %s, footprint %s" %
                        (su.proc_state(cmd_pid), su.proc_state(fp_pid)))
        t.write(b"fg\n")
        resumed = su.wait_for(lambda: su.proc_state(cmd_pid) not in
                              ("T", None) and su.proc_state(fp_pid) not in
                              ("T", None), 5)
        self.assertTrue(resumed, "after fg: command %s, footprint %s" %
                        (su.proc_state(cmd_pid), su.proc_state(fp_pid)))
        t.write(b"hello\n")
        t.expect(b"got:hello")
        # what is typed before footprint ends is the command's terminal's
        # (as under sudo's use_pty): wait for the prompt
        t.expect(rb"fpjc\$ ")
        t.write(b"echo RC=$?\n")
        rc = int(t.expect(rb"RC=(\d+)\r?\n", 20).group(1))
        t.write(b"exit\n")
        t.p.wait(10)
        if rc == EXIT_NOTRACE:
            su.cannot_test("footprint cannot trace (exit 125)")
        self.assertEqual(rc, EXIT_OK, t.buf)
        with open(rpath) as f:
            r = json.load(f)
        self.assertEqual(r["command"]["exit_code"], 0)
        self.assertIs(r["command"]["interrupted"], False)
        self.assertIs(r["ok"], True)


if __name__ == "__main__":
    unittest.main()
