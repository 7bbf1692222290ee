"""The command blocks of README.md and docs/*.md, run as written.

Every fenced ```sh block of README.md and docs/*.md (but docs/ci.md,
which test_sidecar's own test runs) is found here, and each must have an
entry in BLOCKS: how to prepare what it expects (its files, a /srv/app),
which exit status each of its commands may have, and what must hold
after it; or, for a block that cannot run here, the reason why. A block
without an entry fails test_doc_blocks: nothing is silently skipped.

A block runs as a user would type it: in /bin/sh as a non-root user who
may sudo (realuse_util.User), `sudo footprint` and `footprint` found on
the PATH, in a private mount namespace whose /tmp and /srv are empty
tmpfs, so that the paths the docs name (/tmp/s1, /srv/app) are this
run's alone while other suites run on the machine. After each command
its exit status is recorded.

    python3 docblocks.py --child KEY USER BIN TOP   (run by the test, as
        root, under unshare -m: prepares, runs the block, checks, and
        prints one JSON object)
"""

import json
import os
import pwd
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))

# test_sidecar covers this file's blocks with the sidecar's own setup
NOT_HERE = ("docs/ci.md",)


class Block:
    def __init__(self, path, line, lang, text):
        self.path = path  # relative to TOP
        self.line = line  # of the opening fence, 1-based
        self.lang = lang
        self.text = text

    @property
    def first(self):
        for ln in self.text.splitlines():
            if ln.strip() and not ln.lstrip().startswith("#"):
                return ln.strip()
        return ""

    @property
    def key(self):
        return "%s: %s" % (self.path, self.first)

    def __repr__(self):
        return "%s:%d" % (self.path, self.line)


def doc_files(top=TOP):
    out = ["README.md"]
    d = os.path.join(top, "docs")
    out += sorted("docs/" + f for f in os.listdir(d) if f.endswith(".md"))
    return [f for f in out if f not in NOT_HERE]


def extract(top=TOP):
    """Every ```sh block (sh, bash, shell) of the doc files."""
    blocks = []
    for rel in doc_files(top):
        with open(os.path.join(top, rel), encoding="utf-8") as f:
            lines = f.read().split("\n")
        i = 0
        while i < len(lines):
            m = re.match(r"^\s*```(\S*)\s*$", lines[i])
            if not m:
                i += 1
                continue
            j = i + 1
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                j += 1
            if m.group(1) in ("sh", "bash", "shell"):
                blocks.append(Block(rel, i + 1, m.group(1),
                                    "\n".join(lines[i + 1:j]) + "\n"))
            i = j + 1
    return blocks


def commands(text):
    """The block as (lines, is_command) pieces: a command is one logical
    line (continuation lines joined), a comment or blank line is not."""
    out, cur = [], []
    for ln in text.splitlines():
        if cur:
            cur.append(ln)
            if not ln.rstrip().endswith("\\"):
                out.append(("\n".join(cur), True))
                cur = []
            continue
        if not ln.strip() or ln.lstrip().startswith("#"):
            out.append((ln, False))
        elif ln.rstrip().endswith("\\"):
            cur = [ln]
        else:
            out.append((ln, True))
    if cur:
        out.append(("\n".join(cur), True))
    return out


def instrument(text):
    """The block, with its exit status recorded after each command, one
    "N RC" line each (N counts from 1) on fd 9, open from the start: a
    write through it opens no file, so a traced job (the sidecar's) does
    not see it. The record goes on a line of its own: a command may end
    in a comment."""
    out, n = [], 0
    for piece, is_cmd in commands(text):
        out.append(piece)
        if is_cmd:
            n += 1
            out.append('echo "%d $?" >&9' % n)
    return "\n".join(out) + "\n", n


# ---- what each block needs -------------------------------------------

class Skip:
    """A block that cannot run here, and why."""

    def __init__(self, why):
        self.why = why


class Run:
    """prepare(ctx) makes what the block expects, in ctx.work (its cwd)
    and elsewhere; rc: {command number: allowed exit statuses}, the
    others must exit 0; check(ctx) returns a list of what is wrong after
    it; env: more variables; as_root: the block says "as root"; only:
    the command numbers to run, with why the others are not; cwd: "top"
    (the checkout), or a directory under the block's work directory."""

    def __init__(self, prepare=None, rc=None, check=None, env=None,
                 as_root=False, only=None, why_not=None, cwd=None,
                 runner=False, needs=None):
        self.prepare = prepare
        self.rc = rc or {}
        self.check = check
        self.env = env or {}
        self.as_root = as_root
        self.only = only
        self.why_not = why_not
        self.cwd = cwd
        # under a stand-in for GitHub's Runner.Worker, as a job's steps
        self.runner = runner
        # the fix it waits for, said when it fails (issue 29 was shared)
        self.needs = needs


