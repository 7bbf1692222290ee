"""CI step bookkeeping (issue 29, item 4), in simulated jobs run by an
unprivileged runner user with passwordless sudo (ci_job.py).

- `footprint sidecar mark` names steps; it is not one: the real steps of
  a job whose every command is a step (GitLab's one shell, --pid-tree $$
  --step-parent $$) are numbered 1, 2, 3, ...
- footprint's own processes, and the sudo that launches them, are never
  findings: `sudo footprint sidecar stop` is not processes.privileged,
  and the control-socket connects are not in the network table. A sudo
  the job runs for itself still is privileged, and so is a footprint
  that is not the sidecar's own binary (a step cannot hide by calling
  itself footprint). No sudo's reads of its own /etc/shadow and
  /etc/sudoers are secret reads (issue 31: the privilege is the finding).
- what the step that ran `sidecar start` does after start returned is
  named by that step's GITHUB_ACTION.

Run as root: FOOTPRINT=build/footprint python3 -m unittest -v \\
    tests/integration/test_sidecar_steps.py
"""

import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402

import ci_job  # noqa: E402

STATE = '"$RUNNER_TEMP/footprint-state"'
SUDO = os.path.realpath(shutil.which("sudo") or "/usr/bin/sudo")

# GitLab's way: one shell runs the job's script; each command is a step
SCRIPT = """
unset GITHUB_ACTION
S="$RUNNER_TEMP/footprint-state"
sudo -n footprint sidecar start --state "$S" --root "$GITHUB_WORKSPACE" \\
	--pid-tree $$ --step-parent $$
footprint sidecar mark --state "$S" build
sh -c 'echo b > build.txt'
footprint sidecar mark --state "$S" test
sh -c 'echo t > test.txt'
sudo -n true
footprint sidecar status --state "$S"
footprint sidecar mark --state "$S" package
sh -c 'echo p > pkg.txt'
rc=0
sudo -n footprint sidecar stop --state "$S" --receipt "$RUNNER_TEMP/r.json" \\
	--summary "$RUNNER_TEMP/r.md" --annotations || rc=$?
echo stop=$rc
"""


def by_step(items, key):
    return sorted((key(x), x.get("step")) for x in items)


class StepsTest(unittest.TestCase):
    def test_marks_and_footprint_are_not_steps(self):
        j = ci_job.Job(self)
        j.run([{"id": "job", "run": SCRIPT}])
        job = j.step("job")
        self.assertIn("stop=1", job["stdout"], j.describe())
        doc = j.receipt(os.path.join(j.temp, "r.json"))
        self.assertEqual([(s["index"], s["name"]) for s in doc["steps"]], [
            (1, "build"), (2, "test"), (3, "test"), (4, "package")])
        added = by_step(doc["files"]["added"], lambda f: f["path"])
        self.assertEqual(added, [
            (os.path.join(j.ws, "build.txt"), "build"),
            (os.path.join(j.ws, "pkg.txt"), "package"),
            (os.path.join(j.ws, "test.txt"), "test")])
        idx = {f["path"]: f["step_index"] for f in doc["files"]["added"]}
        self.assertEqual(idx[os.path.join(j.ws, "pkg.txt")], 4)
        # the job's own sudo is privileged; footprint's sudo (start,
        # stop) is not; no sudo's reads of its own configuration are
        # secret reads (issue 31)
        priv = doc["processes"]["privileged"]
        self.assertEqual([(fptest.argv_of(doc, p), p["step"], p["step_index"])
                          for p in priv],
                         [(["sudo", "-n", "true"], "test", 3)], priv)
        self.assertEqual(doc["files"].get("read", []), [])
        # no control-socket connect in the network table
        for c in doc["network"]["connected"]:
            self.assertNotIn("ctl", c.get("address", ""), c)
            self.assertNotEqual(c["exe"], "/usr/local/bin/footprint", c)
        with open(os.path.join(j.temp, "r.md")) as f:
            md = f.read()
        self.assertNotIn("sidecar stop", md)
        self.assertNotIn("/proc/self/fd", md)
        self.assertNotIn("sidecar stop", job["stdout"])
        self.assertIn("sudo -n true", job["stdout"])

    def test_the_start_step_is_named(self):
        j = ci_job.Job(self)
        j.run([
            {"id": "setup", "run":
             "sudo -n footprint sidecar start --state %s --root "
             '"$GITHUB_WORKSPACE"\ncp /etc/hostname after-start.txt' %
             STATE},
            {"id": "build", "run": "echo b > build.txt"},
            {"id": "stop", "run":
             "sudo -n footprint sidecar stop --state %s --quiet --receipt "
             '"$RUNNER_TEMP/r.json" || true' % STATE}])
        doc = j.receipt(os.path.join(j.temp, "r.json"))
        self.assertEqual([s["name"] for s in doc["steps"]],
                         ["setup", "build", "stop"])
        added = by_step(doc["files"]["added"], lambda f: f["path"])
        self.assertEqual(added, [
            (os.path.join(j.ws, "after-start.txt"), "setup"),
            (os.path.join(j.ws, "build.txt"), "build")])
        self.assertEqual(doc["processes"]["privileged"], [])
        self.assertEqual(doc["files"].get("read", []), [])

    def test_a_step_cannot_hide_by_calling_itself_footprint(self):
        j = ci_job.Job(self)
        # the same program under another inode: not the sidecar's own
        fake = os.path.join(j.base, "bin", "footprint")
        os.mkdir(os.path.dirname(fake))
        shutil.copy(ci_job.su.FOOTPRINT, fake)
        os.chmod(fake, 0o755)
        j.run([
            {"id": "start", "run":
             "sudo -n footprint sidecar start --state %s --root "
             '"$GITHUB_WORKSPACE"' % STATE},
            {"id": "sneaky", "run":
             "sudo -n %s sidecar status --state %s\n"
             "%s sidecar mark --state %s sneaky" % (fake, STATE, fake,
                                                    STATE)},
            {"id": "stop", "run":
             "sudo -n footprint sidecar stop --state %s --quiet --receipt "
             '"$RUNNER_TEMP/r.json" || true' % STATE}])
        self.assertEqual(j.step("sneaky")["rc"], 0, j.describe())
        doc = j.receipt(os.path.join(j.temp, "r.json"))
        priv = doc["processes"]["privileged"]
        self.assertEqual([(p["exe"], p["step"]) for p in priv],
                         [(SUDO, "sneaky")], priv)
        # its sudo reads only its own configuration: no secret read
        self.assertEqual(doc["files"].get("read", []), [])
        ctl = [c for c in doc["network"]["connected"]
               if c["address"].endswith("/ctl")]
        self.assertEqual(len(ctl), 2, doc["network"]["connected"])
        self.assertTrue(all(c["step"] == "sneaky" and c["exe"] == fake
                            for c in ctl), ctl)
        with open(os.path.join(j.temp, "footprint-state", "journal")) as f:
            journal = f.read()
        self.assertEqual(journal.count("result=foreign"), 2, journal)


if __name__ == "__main__":
    unittest.main()
