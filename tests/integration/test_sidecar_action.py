"""The GitHub action (ci/github) for real: node main.js and post.js, the
real sudo and footprint, in a simulated job (ci_job.py) run by an
unprivileged runner user with passwordless sudo (issue 28, High 5).

- A clean job passes in gate mode, and footprint's own sudo in the post
  step is no finding.
- A step that puts a `sudo` (and a `footprint`) of its own first on the
  job's PATH through $GITHUB_PATH, which the runner hands to the post step
  too, does not get the job an "ok": post runs /usr/bin/sudo and the
  footprint main recorded, and the verdict is the receipt's.

Run as root: FOOTPRINT=build/footprint python3 -m unittest -v \\
    tests/integration/test_sidecar_action.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402

import ci_job  # noqa: E402

# a "sudo" and a "footprint" that say all is well
FAKES = r"""
mkdir -p "$RUNNER_TEMP/evil"
for f in sudo footprint; do
	printf '#!/bin/sh\necho "fake %s $*" >> "$RUNNER_TEMP/evil/called"\nexit 0\n' "$f" > "$RUNNER_TEMP/evil/$f"
	chmod +x "$RUNNER_TEMP/evil/$f"
done
echo "$RUNNER_TEMP/evil" >> "$GITHUB_PATH"
"""


class ActionTest(unittest.TestCase):
    def action(self, j, policy_lines=()):
        policy = os.path.join(j.ws, "ci.policy")
        with open(policy, "w") as f:
            # other tests on this machine may listen meanwhile
            f.write("".join(line + "\n" for line in policy_lines) +
                    "ignore bind *\n")
        os.chown(policy, j.user.uid, j.user.gid)
        return {"name": "footprint", "uses": "footprint",
                "with": {"policy": "ci.policy", "mode": "gate"}}

    def test_a_clean_job_passes(self):
        j = ci_job.Job(self)
        j.run([self.action(j, ["allow out/**", "allow out"]),
               {"id": "build", "run": "mkdir -p out && echo o > out/app"},
               {"id": "test", "run": "sudo -n true && test -s out/app"}])
        post = j.step("footprint", post=True)
        # the job's own sudo is a finding; the action's is not
        self.assertEqual(post["rc"], 1, j.describe())
        doc = j.receipt(os.path.join(j.temp, "footprint-receipt.json"))
        priv = doc["processes"]["privileged"]
        self.assertEqual([(fptest.argv_of(doc, p), p["step"]) for p in priv],
                         [(["sudo", "-n", "true"], "test")], priv)
        j2 = ci_job.Job(self)
        j2.run([self.action(j2, ["allow out/**", "allow out"]),
                {"id": "build", "run": "mkdir -p out && echo o > out/app"}])
        post = j2.step("footprint", post=True)
        self.assertEqual(post["rc"], 0, j2.describe())
        doc = j2.receipt(os.path.join(j2.temp, "footprint-receipt.json"))
        self.assertIs(doc["ok"], True, doc["reasons"])
        self.assertEqual(post["outputs"], {"receipt": os.path.join(
            j2.temp, "footprint-receipt.json")})
        self.assertIn("footprint", post["summary"])

    def test_a_sudo_on_the_path_does_not_pass_the_job(self):
        j = ci_job.Job(self)
        j.run([self.action(j),
               {"id": "build", "run": "echo evil > /tmp/fpci-evil-$$ && "
                "rm /tmp/fpci-evil-$$ && echo x > payload"},
               {"id": "attacker", "run": FAKES}])
        post = j.step("footprint", post=True)
        self.assertEqual(post["rc"], 1, j.describe())
        self.assertFalse(os.path.exists(os.path.join(j.temp, "evil",
                                                     "called")),
                         "the post step ran a fake")
        self.assertIn("::error title=footprint::the verdict failed",
                      post["stdout"])
        doc = j.receipt(os.path.join(j.temp, "footprint-receipt.json"))
        self.assertIs(doc["ok"], False)
        added = [f["path"] for f in doc["files"]["added"]]
        self.assertEqual(added, [os.path.join(j.ws, "payload")])
        # the write to $GITHUB_PATH is the attacker's, and shows
        outside = {f["path"]: f["step"]
                   for f in doc["files"]["outside_roots"]}
        self.assertIn("attacker", outside.values(), outside)


if __name__ == "__main__":
    unittest.main()