class Ctx:
    """What a block's prepare and check see (in the child, as root)."""

    def __init__(self, work, user, top):
        self.work = work
        self.user = user  # pwd entry
        self.top = top
        self.out = ""

    def path(self, *names):
        return os.path.join(self.work, *names)

    def own(self, path):
        os.chown(path, self.user.pw_uid, self.user.pw_gid)

    def mkdir(self, path, mode=0o755):
        path = path if os.path.isabs(path) else self.path(path)
        os.makedirs(path, exist_ok=True)
        # every new directory on the way is the user's
        p = path
        while p.startswith(self.work) or p.startswith("/srv/") or \
                p.startswith(self.user.pw_dir + "/"):
            if os.stat(p).st_uid == 0:
                self.own(p)
            p = os.path.dirname(p)
        os.chmod(path, mode)
        return path

    def write(self, path, text, mode=0o644):
        path = path if os.path.isabs(path) else self.path(path)
        self.mkdir(os.path.dirname(path))
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        self.own(path)
        return path

    def read(self, path):
        path = path if os.path.isabs(path) else self.path(path)
        with open(path, "rb") as f:
            return f.read()


def _usage_prepare(c):
    c.write("generated_script.sh", "#!/bin/sh\necho generated\n", 0o755)
    c.write("gen.sh", "#!/bin/sh\nset -e\nmkdir -p .cache logs\n"
            "echo cached > .cache/pip.json\necho started >> logs/run.log\n",
            0o755)
    c.mkdir("logs")
    c.write("logs/run.log", "")
    c.mkdir("/srv/app")
    c.write("/srv/app/README", "the app\n")
    c.write("tool", "#!/bin/sh\necho tool\n", 0o755)
    c.write("Makefile", "install:\n\tmkdir -p /srv/app/bin\n"
            "\tcp tool /srv/app/bin/tool\n")
    c.write("ci.policy", "allow bin/\n")


def _usage_check(c):
    bad = []
    if c.read("/srv/app/bin/tool") != c.read("tool"):
        bad.append("make install did not install /srv/app/bin/tool")
    r = json.loads(c.read("/tmp/r.json"))
    if not r["ok"]:
        bad.append("/tmp/r.json: %s" % r["reasons"])
    ev = [json.loads(ln) for ln in c.read("trace.ndjson").splitlines()]
    if not any(e.get("type") == "exec" and e.get("argv", [None])[0] == "cp"
               for e in ev):
        bad.append("trace.ndjson has no exec of cp")
    return bad


def _replay_prepare(c):
    c.write("job.sh", "#!/bin/sh\nset -e\nuname -r >/dev/null\n"
            "date +%Y >/dev/null\nls /usr/share >/dev/null\n", 0o755)
    c.write("today.policy", "allow ./\n")


def _replay_check(c):
    bad = []
    if c.read("/tmp/live.json") != c.read("/tmp/again.json"):
        bad.append("again.json is not byte-identical to live.json")
    if "/bin/sh ./job.sh\nuname -r\ndate +%Y\nls /usr/share\n" not in \
            c.out:
        bad.append("the events line did not print the command lines")
    return bad


AGENT = """#!/bin/sh
# a code model's "fix": edit calc.py in place
set -e
sed -i 's/a - b/a + b/' calc.py
"""


def _scratch_prepare(c, env_file=False, out_dir=False):
    c.mkdir("job")
    c.write("job/calc.py", "def add(a, b):\n    return a - b\n")
    c.write("job/agent", AGENT, 0o755)
    if env_file:
        c.write("job/.env", "TOKEN=secret\n", 0o600)
    c.mkdir("fixture")
    if out_dir:
        c.mkdir("out")
    c.mkdir(os.path.join(c.user.pw_dir, ".ssh"), 0o700)


def _scratch_check(c):
    got = c.read("job/calc.py")
    if got != b"def add(a, b):\n    return a + b\n":
        return ["job/calc.py was not promoted: %r" % got]
    return []


