"""The Debian package (scripts/package, issue 32), installed on a clean
Debian 12.

scripts/package builds footprint_<version>_<arch>.deb (its own build
directory, kept under FOOTPRINT_BUILD_DIR, so a second run only relinks
what changed). The package is checked as a file (control fields, Depends:
against the libraries the binary really needs, contents, lintian) and
then used where nothing of the developer's machine helps it: a clean
Debian 12 root made by debootstrap --variant=minbase (cached under
FOOTPRINT_BUILD_DIR/debootstrap, made again after a week), where
`apt-get install ./footprint_*.deb` has to fetch what Depends: names, and
footprint --version, footprint run -- true and a small traced script with
a receipt must work (tests/integration/deb_chroot.sh).

Skipped, with the reason, where Debian's archive cannot be reached
(FOOTPRINT_DEBIAN_MIRROR, default http://deb.debian.org/debian).
Needs root (debootstrap, chroot, BPF).
"""

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

import fptest  # noqa: E402
from fptest import EXIT_NOTRACE, FOOTPRINT, TOP, cannot_test

BUILD = os.path.abspath(os.environ.get("FOOTPRINT_BUILD_DIR")
                        or os.path.dirname(FOOTPRINT))
MIRROR = os.environ.get("FOOTPRINT_DEBIAN_MIRROR",
                        "http://deb.debian.org/debian")
CHROOT = os.path.join(TOP, "tests", "integration", "deb_chroot.sh")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def control(deb):
    out = run(["dpkg-deb", "-f", deb], check=True).stdout
    fields, key = {}, None
    for line in out.split("\n"):
        if line.startswith(" ") and key:
            fields[key] += "\n" + line
        elif ":" in line:
            key, value = line.split(":", 1)
            fields[key] = value.strip()
    return fields


def depends(value):
    """{package: constraint} of a Depends: line (no alternatives here)."""
    out = {}
    for dep in value.split(","):
        m = re.fullmatch(r"\s*([a-z0-9.+-]+)(?::\w+)?\s*(\((.*)\))?\s*", dep)
        assert m, dep
        out[m.group(1)] = m.group(3)
    return out


