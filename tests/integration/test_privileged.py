"""Integration tests for processes.privileged: an exec that raised a
process's privileges above the image before it.

footprint runs as root the way sudo starts it (SUDO_UID of nobody, see
sudo_util), so the command runs as nobody. A setuid-root helper and a
helper with file capabilities are compiled here from privhelper.c into a
directory on a filesystem that honours set-id bits; the helper prints the
credentials the kernel gave it, which the exec event must show exactly.

Run from the top of the tree, as root:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_privileged.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, EXIT_VERDICT, FOOTPRINT, Sandbox  # noqa: E402

NOBODY = su.nobody()
HERE = os.path.dirname(os.path.abspath(__file__))
BIN = None  # the directory holding the helpers
SETUID = None  # setuid-root copy
FILECAP = None  # copy with cap_net_raw+ep
PLAIN = None  # neither
SUDO = shutil.which("sudo")
# the secrets sudo reads (docs/policy.md, "Sensitive reads")
SUDO_READS = ("allow read /etc/shadow", "allow read /etc/sudoers",
              "allow read /etc/sudoers.d/")
SETCAP = shutil.which("setcap")
CAP_NET_RAW = 1 << 13


def setUpModule():
    global BIN, SETUID, FILECAP, PLAIN
    su.check_binary()
    BIN = os.path.realpath(tempfile.mkdtemp(prefix="fppriv-", dir="/tmp"))
    os.chmod(BIN, 0o755)
    if os.statvfs(BIN).f_flag & os.ST_NOSUID:
        raise unittest.SkipTest("/tmp is mounted nosuid: set-id bits "
                                "would not be honoured")
    PLAIN = os.path.join(BIN, "plain")
    subprocess.run(["cc", "-O2", "-o", PLAIN,
                    os.path.join(HERE, "privhelper.c")], check=True)
    SETUID = os.path.join(BIN, "setuid-helper")
    shutil.copy(PLAIN, SETUID)
    os.chmod(SETUID, 0o4755)
    if SETCAP:
        FILECAP = os.path.join(BIN, "filecap-helper")
        shutil.copy(PLAIN, FILECAP)
        os.chmod(FILECAP, 0o755)
        subprocess.run([SETCAP, "cap_net_raw+ep", FILECAP], check=True)


def tearDownModule():
    if BIN:
        shutil.rmtree(BIN, ignore_errors=True)


def caps(mask):
    """CAP_* names of a mask, as the receipt spells them (bit order)."""
    names = {0: "CAP_CHOWN", 7: "CAP_SETUID", 13: "CAP_NET_RAW",
             21: "CAP_SYS_ADMIN"}
    return [names.get(i, i) for i in range(64) if mask >> i & 1]


def helper_line(res):
    """The helper's own view of its credentials, from the command's
    stdout (footprint passes it through)."""
    lines = [ln for ln in res.out.splitlines() if ln.count(" ") == 8]
    assert len(lines) == 1, res.describe()
    f = lines[0].split()
    return ([int(x) for x in f[:6]], int(f[6], 16), int(f[7], 16),
            int(f[8]))


class PrivilegedTest(unittest.TestCase):
    def setUp(self):
        self.sb = Sandbox(self)
        self.env = su.sudo_env(NOBODY)

    def policy(self, *lines):
        path = os.path.join(self.sb.base, "p%d.policy" % self.sb.n)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(path, 0o644)
        return ["--policy", path]

    def execs(self, res, exe):
        return [p for p in res.r["processes"]["executed"] if p["exe"] == exe]

    def check_creds_match_helper(self, res, exe):
        """The exec event's creds are what the helper itself saw."""
        ids, eff, prm, nnp = helper_line(res)
        ex = self.execs(res, exe)
        self.assertEqual(len(ex), 1, res.describe())
        c = ex[0]["creds"]
        self.assertEqual([c[k] for k in ("uid", "euid", "suid", "gid",
                                         "egid", "sgid")], ids)
        # names the test knows; every bit must be there by position
        self.assertEqual(len(c["cap_eff"]), bin(eff).count("1"))
        self.assertEqual(len(c["cap_prm"]), bin(prm).count("1"))
        for name in caps(eff):
            if isinstance(name, str):
                self.assertIn(name, c["cap_eff"])
        self.assertEqual(c["no_new_privs"], bool(nnp))
        return c

    def test_setuid_helper_is_privileged(self):
        res = self.sb.run(["sh", "-c", SETUID + "; ls; cat </dev/null"],
                          env=self.env)
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        c = self.check_creds_match_helper(res, SETUID)
        self.assertEqual((c["uid"], c["euid"], c["suid"]),
                         (NOBODY.pw_uid, 0, 0))
        self.assertTrue(c["secure_exec"])
        priv = res.r["processes"]["privileged"]
        self.assertEqual([p["exe"] for p in priv], [SETUID], res.describe())
        p = priv[0]
        self.assertEqual(sorted(p["rose"]), ["caps", "ids"])
        self.assertEqual(p["base_creds"]["euid"], NOBODY.pw_uid)
        self.assertEqual(p["base_creds"]["cap_prm"], [])
        self.assertFalse(p["allowed"])
        self.assertIn("processes.privileged: pid %d %s" % (p["pid"], SETUID),
                      res.r["reasons"])
        # the same pid's exec, by its parent (sh)
        sh = [e for e in res.r["processes"]["executed"]
              if e["pid"] == p["ppid"]]
        self.assertEqual(len(sh), 1)

    def test_allow_privileged_rule(self):
        res = self.sb.run(["sh", "-c", SETUID], env=self.env,
                          opts=self.policy("allow privileged %s/*-helper"
                                           % BIN))
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        p = res.r["processes"]["privileged"]
        self.assertEqual([x["exe"] for x in p], [SETUID])
        self.assertTrue(p[0]["allowed"])
        self.assertEqual(p[0]["rule"], "allow privileged %s/*-helper" % BIN)

    def test_process_rule_is_not_enough(self):
        res = self.sb.run(["sh", "-c", SETUID], env=self.env,
                          opts=self.policy("allow process " + SETUID))
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        self.assertFalse(res.r["processes"]["privileged"][0]["allowed"])

    def test_first_process_setuid(self):
        """Nothing traced before it: the kernel's secure exec says so."""
        res = self.sb.run([SETUID], env=self.env)
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        priv = res.r["processes"]["privileged"]
        self.assertEqual([p["exe"] for p in priv], [SETUID])
        self.assertIsNone(priv[0]["base_creds"])
        self.assertEqual(priv[0]["rose"], ["secure_exec"])

    def test_no_new_privs_blocks_it(self):
        """Under no_new_privs the set-uid bit is ignored: no finding."""
        setpriv = shutil.which("setpriv")
        if not setpriv:
            self.skipTest("setpriv is not installed")
        res = self.sb.run([setpriv, "--no-new-privs", SETUID], env=self.env)
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        c = self.check_creds_match_helper(res, SETUID)
        self.assertTrue(c["no_new_privs"])
        self.assertEqual(c["euid"], NOBODY.pw_uid)
        self.assertEqual(res.r["processes"]["privileged"], [])

    @unittest.skipUnless(SETCAP, "setcap (libcap2-bin) is not installed")
    def test_file_capabilities(self):
        res = self.sb.run(["sh", "-c", FILECAP], env=self.env)
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        c = self.check_creds_match_helper(res, FILECAP)
        self.assertEqual(c["cap_prm"], ["CAP_NET_RAW"])
        self.assertEqual(c["euid"], NOBODY.pw_uid)
        priv = res.r["processes"]["privileged"]
        self.assertEqual([p["exe"] for p in priv], [FILECAP])
        self.assertEqual(priv[0]["rose"], ["caps"])

    def test_normal_run_has_none(self):
        res = self.sb.run(["sh", "-c", "ls; cat </dev/null; " + PLAIN],
                          env=self.env)
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        self.assertEqual(res.r["processes"]["privileged"], [])
        ex = res.r["processes"]["executed"]
        self.assertGreaterEqual(len(ex), 3)
        for e in ex:
            c = e["creds"]
            self.assertEqual((c["uid"], c["euid"], c["suid"]),
                             (NOBODY.pw_uid,) * 3, e)
            self.assertEqual((c["cap_eff"], c["cap_prm"]), ([], []), e)
            self.assertFalse(c["secure_exec"], e)
        self.check_creds_match_helper(res, PLAIN)

    def test_unshare_user_namespace_is_not_privileged(self):
        unshare = shutil.which("unshare")
        probe = subprocess.run(["setpriv", "--reuid", str(NOBODY.pw_uid),
                                "--regid", str(NOBODY.pw_gid),
                                "--clear-groups", unshare, "-r", "true"],
                               capture_output=True)
        if probe.returncode != 0:
            self.skipTest("nobody cannot make a user namespace here")
        res = self.sb.run([unshare, "-r", PLAIN], env=self.env)
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        c = self.execs(res, PLAIN)[0]["creds"]
        self.assertGreaterEqual(c["userns_level"], 1)
        self.assertIn("CAP_SYS_ADMIN", c["cap_prm"])
        self.assertEqual(res.r["processes"]["privileged"], [])

    def test_as_root_baseline_is_the_first_process(self):
        """A root run starts privileged: setuid-root gains it nothing."""
        res = self.sb.run(["sh", "-c", SETUID + "; ls"],
                          env=su.base_env())
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        self.assertEqual(res.r["processes"]["privileged"], [])
        c = self.check_creds_match_helper(res, SETUID)
        self.assertEqual(c["uid"], 0)
        self.assertIn("CAP_SYS_ADMIN", c["cap_prm"])

    @unittest.skipUnless(SUDO, "sudo is not installed")
    def test_sudo_is_privileged(self):
        """sudo refuses nobody (no password, no sudoers line), but its
        exec already ran setuid-root. It also leaves its timestamp file
        under /run/sudo, which the second run allows."""
        sudo = os.path.realpath(SUDO)
        res = self.sb.run(["sh", "-c", "%s -n true; exit 0" % sudo],
                          env=self.env)
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        priv = res.r["processes"]["privileged"]
        self.assertEqual([p["exe"] for p in priv], [sudo], res.describe())
        self.assertEqual(priv[0]["creds"]["euid"], 0)
        res = self.sb.run(["sh", "-c", "%s -n true; exit 0" % sudo],
                          env=self.env,
                          opts=self.policy("allow privileged " + sudo,
                                           "allow /run/sudo/**",
                                           *SUDO_READS))
        self.assertEqual(res.rc, EXIT_OK, res.describe())

    @unittest.skipUnless(SUDO, "sudo is not installed")
    def test_sudo_in_a_root_run_is_not(self):
        sudo = os.path.realpath(SUDO)
        # sudo reads its secrets (sudoers, shadow): only those fail it
        res = self.sb.run([sudo, "-n", "true"], env=su.base_env())
        self.assertEqual(res.r["processes"]["privileged"], [])
        self.assertTrue(res.r["reasons"], res.describe())
        self.assertTrue(all(r.startswith("files.read: /etc/")
                            for r in res.r["reasons"]), res.describe())
        res = self.sb.run([sudo, "-n", "true"], env=su.base_env(),
                          opts=self.policy(*SUDO_READS))
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        self.assertEqual(res.r["processes"]["privileged"], [])

    def test_replay_byte_for_byte(self):
        log = self.sb.out_path("priv.fplog")
        res = self.sb.run(["sh", "-c", SETUID + "; " + PLAIN], env=self.env,
                          opts=["--record", log])
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        again = self.sb.out_path("replayed.json")
        r = subprocess.run([FOOTPRINT, "replay", "-q", "-o", again, log],
                           capture_output=True)
        self.assertEqual(r.returncode, EXIT_VERDICT, r.stderr)
        with open(res.receipt_path, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read())
        ev = subprocess.run([FOOTPRINT, "events", log], capture_output=True)
        execs = [json.loads(ln) for ln in ev.stdout.splitlines()
                 if b'"type":"exec"' in ln]
        self.assertEqual([e["creds"]["euid"] for e in execs
                          if e["exe"] == SETUID], [0])

    def test_execs_match_strace(self):
        """The execs footprint saw are the ones strace -f saw."""
        trace = os.path.join(self.sb.base, "strace.out")
        cmd = "ls >/dev/null; %s; cat </dev/null" % PLAIN
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=execve",
                        "-e", "signal=none", "-o", trace, "sh", "-c", cmd],
                       check=True, capture_output=True)
        want = []
        with open(trace) as f:
            for ln in f:
                if "execve(" in ln and "= 0" in ln:
                    want.append(ln.split('execve("', 1)[1].split('"', 1)[0])
        res = self.sb.run(["sh", "-c", cmd], env=self.env)
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        got = [os.path.basename(e["exe"])
               for e in res.r["processes"]["executed"]]
        self.assertEqual(got, [os.path.basename(os.path.realpath(
            shutil.which(w) or w)) for w in want])


if __name__ == "__main__":
    unittest.main()
