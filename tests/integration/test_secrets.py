"""Sensitive reads and signals outside the run, on real commands.

Every `footprint run` here is recorded and replayed (verdict_util.Env):
the replayed receipt must be the live one, byte for byte.
"""

import hashlib
import os
import signal
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
import sudo_util as su  # noqa: E402
import verdict_util as vu  # noqa: E402

CAT = vu.exe_of("cat")
SH = vu.exe_of("sh")


def reads(res):
    return {r["path"]: r for r in res.r["files"].get("read", [])}


class SecretsBase(unittest.TestCase):
    def setUp(self):
        self.env = vu.Env(self)
        self.root = self.env.root()
        self.home = self.env.root("home", {
            ".ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\n",
            ".ssh/id_ed25519.pub": "ssh-ed25519 AAAA test\n",
            ".aws/credentials": "[default]\naws_secret_access_key=x\n",
        })
        # listeners that other suites open meanwhile are not this test's
        self.policy = os.path.join(self.env.out, "base.policy")
        self.write_policy()

    def write_policy(self, *lines):
        with open(self.policy, "w") as f:
            f.write("ignore bind *\n")
            for line in lines:
                f.write(line + "\n")

    def run_sh(self, script, opts=(), env=None):
        e = dict(os.environ, HOME=self.home)
        e.update(env or {})
        return self.env.run([SH, "-c", script], roots=[self.root],
                            opts=["--policy", self.policy] + list(opts),
                            env=e, cwd=self.root)


class TestSecretReads(SecretsBase):
    def test_private_key_and_aws_credentials_fail_and_name_reader(self):
        res = self.run_sh('cat "$HOME/.ssh/id_ed25519" >/dev/null; '
                          'cat "$HOME/.aws/credentials" >/dev/null')
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        got = reads(res)
        key = os.path.join(self.home, ".ssh/id_ed25519")
        aws = os.path.join(self.home, ".aws/credentials")
        self.assertEqual(got[key]["secret"], "ssh_key", res.describe())
        self.assertEqual(got[aws]["secret"], "aws_credentials")
        for path in (key, aws):
            r = got[path]
            self.assertTrue(r["read"])
            self.assertTrue(r["failing"])
            self.assertEqual(r["by"]["exe"], CAT)
            self.assertEqual(fptest.argv_of(res.r, r["by"]), ["cat", path])
            self.assertIn("files.read: %s (secret: %s) read by pid %d %s" %
                          (path, r["secret"], r["by"]["pid"], CAT),
                          res.r["reasons"])
        # the summary lists them under their category, reader named
        self.assertIn("  files.read 2:\n", res.err)
        self.assertIn("\n    %s (secret: ssh_key) read by pid " % key, res.err)

    def test_public_key_passes(self):
        res = self.run_sh('cat "$HOME/.ssh/id_ed25519.pub" >/dev/null')
        self.assertEqual(res.rc, vu.EXIT_OK, res.describe())
        self.assertTrue(res.r["ok"])
        self.assertNotIn(os.path.join(self.home, ".ssh/id_ed25519.pub"),
                         reads(res))

    def test_allow_read_narrows_and_forbid_read_extends(self):
        key = os.path.join(self.home, ".ssh/id_ed25519")
        self.write_policy("allow read " + vu.policy_quote(os.fsencode(key)),
                          "forbid read /etc/hostname")
        res = self.run_sh('cat "$HOME/.ssh/id_ed25519" >/dev/null')
        self.assertEqual(res.rc, vu.EXIT_OK, res.describe())
        r = reads(res)[key]
        self.assertTrue(r["allowed"])
        self.assertFalse(r["failing"])
        res = self.run_sh("cat /etc/hostname >/dev/null")
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        r = reads(res)["/etc/hostname"]
        self.assertIsNone(r["secret"])
        self.assertTrue(r["forbidden"])
        self.assertTrue(r["failing"])

    def test_reads_in_root_carry_their_hash(self):
        src = os.path.join(self.root, "main.c")
        with open(src, "wb") as f:
            f.write(b"int main(void) { return 0; }\n")
        res = self.run_sh("cat main.c >/dev/null; cat /etc/hostname "
                          ">/dev/null")
        self.assertEqual(res.rc, vu.EXIT_OK, res.describe())
        got = reads(res)
        with open(src, "rb") as f:
            want = hashlib.sha256(f.read()).hexdigest()
        self.assertEqual(got[src]["sha256"], want)
        self.assertFalse(got[src]["failing"])
        # outside the roots and not a secret: only with --report-reads
        self.assertNotIn("/etc/hostname", got)

    def test_report_reads_lists_every_file_read_once(self):
        res = self.run_sh("cat /etc/hostname /etc/hostname >/dev/null",
                          opts=["--report-reads"])
        self.assertEqual(res.rc, vu.EXIT_OK, res.describe())
        r = reads(res)["/etc/hostname"]
        self.assertEqual(r["opens"], 2)
        self.assertEqual(r["by"]["exe"], CAT)
        self.assertEqual(res.r["files"]["read_omitted"], 0)

    def test_environ_of_a_process_outside_the_run(self):
        outside = subprocess.Popen(["sleep", su.unique_seconds()])
        self.addCleanup(outside.wait)
        self.addCleanup(outside.kill)
        res = self.run_sh("cat /proc/%d/environ >/dev/null; "
                          "cat /proc/self/environ >/dev/null" % outside.pid)
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        got = reads(res)
        r = got["/proc/%d/environ" % outside.pid]
        self.assertEqual(r["secret"], "proc_environ")
        self.assertTrue(r["failing"])
        self.assertEqual(len([p for p in got if p.endswith("/environ")]), 1,
                         got)


