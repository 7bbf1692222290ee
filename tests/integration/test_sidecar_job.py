"""A CI job under the sidecar, the way GitHub's runner runs one.

A stand-in for the runner's Runner.Worker (a process named so, as
footprint finds it among its ancestors) runs each step as a child shell
with GITHUB_ACTION set to the step's id, inside a cgroup that also holds an
unrelated busy process. The first step starts the sidecar with its default
scope (the Runner.Worker's process tree) plus one more cgroup, standing in
for a `container:` job's; the last step stops it. The steps:

  write the workspace, write outside it, leave a daemon, bind a port,
  a process in the other cgroup (not in the runner's tree), signal the
  sidecar (tamper), then stop.

Every finding must name exactly its step; the job fails; a clean job with
the same shape passes. Run as root.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402

from fptest import cgroup2_mount  # noqa: E402
import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, EXIT_VERDICT  # noqa: E402

# Runner.Worker: runs the steps in order, each `bash -c` with its id
RUNNER = r"""
import ctypes, json, os, subprocess, sys
ctypes.CDLL(None).prctl(15, b"Runner.Worker", 0, 0, 0)
for name, script in json.loads(sys.argv[1]):
    env = dict(os.environ, GITHUB_ACTION=name)
    rc = subprocess.run(["bash", "-c", script], env=env).returncode
    print("STEP %s %d" % (name, rc), flush=True)
