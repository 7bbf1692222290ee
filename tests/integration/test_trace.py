"""Integration tests: trace real commands with the real BPF programs.

Each test runs `footprint run --events FILE -- CMD` on fpprobe (one syscall
per run, see fpprobe.c) or a small system command, and checks the events
field by field against docs/events.md. Every run is also checked for what
must always hold (fptest.TraceCase.check_run): one JSON object per line,
stats last with lost == 0 and complete, no event from footprint itself.

The verdict is kept out of the way (fptest.run: an empty watched root and
a policy that allows everything), so footprint exits 0 when the command
exits 0 and 1 when it does not (README, Exit status).

Run: FOOTPRINT=build/footprint FOOTPRINT_TEST_BIN=build/tests \
     python3 -m unittest discover -s tests/integration -p 'test_*.py'
"""

import base64
import os
import socket
import subprocess
import unittest

import fptest
from fptest import FPPROBE

O_WRONLY = 0o1
O_CREAT = 0o100
O_TRUNC = 0o1000
O_DIRECTORY = 0o200000
O_CLOEXEC = 0o2000000
AT_REMOVEDIR = 0x200
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
RESOLVE_NO_SYMLINKS = 0x04

# a PATH that makes execvp's choice of filename predictable
SYSTEM_PATH = "/usr/bin:/bin"


def own_cgroup_id():
    """The cgroup v2 id of this process: its directory's inode number."""
    try:
        path = fptest.cgroup_of()
        return os.stat(path).st_ino if path else None
    except OSError:
        return None


def write_file(path, data=b""):
    with open(path, "wb") as f:
        f.write(data)


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


