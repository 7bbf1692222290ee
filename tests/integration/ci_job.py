"""A simulated GitHub Actions job, run the way GitHub's hosted runners run
one, for the sidecar's tests (test_sidecar_*.py, test_doc_ci.py).

- The runner's user: an unprivileged user made for this test process, with
  passwordless sudo (`NAME ALL=(ALL) NOPASSWD: ALL`, as GitHub's `runner`
  has) and the host's sudoers defaults (env_reset, secure_path). Removed
  when the tests end.
- Runner.Worker: a process named so, running as that user in a cgroup of
  its own (the runner's service cgroup), in a mount namespace of its own
  whose /usr/local/bin holds the footprint under test, so that
  `sudo footprint ...` finds it on sudo's secure_path as an installed one
  would be found.
- Steps: each a direct child of Runner.Worker. A `run:` step is
  `bash --noprofile --norc -e -o pipefail FILE` with GITHUB_ACTION set as
  the runner sets it (the step's id, else `__run`, `__run_2`, ...); a
  `uses:` step of the action in ci/github runs `node main.js`, and its
  post step runs after the job's last step, in reverse order, with the
  STATE_* variables main saved. GITHUB_ENV, GITHUB_PATH, GITHUB_STATE,
  GITHUB_OUTPUT and GITHUB_STEP_SUMMARY are files, as on the runner; a
  failed step skips the later ones unless they say `if: always()`.
  `${{ runner.temp }}`, `${{ github.workspace }}` and
  `${{ steps.ID.outputs.NAME }}` are replaced in scripts and inputs, a
  step's `shell:` and `env:` are honoured, and the runner's job hooks
  (ACTIONS_RUNNER_HOOK_JOB_STARTED, _COMPLETED) run before the first step
  and after the last post step.
- A job may lay a scratch layer over directories (overlay: /etc, /var/lib)
  and run a root setup script in its namespace first, for files a
  document names there (/etc/footprint/ci.policy), without touching the
  host's.
"""

import atexit
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fptest import cgroup2_mount  # noqa: E402
import sudo_util as su  # noqa: E402

TOP = su.TOP
ACTION = os.path.join(TOP, "ci", "github")
NODE = shutil.which("node")
SUDOERS_D = "/etc/sudoers.d"

_USER = []


class CiUser:
    """The runner's user: unprivileged, with passwordless sudo."""

    def __init__(self):
        self.name = "fpci%s" % uuid.uuid4().hex[:8]
        self.home = os.path.realpath(tempfile.mkdtemp(prefix="fpci-home-"))
        subprocess.run(["useradd", "-U", "-M", "-d", self.home, "-s",
                        "/bin/bash", self.name], check=True)
        pw = pwd.getpwnam(self.name)
        self.uid, self.gid = pw.pw_uid, pw.pw_gid
        os.chown(self.home, self.uid, self.gid)
        os.chmod(self.home, 0o755)
        self.sudoers = os.path.join(SUDOERS_D, self.name)
        tmp = self.sudoers + ".new~"  # sudo skips names with a '~'
        with open(tmp, "w") as f:
            f.write("%s ALL=(ALL) NOPASSWD: ALL\n" % self.name)
        os.chmod(tmp, 0o440)
        os.rename(tmp, self.sudoers)
        atexit.register(self.remove)

    def pids(self):
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if su.proc_uids(int(name))[0] == self.uid:
                        found.append(int(name))
                except (OSError, TypeError):
                    pass
        return found

    def remove(self):
        try:
            os.unlink(self.sudoers)
        except OSError:
            pass
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        subprocess.run(["userdel", self.name], stderr=subprocess.DEVNULL)
        subprocess.run(["groupdel", self.name], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.home, ignore_errors=True)


def ci_user(n=0):
    """The n-th runner user of this test process (made on first use)."""
    while len(_USER) <= n:
        if not os.path.isdir(SUDOERS_D) or not shutil.which("sudo"):
            su.cannot_test("sudo is not installed")
        _USER.append(CiUser())
    return _USER[n]