class Package(unittest.TestCase):
    deb = None

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            cannot_test("the package test needs root (debootstrap, chroot)")
        # the tree may hold uncommitted work while it is tested: the
        # package is then marked .dirty, and that is what is checked
        t = time.monotonic()
        r = run([os.path.join(TOP, "scripts", "package"), "--allow-dirty"],
                env={**os.environ, "FOOTPRINT_BUILD_DIR": BUILD},
                timeout=1800)
        if r.returncode != 0:
            raise AssertionError("scripts/package failed: " + r.stderr)
        cls.deb = r.stdout.strip().split("\n")[-1]
        cls.build_s = time.monotonic() - t
        cls.x = tempfile.mkdtemp(prefix="fpdeb-")
        run(["dpkg-deb", "-x", cls.deb, cls.x], check=True)
        cls.binary = os.path.join(cls.x, "usr", "bin", "footprint")

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "x", None):
            shutil.rmtree(cls.x, True)

    def test_name_and_control(self):
        version = run([self.binary, "--version"],
                      check=True).stdout.split("\n")[0].split(" ", 1)[1]
        want = version.replace("-", "~")
        arch = run(["dpkg", "--print-architecture"],
                   check=True).stdout.strip()
        self.assertEqual(os.path.basename(self.deb),
                         "footprint_%s_%s.deb" % (want, arch))
        f = control(self.deb)
        self.assertEqual(f["Package"], "footprint")
        self.assertEqual(f["Version"], want)
        self.assertEqual(f["Architecture"], arch)
        # the same build as the tests': same version and commit
        self.assertEqual(run([self.binary, "--version"]).stdout.split(
            "\n")[:2], run([FOOTPRINT, "--version"]).stdout.split("\n")[:2])

    def test_depends_are_the_binarys_libraries(self):
        """Every library the binary needs comes from a package Depends:
        names, with a minimum version (dpkg-shlibdeps), and nothing else
        is in it: no compiler, no bpftool."""
        deps = depends(control(self.deb)["Depends"])
        needed = re.findall(r"\(NEEDED\).*\[(.+)\]", run(
            ["readelf", "-d", self.binary], check=True).stdout)
        self.assertIn("libbpf.so.1", needed)
        ldd = run(["ldd", self.binary], check=True).stdout
        owners = set()
        for so in needed:
            path = re.search(re.escape(so) + r" => (\S+)", ldd).group(1)
            path = os.path.realpath(path)
            owner = None
            for p in (path, path.replace("/usr/lib/", "/lib/", 1)):
                r = run(["dpkg", "-S", p])
                if r.returncode == 0:
                    owner = r.stdout.split(":")[0]
                    break
            self.assertTrue(owner, "no package owns %s (%s)" % (path, so))
            owners.add(owner)
            self.assertIn(owner, deps, "%s (%s) is not in Depends: %s" %
                          (so, owner, deps))
            self.assertTrue(deps[owner] and deps[owner].startswith(">="),
                            "%s has no minimum version" % owner)
        self.assertEqual(set(deps), owners)
        rec = control(self.deb).get("Recommends", "")
        for tool in ("clang", "llvm", "gcc", "bpftool", "libbpf-dev"):
            self.assertNotIn(tool, " ".join(deps) + rec)

    def test_contents(self):
        files = set()
        for d, _, names in os.walk(self.x):
            for n in names:
                files.add(os.path.relpath(os.path.join(d, n), self.x))
        for page in os.listdir(os.path.join(BUILD, "man")):
            self.assertIn("usr/share/man/man1/%s.gz" % page, files)
        for want in ("usr/bin/footprint",
                     "usr/share/bash-completion/completions/footprint",
                     "usr/share/doc/footprint/copyright",
                     "usr/share/doc/footprint/changelog.gz",
                     "usr/share/doc/footprint/README.md",
                     "usr/share/doc/footprint/docs/policy.md"):
            self.assertIn(want, files)
        self.assertEqual([f for f in files if f.endswith(".o")
                          or "/include/" in f], [])
        with gzip.open(os.path.join(
                self.x, "usr/share/doc/footprint/changelog.gz"), "rt") as f:
            self.assertTrue(f.read().startswith(
                "footprint (%s) " % control(self.deb)["Version"]))
        # stripped, and the BPF object is inside it (an ELF of machine
        # EM_BPF, 247, embedded by the skeleton)
        sections = run(["readelf", "-S", self.binary], check=True).stdout
        self.assertNotIn(".symtab", sections)
        with open(self.binary, "rb") as f:
            blob = f.read()
        at = blob.find(b"\x7fELF", 1)
        found = False
        while at > 0:
            if int.from_bytes(blob[at + 18:at + 20], "little") == 247:
                found = True
                break
            at = blob.find(b"\x7fELF", at + 1)
        self.assertTrue(found, "no BPF object embedded in the binary")
        # the completion in the package is the packaged binary's own
        with open(os.path.join(
                self.x, "usr/share/bash-completion/completions/footprint")) as f:
            self.assertEqual(f.read(), run([self.binary, "completion",
                                            "bash"]).stdout)

    def test_lintian_clean(self):
        """No tag at all, pedantic and info included: there is no
        override (scripts/package)."""
        if not shutil.which("lintian"):
            raise AssertionError("lintian is missing; run scripts/install-deps")
        r = run(["lintian", "-I", "-E", "--pedantic", self.deb], timeout=600)
        tags = [l for l in r.stdout.split("\n") if re.match(r"^[EWIPX]: ", l)]
        self.assertEqual(tags, [], r.stdout + r.stderr)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_clean_debian_root(self):
        try:
            urllib.request.urlopen(MIRROR + "/dists/bookworm/Release",
                                   timeout=20).read(1)
        except OSError as e:
            raise unittest.SkipTest(
                "Debian's archive %s cannot be reached (%s); the clean "
                "Debian 12 root needs it" % (MIRROR, e))
        cache = os.path.join(BUILD, "debootstrap")
        os.makedirs(cache, exist_ok=True)
        work = tempfile.mkdtemp(prefix="run.", dir=cache)
        self.addCleanup(shutil.rmtree, work, True)
        t = time.monotonic()
        r = run([CHROOT, cache, self.deb, work], timeout=1800)
        took = time.monotonic() - t
        out = r.stdout
        self.assertEqual(r.returncode, 0, out + r.stderr)
        print("\n   package %.0f s; clean root (%s) and the runs in it %.0f s"
              % (self.build_s, "cached" if "clean root: cached" in out
                 else "debootstrap", took), file=sys.stderr)
        self.assertIn("== apt-get install rc=0\n", out, out)
        # what Depends: brought in: libbpf1 is not in a minbase root
        self.assertIn("== set up libbpf1:amd64\n", out)
        self.assertIn("== set up footprint\n", out)
        self.assertNotIn("== compiler:", out)
        want = run([self.binary, "--version"]).stdout
        self.assertIn("== footprint --version rc=0\n", out)
        self.assertEqual("".join(l[len("== version: "):] + "\n" for l in
                                 out.split("\n")
                                 if l.startswith("== version: ")), want)
        if "== footprint run -- true rc=125" in out:
            cannot_test("footprint cannot trace in the chroot: " + out)
        self.assertIn("== footprint run -- true rc=0\n", out, out)
        # a passing run's line says what it saw (issue 29): nothing here
        self.assertIn("== true: footprint: ok: nothing changed\n", out)

        upper = os.path.join(work, "upper", "root")
        self.assertIn("== job allowed rc=0\n", out, out)
        with open(os.path.join(upper, "ok.json")) as f:
            ok = json.load(f)
        self.assertTrue(ok["ok"], ok["reasons"])
        self.assertTrue(ok["trace"]["complete"])
        added = {a["path"]: a for a in ok["files"]["added"]}
        self.assertEqual(fptest.argv_of(ok, added["/root/job/build/app"]["by"]),
                         ["/bin/sh", "./job.sh"])
        self.assertEqual(added["/root/job/build/app"]["rule"], "allow build/")
        self.assertEqual(len(ok["files"]["transient"]), 1)

        self.assertIn("== job strict rc=1\n", out, out)
        with open(os.path.join(upper, "strict.json")) as f:
            strict = json.load(f)
        self.assertFalse(strict["ok"])
        self.assertIn("files.changed: /root/job/job.log", strict["reasons"])
        self.assertTrue([x for x in strict["reasons"]
                         if x.startswith("files.transient: /tmp/job.")],
                        strict["reasons"])

        # sudo footprint run by a user: the command ran as the user, and
        # the receipt is the user's
        self.assertIn("== sudo installed rc=0\n", out, out)
        self.assertIn("== user run rc=0\n", out, out)
        self.assertIn("== owner /home/dev/job/out dev 644\n", out)
        self.assertIn("== owner /home/dev/r.json dev 600\n", out)
        with open(os.path.join(work, "upper", "home", "dev", "r.json")) as f:
            user = json.load(f)
        self.assertTrue(user["ok"], user["reasons"])
        self.assertEqual([a["path"] for a in user["files"]["added"]],
                         ["/home/dev/job/out"])


