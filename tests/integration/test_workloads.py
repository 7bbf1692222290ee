"""Integration tests on real workloads (issue 10): a cmake + make build of
a small C project, `pip install --no-index --target` of a wheel built
here, a git repository of 200 files committed and gc'd, and a tar round
trip of a few hundred files. All built offline from Debian packages
(scripts/install-deps), each in a temp directory of its own, traced by
a root `footprint run`.

For each workload, what a person and a team get out of footprint must be
usable:
  - the summary on stderr stays under 40 lines, verdict first;
  - no suggested rule names a random temp name (a component that looks
    random, or that a second run of the same job never touches);
  - a bind to port 0 is not suggested as the port the kernel picked;
  - the suggested policy, replayed on the same log, passes;
  - `footprint policy learn` over two runs gives a policy that a third
    run passes (`policy check` and `replay --policy`).
And the trace is exact: for the cmake build, every exec, fork and
successful creating open, unlink, rename and mkdir that `strace -f`
sees is in footprint's --events, and the other way round.

Run from the top of the tree, as root:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_workloads.py

FOOTPRINT_WORKLOAD_STATS=1 prints each run's time, summary length and
number of suggestions.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workload_util as wu  # noqa: E402
from workload_util import EXIT_OK, EXIT_VERDICT, PY  # noqa: E402

SUMMARY_MAX_LINES = 40


class CMakeBuild:
    """A static library of three files and a program linked with it."""
    name = "cmake"
    tools = ("cmake", "make", "cc", "sh")
    modules = ()

    def setup(self, ws):
        tree = {"CMakeLists.txt":
                "cmake_minimum_required(VERSION 3.13)\n"
                "project(fpdemo C)\n"
                "add_library(fpcore STATIC src/add.c src/mul.c src/str.c)\n"
                "target_include_directories(fpcore PUBLIC include)\n"
                "add_executable(fpdemo src/main.c)\n"
                "target_link_libraries(fpdemo fpcore)\n",
                "include/fpcore.h":
                "int fp_add(int a, int b);\nint fp_mul(int a, int b);\n"
                "const char *fp_name(void);\n",
                "src/add.c": "#include \"fpcore.h\"\n"
                "int fp_add(int a, int b) { return a + b; }\n",
                "src/mul.c": "#include \"fpcore.h\"\n"
                "int fp_mul(int a, int b) { return a * b; }\n",
                "src/str.c": "#include \"fpcore.h\"\n"
                "const char *fp_name(void) { return \"fp\"; }\n",
                "src/main.c": "#include <stdio.h>\n#include \"fpcore.h\"\n"
                "int main(void)\n{\n\tprintf(\"%s %d\\n\", fp_name(),\n"
                "\t       fp_mul(fp_add(1, 2), 3));\n\treturn 0;\n}\n"}
        wu.write_tree(ws, tree)

    def argv(self, ws):
        return ["sh", "-c",
                "cmake -S . -B build && cmake --build build -j2 && "
                "./build/fpdemo"]


class PipInstall:
    """pip install --no-index --target of a wheel built before the run
    (once per test, outside footprint), from a tiny package."""
    name = "pip"
    tools = ()
    modules = ("pip", "setuptools", "wheel")
    wheel = None

    def build_wheel(self, test):
        src = os.path.realpath(tempfile.mkdtemp(prefix="fpwl-wheel-",
                                                dir="/tmp"))
        test.addCleanup(shutil.rmtree, src, True)
        tree = {"pyproject.toml":
                "[build-system]\nrequires = [\"setuptools\"]\n"
                "build-backend = \"setuptools.build_meta\"\n\n"
                "[project]\nname = \"fpwdemo\"\nversion = \"1.0\"\n",
                "src/fpwdemo/__init__.py": "from .core import answer\n"}
        for i in range(12):
            tree["src/fpwdemo/core.py" if i == 0 else
                 "src/fpwdemo/mod%02d.py" % i] = \
                "def answer():\n    return %d\n" % (42 + i)
        wu.write_tree(src, tree)
        p = subprocess.run([PY, "-m", "pip", "wheel", "--no-deps",
                            "--no-build-isolation", "--no-index", "-w",
                            "dist", "."], cwd=src,
                           env=wu.clean_env(src),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=120)
        wheels = os.listdir(os.path.join(src, "dist")) \
            if os.path.isdir(os.path.join(src, "dist")) else []
        if p.returncode != 0 or len(wheels) != 1:
            raise AssertionError("pip wheel failed (rc %d): %s" %
                                 (p.returncode, p.stdout.decode()))
        self.wheel = os.path.join(src, "dist", wheels[0])

    def setup(self, ws):
        os.mkdir(os.path.join(ws, "dist"))
        shutil.copy(self.wheel, os.path.join(ws, "dist"))

    def argv(self, ws):
        return [PY, "-m", "pip", "install", "--no-index", "--target",
                "site", os.path.join("dist", os.path.basename(self.wheel))]


class GitRepo:
    """200 files: git init, add, commit, then git gc."""
    name = "git"
    tools = ("git", "sh")
    modules = ()

    def setup(self, ws):
        wu.write_tree(ws, {"d%d/f%03d.txt" % (i % 10, i):
                           "file %d\n%s\n" % (i, "x" * (i % 50))
                           for i in range(200)})

    def argv(self, ws):
        return ["sh", "-c", "git init -q && git add -A && "
                "git commit -q -m import && git gc -q"]


class TarRoundTrip:
    """A tree of 300 files into a compressed tar, then out again."""
    name = "tar"
    tools = ("tar", "gzip", "sh")
    modules = ()

    def setup(self, ws):
        wu.write_tree(ws, {"src/d%02d/s%d/f%03d.dat" % (i % 12, i % 3, i):
                           "%d\n" % i * (1 + i % 7) for i in range(300)})

    def argv(self, ws):
        return ["sh", "-c", "tar -czf src.tar.gz src && mkdir out && "
                "tar -xzf src.tar.gz -C out"]


class WorkloadTest(unittest.TestCase):
    """Three runs of each workload, then the checks, each a subTest so
    that one failing does not hide the others."""

    def job(self, workload):
        wu.need_tools(*workload.tools)
        wu.need_python_modules(*workload.modules)
        if os.geteuid() != 0:
            wu.cannot_test("footprint run needs root")
        if workload.modules:
            workload.build_wheel(self)
        return wu.Job(self, workload)

    def three_runs(self, job):
        runs = [job.run(str(n)) for n in (1, 2, 3)]
        for r in runs:
            self.assertIsNotNone(r.r, "no receipt\n" + r.describe())
            self.assertEqual(r.r["command"]["exit_code"], 0,
                             "the workload itself failed\n" + r.describe())
            self.assertTrue(r.r["trace"]["complete"], r.describe())
            # strict default policy: a build that writes files fails
            self.assertEqual(r.rc, EXIT_VERDICT, r.describe())
        return runs

    def check_workload(self, workload):
        job = self.job(workload)
        r1, r2, r3 = self.three_runs(job)
        with self.subTest(check="summary"):
            self.check_summary(r1)
        with self.subTest(check="no random names"):
            self.check_no_random_names(job, r1)
        with self.subTest(check="names seen again"):
            self.check_names_seen_again(job, r1, r2)
        with self.subTest(check="ephemeral binds"):
            self.check_ephemeral_binds(r1)
        with self.subTest(check="suggested policy replays"):
            self.check_suggested_policy(job, r1)
        with self.subTest(check="learned policy"):
            self.check_learned_policy(job, r1, r2, r3)

    def check_summary(self, r):
        s = r.summary
        self.assertTrue(s and s[0].startswith("footprint: FAIL"),
                        "the summary does not start with the verdict\n" +
                        r.describe())
        self.assertLess(len(s), SUMMARY_MAX_LINES,
                        "the summary has %d lines\n%s" % (len(s),
                                                          r.describe()))
        trailing = [line for line in s if line != line.rstrip()]
        self.assertEqual(trailing, [], "lines with trailing spaces")

    def check_no_random_names(self, job, r):
        rules = [wu.parse_rule(x) for x in r.suggestions]
        self.assertNotIn(None, rules, "a suggestion is not a policy line: "
                         "%r" % r.suggestions)
        self.assertTrue(rules, "no suggestion\n" + r.describe())
        bad = wu.random_names(rules, job.base)
        if bad:
            self.fail("%d of %d suggestions name random temp names, "
                      "e.g.:\n%s" % (len(bad), len(rules), "\n".join(
                          "  %s  (%s: %s)" % x for x in bad[:15])))

    def check_names_seen_again(self, job, r1, r2):
        """What run 2 never touched, no later run of the job will either:
        every suggestion of run 1 must name, up to its first glob, a path
        that run 2 touched too."""
        seen = wu.ancestors(wu.event_paths(r2.events) |
                            wu.receipt_paths(r2.r) |
                            {job.ws, job.home, job.out})
        unseen = [pat for kind, target, pat in
                  map(wu.parse_rule, r1.suggestions) if target == "path" and
                  wu.literal_prefix(pat, job.ws) not in seen]
        if unseen:
            self.fail("%d suggestions of run 1 name paths that run 2 of "
                      "the same job did not touch, e.g.:\n  %s" %
                      (len(unseen), "\n  ".join(unseen[:15])))

    def check_ephemeral_binds(self, r):
        ports = {str(ev["bound_port"]) for ev in wu.read_ndjson(r.events)
                 if ev.get("type") == "bind" and ev.get("ok") and
                 ev.get("port") == 0 and ev.get("bound_port")}
        named = [pat for kind, target, pat in
                 map(wu.parse_rule, r.suggestions)
                 if target == "bind" and pat.rsplit(":", 1)[-1] in ports]
        self.assertEqual(named, [], "binds to port 0 suggested with the "
                         "port the kernel chose (%s)" % sorted(ports))

    def check_suggested_policy(self, job, r):
        policy = job.write_policy("suggested.policy", r.suggestions)
        rc, out = job.footprint("replay", "--quiet", "--policy", policy,
                                r.log)
        with open(policy) as f:
            text = f.read()
        self.assertEqual(rc, EXIT_OK, "replay with the suggested policy "
                         "failed (rc %d):\n%s\npolicy:\n%s" %
                         (rc, out[-3000:], text[:3000]))
        # and the replay can fail: without the policy the run fails
        empty = job.write_policy("empty.policy", ["# nothing allowed"])
        rc, out = job.footprint("replay", "--quiet", "--policy", empty,
                                r.log)
        self.assertEqual(rc, EXIT_VERDICT, out)

    def check_learned_policy(self, job, r1, r2, r3):
        learned = job.out_path("learned.policy")
        rc, out = job.footprint("policy", "learn", r1.log, r2.log, "-o",
                                learned)
        self.assertEqual(rc, EXIT_OK, "policy learn failed:\n" + out)
        with open(learned) as f:
            text = f.read()
        rules = wu.policy_rules(text)
        self.assertTrue(rules, "policy learn wrote no rule:\n" + text)
        bad = wu.random_names(rules, job.base)
        if bad:
            self.fail("the learned policy names random temp names, e.g.:"
                      "\n%s" % "\n".join("  %s  (%s: %s)" % x
                                          for x in bad[:15]))
        rc, out = self.check_with_retry(job, learned, r3)
        self.assertEqual(rc, EXIT_OK, "a third run fails the learned policy"
                         ":\n%s\nlearned policy:\n%s" % (out[-3000:],
                                                         text[:3000]))
        # check can fail, and says which log failed
        empty = job.write_policy("empty.policy", ["# nothing allowed"])
        rc, out = job.footprint("policy", "check", empty, r1.log)
        self.assertEqual(rc, EXIT_VERDICT, out)
        self.assertIn(os.path.basename(r1.log), out)

    def check_with_retry(self, job, policy, r3):
        """policy check and replay --policy of r3 under policy. A port that
        another process on the host started listening on during the run
        (network.listening is host-wide) is not the job's doing: then the
        job is run once more."""
        for attempt in (1, 2):
            rc, out = job.footprint("policy", "check", policy, r3.log)
            rc2, out2 = job.footprint("replay", "--policy", policy,
                                      "--receipt",
                                      job.out_path("check-%s.json" % r3.tag),
                                      r3.log)
            if rc == EXIT_OK and rc2 == EXIT_OK:
                return rc, out
            if attempt == 2 or not self.only_foreign_listeners(job, r3):
                return (rc or rc2), out + "\nreplay --policy:\n" + out2
            r3 = job.run("3b")

    @staticmethod
    def only_foreign_listeners(job, r):
        path = job.out_path("check-%s.json" % r.tag)
        if not os.path.exists(path):
            return False
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        reasons = doc.get("reasons") or []
        return bool(reasons) and all(x.startswith("network.listening:")
                                     for x in reasons)

    def test_cmake_build(self):
        self.check_workload(CMakeBuild())

    def test_pip_install_offline(self):
        self.check_workload(PipInstall())

    def test_git_commit_and_gc(self):
        self.check_workload(GitRepo())

    def test_tar_round_trip(self):
        self.check_workload(TarRoundTrip())


class StraceOracleTest(unittest.TestCase):
    """footprint's --events against strace -f of the same run."""

    def test_cmake_build_matches_strace(self):
        wl = CMakeBuild()
        wu.need_tools("strace", *wl.tools)
        if os.geteuid() != 0:
            wu.cannot_test("footprint run needs root")
        job = wu.Job(self, wl)
        prefix = job.out_path("strace")
        r = job.run("strace", wrapper=[
            "strace", "-ff", "-qq", "-y", "-s", "65535",
            "-e", "trace=process,%file", "-o", prefix, "--"])
        self.assertEqual(r.r["command"]["exit_code"], 0, r.describe())
        self.assertTrue(r.r["trace"]["complete"], r.describe())
        tids = wu.strace_tids(prefix)
        want = wu.strace_keys(prefix)
        got = wu.footprint_keys(wu.read_ndjson(r.events), tids)
        kinds = {k[0] for k in want}
        # the build must exercise every kind, or the match proves little
        self.assertEqual(kinds, {"exec", "fork", "creat", "unlink",
                                 "rename", "mkdir"}, sorted(kinds))
        missing, extra = wu.match_one_for_one(want, got)
        self.assertEqual(missing, [], "seen by strace, not by footprint")
        self.assertEqual(extra, [], "seen by footprint, not by strace")
        if wu.STATS:
            sys.stderr.write("\n  [strace oracle: %d syscalls matched one "
                             "for one in %d threads]" % (len(want),
                                                         len(tids)))


