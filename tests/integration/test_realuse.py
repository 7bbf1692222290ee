"""Issue 29, tried as a new user would: a non-root user who types
`sudo footprint ...` in a shell, on real commands (see realuse_util).

  - `footprint events --type exec LOG | jq -r '.argv | join(" ")'`, the
    README's line, prints the command lines and nothing else;
  - `--allow ./`, `--allow .` and `--allow ./x` mean the root and what is
    in it, on the command line and in a policy file; suggestions are
    root-relative and paste back as they are;
  - the summary's "and N more" counts only what no line above covered;
  - `footprint help SUBCOMMAND` is `SUBCOMMAND --help`, and run --help
    names every kind of thing traced.

Run from the top of the tree, as root:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_realuse.py
"""

import datetime
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
import realuse_util as ru  # noqa: E402
from realuse_util import EXIT_OK, EXIT_VERDICT, q  # noqa: E402

USER = ru.User()


def setUpModule():
    USER.make()


def octal_modes(d):
    """A receipt's object with its "mode" as an older receipt had it (a
    number) turned into the octal string receipts now have."""
    if isinstance(d.get("mode"), int):
        d["mode"] = "%04o" % d["mode"]
    return d


def tearDownModule():
    USER.remove()


class Case(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.dir = USER.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir, True)

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def mkdir(self, *names):
        d = self.path(*names)
        os.makedirs(d, exist_ok=True)
        os.chown(d, USER.pw.pw_uid, USER.pw.pw_gid)
        return d

    def sh(self, script, cwd=None, **kw):
        return USER.sh(script, cwd or self.dir, **kw)

    def describe(self, p):
        return "rc=%s\nstdout=%s\nstderr=%s" % (
            p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


class EventsTypeTest(Case):
    """Item 5: the README's `events --type exec | jq` line."""

    def test_readme_jq_line_prints_the_command_lines(self):
        work = self.mkdir("work")
        USER.write(os.path.join(work, "job.sh"),
                   "#!/bin/sh\nset -e\nmkdir -p out\n"
                   "printf 'a b\\n' > out/x.txt\n"
                   "tr a-z A-Z < out/x.txt > out/y.txt\nls out >/dev/null\n",
                   0o755)
        out = self.mkdir("out")
        p = self.sh("sudo footprint run --quiet --allow out/ "
                    "--record ../out/job.fplog -- ./job.sh", cwd=work)
        self.assertEqual(p.returncode, EXIT_OK, self.describe(p))
        # the README's line, as written
        p = self.sh("footprint events --type exec job.fplog | "
                    "jq -r '.argv | join(\" \")'", cwd=out)
        self.assertEqual(p.returncode, 0, self.describe(p))
        self.assertEqual(p.stdout.decode().splitlines(),
                         ["/bin/sh ./job.sh", "mkdir -p out",
                          "tr a-z A-Z", "ls out"], self.describe(p))
        self.assertEqual(p.stderr, b"", self.describe(p))
        # every filter prints only what it matches
        for opt in ("--type exec", "--type open", "--pid 1",
                    "--path-prefix /nonexistent/"):
            p = self.sh("footprint events %s job.fplog" % opt, cwd=out)
            self.assertEqual(p.returncode, 0, self.describe(p))
            types = set(re.findall(rb'^\{"type":"([a-z_]+)"', p.stdout,
                                   re.M))
            self.assertNotIn(b"stats", types, opt)
            if opt.startswith("--type"):
                self.assertEqual(types, {opt.split()[1].encode()}, opt)
        # the stats record on its own, and last when nothing filters
        p = self.sh("footprint events --type stats job.fplog", cwd=out)
        lines = p.stdout.decode().splitlines()
        self.assertEqual(len(lines), 1, self.describe(p))
        self.assertTrue(lines[0].startswith('{"type":"stats"'), lines)
        p = self.sh("footprint events job.fplog", cwd=out)
        self.assertTrue(p.stdout.decode().splitlines()[-1].startswith(
            '{"type":"stats"'))
        # a type the log does not hold is said, not silently nothing
        p = self.sh("footprint events --type exce job.fplog", cwd=out)
        self.assertEqual(p.stdout, b"")
        self.assertIn(b"holds no 'exce' event", p.stderr)
        self.assertIn(b"exec", p.stderr)


class HelpTest(Case):
    """Item 9: `footprint help X` is `footprint X --help`; run --help says
    what is traced."""

    TRACED = ("exec", "fork", "exit", "open", "unlink", "rename", "mkdir",
              "rmdir", "mknod", "symlink", "link", "chmod", "chown",
              "truncate", "bind", "connect", "sendto", "accept", "DNS",
              "kill", "ptrace")

    def commands(self):
        p = self.sh("footprint --help")
        self.assertEqual(p.returncode, 0, self.describe(p))
        text = p.stdout.decode()
        block = text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
        cmds = [ln.split()[0] for ln in block.splitlines() if ln.strip()]
        self.assertIn("run", cmds, text)
        self.assertIn("help run", text)
        return cmds

    def test_help_subcommand_is_its_help(self):
        cmds = self.commands()
        pairs = [[c] for c in cmds] + [
            ["sidecar", "start"], ["sidecar", "stop"], ["policy", "learn"],
            ["policy", "check"], ["shape", "diff"]]
        for words in pairs:
            want = self.sh("footprint %s --help" % " ".join(words))
            got = self.sh("footprint help %s" % " ".join(words))
            self.assertEqual(want.returncode, 0, self.describe(want))
            self.assertEqual(got.returncode, 0, self.describe(got))
            self.assertEqual(got.stdout, want.stdout, words)
            self.assertTrue(got.stdout.startswith(b"Usage: footprint"),
                            words)
        # without a word: the main help
        p = self.sh("footprint help")
        self.assertEqual(p.stdout, self.sh("footprint --help").stdout)

    def test_help_never_runs_anything(self):
        marker = self.path("ran")
        for argv in ("help run touch %s" % marker, "help nosuchcommand",
                     "help events x y"):
            p = self.sh("sudo footprint " + argv)
            self.assertEqual(p.returncode, ru.EXIT_USAGE, self.describe(p))
            self.assertEqual(p.stdout, b"")
            self.assertTrue(p.stderr.startswith(b"footprint: "), p.stderr)
            self.assertFalse(os.path.exists(marker))

    def test_run_help_names_every_kind_traced(self):
        p = self.sh("footprint help run")
        text = p.stdout.decode()
        for kind in self.TRACED:
            self.assertRegex(text, r"\b%s\b" % kind, kind)


class DotPatternTest(Case):
    """Item 7: "./" is the root, on the command line and in a policy file;
    suggestions are root-relative and paste back."""

    JOB = "echo x > out.txt; mkdir -p build/obj; echo y > build/obj/a.o"

    def run_job(self, root, opts, receipt=None):
        cmd = "sudo footprint run --quiet %s" % opts
        if receipt:
            cmd += " --receipt %s" % q(receipt)
        return self.sh("%s -- sh -c %s" % (cmd, q(self.JOB)), cwd=root)

    def fresh_root(self, name):
        root = self.mkdir(name)
        USER.write(os.path.join(root, "keep.txt"), "k\n")
        return root

    def test_dot_slash_allows_what_is_in_the_root(self):
        for n, opt in enumerate(("--allow ./", "--allow .", "--allow './'",
                                 "--allow .//", "--allow ./build/ "
                                 "--allow ./out.txt",
                                 "--allow build/. --allow ./out.txt",
                                 "--allow '*' --allow '**'")):
            root = self.fresh_root("r%d" % n)
            p = self.run_job(root, opt)
            self.assertEqual(p.returncode, EXIT_OK,
                             "%s\n%s" % (opt, self.describe(p)))
        # the same in a policy file
        for n, line in enumerate(("allow ./", "allow .", "allow \"./\"",
                                  "allow ./build/\nallow ./out.txt")):
            root = self.fresh_root("p%d" % n)
            pol = USER.write(self.path("p%d.policy" % n), line + "\n")
            p = self.run_job(root, "--policy %s" % q(pol))
            self.assertEqual(p.returncode, EXIT_OK,
                             "%s\n%s" % (line, self.describe(p)))

    def test_dot_slash_x_is_only_x(self):
        root = self.fresh_root("r")
        rec = self.path("r.json")
        p = self.run_job(root, "--allow ./build/", receipt=rec)
        self.assertEqual(p.returncode, EXIT_VERDICT, self.describe(p))
        r = ru.load_receipt(rec)
        self.assertEqual(r["reasons"], ["files.added: %s/out.txt" % root])
        added = {f["path"]: f for f in r["files"]["added"]}
        self.assertEqual(added[root + "/build/obj/a.o"]["rule"],
                         "allow ./build/")
        # an absolute rule is what it always was
        root = self.fresh_root("abs")
        p = self.run_job(root, "--allow %s/out.txt --allow %s/build/" %
                         (root, root))
        self.assertEqual(p.returncode, EXIT_OK, self.describe(p))

    def test_dot_dot_is_refused(self):
        root = self.fresh_root("r")
        p = self.run_job(root, "--allow ../r/out.txt")
        self.assertEqual(p.returncode, ru.EXIT_USAGE, self.describe(p))
        err = p.stderr.decode()
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith("footprint: "), err)
        self.assertIn("..", err)
        pol = USER.write(self.path("dd.policy"), "allow a/../b\n")
        p = self.run_job(root, "--policy %s" % q(pol))
        self.assertEqual(p.returncode, ru.EXIT_USAGE, self.describe(p))
        self.assertTrue(p.stderr.decode().startswith(
            "footprint: %s:1: '..'" % pol), self.describe(p))

    def test_suggestions_are_root_relative_and_paste_back(self):
        root = self.fresh_root("r")
        rec = self.path("r.json")
        p = self.run_job(root, "", receipt=rec)
        self.assertEqual(p.returncode, EXIT_VERDICT, self.describe(p))
        sugg = ru.load_receipt(rec)["suggestions"]
        self.assertEqual(sorted(sugg), ["allow build/", "allow out.txt"])
        # the summary says the same lines
        p = self.sh("sudo footprint run -- sh -c %s" % q(self.JOB),
                    cwd=self.fresh_root("r2"))
        err = p.stderr.decode()
        self.assertIn("\n  allow build/  # covers 3\n", err)
        self.assertIn("\n  allow out.txt  # covers 1\n", err)
        # pasted into a policy file, they pass a fresh run
        pol = USER.write(self.path("s.policy"), "\n".join(sugg) + "\n")
        p = self.run_job(self.fresh_root("r3"), "--policy %s" % q(pol))
        self.assertEqual(p.returncode, EXIT_OK, self.describe(p))
        # with two roots a relative rule would match under both: absolute
        other = self.fresh_root("other")
        root = self.fresh_root("r4")
        p = self.run_job(root, "--root . --root %s" % q(other), receipt=rec)
        sugg = ru.load_receipt(rec)["suggestions"]
        self.assertEqual(sorted(sugg), ["allow %s/build/" % root,
                                        "allow %s/out.txt" % root])