class Refusals(unittest.TestCase):
    def test_a_modified_tree_is_refused(self):
        """Its package could not be told from the commit's: refused before
        anything is built, unless --allow-dirty marks it."""
        d = tempfile.mkdtemp(prefix="fpdirty-")
        self.addCleanup(shutil.rmtree, d)
        os.mkdir(os.path.join(d, "scripts"))
        for s in ("package", "install-deps"):
            shutil.copy2(os.path.join(TOP, "scripts", s),
                         os.path.join(d, "scripts", s))
        with open(os.path.join(d, "tracked"), "w") as f:
            f.write("a\n")
        git = ["git", "-C", d, "-c", "user.name=t", "-c", "user.email=t@t"]
        run(git + ["init", "-q"], check=True)
        run(git + ["add", "."], check=True)
        run(git + ["commit", "-q", "-m", "x"], check=True)
        with open(os.path.join(d, "tracked"), "a") as f:
            f.write("b\n")
        r = run([os.path.join(d, "scripts", "package")],
                env={**os.environ, "FOOTPRINT_BUILD_DIR":
                     os.path.join(d, "build")})
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertRegex(r.stderr, r"^footprint: package: the tree has "
                         r"uncommitted changes; commit them, or pass "
                         r"--allow-dirty[^\n]*\n$")
        self.assertFalse(os.path.exists(os.path.join(d, "build", "package")))


if __name__ == "__main__":
    unittest.main()