class RandomNameCheckerTest(unittest.TestCase):
    """The checker itself (no root needed): the temp names the workloads
    make are flagged, the names they keep are not, globs are not."""

    RANDOM = ["ccHRmFDK.cdtor.c", "cc0bQBWU.s", "ccceomci.s", "ccv5kobE.res",
              "pip-target-t2h881yr", "pip-ephem-wheel-cache-sv7xifd6",
              "pip-build-tracker-s8fbts49", "tmpk2j_x9ab", "tmp_obj_0AGBR7",
              "tmp_pack_qLM6OD", "Makefile.tmp21fb1", "TryCompile-Q4MZRF",
              "cmTC_2edc0", "cmTC_2edc0.dir", "st0iZvRf", "stbJD0I0",
              "packs_2hI0qq", "INSTALLERd_zy5p21.tmp",
              "a.cpython-311.pyc.140389760589232",
              "pack-bfd43761b71c74cf6bf9f3d2df6d177b6446599c.pack",
              "3f5e1d0c9a8b7e6f5a4b3c2d1e0f9a8b7c6d5e"]
    KEPT = ["CMakeLists.txt", "CMakeCache.txt", "Makefile2", "3.25.1",
            "CMakeCCompilerId.c", "CompilerIdC", "crtbeginS.o", "x86_64",
            "x86_64-linux-gnu", "cpython-311", "__init__.cpython-311.pyc",
            "fpwdemo-1.0-py3-none-any.whl", "fpwdemo-1.0.dist-info",
            "libkrb5support.so.0", "utf1632prober.cpython-311.pyc",
            "gb2312freq.cpython-311.pyc", "pip-23.0.1.dist-info",
            "PyGObject-3.42.2.egg-info", "ld-linux-x86-64.so.2", "f123.dat",
            "d7", "a0", "tmpfiles.d", "progress.marks", "pkgRedirects",
            "cc*.s", "pip-*", "tmp*", "pack-*.pack", "cmTC_*",
            "TryCompile-*", "[0-9a-f][0-9a-f]"]

    def test_random_names_flagged(self):
        for name in self.RANDOM:
            with self.subTest(name=name):
                self.assertIsNotNone(wu.random_part(name))

    def test_kept_names_not_flagged(self):
        for name in self.KEPT:
            with self.subTest(name=name):
                self.assertIsNone(wu.random_part(name))

    def test_rules_checked_below_own_prefix_only(self):
        rules = [("allow", "path", "/tmp/fpwl-k2j3h4x9/ws/build/"),
                 ("allow", "path", "/tmp/fpwl-k2j3h4x9/ws/st0iZvRf"),
                 ("allow", "path", "build/CMakeFiles/cmTC_2edc0.dir/"),
                 ("allow", "path", "/tmp/cc*.s"),
                 ("allow", "bind", "tcp/[::1]:0")]
        self.assertEqual([(p, c) for p, c, _ in
                          wu.random_names(rules, "/tmp/fpwl-k2j3h4x9")],
                         [("/tmp/fpwl-k2j3h4x9/ws/st0iZvRf", "st0iZvRf"),
                          ("build/CMakeFiles/cmTC_2edc0.dir/",
                           "cmTC_2edc0.dir")])

    def test_policy_lines_parsed(self):
        self.assertEqual(wu.parse_rule("allow /tmp/cc*.s  # 16 findings"),
                         ("allow", "path", "/tmp/cc*.s"))
        self.assertEqual(wu.parse_rule('allow "a b#c\\x41"'),
                         ("allow", "path", "a b#cA"))
        self.assertEqual(wu.parse_rule("allow bind tcp/[::1]:0"),
                         ("allow", "bind", "tcp/[::1]:0"))
        self.assertIsNone(wu.parse_rule("# allow x"))
        self.assertEqual(wu.suggestion_lines(
            {"suggestions": ["allow x", {"rule": "allow y", "count": 3}]}),
            ["allow x", "allow y"])


