"""Integration tests for record and replay: `footprint run --record LOG`,
`footprint replay [RULES] LOG` and `footprint events LOG`.

Every test records a real run (real BPF) of a real command; replay and
events then read the log offline. That replay under the recorded policy
reproduces the live receipt byte for byte is checked for every scenario of
test_verdict.py by verdict_util (each of its runs is recorded and
replayed); this file covers the rest: another policy re-judges, replay
needs no root, events equals `run --events`, the log's mode and the
refusal to overwrite it, a log of a footprint killed with SIGKILL, damaged
logs, the fuzz target, and the log's size.

Run from the top of the tree:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_replay.py

When footprint cannot trace (exit 125) the tests skip, unless
FOOTPRINT_REQUIRE_BPF=1, when they fail.
"""

import base64
import json
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
import verdict_util as vu  # noqa: E402
from verdict_util import (EXIT_OK, EXIT_VERDICT, EXIT_USAGE,  # noqa: E402
                          FOOTPRINT, TOP)

MAGIC = b"FPRINTLG"

# An input scripts/fuzz found (minimised with -minimize_crash): its first
# byte is odd, so fuzz_evlog wraps the rest into one valid frame. It holds
# a file event with an empty path: reconcile_files.c fp_rc_path_get() ->
# fp_hashmap_slot() memcpy(key, NULL, 0), undefined behaviour (UBSan).
FUZZ_EMPTY_PATH = base64.b64decode(
    "AQGgAwEFMC4xLjACDzYuMTguNDQtZmMtdjU5NQMCdm0yNDI5MDY4LWM3ZTgtNGY3"
    "Yi04ODQ4LTZiMDJiYTBjM2UyMwUJ4+3MzLizoPYYBgJzaAYCLWMG7AFta2RpciBs"
    "b2dzOyBlY2hvIHggPiBsb2dzL3J1bi5sb2c7IGVjaG8geSA+PiBtb2Q7IHJtIGRl"
    "bDsgY2htb2QgNjAwIGtlZXA7IGxuIC1zIG1vZCBsbms7IG12IGtlZXAga2VwdDsg"
    "ZWNobyB0ID4gL3RtcC9mcC1nb2xkLXRyYW5zaWVudDsgcm0gL3RtcC9mcC1nb2xk"
    "LXRyYW5zaWVudDsgcHl0aG9uMyAtYyAiaW1wb3J0IHNvY2tldDsgcz1zb2NrZXQu"
    "c29ja2V0KCk7IHMuYmluZCgoXCIxMjcuMC4wLjFcIiwgMCkpIgcOL3RtcC9nb2xk"
    "L3Jvb3QIAQAJAQAKBHJvb3QLDi90bXAvZ29sZC9yb290DAthbGxvdyBsb2dzLw0B"
    "AA4ebGliL2xvY2FsZS9DLlVURi04L0xDX01FU1NBR0VTxwEABkUF0EPUiwEA04sB"
    "AADixgUEYmFzaBIGAICAIAAAAAABIi91c2I1eV8tcG9saWN5AHRtcC9mcGl0LWV2"
    "LQcBAAgCzgEKAQA="
)


def nobody():
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        raise unittest.SkipTest("there is no user nobody")
    return pw.pw_uid, pw.pw_gid




def as_user(uid, gid):
    def drop():
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    return drop


def footprint(*args, user=None, cwd=None, timeout=60, binary=FOOTPRINT):
    """footprint ARGS (replay, events, ...): CompletedProcess, bytes. As
    another user, binary is a copy that user can reach (public_binary)."""
    return subprocess.run([binary] + list(args), cwd=cwd,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout,
                          preexec_fn=as_user(*user) if user else None)


def err_lines(p):
    return p.stderr.decode("utf-8", "replace").splitlines()


def describe(p):
    return "argv=%r rc=%s\nstderr=%s\nstdout=%s" % (
        p.args, p.returncode, p.stderr.decode("utf-8", "replace"),
        p.stdout[:3000].decode("utf-8", "replace"))


