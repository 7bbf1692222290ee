"""Issue 8, classes 7 and 8: paths that would let a change hide.

Class 7: a write through /proc/self/fd/N (or a symlink to it) was reported
under the magic link's name, which the /proc/self/** noise rule dropped,
so a change to a file outside the roots left the verdict ok. An open must
be reported under the file it reached; other syscalls that go through a
magic link are failing findings (files.magic_link) that no rule allows.

Class 8: a path longer than PATH_MAX keeps only its tail, and an allow
rule could match that tail. A cut path is a failing finding of its own
(files.cut) that no allow, ignore, expect or noise rule matches.

Every run here is footprint as root with the SUDO_* variables of nobody,
as `sudo footprint run` started by nobody would be, so the command runs as
nobody. Needs root and BPF (see sudo_util.py).
"""

import json
import os
import unittest

import fptest
import sudo_util as su

NOBODY = su.nobody()
PATH_MAX = 4096
# 11 bytes a level: 400 levels are 4400 bytes, over PATH_MAX, and well
# under the depth where the recursive snapshot walk of class 5 gives up
LEVEL = "dddddddddd"


class SecPathsTest(unittest.TestCase):

    def setUp(self):
        su.check_binary()
        self.sb = su.Sandbox(self)
        self.env = su.sudo_env(NOBODY)
        # outside every root; files in it belong to nobody, who may
        # change them: the question is only whether footprint notices
        self.outside = os.path.join(self.sb.base, "outside")
        os.mkdir(self.outside, 0o755)
        # receipts and events go where nobody may write them too, so the
        # test holds whether outputs are created as root or as the user
        self.nbout = os.path.join(self.sb.base, "nbout")
        os.mkdir(self.nbout, 0o700)
        os.chown(self.nbout, NOBODY.pw_uid, NOBODY.pw_gid)
        self.n = 0

    def victim(self, name="f", content=b"orig\n"):
        path = os.path.join(self.outside, name)
        with open(path, "wb") as f:
            f.write(content)
        os.chown(path, NOBODY.pw_uid, NOBODY.pw_gid)
        return path

    def run_fp(self, cmd, opts=(), events=False):
        self.n += 1
        receipt = os.path.join(self.nbout, "receipt-%d.json" % self.n)
        opts = list(opts)
        evpath = None
        if events:
            evpath = os.path.join(self.nbout, "events-%d.ndjson" % self.n)
            opts += ["--events", evpath]
        res = self.sb.run(cmd, opts=opts, env=self.env, receipt=receipt)
        self.assertIsNotNone(res.r, res.describe())
        # nothing of footprint's own leaks onto the command's stdout
        self.assertNotIn("footprint", res.out, res.describe())
        res.events = []
        if evpath:
            with open(evpath, encoding="utf-8") as f:
                res.events = [json.loads(line) for line in f]
        return res

    def finding(self, res, lst, path):
        got = [x for x in res.r["files"][lst] if x["path"] == path]
        self.assertEqual(len(got), 1, "%s not in files.%s\n%s" %
                         (path, lst, res.describe()))
        return got[0]

    def assert_fails_naming(self, res, lst, path, op="written"):
        self.assertEqual(res.rc, su.EXIT_VERDICT, res.describe())
        self.assertIs(res.r["ok"], False)
        x = self.finding(res, lst, path)
        self.assertIs(x["allowed"], False, res.describe())
        self.assertIn(op, x["ops"], res.describe())
        self.assertTrue(any(path in r for r in res.r["reasons"]),
                        res.describe())
        return x

    def opens_of(self, res, path):
        return [e for e in res.events
                if e["type"] == "open" and e["path"] == path and e["ok"]]

    # ---- class 7 ----

    def test_write_through_proc_self_fd_names_the_real_file(self):
        f = self.victim()
        res = self.run_fp(
            ["bash", "-c", 'exec 3<"$1"; echo x > /proc/self/fd/3', "sh", f],
            events=True)
        with open(f, "rb") as fh:
            self.assertEqual(fh.read(), b"x\n", "the write did not happen")
        self.assert_fails_naming(res, "outside_roots", f)
        # the event: under the file reached, with the name as given
        ev = [e for e in self.opens_of(res, f) if e["flags"] & 3]
        self.assertEqual(len(ev), 1, res.events)
        self.assertEqual(ev[0]["named_path"], "/proc/self/fd/3")
        self.assertIs(ev[0]["named_path_magic"], True)

    def test_write_through_symlink_to_proc_self_fd(self):
        f = self.victim()
        link = os.path.join(self.outside, "l")
        os.symlink("/proc/self/fd/3", link)
        res = self.run_fp(
            ["bash", "-c", 'exec 3<"$1"; echo x > "$2"', "sh", f, link])
        with open(f, "rb") as fh:
            self.assertEqual(fh.read(), b"x\n")
        self.assert_fails_naming(res, "outside_roots", f)

    def test_write_through_proc_pid_root(self):
        f = self.victim()
        res = self.run_fp(
            ["bash", "-c", 'echo x > "/proc/$$/root$1"', "sh", f])
        self.assert_fails_naming(res, "outside_roots", f)

    def test_read_through_proc_self_fd_is_reported_under_the_file(self):
        f = self.victim()
        res = self.run_fp(
            ["bash", "-c", 'exec 3<"$1"; cat /proc/self/fd/3', "sh", f],
            events=True)
        # a read changes nothing: no finding, the verdict holds
        self.assertEqual(res.rc, su.EXIT_OK, res.describe())
        self.assertEqual(res.out, "orig\n")
        cat = [e for e in self.opens_of(res, f) if e["comm"] == "cat"]
        self.assertEqual(len(cat), 1, res.events)
        self.assertEqual(cat[0]["named_path"], "/proc/self/fd/3")
        self.assertEqual(cat[0]["flags"] & 3, os.O_RDONLY)

    def test_write_to_a_pipe_through_dev_stdout_is_not_a_finding(self):
        res = self.run_fp(
            ["bash", "-c", "{ echo hi > /dev/stdout; } | cat"],
            events=True)
        self.assertEqual(res.rc, su.EXIT_OK, res.describe())
        self.assertEqual(res.out, "hi\n")
        ev = [e for e in res.events if e["type"] == "open"
              and e["path"] == "/dev/stdout" and e["ok"]]
        self.assertEqual(len(ev), 1, res.events)
        self.assertIs(ev[0]["path_anonymous"], True)

    def test_read_through_dev_stdin_is_reported_under_the_file(self):
        f = self.victim()
        res = self.run_fp(["sh", "-c", 'cat /dev/stdin < "$1"', "sh", f],
                          events=True)
        self.assertEqual(res.rc, su.EXIT_OK, res.describe())
        self.assertEqual(res.out, "orig\n")
        cat = [e for e in self.opens_of(res, f) if e["comm"] == "cat"]
        self.assertEqual(len(cat), 1, res.events)
        self.assertEqual(cat[0]["named_path"], "/dev/stdin")

    def test_reads_of_a_device_keep_its_name_and_collapse(self):
        # a name under /dev/ that reaches a character device is not
        # walked again from the file: it keeps the name given, and its
        # repeats are one event with a count, as for any other file
        script = ("for i in range(5):\n"
                  "    with open('/dev/urandom', 'rb') as f:\n"
                  "        f.read(1)\n")
        res = self.run_fp([su.PY, "-c", script], events=True)
        self.assertEqual(res.rc, su.EXIT_OK, res.describe())
        ev = [e for e in res.events if e["type"] == "open"
              and e["path"] == "/dev/urandom"]
        self.assertEqual(len(ev), 1, ev)
        self.assertEqual(ev[0].get("count"), 5, ev)
        self.assertNotIn("named_path", ev[0])

    def test_path_syscalls_through_magic_links_fail_whatever_is_allowed(self):
        d = os.path.join(self.outside, "d")
        os.mkdir(d, 0o755)
        os.chown(d, NOBODY.pw_uid, NOBODY.pw_gid)
        # mkdir(2) does not follow its last component: fd/N/new is a name
        # in the directory of fd N, which no name spells
        script = ("import os, sys\n"
                  "dfd = os.open(sys.argv[1], os.O_RDONLY)\n"
                  "os.mkdir('/proc/self/fd/%d/new' % dfd)\n"
                  "print(dfd)\n")
        res = self.run_fp([su.PY, "-c", script, d],
                          opts=["--allow", "/proc/", "--ignore", "/proc/**",
                                "--allow", d + "/"])
        dfd = res.out.strip()
        self.assertTrue(os.path.isdir(os.path.join(d, "new")))
        self.assert_fails_naming(res, "magic_link",
                                 "/proc/self/fd/%s/new" % dfd, op="created")

    def nobodys_file_in_root(self, name="f"):
        f = self.sb.in_root(name)
        with open(f, "wb") as fh:
            fh.write(b"orig\n")
        os.chmod(f, 0o644)
        os.chown(f, NOBODY.pw_uid, NOBODY.pw_gid)
        return f

    def test_chmod_through_own_fd_link_is_the_real_file(self):
        # glibc's lchmod and fchmodat(AT_SYMLINK_NOFOLLOW) do this with an
        # O_PATH fd; the kernel side reads the fd table, as for an open
        f = self.nobodys_file_in_root()
        script = ("import os, sys\n"
                  "fd = os.open(sys.argv[1], os.O_PATH)\n"
                  "os.chmod('/proc/self/fd/%d' % fd, 0o700)\n"
                  "os.chmod('/proc/%d/fd/%d' % (os.getpid(), fd), 0o600)\n"
                  "os.truncate('//proc/./thread-self/fd/%d' % fd, 2)\n"
                  "print(fd, os.getpid())\n")
        res = self.run_fp([su.PY, "-c", script, f], opts=["--allow", f],
                          events=True)
        fd, pid = res.out.split()
        st = os.stat(f)
        self.assertEqual((st.st_mode & 0o777, st.st_size), (0o600, 2))
        self.assertEqual(res.rc, su.EXIT_OK, res.describe())
        self.assertEqual(res.r["files"]["magic_link"], [])
        ch = self.finding(res, "changed", f)
        self.assertIs(ch["allowed"], True)
        ev = [e for e in res.events
              if e["type"] in ("chmod", "truncate") and e["ok"]]
        self.assertEqual(
            [(e["type"], e["path"], e["named_path"]) for e in ev],
            [("chmod", f, "/proc/self/fd/%s" % fd),
             ("chmod", f, "/proc/%s/fd/%s" % (pid, fd)),
             ("truncate", f, "/proc/thread-self/fd/%s" % fd)], ev)
        self.assertTrue(all(e["named_path_magic"] for e in ev), ev)
        self.assertTrue(all("path_magic" not in e for e in ev), ev)

    def test_chmod_through_another_process_fd_stays_magic(self):
        # /proc/PID/fd/N of another process: its fd table is not the
        # caller's, so the name still says nothing the kernel side reads
        f = self.nobodys_file_in_root()
        script = ("import os, sys\n"
                  "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
                  "r, w = os.pipe()\n"
                  "pid = os.fork()\n"
                  "if pid == 0:\n"
                  "    os.read(r, 1)\n"
                  "    os._exit(0)\n"
                  "os.chmod('/proc/%d/fd/%d' % (pid, fd), 0o600)\n"
                  "os.write(w, b'x')\n"
                  "os.waitpid(pid, 0)\n"
                  "print(pid, fd)\n")
        res = self.run_fp([su.PY, "-c", script, f], opts=["--allow", f])
        pid, fd = res.out.split()
        self.assertEqual(os.stat(f).st_mode & 0o777, 0o600)
        x = self.assert_fails_naming(res, "magic_link",
                                     "/proc/%s/fd/%s" % (pid, fd),
                                     op="attrs")
        self.assertEqual(x["ops"], ["attrs"])

    def test_tar_extract_passes(self):
        src = self.sb.in_root("src")
        for sub in ("a/b", "a/c", "d"):
            os.makedirs(os.path.join(src, sub))
        with open(os.path.join(src, "a/b/f"), "w") as fh:
            fh.write("x\n")
        os.chmod(os.path.join(src, "a"), 0o750)
        for d, dirs, files in os.walk(src):
            for name in [d] + [os.path.join(d, x) for x in files]:
                os.chown(name, NOBODY.pw_uid, NOBODY.pw_gid)
        out = self.sb.in_root("out")
        os.mkdir(out, 0o755)
        os.chown(out, NOBODY.pw_uid, NOBODY.pw_gid)
        res = self.run_fp(
            # -p with umask 077: tar must fix every directory's mode
            ["bash", "-c",
             'umask 077; tar -cf - -C "$1" . | tar -xpf - -C "$2"',
             "sh", src, out], opts=["--allow", out + "/"], events=True)
        self.assertEqual(res.rc, su.EXIT_OK, res.describe())
        self.assertEqual(res.r["files"]["magic_link"], [])
        self.assertEqual(os.stat(os.path.join(out, "a")).st_mode & 0o777,
                         0o750)
        with open(os.path.join(out, "a/b/f")) as fh:
            self.assertEqual(fh.read(), "x\n")
        # tar fixed the directory modes through /proc/self/fd/N
        fixed = [e["path"] for e in res.events if e["type"] == "chmod"
                 and e.get("named_path", "").startswith("/proc/self/fd/")]
        self.assertIn(os.path.join(out, "a"), fixed, res.events)

    # ---- class 8 ----

    def deep_dir(self, levels):
        """outside/LEVEL/LEVEL/... built with dir fds, as no single path
        over PATH_MAX can be; the last directory belongs to nobody."""
        fd = os.open(self.outside, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for _ in range(levels):
                os.mkdir(LEVEL, 0o755, dir_fd=fd)
                nfd = os.open(LEVEL, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = nfd
            os.fchown(fd, NOBODY.pw_uid, NOBODY.pw_gid)
        finally:
            os.close(fd)
        self.addCleanup(self.remove_deep)

    def remove_deep(self):
        # no path reaches the bottom: go down by dir fds, remove bottom-up
        fds = [os.open(self.outside, os.O_RDONLY | os.O_DIRECTORY)]
        try:
            while True:
                try:
                    fds.append(os.open(LEVEL, os.O_RDONLY | os.O_DIRECTORY |
                                       os.O_NOFOLLOW, dir_fd=fds[-1]))
                except FileNotFoundError:
                    break
            for i in range(len(fds) - 1, 0, -1):
                for name in os.listdir(fds[i]):
                    os.unlink(name, dir_fd=fds[i])
                os.rmdir(LEVEL, dir_fd=fds[i - 1])
        finally:
            for fd in fds:
                os.close(fd)

    # the command walks down in relative steps, each short, and writes f
    WRITE_DEEP = ("import os, sys\n"
                  "os.chdir(sys.argv[1])\n"
                  "n = int(sys.argv[2])\n"
                  "for i in range(0, n, 100):\n"
                  "    os.chdir('/'.join([sys.argv[3]] * min(100, n - i)))\n"
                  "with open('f', 'w') as f:\n"
                  "    f.write('x')\n")

    def write_deep(self, levels, opts):
        return self.run_fp([su.PY, "-c", self.WRITE_DEEP, self.outside,
                            str(levels), LEVEL], opts=opts, events=True)

    def test_allow_matches_a_shallow_tree(self):
        # the control: the same rule allows the same write when not cut
        self.deep_dir(3)
        res = self.write_deep(3, ["--allow", "/%s/" % LEVEL,
                                  "--allow", self.outside + "/"])
        self.assertEqual(res.rc, su.EXIT_OK, res.describe())
        self.assertEqual(res.r["files"]["cut"], [])

    def test_cut_path_fails_although_its_tail_is_allowed(self):
        levels = 400
        self.deep_dir(levels)
        self.assertGreater(len(self.outside) + levels * (len(LEVEL) + 1),
                           PATH_MAX)
        res = self.write_deep(levels, ["--allow", "/%s/" % LEVEL,
                                       "--allow", "/",
                                       "--ignore", "/%s/**" % LEVEL])
        self.assertEqual(res.rc, su.EXIT_VERDICT, res.describe())
        self.assertIs(res.r["ok"], False)
        cut = res.r["files"]["cut"]
        self.assertEqual(len(cut), 1, res.describe())
        x = cut[0]
        # only the tail is known, and it looks like the allowed tree
        self.assertTrue(x["path"].startswith("/%s/" % LEVEL), x)
        self.assertTrue(x["path"].endswith("/%s/f" % LEVEL), x)
        self.assertLess(len(x["path"]), PATH_MAX)
        self.assertIs(x["allowed"], False)
        self.assertNotIn("rule", x)
        self.assertIn("written", x["ops"])
        self.assertTrue(any(r.startswith("files.cut: ...")
                            for r in res.r["reasons"]), res.r["reasons"])
        for lst in ("outside_roots", "transient"):
            self.assertEqual(
                [y for y in res.r["files"][lst] if y["path"] == x["path"]],
                [], lst)
        self.assertNotIn("allow " + x["path"], fptest.rules(res.r))
        # the event says it was cut
        ev = [e for e in res.events if e["type"] == "open"
              and e.get("path_truncated") and e["ok"]]
        self.assertEqual(len(ev), 1, [e for e in res.events
                                      if e["type"] == "open"][-3:])

    def test_cut_path_can_be_forbidden(self):
        levels = 400
        self.deep_dir(levels)
        res = self.write_deep(levels, ["--forbid", "/%s/**" % LEVEL])
        self.assertEqual(res.rc, su.EXIT_VERDICT, res.describe())
        x = res.r["files"]["cut"][0]
        self.assertIs(x["forbidden"], True)
        self.assertEqual(x["rule"], "forbid /%s/**" % LEVEL)


if __name__ == "__main__":
    unittest.main()