class StraceParserTest(unittest.TestCase):
    """The oracle's reading of strace -ff -y lines (no root needed)."""

    LINES = [
        'execve("/usr/bin/cmake", ["cmake", "-S", "."], 0x7ffd /* 4 vars '
        '*/) = 0',
        'execve("/usr/local/bin/cc", ["cc"], 0x7ffd /* 4 vars */) = -1 '
        'ENOENT (No such file or directory)',
        'clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, '
        'stack=0x7f, stack_size=0x9000}, 88) = 4242',
        'clone3({flags=CLONE_VM|CLONE_FS|CLONE_THREAD|CLONE_SYSVSEM, '
        'child_tid=0x7f}, 88) = 4243',
        'openat(AT_FDCWD</w/ws>, "b/x.tmp", O_WRONLY|O_CREAT|O_TRUNC, '
        '0666) = 3</w/ws/b/x.tmp>',
        'openat(AT_FDCWD</w/ws>, "b/r", O_RDONLY) = 3</w/ws/b/r>',
        'unlink("stG5LFlz")                = 0',
        'renameat2(AT_FDCWD</w/ws>, "b/x.tmp", 5</w/ws/b>, "x", '
        'RENAME_NOREPLACE) = 0',
        'mkdir("/w/ws/b/c", 0777) = -1 EEXIST (File exists)',
        'mkdirat(AT_FDCWD</w/ws>, "b/../d", 0777) = 0',
    ]

    def test_lines(self):
        keys = [wu._strace_key(7, line) for line in self.LINES]
        self.assertEqual([k for k in keys if k], [
            ("exec", 7, "/usr/bin/cmake"),
            ("fork", 7, 4242),
            ("creat", 7, "/w/ws/b/x.tmp"),
            ("unlink", 7, "stG5LFlz"),
            ("rename", 7, "/w/ws/b/x.tmp", "/w/ws/b/x"),
            ("mkdir", 7, "/w/ws/d")])

    def test_one_for_one(self):
        want = [("unlink", 7, "stG5LFlz"), ("mkdir", 7, "/a"),
                ("mkdir", 7, "/a"), ("creat", 8, "/b")]
        got = [("mkdir", 7, "/a"), ("unlink", 7, "/w/ws/build/stG5LFlz"),
               ("creat", 8, "/c")]
        self.assertEqual(wu.match_one_for_one(want, got),
                         ([("creat", 8, "/b"), ("mkdir", 7, "/a")],
                          [("creat", 8, "/c")]))


if __name__ == "__main__":
    unittest.main()