def ndjson(raw):
    return [json.loads(line) for line in raw.decode("utf-8").splitlines()
            if line.strip()]


def sh(script):
    return ["sh", "-c", script]


def event_paths(ev):
    """The bytes `footprint events --path-prefix` matches an event on:
    a file event's paths (a symlink's target too), an exec's exe."""
    if ev["type"] == "exec":
        keys = ("exe",)
    elif ev["type"] in ("exit", "fork", "bind", "stats"):
        keys = ()
    else:
        keys = ("path", "old_path", "new_path", "target")
    return [vu.field_bytes(ev, k) for k in keys
            if k in ev or k + "_b64" in ev]


class ReplayTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.env = vu.Env(self)

    # helpers --------------------------------------------------------------
    def log_path(self, name="run.fplog"):
        return os.path.join(self.env.out, name)

    def record(self, cmd, roots, log=None, opts=(), **kw):
        """A recorded `footprint run` (the receipt checked by verdict_util);
        returns (Result, log path)."""
        log = log or self.log_path("run-%d.fplog" % (self.env.n + 1))
        res = self.env.run(cmd, roots=roots, opts=["--record", log] +
                           list(opts), **kw)
        self.assertIn(res.rc, (EXIT_OK, EXIT_VERDICT), res.describe())
        self.assertTrue(os.path.isfile(log), res.describe())
        return res, log

    def public_copy(self, log):
        """A 0644 copy of log outside the 0700 test directory."""
        return fptest.world_readable_copy(self, log, 0o644)

    def as_nobody(self, *args):
        """footprint ARGS as nobody, from a copy of the binary nobody can
        reach wherever the build directory is."""
        if not getattr(self, "public_binary", None):
            self.public_binary = fptest.world_readable_copy(self, FOOTPRINT)
        return footprint(*args, user=nobody(), binary=self.public_binary)

    def nobody_dir(self):
        uid, gid = nobody()
        path = tempfile.mkdtemp(prefix="fpreplay-", dir="/tmp")
        self.addCleanup(shutil.rmtree, path, True)
        os.chown(path, uid, gid)
        return path

    def replay_as_nobody(self, log, *rules):
        """footprint replay RULES --receipt R LOG as nobody: (proc, parsed
        receipt); the receipt's bytes are in self.last_receipt."""
        out = os.path.join(self.nobody_dir(), "replay.json")
        p = self.as_nobody("replay", *rules, "--receipt", out, log)
        doc = self.last_receipt = None
        if os.path.exists(out):
            self.assertEqual(os.stat(out).st_uid, nobody()[0])
            with open(out, "rb") as f:
                self.last_receipt = f.read()
            doc = json.loads(self.last_receipt)
            errs = vu.schema_errors(doc)
            self.assertEqual(errs, [], "replay receipt does not match the "
                             "schema\n" + describe(p))
        return p, doc

    def assert_one_error_line(self, p, rc, *needles):
        self.assertEqual(p.returncode, rc, describe(p))
        lines = err_lines(p)
        self.assertEqual(len(lines), 1, describe(p))
        self.assertTrue(lines[0].startswith("footprint:"), describe(p))
        for n in needles:
            self.assertIn(n, lines[0], describe(p))
        return lines[0]

    # another policy ---------------------------------------------------------
    def test_replay_with_another_policy_rejudges_without_root(self):
        root = self.env.root(tree={"a.txt": "a\n"})
        new = os.path.join(root, "new.txt")
        a = os.path.join(root, "a.txt")

        # fails live on the added file; passes replayed with --allow it
        res, log = self.record(sh("echo x > new.txt"), [root], cwd=root)
        self.assertEqual(res.rc, EXIT_VERDICT, res.describe())
        self.assertIn("files.added: " + new, res.r["reasons"])
        pub = self.public_copy(log)
        p, doc = self.replay_as_nobody(pub)
        self.assertEqual(p.returncode, EXIT_VERDICT, describe(p))
        with open(res.receipt_path, "rb") as f:
            self.assertEqual(self.last_receipt, f.read(),
                             "replay as nobody differs from the live receipt")
        for rule in ("new.txt", new):
            with self.subTest(allow=rule):
                p, doc = self.replay_as_nobody(pub, "--allow", rule)
                self.assertEqual(p.returncode, EXIT_OK, describe(p))
                self.assertIs(doc["ok"], True, describe(p))
                self.assertEqual(doc["reasons"], [])
                f = [x for x in doc["files"]["added"] if x["path"] == new]
                self.assertEqual(len(f), 1, doc)
                self.assertIs(f[0]["allowed"], True, doc)
                self.assertEqual(f[0]["rule"], "allow " + rule, doc)
                # the rest of the receipt is the run's, not replay's
                self.assertEqual(doc["command"], res.r["command"])
                self.assertEqual(doc["trace"], res.r["trace"])

        # passes live; fails replayed with --forbid the changed file
        res, log = self.record(sh("echo y >> a.txt"), [root], cwd=root,
                               opts=["--allow", "a.txt"])
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        pub = self.public_copy(log)
        p, doc = self.replay_as_nobody(pub)
        self.assertEqual(p.returncode, EXIT_OK, describe(p))
        p, doc = self.replay_as_nobody(pub, "--forbid", "a.txt")
        self.assertEqual(p.returncode, EXIT_VERDICT, describe(p))
        self.assertIs(doc["ok"], False)
        c = [x for x in doc["files"]["changed"] if x["path"] == a]
        self.assertEqual(len(c), 1, doc)
        self.assertIs(c[0]["forbidden"], True, doc)
        self.assertEqual(c[0]["rule"], "forbid a.txt", doc)
        self.assertIn("content", c[0]["changes"])
        # a rule option replaces the recorded policy: the recorded
        # "allow a.txt" is gone, so a policy file with only an unrelated
        # rule fails the change too
        pol = os.path.join(self.nobody_dir(), "p.policy")
        with open(pol, "w") as f:
            f.write("allow other.txt\n")
        os.chmod(pol, 0o644)
        p, doc = self.replay_as_nobody(pub, "--policy", pol)
        self.assertEqual(p.returncode, EXIT_VERDICT, describe(p))
        self.assertIn("files.changed: " + a, doc["reasons"])

        # the 0600 log itself is not readable to nobody: exit 2, one line
        os.chmod(self.env.base, 0o755)
        os.chmod(self.env.out, 0o755)
        p = self.as_nobody("replay", log)
        self.assert_one_error_line(p, EXIT_USAGE, log)

    # events ---------------------------------------------------------------
    def test_events_equals_run_events_and_filters(self):
        root = self.env.root(tree={"keep.txt": "k\n"})
        evfile = os.path.join(self.env.out, "live.ndjson")
        script = ("mkdir d && echo 1 > d/a && mv d/a d/b && ln -s b d/c && "
                  "(echo 2 > sub.txt) && rm d/b d/c && cat keep.txt "
                  ">/dev/null && /bin/true")
        res, log = self.record(sh(script), [root], cwd=root,
                               opts=["--events", evfile])
        with open(evfile, "rb") as f:
            live = ndjson(f.read())
        self.assertEqual(live[-1]["type"], "stats", live[-1])
        live_events, live_stats = live[:-1], live[-1]
        self.assertTrue(live_events)

        p = footprint("events", log)
        self.assertEqual(p.returncode, EXIT_OK, describe(p))
        self.assertEqual(p.stderr, b"", describe(p))
        got = ndjson(p.stdout)
        self.assertEqual(got[-1]["type"], "stats", got[-1])
        self.assertEqual(got[:-1], live_events)
        self.assertEqual((got[-1]["events"], got[-1]["lost"],
                          got[-1]["complete"]),
                         (live_stats["events"], live_stats["lost"],
                          live_stats["complete"]))
        self.assertEqual(got[-1]["events"], res.r["trace"]["events"])
        # the bytes too: only the stats line may differ
        with open(evfile, "rb") as f:
            self.assertEqual(p.stdout.splitlines()[:-1],
                             f.read().splitlines()[:-1])

        def check(args, want):
            # a filter prints what it matches and nothing else: no stats
            # record (issue 29: `--type exec | jq '.argv'` read it)
            p = footprint("events", *args, log)
            self.assertEqual(p.returncode, EXIT_OK, describe(p))
            got = ndjson(p.stdout)
            self.assertEqual(got, want, args)
            return want

        execs = [e for e in live_events if e["type"] == "exec"]
        mv = [e for e in execs if e["argv"][:1] == ["mv"]]
        self.assertEqual(len(mv), 1, execs)
        types = {e["type"] for e in live_events}
        for t in ("exec", "fork", "exit", "open", "unlink", "rename",
                  "mkdir", "symlink"):
            self.assertIn(t, types)
        cases = {
            "pid of mv": ["--pid", str(mv[0]["pid"])],
            "pid of the shell": ["--pid", str(execs[0]["pid"])],
            "pid nobody has": ["--pid", "999999999"],
            "type exec": ["--type", "exec"],
            "type open": ["--type", "open"],
            "type rename": ["--type", "rename"],
            "type unlink": ["--type", "unlink"],
            "type symlink": ["--type", "symlink"],
            "type fork": ["--type", "fork"],
            "type nonsense": ["--type", "nonsense"],
            "prefix root/d/": ["--path-prefix", root + "/d/"],
            "prefix root": ["--path-prefix", root],
            "prefix /usr/bin/": ["--path-prefix", "/usr/bin/"],
            "pid and type": ["--pid", str(mv[0]["pid"]), "--type", "rename"],
            "type and prefix": ["--type", "open", "--path-prefix", root],
        }
        for what, args in cases.items():
            want = live_events
            for opt, val in zip(args[::2], args[1::2]):
                if opt == "--pid":
                    want = [e for e in want if e["pid"] == int(val)]
                elif opt == "--type":
                    want = [e for e in want if e["type"] == val]
                else:
                    want = [e for e in want
                            if any(b.startswith(os.fsencode(val))
                                   for b in event_paths(e))]
            with self.subTest(what):
                check(args, want)
        # the filters select something where they should
        p = footprint("events", "--type", "rename", log)
        ren = ndjson(p.stdout)
        self.assertEqual([(e["old_path"], e["new_path"]) for e in ren],
                         [(root + "/d/a", root + "/d/b")])
        p = footprint("events", "--path-prefix", root + "/d/", log)
        self.assertTrue(any(e["type"] == "mkdir" or e["type"] == "open"
                            for e in ndjson(p.stdout)))
        p = footprint("events", "--pid", "x", log)
        self.assertEqual(p.returncode, EXIT_USAGE, describe(p))

    # the log file itself ----------------------------------------------------
    def test_log_mode_no_overwrite_force_and_not_inside_root(self):
        root = self.env.root(tree={"sub/x": "x\n"})
        log = self.log_path("new.fplog")
        res, _ = self.record(["true"], [root], log=log)
        st = os.lstat(log)
        self.assertTrue(stat.S_ISREG(st.st_mode))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o600,
                         "the log is mode %o" % stat.S_IMODE(st.st_mode))
        with open(log, "rb") as f:
            self.assertEqual(f.read(8), MAGIC)

        # an existing file is not overwritten without --force
        old = self.log_path("old.fplog")
        with open(old, "wb") as f:
            f.write(b"precious\n")
        os.chmod(old, 0o600)
        res = self.env.run(sh("echo ran"), roots=[root], receipt=False,
                           opts=["--record", old])
        self.assertEqual(res.rc, EXIT_USAGE, res.describe())
        self.assertEqual(len(res.err.splitlines()), 1, res.describe())
        self.assertIn(old, res.err)
        self.assertIn("--force", res.err)
        self.assertEqual(res.stdout, b"", "the command ran")
        with open(old, "rb") as f:
            self.assertEqual(f.read(), b"precious\n")
        # nor the existing log of a previous run
        with open(log, "rb") as f:
            before = f.read()
        res = self.env.run(sh("echo ran"), roots=[root], receipt=False,
                           opts=["--record", log])
        self.assertEqual(res.rc, EXIT_USAGE, res.describe())
        with open(log, "rb") as f:
            self.assertEqual(f.read(), before)

        # --force overwrites
        res = self.env.run(sh("echo ran"), roots=[root],
                           opts=["--record", old, "--force"])
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        self.assertEqual(res.stdout, b"ran\n")
        with open(old, "rb") as f:
            self.assertEqual(f.read(8), MAGIC)
        self.assertEqual(stat.S_IMODE(os.lstat(old).st_mode), 0o600)
        p = footprint("replay", "--quiet", "--receipt", "-", old)
        self.assertEqual(p.returncode, EXIT_OK, describe(p))
        with open(res.receipt_path, "rb") as f:
            self.assertEqual(p.stdout, f.read())

        # --force over a world-readable file: the log still holds every
        # path and argv, so it must not stay readable to others
        with self.subTest("--force over a 0644 file"):
            wide = self.log_path("wide.fplog")
            with open(wide, "wb") as f:
                f.write(b"old\n")
            os.chmod(wide, 0o644)
            res = self.env.run(["true"], roots=[root],
                               opts=["--record", wide, "--force"])
            self.assertEqual(res.rc, EXIT_OK, res.describe())
            with open(wide, "rb") as f:
                self.assertEqual(f.read(8), MAGIC)
            self.assertEqual(stat.S_IMODE(os.lstat(wide).st_mode), 0o600,
                             "--force kept the old file's mode %o for the "
                             "log" % stat.S_IMODE(os.lstat(wide).st_mode))

        # a log inside a watched root is refused before anything runs
        link = os.path.join(self.env.base, "link-to-root")
        os.symlink(root, link)
        cases = {
            "in the root": dict(roots=[root],
                                log=os.path.join(root, "r.fplog")),
            "in a subdirectory": dict(roots=[root],
                                      log=os.path.join(root, "sub/r.fplog")),
            "through a symlink": dict(roots=[root],
                                      log=os.path.join(link, "r.fplog")),
            "default root is cwd": dict(roots=[], cwd=root, log="r.fplog"),
        }
        for what, kw in cases.items():
            with self.subTest(what):
                res = self.env.run(sh("echo ran"), roots=kw["roots"],
                                   cwd=kw.get("cwd"), receipt=False,
                                   opts=["--record", kw["log"]])
                self.assertEqual(res.rc, EXIT_USAGE, res.describe())
                lines = res.err.splitlines()
                self.assertEqual(len(lines), 1, res.describe())
                # a link is refused before its target is even looked at
                self.assertIn("symbolic link" if what == "through a symlink"
                              else "inside the watched root", lines[0])
                self.assertEqual(res.stdout, b"", "the command ran")
                self.assertEqual(sorted(os.listdir(root)), ["sub"])
                self.assertEqual(os.listdir(os.path.join(root, "sub")),
                                 ["x"])

    def test_refused_log_leaves_the_receipt_alone(self):
        # `run --receipt R --record LOG` again: the log exists, the run is
        # refused (exit 2) and the old log kept; the old receipt must be
        # kept too, not truncated to an empty (invalid JSON) file
        root = self.env.root()
        log = self.log_path("again.fplog")
        rpath = os.path.join(self.env.out, "again.json")
        res = self.env.run(["true"], roots=[root], receipt=rpath,
                           opts=["--record", log])
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        with open(rpath, "rb") as f:
            before = f.read()
        self.assertTrue(before)
        res = self.env.run(["true"], roots=[root], receipt=rpath,
                           opts=["--record", log], expect_receipt=False)
        self.assertEqual(res.rc, EXIT_USAGE, res.describe())
        self.assertIn("exists", res.err)
        with open(rpath, "rb") as f:
            after = f.read()
        self.assertEqual(after, before, "a run refused because its --record "
                         "log exists (exit 2) left the receipt of the "
                         "previous run %d bytes long" % len(after))

    # a footprint killed with SIGKILL ---------------------------------------
    def test_log_survives_sigkill(self):
        root = self.env.root()
        log = self.log_path("killed.fplog")
        token = "fpcrash-" + uuid.uuid4().hex
        secs = "30.%06d" % (uuid.uuid4().int % 1000000)
        script = (": %s; for i in $(seq 1 50); do echo x > f$i; "
                  "sleep 0.05; done; sleep %s" % (token, secs))
        proc = subprocess.Popen(
            [FOOTPRINT, "run", "--quiet", "--root", root, "--record", log,
             "--"] + sh(script), cwd=root, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        cgroups = set()
        cgmnt = fptest.cgroup2_mount()
        self.assertTrue(cgmnt, "no cgroup2 mount, yet footprint ran")

        def left_pids():
            return set(vu.pgrep_full(token) +
                       vu.pgrep_full("^sleep %s$" % secs.replace(".", "[.]")))

        def cleanup():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            # the command outlives footprint: kill its cgroup (or what is
            # left of it by name)
            for pid in left_pids():
                try:
                    with open("/proc/%d/cgroup" % pid) as f:
                        cgroups.add(f.read().strip().split("::", 1)[-1])
                except OSError:
                    pass
            for cg in cgroups:
                try:
                    with open(cgmnt + cg + "/cgroup.kill", "w") as f:
                        f.write("1")
                except OSError:
                    pass
            for pid in left_pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            deadline = time.monotonic() + 5
            while left_pids() and time.monotonic() < deadline:
                time.sleep(0.05)
        self.addCleanup(cleanup)

        # wait until the command runs, then let it write for a while
        first = os.path.join(root, "f1")
        deadline = time.monotonic() + 20
        while not os.path.exists(first):
            if proc.poll() is not None:
                err = proc.stderr.read().decode("utf-8", "replace")
                if proc.returncode == vu.EXIT_NOTRACE:
                    vu.cannot_test("footprint cannot trace (exit 125): " +
                                   err)
                self.fail("footprint exited %d before the command wrote "
                          "f1: %s" % (proc.returncode, err))
            self.assertLess(time.monotonic(), deadline, "f1 never appeared")
            time.sleep(0.02)
        # about 35 of the 50 files; each round takes 50 ms or more
        time.sleep(1.8)
        # seen while it runs: footprint's watchdog kills the command and
        # removes its cgroup as soon as footprint is gone
        for pid in set(left_pids()) - {proc.pid}:
            try:
                with open("/proc/%d/cgroup" % pid) as f:
                    cgroups.add(f.read().strip().split("::", 1)[-1])
            except OSError:
                pass
        killed_at = time.time()
        proc.kill()
        proc.wait()
        cleanup()
        self.assertTrue(cgroups, "found no process of the command to kill")
        written = {}
        for name in os.listdir(root):
            written[name] = os.stat(os.path.join(root, name)).st_mtime
        old = sorted((n for n, t in written.items() if t < killed_at - 1.0),
                     key=lambda n: int(n[1:]))
        self.assertTrue(old, "no file was written 1 s before the kill: %r" %
                        written)
        self.assertLess(len(written), 50, "the loop ended before the kill; "
                        "the test proves nothing: %r" % written)

        # the cgroup it left is removed by the next run
        for cg in cgroups:
            self.assertTrue(cg.startswith("/footprint/run-%d-" % proc.pid),
                            cg)
        res = self.env.run(["true"], roots=[self.env.root("other")])
        self.assertEqual(res.rc, EXIT_OK, res.describe())
        for cg in cgroups:
            self.assertFalse(os.path.exists(cgmnt + cg),
                             "the stale cgroup %s%s was not reaped by the "
                             "next run" % (cgmnt, cg))

        with open(log, "rb") as f:
            self.assertEqual(f.read(8), MAGIC)
        p = footprint("replay", "--quiet", "--receipt", "-", log)
        self.assertEqual(p.returncode, EXIT_VERDICT, describe(p))
        line = self.assert_one_error_line(p, EXIT_VERDICT, log)
        self.assertRegex(line, r"stops at offset \d+")
        doc = json.loads(p.stdout)
        self.assertIs(doc["ok"], False)
        self.assertIs(doc["trace"]["complete"], False, doc["trace"])
        why = [r for r in doc["reasons"] if r.startswith("trace incomplete:")]
        self.assertEqual(len(why), 1, doc["reasons"])
        # without --quiet the summary follows, but only one line names it
        p = footprint("replay", log)
        self.assertEqual(p.returncode, EXIT_VERDICT, describe(p))
        self.assertEqual(err_lines(p)[0], line, describe(p))

        p = footprint("events", log)
        self.assertEqual(p.returncode, EXIT_VERDICT, describe(p))
        self.assert_one_error_line(p, EXIT_VERDICT, "offset")
        evs = ndjson(p.stdout)
        self.assertNotIn("stats", [e["type"] for e in evs])
        shell = [e for e in evs if e["type"] == "exec" and
                 any(token in a for a in e["argv"])]
        self.assertEqual(len(shell), 1, "no exec of the shell in %d events"
                         % len(evs))
        opened = {e["path"] for e in evs if e["type"] == "open"}
        missing = [n for n in old if os.path.join(root, n) not in opened]
        self.assertEqual(missing, [], "opens of files written more than "
                         "1 s before the kill are not in the log")
        # last: the receipt of a log cut short is a valid receipt, and it
        # does not make up how the command ended
        with self.subTest("schema"):
            self.assertEqual(vu.schema_errors(doc), [], "the receipt replay "
                             "writes for a log without a trailer does not "
                             "match docs/receipt.schema.json: " +
                             json.dumps(doc["command"]))
        with self.subTest("exit status"):
            said = [r for r in doc["reasons"]
                    if r.startswith("command exited ")]
            code = doc["command"]["exit_code"]
            self.assertEqual(said, [] if code in (None, 0) else
                             ["command exited %d" % code],
                             "the reasons disagree with command.exit_code "
                             "%r: %r" % (code, doc["reasons"]))

    # damaged logs -----------------------------------------------------------
    def test_damaged_logs_are_refused(self):
        root = self.env.root()
        res, log = self.record(
            sh("for i in $(seq 1 20); do echo $i > f$i; done"), [root],
            cwd=root)
        with open(log, "rb") as f:
            good = f.read()
        self.assertGreater(len(good), 1000)

        def damaged(name, data):
            path = self.log_path(name)
            with open(path, "wb") as f:
                f.write(data)
            return path

        for what, pos in (("middle", len(good) // 2),
                          ("first frame header", 16 + 9),
                          ("last byte", len(good) - 1)):
            data = bytearray(good)
            data[pos] ^= 0xff
            path = damaged("flip-%d.fplog" % pos, bytes(data))
            for cmd in ("replay", "events"):
                with self.subTest(what, cmd=cmd):
                    p = footprint(cmd, path)
                    line = self.assert_one_error_line(p, EXIT_USAGE,
                                                      "offset")
                    m = re.search(r"offset (\d+)", line)
                    self.assertTrue(m, line)
                    self.assertLessEqual(int(m.group(1)), pos, line)
                    if cmd == "events":
                        self.assertNotIn(b'"type":"stats"', p.stdout)

        v99 = bytearray(good)
        v99[8] = 99
        cases = {
            "zero-length": (damaged("empty.fplog", b""), "not a footprint"),
            "/etc/passwd": ("/etc/passwd", "not a footprint"),
            "version 99": (damaged("v99.fplog", bytes(v99)), "upgrad"),
            "missing": (self.log_path("missing.fplog"), "cannot open"),
            "a directory": (self.env.out, "not a regular file"),
        }
        for what, (path, needle) in cases.items():
            for cmd in ("replay", "events"):
                with self.subTest(what, cmd=cmd):
                    p = footprint(cmd, path)
                    self.assert_one_error_line(p, EXIT_USAGE, path, needle)
                    self.assertEqual(p.stdout, b"")

    # fuzz smoke -----------------------------------------------------------
    def test_fuzz_smoke(self):
        build = tempfile.mkdtemp(prefix="fpfuzz-", dir="/tmp")
        self.addCleanup(shutil.rmtree, build, True)
        env = dict(os.environ, FOOTPRINT_BUILD_DIR=build)
        p = subprocess.run([os.path.join(TOP, "scripts", "fuzz"), "10"],
                           env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=180)
        out = p.stdout.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, "scripts/fuzz 10 failed:\n" + out)
        # scripts/fuzz pipes the fuzzer through tail, so a crash does not
        # show in its exit status: look for what libFuzzer leaves
        found = sorted(n for n in os.listdir(build)
                       if n.startswith(("crash-", "leak-", "timeout-",
                                        "oom-", "slow-unit-")))
        self.assertEqual(found, [], "the fuzzer found inputs that crash "
                         "the log reader (and scripts/fuzz exited %d: its "
                         "pipe through tail hides the fuzzer's status):\n%s"
                         % (p.returncode, out))
        for bad in ("ERROR:", "SUMMARY:", "runtime error"):
            self.assertNotIn(bad, out)
        self.assertIn("stat::number_of_executed_units", out, out)
        # and the inputs it found before, every time (the run above is
        # random and short)
        fuzzer = os.path.join(build, "fuzz_evlog")
        for name, data in (("empty file path", FUZZ_EMPTY_PATH),):
            with self.subTest(regression=name):
                path = os.path.join(build, "regress.bin")
                with open(path, "wb") as f:
                    f.write(data)
                p = subprocess.run([fuzzer, path], cwd=build,
                                   stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=60)
                out = p.stdout.decode("utf-8", "replace")
                self.assertEqual(p.returncode, 0, "fuzz_evlog fails on a "
                                 "known input (%s):\n%s" % (
                                     name, "\n".join(
                                         x for x in out.splitlines()
                                         if "error" in x or "#" in x)))

    # size -----------------------------------------------------------------
    def test_log_size_per_event(self):
        if not shutil.which("cc"):
            self.skipTest("cc is not installed")
        bindir = self.env.scratch("bin")
        oh = os.path.join(bindir, "openheavy")
        subprocess.run(["cc", "-O2", "-o", oh,
                        os.path.join(TOP, "scripts", "bench", "openheavy.c")],
                       check=True)
        root = self.env.root("work")
        log = self.log_path("openheavy.fplog")
        res = self.env.run([oh, root, "200000", "20000"], roots=[root],
                           # one event per open, not one with a count
                           opts=["--record", log, "--every-open"],
                           timeout=120)
        self.assertIn(res.rc, (EXIT_OK, EXIT_VERDICT), res.describe())
        p = footprint("events", log)
        self.assertEqual(p.returncode, EXIT_OK, describe(p))
        stats = json.loads(p.stdout.splitlines()[-1])
        self.assertEqual(stats["type"], "stats")
        self.assertEqual(stats["lost"], 0, "events were lost; the size "
                         "would be too small: %r" % stats)
        self.assertGreaterEqual(stats["events"], 240000, stats)
        size = os.path.getsize(log)
        per = size / stats["events"]
        sys.stderr.write("\n  log: %d bytes, %d events, %.2f bytes/event "
                         "... " % (size, stats["events"], per))
        self.assertLessEqual(per, 24.0, "the log takes %.2f bytes per event "
                             "(%d bytes, %d events); the target is <= 24" %
                             (per, size, stats["events"]))


if __name__ == "__main__":
    unittest.main()
