"""Process and file evasions (issue 28): cross-process calls, opens by
handle, a name rewritten while the open runs, hard links, set-ID files,
mounts and namespaces, fileless execs.

Root runs go through verdict_util.Env (each is recorded and replayed: the
replayed receipt must be the live one byte for byte). The items about the
invoking user run the command as `nobody` the way sudo starts footprint
(sudo_util.Sandbox).

Run: FOOTPRINT=build/footprint FOOTPRINT_TEST_BIN=build/tests \\
     FOOTPRINT_REQUIRE_BPF=1 python3 -m unittest -v tests/integration/test_procev.py
"""

import ctypes
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
import verdict_util as vu  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TEST_BIN = os.environ.get("FOOTPRINT_TEST_BIN") or os.path.join(
    TOP, "build", "tests")
PY = vu.PY
SH = vu.exe_of("sh")
KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\n"

# a process outside the run whose memory the run reads: prints where
XPROC_TARGET = r"""
import ctypes, sys, time
buf = ctypes.create_string_buffer(b"outside-secret", 64)
print(ctypes.addressof(buf), flush=True)
sys.stdin.read()
"""

# process_vm_readv / process_vm_writev / pidfd_getfd on argv[2]
XPROC = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
what, pid = sys.argv[1], int(sys.argv[2])
addr = int(sys.argv[3]) if len(sys.argv) > 3 else 0
buf = ctypes.create_string_buffer(14)
local = iovec(ctypes.cast(buf, ctypes.c_void_p), 14)
remote = iovec(addr, 14)
if what == "read":
    n = libc.process_vm_readv(pid, ctypes.byref(local), 1,
                              ctypes.byref(remote), 1, 0)
    print(what, n, buf.raw)
elif what == "write":
    n = libc.process_vm_writev(pid, ctypes.byref(local), 1,
                               ctypes.byref(remote), 1, 0)
    print(what, n)
else:
    pfd = libc.syscall(434, pid, 0)          # pidfd_open
    n = libc.syscall(438, pfd, 0, 0)         # pidfd_getfd(pfd, 0, 0)
    print(what, n)
sys.exit(0 if n >= 0 else 3)
"""

# name_to_handle_at outside the run, open_by_handle_at inside it
BYHANDLE = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
raw = bytes.fromhex(sys.argv[3])
buf = ctypes.create_string_buffer(raw, len(raw))
mfd = os.open(sys.argv[2], os.O_RDONLY | os.O_DIRECTORY)
flags = os.O_WRONLY | os.O_APPEND if sys.argv[1] == "append" else os.O_RDONLY
fd = libc.open_by_handle_at(mfd, buf, flags)
if fd < 0:
    sys.exit("open_by_handle_at: errno %d" % ctypes.get_errno())
if sys.argv[1] == "append":
    os.write(fd, b"evil\n")
else:
    os.read(fd, 64)
"""

MEMFD = r"""
import os
fd = os.memfd_create("payload", 0)
with open("/bin/true", "rb") as f:
    os.write(fd, f.read())
pid = os.fork()
if pid == 0:
    os.execve(fd, ["payload"], {})      # execveat(fd, "", AT_EMPTY_PATH)
os.waitpid(pid, 0)
"""


# the same calls on a child of the run itself: nothing to report
INSIDE = r"""
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
src = ctypes.create_string_buffer(b"inside-secret", 64)
pid = os.fork()
if pid == 0:
    time.sleep(30)
    os._exit(0)
buf = ctypes.create_string_buffer(13)
local = iovec(ctypes.cast(buf, ctypes.c_void_p), 13)
remote = iovec(ctypes.addressof(src), 13)
n = libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote),
                          1, 0)
m = libc.process_vm_writev(pid, ctypes.byref(local), 1, ctypes.byref(remote),
                           1, 0)
pfd = libc.syscall(434, pid, 0)
fd = libc.syscall(438, pfd, 0, 0)
print(n, m, fd, buf.raw.decode())
os.kill(pid, 9)
os.waitpid(pid, 0)
"""


def handle_of(path):
    """name_to_handle_at(path): struct file_handle as hex, and the mount
    directory's path to open for open_by_handle_at."""
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(8 + 128)
    ctypes.c_uint.from_buffer(buf, 0).value = 128
    mnt = ctypes.c_int()
    if libc.name_to_handle_at(-100, os.fsencode(path), buf,
                              ctypes.byref(mnt), 0):
        raise unittest.SkipTest("name_to_handle_at(%s): errno %d" %
                                (path, ctypes.get_errno()))
    n = ctypes.c_uint.from_buffer(buf, 0).value
    return buf.raw[:8 + n].hex()


