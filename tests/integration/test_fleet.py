"""footprint fleet (issue 33) against Debian's real clickhouse-server:
init (twice), push of receipts and logs (each twice: stored once), learn,
new (a run with one injected finding), a push while the server is down
and the spool sent after, --push on run, replay and sidecar stop, the
credentials rules, and a two-shard cluster behind a Distributed table.

The server is started by hand (no systemd) from a configuration in a
temporary directory, on free ports of 127.0.0.1 (clickhouse_util.py),
one per test class, and stopped at the end.
"""

import hashlib
import json
import os
import shutil
import socket
import stat
import subprocess
import tempfile
import time
import unittest

import clickhouse_util as chu
import sudo_util as su
from fptest import cannot_test

PY = "/usr/bin/python3"
# what one run of the job does: a file under out/ (allowed), a temp file
# made and removed (its name differs every run), a bind to port 0
WORKLOAD = ('mkdir -p out && echo built > out/result && '
            't=$(mktemp /tmp/fpfleet.XXXXXX) && echo x > "$t" && rm "$t" && '
            '%s -c "import socket; s = socket.socket(); '
            's.bind((\'127.0.0.1\', 0))"' % PY)
POLICY = "allow out/\nallow /tmp/fpfleet.*\nallow bind tcp/127.0.0.1:0\n"
INJECTED = WORKLOAD + " && cat /etc/shadow > /dev/null"


def fp(*args, env=None, cwd=None, timeout=120):
    e = su.base_env()
    if env:
        e.update(env)
    return subprocess.run([su.FOOTPRINT, *args], env=e, cwd=cwd,
                          stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=timeout)


def need_clickhouse():
    su.check_binary()
    if not chu.available():
        cannot_test("clickhouse-server is not installed; run "
                    "scripts/install-deps")


class Runs:
    """Recorded runs of one job in one root: receipts and logs."""

    def __init__(self, base):
        self.root = os.path.join(base, "root")
        self.out = os.path.join(base, "out")
        os.makedirs(self.root)
        os.makedirs(self.out)
        self.policy = os.path.join(base, "job.policy")
        with open(self.policy, "w") as f:
            f.write(POLICY)
        self.n = 0

    def record(self, script):
        self.n += 1
        r = os.path.join(self.out, "r%d.json" % self.n)
        log = os.path.join(self.out, "r%d.fplog" % self.n)
        p = fp("run", "--quiet", "--root", self.root, "--policy",
               self.policy, "--receipt", r, "--record", log, "--",
               "sh", "-c", script, cwd=self.root)
        if p.returncode == su.EXIT_NOTRACE:
            cannot_test("footprint cannot trace here: " + p.stderr)
        return r, log, p.returncode