class TestShadowAsNobody(unittest.TestCase):
    """A read of /etc/shadow by an unprivileged command: an attempt."""

    def test_failed_read_is_an_attempt(self):
        sb = su.Sandbox(self)
        nobody = su.nobody()
        log = sb.out_path("shadow.fplog")
        # the shell goes on: the verdict is the attempt's alone
        res = sb.run(["sh", "-c", "cat /etc/shadow; true"],
                     opts=["--record", log], env=su.sudo_env(nobody))
        self.assertEqual(res.rc, su.EXIT_OK, res.describe())
        r = {x["path"]: x for x in res.r["files"]["read"]}["/etc/shadow"]
        self.assertEqual(r["secret"], "shadow")
        self.assertFalse(r["read"])
        self.assertEqual(r["errno"], "EACCES")
        self.assertFalse(r["failing"], "an attempt is reported, not held")
        self.assertEqual(r["by"]["exe"], CAT)
        self.assertEqual(fptest.argv_of(res.r, r["by"]),
                         ["cat", "/etc/shadow"])
        # forbid read makes the same attempt fail
        pol = sb.out_path("forbid.policy")
        with open(pol, "w") as f:
            f.write("forbid read /etc/shadow\nignore bind *\n")
        os.chmod(pol, 0o644)
        res2 = sb.run(["sh", "-c", "cat /etc/shadow; true"],
                      opts=["--policy", pol], env=su.sudo_env(nobody))
        self.assertEqual(res2.rc, su.EXIT_VERDICT, res2.describe())
        r2 = {x["path"]: x for x in res2.r["files"]["read"]}["/etc/shadow"]
        self.assertTrue(r2["failing"])
        self.assertIn("files.read: /etc/shadow (secret: shadow) attempted "
                      "by pid %d %s (EACCES) (forbidden)" %
                      (r2["by"]["pid"], CAT), res2.r["reasons"])
        rep = sb.out_path("replay.json")
        p = subprocess.run([su.FOOTPRINT, "replay", "-q", "--receipt", rep,
                            log], env=su.base_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, su.EXIT_OK, p.stderr)
        with open(rep, "rb") as a, open(res.receipt_path, "rb") as b:
            self.assertEqual(a.read(), b.read())