def _learn_prepare(c):
    c.write("ci-job.sh", "#!/bin/sh\nset -e\nmkdir -p build\n"
            "t=$(mktemp)\necho built > \"$t\"\ncp \"$t\" build/out.txt\n"
            "rm \"$t\"\n", 0o755)


def _learn_check(c):
    bad = []
    if "ok   /tmp/run3.fplog\n" not in c.out:
        bad.append("policy check did not pass run 3")
    for f in ("ci.policy", "run1.policy"):
        if b"allow build/" not in c.read(f):
            bad.append("%s does not allow build/" % f)
    # --absolute: the checkout's own path
    if ("allow %s/build/" % c.work).encode() not in c.read("here.policy"):
        bad.append("here.policy does not allow %s/build/" % c.work)
    return bad


def _sidecar_prepare(c):
    c.mkdir("ws")
    c.write("ws/README", "the workspace\n")
    # the runner's temporary directory, outside the workspace
    c.mkdir("runner_temp")


def _sidecar_check(c):
    bad = []
    r = json.loads(c.read("runner_temp/fp.json"))
    if r.get("mode") != "sidecar":
        bad.append("fp.json is not a sidecar receipt")
    if not c.read("runner_temp/fp.md").startswith(b"## footprint"):
        bad.append("fp.md is not a job summary")
    return bad


# ---- docs/attest.md and README's attestation block ----

def _as_user(c, script, cwd=None):
    """What an earlier block of the same page did, done as the user would
    (sh, their PATH and sudo): the blocks after it start from there."""
    env = {"HOME": c.user.pw_dir, "USER": c.user.pw_name,
           "LOGNAME": c.user.pw_name, "SHELL": "/bin/sh", "LANG": "C.UTF-8",
           "PATH": "%s:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" %
           c.bindir}
    p = subprocess.run(["/bin/sh", "-ec", script], cwd=cwd or c.work,
                       env=env, preexec_fn=_drop(c.user),
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    if p.returncode:
        raise OSError("preparing with %r failed: %s" % (
            script, p.stdout.decode("utf-8", "replace")))


def _attest_blocks(c):
    return [b.text for b in extract(c.top) if b.path == "docs/attest.md"]


def _make_project(c):
    c.write("x.c", "int main(void) { return 0; }\n")
    c.write("Makefile", "build/x: x.c\n\tmkdir -p build\n"
            "\tcc -o build/x x.c\n")


def _hello(c, upto):
    """docs/attest.md's end-to-end example done up to its block upto: 2,
    the keys and the project (and ~/keys/mklayout.py saved from the
    page's Python block); 3, the layout written, signed, the build traced
    and verified."""
    blocks = _attest_blocks(c)
    _as_user(c, "in-toto-keygen -t ed25519 ~/keys/edbuilder")
    _as_user(c, blocks[1])
    with open(os.path.join(c.top, "docs", "attest.md")) as f:
        py = f.read().split("```python\n", 1)[1].split("```", 1)[0]
    c.write(os.path.join(c.user.pw_dir, "keys", "mklayout.py"), py)
    if upto >= 3:
        _as_user(c, blocks[2], cwd=c.path("hello"))


def _statement_subjects(c, path):
    import base64
    env = json.loads(c.read(path))
    st = json.loads(base64.b64decode(env["payload"]))
    return [s["name"] for s in st["subject"]]


def _files(c, rel, suffix):
    d = c.path(rel)
    return [f for f in os.listdir(d) if f.endswith(suffix)]


def _attest_readme_check(c):
    bad = []
    if not json.loads(c.read("/tmp/r.json"))["ok"]:
        bad.append("/tmp/r.json: the build's verdict failed")
    st = _files(c, ".", ".intoto.jsonl")
    if len(st) != 1 or "build/x" not in _statement_subjects(c, st[0]):
        bad.append("no statement of build/x in the project: %s" % st)
    if len(_files(c, ".", ".link")) != 1:
        bad.append("run --attest wrote no link")
    return bad


def _attest_first_check(c):
    bad = []
    if "build/x" not in _statement_subjects(c, "/tmp/build.intoto.jsonl"):
        bad.append("/tmp/build.intoto.jsonl does not name build/x")
    if len(_files(c, ".", ".link")) != 1:
        bad.append("run --attest wrote no link")
    return bad


def _attest_hello_check(c):
    bad = []
    if not os.path.exists(c.path("hello", "src", "msg.h")):
        bad.append("hello/src/msg.h was not written")
    for k in ("owner.pub", "builder.pub"):
        if not os.path.exists(os.path.join(c.user.pw_dir, "keys", k)):
            bad.append("~/keys/%s was not made" % k)
    return bad


def _attest_verified(c):
    bad = []
    # beside check.link, which in-toto-verify's inspection wrote
    if len([f for f in _files(c, "hello", ".link")
            if f.startswith("build.")]) != 1:
        bad.append("run --attest wrote no link into hello/")
    added = json.loads(c.read("r.json"))["files"]["added"]
    if not any(x["path"].endswith("/hello/build/hello") for x in added):
        bad.append("the receipt has no build/hello")
    return bad


def _dsse_verified(c):
    if "Signature Verified Successfully" not in c.out:
        return ["openssl did not verify the envelope: %r" % c.out[-500:]]
    return []


# the block's own clickhouse-server (docs/fleet.md), stopped by the check
_FLEET = []


def _fleet_prepare(c):
    """A ClickHouse at localhost:8123 that is this block's alone: in a
    network namespace of its own (the block's commands are this
    process's children), with its data in the private /tmp; and the job
    the docs run, its policy and a key to read."""
    import ctypes
    sys.path.insert(0, HERE)
    import clickhouse_util as chu
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x40000000):  # CLONE_NEWNET
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    server = chu.Server("/tmp/fpdoc-clickhouse", [8123, 9000, 9009])
    _FLEET.append(server.start())
    try:
        server.wait_ready()
    except AssertionError:
        _fleet_stop()
        raise
    c.write("ci-job.sh", "#!/bin/sh\nset -e\nmkdir -p build\n"
            "t=$(mktemp)\necho built > \"$t\"\ncp \"$t\" build/out.txt\n"
            "rm \"$t\"\n", 0o755)
    c.write("ci.policy", "allow build/\nallow /tmp/tmp.*\n")
    c.mkdir(os.path.join(c.user.pw_dir, ".ssh"), 0o700)
    c.write(os.path.join(c.user.pw_dir, ".ssh", "id_ed25519"),
            "not a real key\n", 0o600)


