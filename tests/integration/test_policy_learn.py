"""Integration tests for `footprint policy learn|suggest|check` and the
suggestions that generalise: record runs of a small job that makes random
temp names (mktemp) and binds port 0, learn a policy from two runs, and
check that a third run passes it, while a changed job fails naming the
run and the finding.

Each run is a root footprint started as by sudo by the unprivileged user
nobody; the policy commands run the same way and must read logs and
write the policy with nobody's rights only.

Run from the top of the tree:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_policy_learn.py
"""

import json
import os
import re
import socket
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402

import sudo_util as su  # noqa: E402
from sudo_util import (EXIT_OK, EXIT_USAGE, EXIT_VERDICT,  # noqa: E402
                       FOOTPRINT, PY, Sandbox)

NOBODY = su.nobody()

# A job with names that change every run: a mktemp directory it keeps, a
# mktemp file it removes again, and a UDP bind that asks for any port.
# Each temp name starts its random part with a capital and a digit: policy
# suggest leaves an all-lower-case or capitalised-word suffix exact, as a
# word (about one mktemp name in 50 of six; docs/policy.md, suggest.c's
# mktemp_suffix), and a fixture left to chance failed about one run in 100.
JOB = r"""
set -e
d=$(mktemp -d "$T/fpjob.K7XXXXXX")
echo a > "$d/a"; echo b > "$d/b"; mkdir "$d/sub"; echo c > "$d/sub/c"
f=$(mktemp "$T/fpjobf.K7XXXXXX"); echo z > "$f"; rm -f "$f"
"$PY" -c 'import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("::1", int(sys.argv[1])))' "$PORT"
echo out > out.txt
if [ -n "$EXTRA" ]; then echo x > "$EXTRA"; fi
"""