def mount_dir_of(path):
    """The mount point the file is on (its st_dev changes above it)."""
    dev = os.stat(path).st_dev
    d = os.path.dirname(os.path.realpath(path))
    while d != "/" and os.stat(os.path.dirname(d)).st_dev == dev:
        d = os.path.dirname(d)
    return d if os.stat(d).st_dev == dev else "/"


def reads(r):
    return {x["path"]: x for x in r["files"].get("read", [])}


class Case(unittest.TestCase):
    @staticmethod
    def read(path):
        with open(path) as f:
            return f.read()


class RootCase(Case):
    """A root run with a home holding secrets; HOME names it."""

    def setUp(self):
        self.env = vu.Env(self)
        self.root = self.env.root()
        self.home = self.env.root("home", {
            ".ssh/id_ed25519": KEY,
            ".ssh/id_ed25519.pub": "ssh-ed25519 AAAA test\n",
        })
        self.key = os.path.join(self.home, ".ssh", "id_ed25519")
        self.policy = os.path.join(self.env.out, "base.policy")
        with open(self.policy, "w") as f:
            f.write("ignore bind *\n")
        self.script = os.path.join(self.env.out, "x.py")

    def run_py(self, code, *args, opts=()):
        with open(self.script, "w") as f:
            f.write(code)
        return self.env.run([PY, self.script] + [str(a) for a in args],
                            roots=[self.root],
                            opts=["--policy", self.policy] + list(opts),
                            env=dict(os.environ, HOME=self.home),
                            cwd=self.root)

    def run_sh(self, script, opts=()):
        return self.env.run([SH, "-c", script], roots=[self.root],
                            opts=["--policy", self.policy] + list(opts),
                            env=dict(os.environ, HOME=self.home),
                            cwd=self.root)


class TestCrossProcess(RootCase):
    """pidfd_getfd, process_vm_readv and process_vm_writev aimed outside
    the run fail it as ptrace does; aimed inside, they are nothing."""

    def outside(self):
        p = subprocess.Popen([PY, "-c", XPROC_TARGET], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (p.kill(), p.wait(), p.stdin.close(),
                                 p.stdout.close()))
        return p, int(p.stdout.readline())

    def xproc(self, calls):
        with open(self.script, "w") as f:
            f.write(XPROC)
        return self.run_sh(" && ".join("%s %s %s" % (PY, self.script, c)
                                       for c in calls))

    def test_memory_read_write_and_fd_theft_outside_fail(self):
        target, addr = self.outside()
        res = self.xproc(["read %d %d" % (target.pid, addr),
                          "write %d %d" % (target.pid, addr),
                          "getfd %d" % target.pid])
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        self.assertIn("outside-secret", res.out)
        pt = {x["syscall"]: x for x in res.r["processes"]["ptraced"]}
        self.assertEqual(sorted(pt), ["pidfd_getfd", "process_vm_readv",
                                      "process_vm_writev"], pt)
        for call, x in pt.items():
            self.assertEqual(x["target_pid"], target.pid, x)
            self.assertTrue(x["ok"], x)
            self.assertTrue(x["failing"], x)
            self.assertIn("processes.ptraced: %s of pid %d" %
                          (call, target.pid), "\n".join(res.r["reasons"]))
        self.assertEqual(pt["pidfd_getfd"]["target_fd"], 0)

    def test_allow_ptrace_rule_covers_them(self):
        target, addr = self.outside()
        exe = os.path.realpath("/proc/%d/exe" % target.pid)
        with open(self.policy, "a") as f:
            f.write("allow ptrace %s\n" % exe)
        res = self.xproc(["read %d %d" % (target.pid, addr)])
        self.assertEqual(res.rc, vu.EXIT_OK, res.describe())
        x = res.r["processes"]["ptraced"][0]
        self.assertEqual(x["syscall"], "process_vm_readv")
        self.assertTrue(x["allowed"])
        self.assertFalse(x["failing"])

    def test_inside_the_run_is_nothing(self):
        res = self.run_py(INSIDE)
        self.assertEqual(res.rc, vu.EXIT_OK, res.describe())
        self.assertIn("inside-secret", res.out)
        self.assertNotIn("ptraced", res.r["processes"], res.describe())


class TestOpenByHandle(RootCase):
    """open_by_handle_at names no path: the file behind its fd is judged."""

    def test_secret_read_by_handle_fails(self):
        h = handle_of(self.key)
        res = self.run_py(BYHANDLE, "read", mount_dir_of(self.key), h)
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        r = reads(res.r)[self.key]
        self.assertEqual(r["secret"], "ssh_key")
        self.assertTrue(r["failing"])

    def test_write_by_handle_outside_the_roots_fails(self):
        other = self.env.root("other", {"conf": "a\n"})
        conf = os.path.join(other, "conf")
        h = handle_of(conf)
        res = self.run_py(BYHANDLE, "append", mount_dir_of(conf), h)
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        self.assertEqual(self.read(conf), "a\nevil\n")
        self.assertIn(conf, res.paths("outside_roots"), res.describe())