class TestSignalsOutside(SecretsBase):
    def outside(self):
        # a suite started under nohup would hand its SIG_IGN of HUP on
        p = subprocess.Popen(["sleep", su.unique_seconds()],
                             preexec_fn=lambda: signal.signal(
                                 signal.SIGHUP, signal.SIG_DFL))
        self.addCleanup(p.wait)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        return p

    def test_kill_of_a_process_outside_the_run(self):
        target = self.outside()
        trace = os.path.join(self.env.out, "strace.out")
        # strace inside the run: it ptraces its own child, which is no
        # finding, and its log is what the kernel saw
        res = self.env.run(
            ["strace", "-f", "-qq", "-o", trace, "-e", "trace=kill",
             SH, "-c", "kill -TERM %d; kill -0 $$" % target.pid],
            roots=[self.root], opts=["--policy", self.policy],
            cwd=self.root)
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        self.assertEqual(target.wait(10), -signal.SIGTERM)
        with open(trace) as f:
            calls = [" ".join(line.split()[1:]) for line in f]
        self.assertIn("kill(%d, SIGTERM) = 0" % target.pid, calls)
        sig = res.r["processes"]["signalled_outside"]
        self.assertEqual(len(sig), 1, sig)
        s = sig[0]
        self.assertEqual((s["syscall"], s["signal"], s["signal_name"]),
                         ("kill", 15, "TERM"))
        self.assertEqual(s["target_pid"], target.pid)
        self.assertEqual(s["target_exe"], vu.exe_of("sleep"))
        self.assertTrue(s["ok"])
        self.assertTrue(s["failing"])
        self.assertEqual(s["by"]["exe"], os.path.realpath(SH))
        self.assertNotIn("ptraced", res.r["processes"])
        self.assertIn("processes.signalled_outside: SIGTERM to pid %d %s" %
                      (target.pid, vu.exe_of("sleep")),
                      "\n".join(res.r["reasons"]))

    def test_pidfd_send_signal_to_a_process_outside_the_run(self):
        """The target of pidfd_send_signal() is the pid behind its pidfd."""
        target = self.outside()
        script = ("import os, signal; fd = os.pidfd_open(%d); "
                  "signal.pidfd_send_signal(fd, signal.SIGTERM)" % target.pid)
        res = self.env.run([sys.executable, "-c", script], roots=[self.root],
                           opts=["--policy", self.policy], cwd=self.root)
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        self.assertEqual(target.wait(10), -signal.SIGTERM)
        sig = res.r["processes"]["signalled_outside"]
        self.assertEqual(len(sig), 1, sig)
        s = sig[0]
        self.assertEqual((s["syscall"], s["signal_name"]),
                         ("pidfd_send_signal", "TERM"))
        self.assertEqual(s["target_pid"], target.pid)
        self.assertEqual(s["target_exe"], vu.exe_of("sleep"))
        self.assertTrue(s["failing"])

    def test_allow_signal_by_target_executable(self):
        target = self.outside()
        self.write_policy("allow signal " + vu.exe_of("sleep"))
        res = self.run_sh("kill -HUP %d" % target.pid)
        self.assertEqual(res.rc, vu.EXIT_OK, res.describe())
        self.assertEqual(target.wait(10), -signal.SIGHUP)
        s = res.r["processes"]["signalled_outside"][0]
        self.assertTrue(s["allowed"])
        self.assertEqual(s["rule"], "allow signal " + vu.exe_of("sleep"))
        self.assertFalse(s["failing"])

    def test_strace_p_of_a_process_outside_the_run(self):
        # it exits once it sees itself traced: no sleep to wait for strace
        code = ("import time\n"
                "def traced():\n"
                "    for l in open('/proc/self/status'):\n"
                "        if l.startswith('TracerPid:'):\n"
                "            return int(l.split()[1]) != 0\n"
                "while not traced():\n"
                "    time.sleep(0.01)\n")
        target = subprocess.Popen([vu.PY, "-c", code])
        self.addCleanup(lambda: target.poll() is None and target.kill())
        res = self.env.run(["strace", "-qq", "-o", "/dev/null", "-p",
                            str(target.pid)],
                           roots=[self.root], opts=["--policy", self.policy],
                           cwd=self.root)
        self.assertEqual(target.wait(30), 0)
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        # strace reads the tracee's memory with process_vm_readv too,
        # which is listed apart, the call named
        pt = {x["syscall"]: x for x in res.r["processes"]["ptraced"]}
        self.assertLessEqual(set(pt), {"ptrace", "process_vm_readv"}, pt)
        self.assertEqual(len(res.r["processes"]["ptraced"]), len(pt))
        for x in pt.values():
            self.assertEqual(x["target_pid"], target.pid)
            self.assertEqual(x["by"]["exe"], vu.exe_of("strace"))
            self.assertTrue(x["ok"])
            self.assertTrue(x["failing"])
        self.assertIn("ptrace", pt)
        self.assertIn("processes.ptraced: ptrace of pid %d" % target.pid,
                      "\n".join(res.r["reasons"]))


if __name__ == "__main__":
    unittest.main()
