"""`footprint run --record LOG --record-max SIZE`: the event log in
segments (LOG, LOG.1, LOG.2, ...), as a long CI job needs it.

Each run is a root footprint started the way sudo starts it (SUDO_UID of
`nobody`), recording into a directory of nobody's. What is checked:

- a command making ~200k events gives several segments, none over SIZE;
  while the run lasts every segment is root's 0600 and the command (as
  nobody) cannot open one for writing; after it each is nobody's 0600;
- `replay` (as nobody, no root) gives the live receipt byte for byte, and
  `events` the live `--events` output;
- a middle segment deleted is a gap: replay and events exit 1 with one
  line naming the missing segment, and the replayed receipt fails;
- a name the user planted where a segment goes (a symlink to a root-only
  file) is refused at the start, replaced with --force, and refused when
  the command plants it during the run: the victim is never touched.

Run as root: FOOTPRINT=build/footprint python3 -m unittest -v \\
    tests/integration/test_segments.py
"""

import json
import os
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fptest  # noqa: E402
import sudo_util as su  # noqa: E402
from sudo_util import (EXIT_OK, EXIT_USAGE, EXIT_VERDICT,  # noqa: E402
                       FOOTPRINT, PY, Sandbox)

NOBODY = su.nobody()
MiB = 1 << 20
SECRET = b"root-only secret 2b7e19\n"

# Opens of names that do not exist, each a random 64-bit hex: events that
# do not compress much and leave nothing to judge. Then, still as the
# user, it tries each segment of the log in LOGDIR: what it sees is
# printed, one line per segment.
WORKLOAD = r"""
import os, random, sys
root, n, logdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
plant = sys.argv[4:]
if plant:
    os.symlink(plant[1], os.path.join(logdir, plant[0]))
rnd = random.Random(7)
for i in range(n):
    try:
        os.close(os.open(os.path.join(root, "%016x" % rnd.getrandbits(64)),
                         os.O_RDONLY))
    except FileNotFoundError:
        pass
for name in sorted(os.listdir(logdir)):
    if not name.startswith("job.fplog"):
        continue
    st = os.lstat(os.path.join(logdir, name))
    try:
        os.close(os.open(os.path.join(logdir, name), os.O_WRONLY))
        w = "writable"
    except PermissionError:
        w = "denied"
    print("seg %s %d %o %s" % (name, st.st_uid, st.st_mode & 0o7777, w))
"""


def as_nobody():
    os.setgroups([])
    os.setresgid(NOBODY.pw_gid, NOBODY.pw_gid, NOBODY.pw_gid)
    os.setresuid(NOBODY.pw_uid, NOBODY.pw_uid, NOBODY.pw_uid)


def segments(d, name="job.fplog"):
    """The segment files of d/name, in order, as far as they go."""
    out, n = [], 0
    while True:
        p = os.path.join(d, name if n == 0 else "%s.%d" % (name, n))
        if not os.path.lexists(p):
            return out
        out.append(p)
        n += 1


def ndjson(raw):
    return [json.loads(line) for line in raw.decode("utf-8").splitlines()
            if line.strip()]


class SegmentCase(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.sb = Sandbox(self)
        # nobody's: the log, events and receipt go here
        self.home = os.path.join(self.sb.base, "home")
        os.mkdir(self.home, 0o755)
        os.chown(self.home, NOBODY.pw_uid, NOBODY.pw_gid)
        self.log = os.path.join(self.home, "job.fplog")
        self.script = os.path.join(self.sb.base, "workload.py")
        with open(self.script, "w") as f:
            f.write(WORKLOAD)
        os.chmod(self.script, 0o644)
        # root's: a 0700 directory holding a 0600 secret
        vdir = os.path.join(self.sb.base, "victim")
        os.mkdir(vdir, 0o700)
        self.victim = os.path.join(vdir, "secret")
        with open(self.victim, "wb") as f:
            f.write(SECRET)
        os.chmod(self.victim, 0o600)
        self.vstat = os.lstat(self.victim)

    def record(self, n, opts=(), plant=(), allow_notrace=False):
        cmd = [PY, self.script, self.sb.root, str(n), self.home] + \
            list(plant)
        return self.sb.run(
            cmd, opts=["--record", self.log, "--record-max", "1M"] +
            list(opts), receipt=os.path.join(self.home, "live.json"),
            env=su.sudo_env(NOBODY), cwd=self.home, timeout=180,
            allow_notrace=allow_notrace)

    def footprint_as_nobody(self, *args):
        if not getattr(self, "public_binary", None):
            self.public_binary = fptest.world_readable_copy(self, FOOTPRINT)
        return subprocess.run([self.public_binary] + list(args),
                              cwd=self.home, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=120, preexec_fn=as_nobody)

    def assertVictimUntouched(self, res):
        st = os.lstat(self.victim)
        with open(self.victim, "rb") as f:
            self.assertEqual(f.read(), SECRET, res.describe())
        self.assertEqual((st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode),
                          st.st_ino, st.st_nlink),
                         (0, 0, 0o600, self.vstat.st_ino, 1),
                         "the victim changed\n" + res.describe())
        self.assertNotIn(SECRET.strip(), res.stdout + res.stderr)

    def plant_link(self, name):
        subprocess.run(["setpriv", "--reuid", str(NOBODY.pw_uid),
                        "--regid", str(NOBODY.pw_gid), "--clear-groups",
                        "--", "ln", "-s", self.victim,
                        os.path.join(self.home, name)], check=True)