def variant(src, dst, i):
    """A receipt of src's run made at another time: another run (its id
    comes from its provenance), for tests that need one the others did
    not push."""
    with open(src) as f:
        doc = json.load(f)
    doc["provenance"]["started"] = "2026-01-01T00:%02d:%02d.000Z" % (
        i // 60 % 60, i % 60)
    with open(dst, "w") as f:
        json.dump(doc, f)
    return dst


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def rules_of(text):
    return sorted(line.split("  #")[0] for line in text.split("\n")
                  if line and not line.startswith("#"))


class FleetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_clickhouse()
        cls.tmp = os.path.realpath(tempfile.mkdtemp(prefix="fpfleet-"))
        os.chmod(cls.tmp, 0o755)
        cls.server = chu.Server(os.path.join(cls.tmp, "ch")).start()
        try:
            cls.server.wait_ready()
            cls.url = cls.server.url
            p = fp("fleet", "init", "--clickhouse", cls.url, "--events")
            if p.returncode != 0:
                raise AssertionError("fleet init: " + p.stderr)
            cls.runs = Runs(os.path.join(cls.tmp, "job"))
            cls.base = []
            for _ in range(3):
                r, log, rc = cls.runs.record(WORKLOAD)
                if rc != 0:
                    raise AssertionError("the job's run failed its policy")
                cls.base.append((r, log))
            cls.injected = cls.runs.record(INJECTED)
            cls.clean = cls.runs.record(WORKLOAD)
            # runs of their own for the tests that count pushes
            cls.pair = [cls.runs.record(WORKLOAD)[:2] for _ in range(2)]
            cls.down_log = cls.runs.record(WORKLOAD)[1]
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def q(self, sql):
        return self.server.scalar(sql)

    def variant(self, i):
        return variant(self.base[0][0],
                       os.path.join(self.tmp, "variant-%d.json" % i), i)

    def push(self, job, *files, env=None, ok=True):
        p = fp("fleet", "push", "--clickhouse", self.url, "--job", job,
               *files, env=env)
        if ok:
            self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def test_init_again_keeps_the_tables_and_their_rows(self):
        self.push("init-again", self.variant(100))
        for _ in range(2):
            p = fp("fleet", "init", "--clickhouse", self.url, "--events")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("footprint_runs, footprint_findings, "
                          "footprint_events ready", p.stderr)
        self.assertEqual(self.q(
            "SELECT count() FROM footprint_runs WHERE job = 'init-again'"),
            "1")
        engines = self.server.query(
            "SELECT name, engine FROM system.tables WHERE database = "
            "currentDatabase() AND name LIKE 'footprint_%' ORDER BY name")
        self.assertEqual(engines.split("\n")[:3], [
            "footprint_events\tReplacingMergeTree",
            "footprint_findings\tReplacingMergeTree",
            "footprint_runs\tReplacingMergeTree"])

    def test_receipts_and_logs_pushed_twice_are_stored_once(self):
        (r1, log1), (r2, log2) = self.pair
        first = self.push("twice", r1, log2)
        self.assertIn("pushed", first.stderr)
        findings = self.q("SELECT count() FROM footprint_findings WHERE "
                          "job = 'twice'")
        self.assertGreater(int(findings), 0)
        # again, and each run in its other form: the log replays to the
        # same receipt, so it is the same run
        again = self.push("twice", r1, log2, log1, r2)
        self.assertEqual(again.stderr.count("in the store already"), 4,
                         again.stderr)
        self.assertEqual(self.q(
            "SELECT count(), uniqExact(run_id) FROM footprint_runs "
            "WHERE job = 'twice'"), "2\t2")
        self.assertEqual(self.q("SELECT count() FROM footprint_findings "
                                "WHERE job = 'twice'"), findings)
        # the row says what the receipt says
        with open(r1, "rb") as f:
            raw = f.read()
        doc = json.loads(raw)
        row = self.server.query(
            "SELECT ok, mode, host, user, uid, version, origin, "
            "toUnixTimestamp(started), receipt_sha256, failing, roots "
            "FROM footprint_runs WHERE job = 'twice' AND receipt_sha256 = "
            "'%s' FORMAT JSONEachRow" % hashlib.sha256(raw).hexdigest())
        row = json.loads(row)
        pv = doc["provenance"]
        self.assertEqual(row["ok"], 1)
        self.assertEqual(row["mode"], "run")
        self.assertEqual(row["host"], pv["host"])
        self.assertEqual(row["host"], socket.gethostname())
        self.assertEqual(row["user"], pv["user"])
        self.assertEqual(row["version"], pv["footprint"])
        self.assertEqual(row["origin"], "receipt")
        self.assertEqual(row["failing"], 0)
        self.assertEqual(row["roots"], doc["roots"])
        started = time.mktime(time.strptime(pv["started"][:19],
                                            "%Y-%m-%dT%H:%M:%S"))
        self.assertEqual(int(row["toUnixTimestamp(started)"]),
                         int(started - time.timezone))
        # the temp file, allowed by the job's rule, medium as a transient
        # (severity.c: one table since issue 31)
        kinds = self.server.query(
            "SELECT kind, severity, allowed, rule, rule_target FROM "
            "footprint_findings WHERE job = 'twice' AND kind = "
            "'files.transient' LIMIT 1")
        self.assertEqual(kinds.strip(), "files.transient\tmedium\t1\t"
                         "allow /tmp/fpfleet.*\tpath")

    def test_learn_writes_what_policy_learn_writes(self):
        self.push("build", self.base[0][0], self.base[1][1],
                  self.base[2][0])
        out = os.path.join(self.tmp, "learned.policy")
        p = fp("fleet", "learn", "--clickhouse", self.url, "--job", "build",
               "--last", "3", "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            learned = f.read()
        self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o600)
        logs = [log for _, log in self.base]
        ref = fp("policy", "learn", *logs)
        self.assertEqual(ref.returncode, 0, ref.stderr)
        self.assertEqual(rules_of(learned), rules_of(ref.stdout), learned)
        # generalised: the temp file's random name is a glob, the bind
        # port 0
        self.assertIn("allow /tmp/fpfleet.*", learned)
        self.assertIn("allow bind tcp/127.0.0.1:0", learned)
        self.assertIn("needed by: every run (3)", learned)
        for log in logs + [self.clean[1]]:
            r = fp("replay", "--quiet", "--policy", out, log)
            self.assertEqual(r.returncode, 0, r.stderr)
        # a job with no passing run has nothing to learn from
        p = fp("fleet", "learn", "--clickhouse", self.url, "--job",
               "no-such-job")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("no passing run", p.stderr)

    def test_new_names_the_injected_finding_first(self):
        self.push("build", *[r for r, _ in self.base])
        p = fp("fleet", "new", "--clickhouse", self.url, "--job", "build",
               self.injected[0])
        self.assertEqual(p.returncode, 1, p.stderr)
        lines = p.stdout.strip().split("\n")
        self.assertEqual(len(lines), 1, p.stdout)
        self.assertRegex(lines[0], r"^critical +files\.read /etc/shadow "
                         r"\(shadow\) by pid \d+ /usr/bin/cat$")
        self.assertIn("1 finding of", p.stderr)
        # the log of the same run says the same; --json one object a line
        p = fp("fleet", "new", "--clickhouse", self.url, "--job", "build",
               "--json", self.injected[1])
        self.assertEqual(p.returncode, 1, p.stderr)
        objs = [json.loads(x) for x in p.stdout.strip().split("\n")]
        self.assertEqual(len(objs), 1)
        self.assertEqual(objs[0]["severity"], "critical")
        self.assertEqual(objs[0]["kind"], "files.read")
        self.assertEqual(objs[0]["what"], "/etc/shadow")
        self.assertEqual(objs[0]["secret"], "shadow")
        # a run like the others: its temp file has a new name, its bind a
        # new port, and neither is news
        p = fp("fleet", "new", "--clickhouse", self.url, "--job", "build",
               self.clean[0])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertIn("nothing in", p.stderr)
        # a job the store has never seen: everything is new
        p = fp("fleet", "new", "--clickhouse", self.url, "--job",
               "unseen", self.clean[0])
        self.assertEqual(p.returncode, 1)
        self.assertIn("has no run of job 'unseen' yet", p.stderr)

    def test_events_of_a_log_pushed_twice_are_stored_once(self):
        log = self.base[2][1]
        ev = fp("events", log)
        self.assertEqual(ev.returncode, 0, ev.stderr)
        skip = {"fork", "exit", "tamper", "mark", "net_count", "dns",
                "signal", "ptrace", "mount", "namespace", "io_uring",
                "stats"}
        want = [json.loads(x) for x in ev.stdout.strip().split("\n")]
        want = [e for e in want if e["type"] not in skip]
        self.assertGreater(len(want), 10)
        for _ in range(2):
            self.push("build", "--events", log)
        run = "run_id = (SELECT any(run_id) FROM footprint_runs WHERE " \
            "receipt_sha256 = '%s')" % sha256_of(self.base[2][0])
        self.assertEqual(self.q(
            "SELECT count(), uniqExact(seq), max(seq) + 1 FROM "
            "footprint_events WHERE " + run),
            "%d\t%d\t%d" % (len(want), len(want), len(want)))
        execs = self.server.query(
            "SELECT path, argv FROM footprint_events WHERE " + run +
            " AND type = 'exec' ORDER BY seq LIMIT 1 FORMAT JSONEachRow")
        first = json.loads(execs)
        first_exec = [e for e in want if e["type"] == "exec"][0]
        self.assertEqual(first["path"], first_exec["exe"])
        self.assertEqual(first["argv"], first_exec["argv"])
        binds = self.q("SELECT count() FROM footprint_events WHERE " + run +
                       " AND type = 'bind' AND port > 0")
        self.assertEqual(binds, "1")
        # a push of events cut short goes on from the last one stored
        self.server.query("ALTER TABLE footprint_events DELETE WHERE " +
                          run + " AND seq >= %d" % (len(want) // 2))
        self.wait_count("SELECT count() FROM footprint_events WHERE " + run,
                        str(len(want) // 2))
        self.push("build", "--events", log)
        self.assertEqual(self.q(
            "SELECT count(), uniqExact(seq) FROM footprint_events WHERE " +
            run), "%d\t%d" % (len(want), len(want)))

    def wait_count(self, sql, want, bound=30):
        deadline = time.monotonic() + bound
        while self.q(sql) != want and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(self.q(sql), want)

    def test_a_push_cut_short_goes_on_where_it_stopped(self):
        r = self.variant(400)
        p = self.push("cut", r)
        run_id = p.stderr.split("run ")[1].split()[0]
        where = "run_id = '%s'" % run_id
        n = int(self.q("SELECT count() FROM footprint_findings WHERE " +
                       where))
        self.assertGreater(n, 4)
        # as if it had stopped after half its findings, before its row
        self.server.query("ALTER TABLE footprint_findings DELETE WHERE %s "
                          "AND seq >= %d" % (where, n // 2))
        self.server.query("ALTER TABLE footprint_runs DELETE WHERE " +
                          where)
        self.wait_count("SELECT count() FROM footprint_findings WHERE " +
                        where, str(n // 2))
        self.wait_count("SELECT count() FROM footprint_runs WHERE " + where,
                        "0")
        p = self.push("cut", r)
        self.assertIn("pushed", p.stderr)
        self.assertEqual(self.q(
            "SELECT count(), uniqExact(seq), max(seq) + 1 FROM "
            "footprint_findings WHERE " + where), "%d\t%d\t%d" % (n, n, n))
        self.assertEqual(self.q("SELECT count() FROM footprint_runs WHERE " +
                                where), "1")

    def test_events_without_their_table_leave_the_run_in(self):
        url = self.url + "?database=noevents"
        self.server.query("CREATE DATABASE IF NOT EXISTS noevents")
        p = fp("fleet", "init", "--clickhouse", url)
        self.assertEqual(p.returncode, 0, p.stderr)
        log = self.pair[0][1]
        p = fp("fleet", "push", "--clickhouse", url, "--job", "noev",
               "--events", log)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("is in the store, its events are not", p.stderr)
        self.assertIn("make the tables with footprint fleet init", p.stderr)
        self.assertEqual(self.q("SELECT count() FROM noevents.footprint_runs"),
                         "1")
        p = fp("fleet", "init", "--clickhouse", url, "--events")
        self.assertEqual(p.returncode, 0, p.stderr)
        p = fp("fleet", "push", "--clickhouse", url, "--job", "noev",
               "--events", log)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stderr, r"in the store already; \d+ events "
                         r"pushed")
        self.assertGreater(int(self.q(
            "SELECT count() FROM noevents.footprint_events")), 10)

    def test_push_while_the_server_is_down_is_spooled_and_sent_later(self):
        spool = os.path.join(self.tmp, "spool-down")
        env = {"FOOTPRINT_SPOOL": spool}
        r, log = self.variant(200), self.down_log
        self.server.stop()
        try:
            p = fp("fleet", "push", "--clickhouse", self.url, "--job",
                   "down", r, log, env=env)
        finally:
            self.server.start().wait_ready()
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("cannot reach %s" % self.url, p.stderr)
        self.assertIn("spooled as", p.stderr)
        entries = sorted(os.listdir(spool))
        self.assertEqual(len(entries), 2, entries)
        for e in entries:
            st = os.lstat(os.path.join(spool, e))
            self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
            self.assertTrue(e.endswith(".fpspool"))
        self.assertEqual(stat.S_IMODE(os.stat(spool).st_mode), 0o700)
        self.assertEqual(self.q("SELECT count() FROM footprint_runs WHERE "
                                "job = 'down'"), "0")
        p = fp("fleet", "push", "--clickhouse", self.url, "--spool", spool)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("2 of 2 spooled receipts sent", p.stderr)
        self.assertEqual(os.listdir(spool), [])
        # the job and where the run was came with the entry
        self.assertEqual(self.q(
            "SELECT count(), uniqExact(run_id), min(host != '') FROM "
            "footprint_runs WHERE job = 'down'"), "2\t2\t1")
        again = self.push("down", r, log)
        self.assertEqual(again.stderr.count("in the store already"), 2)

    def test_credentials_never_on_the_command_line(self):
        r = self.variant(300)
        with_pw = self.url.replace("http://", "http://ci:%s@" % "x")
        p = fp("fleet", "push", "--clickhouse", with_pw, r)
        self.assertEqual(p.returncode, 2)
        self.assertIn("every user of this machine can read a command "
                      "line", p.stderr)
        p = fp("run", "--push", self.url + "?password=x", "--", "true")
        self.assertEqual(p.returncode, 0, p.stderr)  # the run still ran
        self.assertIn("can read a command line", p.stderr)
        cred = os.path.join(self.tmp, "cred")
        with open(cred, "w") as f:
            f.write("# the store\nuser = ci\npassword = %s\n" % chu.PASSWORD)
        os.chmod(cred, 0o644)
        p = fp("fleet", "push", "--clickhouse", self.url, "--credentials",
               cred, r)
        self.assertEqual(p.returncode, 2)
        self.assertIn("can be read by others (mode 0644)", p.stderr)
        os.chmod(cred, 0o600)
        p = fp("fleet", "push", "--clickhouse", self.url, "--job", "cred",
               "--credentials", cred, r)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.q("SELECT count() FROM footprint_runs WHERE "
                                "job = 'cred'"), "1")
        # a link to it is never followed
        link = os.path.join(self.tmp, "cred-link")
        os.symlink(cred, link)
        p = fp("fleet", "push", "--clickhouse", self.url, "--credentials",
               link, r)
        self.assertEqual(p.returncode, 2)
        self.assertIn("symbolic link", p.stderr)
        # the environment's; a wrong password is the server's no: spooled
        spool = os.path.join(self.tmp, "spool-cred")
        p = fp("fleet", "push", "--clickhouse", self.url, "--job", "cred2",
               self.variant(301), env={"FOOTPRINT_CLICKHOUSE_USER": "ci",
                                     "FOOTPRINT_CLICKHOUSE_PASSWORD": "no",
                                     "FOOTPRINT_SPOOL": spool})
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("Wrong password for user ci", p.stderr)
        self.assertEqual(len(os.listdir(spool)), 1)
        p = fp("fleet", "push", "--clickhouse", self.url, "--spool", spool,
               env={"FOOTPRINT_CLICKHOUSE_USER": "ci",
                    "FOOTPRINT_CLICKHOUSE_PASSWORD": chu.PASSWORD})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.q("SELECT count() FROM footprint_runs WHERE "
                                "job = 'cred2'"), "1")

    def test_what_is_no_receipt_is_refused(self):
        junk = os.path.join(self.tmp, "junk.json")
        with open(junk, "w") as f:
            f.write("[1, 2]\n")
        p = fp("fleet", "push", "--clickhouse", self.url, junk)
        self.assertEqual(p.returncode, 2)
        self.assertIn("not a receipt", p.stderr)
        link = os.path.join(self.tmp, "receipt-link.json")
        os.symlink(self.base[0][0], link)
        p = fp("fleet", "push", "--clickhouse", self.url, link)
        self.assertEqual(p.returncode, 2)
        self.assertIn("symbolic link", p.stderr)
        p = fp("fleet", "new", "--clickhouse", self.url, self.clean[0])
        self.assertEqual(p.returncode, 2)
        self.assertIn("new wants --job NAME", p.stderr)

    def test_replay_push(self):
        p = fp("replay", "--quiet", "--push", self.url, "--job", "replayed",
               self.clean[1])
        self.assertEqual(p.returncode, 0, p.stderr)
        sha = sha256_of(self.clean[0])
        # byte for byte the receipt of the live run
        self.assertEqual(self.q("SELECT receipt_sha256 FROM footprint_runs "
                                "WHERE job = 'replayed'"), sha)

    def test_run_push_as_the_invoking_user(self):
        from sudo_user import SudoUser
        user = SudoUser("fpfleet")
        self.addCleanup(user.close)
        # the credentials in the user's own file, as docs/fleet.md says
        user.write(os.path.join(user.home, ".config", "footprint",
                                "clickhouse"),
                   "user = ci\npassword = %s\n" % chu.PASSWORD, 0o600)
        rc, out = user.sh('mkdir w && cd w && sudo footprint run --quiet '
                          '--allow made --push %s --job sudo-job -- '
                          'sh -c "echo x > made"' % self.url)
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.server.query(
            "SELECT user, uid, ok FROM footprint_runs WHERE job = "
            "'sudo-job'").strip(),
            "%s\t%d\t1" % (user.name, user.pw.pw_uid))
        # the server down: the receipt lands in the user's own spool
        down = "http://127.0.0.1:%d/" % chu.free_ports(1)[0]
        rc, out = user.sh('cd w && sudo footprint run --quiet --allow made '
                          '--push %s --job sudo-job -- sh -c "echo y > made"'
                          % down)
        self.assertEqual(rc, 0, out)
        self.assertIn("spooled as", out)
        spool = os.path.join(user.home, ".local", "state", "footprint",
                             "spool")
        entries = os.listdir(spool)
        self.assertEqual(len(entries), 1)
        st = os.lstat(os.path.join(spool, entries[0]))
        self.assertEqual((st.st_uid, stat.S_IMODE(st.st_mode)),
                         (user.pw.pw_uid, 0o600))
        self.assertEqual(os.stat(spool).st_uid, user.pw.pw_uid)
        # `sudo footprint fleet` runs as the user, HOME root's or not
        rc, out = user.sh("cd w && sudo footprint fleet push --clickhouse "
                          "%s --job sudo-job %s" % (down, self.variant(500)))
        self.assertEqual(rc, 3, out)
        self.assertEqual(len(os.listdir(spool)), 2, out)
        for e in os.listdir(spool):
            st = os.lstat(os.path.join(spool, e))
            self.assertEqual(st.st_uid, user.pw.pw_uid)
        rc, out = user.sh("footprint fleet push --clickhouse %s --spool "
                          "~/.local/state/footprint/spool" % self.url)
        self.assertEqual(rc, 0, out)
        self.assertEqual(os.listdir(spool), [])
        self.assertEqual(self.q("SELECT count() FROM footprint_runs WHERE "
                                "job = 'sudo-job'"), "3")

    def test_sidecar_stop_push(self):
        from test_sidecar import Job
        job = Job(self)
        job.start('--allow "built"')
        p = job.step('echo x > built && cat /etc/hostname > /dev/null')
        self.assertEqual(p.returncode, 0, p.stderr)
        p, doc, receipt = job.stop("--push %s --job sidecar-job" % self.url)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(doc.get("mode"), "sidecar")
        self.assertEqual(self.server.query(
            "SELECT mode, receipt_sha256, steps, host FROM footprint_runs "
            "WHERE job = 'sidecar-job'").strip(),
            "sidecar\t%s\t%d\t%s" % (sha256_of(receipt),
                                      len(doc.get("steps", [])),
                                      socket.gethostname()))


class FleetClusterTest(unittest.TestCase):
    """Two servers, one shard each, a Distributed table over both."""

    @classmethod
    def setUpClass(cls):
        need_clickhouse()
        cls.tmp = os.path.realpath(tempfile.mkdtemp(prefix="fpfleetc-"))
        cls.nodes = chu.cluster(cls.tmp, "fpc", 2)

    @classmethod
    def tearDownClass(cls):
        for n in cls.nodes:
            n.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def local_runs(self):
        return [int(n.scalar("SELECT count() FROM footprint_runs_local "
                             "WHERE job = 'dist'")) for n in self.nodes]

    def test_distributed_pushes_land_on_both_shards_counted_once(self):
        a, b = (n.url for n in self.nodes)
        for _ in range(2):
            p = fp("fleet", "init", "--cluster", "fpc", "--clickhouse", a,
                   "--clickhouse", b)
            self.assertEqual(p.returncode, 0, p.stderr)
        for n in self.nodes:
            self.assertEqual(n.scalar(
                "SELECT engine FROM system.tables WHERE database = "
                "currentDatabase() AND name = 'footprint_runs'"),
                "Distributed")
        p = fp("fleet", "init", "--cluster", "nosuch", "--clickhouse", a)
        self.assertEqual(p.returncode, 3)
        self.assertIn("has no cluster nosuch", p.stderr)
        # twenty runs: one recorded, the others that receipt made at
        # other times (their ids come from the provenance)
        runs = Runs(os.path.join(self.tmp, "job"))
        r, log, rc = runs.record(WORKLOAD)
        self.assertEqual(rc, 0)
        files = [r] + [variant(r, os.path.join(self.tmp, "v%d.json" % i), i)
                       for i in range(1, 20)]
        p = fp("fleet", "push", "--clickhouse", a, "--job", "dist", *files)
        self.assertEqual(p.returncode, 0, p.stderr)
        # Distributed inserts are asynchronous on 18.16 unless made
        # synchronous: poll, with a bound
        deadline = time.monotonic() + 30
        while sum(self.local_runs()) < 20 and time.monotonic() < deadline:
            time.sleep(0.2)
        shards = self.local_runs()
        self.assertEqual(sum(shards), 20, shards)
        self.assertTrue(all(s > 0 for s in shards), shards)
        # through either node, and pushed again through the other
        p = fp("fleet", "push", "--clickhouse", b, "--job", "dist", *files,
               log)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.count("in the store already"), 21)
        for n in self.nodes:
            self.assertEqual(n.scalar(
                "SELECT count(), uniqExact(run_id) FROM footprint_runs "
                "WHERE job = 'dist'"), "20\t20")
        findings = [int(n.scalar("SELECT count() FROM "
                                 "footprint_findings_local WHERE job = "
                                 "'dist'")) for n in self.nodes]
        self.assertEqual(str(sum(findings)), self.nodes[1].scalar(
            "SELECT count() FROM footprint_findings WHERE job = 'dist'"))
        # learn reads through the Distributed table too, and learns what
        # policy learn does from the run's log. Not a fixed glob: the
        # twenty runs share one temp name, and an all-lower-case one
        # (/tmp/fpfleet.jzjlex, one in 50 of mktemp's) is a word to the
        # suggester when no sibling differs from it
        p = fp("fleet", "learn", "--clickhouse", b, "--job", "dist")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("from the last 20 passing runs", p.stderr)
        ref = fp("policy", "learn", log)
        self.assertEqual(ref.returncode, 0, ref.stderr)
        self.assertEqual(rules_of(p.stdout), rules_of(ref.stdout), p.stdout)
        self.assertIn("needed by: every run (20)", p.stdout)
        self.assertTrue(any(r.startswith("allow /tmp/fpfleet.")
                            for r in rules_of(p.stdout)), p.stdout)


if __name__ == "__main__":
    unittest.main()