class ProvenanceTest(Case):
    """Missing for real use: the receipt says which footprint, where, for
    whom and when; replay writes the same bytes."""

    def utc(self, s):
        self.assertRegex(s, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        return datetime.datetime.strptime(
            s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
                tzinfo=datetime.timezone.utc).timestamp()

    def test_receipt_says_who_where_when(self):
        root = self.mkdir("root")
        out = self.mkdir("out")
        t0 = time.time()
        p = self.sh("sudo footprint run --quiet --allow ./ --record "
                    "../out/job.fplog --receipt ../out/live.json -- "
                    "sh -c 'sleep 0.3; echo x > f'", cwd=root)
        t1 = time.time()
        self.assertEqual(p.returncode, EXIT_OK, self.describe(p))
        r = ru.load_receipt(os.path.join(out, "live.json"))
        pv = r["provenance"]
        version = self.sh("footprint --version").stdout.decode().split()[1]
        self.assertEqual(pv["footprint"], version)
        self.assertEqual(pv["host"], socket.gethostname())
        self.assertEqual(pv["kernel"], os.uname().release)
        # the invoking user, not root: footprint ran under sudo
        self.assertEqual((pv["user"], pv["uid"]),
                         (USER.name, USER.pw.pw_uid))
        start, end = self.utc(pv["started"]), self.utc(pv["ended"])
        self.assertLessEqual(t0 - 0.01, start)
        self.assertLessEqual(start + 0.3, end)
        self.assertLessEqual(end, t1 + 0.01)
        # replay, as the user, anywhere: the same bytes
        p = self.sh("footprint replay -q --receipt again.json job.fplog",
                    cwd=out)
        self.assertEqual(p.returncode, EXIT_OK, self.describe(p))
        with open(os.path.join(out, "live.json"), "rb") as a, \
                open(os.path.join(out, "again.json"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_old_and_cut_logs_replay_with_what_they_hold(self):
        # a log an older footprint wrote, and the goldens
        data = os.path.join(ru.TOP, "tests", "data")
        for name in ("old/changes-0.1.0", "changes", "clean", "leftover"):
            log = self.path(os.path.basename(name) + ".fplog")
            shutil.copyfile(os.path.join(data, name + ".fplog"), log)
            os.chmod(log, 0o644)
            p = self.sh("footprint replay -q --receipt - %s" % q(log))
            r = json.loads(p.stdout)
            pv = r["provenance"]
            self.assertTrue(pv["footprint"] and pv["host"], pv)
            self.utc(pv["started"])
            self.utc(pv["ended"])
            if name.startswith("old/"):
                with open(os.path.join(data, name + ".receipt.json")) as f:
                    # modes were numbers then, octal strings now (issue
                    # 28): the same mode either way
                    then = json.load(f, object_hook=octal_modes)
                # what it judged then it judges now, with where and when,
                # most severe first now (issue 31): the medium ones (a
                # transient file, a bind) before the files in the root
                medium = ("files.transient:", "network.bound:")
                self.assertEqual(
                    r["reasons"],
                    [x for x in then["reasons"] if x.startswith(medium)] +
                    [x for x in then["reasons"]
                     if not x.startswith(medium)])
                # format 2 names the process table's row instead of
                # repeating argv: with it put back, the same findings
                self.assertEqual(r["format"], 2)
                self.assertNotIn("format", then)
                self.assertEqual(
                    fptest.expand_actors(r)["files"]["changed"],
                    then["files"]["changed"])
                self.assertEqual(pv["user"], "root")
        # a log cut before its trailer: no end time
        with open(log, "rb") as f:
            raw = f.read()
        cut = self.path("cut.fplog")
        with open(cut, "wb") as f:
            f.write(raw[:len(raw) // 2])
        os.chmod(cut, 0o644)
        p = self.sh("footprint replay -q --receipt - %s" % q(cut))
        self.assertEqual(p.returncode, EXIT_VERDICT, self.describe(p))
        pv = json.loads(p.stdout)["provenance"]
        self.utc(pv["started"])
        self.assertIsNone(pv["ended"])


# a job that binds a TCP listener and a UDP port, writes in its root and
# runs other programs, then waits on stdin: the test decides when it ends
BUSY_JOB = r"""
import os, socket, subprocess, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 0))
t = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
t.bind(("::1", 0))
t.listen()
os.makedirs("out", exist_ok=True)
for i in range(30):
    with open("out/f%02d.txt" % i, "w") as f:
        f.write("x" * i)
for i in range(4):
    subprocess.run(["sh", "-c", "echo %d > out/sh%d.txt; true" % (i, i)],
                   check=True)
subprocess.run(["mkdir", "-p", "out/d/e"], check=True)
os.rename("out/f00.txt", "out/d/e/moved.txt")
print("ready", flush=True)
sys.stdin.readline()
"""

BUSY_POLICY = """allow out/
allow bind udp/127.0.0.1:0
allow bind tcp/[::1]:0
"""


def findings(r, root):
    """What a run's receipt says it did, without what differs between two
    runs of the same job (pids, times, ephemeral ports, the root's path)
    and without what is information about other processes (new_outside,
    disappeared, listeners owned outside the run)."""
    def rel(p):
        return p[len(root):] if p.startswith(root + "/") else p

    def actor(a):
        return None if a is None else (a["exe"],
                                       tuple(fptest.argv_of(r, a)))

    out = {"ok": r["ok"], "complete": r["trace"]["complete"],
           "reasons": sorted(re.sub(r"pid \d+", "pid N", x.replace(
               root, "ROOT")) for x in r["reasons"]),
           "suggestions": sorted(r["suggestions"])}
    for lst, fs in r["files"].items():
        if lst == "read":
            out["read"] = sorted(rel(f["path"]) for f in fs)
            continue
        out["files." + lst] = sorted(
            (rel(f["path"]), f["allowed"], f.get("explained"),
             tuple(f.get("changes", ())), actor(f.get("by")))
            for f in fs)
    for lst in ("executed", "short_lived", "leftover", "privileged"):
        out["processes." + lst] = sorted(
            (p["exe"], tuple(p["argv"]), p["allowed"])
            for p in r["processes"].get(lst, []))
    for lst in ("bound", "listening"):
        out["network." + lst] = sorted(
            (n["family"], n["address"], n["protocol"], n["allowed"])
            for n in r["network"][lst] if not n.get("owner_outside_run"))
    for lst in ("connected", "accepted", "dns"):
        out["network." + lst] = len(r["network"].get(lst, []))
    return out


class ConcurrentRunsTest(Case):
    """Item 3: runs at once on one machine each get the verdict they get
    alone; another run's listener is information, with its command line."""

    N = 3

    def setUp(self):
        super().setUp()
        self.job = USER.write(self.path("busy.py"), BUSY_JOB)
        self.policy = USER.write(self.path("busy.policy"), BUSY_POLICY)

    def start(self, name):
        root = self.mkdir(name)
        rec = self.path(name + ".json")
        p = USER.popen("sudo footprint run --quiet --policy %s --receipt %s "
                       "-- python3 %s" % (q(self.policy), q(rec),
                                          q(self.job)),
                       root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
        line = p.stdout.readline()
        if line != b"ready\n":
            p.kill()
            out, err = p.communicate()
            if p.returncode == ru.EXIT_NOTRACE:
                ru.cannot_test("footprint cannot trace: %r" % err)
            self.fail("run %s did not get ready: %r %r %r" %
                      (name, line, out, err))
        return p, root, rec

    def finish(self, run):
        p, root, rec = run
        out, err = p.communicate(b"\n", timeout=60)
        self.assertTrue(os.path.exists(rec), err)
        return p.returncode, err.decode("utf-8", "replace"), \
            ru.load_receipt(rec), root

    def test_three_runs_at_once_get_their_own_verdicts(self):
        alone = []
        for i in range(self.N):
            rc, err, r, root = self.finish(self.start("alone%d" % i))
            self.assertEqual(rc, EXIT_OK, "%s\n%s" % (err, r["reasons"]))
            alone.append(findings(r, root))
        # the three overlap: each starts while the ones before it still
        # hold their sockets, and each ends while the later ones do
        runs = [self.start("together%d" % i) for i in range(self.N)]
        results = [self.finish(run) for run in runs]
        for i, (rc, err, r, root) in enumerate(results):
            with self.subTest(run=i):
                self.assertEqual(rc, EXIT_OK,
                                 "%s\n%s" % (err, r["reasons"]))
                self.assertEqual(findings(r, root), alone[i])
        # the first saw the later runs' listeners: as information, named
        r = results[0][2]
        outside = [n for n in r["network"]["listening"]
                   if n.get("owner_outside_run")]
        self.assertGreaterEqual(len(outside), 2 * (self.N - 1),
                                r["network"]["listening"])
        for n in outside:
            self.assertIs(n["allowed"], False, n)
            self.assertIs(n.get("failing", False), False, n)
            self.assertEqual(fptest.argv_of(r, n["owner"]), ["python3", self.job], n)
            self.assertIs(n["owner_began_during_run"], True, n)


class GeneratedScriptTest(Case):
    """Missing for real use: what a generated script really did."""

    GEN = """#!/bin/sh
set -e
cat > {tmp}/payload <<'X'
#!/bin/sh
echo payload ran
X
chmod +x {tmp}/payload
{tmp}/payload
rm {tmp}/payload
printf '#!/bin/sh\\necho tool ran\\n' > {tmp}/tool.sh
chmod +x {tmp}/tool.sh
cd {tmp} && ./tool.sh
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()' --listen-once
"""

    def test_payload_tool_and_bind(self):
        tmp = self.mkdir("tmp")
        gen = USER.write(self.path("gen.sh"), self.GEN.format(tmp=tmp),
                         0o755)
        root = self.mkdir("root")
        rec = self.path("r.json")
        p = self.sh("sudo footprint run --receipt %s -- %s" % (q(rec),
                                                               q(gen)),
                    cwd=root)
        out, err = p.stdout.decode(), p.stderr.decode()
        self.assertEqual(p.returncode, EXIT_VERDICT, self.describe(p))
        self.assertEqual(out, "payload ran\ntool ran\n")
        r = ru.load_receipt(rec)
        payload = tmp + "/payload"
        t = [f for f in r["files"]["transient"] if f["path"] == payload]
        self.assertEqual(len(t), 1, r["files"]["transient"])
        t = t[0]
        self.assertIs(t.get("made_executable"), True, t)
        self.assertEqual(fptest.argv_of(r, t["ran_by"]), ["/bin/sh", payload], t)
        self.assertEqual(fptest.argv_of(r, t["created_by"]), ["/bin/sh", gen], t)
        self.assertEqual(fptest.argv_of(r, t["removed_by"]), ["rm", payload], t)
        tool = [f for f in r["files"]["outside_roots"]
                if f["path"] == tmp + "/tool.sh"]
        self.assertEqual(len(tool), 1, r["files"]["outside_roots"])
        tool = tool[0]
        # chmod touched it last; the shell made it; ./tool.sh ran it
        self.assertEqual(fptest.argv_of(r, tool["by"]), ["chmod", "+x", tmp + "/tool.sh"])
        self.assertEqual(fptest.argv_of(r, tool["created_by"]), ["/bin/sh", gen], tool)
        self.assertIs(tool.get("made_executable"), True, tool)
        self.assertEqual(fptest.argv_of(r, tool["ran_by"]), ["/bin/sh", "./tool.sh"])
        # the summary lines say so, and the bind line has a command line
        lines = err.splitlines()
        pl = [ln for ln in lines if ln.startswith(
            "  files.transient %s  by pid " % payload)]
        self.assertEqual(len(pl), 1, err)
        self.assertRegex(pl[0], r"  by pid \d+ /bin/sh %s  made executable "
                         r"and run as pid \d+ /bin/sh %s$" %
                         (re.escape(gen), re.escape(payload)))
        tl = [ln for ln in lines if ln.startswith(
            "  files.outside_roots %s/tool.sh" % tmp)]
        self.assertEqual(len(tl), 1, err)
        self.assertRegex(tl[0], r"  by pid \d+ chmod \+x \S+  created by "
                         r"pid \d+ /bin/sh \S+  made executable and run as "
                         r"pid \d+ /bin/sh \./tool\.sh$")
        bl = [ln for ln in lines if ln.startswith("  network.bound ")]
        self.assertEqual(len(bl), 1, err)
        self.assertRegex(bl[0], r"^  network\.bound tcp/127\.0\.0\.1:\d+  by "
                         r"pid \d+ python3 -c import socket; .* "
                         r"--listen-once$")


# a logger outside the run: holds the log open for appending from before
# the run, writes one line when told, and goes on holding it
LOGGER = r"""
import sys, time
f = open(sys.argv[1], "a")
print("held", flush=True)
sys.stdin.readline()
f.write("a line from outside the run\n")
f.flush()
print("wrote", flush=True)
sys.stdin.readline()
"""


class OutsideWriterTest(Case):
    """Item 8: a file the run only opened for appending, written meanwhile
    by a process outside the run that held it open for writing since
    before it, is unexplained, naming that process."""

    def run_with_logger(self, write):
        root = self.mkdir("root")
        log = USER.write(os.path.join(root, "app.log"), "started\n")
        logger = USER.write(self.path("logger.py"), LOGGER)
        w = USER.popen("exec python3 %s %s" % (q(logger), q(log)), self.dir,
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.addCleanup(w.kill)
        self.assertEqual(w.stdout.readline(), b"held\n")
        rec = self.path("r.json")
        r = USER.popen("sudo footprint run --record %s --receipt %s -- sh -c "
                       "'exec 4>>app.log; echo opened; read x'" %
                       (q(self.path("run.fplog")), q(rec)), root,
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
        line = r.stdout.readline()
        if line != b"opened\n":
            r.kill()
            out, err = r.communicate()
            if r.returncode == ru.EXIT_NOTRACE:
                ru.cannot_test("footprint cannot trace: %r" % err)
            self.fail("%r %r" % (line, err))
        if write:
            w.stdin.write(b"go\n")
            w.stdin.flush()
            self.assertEqual(w.stdout.readline(), b"wrote\n")
        out, err = r.communicate(b"\n", timeout=60)
        w.kill()
        w.communicate()
        return r.returncode, err.decode(), ru.load_receipt(rec), log, w.pid

    def test_outside_appender_is_named(self):
        rc, err, r, log, pid = self.run_with_logger(True)
        self.assertEqual(rc, EXIT_VERDICT, err)
        ch = [f for f in r["files"]["changed"] if f["path"] == log]
        self.assertEqual(len(ch), 1, r["files"])
        ch = ch[0]
        self.assertIs(ch["explained"], False, ch)
        self.assertIsNone(ch["by"], ch)
        self.assertNotIn("by_open", ch)
        self.assertEqual(ch["outside_writer"]["pid"], pid, ch)
        self.assertEqual(fptest.argv_of(r, ch["outside_writer"])[0], "python3", ch)
        un = [f for f in r["files"]["unexplained"] if f["path"] == log]
        self.assertEqual(len(un), 1, r["files"]["unexplained"])
        self.assertEqual(un[0]["outside_writer"]["pid"], pid)
        self.assertIn("files.unexplained: %s" % log, r["reasons"])
        self.assertRegex(err, r"  files\.unexplained %s  held open for "
                         r"writing outside the run by pid %d python3 " %
                         (re.escape(log), pid))
        # the log has what the verdict was made from: replay agrees
        p = self.sh("footprint replay -q --receipt - run.fplog")
        self.assertEqual(json.loads(p.stdout), r)

    def test_no_write_no_finding(self):
        # the same, but nobody wrote: nothing changed, nothing to say
        rc, err, r, log, pid = self.run_with_logger(False)
        self.assertEqual(rc, EXIT_OK, err)
        self.assertEqual(r["files"]["changed"], [])


def ok_line(err):
    lines = [ln for ln in err.splitlines() if ln.startswith("footprint: ok")]
    assert len(lines) == 1, err
    return lines[0]


class PassingRunTest(Case):
    """Missing for real use: a passing run says what it saw in one line,
    on a real npm install from the registry and a real cmake build."""

    def test_npm_install(self):
        ru.need_tools("npm", "node")
        ping = subprocess.run(["npm", "ping", "--registry",
                               "https://registry.npmjs.org/"],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=60,
                              env=USER.env(HOME=self.dir))
        if ping.returncode:
            # the one test here that needs a registry: not reachable from
            # this machine, it cannot run (said, not passed)
            self.skipTest("registry.npmjs.org is not reachable from here")
        proj = self.mkdir("proj")
        npm_cache = os.path.join(USER.pw.pw_dir, ".npm")
        pol = USER.write(self.path("npm.policy"),
                         "allow ./\nallow %s/\n"
                         "allow connect tcp/registry.npmjs.org:443\n"
                         "allow connect udp/*:53\nallow connect tcp/*:53\n"
                         % npm_cache)
        p = self.sh("npm init -y >/dev/null", cwd=proj)
        self.assertEqual(p.returncode, 0, self.describe(p))
        rec = self.path("r.json")
        p = self.sh("sudo footprint run --policy %s --receipt %s -- npm "
                    "install --no-audit --no-fund is-number left-pad" %
                    (q(pol), q(rec)), cwd=proj, timeout=300)
        err = p.stderr.decode("utf-8", "replace")
        self.assertEqual(p.returncode, EXIT_OK, self.describe(p))
        r = ru.load_receipt(rec)
        line = ok_line(err)
        added = [f["path"] for f in r["files"]["added"]]
        nm = [x for x in added if x.startswith(proj + "/node_modules/")]
        self.assertGreater(len(nm), 5, added)
        m = re.match(r"^footprint: ok: (\d+) files added, (\d+) under "
                     r"node_modules/ \(allowed\), ", line)
        self.assertTrue(m, line)
        self.assertEqual(int(m.group(1)), len(added), line)
        # node_modules/ itself is no path under it
        self.assertEqual(int(m.group(2)), len(nm), line)
        calls = sum(c.get("count", 1) for c in r["network"]["connected"]
                    if "registry.npmjs.org" in c.get("names", []))
        self.assertGreater(calls, 0, r["network"]["connected"])
        self.assertIn(", %d connection%s to registry.npmjs.org:443" %
                      (calls, "" if calls == 1 else "s"), line)
        self.assertIn("1 file changed: package.json (allowed)", line)

    def test_cmake_build(self):
        ru.need_tools("cmake", "make", "cc")
        proj = self.mkdir("proj")
        self.mkdir("proj", "src")
        USER.write(os.path.join(proj, "CMakeLists.txt"),
                   "cmake_minimum_required(VERSION 3.13)\n"
                   "project(demo C)\nadd_executable(demo src/main.c)\n")
        USER.write(os.path.join(proj, "src", "main.c"),
                   "#include <stdio.h>\nint main(void)\n{\n"
                   "\tputs(\"hi\");\n\treturn 0;\n}\n")
        rec = self.path("r.json")
        p = self.sh("sudo footprint run --allow build/ --allow '/tmp/cc*' "
                    "--receipt %s -- sh -c 'cmake -S . -B build >/dev/null "
                    "&& cmake --build build >/dev/null && ./build/demo'" %
                    q(rec), cwd=proj, timeout=300)
        err = p.stderr.decode("utf-8", "replace")
        self.assertEqual(p.returncode, EXIT_OK, self.describe(p))
        self.assertEqual(p.stdout, b"hi\n")
        r = ru.load_receipt(rec)
        n = len(r["files"]["added"])
        t = [f["path"] for f in r["files"]["transient"]]
        self.assertGreater(len(t), 1, r["files"]["transient"])
        # gcc's /tmp/cc* and cmake's own, in build/: the deepest directory
        # that holds them all
        top = os.path.commonpath(t) + "/"
        self.assertEqual(ok_line(err),
                         "footprint: ok: %d files added under build/ "
                         "(allowed), %d files created and removed under %s "
                         "(allowed)" % (n, len(t), top), err)
        # the program the build made, and then ran, says so
        demo = [f for f in r["files"]["added"]
                if f["path"] == proj + "/build/demo"]
        self.assertEqual(fptest.argv_of(r, demo[0]["ran_by"]), ["./build/demo"])

    def test_nothing_to_say(self):
        p = self.sh("sudo footprint run -- true", cwd=self.mkdir("r"))
        self.assertEqual(p.returncode, EXIT_OK, self.describe(p))
        self.assertEqual(p.stderr, b"footprint: ok: nothing changed\n")


def summary_coverage(err):
    """(failing, covered, more) read from a failing summary: the failing
    count of its first line, the findings its lines name (an example
    line one, an "N under DIR/" line N), and its "and N more"."""
    lines = err.splitlines()
    m = re.match(r"footprint: FAIL \(([\d,]+) failing finding", lines[0])
    assert m, err
    failing = int(m.group(1).replace(",", ""))
    covered = more = 0
    num = r"([\d,]+)"
    for ln in lines[1:]:
        if ln.startswith("footprint: "):
            break  # the policy lines
        if re.match(r"^  and %s more \(see the receipt\)$" % num, ln):
            more += int(re.match(r"^  and %s" % num, ln).group(1)
                        .replace(",", ""))
        elif re.match(r"^  \S+ %s under .*/$" % num, ln):
            covered += int(re.match(r"^  \S+ %s" % num, ln).group(1)
                           .replace(",", ""))
        elif re.match(r"^    %s under .*/$" % num, ln):
            covered += int(re.match(r"^    %s" % num, ln).group(1)
                           .replace(",", ""))
        elif re.match(r"^  \S+ %s:?$" % num, ln):
            pass  # a category's count: its examples follow
        elif re.match(r"^    \S", ln) or re.match(r"^  [a-z_]+\.[a-z_]+ ",
                                                    ln):
            covered += 1  # one finding
    return failing, covered, more


class SummaryMoreTest(Case):
    """Item 8: "and N more" counts what no line above covered."""

    def test_a_copied_tree_and_leftovers(self):
        need = "/usr/include/linux"
        if not os.path.isdir(need):
            ru.cannot_test("%s is missing (linux-libc-dev)" % need)
        job = USER.write(self.path("job.sh"),
                         "#!/bin/sh\ncp -r /usr/include/linux inc\n"
                         "cp -r /usr/include/linux inc2\n"
                         "for i in $(seq 15); do sleep 300 & done\n", 0o755)
        root = self.mkdir("root")
        p = self.sh("sudo footprint run --summary-max 4 -- %s" % q(job),
                    cwd=root)
        err = p.stderr.decode("utf-8", "replace")
        self.assertEqual(p.returncode, EXIT_VERDICT, self.describe(p))
        failing, covered, more = summary_coverage(err)
        self.assertGreater(failing, 500, err)
        self.assertEqual(covered + more, failing, err)
        self.assertLessEqual(more, 15, err)
        self.assertIn("  processes.leftover 15:", err)


if __name__ == "__main__":
    unittest.main()
