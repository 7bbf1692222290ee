"""The sidecar's default state directory, for a non-root user under sudo
(issue 29, item 2).

`sudo footprint sidecar start`, as the README writes it, failed for a
non-root user: it made /run/footprint as root and the next level as the
user. The default is now one directory per invoking user,
/run/footprint/sidecar-UID, root's at every level; mark, status and stop
find it without --state. Two users of one runner each get their own, at
the same time, and neither may mark the other's sidecar.

Each job is a simulated GitHub Actions job (ci_job.py) whose runner user
is unprivileged with passwordless sudo.

Run as root: FOOTPRINT=build/footprint python3 -m unittest -v \\
    tests/integration/test_sidecar_default_state.py
"""

import os
import stat
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ci_job  # noqa: E402

# README.md, "In CI: the sidecar", with outputs in RUNNER_TEMP (the
# workspace is the watched root)
START = 'sudo footprint sidecar start --root "$GITHUB_WORKSPACE"'
MARK = "footprint sidecar mark integration-tests"
STOP = ('sudo footprint sidecar stop --receipt "$RUNNER_TEMP/fp.json" '
        '--summary "$RUNNER_TEMP/fp.md" --annotations')


def steps(tag):
    return [
        {"id": "start", "run": START},
        {"id": "mark", "run": MARK + "\nfootprint sidecar status"},
        {"run": "echo %s > built-%s.txt" % (tag, tag)},
        {"id": "stop", "if": "always()", "run": "rc=0\n%s || rc=$?\n"
         "echo stop=$rc" % STOP},
    ]


class DefaultStateTest(unittest.TestCase):
    def check_job(self, j, tag):
        self.assertEqual(j.step("start")["rc"], 0, j.describe())
        self.assertEqual(j.step("mark")["rc"], 0, j.describe())
        self.assertIn("footprint sidecar: tracing", j.step("mark")["stderr"])
        self.assertIn("stop=1", j.step("stop")["stdout"], j.describe())
        doc = j.receipt(os.path.join(j.temp, "fp.json"))
        added = [f["path"] for f in doc["files"]["added"]]
        self.assertEqual(added, [os.path.join(j.ws, "built-%s.txt" % tag)])
        return doc

    def test_readme_commands_as_a_user_under_sudo(self):
        j = ci_job.Job(self)
        j.run(steps("one"))
        self.check_job(j, "one")
        st = os.stat("/run/footprint")
        self.assertEqual((st.st_uid, stat.S_IMODE(st.st_mode)), (0, 0o755))
        st = os.lstat(j.state)
        self.assertTrue(stat.S_ISDIR(st.st_mode))
        self.assertEqual((st.st_uid, stat.S_IMODE(st.st_mode)), (0, 0o711))
        # its journal: the sidecar started there was stopped cleanly
        with open(os.path.join(j.state, "journal")) as f:
            self.assertTrue(f.read().splitlines()[-1].startswith("stopped "))
        # a second job of the same user takes the same directory again
        j2 = ci_job.Job(self)
        j2.run(steps("two"))
        self.check_job(j2, "two")

    def test_two_users_of_one_runner(self):
        a, b = ci_job.Job(self, user=0), ci_job.Job(self, user=1)
        self.assertNotEqual(a.state, b.state)
        # b tries to mark a's sidecar while both run: b waits for a's to
        # be up, a for b to be done
        done = os.path.join(b.temp, "meddled")
        meddle = {"id": "meddle", "run":
                  "for i in $(seq 600); do [ -S %s/ctl ] && break; "
                  "sleep 0.05; done\n"
                  "footprint sidecar mark --state %s evil 2>&1 || "
                  "echo mark=$?\nsudo -n footprint sidecar status 2>&1\n"
                  "touch %s" % (a.state, a.state, done)}
        wait = {"id": "wait", "run": "for i in $(seq 600); do "
                "[ -e %s ] && exit 0; sleep 0.05; done; exit 1" % done}
        errs = []

        def run(job, s):
            try:
                job.run(s)
            except Exception as e:  # noqa: BLE001 - reported below
                errs.append(e)
        ta = threading.Thread(target=run, args=(a, steps("a")[:2] + [
            wait] + steps("a")[2:]))
        tb = threading.Thread(target=run, args=(b, steps("b")[:2] + [
            meddle] + steps("b")[2:]))
        ta.start()
        tb.start()
        ta.join()
        tb.join()
        self.assertEqual(errs, [])
        self.check_job(a, "a")
        self.check_job(b, "b")
        out = b.step("meddle")["stdout"]
        self.assertIn("mark=1", out, b.describe())
        self.assertIn("the sidecar did not take the mark", out)
        # b's status under sudo is b's own sidecar (SUDO_UID), not root's
        self.assertIn("footprint sidecar: tracing", out)
        with open(os.path.join(a.state, "journal")) as f:
            journal = f.read()
        self.assertIn("op=mark", journal)
        self.assertIn("uid=%d result=refused" % b.user.uid, journal)
        self.assertNotIn("evil", [s["name"] for s in self.check_job(
            a, "a")["steps"]])


if __name__ == "__main__":
    unittest.main()