def _fleet_stop():
    while _FLEET:
        _FLEET.pop().stop()


def _fleet_check(c):
    bad = []
    try:
        server = _FLEET[0]
        learned = c.read("learned.policy").decode()
        for rule in ("allow build/", "allow /tmp/tmp.*"):
            if rule not in learned:
                bad.append("learned.policy lacks %r:\n%s" % (rule, learned))
        new = [ln for ln in c.out.splitlines()
               if ln.startswith(("critical", "high", "medium", "low"))]
        if len(new) != 1 or not new[0].startswith("critical files.read ") \
                or "/.ssh/id_ed25519 (ssh_key)" not in new[0]:
            bad.append("fleet new did not name the key read alone: %r" %
                       new)
        runs = server.scalar("SELECT count(), uniqExact(run_id), "
                             "countIf(ok) FROM footprint_runs WHERE "
                             "job = 'ci-job'")
        if runs != "4\t4\t3":
            bad.append("the store holds %r runs (count, runs, ok), not "
                       "4, 4, 3" % runs)
    finally:
        _fleet_stop()
    return bad


def _fleet_readme_check(c):
    bad = []
    try:
        if b"allow build/" not in c.read("learned.policy"):
            bad.append("learned.policy does not allow build/")
        if _FLEET[0].scalar("SELECT count() FROM footprint_runs WHERE "
                            "job = 'ci-job' AND ok") != "1":
            bad.append("the run is not in the store")
    finally:
        _fleet_stop()
    return bad


BENCH = ("a benchmark: minutes of both CPUs, and figures that are noise on "
         "a machine others share; scripts/test runs each bench once "
         "(--quick) and judges only that it runs")

# what apt-get, dpkg and cmake --install write to
SYSTEM_DIRS = ("/usr", "/etc", "/var/lib", "/var/cache", "/var/log")
OVERLAY = "/tmp/fpdoc-system"


def _overlay_system(c):
    """Scratch layers (overlayfs, upper on this child's /tmp) over the
    system's directories, in the block's own mount namespace: a package
    the block installs, and dpkg's database, are the block's alone, and
    the host's are never touched."""
    os.mkdir(OVERLAY, 0o700)
    for d in SYSTEM_DIRS:
        tag = d.strip("/").replace("/", "_")
        upper, work = (os.path.join(OVERLAY, k + tag) for k in ("u_", "w_"))
        os.mkdir(upper)
        os.mkdir(work)
        subprocess.run(["mount", "-t", "overlay", "fpdoc-" + tag, "-o",
                        "lowerdir=%s,upperdir=%s,workdir=%s" %
                        (d, upper, work), d], check=True)