class ProcessTest(fptest.TraceCase):
    """exec, fork and exit."""

    def test_exec_short_lived(self):
        env = dict(os.environ, PATH=SYSTEM_PATH)
        r = self.trace(["sleep", "0.001"], env=env)
        ex = self.one(r.of(type="exec"), "exec")
        pid = ex["pid"]
        self.assert_common(ex, pid, r.pid, comm="sleep")
        self.assertEqual(ex["exe"], "/usr/bin/sleep")
        self.assertNotIn("exe_truncated", ex)
        self.assertEqual(ex["filename"], "/usr/bin/sleep")
        self.assertEqual(ex["argv"], ["sleep", "0.001"])
        self.assertNotIn("argv_b64", ex)
        self.assertEqual(ex["argv_bytes"], len(b"sleep\0" b"0.001\0"))
        self.assertEqual(ex["argv_dropped"], 0)
        self.assertNotIn("old_pid", ex)

        end = self.one(r.of(type="exit"), "exit")
        self.assert_common(end, pid, r.pid, comm="sleep")
        self.assertEqual(end["exit_code"], 0)
        self.assertNotIn("signal", end)
        self.assertNotIn("signal_name", end)
        self.assertEqual(r.stats["argv_incomplete"], 0)

        # one process, in one cgroup that is not ours; exec first, exit last
        self.assertEqual({ev["pid"] for ev in r.events}, {pid})
        self.assertEqual(r.of(type="fork"), [])
        self.assertEqual(len({ev["cgroup_id"] for ev in r.events}), 1)
        mine = own_cgroup_id()
        if mine is not None:
            self.assertNotEqual(ex["cgroup_id"], mine)
        ts = sorted(r.events, key=lambda ev: ev["ts_ns"])
        self.assertIs(ts[0], ex)
        self.assertIs(ts[-1], end)
        # the dynamic loader's opens are there, attributed to sleep
        libc = [ev for ev in r.of(type="open", pid=pid, ok=True)
                if "/libc.so" in ev["path"]]
        self.assertTrue(libc, "no open of libc by sleep")

    def test_exec_script(self):
        script = self.path("hello.sh")
        write_file(script, b"#!/bin/sh\nexit 5\n")
        os.chmod(script, 0o755)
        r = self.trace([script, "one", "two words"], rc=fptest.EXIT_VERDICT)
        ex = self.one(r.of(type="exec"), "exec")
        pid = ex["pid"]
        # comm is the script's name; exe is what /proc/PID/exe shows
        self.assert_common(ex, pid, r.pid, comm="hello.sh")
        self.assertEqual(ex["exe"], os.path.realpath("/bin/sh"))
        self.assertEqual(ex["filename"], script)
        argv = ["/bin/sh", script, "one", "two words"]
        self.assertEqual(ex["argv"], argv)
        self.assertEqual(ex["argv_bytes"],
                         sum(len(a.encode()) + 1 for a in argv))
        self.assertEqual(ex["argv_dropped"], 0)
        end = self.one(r.of(type="exit"), "exit")
        self.assert_common(end, pid, r.pid, comm="hello.sh")
        self.assertEqual(end["exit_code"], 5)

    def test_exec_from_deep_directory(self):
        deep = self.deep_dir(3900)
        exe = os.path.join(deep, "fpprobe")
        with open(FPPROBE, "rb") as src, open(exe, "wb") as dst:
            dst.write(src.read())
        os.chmod(exe, 0o755)
        r = self.trace([exe, "exit", "0"])
        ex = self.one(r.of(type="exec"), "exec")
        self.assertEqual(ex["filename"], exe)
        self.assertEqual(
            (len(ex["exe"]), ex.get("exe_truncated", False)),
            (len(exe), False), "exe of %d bytes (%s...) for %d (%s...)" %
            (len(ex["exe"]), ex["exe"][:40], len(exe), exe[:40]))
        self.assertEqual(ex["exe"], exe)

    def test_fork_without_exec(self):
        target = self.path("from-child")
        r = self.probe("fork-noexec", target)
        out = r.probe()
        parent, child = out["pid"], out["child"]
        self.assertNotEqual(parent, child)

        fork = self.one(r.of(type="fork"), "fork")
        self.assertEqual(fork["pid"], child)
        self.assertEqual(fork["tid"], child)
        self.assertEqual(fork["ppid"], parent)
        self.assertEqual(fork["parent_tid"], parent)
        self.assertEqual(fork["comm"], "fpprobe")
        self.assertEqual(fork["uid"], os.getuid())
        self.assertEqual(fork["gid"], os.getgid())

        ev = self.one(r.with_path(target, type="open"), "open of target")
        self.assert_common(ev, child, parent)
        self.assertEqual(ev["syscall"], "open")
        self.assertEqual(ev["flags"], O_WRONLY | O_CREAT)
        self.assertIs(ev["ok"], True)

        cexit = self.one(r.of(type="exit", pid=child), "child exit")
        self.assert_common(cexit, child, parent)
        self.assertEqual(cexit["exit_code"], 7)
        self.assertNotIn("signal", cexit)
        pexit = self.one(r.of(type="exit", pid=parent), "parent exit")
        self.assert_common(pexit, parent, r.pid)
        self.assertEqual(pexit["exit_code"], 0)

        # the child never exec'd: only the parent has an exec event
        self.one(r.of(type="exec", pid=parent), "parent exec")
        self.assertEqual(r.of(type="exec", pid=child), [])
        self.assertEqual({e["pid"] for e in r.events}, {parent, child})
        self.assertLess(fork["ts_ns"], ev["ts_ns"])
        self.assertLess(ev["ts_ns"], cexit["ts_ns"])
        self.assertLess(cexit["ts_ns"], pexit["ts_ns"])

    def test_thread_outlives_leader(self):
        target = self.path("from-thread")
        r = self.probe("thread-exit", target, rc=fptest.EXIT_VERDICT)
        out = r.probe()
        pid, tid = out["pid"], out["tid"]
        self.assertNotEqual(pid, tid)
        # a thread is not a process: no fork event
        self.assertEqual(r.of(type="fork"), [])
        ev = self.one(r.with_path(target, type="open"), "open by the thread")
        self.assertEqual((ev["pid"], ev["tid"], ev["ppid"]),
                         (pid, tid, r.pid))
        # one exit, when the last thread ends, with the group's status
        end = self.one(r.of(type="exit"), "exit")
        self.assertEqual((end["pid"], end["ppid"]), (pid, r.pid))
        self.assertEqual(end["exit_code"], 4)
        self.assertNotIn("signal", end)

    def test_exec_from_thread(self):
        r = self.probe("thread-exec")
        lines = [fptest.parse_probe(line.encode())
                 for line in r.stdout.decode().splitlines()]
        self.assertEqual(len(lines), 2, r.stdout)
        pid, tid = lines[0]["pid"], lines[0]["tid"]
        self.assertNotEqual(pid, tid)
        self.assertEqual(lines[1], {"pid": pid})
        execs = sorted(r.of(type="exec"), key=lambda ev: ev["ts_ns"])
        self.assertEqual(len(execs), 2, execs)
        first, second = execs
        self.assertEqual((first["pid"], first["tid"]), (pid, pid))
        self.assertNotIn("old_pid", first)
        # the thread took over the process: the tid is the pid again
        self.assertEqual((second["pid"], second["tid"]), (pid, pid))
        self.assertEqual(second["old_pid"], tid)
        self.assertEqual(second["argv"], ["fpprobe", "exit", "0"])
        self.assertEqual(second["filename"], "/proc/self/exe")
        self.assertEqual(second["exe"], FPPROBE)
        self.assertEqual(r.of(type="fork"), [])
        end = self.one(r.of(type="exit"), "exit")
        self.assertEqual((end["pid"], end["tid"]), (pid, pid))
        self.assertEqual(end["exit_code"], 0)

    def test_exit_code(self):
        # footprint's verdict fails for a non-zero exit (README, Exit status)
        r = self.probe("exit", "3", rc=fptest.EXIT_VERDICT)
        pid = r.probe()["pid"]
        end = self.one(r.of(type="exit"), "exit")
        self.assert_common(end, pid, r.pid)
        self.assertEqual(end["exit_code"], 3)
        self.assertNotIn("signal", end)
        self.assertNotIn("signal_name", end)
        self.assertNotIn("core_dumped", end)

    def test_killed_by_sigkill(self):
        r = self.probe("kill-self", "9", rc=fptest.EXIT_VERDICT)
        pid = r.probe()["pid"]
        end = self.one(r.of(type="exit"), "exit")
        self.assert_common(end, pid, r.pid)
        self.assertEqual(end["signal"], 9)
        self.assertEqual(end["signal_name"], "KILL")
        self.assertIs(end["core_dumped"], False)
        self.assertNotIn("exit_code", end)

    def test_killed_by_sigterm(self):
        r = self.probe("kill-self", "15", rc=fptest.EXIT_VERDICT)
        pid = r.probe()["pid"]
        end = self.one(r.of(type="exit"), "exit")
        self.assert_common(end, pid, r.pid)
        self.assertEqual(end["signal"], 15)
        self.assertEqual(end["signal_name"], "TERM")
        self.assertIs(end["core_dumped"], False)
        self.assertNotIn("exit_code", end)

    def test_uid_gid(self):
        os.chmod(self.dir, 0o777)
        target = self.path("as-nobody")
        r = self.trace(["setpriv", "--reuid=65534", "--regid=65534",
                        "--clear-groups", FPPROBE, "open", target])
        pid = r.probe()["pid"]
        ev = self.one(r.with_path(target, type="open"), "open")
        self.assertEqual(ev["pid"], pid)
        self.assertEqual(ev["ppid"], r.pid)
        self.assertEqual(ev["uid"], 65534)
        self.assertEqual(ev["gid"], 65534)
        self.assertIs(ev["ok"], True)
        execs = r.of(type="exec", pid=pid)
        self.assertEqual([e["comm"] for e in execs], ["setpriv", "fpprobe"])
        self.assertEqual([(e["uid"], e["gid"]) for e in execs],
                         [(0, 0), (65534, 65534)])
        self.assertEqual(execs[1]["exe"], FPPROBE)