class PolicyLearnTest(unittest.TestCase):
    def setUp(self):
        self.sb = Sandbox(self)
        # the job's temp directory: like /tmp, but this test's own
        self.tmp = os.path.join(self.sb.base, "tmp")
        os.mkdir(self.tmp)
        os.chmod(self.tmp, 0o1777)
        self.n = 0

    def record(self, port=0, extra=""):
        """One run of the job, recorded; returns the log's path."""
        self.n += 1
        log = self.sb.out_path("run%d.fplog" % self.n)
        out = self.sb.in_root("out.txt")
        if os.path.exists(out):
            os.unlink(out)
        cmd = ["/usr/bin/env", "T=" + self.tmp, "PY=" + PY,
               "PORT=%d" % port, "EXTRA=" + extra, "sh", "-c", JOB]
        res = self.sb.run(cmd, opts=["--record", log],
                          env=su.sudo_env(NOBODY))
        self.assertIn(res.rc, (EXIT_OK, EXIT_VERDICT), res.describe())
        self.assertEqual(res.cmd["exit_code"], 0, res.describe())
        self.assertEqual(su.owner_mode(log), (NOBODY.pw_uid, NOBODY.pw_gid, 0o600))
        return log

    def footprint(self, *args):
        """footprint ARGS as root under sudo by nobody, in the out dir."""
        p = subprocess.run([FOOTPRINT] + list(args), cwd=self.sb.out,
                           env=su.sudo_env(NOBODY), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        return p.returncode, p.stdout.decode("utf-8", "replace"), \
            p.stderr.decode("utf-8", "replace")

    def names_made(self, log):
        """The random names a run made, from its own receipt."""
        rc, out, err = self.footprint("replay", "-q", "--receipt", "-", log)
        self.assertIn(rc, (EXIT_OK, EXIT_VERDICT), err)
        return set(re.findall(r"fpjobf?\.[A-Za-z0-9]+", out))

    def learn(self, logs, name="ci.policy"):
        path = self.sb.out_path(name)
        rc, out, err = self.footprint("policy", "learn", "-o", path, *logs)
        self.assertEqual(rc, EXIT_OK, out + err)
        self.assertEqual(su.owner_mode(path), (NOBODY.pw_uid, NOBODY.pw_gid, 0o600))
        with open(path) as f:
            return path, f.read()

    def test_learned_policy_passes_a_third_run(self):
        logs = [self.record() for _ in range(3)]
        policy, text = self.learn(logs[:2])
        rules = [ln for ln in text.splitlines() if ln.startswith("allow")]
        # no random name of any run is in the policy: they became globs
        for log in logs:
            for name in self.names_made(log):
                self.assertNotIn(name, text, text)
        self.assertTrue(any(re.match(r"allow .*/fpjob\.\*/  # covers \d+$",
                                     r) for r in rules), text)
        self.assertTrue(any(re.match(r"allow .*/fpjobf\.\*  # covers 2$", r)
                            for r in rules), text)
        self.assertIn("allow bind udp/[::1]:0  # covers 2", rules, text)
        # relative to the one root all the runs had
        self.assertIn("allow out.txt  # covers 2",
                      rules, text)
        self.assertIn("# needed by: every run (2)", text)
        # most findings first
        counts = [int(r.rsplit(" ", 1)[1]) for r in rules]
        self.assertEqual(counts, sorted(counts, reverse=True), text)
        # nothing covers the root or a directory above it
        for r in rules:
            pat = r.split("  #")[0].split(" ")[-1]
            self.assertFalse(self.sb.root.startswith(pat.rstrip("/")), r)
        rc, out, err = self.footprint("policy", "check", policy, logs[2])
        self.assertEqual(rc, EXIT_OK, out + err)
        self.assertEqual(out, "ok   %s\n" % logs[2])
        rc, out, err = self.footprint("replay", "-q", "--policy", policy,
                                      logs[2])
        self.assertEqual(rc, EXIT_OK, out + err)

    def test_changed_job_fails_check_naming_run_and_finding(self):
        logs = [self.record(), self.record()]
        policy, _ = self.learn(logs)
        extra = self.sb.in_root("extra.txt")
        changed = self.record(extra=extra)
        # a port 0 rule does not allow a bind that asked for a fixed port
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        s.bind(("::1", 0))
        port = s.getsockname()[1]
        s.close()
        fixed = self.record(port=port)
        rc, out, err = self.footprint("policy", "check", policy, logs[0],
                                      changed, fixed)
        self.assertEqual(rc, EXIT_VERDICT, out + err)
        lines = out.splitlines()
        self.assertEqual(lines[0], "ok   %s" % logs[0], out)
        self.assertIn("FAIL %s (1 failing finding)" % changed, lines, out)
        self.assertIn("  %s: files.added: %s" % (changed, extra), lines, out)
        self.assertIn("FAIL %s (1 failing finding)" % fixed, lines, out)
        self.assertTrue(any(
            ln.startswith("  %s: network.bound: udp/[::1]:%d by pid" %
                          (fixed, port)) for ln in lines), out)
        self.assertEqual(err, "")

    def test_suggested_policy_passes_its_own_run(self):
        log = self.record()
        path = self.sb.out_path("suggested.policy")
        rc, out, err = self.footprint("policy", "suggest", log, "-o", path)
        self.assertEqual(rc, EXIT_OK, out + err)
        with open(path) as f:
            text = f.read()
        self.assertIn("allow bind udp/[::1]:0  # covers 1", text)
        for name in self.names_made(log):
            self.assertNotIn(name, text, text)
        rc, out, err = self.footprint("replay", "-q", "--policy", path, log)
        self.assertEqual(rc, EXIT_OK, out + err)
        # and the receipt's own suggestions, pasted, pass too (judged by
        # an empty policy, not the recorded one, which ignores binds)
        empty = self.sb.out_path("empty.policy")
        with open(empty, "w") as f:
            f.write("# nothing\n")
        os.chmod(empty, 0o644)
        rc, out, err = self.footprint("replay", "-q", "--policy", empty,
                                      "--receipt", "-", log)
        self.assertEqual(rc, EXIT_VERDICT, err)
        r = json.loads(out)
        self.assertTrue(all(set(x) == {"rule", "covers"}
                            for x in r["suggestions"]), fptest.rules(r))
        self.assertIn("allow bind udp/[::1]:0", fptest.rules(r))
        pasted = self.sb.out_path("pasted.policy")
        with open(pasted, "w") as f:
            f.write("".join(s + "\n" for s in fptest.rules(r)))
        os.chmod(pasted, 0o644)
        rc, out, err = self.footprint("replay", "-q", "--policy", pasted, log)
        self.assertEqual(rc, EXIT_OK, out + err)

    def test_golden_logs_pass_their_suggested_policy(self):
        data = os.path.join(su.TOP, "tests", "data")
        for name in ("changes", "leftover", "clean"):
            with self.subTest(name):
                # readable by nobody: a copy in the sandbox
                log = self.sb.out_path(name + ".fplog")
                with open(os.path.join(data, name + ".fplog"), "rb") as f:
                    raw = f.read()
                with open(log, "wb") as f:
                    f.write(raw)
                os.chmod(log, 0o644)
                path = self.sb.out_path(name + ".policy")
                rc, out, err = self.footprint("policy", "suggest", log,
                                              "-o", path)
                self.assertEqual(rc, EXIT_OK, out + err)
                rc, out, err = self.footprint("replay", "-q", "--policy",
                                              path, log)
                self.assertEqual(rc, EXIT_OK, out + err)
                rc, out, err = self.footprint("policy", "check", path, log)
                self.assertEqual((rc, out), (EXIT_OK, "ok   %s\n" % log),
                                 err)

    def test_a_failed_write_is_one_line_and_usage(self):
        """policy suggest and replay writing to a full stdout: exit 2 and
        one line naming what could not be written, never "ok"."""
        data = os.path.join(su.TOP, "tests", "data")
        log = self.sb.out_path("clean.fplog")
        with open(os.path.join(data, "clean.fplog"), "rb") as f:
            raw = f.read()
        with open(log, "wb") as f:
            f.write(raw)
        os.chmod(log, 0o644)
        for args, what in ((["policy", "suggest", log], "the policy"),
                           (["policy", "learn", log], "the policy"),
                           (["replay", "-q", "--receipt", "-", log],
                            "the receipt")):
            with self.subTest(args), open("/dev/full", "wb") as full:
                p = subprocess.run([FOOTPRINT] + args, cwd=self.sb.out,
                                   env=su.sudo_env(NOBODY),
                                   stdin=subprocess.DEVNULL, stdout=full,
                                   stderr=subprocess.PIPE, timeout=60)
                err = p.stderr.decode("utf-8", "replace")
                self.assertEqual(p.returncode, EXIT_USAGE, err)
                self.assertEqual(
                    err, "footprint: writing %s to - failed: "
                    "No space left on device\n" % what)

    def test_logs_are_read_with_the_users_rights(self):
        log = self.record()
        secret = self.sb.out_path("root-only.fplog")
        with open(log, "rb") as f:
            raw = f.read()
        fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, raw)
        os.close(fd)
        os.chown(secret, 0, 0)
        out_path = self.sb.out_path("never.policy")
        for args in (["policy", "learn", "-o", out_path, log, secret],
                     ["policy", "check", self.sb.noise_policy(), secret]):
            with self.subTest(args[1]):
                rc, out, err = self.footprint(*args)
                self.assertEqual(rc, EXIT_USAGE, out + err)
                self.assertTrue(err.startswith("footprint: "), err)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertNotIn("fpjob", out + err)
                self.assertFalse(os.path.exists(out_path))

    def test_bad_input(self):
        cases = [
            (["policy"], "say learn, suggest or check"),
            (["policy", "frobnicate"], "unknown 'frobnicate'"),
            (["policy", "learn"], "at least one LOG"),
            (["policy", "check", "x.policy"], "at least one LOG"),
            (["policy", "suggest", "a", "b"], "exactly one LOG"),
            (["policy", "learn", "--bogus", "a"], "unknown option"),
            (["policy", "check", "/nonexistent.policy", "/nonexistent"],
             "footprint: "),
        ]
        for args, want in cases:
            with self.subTest(args):
                rc, out, err = self.footprint(*args)
                self.assertEqual(rc, EXIT_USAGE, out + err)
                self.assertTrue(err.startswith("footprint: "), err)
                self.assertIn(want, err)
        rc, out, _ = self.footprint("policy", "--help")
        self.assertEqual(rc, EXIT_OK)
        self.assertIn("footprint policy learn -o ci.policy", out)
        self.assertIn("footprint policy check ci.policy", out)


if __name__ == "__main__":
    unittest.main()