def _layer_has(path):
    """path (under SYSTEM_DIRS) was written in the block's layer."""
    for d in SYSTEM_DIRS:
        if path.startswith(d + "/"):
            tag = d.strip("/").replace("/", "_")
            return os.path.lexists(os.path.join(OVERLAY, "u_" + tag,
                                                path[len(d) + 1:]))
    return False


def _deb_prepare(c):
    _overlay_system(c)
    # a clean clone of the commit, as a user has one (scripts/package
    # refuses a tree with uncommitted changes), made by root (git will
    # not serve another user's repository) and given to the user
    subprocess.run(["git", "clone", "-q", c.top, c.path("footprint")],
                   check=True)
    subprocess.run(["chown", "-R", "%d:%d" % (c.user.pw_uid,
                                              c.user.pw_gid),
                    c.path("footprint")], check=True)


def _deb_check(c):
    bad = []
    head = subprocess.run(["git", "-c", "safe.directory=*", "-C",
                           c.path("footprint"), "rev-parse", "HEAD"],
                          stdout=subprocess.PIPE).stdout.decode().strip()
    st = subprocess.run(["dpkg-query", "-W", "-f=${Status} ${Version}",
                         "footprint"], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT).stdout.decode()
    m = re.match(r"^install ok installed (\S+)$", st)
    if not m or "\nfootprint %s\n" % m.group(1).replace("~", "-") not in \
            "\n" + c.out:
        bad.append("dpkg says of footprint %r; footprint --version does "
                   "not say that version" % st)
    if not head or "\ncommit %s\n" % head not in c.out:
        bad.append("footprint --version did not name the clone's commit "
                   "%r" % head)
    if not _layer_has("/usr/bin/footprint"):
        bad.append("/usr/bin/footprint is not the package's")
    if not re.search(r"^NAME\n +footprint-run - ", c.out, re.M):
        bad.append("man footprint-run did not print the page")
    return bad


def _build_tree_prepare(c):
    _overlay_system(c)
    # the block installs ./build: the suite's build tree, wherever it is
    built = os.environ.get("FOOTPRINT_BUILD_DIR")
    here = os.path.join(c.top, "build")
    if built and os.path.realpath(built) != os.path.realpath(here):
        os.makedirs(here, exist_ok=True)
        subprocess.run(["mount", "--bind", built, here], check=True)


def _build_tree_check(c):
    bad = []
    with open(os.path.join(c.top, "build", "footprint"), "rb") as f:
        built = f.read()
    for path in ("/usr/local/bin/footprint",
                 "/usr/local/share/man/man1/footprint-run.1",
                 "/usr/local/share/bash-completion/completions/footprint",
                 "/usr/local/share/doc/footprint/README.md"):
        if not _layer_has(path):
            bad.append("cmake --install did not install %s" % path)
    if os.path.exists("/usr/local/bin/footprint") and \
            c.read("/usr/local/bin/footprint") != built:
        bad.append("/usr/local/bin/footprint is not build/footprint")
    return bad

