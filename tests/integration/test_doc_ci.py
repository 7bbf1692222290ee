"""Every command block of docs/ci.md, run as written (issue 29, items 2
and 6): the fenced `sh` and `yaml` blocks are taken from the document at
run time and run in simulated jobs (ci_job.py) by an unprivileged runner
user with passwordless sudo, as GitHub's hosted runners have it, on a
small project whose build is clean under its own policy. Each job must
pass; a block this file does not know how to run fails the test (a
`text` block is a synopsis or an example of output, not a command).

What stands in for what the runner would fetch from the network:
- `git clone https://github.com/OWNER/footprint` clones a snapshot of
  this checkout, working tree included (git's url.insteadOf);
- `actions/checkout` copies the project into the workspace, and
  `actions/upload-artifact` copies its path into an artifacts directory;
- `OWNER/footprint/ci/github@COMMIT` is ci/github of this checkout.
The files the hooks block names (/opt/footprint/*.sh, /etc/footprint/,
/var/lib/footprint) are made in the job's own mount namespace (an
overlay over /etc and /var/lib): the host's are not touched.

Besides, the explicit stop step runs after an attacker step that puts a
sudo, a footprint, a jq and a bash of its own on $GITHUB_PATH and a
BASH_ENV in $GITHUB_ENV: it must not run any of them, and the job must
fail on its verdict.

Run as root: FOOTPRINT=build/footprint python3 -m unittest -v \\
    tests/integration/test_doc_ci.py
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ci_job  # noqa: E402
import sudo_util as su  # noqa: E402

DOC = os.path.join(su.TOP, "docs", "ci.md")

# the project a job checks out: `make` builds, `make test` tests, and its
# policy allows what the build makes
PROJECT = {
    "Makefile": "build/app: src/app.sh\n\tmkdir -p build\n"
                "\tcp src/app.sh build/app\n\tchmod +x build/app\n"
                "test: build/app\n\t./build/app > build/test.out\n"
                "\tgrep -q hello build/test.out\n.PHONY: test\n",
    "src/app.sh": "#!/bin/sh\necho hello\n",
    # other tests on this machine listen too (network.listening lists
    # every new listener of the host, not the job's alone)
    "ci.policy": "allow build\nallow build/**\nignore bind *\n",
}

ARTIFACTS = '"$RUNNER_TEMP/../artifacts"'


def blocks():
    """(language, text) of every fenced block of docs/ci.md."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    return [(m.group(1), m.group(2)) for m in re.finditer(
        r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)]


def classify():
    """The blocks this test runs, by what they are; unknown ones too."""
    kinds, unknown = {}, []
    for lang, text in blocks():
        if lang == "text":
            continue
        if lang == "yaml" and text.startswith("jobs:"):
            key = "action"
        elif lang == "yaml" and text.lstrip().startswith("steps:"):
            key = "explicit"
        elif lang == "yaml" and "script:" in text:
            key = "gitlab"
        elif lang == "sh" and "job-started" not in text and \
                "footprint sidecar start" in text and \
                text.startswith("#!/bin/sh\nset -eu\nexec"):
            key = "hook-started"
        elif lang == "sh" and text.startswith("#!/bin/sh\nrc=0"):
            key = "hook-completed"
        elif lang == "sh" and "ACTIONS_RUNNER_HOOK_JOB_STARTED=" in text:
            key = "hook-env"
        elif lang == "sh" and "docker ps" in text:
            key = "containers"
        else:
            unknown.append((lang, text))
            continue
        if key in kinds:
            unknown.append((lang, text))
        kinds[key] = text
    return kinds, unknown


def snapshot_repo(base, owner):
    """A git repository of this checkout's files as they are now, for
    `git clone https://github.com/OWNER/footprint` to clone."""
    repo = os.path.join(base, "footprint.git")
    files = subprocess.run(
        ["git", "-C", su.TOP, "ls-files", "-z", "-c", "-o",
         "--exclude-standard"], stdout=subprocess.PIPE,
        check=True).stdout.split(b"\0")
    for name in filter(None, files):
        src = os.path.join(os.fsencode(su.TOP), name)
        dst = os.path.join(os.fsencode(repo), name)
        if not os.path.lexists(src) or os.path.isdir(src):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)
    git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", repo], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "snapshot"], check=True)
    # the user who clones it owns it, or git calls it dubious
    subprocess.run(["chown", "-R", "%d:%d" % owner, repo], check=True)
    return repo


class DocCiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.kinds, cls.unknown = classify()

    def test_every_block_is_known(self):
        self.assertEqual(self.unknown, [], "a block of docs/ci.md this "
                         "test does not run")
        self.assertEqual(sorted(self.kinds), sorted([
            "action", "explicit", "gitlab", "hook-started",
            "hook-completed", "hook-env", "containers"]))

    def job(self):
        j = ci_job.Job(self)
        proj = os.path.join(j.base, "project")
        for name, text in PROJECT.items():
            path = os.path.join(proj, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        subprocess.run(["chmod", "-R", "a+rX", proj], check=True)
        arts = os.path.join(j.base, "work", "artifacts")
        os.mkdir(arts)
        os.chown(arts, j.user.uid, j.user.gid)
        j.uses = {
            "actions/checkout": 'cp -a "%s/." "$GITHUB_WORKSPACE/"' % proj,
            "actions/upload-artifact":
                'test -e "$INPUT_PATH" && cp "$INPUT_PATH" "%s/"' % arts,
        }
        j.artifacts = arts
        return j

    def steps_of(self, key):
        doc = yaml.safe_load(self.kinds[key])
        return doc["jobs"]["build"]["steps"] if key == "action" else \
            doc["steps"]

    def check_passed(self, j, receipt):
        for r in j.results:
            self.assertFalse(r.get("skipped"), j.describe())
            self.assertEqual(r["rc"], 0, j.describe())
        doc = j.receipt(receipt)
        self.assertIs(doc["ok"], True, doc["reasons"])
        self.assertEqual(sorted(f["path"] for f in doc["files"]["added"]), [
            os.path.join(j.ws, "build"), os.path.join(j.ws, "build", "app"),
            os.path.join(j.ws, "build", "test.out")])
        return doc

    def test_the_action_job(self):
        j = self.job()
        repo = snapshot_repo(j.base, (j.user.uid, j.user.gid))
        gitconfig = os.path.join(j.base, "gitconfig")
        with open(gitconfig, "w") as f:
            f.write('[url "file://%s"]\n\tinsteadOf = '
                    'https://github.com/OWNER/footprint\n' % repo)
        os.chmod(gitconfig, 0o644)
        j.env_extra["GIT_CONFIG_GLOBAL"] = gitconfig
        steps = self.steps_of("action")
        self.assertIn("git clone", steps[0]["run"])
        j.run(steps, timeout=1200)
        post = [r for r in j.results if r["post"]]
        self.assertEqual(len(post), 1, j.describe())
        doc = self.check_passed(j, os.path.join(j.temp,
                                                "footprint-receipt.json"))
        names = [s["name"] for s in doc["steps"]]
        self.assertLess(names.index("build"), names.index("test"), names)
        self.assertEqual(post[0]["outputs"]["receipt"],
                         os.path.join(j.temp, "footprint-receipt.json"))

    def test_the_explicit_steps(self):
        j = self.job()
        j.run(self.steps_of("explicit"))
        doc = self.check_passed(j, os.path.join(j.temp,
                                                "footprint-receipt.json"))
        names = [s["name"] for s in doc["steps"]]
        self.assertLess(names.index("build"), names.index("test"), names)
        self.assertTrue(os.path.exists(os.path.join(
            j.artifacts, "footprint-receipt.json")))
        stop = j.step("footprint stop")
        self.assertIn("# footprint", stop["summary"])

    def test_the_explicit_stop_step_after_an_attacker(self):
        j = self.job()
        steps = self.steps_of("explicit")
        stop = [s.get("name") for s in steps].index("footprint stop")
        fakes = " ".join("sudo footprint jq bash env cat".split())
        attacker = {"id": "attacker", "run": """
echo x > payload
mkdir -p "$RUNNER_TEMP/evil"
for f in %s; do
	printf '#!/bin/sh\\necho "fake $0 $*" >> "%%s/evil/called"\\nexit 0\\n' "$RUNNER_TEMP" > "$RUNNER_TEMP/evil/$f"
	chmod +x "$RUNNER_TEMP/evil/$f"
done
echo "$RUNNER_TEMP/evil" >> "$GITHUB_PATH"
printf 'echo fake BASH_ENV >> "%%s/evil/called"; exit 0\\n' "$RUNNER_TEMP" > "$RUNNER_TEMP/evil/env.sh"
echo "BASH_ENV=$RUNNER_TEMP/evil/env.sh" >> "$GITHUB_ENV"
""" % fakes}
        j.run(steps[:stop] + [attacker] + steps[stop:])
        called = os.path.join(j.temp, "evil", "called")
        self.assertFalse(os.path.exists(called), open(called).read()
                         if os.path.exists(called) else "")
        self.assertEqual(j.step("footprint stop")["rc"], 1, j.describe())
        doc = j.receipt(os.path.join(j.temp, "footprint-receipt.json"))
        self.assertIs(doc["ok"], False)
        self.assertIn(os.path.join(j.ws, "payload"),
                      [f["path"] for f in doc["files"]["added"]])

    def test_the_containers_snippet(self):
        j = self.job()
        j.run([{"uses": "actions/checkout@v4"},
               {"id": "start", "run": self.kinds["containers"]},
               {"id": "build", "run": "make"},
               {"id": "stop", "run": "rc=0\nsudo -n footprint sidecar stop "
                '--state "$RUNNER_TEMP/footprint-state" '
                '--receipt "$RUNNER_TEMP/r.json" || rc=$?\necho rc=$rc'}])
        doc = j.receipt(os.path.join(j.temp, "r.json"))
        self.assertEqual(j.step("start")["rc"], 0, j.describe())
        # no policy in the snippet: the build's files are findings
        self.assertIn("rc=1", j.step("stop")["stdout"], j.describe())
        self.assertEqual(sorted(f["path"] for f in doc["files"]["added"]), [
            os.path.join(j.ws, "build"), os.path.join(j.ws, "build", "app")])
        self.assertEqual([s["name"] for s in doc["steps"]],
                         ["start", "build", "stop"])

    def test_the_runner_hooks(self):
        j = self.job()
        hooks = os.path.join(j.base, "hooks")
        os.mkdir(hooks)
        env = {}
        for line in self.kinds["hook-env"].splitlines():
            name, path = line.split("=", 1)
            kind = "started" if name.endswith("STARTED") else "completed"
            # the .env names /opt/footprint/...: the same scripts, here
            self.assertEqual(path, "/opt/footprint/job-%s.sh" % kind)
            mine = os.path.join(hooks, os.path.basename(path))
            with open(mine, "w") as f:
                f.write(self.kinds["hook-" + kind])
            os.chmod(mine, 0o755)
            env[name] = mine
        os.chmod(hooks, 0o755)
        j.env_extra.update(env)
        j.overlays = ("/etc", "/var/lib")
        j.setup = ('mkdir -p /etc/footprint /var/lib/footprint\n'
                   'printf "allow build\\nallow build/**\\nignore bind *\\n" > '
                   '/etc/footprint/ci.policy\n'
                   'chown %d /var/lib/footprint\n' % j.user.uid)
        # the workspace is checked out before the job-started hook runs
        for name, text in PROJECT.items():
            path = os.path.join(j.ws, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        subprocess.run(["chown", "-R", "%d:%d" % (j.user.uid, j.user.gid),
                        j.ws], check=True)
        j.run([{"id": "build", "run": "make"},
               {"id": "test", "run": "make test"}])
        started = j.step("hook started")
        completed = j.step("hook completed")
        self.assertEqual(started["rc"], 0, j.describe())
        self.assertEqual(completed["rc"], 0, j.describe())
        self.assertIn("# footprint", completed["summary"])

    def test_the_gitlab_job(self):
        j = self.job()
        job = yaml.safe_load(self.kinds["gitlab"])["footprint-build"]
        env = {"CI_JOB_ID": str(uuid.uuid4().int % 10 ** 9),
               "CI_PROJECT_DIR": j.ws}
        for name, value in job["variables"].items():
            env[name] = re.sub(r"\$(\w+)", lambda m: env.get(
                m.group(1), ""), value)

        def script(lines):
            # GitLab's shell executor: one bash, -e and pipefail
            return "unset GITHUB_ACTION\n" + "".join(
                "export %s=%s\n" % (k, v) for k, v in env.items()) + \
                "\n".join(lines) + "\n"
        for name, text in PROJECT.items():
            path = os.path.join(j.ws, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        subprocess.run(["chown", "-R", "%d:%d" % (j.user.uid, j.user.gid),
                        j.ws], check=True)
        self.addCleanup(shutil.rmtree, env["FP_OUT"], True)
        self.addCleanup(shutil.rmtree, env["FP_STATE"], True)
        j.run([{"id": "script", "run": script(job["script"])},
               {"id": "after_script", "if": "always()",
                "run": script(job["after_script"])}])
        self.assertEqual(j.step("script")["rc"], 0, j.describe())
        self.assertEqual(j.step("after_script")["rc"], 0, j.describe())
        receipt = os.path.join(j.ws, "footprint-receipt", "receipt.json")
        doc = j.receipt(receipt)
        self.assertIs(doc["ok"], True, doc["reasons"])
        self.assertEqual([s["name"] for s in doc["steps"]],
                         ["build", "test"])


if __name__ == "__main__":
    unittest.main()
