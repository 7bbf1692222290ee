"""A job step with sudo that reaches for the sidecar (issue 28, High 4).

Each test runs a simulated GitHub Actions job (ci_job.py: an
unprivileged runner user with passwordless sudo, Runner.Worker, the real
action's main and post steps or the explicit steps of docs/ci.md) with an
attacker step in it, and checks that the attack is evidence, not an "ok":

- a root process that says the stop's hello is not removed from the trace
  and is a tamper finding;
- a step that stops the sidecar and starts a permissive one on the same
  state directory (a restart) fails the job with tamper findings;
- a step that kills the sidecar cannot start another on its state, and one
  that removes the state and starts afresh is caught by the daemon the
  action pinned;
- every start and every message on the control socket is in the journal
  and the log, and a start refuses a state that no stop ended cleanly.

Run as root: FOOTPRINT=build/footprint python3 -m unittest -v \\
    tests/integration/test_sidecar_takeover.py
"""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
import ci_job  # noqa: E402
import sudo_util as su  # noqa: E402

STATE = '"$RUNNER_TEMP/footprint-state"'
ACTION = {"name": "footprint", "uses": "footprint", "with": {"mode": "gate"}}
START = {"id": "fp-start", "run":
         "sudo -n footprint sidecar start --state %s --root "
         '"$GITHUB_WORKSPACE" --record "$RUNNER_TEMP/job.fplog"' % STATE}
STOP = {"id": "fp-stop", "if": "always()", "run":
        'rc=0\nsudo -n footprint sidecar stop --state %s --receipt '
        '"$RUNNER_TEMP/footprint-receipt.json" || rc=$?\nexit $rc' % STATE}
# a permissive sidecar the attacker would like instead
PERMISSIVE = ("sudo -n footprint sidecar start --state %s --root "
              '"$GITHUB_WORKSPACE" --allow "**" --quiet' % STATE)

HELLO = r"""
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.send(b"H")
print("hello answered:", s.recv(64).decode(), flush=True)
s.close()
with open("hidden.txt", "w") as f:
    f.write("written after the hello\n")
"""


def tamper_kinds(doc):
    return sorted(t["kind"] for t in doc["tamper"])