BLOCKS = {
    "README.md: scripts/demo    # build, then trace a small sample script "
    "and show what it did": Run(
        as_root=True, cwd="top", only=(1,),
        why_not="command 2, scripts/test, is the whole suite this test is "
        "part of (CI runs it: .ci/run)"),
    "README.md: sudo footprint run -- ./generated_script.sh": Run(
        prepare=_usage_prepare, check=_usage_check),
    "README.md: sudo footprint run --record /tmp/job.fplog --receipt "
    "/tmp/live.json -- ./job.sh": Run(
        prepare=_replay_prepare, check=_replay_check),
    "README.md: footprint lock --inputs job -o fixture/input.lock"
    "             # freeze the fixture": Run(
        prepare=_scratch_prepare, check=_scratch_check,
        needs="issue 29 item 1: lock keeps files edited in place"),
    "README.md: sudo footprint shape --unit shape-demo -o before.json": Skip(
        "needs systemd as PID 1 and a unit named shape-demo; "
        "scripts/vm-shape-test runs these steps against a real systemd "
        "in a VM"),
    "README.md: sudo footprint sidecar start --root \"$GITHUB_WORKSPACE\""
    "   # in the job's first step": Run(
        prepare=_sidecar_prepare, check=_sidecar_check, runner=True,
        env={"GITHUB_WORKSPACE": "@work/ws",
             "RUNNER_TEMP": "@work/runner_temp"},
        needs="issue 29 items 2 and 4: the default state directory under "
        "sudo, and sudo footprint sidecar stop is no finding"),
    "README.md: sudo apt-get install \"$(scripts/package)\"   # builds "
    "build/footprint_<version>_amd64.deb": Run(
        # a user's own clone; the installed footprint, not the suite's
        prepare=_deb_prepare, check=_deb_check, cwd="footprint",
        env={"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}),
    "README.md: scripts/build": Run(
        # the suite's build tree is root's: the block runs as root there
        prepare=_build_tree_prepare, check=_build_tree_check,
        as_root=True, cwd="top"),
    "docs/BENCHMARKS.md: sudo sysctl kernel.bpf_stats_enabled=1": Skip(
        BENCH + "; it also turns on bpf_stats for every program on the "
        "machine"),
    "docs/BENCHMARKS.md: sudo scripts/bench/overhead --quick    # smoke "
    "test, about half a minute": Skip(BENCH),
    "docs/fleet.md: export FOOTPRINT_CLICKHOUSE=http://localhost:8123/": Run(
        # run 4 reads a key: its verdict fails, and fleet new names it
        prepare=_fleet_prepare, check=_fleet_check, rc={5: {1}, 6: {1}}),
    "README.md: footprint fleet init --clickhouse http://localhost:8123/":
    Run(prepare=_fleet_prepare, check=_fleet_readme_check),
    "docs/policy.md: for i in 1 2 3; do sudo footprint run --record "
    "/tmp/run$i.fplog -- ./ci-job.sh; done": Run(
        # the runs fail: there is no policy yet, that is the point
        prepare=_learn_prepare, check=_learn_check, rc={1: {1}}),
    "README.md: mkdir -p ~/keys && in-toto-keygen -t ed25519 "
    "~/keys/edbuilder": Run(prepare=_make_project,
                            check=_attest_readme_check),
    "docs/attest.md: mkdir -p ~/keys && in-toto-keygen -t ed25519 "
    "~/keys/edbuilder": Run(prepare=_make_project,
                            check=_attest_first_check),
    "docs/attest.md: mkdir -p ~/keys && in-toto-keygen -b 3072 ~/keys/owner "
    "&& in-toto-keygen -b 3072 ~/keys/builder": Run(
        check=_attest_hello_check),
    "docs/attest.md: /usr/bin/python3 ~/keys/mklayout.py ~/keys": Run(
        prepare=lambda c: _hello(c, 2), check=_attest_verified,
        cwd="hello"),
    "docs/attest.md: footprint attest -k ~/keys/builder -n build --format "
    "statement -o ../build.intoto.jsonl ../r.json": Run(
        prepare=lambda c: _hello(c, 3), check=_dsse_verified,
        cwd="hello"),
    "docs/attest.md: footprint attest -k ~/keys/edbuilder -n build "
    "--format statement -o ../ed.intoto.jsonl ../r.json": Run(
        prepare=lambda c: _hello(c, 3), check=_dsse_verified,
        cwd="hello"),
    "docs/scratch.md: footprint lock --inputs job -o fixture/input.lock": Run(
        prepare=lambda c: _scratch_prepare(c, env_file=True, out_dir=True),
        check=_scratch_check,
        needs="issue 29 item 1: lock keeps files edited in place"),
    "docs/report.md: sudo footprint run --record /tmp/build.fplog -- make":
    Run(prepare=lambda c: (c.write("Makefile", "all:\n\t@echo built\n"),
                           c.write("today.policy", "allow ./\n")),
        check=lambda c: _report_check(c)),
}


def _report_check(c):
    bad = []
    for page in ("/tmp/build.html", "/tmp/today.html"):
        html = c.read(page)
        if not html.startswith(b"<!DOCTYPE html>") or \
                b'id="processes"' not in html:
            bad.append("%s is not the report's page" % page)
    trace = json.loads(c.read("/tmp/build.trace.json"))
    if not any(e["ph"] == "X" and e["name"] == "make"
               for e in trace["traceEvents"]):
        bad.append("build.trace.json has no slice of make")
    return bad


# ---- the child: one block, in its own mount namespace ----------------

# the runner's Runner.Worker: the sidecar finds the job by it; the steps
# (here: the block) are its children
RUNNER = """
import ctypes, subprocess, sys
ctypes.CDLL(None).prctl(15, b"Runner.Worker", 0, 0, 0)
sys.exit(subprocess.run(sys.argv[1:], pass_fds=(9,)).returncode)
"""


def _drop(pw):
    def f():
        os.initgroups(pw.pw_name, pw.pw_gid)
        os.setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid)
        os.setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid)
        os.umask(0o022)
    return f