class OpenTest(fptest.TraceCase):
    """open, openat, openat2, creat."""

    def assert_open(self, ev, syscall, flags, flags_text, mode, fd,
                    created=True):
        self.assertEqual(ev["syscall"], syscall)
        self.assertIs(ev["created"], created, ev)
        self.assertEqual(ev["flags"], flags)
        self.assertEqual(ev["flags_text"], flags_text)
        # octal digits: a decimal would hide the set-ID bits
        self.assertEqual(ev["mode"], "%04o" % mode)
        self.assertEqual(ev["ret"], fd)
        self.assertIs(ev["ok"], True)
        self.assertNotIn("errno", ev)
        self.assertNotIn("path_truncated", ev)
        self.assertNotIn("path_base_unknown", ev)
        self.assertNotIn("path_b64", ev)

    def test_open_relative_after_chdir(self):
        sub = self.path("sub")
        os.mkdir(sub)
        # footprint runs in /, the process chdirs elsewhere first
        r = self.probe("chdir-open", sub, "new.txt", cwd="/")
        out = r.probe()
        want = os.path.join(sub, "new.txt")
        ev = self.one(r.with_path(want, type="open"), "open")
        self.assert_common(ev, out["pid"], r.pid)
        self.assert_open(ev, "open", O_WRONLY | O_CREAT, "O_WRONLY|O_CREAT",
                         0o644, out["fd"])
        self.assertNotIn("path_dirfd", ev)
        self.assertTrue(os.path.exists(want))

    def test_open_existing_with_o_creat(self):
        want = self.path("exists")
        write_file(want, b"keep")
        r = self.probe("open", want)
        out = r.probe()
        ev = self.one(r.with_path(want, type="open"), "open")
        self.assert_common(ev, out["pid"], r.pid)
        self.assert_open(ev, "open", O_WRONLY | O_CREAT, "O_WRONLY|O_CREAT",
                         0o644, out["fd"], created=False)
        self.assertEqual(read_file(want), b"keep")

    def test_open_relative_dotdot(self):
        sub = self.path("a", "b")
        os.makedirs(sub)
        os.mkdir(self.path("c"))
        r = self.probe("chdir-open", sub, "..//../c/./x.txt", cwd="/")
        out = r.probe()
        want = self.path("c", "x.txt")
        self.assertTrue(os.path.exists(want))
        ev = self.one(r.with_path(want, type="open"), "open")
        self.assert_common(ev, out["pid"], r.pid)
        self.assert_open(ev, "open", O_WRONLY | O_CREAT, "O_WRONLY|O_CREAT",
                         0o644, out["fd"])

    def test_open_relative_to_inherited_cwd(self):
        r = self.probe("open", "rel.txt", cwd=self.dir)
        out = r.probe()
        want = self.path("rel.txt")
        ev = self.one(r.with_path(want, type="open"), "open")
        self.assert_common(ev, out["pid"], r.pid)
        self.assert_open(ev, "open", O_WRONLY | O_CREAT, "O_WRONLY|O_CREAT",
                         0o644, out["fd"])
        self.assertNotIn("path_dirfd", ev)

    def test_open_relative_at_root(self):
        # the walk of "/" itself yields no names
        rel = os.path.relpath(self.path("at-root"), "/")
        r = self.probe("chdir-open", "/", rel)
        out = r.probe()
        ev = self.one(r.with_path(self.path("at-root"), type="open"), "open")
        self.assert_common(ev, out["pid"], r.pid)
        self.assert_open(ev, "open", O_WRONLY | O_CREAT, "O_WRONLY|O_CREAT",
                         0o644, out["fd"])

    def test_open_in_deep_directory(self):
        # 3900 + len("/f") is well below PATH_MAX: nothing may be cut
        deep = self.deep_dir(3900)
        r = self.probe("chdir-open", deep, "f", cwd="/")
        out = r.probe()
        ev = self.one(r.of(type="open", syscall="open", pid=out["pid"]),
                      "open")
        want = deep + "/f"
        self.assertEqual(
            (len(ev["path"]), ev.get("path_truncated", False)),
            (len(want), False), "path of %d bytes (%s...) for %d (%s...)" %
            (len(ev["path"]), ev["path"][:40], len(want), want[:40]))
        self.assertEqual(ev["path"], want)
        self.assertEqual(ev["ret"], out["fd"])

    def test_open_path_too_long(self):
        # a string of PATH_MAX bytes or more: ENAMETOOLONG, flagged as cut
        long_name = "/" + "x/" * 2100
        r = self.probe("open", long_name, rc=fptest.EXIT_VERDICT)
        evs = [ev for ev in r.of(type="open", syscall="open")
               if ev["path"].startswith("/x/x/")]
        ev = self.one(evs, "open of the long path")
        self.assertIs(ev["path_truncated"], True)
        self.assertEqual(ev["ret"], -36)
        self.assertEqual(ev["errno"], "ENAMETOOLONG")
        self.assertIs(ev["ok"], False)

    def test_open_symlinked_cwd(self):
        os.mkdir(self.path("real"))
        os.symlink("real", self.path("link"))
        r = self.probe("chdir-open", self.path("link"), "f", cwd="/")
        out = r.probe()
        # the kernel's cwd is the directory, not the link's name
        ev = self.one(r.of(type="open", syscall="open", pid=out["pid"]),
                      "open")
        self.assertEqual(ev["path"], self.path("real", "f"))

    def mount(self, target, *args):
        os.makedirs(target, exist_ok=True)
        p = subprocess.run(["mount"] + list(args) + [target],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            self.skipTest("cannot mount here: %r" % p.stdout)
        self.addCleanup(subprocess.run, ["umount", "-l", target])

    def test_open_across_bind_mount(self):
        os.makedirs(self.path("store", "sub"))
        self.mount(self.path("view"), "--bind", self.path("store"))
        r = self.probe("chdir-open", self.path("view", "sub"), "f", cwd="/")
        out = r.probe()
        # the path the process used: through the mount, not its source
        ev = self.one(r.of(type="open", syscall="open", pid=out["pid"]),
                      "open")
        self.assertEqual(ev["path"], self.path("view", "sub", "f"))
        self.assertTrue(os.path.exists(self.path("store", "sub", "f")))

    def test_openat_mount_root(self):
        self.mount(self.path("t"), "-t", "tmpfs", "fpit")
        r = self.probe("openat", self.path("t"), "g", cwd="/")
        out = r.probe()
        ev = self.one(r.of(type="open", path_dirfd=out["dirfd"],
                           pid=out["pid"]), "openat")
        self.assertEqual(ev["path"], self.path("t", "g"))
        self.assertEqual(ev["path_dirfd"], out["dirfd"])

    def test_openat_dirfd(self):
        d = self.path("dir")
        os.mkdir(d)
        r = self.probe("openat", d, "f.txt", cwd="/")
        out = r.probe()
        want = os.path.join(d, "f.txt")
        ev = self.one(r.with_path(want, type="open"), "openat")
        self.assert_common(ev, out["pid"], r.pid)
        self.assert_open(ev, "openat", O_WRONLY | O_CREAT,
                         "O_WRONLY|O_CREAT", 0o600, out["fd"])
        self.assertEqual(ev["path_dirfd"], out["dirfd"])
        self.assertTrue(os.path.exists(want))
        # the directory itself, opened by libc relative to AT_FDCWD
        dev = self.one(r.with_path(d, type="open", pid=out["pid"]),
                       "open of the directory")
        self.assert_open(dev, "openat", O_DIRECTORY | O_CLOEXEC,
                         "O_RDONLY|O_DIRECTORY|O_CLOEXEC", 0, out["dirfd"],
                         created=False)
        self.assertNotIn("path_dirfd", dev)

    def test_openat_bad_dirfd(self):
        r = self.probe("openat-badfd", "nowhere.txt", cwd=self.dir)
        out = r.probe()
        evs = [ev for ev in r.of(type="open", syscall="openat",
                                 pid=out["pid"])
               if ev.get("path_dirfd") == out["dirfd"]]
        ev = self.one(evs, "openat with the bad dirfd")
        self.assert_common(ev, out["pid"], r.pid)
        self.assertIs(ev["path_base_unknown"], True)
        # without the directory, the path stays as given: relative
        self.assertEqual(ev["path"], "nowhere.txt", ev)
        self.assertEqual(ev["ret"], -9)
        self.assertIs(ev["ok"], False)
        self.assertEqual(ev["errno"], "EBADF")
        self.assertIs(ev["created"], False)

    def test_openat2(self):
        d = self.path("dir2")
        os.mkdir(d)
        r = self.probe("openat2", d, "g.txt", cwd="/")
        out = r.probe()
        want = os.path.join(d, "g.txt")
        ev = self.one(r.with_path(want, type="open"), "openat2")
        self.assert_common(ev, out["pid"], r.pid)
        self.assert_open(ev, "openat2", O_WRONLY | O_CREAT,
                         "O_WRONLY|O_CREAT", 0o600, out["fd"])
        self.assertEqual(ev["path_dirfd"], out["dirfd"])
        self.assertEqual(ev["resolve"], RESOLVE_NO_SYMLINKS)

    def test_creat(self):
        want = self.path("made-by-creat")
        r = self.probe("creat", want)
        out = r.probe()
        ev = self.one(r.with_path(want, type="open"), "creat")
        self.assert_common(ev, out["pid"], r.pid)
        self.assert_open(ev, "creat", O_WRONLY | O_CREAT | O_TRUNC,
                         "O_WRONLY|O_CREAT|O_TRUNC", 0o644, out["fd"])
        self.assertNotIn("resolve", ev)

    def test_open_missing(self):
        want = self.path("no", "such", "file")
        r = self.probe("open-missing", want)
        out = r.probe()
        ev = self.one(r.with_path(want, type="open"), "failed open")
        self.assert_common(ev, out["pid"], r.pid)
        self.assertEqual(ev["syscall"], "open")
        self.assertEqual(ev["flags"], 0)
        self.assertEqual(ev["flags_text"], "O_RDONLY")
        self.assertEqual(ev["mode"], "0000")
        self.assertEqual(ev["ret"], -2)
        self.assertIs(ev["ok"], False)
        self.assertEqual(ev["errno"], "ENOENT")
        self.assertIs(ev["created"], False)


class UnlinkRenameTest(fptest.TraceCase):
    """unlink, unlinkat, rename, renameat2."""

    def assert_ok(self, ev):
        self.assertEqual(ev["ret"], 0)
        self.assertIs(ev["ok"], True)
        self.assertNotIn("errno", ev)

    def test_unlink(self):
        victim = self.path("victim")
        write_file(victim)
        r = self.probe("unlink", victim, cwd="/")
        out = r.probe()
        ev = self.one(r.with_path(victim, type="unlink"), "unlink")
        self.assert_common(ev, out["pid"], r.pid)
        self.assertEqual(ev["syscall"], "unlink")
        self.assertEqual(ev["flags"], 0)
        self.assertEqual(ev["flags_text"], "")
        self.assertNotIn("path_dirfd", ev)
        self.assert_ok(ev)
        self.assertFalse(os.path.exists(victim))

    def test_unlinkat(self):
        d = self.path("ud")
        os.mkdir(d)
        write_file(os.path.join(d, "f"))
        r = self.probe("unlinkat", d, "f", cwd="/")
        out = r.probe()
        ev = self.one(r.with_path(os.path.join(d, "f"), type="unlink"),
                      "unlinkat")
        self.assert_common(ev, out["pid"], r.pid)
        self.assertEqual(ev["syscall"], "unlinkat")
        self.assertEqual(ev["path_dirfd"], out["dirfd"])
        self.assertEqual(ev["flags"], 0)
        self.assertEqual(ev["flags_text"], "")
        self.assert_ok(ev)

    def test_unlinkat_removedir(self):
        d = self.path("ud")
        os.makedirs(os.path.join(d, "empty"))
        r = self.probe("unlinkat", d, "empty", "rmdir", cwd="/")
        out = r.probe()
        ev = self.one(r.with_path(os.path.join(d, "empty"), type="unlink"),
                      "unlinkat(AT_REMOVEDIR)")
        self.assert_common(ev, out["pid"], r.pid)
        self.assertEqual(ev["syscall"], "unlinkat")
        self.assertEqual(ev["path_dirfd"], out["dirfd"])
        self.assertEqual(ev["flags"], AT_REMOVEDIR)
        self.assertEqual(ev["flags_text"], "AT_REMOVEDIR")
        self.assert_ok(ev)
        self.assertFalse(os.path.exists(os.path.join(d, "empty")))

    def test_rename_relative(self):
        write_file(self.path("old"), b"x")
        r = self.probe("rename", "old", "new", cwd=self.dir)
        out = r.probe()
        ev = self.one(r.of(type="rename"), "rename")
        self.assert_common(ev, out["pid"], r.pid)
        self.assertEqual(ev["syscall"], "rename")
        self.assertEqual(ev["old_path"], self.path("old"))
        self.assertEqual(ev["new_path"], self.path("new"))
        self.assertNotIn("old_path_dirfd", ev)
        self.assertNotIn("new_path_dirfd", ev)
        self.assertEqual(ev["flags"], 0)
        self.assertEqual(ev["flags_text"], "")
        self.assert_ok(ev)
        self.assertEqual(read_file(self.path("new")), b"x")

    def test_renameat2_exchange(self):
        d = self.path("xd")
        os.mkdir(d)
        write_file(os.path.join(d, "x"), b"X")
        write_file(os.path.join(d, "y"), b"Y")
        r = self.probe("renameat2", d, "x", "y", "exchange", cwd="/")
        out = r.probe()
        ev = self.one(r.of(type="rename"), "renameat2")
        self.assert_common(ev, out["pid"], r.pid)
        self.assertEqual(ev["syscall"], "renameat2")
        self.assertEqual(ev["old_path"], os.path.join(d, "x"))
        self.assertEqual(ev["new_path"], os.path.join(d, "y"))
        self.assertEqual(ev["old_path_dirfd"], out["dirfd"])
        self.assertEqual(ev["new_path_dirfd"], out["dirfd"])
        self.assertEqual(ev["flags"], RENAME_EXCHANGE)
        self.assertEqual(ev["flags_text"], "RENAME_EXCHANGE")
        self.assert_ok(ev)
        self.assertEqual(read_file(os.path.join(d, "x")), b"Y")

    def test_renameat2_noreplace(self):
        d = self.path("nd")
        os.mkdir(d)
        write_file(os.path.join(d, "a"))
        r = self.probe("renameat2", d, "a", "b", "noreplace", cwd="/")
        out = r.probe()
        ev = self.one(r.of(type="rename"), "renameat2")
        self.assert_common(ev, out["pid"], r.pid)
        self.assertEqual(ev["syscall"], "renameat2")
        self.assertEqual(ev["old_path"], os.path.join(d, "a"))
        self.assertEqual(ev["new_path"], os.path.join(d, "b"))
        self.assertEqual(ev["flags"], RENAME_NOREPLACE)
        self.assertEqual(ev["flags_text"], "RENAME_NOREPLACE")
        self.assert_ok(ev)

    def test_renameat2_noreplace_fails(self):
        d = self.path("nd")
        os.mkdir(d)
        write_file(os.path.join(d, "a"))
        write_file(os.path.join(d, "b"))
        r = self.probe("renameat2", d, "a", "b", "noreplace", cwd="/",
                       rc=fptest.EXIT_VERDICT)
        ev = self.one(r.of(type="rename"), "renameat2")
        self.assertEqual(ev["syscall"], "renameat2")
        self.assertEqual(ev["old_path"], os.path.join(d, "a"))
        self.assertEqual(ev["new_path"], os.path.join(d, "b"))
        self.assertIn("old_path_dirfd", ev)
        self.assertEqual(ev["old_path_dirfd"], ev.get("new_path_dirfd"))
        self.assertEqual(ev["flags"], RENAME_NOREPLACE)
        self.assertEqual(ev["flags_text"], "RENAME_NOREPLACE")
        self.assertEqual(ev["ret"], -17)
        self.assertIs(ev["ok"], False)
        self.assertEqual(ev["errno"], "EEXIST")


class BindTest(fptest.TraceCase):

    def assert_bind(self, r, family, address, port):
        out = r.probe()
        ev = self.one(r.of(type="bind"), "bind")
        self.assert_common(ev, out["pid"], r.pid)
        self.assertEqual(ev["fd"], out["fd"])
        self.assertEqual(ev["family"], family)
        self.assertEqual(ev["address"], address)
        self.assertEqual(ev["port"], port)
        self.assertEqual(ev["sock_type"], "stream")
        self.assertEqual(ev["protocol"], "tcp")
        self.assertNotIn("abstract", ev)
        return out, ev

    def test_bind_inet_port0(self):
        r = self.probe("bind4", "127.0.0.1", "0")
        out, ev = self.assert_bind(r, "inet", "127.0.0.1", 0)
        self.assertNotEqual(out["port"], 0)
        self.assertEqual(ev["bound_port"], out["port"])
        self.assertEqual(ev["ret"], 0)
        self.assertIs(ev["ok"], True)
        self.assertNotIn("errno", ev)

    def test_bind_inet6_port0(self):
        if not socket.has_ipv6:
            self.skipTest("no IPv6")
        r = self.probe("bind6", "::1", "0", rc=None)
        if r.rc != 0 and b"EADDRNOTAVAIL" in r.stderr:
            self.skipTest("no ::1 here")
        self.assertEqual(r.rc, 0, r.describe())
        out, ev = self.assert_bind(r, "inet6", "::1", 0)
        self.assertNotEqual(out["port"], 0)
        self.assertEqual(ev["bound_port"], out["port"])
        self.assertEqual(ev["ret"], 0)
        self.assertIs(ev["ok"], True)

    def assert_unix(self, r, address, abstract):
        out = r.probe()
        ev = self.one(r.of(type="bind"), "bind")
        self.assert_common(ev, out["pid"], r.pid)
        self.assertEqual(ev["fd"], out["fd"])
        self.assertEqual(ev["family"], "unix")
        self.assertEqual(ev["address"], address)
        if abstract:
            self.assertIs(ev["abstract"], True)
        else:
            self.assertNotIn("abstract", ev)
        self.assertEqual(ev["sock_type"], "stream")
        self.assertEqual(ev["protocol"], 0)
        self.assertNotIn("port", ev)
        self.assertNotIn("bound_port", ev)
        self.assertEqual(ev["ret"], 0)
        self.assertIs(ev["ok"], True)

    def test_bind_unix_path(self):
        sock = self.path("sock")
        r = self.probe("bind-unix", sock)
        self.assert_unix(r, sock, abstract=False)

    def test_bind_unix_relative_name(self):
        # bind(2) with sun_path "sock": the event names the socket file
        # the kernel made, as an absolute path (its cwd + the name)
        os.mkdir(self.path("d"))
        r = self.probe("bind-unix", "sock", cwd=self.path("d"))
        self.assert_unix(r, self.path("d", "sock"), abstract=False)

    def test_bind_unix_abstract(self):
        name = "fpit-%d-abstract" % os.getpid()
        r = self.probe("bind-abstract", name)
        self.assert_unix(r, name, abstract=True)

    def test_bind_in_use(self):
        held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.addCleanup(held.close)
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        r = self.probe("bind4", "127.0.0.1", str(port),
                       rc=fptest.EXIT_VERDICT)
        out, ev = self.assert_bind(r, "inet", "127.0.0.1", port)
        self.assertEqual(out["errno"], "EADDRINUSE")
        self.assertEqual(ev["bound_port"], 0)
        self.assertEqual(ev["ret"], -98)
        self.assertIs(ev["ok"], False)
        self.assertEqual(ev["errno"], "EADDRINUSE")


class CgroupTest(fptest.TraceCase):

    def test_outside_process_not_traced(self):
        noise = self.path("busy-noise-outside")
        busy = subprocess.Popen([FPPROBE, "busy", "0", noise],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)

        def stop():
            if busy.poll() is None:
                busy.kill()
            busy.wait()
            busy.stdout.close()
        self.addCleanup(stop)
        self.assertTrue(busy.stdout.readline().startswith(b"pid="))
        inside = self.path("inside")
        r = self.trace(["sh", "-c", 'sleep 0.3; : > "$0"', inside])
        self.assertIsNone(busy.poll(), "the noise process died")
        self.assertEqual([ev for ev in r.events if ev["pid"] == busy.pid],
                         [])
        self.assertEqual([ev for ev in r.events
                          if "busy-noise" in str(ev)], [])
        # the run itself was traced
        ev = self.one(r.with_path(inside, type="open"), "open by sh")
        self.assertEqual(ev["comm"], "sh")

    def run_in_sub_cgroup(self, target):
        """Trace a shell that moves itself into a new cgroup below the
        run's, then execs `fpprobe open TARGET` there."""
        mnt = fptest.cgroup2_mount()
        if mnt is None:
            self.skipTest("no cgroup v2 hierarchy")
        script = (
            'cg="$0$(sed -n "s/^0:://p" /proc/self/cgroup)"; '
            'mkdir "$cg/sub" && echo $$ > "$cg/sub/cgroup.procs" && '
            'echo "run=$cg sub_id=$(stat -c %i "$cg/sub")" && '
            'exec "$1" open "$2"')
        r = fptest.run(["sh", "-c", script, mnt, FPPROBE, target])
        info = dict(tok.split("=", 1) for line in
                    r.stdout.decode().splitlines() if line.startswith("run=")
                    for tok in line.split())
        run_cg = info.get("run")

        def cleanup():
            for d in (os.path.join(run_cg, "sub"), run_cg):
                if os.path.isdir(d):
                    os.rmdir(d)
        if run_cg:
            self.addCleanup(cleanup)
        self.assertEqual(r.rc, 0, r.describe())
        self.check_run(r)
        return r, int(info["sub_id"]), run_cg

    def test_nested_cgroup_traced(self):
        target = self.path("in-sub-cgroup")
        r, sub_id, _ = self.run_in_sub_cgroup(target)
        pid = r.probe()["pid"]
        # the exec happened in the sub-cgroup: it and the open are traced
        ev = self.one(r.with_path(target, type="open"), "open")
        self.assertEqual(ev["pid"], pid)
        self.assertEqual(ev["cgroup_id"], sub_id)
        ex = [e for e in r.of(type="exec", pid=pid) if e["comm"] == "fpprobe"]
        self.assertEqual(self.one(ex, "exec")["cgroup_id"], sub_id)
        sh_exec = [e for e in r.of(type="exec", pid=pid) if e["comm"] == "sh"]
        self.assertNotEqual(self.one(sh_exec, "sh exec")["cgroup_id"],
                            sub_id)
        end = self.one(r.of(type="exit", pid=pid), "exit")
        self.assertEqual(end["cgroup_id"], sub_id)

    def test_run_cgroup_removed_with_nested_cgroup(self):
        _, _, run_cg = self.run_in_sub_cgroup(self.path("x"))
        self.assertFalse(os.path.exists(run_cg),
                         "footprint left its cgroup %s behind: %r" %
                         (run_cg, os.listdir(run_cg)
                          if os.path.isdir(run_cg) else None))

    def test_many_events_all_counted(self):
        noise = self.path("busy-inside")
        r = self.probe("busy", "500", noise)
        pid = r.probe()["pid"]
        opens = r.with_path(noise, type="open", pid=pid)
        unlinks = r.with_path(noise, type="unlink", pid=pid)
        self.assertEqual(len(opens), 500)
        self.assertEqual(len(unlinks), 500)
        self.assertTrue(all(ev["ok"] for ev in opens + unlinks))
        # each open comes before its unlink
        seq = [ev["type"] for ev in sorted(opens + unlinks,
                                           key=lambda ev: ev["ts_ns"])]
        self.assertEqual(seq, ["open", "unlink"] * 500)


class ArgvTest(fptest.TraceCase):

    def exec_of(self, r):
        pid = r.probe()["pid"]
        return self.one(r.of(type="exec", pid=pid), "exec")

    def test_argv_200_args(self):
        args = ["arg-%03d" % i for i in range(200)]
        args[17] = ""
        args[42] = "with space"
        args[99] = "tab\tand \"quote\" and \\ and \u00e9"
        argv = [FPPROBE, "exit", "0"] + args
        r = self.probe(*argv[1:])
        ex = self.exec_of(r)
        self.assertEqual(ex["argv"], argv)
        self.assertNotIn("argv_b64", ex)
        self.assertEqual(ex["argv_bytes"],
                         sum(len(a.encode()) + 1 for a in argv))
        self.assertEqual(ex["argv_dropped"], 0)
        self.assertEqual(r.stats["argv_incomplete"], 0)

    def big_arg(self, n):
        return "".join(chr(ord("a") + (i * 7 + i // 26) % 26)
                       for i in range(n))

    def test_argv_64k_argument(self):
        big = self.big_arg(64 * 1024)
        argv = [FPPROBE, "exit", "0", big, "after"]
        r = self.probe(*argv[1:])
        ex = self.exec_of(r)
        self.assertEqual(len(ex["argv"]), len(argv))
        self.assertEqual(ex["argv"], argv)
        self.assertEqual(ex["argv_bytes"],
                         sum(len(a.encode()) + 1 for a in argv))
        self.assertEqual(ex["argv_dropped"], 0)
        self.assertEqual(r.stats["argv_incomplete"], 0)

    def test_argv_over_default_max_argv(self):
        # 10 arguments of 128 KiB - 1 (the kernel's per-string limit)
        argv = [FPPROBE, "exit", "0"] + [
            chr(ord("a") + i) * (128 * 1024 - 1) for i in range(10)]
        flat = b"".join(a.encode() + b"\0" for a in argv)
        limit = 1 << 20
        self.assertGreater(len(flat), limit)
        r = self.probe(*argv[1:])
        ex = self.exec_of(r)
        self.assertEqual(ex["argv_bytes"], len(flat))
        self.assertEqual(ex["argv_dropped"], len(flat) - limit)
        self.assertEqual(b"\0".join(fptest.argv_bytes(ex)), flat[:limit])
        self.assertEqual(r.stats["argv_incomplete"], 1)

    def test_argv_over_max_argv(self):
        big = self.big_arg(64 * 1024)
        argv = [FPPROBE, "exit", "0", big]
        flat = b"".join(a.encode() + b"\0" for a in argv)
        limit = 4096
        r = self.probe(*argv[1:], opts=["--max-argv", "4K"])
        ex = self.exec_of(r)
        self.assertEqual(ex["argv_bytes"], len(flat))
        self.assertGreater(ex["argv_dropped"], 0)
        self.assertEqual(ex["argv_dropped"], ex["argv_bytes"] - limit)
        # what is shown is exactly the first 4 KiB
        shown = fptest.argv_bytes(ex)
        self.assertEqual(b"\0".join(shown), flat[:limit])
        self.assertEqual(shown[:3], [a.encode() for a in argv[:3]])
        self.assertEqual(r.stats["argv_incomplete"], 1)


class BytesTest(fptest.TraceCase):

    def test_non_utf8_file_name(self):
        name = b'new\nline "quoted" \xff end'
        target = os.path.join(os.fsencode(self.dir), name)
        r = self.probe("open", target)
        pid = r.probe()["pid"]
        ev = self.one(r.with_path(target, type="open"), "open")
        self.assertEqual(ev["pid"], pid)
        self.assertIn("path_b64", ev)
        self.assertEqual(base64.b64decode(ev["path_b64"]), target)
        self.assertIn("\ufffd", ev["path"])
        self.assertIn('new\nline "quoted" \ufffd end', ev["path"])
        self.assertTrue(os.path.exists(target))
        # argv carries the same bytes
        ex = self.one(r.of(type="exec", pid=pid), "exec")
        self.assertEqual(fptest.argv_bytes(ex),
                         [os.fsencode(FPPROBE), b"open", target])
        self.assertIn("argv_b64", ex)
        # the raw lines: the newline and quote are escaped, one event a line
        raw = [line for line in r.lines if b'"path_b64"' in line]
        self.assertEqual(len(raw), 1)
        self.assertIn(b'new\\nline \\"quoted\\" \\ufffd end', raw[0])

    def test_non_utf8_executable_name(self):
        exe = os.path.join(os.fsencode(self.dir), b"fp\xffprobe")
        with open(FPPROBE, "rb") as src, open(exe, "wb") as dst:
            dst.write(src.read())
        os.chmod(exe, 0o755)
        target = self.path("by-odd-exe")
        r = self.trace([exe, "open", target])
        pid = r.probe()["pid"]
        ex = self.one(r.of(type="exec", pid=pid), "exec")
        self.assertEqual(fptest.field_bytes(ex, "exe"), exe)
        self.assertIn("exe_b64", ex)
        self.assertEqual(fptest.field_bytes(ex, "filename"), exe)
        self.assertEqual(fptest.field_bytes(ex, "comm"), b"fp\xffprobe")
        self.assertEqual(ex["comm"], "fp\ufffdprobe")
        self.assertEqual(fptest.argv_bytes(ex),
                         [exe, b"open", os.fsencode(target)])
        ev = self.one(r.with_path(target, type="open"), "open")
        self.assertEqual(fptest.field_bytes(ev, "comm"), b"fp\xffprobe")

    def test_utf8_control_chars_file_name(self):
        name = "\u00fcn\u00efc\u00f8de\n\"q\"\t\x1b\x7f.txt"
        target = self.path(name)
        r = self.probe("open", target)
        ev = self.one(r.with_path(target, type="open"), "open")
        self.assertEqual(ev["path"], target)
        self.assertNotIn("path_b64", ev)
        raw = [line for line in r.lines if b'"type":"open"' in line and
               "\u00fcn\u00efc".encode() in line]
        self.assertEqual(len(raw), 1)
        self.assertIn(b'\\n\\"q\\"\\t\\u001b\\u007f.txt', raw[0])


class ExitStatusTest(fptest.TraceCase):
    """footprint's own exit status and output."""

    def test_command_not_found(self):
        r = self.trace(["fpit-no-such-command-anywhere"], rc=127)
        self.assertIn(b"fpit-no-such-command-anywhere", r.stderr)
        self.assertEqual(r.of(type="exec"), [])

    def test_command_not_executable(self):
        script = self.path("not-exec")
        write_file(script, b"#!/bin/sh\nexit 0\n")
        os.chmod(script, 0o644)
        r = self.trace([script], rc=126)
        self.assertEqual(r.of(type="exec"), [])

    def test_usage_error_no_command(self):
        fptest.check_binaries()
        for argv in (["run"], ["run", "--events", self.path("e")],
                     ["run", "--"], ["run", "--no-such-option", "--", "true"]):
            p = subprocess.run([fptest.FOOTPRINT] + argv,
                               stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=30)
            self.assertEqual(p.returncode, 2, (argv, p.stderr))
            self.assertNotEqual(p.stderr, b"", argv)

    def test_stdout_passes_through(self):
        r = self.trace(["echo", "hello"])
        self.assertEqual(r.stdout, b"hello\n")
        ex = self.one(r.of(type="exec"), "exec")
        self.assertEqual(ex["argv"], ["echo", "hello"])

    def test_output_passes_through_nonzero_exit_fails(self):
        r = self.trace(["sh", "-c", "echo out; echo err >&2; exit 42"],
                       rc=fptest.EXIT_VERDICT)
        self.assertEqual(r.stdout, b"out\n")
        self.assertTrue(r.stderr.startswith(b"err\n"), r.stderr)
        end = self.one(r.of(type="exit"), "exit")
        self.assertEqual(end["comm"], "sh")
        self.assertEqual(end["exit_code"], 42)


if __name__ == "__main__":
    unittest.main()