class TakeoverTest(unittest.TestCase):
    def job(self):
        return ci_job.Job(self)

    def test_a_root_hello_is_tamper_and_hides_nothing(self):
        j = self.job()
        hello = os.path.join(j.base, "hello.py")
        with open(hello, "w") as f:
            f.write(HELLO)
        j.run([ACTION,
               {"id": "build", "run": "echo ok > built.txt"},
               {"id": "attacker", "run": 'sudo -n %s %s "$RUNNER_TEMP/'
                'footprint-state/ctl"' % (su.PY, hello)}])
        post = j.step("footprint", post=True)
        self.assertEqual(post["rc"], 1, j.describe())
        self.assertIn("hello answered: E refused",
                      j.step("attacker")["stdout"])
        doc = j.receipt(os.path.join(j.temp, "footprint-receipt.json"))
        control = [t for t in doc["tamper"] if t["kind"] == "control"]
        self.assertEqual(len(control), 1, doc["tamper"])
        self.assertEqual(control[0]["step"], "attacker")
        argv = [su.PY, hello, os.path.join(j.temp, "footprint-state", "ctl")]
        self.assertEqual(fptest.argv_of(doc, control[0]["by"]), argv)
        # still traced after its hello: its write names it
        added = {f["path"]: f for f in doc["files"]["added"]}
        hidden = added[os.path.join(j.ws, "hidden.txt")]
        self.assertEqual(fptest.argv_of(doc, hidden["by"]), argv)
        self.assertEqual(hidden["step"], "attacker")
        self.assertIn("tamper.control: a hello on footprint's control socket",
                      "\n".join(doc["reasons"]))

    def restart_job(self, sidecar, steps_after=()):
        j = self.job()
        j.run(sidecar[:1] + [
            {"id": "build", "run": "echo ok > built.txt"},
            {"id": "attacker", "run":
             "sudo -n footprint sidecar stop --state %s --quiet || true\n"
             "%s\necho evil > evil.txt" % (
                 STATE, PERMISSIVE)},
        ] + list(steps_after) + sidecar[1:])
        return j

    def test_a_restart_with_the_action_fails_the_job(self):
        j = self.restart_job([ACTION])
        self.assertEqual(j.step("attacker")["rc"], 0, j.describe())
        self.assertIn("this start is a restart",
                      j.step("attacker")["stderr"])
        post = j.step("footprint", post=True)
        self.assertEqual(post["rc"], 1, j.describe())
        doc = j.receipt(os.path.join(j.temp, "footprint-receipt.json"))
        self.assertIs(doc["ok"], False)
        self.assertEqual(tamper_kinds(doc), ["replaced", "restart"],
                         doc["tamper"])
        for t in doc["tamper"]:
            self.assertIsNone(t["by"])
        self.assertIn("the sidecar was replaced", post["stdout"])

    def test_a_restart_with_explicit_steps_fails_the_job(self):
        # no pin here: the journal's evidence alone
        j = self.restart_job([START, STOP])
        stop = j.step("fp-stop")
        self.assertEqual(stop["rc"], 1, j.describe())
        doc = j.receipt(os.path.join(j.temp, "footprint-receipt.json"))
        self.assertIs(doc["ok"], False)
        self.assertIn("restart", tamper_kinds(doc))

    def test_a_killed_sidecar_cannot_be_replaced(self):
        j = self.job()
        j.run([ACTION,
               {"id": "build", "run": "echo ok > built.txt"},
               {"id": "attacker", "run":
                "sudo -n kill -KILL $(sudo -n head -1 %s/daemon.pid)\n"
                "sleep 0.2\nrc=0\n%s || rc=$?\necho start: $rc" % (
                    STATE, PERMISSIVE)}])
        att = j.step("attacker")
        self.assertIn("start: 2", att["stdout"], j.describe())
        self.assertIn("was never stopped", att["stderr"])
        post = j.step("footprint", post=True)
        self.assertEqual(post["rc"], 1, j.describe())
        self.assertIn("the sidecar daemon is gone", post["stderr"])

    def test_a_removed_state_is_caught_by_the_pin(self):
        j = self.job()
        j.run([ACTION,
               {"id": "attacker", "run":
                "sudo -n kill -KILL $(sudo -n head -1 %s/daemon.pid)\n"
                "sudo -n rm -rf %s\n%s\necho evil > evil.txt" % (
                    STATE, STATE, PERMISSIVE)}])
        self.assertEqual(j.step("attacker")["rc"], 0, j.describe())
        post = j.step("footprint", post=True)
        self.assertEqual(post["rc"], 1, j.describe())
        doc = j.receipt(os.path.join(j.temp, "footprint-receipt.json"))
        self.assertIn("replaced", tamper_kinds(doc), doc["tamper"])

    def test_stop_of_another_daemon_than_the_pinned_one_fails(self):
        j = self.job()
        j.run([START,
               {"id": "build", "run": "echo ok > built.txt"},
               {"id": "fp-stop", "run":
                "sudo -n footprint sidecar stop --state %s --receipt "
                '"$RUNNER_TEMP/footprint-receipt.json" --daemon 1:1 '
                "--quiet" % STATE}])
        self.assertEqual(j.step("fp-stop")["rc"], 1, j.describe())
        doc = j.receipt(os.path.join(j.temp, "footprint-receipt.json"))
        self.assertEqual(tamper_kinds(doc), ["replaced"])

    def journal(self, state):
        with open(os.path.join(state, "journal")) as f:
            return [ln.split(" ", 1)[0] + " " + " ".join(
                kv for kv in ln.split()[1:] if kv.startswith(
                    ("op=", "result=", "name=", "restart=", "rc=")))
                    for ln in f.read().splitlines()]

    def test_every_start_and_message_is_evidence(self):
        j = self.job()
        state = os.path.join(j.temp, "footprint-state")
        steps = [START,
                 {"id": "build", "run":
                  "footprint sidecar mark --state %s compile\n"
                  "footprint sidecar status --state %s\n"
                  "date +%%N > built.txt" % (STATE, STATE)},
                 STOP]
        j.run(steps)
        self.assertEqual(j.step("fp-stop")["rc"], 1, j.describe())
        first = self.journal(state)
        self.assertEqual(first, [
            "start restart=no",
            "control op=start result=ok name=fp-start",
            "control op=mark result=ok name=compile",
            "control op=status result=ok",
            "control op=hello result=ok",
            "control op=stop result=ok",
            "stopped rc=1",
        ])
        # the log has them too, with footprint's own processes named
        ev = subprocess.run([su.FOOTPRINT, "events", "--type", "control",
                             os.path.join(j.temp, "job.fplog")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(ev.returncode, 0, ev.stderr)
        got = [e for e in map(json.loads, ev.stdout.splitlines())
               if e["type"] == "control"]
        self.assertEqual([(e["request"], e["result"]) for e in got], [
            ("start", "ok"), ("mark", "ok"), ("status", "ok"),
            ("hello", "ok"), ("stop", "ok")])
        for e in got:
            self.assertEqual(e["own"][0], e["pid"], e)
        # the stop's child, the stop, and the sudo that ran it
        self.assertEqual(len(got[3]["own"]), 3, got[3])
        # and the log replays to the receipt, byte for byte
        again = os.path.join(j.base, "again.json")
        r = subprocess.run([su.FOOTPRINT, "replay", "--quiet", "--receipt",
                            again, os.path.join(j.temp, "job.fplog")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(r.returncode, 1, r.stderr)
        with open(again, "rb") as a, open(os.path.join(
                j.temp, "footprint-receipt.json"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        # a later job reuses the state directory a clean stop ended; the
        # first job's lines outlive its daemon
        j2 = ci_job.Job(self)
        j2.temp, j2.ws = j.temp, j.ws
        j2.run(steps)
        self.assertEqual(j2.step("fp-stop")["rc"], 1, j2.describe())
        self.assertEqual(self.journal(state), first + first)

    def test_start_refuses_a_state_no_stop_ended(self):
        j = self.job()
        state = os.path.join(j.temp, "footprint-state")
        j.run([START,
               {"id": "kill", "run":
                "sudo -n kill -KILL $(sudo -n head -1 %s/daemon.pid)" %
                STATE},
               STOP,
               {"id": "again", "if": "always()", "run":
                START["run"] + " 2>&1 || echo rc=$?"}])
        self.assertIn("judging what it recorded",
                      j.step("fp-stop")["stderr"], j.describe())
        again = j.step("again")["stdout"]
        self.assertIn("rc=2", again)
        self.assertIn("died before a stop ended it", again)
        lines = self.journal(state)
        self.assertEqual(lines[-1].split()[0], "dead", lines)


if __name__ == "__main__":
    unittest.main()