class TestRacedName(RootCase):
    """A second thread rewrites the name while the open runs: the file
    behind the returned fd is what is judged, not the name in memory."""

    def test_secret_opened_under_a_rewritten_name_is_a_secret_read(self):
        prog = os.path.join(TEST_BIN, "openrace")
        if not os.access(prog, os.X_OK):
            vu.cannot_test("%s is not built" % prog)
        harmless = os.path.join(self.root, "harmless")
        with open(harmless, "w") as f:
            f.write("plain\n")
        res = self.env.run([prog, self.key, harmless, KEY[:10], "2000"],
                           roots=[self.root],
                           opts=["--policy", self.policy],
                           env=dict(os.environ, HOME=self.home),
                           cwd=self.root)
        out = dict(line.split() for line in res.out.splitlines())
        won = int(out["won"])
        if won == 0:
            self.skipTest("the rewrite never came after the kernel's copy")
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        r = reads(res.r).get(self.key)
        self.assertIsNotNone(r, res.describe())
        self.assertEqual(r["secret"], "ssh_key")
        self.assertTrue(r["failing"])
        # every open that reached the key is counted as reading it
        self.assertGreaterEqual(r["opens"], won, (won, r))


class TestSecretByInode(RootCase):
    """A secret read under another name is a secret read."""

    def test_hard_link_and_proc_fd_of_a_secret(self):
        res = self.run_sh(
            'ln "$HOME/.ssh/id_ed25519" alias && cat alias >/dev/null; '
            'exec 3<"$HOME/.ssh/id_ed25519"; cat /proc/self/fd/3 >/dev/null;'
            'rm alias', opts=["--allow", "alias"])
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        got = reads(res.r)
        alias = os.path.join(self.root, "alias")
        self.assertEqual(got[alias]["secret"], "ssh_key", got)
        self.assertTrue(got[alias]["failing"])

    def test_inode_of_a_secrets_low_bits_is_no_secret(self):
        """The kernel side skips its lookup by the inode number's low
        bits (FP_SECRET_INO_BITS): a file of the same device whose number
        shares them with a secret's is looked up, and is no secret."""
        fs = os.path.join(self.root, "fs")
        os.mkdir(fs)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "fpsec",
                        fs], check=True)
        self.addCleanup(subprocess.run, ["umount", "-l", fs])
        home = os.path.join(fs, "home")
        os.makedirs(os.path.join(home, ".ssh"))
        key = os.path.join(home, ".ssh", "id_ed25519")
        with open(key, "w") as f:
            f.write(KEY)
        want = os.stat(key).st_ino % 32768
        # tmpfs numbers its inodes in turn: one of the next 32768 has it
        other = os.path.join(fs, "other")
        for _ in range(3 * 32768):
            fd = os.open(other, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o644)
            ino = os.fstat(fd).st_ino
            os.close(fd)
            if ino % 32768 == want:
                break
            os.unlink(other)
        else:
            self.fail("no inode of tmpfs numbered like %d" % want)
        res = self.env.run([SH, "-c", 'cat other "$HOME/.ssh/id_ed25519" '
                            '>/dev/null'], roots=[self.root],
                           opts=["--policy", self.policy],
                           env=dict(os.environ, HOME=home), cwd=fs)
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        got = reads(res.r)
        self.assertEqual(got[key]["secret"], "ssh_key", got)
        self.assertIn(other, got, res.describe())
        self.assertFalse(got[other].get("secret"), got[other])


class SudoCase(Case):
    """As `nobody` under sudo: a home of its own, a root it may write."""

    def setUp(self):
        su.check_binary()
        self.sb = su.Sandbox(self)
        self.nobody = su.nobody()
        self.home = os.path.join(self.sb.base, "home")
        os.makedirs(os.path.join(self.home, ".ssh"))
        with open(os.path.join(self.home, ".bashrc"), "w") as f:
            f.write("# rc\n")
        with open(os.path.join(self.home, ".ssh", "id_ed25519"), "w") as f:
            f.write(KEY)
        for d, _, files in os.walk(self.home):
            os.chown(d, self.nobody.pw_uid, self.nobody.pw_gid)
            for n in files:
                os.chown(os.path.join(d, n), self.nobody.pw_uid,
                         self.nobody.pw_gid)
        os.chmod(os.path.join(self.home, ".ssh"), 0o700)
        self.bashrc = os.path.join(self.home, ".bashrc")

    def run_as_nobody(self, script, opts=()):
        return self.sb.run(["sh", "-c", script], opts=list(opts),
                           env=su.sudo_env(self.nobody, HOME=self.home))

    def rules(self, *lines):
        path = self.sb.out_path("rules.policy")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(path, 0o644)
        return path


