"""footprint shape --pid / --cgroup against real processes, and shape
diff on real shapes: capabilities added with setpriv, NoNewPrivs, TCP and
UDP listeners (checked against ss), a private mount namespace with its own
tmpfs, a cgroup of two processes. The unit mode needs systemd as PID 1:
scripts/vm-shape-test runs it in a VM."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid

import fptest
import sudo_util as su

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "shape_target.py")
SCHEMA = os.path.join(su.TOP, "docs", "shape.schema.json")


def setpriv_caps(caps):
    """setpriv arguments: become nobody, keeping caps (ambient)."""
    c = ",".join("+" + x for x in caps)
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
            "--inh-caps=" + c, "--ambient-caps=" + c]


class Target:
    """shape_target.py under a prefix command; synchronised on its line."""

    def __init__(self, prefix=(), args=()):
        self.p = subprocess.Popen(
            list(prefix) + [su.PY, su.world_copy(TARGET)] + list(args),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = self.p.stdout.readline()
        if not line:
            self.p.wait()
            raise AssertionError("the target did not start")
        self.info = json.loads(line)
        self.pid = self.info["pid"]

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def shape(*args, env=None, rc=0):
    r = subprocess.run([su.FOOTPRINT, "shape"] + list(args),
                       capture_output=True, env=env or su.base_env(),
                       timeout=60)
    if r.returncode != rc:
        raise AssertionError("footprint shape %s: rc %d, want %d\n%s" % (
            " ".join(args), r.returncode, rc, r.stderr.decode()))
    return r


class ShapeTest(unittest.TestCase):
    def setUp(self):
        su.check_binary()
        self.targets = []

    def tearDown(self):
        for t in self.targets:
            t.close()

    def target(self, prefix=(), args=()):
        t = Target(prefix, args)
        self.targets.append(t)
        return t

    def pid_shape(self, pid):
        doc = json.loads(shape("--pid", str(pid)).stdout)
        self.check_schema(doc)
        self.assertTrue(doc["complete"], doc["incomplete"])
        self.assertEqual(doc["kind"], "pid")
        self.assertEqual(doc["main_pid"], pid)
        self.assertEqual(len(doc["processes"]), 1)
        return doc["processes"][0]

    def check_schema(self, doc):
        try:
            from jsonschema import Draft202012Validator
        except ImportError:
            return
        with open(SCHEMA, encoding="utf-8") as f:
            v = Draft202012Validator(json.load(f))
        errs = sorted(v.iter_errors(doc), key=str)
        self.assertEqual([], [e.message for e in errs])

    def test_capabilities_nnp_listeners_ids(self):
        t = self.target(setpriv_caps(["net_bind_service", "net_raw"]) +
                        ["--nnp"])
        p = self.pid_shape(t.pid)
        want = ["CAP_NET_BIND_SERVICE", "CAP_NET_RAW"]
        self.assertEqual(p["cap_eff"], want)
        self.assertEqual(p["cap_prm"], want)
        self.assertEqual(p["cap_amb"], want)
        self.assertEqual(p["cap_inh"], want)
        self.assertIn("CAP_SYS_ADMIN", p["cap_bnd"])
        self.assertTrue(p["no_new_privs"])
        self.assertEqual(p["uids"], [65534] * 4)
        self.assertEqual(p["gids"], [65534] * 4)
        self.assertEqual(p["seccomp"], {"mode": "disabled", "filters": 0})
        self.assertTrue(p["main"])
        self.assertEqual(p["listeners"], sorted([
            "tcp/127.0.0.1:%d" % t.info["tcp"],
            "udp/127.0.0.1:%d" % t.info["udp"]]))
        # ss sees the same TCP listener, owned by the same process
        ss = subprocess.run(["ss", "-Hltnp", "sport = :%d" % t.info["tcp"]],
                            capture_output=True, text=True).stdout
        self.assertIn("pid=%d," % t.pid, ss)

    def test_plain_process(self):
        t = self.target()
        p = self.pid_shape(t.pid)
        self.assertFalse(p["no_new_privs"])
        self.assertEqual(p["cap_amb"], [])
        self.assertEqual(p["uids"], [0] * 4)
        self.assertEqual(p["argv"], [su.PY, su.world_copy(TARGET)])
        exe = os.readlink("/proc/%d/exe" % t.pid)
        self.assertEqual(p["exe"], exe)
        with open(exe, "rb") as f:
            self.assertEqual(p["exe_sha256"],
                             hashlib.sha256(f.read()).hexdigest())
        with open("/proc/%d/cgroup" % t.pid) as f:
            cg = [l[3:].strip() for l in f if l.startswith("0::")][0]
        self.assertEqual(p["cgroup"], cg)
        mine = os.stat("/proc/self/ns/mnt").st_ino
        self.assertEqual(p["namespaces"]["mnt"]["id"], mine)
        self.assertEqual(sorted(p["namespaces"]),
                         sorted(n for n in os.listdir("/proc/self/ns")
                                if not n.endswith("_for_children")))
        pts = [m["mount_point"] for m in p["mounts"]]
        self.assertIn("/", pts)
        self.assertEqual(pts, sorted(pts))

    def test_seccomp_filters(self):
        t = self.target(args=["--seccomp", "2"])
        p = self.pid_shape(t.pid)
        self.assertEqual(p["seccomp"], {"mode": "filter", "filters": 2})
        with open("/proc/%d/status" % t.pid) as f:
            self.assertIn("Seccomp:\t2\n", f.read())

    def test_private_mount_namespace(self):
        d = tempfile.mkdtemp(prefix="fpshape.")
        self.addCleanup(shutil.rmtree, d)
        t = self.target(["unshare", "-m", "--propagation", "private"],
                        ["--mount", d])
        p = self.pid_shape(t.pid)
        mine = os.stat("/proc/self/ns/mnt").st_ino
        self.assertNotEqual(p["namespaces"]["mnt"]["id"], mine)
        if p["namespaces"]["mnt"]["differs_from_init"] is not None:
            self.assertTrue(p["namespaces"]["mnt"]["differs_from_init"])
        m = [m for m in p["mounts"] if m["mount_point"] == d]
        self.assertEqual(len(m), 1, p["mounts"])
        self.assertEqual(m[0]["fstype"], "tmpfs")
        self.assertEqual(m[0]["source"], "fpshape")
        self.assertTrue(m[0]["rw"])
        self.assertEqual(m[0]["propagation"], "private")
        # the namespace's own mount is not ours
        with open("/proc/self/mountinfo") as f:
            self.assertNotIn(" %s " % d, f.read())

    def test_cgroup_of_two_processes(self):
        name = "fp-shape-test-%s" % uuid.uuid4().hex[:8]
        mnt = fptest.cgroup2_mount()
        if mnt is None:
            su.cannot_test("no cgroup v2 hierarchy is mounted")
        cg = os.path.join(mnt, name)
        os.mkdir(cg)
        self.addCleanup(self.remove_cgroup, cg)
        t = self.target(args=["--fork"])
        # both moved by hand: some sandboxes move new processes elsewhere
        for pid in (t.pid, t.info["child"]):
            with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                f.write(str(pid))
        doc = json.loads(shape("--cgroup", name).stdout)
        self.check_schema(doc)
        self.assertTrue(doc["complete"], doc["incomplete"])
        pids = sorted(p["pid"] for p in doc["processes"])
        self.assertEqual(pids, sorted([t.pid, t.info["child"]]))
        self.assertEqual(doc["main_pid"], t.pid)
        byp = {p["pid"]: p for p in doc["processes"]}
        self.assertTrue(byp[t.pid]["main"])
        self.assertFalse(byp[t.info["child"]]["main"])
        self.assertEqual(byp[t.pid]["cgroup"], "/" + name)
        # the child inherited both sockets: both own the listeners
        self.assertEqual(byp[t.pid]["listeners"],
                         byp[t.info["child"]]["listeners"])
        # the same cgroup named under /sys/fs/cgroup
        doc2 = json.loads(shape("--cgroup", cg).stdout)
        self.assertEqual(sorted(p["pid"] for p in doc2["processes"]), pids)

    def remove_cgroup(self, cg):
        # exited tasks leave the cgroup a moment after wait() returns
        su.wait_for(lambda: "populated 0" in open(
            os.path.join(cg, "cgroup.events")).read(), 10)
        os.rmdir(cg)

    def test_diff_of_real_shapes(self):
        a = self.target()
        b = self.target(setpriv_caps(["net_raw"]) + ["--nnp"])
        d = tempfile.mkdtemp(prefix="fpshape.")
        self.addCleanup(shutil.rmtree, d)
        for name, t in (("before", a), ("after", b)):
            shape("--pid", str(t.pid), "-o", os.path.join(d, name))
        before, after = os.path.join(d, "before"), os.path.join(d, "after")
        r = subprocess.run([su.FOOTPRINT, "shape", "diff", before, after],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stderr)
        diff = json.loads(r.stdout)
        self.assertTrue(diff["cap_eff_changed"])
        self.assertTrue(diff["no_new_privs_changed"])
        self.assertTrue(diff["sockets_changed"])
        self.assertFalse(diff["mounts_changed"])
        lost = sorted(x["subject"] for x in diff["drift"]
                      if x["field"] == "cap_eff" and x["change"] == "lost")
        mine = self.pid_shape(a.pid)["cap_eff"]
        self.assertEqual(lost, sorted(set(mine) - {"CAP_NET_RAW"}))
        self.assertIn("no_new_privs_changed", r.stderr)
        self.assertIn("Reject and ask the model", r.stderr)
        # seccomp and exe: another target with a filter
        c = self.target(args=["--seccomp", "1"])
        shape("--pid", str(c.pid), "-o", os.path.join(d, "filtered"))
        r = subprocess.run([su.FOOTPRINT, "shape", "diff", before,
                            os.path.join(d, "filtered"), "-q"],
                           capture_output=True, text=True)
        diff = json.loads(r.stdout)
        self.assertTrue(diff["seccomp_changed"])
        self.assertFalse(diff["exe_changed"])
        sc = [x for x in diff["drift"] if x["field"] == "seccomp"]
        self.assertEqual(sc[0]["before"], "mode=disabled filters=0")
        self.assertEqual(sc[0]["after"], "mode=filter filters=1")
        pol = os.path.join(d, "pol")
        with open(pol, "w") as f:
            f.write("allow seccomp\nallow process  # argv\n")
            for t in (a, c):
                f.write("allow listen tcp/127.0.0.1:%d\n" % t.info["tcp"])
                f.write("allow listen udp/127.0.0.1:%d\n" % t.info["udp"])
        r = subprocess.run([su.FOOTPRINT, "shape", "diff", before,
                            os.path.join(d, "filtered"), "-q",
                            "--policy", pol], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)
        # the same shape twice: no drift
        r = subprocess.run([su.FOOTPRINT, "shape", "diff", before, before],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["drift"], [])

    def test_output_file_as_invoking_user(self):
        t = self.target()
        pw = su.nobody()
        d = tempfile.mkdtemp(prefix="fpshape.")
        self.addCleanup(shutil.rmtree, d)
        os.chmod(d, 0o755)  # nobody may not write here
        r = shape("--pid", str(t.pid), "-o", os.path.join(d, "s.json"),
                  env=su.sudo_env(pw), rc=2)
        self.assertFalse(os.path.exists(os.path.join(d, "s.json")))
        self.assertTrue(r.stderr.startswith(b"footprint:"), r.stderr)
        os.chmod(d, 0o777)
        shape("--pid", str(t.pid), "-o", os.path.join(d, "s.json"),
              env=su.sudo_env(pw))
        self.assertEqual(os.stat(os.path.join(d, "s.json")).st_uid,
                         pw.pw_uid)

    def test_usage_errors(self):
        for args in ([], ["--pid", "x"], ["--pid", "1", "--cgroup", "a"],
                     ["--bogus"], ["diff", "one"]):
            r = shape(*args, rc=2)
            self.assertTrue(r.stderr.startswith(b"footprint:"), r.stderr)
        r = shape("--pid", "999999999", rc=2)
        self.assertIn(b"is it running", r.stderr)
        r = shape("--cgroup", "../../etc", rc=2)
        r = shape("--help")
        self.assertIn(b"Examples:", r.stdout)
        r = shape("diff", "--help")
        self.assertIn(b"allow listen tcp/127.0.0.1:8080", r.stdout)


class RunUnitTest(unittest.TestCase):
    """run --unit where systemd cannot answer (not PID 1 here): refused
    before the command runs; the VM test covers a real unit."""

    def setUp(self):
        su.check_binary()
        self.d = tempfile.mkdtemp(prefix="fpshape.")
        self.addCleanup(shutil.rmtree, self.d)

    def run_fp(self, *args):
        return subprocess.run([su.FOOTPRINT, "run", "--root", self.d] +
                              list(args), capture_output=True, text=True,
                              env=su.base_env(), timeout=60)

    def test_no_unit_no_run(self):
        mark = os.path.join(self.d, "ran")
        if os.path.exists("/run/systemd/system"):
            self.skipTest("systemd is running here")
        r = self.run_fp("--unit", "fp-no-such-unit", "--", "touch", mark)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertTrue(r.stderr.startswith("footprint: run:"), r.stderr)
        self.assertIn("the command was not run", r.stderr)
        self.assertFalse(os.path.exists(mark))

    def test_shape_policy_errors(self):
        pol = os.path.join(self.d, "p")
        with open(pol, "w") as f:
            f.write("allow cap CAP_CHOWN\nallow bogus\n")
        r = self.run_fp("--shape-policy", pol, "--", "true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--shape-policy needs --unit", r.stderr)
        r = self.run_fp("--unit", "x", "--shape-policy", pol, "--", "true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("line 2: unknown kind 'bogus'", r.stderr)

if __name__ == "__main__":
    unittest.main()