def default_state(uid):
    """Where `sidecar start` keeps its state for this invoking user."""
    return "/run/footprint/sidecar-%d" % uid


# Runner.Worker: reads the job (JSON) from argv[1], runs it, and prints one
# JSON line per step on stdout.
WORKER = r"""
import ctypes, json, os, re, subprocess, sys
ctypes.CDLL(None).prctl(15, b"Runner.Worker", 0, 0, 0)
job = json.loads(sys.argv[1])
temp, ws = os.environ["RUNNER_TEMP"], os.environ["GITHUB_WORKSPACE"]
files = os.path.join(temp, "_runner_file_commands")
os.makedirs(files, exist_ok=True)
extra_env, extra_path, posts, failed = {}, [], [], False
runs = 0
outputs = {}

def expand(text):
    def one(m):
        e = m.group(1).strip()
        if e == "runner.temp":
            return temp
        if e == "github.workspace":
            return ws
        m2 = re.match(r"^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$", e)
        if m2:
            return outputs.get(m2.group(1), {}).get(m2.group(2), "")
        raise SystemExit("unknown expression " + e)
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)

def parse(path):
    out, lines = {}, open(path).read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^([^=<]+)<<(.+)$", lines[i])
        if m:
            end = lines.index(m.group(2), i + 1)
            out[m.group(1)] = "\n".join(lines[i + 1:end])
            i = end
        elif "=" in lines[i]:
            k, v = lines[i].split("=", 1)
            out[k] = v
        i += 1
    return out

def is_footprint(action):
    # ci/github of this checkout: the only action with a post step
    return action == "footprint" or bool(re.search(r"/ci/github@", action))

def run_step(n, step, post=None):
    global runs, failed
    env = dict(os.environ)
    env.update(extra_env)
    env["PATH"] = ":".join(list(reversed(extra_path)) + [env["PATH"]])
    names = {}
    for f in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT",
              "GITHUB_STEP_SUMMARY", "GITHUB_STATE"):
        names[f] = env[f] = os.path.join(files, "%s_%d%s" % (
            f.lower(), n, "_post" if post else ""))
        open(env[f], "w").close()
    for k, v in step.get("env", {}).items():
        env[k] = expand(str(v))
    if "uses" in step:
        action = step["uses"]
        env["GITHUB_ACTION"] = step.get("id") or "__" + re.sub(
            r"[^A-Za-z0-9]", "_", action.split("@")[0])
        for k, v in step.get("with", {}).items():
            env["INPUT_" + k.upper().replace(" ", "_")] = expand(str(v))
        for k, v in (post or {}).items():
            env["STATE_" + k] = v
        if is_footprint(action):
            script = os.path.join(os.environ["FP_ACTION"],
                                  "post.js" if post is not None else
                                  "main.js")
            argv = [os.environ["FP_NODE"], script]
        else:
            # a stand-in for a node action: no BASH_ENV, no PATH lookup
            argv = ["/bin/bash", "--noprofile", "--norc", "-p", "-e", "-c",
                    os.environ["FP_USES_" + re.sub(r"[^A-Za-z0-9]", "_",
                                                   action.split("@")[0])]]
    else:
        if step.get("id"):
            env["GITHUB_ACTION"] = step["id"]
        else:
            runs += 1
            env["GITHUB_ACTION"] = "__run" if runs == 1 else \
                "__run_%d" % runs
        path = os.path.join(temp, "step_%d.sh" % n)
        with open(path, "w") as f:
            f.write(expand(step["run"]))
        shell = step.get("shell", "bash --noprofile --norc -e -o pipefail "
                         "{0}")
        argv = [path if a == "{0}" else a for a in shell.split()]
    p = subprocess.run(argv, env=env, cwd=ws, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        failed = True
    for line in open(names["GITHUB_PATH"]).read().splitlines():
        if line:
            extra_path.append(line)
    extra_env.update(parse(names["GITHUB_ENV"]))
    state = parse(names["GITHUB_STATE"])
    if "uses" in step and post is None and is_footprint(step["uses"]):
        posts.append((n, step, state))
    if step.get("id") and post is None:
        outputs[step["id"]] = parse(names["GITHUB_OUTPUT"])
    print(json.dumps({"n": n, "name": step.get("name") or step.get("id") or
                      step.get("uses") or "", "post": post is not None,
                      "rc": p.returncode, "stdout": p.stdout.decode(
                          "utf-8", "replace"), "stderr": p.stderr.decode(
                          "utf-8", "replace"),
                      "action": env.get("GITHUB_ACTION"),
                      "outputs": parse(names["GITHUB_OUTPUT"]),
                      "summary": open(names["GITHUB_STEP_SUMMARY"]).read()}),
          flush=True)

def hook(name):
    path = os.environ.get("ACTIONS_RUNNER_HOOK_JOB_" + name)
    if not path:
        return
    env = dict(os.environ)
    env["GITHUB_STEP_SUMMARY"] = os.path.join(files, "hook_" + name.lower())
    p = subprocess.run([path], env=env, cwd=ws, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    print(json.dumps({"n": -1, "name": "hook " + name.lower(),
                      "post": False, "rc": p.returncode,
                      "stdout": p.stdout.decode("utf-8", "replace"),
                      "stderr": p.stderr.decode("utf-8", "replace"),
                      "summary": open(env["GITHUB_STEP_SUMMARY"]).read()
                      if os.path.exists(env["GITHUB_STEP_SUMMARY"]) else ""}),
          flush=True)
    return p.returncode

if hook("STARTED"):
    failed = True
for n, step in enumerate(job):
    if failed and step.get("if") != "always()":
        print(json.dumps({"n": n, "name": step.get("name") or
                          step.get("id") or "", "post": False,
                          "skipped": True}), flush=True)
        continue
    run_step(n, step)
for n, step, state in reversed(posts):
    run_step(n, step, post=state)
hook("COMPLETED")
"""