class TestSegments(SegmentCase):
    def test_segments_replay_and_events_as_the_live_run(self):
        events = os.path.join(self.home, "live.ndjson")
        res = self.record(200000, ["--events", events])
        self.assertIn(res.rc, (EXIT_OK, EXIT_VERDICT), res.describe())
        self.assertEqual(res.r["trace"]["lost"], 0, res.describe())
        self.assertGreaterEqual(res.r["trace"]["events"], 200000)
        segs = segments(self.home)
        self.assertGreaterEqual(len(segs), 3, "segments: %r\n%s" %
                                (segs, res.describe()))
        # during the run, as the command saw them: root's, not writable
        seen = [ln.split() for ln in res.out.splitlines()
                if ln.startswith("seg ")]
        self.assertGreaterEqual(len(seen), 2, res.describe())
        for _, name, uid, mode, w in seen:
            self.assertEqual((uid, mode, w), ("0", "600", "denied"),
                             "%s during the run\n%s" % (name,
                                                         res.describe()))
        # after it: each nobody's 0600, at most SIZE, and nothing else
        for p in segs:
            st = os.lstat(p)
            self.assertTrue(stat.S_ISREG(st.st_mode), p)
            self.assertEqual((st.st_uid, st.st_gid,
                              stat.S_IMODE(st.st_mode)),
                             (NOBODY.pw_uid, NOBODY.pw_gid, 0o600), p)
            self.assertLessEqual(st.st_size, MiB, p)
        self.assertEqual(
            sorted(os.listdir(self.home)),
            sorted([os.path.basename(p) for p in segs] +
                   ["live.json", "live.ndjson"]))

        # replay, as nobody: the live receipt byte for byte
        rep = os.path.join(self.home, "replay.json")
        p = self.footprint_as_nobody("replay", "--quiet", "--receipt", rep,
                                     self.log)
        self.assertEqual(p.returncode, res.rc, p.stderr)
        self.assertEqual(p.stderr, b"")
        with open(res.receipt_path, "rb") as f:
            live = f.read()
        with open(rep, "rb") as f:
            self.assertTrue(f.read() == live,
                            "the replayed receipt differs from the live one")

        # events: the live --events output, its stats line aside
        p = self.footprint_as_nobody("events", self.log)
        self.assertEqual(p.returncode, EXIT_OK, p.stderr)
        with open(events, "rb") as f:
            want = ndjson(f.read())
        got = ndjson(p.stdout)
        self.assertEqual(len(got), len(want))
        self.assertTrue(got[:-1] == want[:-1],
                        "events differs from the live --events output")
        self.assertEqual((got[-1]["events"], got[-1]["lost"]),
                         (want[-1]["events"], want[-1]["lost"]))

        # a middle segment deleted: a gap, named, and the verdict fails
        os.unlink(segs[1])
        for verb in ("replay", "events"):
            with self.subTest(verb=verb):
                args = [verb, self.log]
                if verb == "replay":
                    args = [verb, "--quiet", "--receipt", rep, self.log]
                p = self.footprint_as_nobody(*args)
                self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
                lines = p.stderr.decode().splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertTrue(lines[0].startswith("footprint: "), lines)
                self.assertIn("its next segment, %s, is missing" % segs[1],
                              lines[0])
        with open(rep, "rb") as f:
            doc = json.loads(f.read())
        self.assertFalse(doc["ok"])
        self.assertFalse(doc["trace"]["complete"])
        self.assertTrue(any("is missing" in r for r in doc["reasons"]),
                        doc["reasons"])

    def test_planted_segment_name_is_refused_without_force(self):
        self.plant_link("job.fplog.1")
        res = self.record(10)
        self.assertEqual(res.rc, EXIT_USAGE, res.describe())
        self.assertEqual(res.err.count("\n"), 1, res.describe())
        self.assertTrue(res.err.startswith("footprint: "), res.describe())
        self.assertIn("job.fplog.1 exists", res.err)
        self.assertVictimUntouched(res)
        self.assertTrue(os.path.islink(self.log + ".1"))

    def test_planted_segment_name_is_replaced_with_force(self):
        self.plant_link("job.fplog.1")
        res = self.record(150000, ["--force"])
        self.assertIn(res.rc, (EXIT_OK, EXIT_VERDICT), res.describe())
        self.assertVictimUntouched(res)
        segs = segments(self.home)
        self.assertGreaterEqual(len(segs), 2, res.describe())
        st = os.lstat(segs[1])
        self.assertTrue(stat.S_ISREG(st.st_mode), "the link was followed")
        self.assertEqual((st.st_uid, stat.S_IMODE(st.st_mode)),
                         (NOBODY.pw_uid, 0o600))
        p = self.footprint_as_nobody("replay", "--quiet", self.log)
        self.assertEqual(p.returncode, res.rc, p.stderr)

    def test_command_planting_a_segment_name_stops_the_log(self):
        """The command (as the user) puts a symlink where the next segment
        goes: the segment is refused (it is never written through a name
        it did not create), the run says so and does not pass."""
        res = self.record(200000, plant=["job.fplog.1", self.victim],
                          allow_notrace=True)
        self.assertNotEqual(res.rc, EXIT_OK, res.describe())
        self.assertIn("job.fplog.1 exists", res.err)
        self.assertVictimUntouched(res)
        self.assertTrue(os.path.islink(self.log + ".1"))
        # what was written before is judged, and fails
        p = self.footprint_as_nobody("replay", "--quiet", self.log)
        self.assertEqual(p.returncode, EXIT_VERDICT, p.stderr)
        self.assertIn(b"job.fplog.1, is a symbolic link", p.stderr)


if __name__ == "__main__":
    unittest.main()