"""


class Runner:
    def __init__(self, test):
        su.check_binary()
        self.test = test
        mnt = cgroup2_mount()
        if mnt is None:
            su.cannot_test("no cgroup v2 mount")
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="fpjob-"))
        os.chmod(self.base, 0o755)
        self.ws = os.path.join(self.base, "ws")
        self.outside = os.path.join(self.base, "outside")
        self.out = os.path.join(self.base, "out")
        for d in (self.ws, self.outside, self.out):
            os.mkdir(d)
        self.state = os.path.join(self.base, "state")
        tag = uuid.uuid4().hex[:10]
        # the runner's service cgroup, and a container's
        self.cg_runner = os.path.join(mnt, "fptest-runner-" + tag)
        self.cg_container_rel = "/fptest-container-" + tag
        self.cg_container = mnt + self.cg_container_rel
        os.mkdir(self.cg_runner)
        os.mkdir(self.cg_container)
        self.sleep_arg = su.unique_seconds(300)
        test.addCleanup(self.cleanup)

    def cleanup(self):
        if os.path.exists(os.path.join(self.state, "ctl")):
            subprocess.run([su.FOOTPRINT, "sidecar", "stop", "--state",
                            self.state, "--quiet"], timeout=60,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        su.kill_exact(["sleep", self.sleep_arg])
        for cg in (self.cg_runner, self.cg_container):
            try:
                with open(os.path.join(cg, "cgroup.kill"), "w") as f:
                    f.write("1")
            except OSError:
                pass
            for _ in range(200):
                try:
                    os.rmdir(cg)
                    break
                except OSError:
                    time.sleep(0.02)
        shutil.rmtree(self.base, ignore_errors=True)

    def in_cgroup(self, cg):
        def enter():
            with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        return enter

    def busy(self, cg, path):
        """An unrelated process in cgroup cg that keeps writing path."""
        p = subprocess.Popen(["sh", "-c", 'while :; do echo x > "%s"; '
                              'sleep 0.01; done' % path],
                             preexec_fn=self.in_cgroup(cg))
        self.test.addCleanup(lambda: (p.kill(), p.wait()))
        return p

    def run(self, steps, timeout=120):
        env = su.base_env(FP=su.FOOTPRINT, STATE=self.state, WS=self.ws,
                          OUTSIDE=self.outside, OUT=self.out,
                          CONTAINER=self.cg_container_rel,
                          SLEEP_ARG=self.sleep_arg)
        p = subprocess.run([su.PY, "-c", RUNNER, json.dumps(steps)],
                           env=env, cwd=self.ws, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout,
                           preexec_fn=self.in_cgroup(self.cg_runner))
        codes = {}
        for line in p.stdout.decode().splitlines():
            if line.startswith("STEP "):
                _, name, rc = line.split()
                codes[name] = int(rc)
        return p, codes

    def receipt(self, name="receipt.json"):
        with open(os.path.join(self.out, name), "rb") as f:
            doc = json.load(f)
        self.test.assertEqual(su.schema_errors(doc), [], doc)
        return doc


START = ('"$FP" sidecar start --state "$STATE" --root "$WS" '
         '--cgroup "$CONTAINER" %s')
STOP = ('"$FP" sidecar stop --state "$STATE" --receipt "$OUT/receipt.json" '
        '--summary "$OUT/summary.md" --annotations')


def findings_by_step(doc):
    """{(list, path or argv[0] or kind): step name or None}"""
    seen = {}
    for name, items in doc["files"].items():
        for f in items:
            seen[("files." + name, f["path"])] = f.get("step")
    for name, items in doc["processes"].items():
        for p in items:
            argv = fptest.argv_of(doc, p)
            key = argv[0] if argv else p["exe"]
            seen[("processes." + name, key)] = p.get("step")
    for name, items in doc["network"].items():
        for n in items:
            seen[("network." + name, n.get("port"))] = n.get("step")
    for t in doc.get("tamper", []):
        seen[("tamper", t["kind"])] = t.get("step")
    return seen


class SidecarJobTest(unittest.TestCase):
    def test_every_finding_names_its_step(self):
        r = Runner(self)
        # unrelated, in the runner's own cgroup: never traced
        r.busy(r.cg_runner, os.path.join(r.outside, "unrelated"))
        container_go = os.path.join(r.base, "container-go")
        os.mkfifo(container_go)
        # a process of the "container", outside the runner's tree
        container = subprocess.Popen(
            ["sh", "-c", 'read x < "%s"; echo c > "%s/from-container"' %
             (container_go, r.ws)], preexec_fn=r.in_cgroup(r.cg_container))
        self.addCleanup(lambda: (container.kill(), container.wait()))
        port_probe = ("import socket; s = socket.socket(); "
                      "s.bind(('127.0.0.1', 0)); s.listen(); s.close()")
        steps = [
            ["start", START % ""],
            ["write-ws", "echo built > built.txt"],
            ["write-outside", 'echo x > "$OUTSIDE/written"'],
            ["daemon", 'setsid sleep "$SLEEP_ARG" </dev/null >/dev/null '
                       '2>&1 &'],
            ["bind", '%s -c "%s"' % (su.PY, port_probe)],
            ["container", 'echo go > "%s"; sleep 0.3' % container_go],
            ["kill-sidecar", 'kill -TERM "$(head -1 "$STATE/daemon.pid")"'],
            ["stop", STOP],
        ]
        p, codes = r.run(steps)
        self.assertEqual(codes.get("start"), EXIT_OK, p.stderr)
        self.assertEqual(codes.get("stop"), EXIT_VERDICT, p.stderr)
        doc = r.receipt()
        self.assertIs(doc["ok"], False)
        self.assertTrue(doc["trace"]["complete"], doc["reasons"])
        seen = findings_by_step(doc)
        want = {
            ("files.added", os.path.join(r.ws, "built.txt")): "write-ws",
            ("files.outside_roots", os.path.join(r.outside, "written")):
                "write-outside",
            ("processes.leftover", "sleep"): "daemon",
            ("tamper", "signal"): "kill-sidecar",
            ("files.added", os.path.join(r.ws, "from-container")): None,
        }
        for key, step in want.items():
            with self.subTest(finding=key):
                self.assertIn(key, seen, json.dumps(doc, indent=1)[:6000])
                self.assertEqual(seen[key], step, key)
        bound = [b for b in doc["network"]["bound"]]
        self.assertEqual([b.get("step") for b in bound], ["bind"], bound)
        # the unrelated writer in the runner's cgroup is not the job's
        self.assertNotIn(("files.outside_roots",
                          os.path.join(r.outside, "unrelated")), seen)
        names = [s["name"] for s in doc["steps"]]
        for step in ("write-ws", "write-outside", "daemon", "bind",
                     "kill-sidecar"):
            self.assertIn(step, names)
        with open(os.path.join(r.out, "summary.md"), "rb") as f:
            md = f.read()
        self.assertLess(len(md), 64 * 1024)
        # the step's name reads as it is: a '-' needs no escape
        self.assertIn(b"write-ws", md)
        ann = [a for a in p.stdout.splitlines() if a.startswith(b"::")]
        self.assertTrue(1 <= len(ann) <= 10, ann)
        self.assertTrue(all(a.startswith(b"::error title=footprint::")
                            for a in ann), ann)

    def test_clean_job_passes(self):
        r = Runner(self)
        r.busy(r.cg_runner, os.path.join(r.outside, "unrelated"))
        steps = [
            ["start", START % "--allow out/"],
            ["build", "mkdir -p out && echo o > out/app && cat out/app"],
            ["test", "test -s out/app"],
            ["stop", STOP],
        ]
        p, codes = r.run(steps)
        doc = r.receipt()
        self.assertEqual(codes, {"start": 0, "build": 0, "test": 0,
                                 "stop": EXIT_OK}, (p.stderr, doc["reasons"]))
        self.assertIs(doc["ok"], True, doc["reasons"])
        added = {f["path"]: f.get("step") for f in doc["files"]["added"]}
        self.assertEqual(added[os.path.join(r.ws, "out", "app")], "build")
        self.assertNotIn(b"::error", p.stdout)

    def test_sigkill_of_the_sidecar_fails_the_job(self):
        r = Runner(self)
        steps = [
            ["start", START % ""],
            ["write-ws", "echo built > built.txt; sleep 1.2"],
            ["kill-sidecar", 'kill -KILL "$(head -1 "$STATE/daemon.pid")"; '
                             'sleep 0.2'],
            ["stop", STOP],
        ]
        p, codes = r.run(steps)
        self.assertEqual(codes.get("stop"), EXIT_VERDICT, p.stderr)
        self.assertIn(b"the sidecar daemon is gone", p.stderr)
        doc = r.receipt()
        self.assertIs(doc["ok"], False)
        self.assertFalse(doc["trace"]["complete"])
        self.assertIn(b"::error title=footprint::", p.stdout)
        self.assertIn(b"sidecar daemon is gone", p.stdout)


if __name__ == "__main__":
    unittest.main()