class TestHardLinks(SudoCase):
    def test_link_write_unlink_of_bashrc_is_a_write_outside(self):
        res = self.run_as_nobody(
            "ln %s x && echo evil >> x && rm x" % self.bashrc,
            opts=["--allow", "x"])
        self.assertEqual(self.read(self.bashrc), "# rc\nevil\n")
        self.assertEqual(res.rc, su.EXIT_VERDICT, res.describe())
        out = {x["path"]: x for x in res.r["files"]["outside_roots"]}
        self.assertIn(self.bashrc, out, res.describe())
        self.assertEqual(out[self.bashrc]["ops"], ["written", "linked"])
        self.assertIn("files.outside_roots: %s" % self.bashrc,
                      res.r["reasons"])

    def test_bind_mount_of_ssh_in_a_user_namespace(self):
        if subprocess.run(["unshare", "-Urm", "true"],
                          stderr=subprocess.DEVNULL).returncode:
            self.skipTest("no user namespaces here")
        m = self.sb.in_root("m")
        os.mkdir(m)
        os.chown(m, self.nobody.pw_uid, self.nobody.pw_gid)
        res = self.run_as_nobody(
            "unshare -Urm sh -c 'mount --bind %s/.ssh %s && "
            "cat %s/id_ed25519 >/dev/null'" % (self.home, m, m))
        self.assertEqual(res.rc, su.EXIT_VERDICT, res.describe())
        r = res.r
        read = {x["path"]: x for x in r["files"].get("read", [])}
        self.assertEqual(read[m + "/id_ed25519"]["secret"], "ssh_key",
                         res.describe())
        mounts = {x["target"]: x for x in r["processes"]["mounts"]}
        self.assertEqual(mounts[m]["source"], self.home + "/.ssh")
        self.assertTrue(mounts[m]["failing"])
        # unshare -m makes "/" private: that alone shows nothing new
        self.assertFalse(mounts["/"]["failing"])
        ns = r["processes"]["namespaces"]
        self.assertEqual(ns[0]["syscall"], "unshare")
        self.assertFalse(ns[0]["failing"])
        self.assertIn("processes.mounts: mount %s by pid" % m,
                      "\n".join(r["reasons"]))


class TestSetuid(SudoCase):
    def test_chmod_and_create_setuid_fail_with_octal_modes(self):
        res = self.run_as_nobody(
            "cp /bin/true t && chmod 4755 t && "
            "%s -c 'import os; os.close(os.open(\"g\", "
            "os.O_CREAT | os.O_WRONLY, 0o2755))'" % PY,
            opts=["--allow", "t", "--allow", "g"])
        self.assertEqual(res.rc, su.EXIT_VERDICT, res.describe())
        r = res.r
        sid = {x["path"]: x for x in r["files"]["setuid"]}
        t, g = self.sb.in_root("t"), self.sb.in_root("g")
        self.assertEqual(sid[t]["mode"], "4755", sid)
        self.assertEqual(sid[t]["syscall"], "fchmodat")
        self.assertEqual(sid[g]["mode"], "2755", sid)
        self.assertTrue(sid[t]["failing"] and sid[g]["failing"])
        added = {x["path"]: x for x in r["files"]["added"]}
        self.assertEqual(added[t]["after"]["mode"], "4755")
        self.assertIn("files.setuid: fchmodat 4755 %s by pid" % t,
                      "\n".join(r["reasons"]))

    def test_allow_setuid_rule(self):
        res = self.run_as_nobody(
            "cp /bin/true t && chmod u+s t",
            opts=["--allow", "t", "--policy", self.rules("allow setuid t")])
        self.assertEqual(res.rc, su.EXIT_OK, res.describe())
        x = res.r["files"]["setuid"][0]
        self.assertEqual(x["mode"], "4755")
        self.assertTrue(x["allowed"])
        self.assertEqual(x["rule"], "allow setuid t")


class TestFileless(SudoCase):
    def test_memfd_exec_is_named_and_fails(self):
        script = self.sb.out_path("memfd.py")
        with open(script, "w") as f:
            f.write(MEMFD)
        os.chmod(script, 0o644)
        res = self.sb.run([PY, script], env=su.sudo_env(self.nobody))
        self.assertEqual(res.rc, su.EXIT_VERDICT, res.describe())
        r = res.r
        exes = [x["exe"] for x in r["processes"]["executed"]]
        self.assertIn("memfd:payload", exes)
        self.assertNotIn("/", exes)
        fl = r["processes"]["fileless_exec"]
        self.assertEqual(fl[0]["exe"], "memfd:payload")
        self.assertTrue(fl[0]["failing"])
        self.assertIn("processes.fileless_exec: exec of memfd:payload",
                      "\n".join(r["reasons"]))


if __name__ == "__main__":
    unittest.main()
