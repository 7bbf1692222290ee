"""Integration tests for `footprint run`'s verdict and JSON receipt.

Every test runs the real binary (real BPF) on real commands, with a fresh
temporary directory as --root and the receipt in a separate directory; every
receipt is validated against docs/receipt.schema.json.

Run from the top of the tree:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \
      /usr/bin/python3 -m unittest -v tests/integration/test_verdict.py

When footprint cannot trace (exit 125) the tests skip, unless
FOOTPRINT_REQUIRE_BPF=1, when they fail.
"""

import base64
import copy
import os
import shlex
import shutil
import signal
import socket
import sys
import threading
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
import verdict_util as vu  # noqa: E402
from verdict_util import (EXIT_OK, EXIT_VERDICT, EXIT_USAGE,  # noqa: E402
                          EXIT_NOEXEC, EXIT_NOTFOUND, PY)

SH = vu.exe_of("sh")  # /usr/bin/dash on Debian
RM = vu.exe_of("rm")
CP = vu.exe_of("cp")
MV = vu.exe_of("mv")
LN = vu.exe_of("ln")
TRUE = vu.exe_of("true")
FALSE = vu.exe_of("false")
SLEEP = vu.exe_of("sleep")
PYEXE = os.path.realpath(PY)

# the tree of seed 000 (a workspace with an allowlist of .cache/ and
# logs/run.log)
TREE_000 = {
    "config.json": '{"a": 1}\n',
    "lockfile": "locked by 1\n",
    "src/main.py": "print('hi')\n",
    ".cache/old.bin": "old",
    "logs/run.log": "start\n",
}


def unique_seconds():
    """A sleep argument no other process on the box is using."""
    return "%d.%06d" % (120, uuid.uuid4().int % 1000000)


def sh(script):
    return ["sh", "-c", script]


def wait_running(secs):
    """Shell code that waits (at most 5 s) until `sleep SECS` runs: when the
    command exits, footprint lists what is left at that instant, and a
    child that has not exec'd yet would still show as the shell."""
    return ("i=0; while ! pgrep -f '^sleep %s$' >/dev/null && [ $i -lt 500 ];"
            " do i=$((i+1)); sleep 0.01; done" % secs.replace(".", "[.]"))


def q(path):
    return shlex.quote(path)


class VerdictTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.env = vu.Env(self)

    # assertions ----------------------------------------------------------
    def assertRc(self, res, rc):
        self.assertEqual(res.rc, rc, res.describe())

    def assertOk(self, res):
        self.assertRc(res, EXIT_OK)
        self.assertTrue(res.r["ok"], res.describe())
        self.assertEqual(res.r["reasons"], [], res.describe())

    def assertFails(self, res):
        self.assertRc(res, EXIT_VERDICT)
        self.assertFalse(res.r["ok"], res.describe())
        self.assertTrue(res.r["reasons"], res.describe())

    def assertActor(self, actor, pid=None, exe=None, argv=None, ppid=None,
                    res=None):
        ctx = res.describe() if res else repr(actor)
        self.assertIsNotNone(actor, ctx)
        if pid is not None:
            self.assertEqual(actor["pid"], pid, ctx)
        if ppid is not None:
            self.assertEqual(actor["ppid"], ppid, ctx)
        if exe is not None:
            self.assertEqual(actor["exe"], exe, ctx)
        if argv is not None:
            # format 2: the argv is the process table's row's
            self.assertEqual(fptest.argv_of(res.r if res else {}, actor),
                             argv, ctx)

    def failing_file(self, res, lst, path):
        """The one files.<lst> finding for path, checked as failing."""
        f = res.file(lst, path)
        self.assertIs(f["allowed"], False, res.describe())
        self.assertNotIn("forbidden", f, res.describe())
        self.assertIn("files.%s: %s" % (lst, path), res.r["reasons"],
                      res.describe())
        # its own line, or that of a directory the run made above it
        roots = res.r["roots"]
        covering = ["allow " + vu.policy_quote(vu.suggested(roots, p))
                    for p in [path] + [path[:i + 1] for i in
                                       range(1, len(path))
                                       if path[i] == "/"]]
        self.assertTrue(set(covering) & set(fptest.rules(res.r)),
                        res.describe())
        return f

    def allowed_file(self, res, lst, path, rule):
        f = res.file(lst, path)
        self.assertIs(f["allowed"], True, res.describe())
        self.assertEqual(f.get("rule"), rule, res.describe())
        return f

    def first_line_int(self, res):
        try:
            return int(res.out.split()[0])
        except (IndexError, ValueError):
            self.fail("the command printed no pid: " + res.describe())

    def kill_if_alive(self, pid, argv):
        def kill():
            if vu.pid_alive_as(pid, argv):
                os.kill(pid, signal.SIGKILL)
        self.addCleanup(kill)

    def run_during(self, action, roots, opts=()):
        return self.env.run_during(action, roots, opts)

    def assert_nothing_left(self, res):
        p = res.r["processes"]
        self.assertEqual(p["leftover"], [], res.describe())
        self.assertEqual(res.r["network"]["bound"], [], res.describe())
        for lst in ("added", "removed", "changed", "transient",
                    "outside_roots", "unexplained", "unreadable"):
            self.assertEqual(res.files(lst), [], lst + res.describe())

    # seed 000: the decision table ----------------------------------------
    def test_command_keeps_its_priority(self):
        # the collector's priority boost is its own thread's: the command
        # and its children run at the nice they were given
        root = self.env.root(tree=TREE_000)
        res = self.env.run(sh('cut -d")" -f2- /proc/$$/stat'), roots=[root])
        self.assertEqual(res.out.split()[16], "0", res.describe())

    def test_000_added_unexpected_fails(self):
        root = self.env.root(tree=TREE_000)
        new = os.path.join(root, "new.json")
        cmd = sh("echo $$; echo '{}' > %s" % q(new))
        res = self.env.run(cmd, roots=[root])
        self.assertFails(res)
        self.assertEqual(res.r["command"]["exit_code"], 0, res.describe())
        f = self.failing_file(res, "added", new)
        self.assertIs(f["explained"], True)
        self.assertIsNone(f["before"])
        self.assertEqual(f["after"]["type"], "f")
        self.assertEqual(f["after"]["size"], 3)
        self.assertActor(f["by"], pid=self.first_line_int(res), exe=SH,
                         argv=cmd, res=res)
        self.assertEqual(res.files("unexplained"), [], res.describe())
        self.assertEqual(res.paths("removed") + res.paths("changed"), [],
                         res.describe())

    def test_000_removed_unexpected_fails(self):
        root = self.env.root(tree=TREE_000)
        lock = os.path.join(root, "lockfile")
        cmd = sh("rm %s & echo $!; wait" % q(lock))
        res = self.env.run(cmd, roots=[root])
        self.assertFails(res)
        f = self.failing_file(res, "removed", lock)
        self.assertIs(f["explained"], True)
        self.assertIsNone(f["after"])
        self.assertEqual(f["before"]["type"], "f")
        shell = res.procs("executed", exe=SH)
        self.assertEqual(len(shell), 1, res.describe())
        self.assertActor(f["by"], pid=self.first_line_int(res), exe=RM,
                         argv=["rm", lock], ppid=shell[0]["pid"], res=res)
        self.assertEqual(res.files("unexplained"), [], res.describe())

    def test_000_changed_unexpected_fails(self):
        root = self.env.root(tree=TREE_000)
        src = os.path.join(root, "src/main.py")
        cfg = os.path.join(root, "config.json")
        cmd = sh("echo $$; exec cp %s %s" % (q(src), q(cfg)))
        res = self.env.run(cmd, roots=[root])
        self.assertFails(res)
        f = self.failing_file(res, "changed", cfg)
        self.assertIs(f["explained"], True)
        self.assertEqual(f["changes"], ["content"])
        self.assertNotEqual(f["before"]["sha256"], f["after"]["sha256"])
        self.assertEqual(f["after"]["size"], len(TREE_000["src/main.py"]))
        self.assertActor(f["by"], pid=self.first_line_int(res), exe=CP,
                         argv=["cp", src, cfg], res=res)
        # the source was only read
        self.assertEqual(res.files("changed", src), [])
        self.assertEqual(res.r["reasons"], ["files.changed: " + cfg])

    def test_000_changes_inside_allowlist_pass(self):
        root = self.env.root(tree=TREE_000)
        j = lambda p: os.path.join(root, p)  # noqa: E731
        cmd = sh("mkdir -p {sub} && echo a > {x} && echo line >> {log} && "
                 "rm {old}".format(sub=q(j(".cache/sub")),
                                   x=q(j(".cache/sub/x")),
                                   log=q(j("logs/run.log")),
                                   old=q(j(".cache/old.bin"))))
        res = self.env.run(cmd, roots=[root],
                           opts=["--allow", ".cache/", "--allow",
                                 "logs/run.log"])
        self.assertOk(res)
        self.assertEqual(fptest.rules(res.r), [])
        self.assertEqual(sorted(res.paths("added")),
                         [j(".cache/sub"), j(".cache/sub/x")])
        for p in (".cache/sub", ".cache/sub/x"):
            self.allowed_file(res, "added", j(p), "allow .cache/")
        f = self.allowed_file(res, "changed", j("logs/run.log"),
                              "allow logs/run.log")
        self.assertEqual(f["changes"], ["content"])
        self.assertIs(f["explained"], True)
        self.allowed_file(res, "removed", j(".cache/old.bin"),
                          "allow .cache/")
        # anything listed as unexplained is covered by the same rules
        for u in res.files("unexplained"):
            self.assertIs(u["allowed"], True, res.describe())

    def test_000_additions_inside_allowlist_pass(self):
        tree = {"config.json": "{}\n", "logs/": None}
        root = self.env.root(tree=tree)
        j = lambda p: os.path.join(root, p)  # noqa: E731
        cmd = sh("mkdir {c} && echo a > {a} && echo first > {log}".format(
            c=q(j(".cache")), a=q(j(".cache/a")), log=q(j("logs/run.log"))))
        res = self.env.run(cmd, roots=[root],
                           opts=["--allow", ".cache/", "--allow",
                                 "logs/run.log"])
        self.assertOk(res)
        self.assertEqual(sorted(res.paths("added")),
                         [j(".cache"), j(".cache/a"), j("logs/run.log")])
        self.allowed_file(res, "added", j(".cache"), "allow .cache/")
        self.allowed_file(res, "added", j(".cache/a"), "allow .cache/")
        f = self.allowed_file(res, "added", j("logs/run.log"),
                              "allow logs/run.log")
        self.assertIs(f["explained"], True)

    def test_000_allowlist_is_exact_or_dir_prefix(self):
        root = self.env.root(tree=TREE_000)
        j = lambda p: os.path.join(root, p)  # noqa: E731
        cmd = sh("mkdir {cx} && echo a > {cxa} && echo b > {log1} && "
                 "echo '{{}}' >> {cfg} && echo c > {cache}".format(
                     cx=q(j(".cachex")), cxa=q(j(".cachex/a")),
                     log1=q(j("logs/run.log.1")), cfg=q(j("config.json")),
                     cache=q(j(".cache/new"))))
        res = self.env.run(cmd, roots=[root],
                           opts=["--allow", ".cache/", "--allow",
                                 "logs/run.log"])
        self.assertFails(res)
        # ".cache/" does not cover ".cachex"; "logs/run.log" is exact
        for p in (".cachex/a", "logs/run.log.1"):
            self.failing_file(res, "added", j(p))
        self.assertIs(res.file("added", j(".cachex"))["allowed"], False)
        self.failing_file(res, "changed", j("config.json"))
        self.allowed_file(res, "added", j(".cache/new"), "allow .cache/")
        self.assertNotIn("allow " + j(".cache/new"), fptest.rules(res.r))
        self.assertNotIn("allow .cache/new", fptest.rules(res.r))

    # seed 004: processes left behind --------------------------------------
    def test_004_true_and_sleep_0_leave_nothing(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        for cmd, exe in ((["true"], TRUE), (["sleep", "0"], SLEEP)):
            with self.subTest(cmd=cmd):
                res = self.env.run(cmd, roots=[root])
                self.assertOk(res)
                self.assert_nothing_left(res)
                self.assertEqual(res.r["command"]["argv"], cmd)
                self.assertEqual(
                    [(p["exe"], fptest.argv_of(res.r, p))
                     for p in res.r["processes"]["executed"]],
                    [(exe, cmd)], res.describe())
                self.assertEqual(res.r["trace"]["complete"], True)
                self.assertEqual(res.r["trace"]["lost"], 0)

    def test_004_background_sleep_is_leftover(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        res = self.env.run(sh("sleep 120 &"), roots=[root])
        self.assertFails(res)
        self.assertEqual(res.r["command"]["exit_code"], 0)
        left = res.r["processes"]["leftover"]
        self.assertEqual(len(left), 1, res.describe())
        s = left[0]
        self.kill_if_alive(s["pid"], ["sleep", "120"])
        self.assertEqual(fptest.argv_of(res.r, s), ["sleep", "120"])
        self.assertEqual(s["exe"], SLEEP)
        self.assertIs(s["allowed"], False)
        self.assertIn("processes.leftover: pid %d %s" % (s["pid"], SLEEP),
                      res.r["reasons"])
        self.assertIn("allow process " + SLEEP, fptest.rules(res.r))
        # footprint killed it
        self.assertFalse(vu.pid_alive_as(s["pid"], ["sleep", "120"]),
                         "sleep 120 (pid %d) still runs" % s["pid"])

    def test_004_detached_daemon_is_leftover_and_killed(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        secs = unique_seconds()
        pattern = "^sleep %s$" % secs.replace(".", "[.]")
        self.assertEqual(vu.pgrep_full(pattern), [])
        cmd = sh("(setsid sleep %s </dev/null >/dev/null 2>&1 &); %s" %
                 (secs, wait_running(secs)))
        res = self.env.run(cmd, roots=[root])
        for pid in vu.pgrep_full(pattern):
            self.kill_if_alive(pid, ["sleep", secs])
        self.assertFails(res)
        self.assertEqual(
            [(p["exe"], fptest.argv_of(res.r, p))
             for p in res.r["processes"]["leftover"]],
            [(SLEEP, ["sleep", secs])], res.describe())
        self.assertEqual(vu.pgrep_full(pattern), [],
                         "sleep %s outlived footprint" % secs)

    # transient files and short-lived processes ----------------------------
    def test_transient_file_in_tmp(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        tmp = os.path.join(self.env.scratch(), "fp-transient")
        cmd = sh("echo $$; echo t > %s; rm %s" % (q(tmp), q(tmp)))
        res = self.env.run(cmd, roots=[root])
        self.assertFails(res)
        shell_pid = self.first_line_int(res)
        t = res.file("transient", tmp)
        self.assertIs(t["allowed"], False)
        self.assertActor(t["created_by"], pid=shell_pid, exe=SH, argv=cmd,
                         res=res)
        self.assertActor(t["removed_by"], exe=RM, argv=["rm", tmp],
                         ppid=shell_pid, res=res)
        self.assertNotEqual(t["removed_by"]["pid"], shell_pid)
        self.assertIn("files.transient: " + tmp, res.r["reasons"])
        self.assertEqual(res.files("outside_roots"), [], res.describe())
        self.assertEqual(res.files("added"), [], res.describe())

    def test_short_lived_processes(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        res = self.env.run(sh("/bin/false; /bin/true"), roots=[root])
        self.assertOk(res)
        self.assertTrue(res.procs("executed", exe=TRUE, argv=["/bin/true"]),
                        res.describe())
        t = res.procs("short_lived", exe=TRUE, argv=["/bin/true"])
        self.assertEqual(len(t), 1, res.describe())
        self.assertEqual(t[0]["exit_code"], 0)
        self.assertNotIn("signal", t[0])
        f = res.procs("short_lived", exe=FALSE)
        self.assertEqual(len(f), 1, res.describe())
        self.assertEqual(f[0]["exit_code"], 1)
        self.assertEqual(res.r["processes"]["leftover"], [])
        # short-lived processes are informational: false exiting 1 inside
        # the command does not fail the run (assertOk above)

    # changes no syscall explains ----------------------------------------
    def test_chmod_by_the_command_is_explained(self):
        # chmod, fchmod, fchmodat are traced: the command's chmod explains
        # a mode-only change
        root = self.env.root(tree={"f.sh": "echo\n"})
        f = os.path.join(root, "f.sh")
        res = self.env.run(["chmod", "755", f], roots=[root])
        self.assertFails(res)
        c = self.failing_file(res, "changed", f)
        self.assertEqual(c["changes"], ["mode"])
        self.assertEqual((c["before"]["mode"], c["after"]["mode"]),
                         ("0644", "0755"))
        self.assertEqual(c["before"]["sha256"], c["after"]["sha256"])
        self.assertIs(c["explained"], True, res.describe())
        self.assertActor(c["by"], exe=vu.exe_of("chmod"),
                         argv=["chmod", "755", f], res=res)
        self.assertEqual(res.files("unexplained"), [], res.describe())

    def test_mode_change_outside_the_run_is_unexplained(self):
        # a chmod no event of the run made (here: by this test process,
        # while the command runs) is a mode-only change nobody explains
        root = self.env.root(tree={"f.sh": "echo\n"})
        f = os.path.join(root, "f.sh")
        res, _ = self.run_during(lambda: os.chmod(f, 0o755), roots=[root])
        self.assertFails(res)
        c = self.failing_file(res, "changed", f)
        self.assertEqual(c["changes"], ["mode"])
        self.assertIs(c["explained"], False)
        self.assertIsNone(c["by"])
        u = res.file("unexplained", f)
        self.assertEqual(u["finding"], "changed")
        self.assertEqual(u["changes"], ["mode"])
        self.assertIs(u["allowed"], False)
        self.assertIn("files.unexplained: " + f, res.r["reasons"])
        self.assertEqual(len(res.files("changed")), 1, res.describe())

    def test_symlink_repointed(self):
        root = self.env.root(tree={"a": "a", "b": "b"})
        link = os.path.join(root, "link")
        os.symlink("a", link)
        res = self.env.run(["ln", "-sfn", "b", link], roots=[root])
        self.assertFails(res)
        c = self.failing_file(res, "changed", link)
        self.assertEqual(c["changes"], ["target"])
        self.assertEqual((c["before"]["type"], c["before"]["target"]),
                         ("l", "a"))
        self.assertEqual((c["after"]["type"], c["after"]["target"]),
                         ("l", "b"))
        self.assertIs(c["explained"], True)
        self.assertActor(c["by"], exe=LN, argv=["ln", "-sfn", "b", link],
                         res=res)
        self.assertEqual(res.paths("added") + res.paths("removed"), [])

    def test_rename_inside_root(self):
        root = self.env.root(tree={"old.txt": "o\n", "d/x": "x\n"})
        j = lambda p: os.path.join(root, p)  # noqa: E731
        cmd = sh("mv %s %s & echo $!; wait; mv %s %s" %
                 (q(j("old.txt")), q(j("new.txt")), q(j("d")), q(j("e"))))
        res = self.env.run(cmd, roots=[root])
        self.assertFails(res)
        mv_pid = self.first_line_int(res)
        r = self.failing_file(res, "removed", j("old.txt"))
        a = self.failing_file(res, "added", j("new.txt"))
        for f in (r, a):
            self.assertIs(f["explained"], True, res.describe())
            self.assertActor(f["by"], pid=mv_pid, exe=MV,
                             argv=["mv", j("old.txt"), j("new.txt")],
                             res=res)
        self.assertEqual(r["before"]["sha256"], a["after"]["sha256"])
        # a directory rename explains everything below it
        self.assertEqual(sorted(res.paths("removed")),
                         [j("d"), j("d/x"), j("old.txt")])
        self.assertEqual(sorted(res.paths("added")),
                         [j("e"), j("e/x"), j("new.txt")])
        for lst in ("added", "removed"):
            for f in res.files(lst):
                self.assertIs(f["explained"], True, res.describe())
        self.assertEqual(res.files("unexplained"), [], res.describe())

    def test_write_through_inherited_fd_is_unexplained(self):
        root = self.env.root(tree={"f": "before\n"})
        f = os.path.join(root, "f")
        # the fd is opened by footprint's parent, before the run
        wrapper = ["sh", "-c", 'exec 3>>"$0"; exec "$@"', f]
        res = self.env.run(sh("echo x >&3"), roots=[root], wrapper=wrapper)
        self.assertFails(res)
        c = self.failing_file(res, "changed", f)
        self.assertEqual(c["changes"], ["content"])
        self.assertIs(c["explained"], False)
        self.assertIsNone(c["by"])
        u = res.file("unexplained", f)
        self.assertEqual((u["finding"], u["changes"]),
                         ("changed", ["content"]))
        with open(f) as fh:
            self.assertEqual(fh.read(), "before\nx\n")

    # unreadable and bad roots --------------------------------------------
    def test_unreadable_directory(self):
        # root bypasses permissions; drop CAP_DAC_OVERRIDE and
        # CAP_DAC_READ_SEARCH so a mode-000 directory is unreadable to
        # footprint's after-snapshot.
        if not shutil.which("setpriv"):
            self.skipTest("setpriv (util-linux) is needed to drop "
                          "CAP_DAC_*; root can read any directory")
        root = self.env.root(tree={"sec/x": "secret\n", "plain": "p\n"})
        sec = os.path.join(root, "sec")
        caps = "-dac_override,-dac_read_search"
        wrapper = ["setpriv", "--bounding-set=" + caps, "--inh-caps=" + caps]
        res = self.env.run(["chmod", "000", sec], roots=[root],
                           wrapper=wrapper)
        if res.rc == EXIT_USAGE or res.r is None:
            self.skipTest("footprint does not run without CAP_DAC_*: " +
                          res.err)
        self.assertFails(res)
        u = res.file("unreadable", sec)
        self.assertEqual(u["errno"], "EACCES")
        self.assertIn("files.unreadable: " + sec, res.r["reasons"])
        # what it hides is not reported as removed
        self.assertEqual(res.files("removed"), [], res.describe())
        c = res.file("changed", sec)
        self.assertEqual(c["changes"], ["mode"])

    def test_missing_root_is_usage_error(self):
        missing = os.path.join(self.env.base, "does-not-exist")
        marker = os.path.join(self.env.scratch(), "ran")
        res = self.env.run(["touch", marker], roots=[missing])
        self.assertRc(res, EXIT_USAGE)
        lines = res.err.splitlines()
        self.assertEqual(len(lines), 1, res.err)
        self.assertTrue(lines[0].startswith("footprint:"), res.err)
        self.assertIn(missing, lines[0])
        self.assertFalse(os.path.exists(marker), "the command ran")
        self.assertFalse(os.path.exists(res.receipt_path))

    # network -------------------------------------------------------------
    def test_listener_left_running(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        server = (
            "import os, socket, time\n"
            "s = socket.socket()\n"
            "s.bind(('127.0.0.1', 0))\n"
            "s.listen()\n"
            "print(s.getsockname()[1], flush=True)\n"
            "if os.fork():\n"
            "    os._exit(0)\n"
            "time.sleep(60)\n")
        res = self.env.run([PY, "-c", server], roots=[root])
        self.assertFails(res)
        port = self.first_line_int(res)
        self.assertNotEqual(port, 0)
        bound = [b for b in res.r["network"]["bound"] if b["port"] == port]
        self.assertEqual(len(bound), 1, res.describe())
        self.assertEqual(
            (bound[0]["family"], bound[0]["address"], bound[0]["protocol"],
             bound[0]["allowed"]), ("inet", "127.0.0.1", "tcp", False))
        lst = [x for x in res.r["network"]["listening"] if x["port"] == port]
        self.assertEqual(len(lst), 1, res.describe())
        self.assertEqual(
            (lst[0]["family"], lst[0]["address"], lst[0]["protocol"]),
            ("inet", "127.0.0.1", "tcp"))
        left = res.r["processes"]["leftover"]
        self.assertEqual([p["exe"] for p in left], [PYEXE], res.describe())
        self.assertEqual(lst[0]["pid"], left[0]["pid"])
        self.kill_if_alive(left[0]["pid"], [PY, "-c", server])
        subj = "tcp/127.0.0.1:%d" % port
        self.assertIn("network.bound: %s by pid %d" % (subj, bound[0]["pid"]),
                      res.r["reasons"])
        self.assertIn("network.listening: %s by pid %d" %
                      (subj, lst[0]["pid"]), res.r["reasons"])
        # it asked for port 0: any port the kernel chooses is allowed
        self.assertIn("allow bind tcp/127.0.0.1:0", fptest.rules(res.r))
        self.assertNotIn("allow bind " + subj, fptest.rules(res.r))
        self.assertFalse(vu.pid_alive_as(left[0]["pid"], [PY, "-c", server]))

    def test_unrelated_listener_does_not_fail_the_run(self):
        # A listener opened during the run by a process that is not part of
        # it (here: this test process) is not the command's doing; like
        # processes.new_outside it must not fail the verdict.
        root = self.env.root(tree={"a.txt": "a\n"})
        s = socket.socket()
        self.addCleanup(s.close)

        def listen():
            s.bind(("127.0.0.1", 0))
            s.listen()
            return s.getsockname()[1]
        res, port = self.run_during(listen, roots=[root])
        mine = [x for x in res.r["network"]["listening"] if x["port"] == port]
        # reported, marked as not the run's, and not held against it
        self.assertEqual(len(mine), 1, res.describe())
        self.assertEqual(mine[0]["pid"], os.getpid(), res.describe())
        self.assertIs(mine[0].get("owner_outside_run"), True, res.describe())
        self.assertNotIn("allow bind tcp/127.0.0.1:%d" % port,
                         fptest.rules(res.r), res.describe())
        self.assertOk(res)

    # policy --------------------------------------------------------------
    def test_forbid_wins_over_allow(self):
        root = self.env.root()
        j = lambda p: os.path.join(root, p)  # noqa: E731
        # a: allow then forbid; b: forbid then allow; c: a glob allow and
        # an exact forbid; d: only the glob allow (the control)
        opts = ["--allow", "a.txt", "--forbid", "a.txt",
                "--forbid", "b.txt", "--allow", "b.txt",
                "--allow", "*.txt", "--forbid", "c.txt"]
        res = self.env.run(sh("for f in a b c d; do echo x > %s/$f.txt; done"
                              % q(root)), roots=[root], opts=opts)
        self.assertFails(res)
        for n in "abc":
            with self.subTest(n):
                f = res.file("added", j(n + ".txt"))
                self.assertIs(f["allowed"], False)
                self.assertIs(f["forbidden"], True)
                self.assertEqual(f["rule"], "forbid %s.txt" % n)
                self.assertIn("files.added: %s (forbidden)" % j(n + ".txt"),
                              res.r["reasons"])
                self.assertNotIn("allow " + j(n + ".txt"),
                                 fptest.rules(res.r))
                self.assertNotIn("allow %s.txt" % n, fptest.rules(res.r))
        d = self.allowed_file(res, "added", j("d.txt"), "allow *.txt")
        self.assertNotIn("forbidden", d)
        self.assertEqual(len(res.r["reasons"]), 3, res.describe())
        self.assertEqual(fptest.rules(res.r), [])

    def test_ignore_drops_findings_unless_forbidden(self):
        root = self.env.root()
        j = lambda p: os.path.join(root, p)  # noqa: E731
        cmd = sh("mkdir %s; echo x > %s; echo y > %s" %
                 (q(j("tmp")), q(j("tmp/a")), q(j("keep.txt"))))
        res = self.env.run(cmd, roots=[root],
                           opts=["--ignore", "tmp/", "--allow", "keep.txt"])
        self.assertOk(res)
        self.assertEqual(res.paths("added"), [j("keep.txt")])
        self.assertEqual(res.paths("unexplained"), [])
        res = self.env.run(sh("echo z > %s" % q(j("tmp/b"))), roots=[root],
                           opts=["--ignore", "tmp/", "--forbid", "tmp/b"])
        self.assertFails(res)
        self.assertIs(res.file("added", j("tmp/b"))["forbidden"], True)

    def test_expect_missing_fails(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        res = self.env.run(["true"], roots=[root],
                           opts=["--expect", "missing.txt"])
        self.assertFails(res)
        self.assertEqual(res.r["expected"],
                         [{"rule": "expect missing.txt", "met": False}])
        self.assertEqual(res.r["reasons"],
                         ["expected change missing: expect missing.txt"])
        self.assertIn("expected", res.err)

    def test_expect_met_passes(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        app = os.path.join(root, "build/app")
        present = os.path.join(root, "present.txt")
        res = self.env.run(sh("mkdir -p %s && echo bin > %s && echo hi > %s"
                              % (q(os.path.dirname(app)), q(app),
                                 q(present))),
                           roots=[root],
                           opts=["--expect", "build/app", "--allow", "build/",
                                 "--expect", "present.txt"])
        self.assertOk(res)
        self.assertEqual(res.r["expected"],
                         [{"rule": "expect build/app", "met": True},
                          {"rule": "expect present.txt", "met": True}])
        self.allowed_file(res, "added", app, "allow build/")
        # an expected path needs no allow rule of its own
        f = res.file("added", present)
        self.assertIs(f["allowed"], True)
        self.assertNotIn("rule", f)

    def _policy_cmd(self, root, secs):
        bind = ("import socket; s = socket.socket(); "
                "s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
        d = os.path.join(root, "dir")
        return sh("mkdir {d}; echo x > {y}; {py} -c {b}; sleep {s} & {w}"
                  .format(d=q(d), y=q(os.path.join(d, "y")), py=PY,
                          b=q(bind), s=secs, w=wait_running(secs)))

    def test_policy_file(self):
        secs = unique_seconds()
        policy = os.path.join(self.env.out, "ci.policy")
        with open(policy, "w") as f:
            f.write("# footprint policy\n"
                    "\n"
                    "   # an indented comment\n"
                    "allow dir/\n"
                    "\t\n"
                    "allow process %s\n"
                    "  allow bind tcp/127.0.0.1:*  \n" % SLEEP)
        # without the policy: three kinds of failure
        root = self.env.root("bare")
        res = self.env.run(self._policy_cmd(root, secs), roots=[root])
        self.assertFails(res)
        port = int(res.out.split()[0])
        reasons = "\n".join(res.r["reasons"])
        self.assertIn("files.added: " + os.path.join(root, "dir"), reasons)
        self.assertIn("processes.leftover: pid", reasons)
        self.assertIn("network.bound: tcp/127.0.0.1:%d" % port, reasons)
        # with it: everything allowed
        root = self.env.root("withpolicy")
        res = self.env.run(self._policy_cmd(root, secs), roots=[root],
                           opts=["--policy", policy])
        self.assertOk(res)
        for p in ("dir", "dir/y"):
            self.allowed_file(res, "added", os.path.join(root, p),
                              "allow dir/")
        left = res.r["processes"]["leftover"]
        self.assertEqual([(p["exe"], fptest.argv_of(res.r, p), p["allowed"],
                           p.get("rule")) for p in left],
                         [(SLEEP, ["sleep", secs], True,
                           "allow process " + SLEEP)], res.describe())
        self.assertFalse(vu.pid_alive_as(left[0]["pid"], ["sleep", secs]))
        b = res.r["network"]["bound"]
        self.assertEqual(len(b), 1, res.describe())
        self.assertEqual((b[0]["protocol"], b[0]["address"], b[0]["allowed"],
                          b[0]["rule"]),
                         ("tcp", "127.0.0.1", True,
                          "allow bind tcp/127.0.0.1:*"))

    def test_policy_file_error_is_usage_error(self):
        root = self.env.root()
        policy = os.path.join(self.env.out, "bad.policy")
        with open(policy, "w") as f:
            f.write("# ok\nallow a\npermit b\n")
        marker = os.path.join(root, "ran")
        res = self.env.run(["touch", marker], roots=[root],
                           opts=["--policy", policy])
        self.assertRc(res, EXIT_USAGE)
        self.assertTrue(res.err.startswith("footprint: %s:3: " % policy),
                        res.err)
        self.assertFalse(os.path.exists(marker))

    # suggestions ---------------------------------------------------------
    def _roundtrip(self, tree, cmd_for, name):
        """Fail, paste the suggestions into a policy, re-run on an
        identical fresh tree at the same path: it must pass."""
        root = self.env.root(name, tree=tree)
        cmd = cmd_for(root)
        res = self.env.run(cmd, roots=[root])
        self.assertFails(res)
        sugg = fptest.rules(res.r)
        self.assertTrue(sugg)
        # one "allow PATH" per failing file, quoted for a policy file
        for lst in res.r["files"]:
            for f in res.r["files"][lst]:
                if not f["allowed"]:
                    want = "allow " + vu.policy_quote(vu.suggested(
                        res.r["roots"], vu.field_bytes(f, "path")))
                    self.assertIn(want, sugg, res.describe())
        # the human summary ends with the same lines
        lines = res.err.rstrip("\n").split("\n")
        head = "footprint: policy lines that would allow this " \
               "(review before use):"
        self.assertIn(head, lines, res.err)
        self.assertEqual(lines[lines.index(head) + 1:],
                         ["  %s  # covers %d" % (s["rule"], s["covers"])
                          for s in res.r["suggestions"]], res.err)
        self.assertEqual(len(lines) - lines.index(head) - 1, len(sugg))
        policy = os.path.join(self.env.out, name + ".policy")
        with open(policy, "wb") as f:
            f.write(b"".join(s.encode() + b"\n" for s in sugg))
        # an identical fresh tree at the same path
        shutil.rmtree(root)
        os.mkdir(root)
        vu.make_tree(root, tree)
        res2 = self.env.run(cmd, roots=[root], opts=["--policy", policy])
        self.assertOk(res2)
        return root, policy, res, res2

    def test_suggestions_make_the_rerun_pass(self):
        secs = unique_seconds()
        tree = {"edit.txt": "e\n", "gone.txt": "g\n", "keep.txt": "k\n"}

        def cmd_for(root):
            j = lambda p: q(os.path.join(root, p))  # noqa: E731
            return sh("echo n > {n}; echo more >> {e}; rm {g}; chmod 600 {k};"
                      " sleep {s} & {w}".format(
                          n=j("new.txt"), e=j("edit.txt"), g=j("gone.txt"),
                          k=j("keep.txt"), s=secs, w=wait_running(secs)))
        root, _, res, res2 = self._roundtrip(tree, cmd_for, "plain")
        j = lambda p: os.path.join(root, p)  # noqa: E731
        self.assertEqual(
            fptest.rules(res.r),
            ["allow new.txt", "allow gone.txt", "allow edit.txt",
             "allow keep.txt", "allow process " + SLEEP])
        self.assertEqual(fptest.rules(res2.r), [])
        c = res2.file("changed", j("keep.txt"))
        self.assertEqual((c["changes"], c["allowed"]), (["mode"], True))

    def test_suggestions_quote_odd_names(self):
        # names with a space, glob characters, a newline and byte 0xff
        tree = {"sp ace.txt": "1", "st*ar.txt": "2", "stXar.txt": "3",
                "q[1].txt": "4"}
        code = ("import sys, os\n"
                "r = os.fsencode(sys.argv[1])\n"
                "for n in (b'sp ace.txt', b'st*ar.txt', b'q[1].txt',"
                " b'a\\nb\\xff'):\n"
                "    open(r + b'/' + n, 'ab').write(b'x')\n")

        def cmd_for(root):
            return [PY, "-c", code, root]
        root, policy, res, res2 = self._roundtrip(tree, cmd_for, "odd")
        self.assertIn('allow "sp ace.txt"', fptest.rules(res.r))
        self.assertIn('allow "a\\x0ab\\xff"', fptest.rules(res.r))
        # the glob characters were escaped: st*ar.txt does not cover stXar
        other = os.path.join(root, "stXar.txt")
        res3 = self.env.run(sh("echo y >> %s" % q(other)), roots=[root],
                            opts=["--policy", policy])
        self.assertFails(res3)
        self.assertIs(res3.file("changed", other)["allowed"], False)

    def test_suggestion_for_backslash_name(self):
        # "a\b" must be allowed by its own suggestion, and not "ab" with it
        tree = {"back\\slash.txt": "1", "backslash.txt": "2"}

        def cmd_for(root):
            return sh("echo x >> %s" % q(os.path.join(root,
                                                      "back\\slash.txt")))
        root, policy, res, res2 = self._roundtrip(tree, cmd_for, "bs")
        self.assertEqual(fptest.rules(res.r),
                         ['allow "back\\\\\\\\slash.txt"'])
        other = os.path.join(root, "backslash.txt")
        res3 = self.env.run(sh("echo y >> %s" % q(other)), roots=[root],
                            opts=["--policy", policy])
        self.assertFails(res3)

    # noise ---------------------------------------------------------------
    def test_dev_null_is_noise_by_default(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        cmd = sh("echo x > /dev/null; echo y >> /dev/null")
        res = self.env.run(cmd, roots=[root])
        self.assertOk(res)
        self.assertEqual(res.files("outside_roots"), [])
        res = self.env.run(cmd, roots=[root], opts=["--report-noise"])
        self.assertFails(res)
        o = res.file("outside_roots", "/dev/null")
        self.assertIn("written", o["ops"])
        self.assertIs(o["allowed"], False)
        self.assertActor(o["by"], exe=SH, argv=cmd, res=res)
        self.assertIn("files.outside_roots: /dev/null", res.r["reasons"])
        # "noise off" in a policy file does the same, and an absolute
        # allow rule then covers the path
        policy = os.path.join(self.env.out, "noise.policy")
        with open(policy, "w") as f:
            f.write("noise off\nallow /dev/null\n")
        res = self.env.run(cmd, roots=[root], opts=["--policy", policy])
        self.assertOk(res)
        self.assertEqual(res.paths("outside_roots"), ["/dev/null"])
        self.allowed_file(res, "outside_roots", "/dev/null",
                          "allow /dev/null")

    # issue 10: correctness ------------------------------------------------
    def test_unix_socket_bound_by_relative_name_is_explained(self):
        root = self.env.root()
        code = ("import socket\n"
                "s = socket.socket(socket.AF_UNIX)\n"
                "s.bind('sock')\n")
        res = self.env.run([PY, "-c", code], roots=[root], cwd=root)
        self.assertFails(res)
        sock = os.path.join(root, "sock")
        f = res.file("added", sock)
        self.assertIs(f["explained"], True, res.describe())
        self.assertEqual(f["after"]["type"], "s")
        self.assertEqual(res.files("unexplained"), [], res.describe())
        bound = res.r["network"]["bound"]
        self.assertEqual([(b["family"], b["address"]) for b in bound],
                         [("unix", sock)], res.describe())

    def test_an_open_for_appending_is_not_the_writer(self):
        # The run opens the file for appending and writes nothing; this
        # process, outside the run, appends to it while the run waits.
        root = self.env.root(tree={"log": "a\n"})
        log = os.path.join(root, "log")
        ready = os.path.join(self.env.out, "ready")
        go = os.path.join(self.env.out, "go")
        os.mkfifo(ready, 0o666)
        os.mkfifo(go, 0o666)

        def outsider():
            with open(ready) as f:
                f.read()
            with open(log, "a") as f:
                f.write("outside\n")
            with open(go, "w") as f:
                f.write("x\n")

        t = threading.Thread(target=outsider)
        t.start()
        try:
            res = self.env.run(
                ["sh", "-c", 'exec 3>>"$1"; echo r > "$2"; read x < "$3"',
                 "sh", log, ready, go], roots=[root])
        finally:
            t.join()
        f = res.file("changed", log)
        self.assertIs(f["explained"], True, res.describe())
        self.assertIs(f.get("by_open"), True, res.describe())
        self.assertIn("%s  opened for writing by pid %d" %
                      (log, f["by"]["pid"]), res.err)
        self.assertNotIn("%s  by pid" % log, res.err)

    # bytes ---------------------------------------------------------------
    def test_non_utf8_file_name(self):
        root = self.env.root()
        want = os.fsencode(root) + b"/a\nb\xff"
        code = ("import sys, os\n"
                "open(os.fsencode(sys.argv[1]) + b'/a\\nb\\xff', 'w')"
                ".write('z')\n")
        res = self.env.run([PY, "-c", code, root], roots=[root])
        self.assertFails(res)
        added = res.r["files"]["added"]
        self.assertEqual(len(added), 1, res.describe())
        f = added[0]
        self.assertIn("path_b64", f, res.describe())
        self.assertEqual(base64.b64decode(f["path_b64"], validate=True), want)
        self.assertEqual(f["path"], root + "/a\nb\ufffd")
        self.assertIs(f["explained"], True)
        self.assertIs(f["allowed"], False)
        self.assertEqual(f["after"]["size"], 1)
        self.assertEqual(res.files("unexplained"), [])
        self.assertIn('allow "a\\x0ab\\xff"', fptest.rules(res.r))
        # the summary keeps it on one line
        self.assertIn("%s/a\\x0ab\\xff" % root, res.err)

    def test_command_argv_keeps_non_utf8_bytes(self):
        # receipt.c writes command.argv with json_string() only: the exact
        # bytes are lost (every other byte string gets a "<key>_b64").
        root = self.env.root()
        arg = b"x\xffy"
        res = self.env.run([b"/bin/echo", arg], roots=[root])
        self.assertOk(res)
        ex = res.r["processes"]["executed"][0]
        # its argv is its process table row's (format 2), bytes and all
        row = res.r["process_table"][ex["proc"]]
        self.assertEqual(base64.b64decode(row["argv_b64"][1]), arg)
        cmd = res.r["command"]
        self.assertEqual(cmd["argv"][1], "x\ufffdy")
        self.assertIn("argv_b64", cmd,
                      "command.argv lost the bytes of a non-UTF-8 argument "
                      "(no command.argv_b64): %r" % cmd)
        self.assertEqual([base64.b64decode(a) for a in cmd["argv_b64"]],
                         [b"/bin/echo", arg])

    # outputs and exit statuses -------------------------------------------
    def test_receipt_inside_root_refused(self):
        root = self.env.root(tree={"sub/": None})
        marker = os.path.join(self.env.scratch(), "ran")
        link = os.path.join(self.env.base, "link-to-root")
        os.symlink(root, link)
        cases = [
            ("explicit root", dict(roots=[root],
                                   receipt=os.path.join(root, "r.json"))),
            ("subdirectory", dict(roots=[root],
                                  receipt=os.path.join(root, "sub/r.json"))),
            ("through a symlink", dict(roots=[root],
                                       receipt=os.path.join(link, "r.json"))),
            ("default root is cwd", dict(cwd=root, receipt="r.json")),
            ("second root", dict(roots=[self.env.scratch("other"), root],
                                 receipt=os.path.join(root, "r.json"))),
            ("events file", dict(roots=[root],
                                 opts=["--events",
                                       os.path.join(root, "ev.ndjson")])),
        ]
        for what, kw in cases:
            with self.subTest(what):
                res = self.env.run(["touch", marker], **kw)
                self.assertRc(res, EXIT_USAGE)
                lines = res.err.splitlines()
                self.assertEqual(len(lines), 1, res.err)
                self.assertTrue(lines[0].startswith("footprint:"), res.err)
                # a link is refused before its target is even looked at
                self.assertIn("symbolic link" if what == "through a symlink"
                              else "inside the watched root", lines[0])
                self.assertFalse(os.path.exists(marker), "the command ran")
                self.assertEqual(sorted(os.listdir(root)), ["sub"])
                self.assertEqual(os.listdir(os.path.join(root, "sub")), [])

    def test_command_exit_status_and_signal_fail(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        res = self.env.run(sh("exit 3"), roots=[root])
        self.assertFails(res)
        self.assertEqual((res.r["command"]["exit_code"],
                          res.r["command"]["signal"]), (3, None))
        self.assertEqual(res.r["reasons"], ["command exited 3"])
        res = self.env.run(sh("kill -TERM $$"), roots=[root])
        self.assertFails(res)
        self.assertEqual((res.r["command"]["exit_code"],
                          res.r["command"]["signal"]), (None, 15))
        self.assertEqual(res.r["reasons"], ["command was killed by SIGTERM"])

    def test_command_not_found_or_not_executable(self):
        root = self.env.root()
        noexec = os.path.join(self.env.scratch(), "noexec.sh")
        with open(noexec, "w") as f:
            f.write("#!/bin/sh\ntrue\n")
        os.chmod(noexec, 0o644)
        for cmd, rc in ((["no-such-command-%s" % uuid.uuid4().hex],
                         EXIT_NOTFOUND),
                        ([noexec], EXIT_NOEXEC)):
            with self.subTest(cmd=cmd):
                res = self.env.run(cmd, roots=[root], expect_receipt=False)
                self.assertRc(res, rc)
                self.assertIn("footprint: cannot run " + cmd[0], res.err)

    def test_no_empty_receipt_when_command_cannot_start(self):
        # a receipt file that exists must be a receipt: footprint opens it
        # before the run and leaves it empty when it exits 126/127.
        root = self.env.root()
        res = self.env.run([os.path.join(self.env.base, "nope")],
                           roots=[root], expect_receipt=False)
        self.assertRc(res, EXIT_NOTFOUND)
        if os.path.exists(res.receipt_path):
            size = os.path.getsize(res.receipt_path)
            self.assertNotEqual(
                size, 0, "footprint exited %d and left an empty (invalid "
                "JSON) receipt at %s" % (res.rc, res.receipt_path))
            self.assertIsNotNone(res.r)


class SchemaTest(unittest.TestCase):
    """The schema itself: a known-good receipt passes, drift is caught."""

    ACTOR = {"pid": 10, "ppid": 9, "exe": "/usr/bin/dash", "proc": 0,
             "argv": ["sh", "-c", "x"]}
    ROW = {"id": 0, "pid": 10, "ppid": 9, "parent": None,
           "exe": "/usr/bin/dash", "argv": ["sh", "-c", "x"], "start_us": 0,
           "end_us": 1200, "exit_code": 0, "signal": None, "step": None}
    ENTRY = {"type": "f", "mode": "0644", "uid": 0, "gid": 0, "size": 2,
             "sha256": "0" * 64}
    CREDS = {"uid": 65534, "euid": 0, "suid": 0, "gid": 65534,
             "egid": 65534, "sgid": 65534, "cap_eff": ["CAP_CHOWN"],
             "cap_prm": ["CAP_CHOWN", "CAP_63"], "no_new_privs": False,
             "secure_exec": True, "userns_level": 0}
    GOOD = {
        "format": 2,
        "ok": False,
        "reasons": ["files.added: /r/a"],
        "by_severity": {"critical": 0, "high": 0, "medium": 0, "low": 1},
        "command": {"argv": ["sh", "-c", "x"], "exit_code": 0,
                    "signal": None, "timed_out": False,
                    "interrupted": False, "duration_ms": 5},
        "trace": {"events": 3, "lost": 0, "complete": True},
        "roots": ["/r"],
        "provenance": {"footprint": "0.1.0", "host": "ci-7", "kernel": "6.1.0",
                       "user": "dev", "uid": 1000,
                       "started": "2026-12-02T09:04:05.123Z",
                       "ended": "2026-12-02T09:04:06.000Z"},
        "files": {
            "added": [{"path": "/r/a", "allowed": False, "explained": True,
                       "before": None, "after": ENTRY, "by": ACTOR}],
            "removed": [{"path": "/r/b", "allowed": True, "rule": "allow b",
                         "explained": False, "before": ENTRY,
                         "after": None, "by": None}],
            "changed": [{"path": "/r/c", "allowed": False, "forbidden": True,
                         "rule": "forbid c", "explained": True,
                         "changes": ["content", "mode"], "before": ENTRY,
                         "after": ENTRY, "by": ACTOR}],
            "transient": [{"path": "/tmp/t\ufffd", "path_b64": "L3RtcC90/w==",
                           "allowed": False, "created_by": ACTOR,
                           "removed_by": None}],
            "outside_roots": [{"path": "/dev/null", "allowed": False,
                               "ops": ["written"], "by": ACTOR}],
            "unexplained": [{"path": "/r/b", "allowed": True,
                             "rule": "allow b", "finding": "removed"}],
            "unreadable": [{"path": "/r/d", "allowed": False,
                            "errno": "EACCES"}],
            "cut": [{"path": "/d/d/f", "allowed": False,
                     "ops": ["created", "written"], "by": ACTOR}],
            "magic_link": [{"path": "/proc/self/fd/3", "allowed": False,
                            "forbidden": True, "rule": "forbid /proc/**",
                            "ops": ["attrs"], "by": None}],
        },
        "processes": {
            "executed": [dict(ACTOR, allowed=False, creds=None)],
            "short_lived": [dict(ACTOR, allowed=False, exit_code=0)],
            "leftover": [dict(ACTOR, allowed=True,
                              rule="allow process /usr/bin/dash")],
            "new_outside": [],
            "disappeared": [],
            "privileged": [dict(ACTOR, allowed=False, creds=CREDS,
                                base_creds=None, rose=["secure_exec"])],
        },
        "network": {
            "bound": [{"pid": 10, "family": "inet", "address": "127.0.0.1",
                       "port": 80, "protocol": "tcp", "allowed": False}],
            "listening": [{"pid": -1, "family": "inet6", "address": "::",
                           "port": 53, "protocol": "udp", "allowed": False}],
        },
        "expected": [{"rule": "expect x", "met": False}],
        "suggestions": [{"rule": "allow /r/a", "covers": 1},
                        {"rule": "allow bind tcp/127.0.0.1:80", "covers": 1}],
        "process_table": [ROW],
    }

    def errors(self, doc):
        return vu.schema_errors(doc)

    def test_good_receipt_is_valid(self):
        self.assertEqual(self.errors(self.GOOD), [])

    def test_drift_is_caught(self):
        def m(fn):
            d = copy.deepcopy(self.GOOD)
            fn(d)
            return d
        drifts = {
            "new top-level key": lambda d: d.update(extra=1),
            "format 1": lambda d: d.update(format=1),
            "no process table": lambda d: d.pop("process_table"),
            "row without start_us": lambda d: d["process_table"][0].pop(
                "start_us"),
            "actor without proc": lambda d: d["files"]["added"][0]["by"]
            .pop("proc"),
            "actor of no row without argv": lambda d: d["files"]["added"][0]
            ["by"].update(proc=None) or d["files"]["added"][0]["by"].pop(
                "argv"),
            "suggestion as a string": lambda d: d.update(
                suggestions=["allow /r/a"]),
            "suggestion without covers": lambda d: d["suggestions"][0].pop(
                "covers"),
            "unknown severity": lambda d: d["files"]["added"][0].update(
                severity="info"),
            "no by_severity": lambda d: d.pop("by_severity"),
            "missing top-level key": lambda d: d.pop("expected"),
            "new command key": lambda d: d["command"].update(pid=1),
            "exit_code as string": lambda d: d["command"].update(
                exit_code="0"),
            "both exit_code and signal": lambda d: d["command"].update(
                signal=9),
            "new trace key": lambda d: d["trace"].update(dropped=0),
            "file finding without path": lambda d: d["files"]["added"][0]
            .pop("path"),
            "file finding without allowed": lambda d: d["files"]["added"][0]
            .pop("allowed"),
            "allowed as string": lambda d: d["files"]["added"][0].update(
                allowed="no"),
            "relative path": lambda d: d["files"]["added"][0].update(
                path="r/a"),
            "bad path_b64": lambda d: d["files"]["transient"][0].update(
                path_b64="***"),
            "unknown change": lambda d: d["files"]["changed"][0].update(
                changes=["size"]),
            "added with before": lambda d: d["files"]["added"][0].update(
                before=self.ENTRY),
            "unknown file list": lambda d: d["files"].update(weird=[]),
            "process of no row without argv": lambda d: d["processes"]
            ["leftover"][0].update(proc=None) or d["processes"]["leftover"]
            [0].pop("argv"),
            "process without ppid": lambda d: d["processes"]["executed"][0]
            .pop("ppid"),
            "short-lived without status": lambda d: d["processes"]
            ["short_lived"][0].pop("exit_code"),
            "exec without creds": lambda d: d["processes"]["executed"][0]
            .pop("creds"),
            "creds without euid": lambda d: d["processes"]["privileged"][0]
            ["creds"].pop("euid"),
            "capability not a name": lambda d: d["processes"]["privileged"]
            [0]["creds"].update(cap_eff=[1]),
            "privileged without rose": lambda d: d["processes"]
            ["privileged"][0].update(rose=[]),
            "unknown rise": lambda d: d["processes"]["privileged"][0]
            .update(rose=["root"]),
            "missing privileged list": lambda d: d["processes"].pop(
                "privileged"),
            "net without port": lambda d: d["network"]["bound"][0].pop(
                "port"),
            "net port out of range": lambda d: d["network"]["bound"][0]
            .update(port=70000),
            "net unknown protocol": lambda d: d["network"]["bound"][0]
            .update(protocol="sctp"),
            "forbidden but allowed": lambda d: d["files"]["changed"][0]
            .update(allowed=True),
            "ok with reasons": lambda d: d.update(ok=True),
            "sha256 on a directory": lambda d: d["files"]["added"][0]
            ["after"].update(type="d"),
            "unexpected suggestion": lambda d: d["suggestions"].append(
                {"rule": "permit /x", "covers": 1}),
            "extra key on a file finding": lambda d: d["files"]["added"][0]
            .update(size=1),
            "extra key on an actor": lambda d: d["files"]["added"][0]["by"]
            .update(uid=0),
            "extra key on an entry": lambda d: d["files"]["added"][0]
            ["after"].update(mtime_ns=1),
            "extra key on a process": lambda d: d["processes"]["leftover"][0]
            .update(cgroup="/x"),
            "extra key on a network finding": lambda d: d["network"]
            ["bound"][0].update(inode=1),
            "transient with explained": lambda d: d["files"]["transient"][0]
            .update(explained=True),
            "symlink without target": lambda d: d["files"]["added"][0]
            ["after"].update(type="l"),
        }
        for what, fn in drifts.items():
            with self.subTest(what):
                self.assertTrue(self.errors(m(fn)),
                                "the schema accepts: " + what)


if __name__ == "__main__":
    unittest.main()