# what the worker runs in: a mount namespace whose /usr/local/bin holds
# the footprint under test, then the runner's user
WRAP = r"""
set -eu
mount --make-rslave /
mount -t tmpfs -o mode=0755,size=64m fpci-bin /usr/local/bin
install -m 0755 "$FP_SOURCE" /usr/local/bin/footprint
if [ -n "${FP_OVERLAYS:-}" ]; then
	mount -t tmpfs -o mode=0700,size=64m fpci-overlay "$FP_OVERLAY_TMP"
	for d in $FP_OVERLAYS; do
		u="$FP_OVERLAY_TMP/u$(echo "$d" | tr / _)"
		w="$FP_OVERLAY_TMP/w$(echo "$d" | tr / _)"
		mkdir "$u" "$w"
		mount -t overlay fpci -o "lowerdir=$d,upperdir=$u,workdir=$w" "$d"
	done
fi
[ -z "${FP_SETUP:-}" ] || sh -eu -c "$FP_SETUP"
exec setpriv --reuid "$FP_UID" --regid "$FP_GID" --init-groups -- \
	"$FP_PY" -c "$FP_WORKER" "$FP_JOB"
"""


class Job:
    """One job: a workspace, RUNNER_TEMP, the runner's cgroup; run() runs
    the steps."""

    def __init__(self, test, user=0):
        su.check_binary()
        self.test = test
        self.user = ci_user(user)
        mnt = cgroup2_mount()
        if mnt is None:
            su.cannot_test("no cgroup v2 mount")
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="fpci-job-"))
        os.chmod(self.base, 0o755)
        self.ws = os.path.join(self.base, "work", "repo", "repo")
        self.temp = os.path.join(self.base, "work", "_temp")
        for d in (self.ws, self.temp):
            os.makedirs(d)
        for d in (os.path.join(self.base, "work"), os.path.dirname(self.ws),
                  self.ws, self.temp):
            os.chown(d, self.user.uid, self.user.gid)
        self.cg = os.path.join(mnt, "fpci-runner-" + uuid.uuid4().hex[:10])
        os.mkdir(self.cg)
        self.uses = {}
        self.results = []
        self.env_extra = {}
        self.overlays = ()  # directories to lay a scratch layer over
        self.setup = ""  # root's script in the job's namespace
        test.addCleanup(self.cleanup)

    @property
    def state(self):
        return default_state(self.user.uid)

    def daemon_pids(self):
        """The sidecar daemons started for this job's user."""
        pids = []
        for st in [self.state, os.path.join(self.temp, "footprint-state")]:
            try:
                with open(os.path.join(st, "daemon.pid")) as f:
                    pids.append(int(f.readline()))
            except (OSError, ValueError):
                pass
        return pids

    def cleanup(self):
        for pid in self.daemon_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in self.user.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            with open(os.path.join(self.cg, "cgroup.kill"), "w") as f:
                f.write("1")
        except OSError:
            pass
        for _ in range(200):
            try:
                os.rmdir(self.cg)
                break
            except OSError:
                time.sleep(0.02)
        shutil.rmtree(self.state, ignore_errors=True)
        shutil.rmtree(self.base, ignore_errors=True)

    def as_user(self, argv, **kw):
        """argv as the runner's user, outside the job (no sudo)."""
        return subprocess.run(
            ["setpriv", "--reuid", str(self.user.uid), "--regid",
             str(self.user.gid), "--init-groups", "--"] + argv,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)

    def enter_cgroup(self):
        with open(os.path.join(self.cg, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    def run(self, steps, timeout=240):
        """Run the steps; a list of per-step results (dicts with rc,
        stdout, stderr, action, outputs, summary, post, skipped)."""
        env = {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
                    "/sbin:/bin",
            "HOME": self.user.home,
            "USER": self.user.name,
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": self.ws,
            "GITHUB_RUN_ID": "4242",
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_JOB": "build",
            "RUNNER_TEMP": self.temp,
            "RUNNER_TRACKING_ID": "github_%s" % uuid.uuid4(),
            "FP_ACTION": ACTION,
            "FP_NODE": NODE or "/usr/bin/node",
            "FP_SOURCE": su.FOOTPRINT,
            "FP_UID": str(self.user.uid),
            "FP_GID": str(self.user.gid),
            "FP_PY": su.PY,
            "FP_WORKER": WORKER,
            "FP_JOB": json.dumps(steps),
        }
        for name, script in self.uses.items():
            env["FP_USES_" + "".join(c if c.isalnum() else "_"
                                     for c in name)] = script
        env.update(self.env_extra)
        if self.overlays:
            env["FP_OVERLAYS"] = " ".join(self.overlays)
            env["FP_OVERLAY_TMP"] = os.path.join(self.base, "overlay")
            os.mkdir(env["FP_OVERLAY_TMP"])
        env["FP_SETUP"] = self.setup
        p = subprocess.run(["unshare", "-m", "sh", "-c", WRAP], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout,
                           preexec_fn=self.enter_cgroup)
        self.results = [json.loads(ln) for ln in p.stdout.splitlines()
                        if ln.startswith(b"{")]
        if not self.results:
            raise AssertionError("the runner ran nothing: rc %d %s" %
                                 (p.returncode, p.stderr.decode()))
        return self.results

    def step(self, name, post=False):
        for r in self.results:
            if r["name"] == name and r["post"] == post:
                return r
        raise AssertionError("no step %r in %r" % (name, [
            (r["name"], r["post"]) for r in self.results]))

    def describe(self):
        return "\n".join("step %s%s: rc=%s\n  stdout: %s\n  stderr: %s" % (
            r["name"], " (post)" if r["post"] else "", r.get("rc"),
            r.get("stdout", "")[-3000:], r.get("stderr", "")[-3000:])
            for r in self.results)

    def receipt(self, path):
        with open(path, "rb") as f:
            doc = json.load(f)
        self.test.assertEqual(su.schema_errors(doc), [], doc)
        return doc