def _stage_under(d, paths):
    """The paths (the checkout, the binaries) that lie under d, bound
    aside before a tmpfs hides d: a checkout in /tmp stays where it is."""
    staged = []
    for i, p in enumerate(paths):
        p = os.path.realpath(p)
        if p != d and not p.startswith(d + "/"):
            continue
        aside = "/run/fpdoc-keep-%d-%d" % (os.getpid(), i)
        os.makedirs(aside)
        subprocess.run(["mount", "--bind", p, aside], check=True)
        staged.append((p, aside))
    return staged


def _unstage(staged):
    """Each staged path bound back at its place, now inside the tmpfs."""
    for p, aside in staged:
        os.makedirs(p, exist_ok=True)
        subprocess.run(["mount", "--bind", aside, p], check=True)
        subprocess.run(["umount", aside], check=True)
        os.rmdir(aside)


def child(key, user, bindir, top):
    """Run block key (as root in a new mount namespace): one JSON object
    on stdout."""
    block = {b.key: b for b in extract(top)}[key]
    spec = BLOCKS[key]
    pw = pwd.getpwnam(user)
    # the sidecar's default state directory too: another sidecar on the
    # machine must not be this block's
    for d in ("/tmp", "/srv", "/run/footprint"):
        os.makedirs(d, exist_ok=True)
        staged = _stage_under(d, (top, bindir))
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=1777" if
                        d == "/tmp" else "mode=755", "tmpfs", d], check=True)
        _unstage(staged)
    work = "/tmp/fpdoc"
    os.mkdir(work)
    c = Ctx(work, pw, top)
    c.bindir = bindir
    c.own(work)
    if spec.prepare:
        spec.prepare(c)
    script, n = instrument(block.text)
    rcfile = "/tmp/fpdoc.rc"
    os.dup2(os.open(rcfile, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
            9)
    env = {"HOME": pw.pw_dir, "USER": pw.pw_name, "LOGNAME": pw.pw_name,
           "SHELL": "/bin/sh", "LANG": "C.UTF-8",
           "PATH": "%s:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" %
           bindir}
    for k, v in spec.env.items():
        env[k] = v.replace("@work", work)
    # scripts/demo builds: into the tree the suite built, not another
    if spec.as_root and os.environ.get("FOOTPRINT_BUILD_DIR"):
        env["FOOTPRINT_BUILD_DIR"] = os.environ["FOOTPRINT_BUILD_DIR"]
    if spec.only:
        keep = []
        for i, (piece, is_cmd) in enumerate(
                p for p in commands(block.text) if p[1]):
            keep.append(piece if i + 1 in spec.only else
                        ": not run here: %s" % piece.splitlines()[0])
        script, n = instrument("\n".join(keep) + "\n")
    cwd = top if spec.cwd == "top" else \
        os.path.join(work, spec.cwd) if spec.cwd else work
    argv = ["/bin/sh", "-c", script]
    if spec.runner:
        argv = ["/usr/bin/python3", "-c", RUNNER] + argv
    p = subprocess.run(argv, cwd=cwd, env=env, pass_fds=(9,),
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=900,
                       preexec_fn=None if spec.as_root else _drop(pw))
    c.out = p.stdout.decode("utf-8", "replace")
    rcs = {}
    with open(rcfile) as f:
        for ln in f:
            k, v = ln.split()
            rcs[int(k)] = int(v)
    bad = []
    try:
        bad = spec.check(c) if spec.check else []
    except (OSError, ValueError, KeyError) as e:
        bad = ["the check could not read what the block made: %r" % e]
    json.dump({"commands": n, "rcs": rcs, "out": c.out,
               "err": p.stderr.decode("utf-8", "replace"),
               "script": script, "bad": bad}, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        child(*sys.argv[2:])
    else:
        for b in extract():
            print("%r  %s" % (b, b.key))
