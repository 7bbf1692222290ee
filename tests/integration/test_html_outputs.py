"""`--html FILE` on run, replay and sidecar stop (issue 31).

The page a command writes is the page `footprint report --html` makes of
its receipt, byte for byte, and it is an output like the receipt:

- run, as root and as an unprivileged invoking user under sudo: the page
  is that user's, a symbolic link at its name is replaced (its target
  untouched), a link in its directory is refused, and a missing, watched
  or unreachable directory fails before the command runs (the command's
  own mark is never made), with one "footprint:" line and exit 2; so
  does a directory at its name. A page that cannot be written after the
  run (stdout on /dev/full) turns ok into exit 125.
- replay --html: the page of the log, the same as `report --html LOG`.
- sidecar stop --html on a job of three steps: the page of the job, with
  a lane per step; a stop whose page has no directory fails before the
  daemon is stopped, and the job goes on; start, status and mark refuse
  --html.
"""

import json
import os
import re
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, EXIT_USAGE, EXIT_NOTRACE  # noqa: E402
from test_sidecar_job import Runner  # noqa: E402

FP = su.FOOTPRINT


def fp(*args, env=None):
    p = subprocess.run([FP] + list(args), env=env or su.base_env(),
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def read(path):
    with open(path, "rb") as f:
        return f.read()


class HtmlOutputsTest(unittest.TestCase):
    def setUp(self):
        su.check_binary()
        self.sb = su.Sandbox(self)

    def report_page(self, source):
        """footprint report --html of source: the page it makes"""
        page = self.sb.out_path("report-%d.html" % self.sb.n)
        self.sb.n += 1
        rc, _, err = fp("report", "--html", page, source)
        self.assertEqual(rc, EXIT_OK, err)
        return read(page)

    def assert_refused_before(self, html, msg, env=None):
        """run --html html fails before the command runs"""
        mark = self.sb.in_root("ran")
        was = os.path.lexists(html)
        r = self.sb.run(["touch", mark], opts=["--html", html], env=env)
        self.assertEqual(r.rc, EXIT_USAGE, r.describe())
        self.assertEqual(len(r.err.splitlines()), 1, r.err)
        self.assertTrue(r.err.startswith("footprint: "), r.err)
        self.assertIn(msg, r.err)
        self.assertFalse(os.path.exists(mark), "the command ran")
        self.assertIsNone(r.r, "a receipt was written")
        self.assertEqual(os.path.lexists(html), was)

    def run_page(self, env=None):
        page = self.sb.out_path("run-%d.html" % self.sb.n)
        r = self.sb.run(["sh", "-c", "echo x > out.txt; cat out.txt"],
                        opts=["--html", page], env=env)
        self.assertEqual(r.rc, su.EXIT_VERDICT, r.describe())
        raw = read(page)
        self.assertTrue(raw.startswith(b"<!DOCTYPE html>"), raw[:80])
        self.assertIn(b'id="verdict"', raw)
        self.assertIn(b"out.txt", raw)
        self.assertEqual(raw, self.report_page(r.receipt_path))
        return page

    def test_run_as_root(self):
        page = self.run_page()
        st = os.stat(page)
        self.assertEqual((st.st_uid, stat.S_IMODE(st.st_mode)), (0, 0o600))

    def test_run_as_the_invoking_user(self):
        pw = su.nobody()
        page = self.run_page(env=su.sudo_env(pw))
        st = os.stat(page)
        self.assertEqual((st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)),
                         (pw.pw_uid, pw.pw_gid, 0o600))

    def test_a_link_at_its_name_is_replaced_not_followed(self):
        pw = su.nobody()
        target = os.path.join(self.sb.base, "target")
        with open(target, "w") as f:
            f.write("keep\n")
        page = self.sb.out_path("link.html")
        # the user's own link (the command could make it), to root's file
        os.symlink(target, page)
        os.lchown(page, pw.pw_uid, pw.pw_gid)
        r = self.sb.run(["true"], opts=["--html", page],
                        env=su.sudo_env(pw))
        self.assertEqual(r.rc, EXIT_OK, r.describe())
        self.assertEqual(read(target), b"keep\n")
        st = os.lstat(page)
        self.assertTrue(stat.S_ISREG(st.st_mode))
        self.assertEqual(st.st_uid, pw.pw_uid)
        self.assertEqual(read(page), self.report_page(r.receipt_path))

    def test_a_bad_directory_fails_before_the_command_runs(self):
        pw = su.nobody()
        real = os.path.join(self.sb.base, "real")
        os.mkdir(real, 0o777)
        os.chmod(real, 0o777)
        os.symlink(real, os.path.join(self.sb.out, "linkdir"))
        closed = os.path.join(self.sb.base, "closed")
        os.mkdir(closed, 0o700)
        adir = self.sb.out_path("adir")
        os.mkdir(adir)
        for html, msg, env in (
                (os.path.join(self.sb.base, "none", "p.html"),
                 "no such file or directory", None),
                (self.sb.in_root("p.html"), "inside the watched root",
                 None),
                (os.path.join(self.sb.out, "linkdir", "p.html"),
                 "symbolic link", su.sudo_env(pw)),
                (os.path.join(closed, "p.html"), "permission denied",
                 su.sudo_env(pw)),
                (adir, "exists and is not a regular file", None)):
            with self.subTest(html=html):
                self.assert_refused_before(html, msg, env)

    def test_a_page_that_cannot_be_written_is_not_ok(self):
        argv, rpath = self.sb.argv(["true"], opts=["--html", "-"])
        with open("/dev/full", "wb") as full:
            p = subprocess.run(argv, env=su.base_env(), cwd=self.sb.root,
                               stdin=subprocess.DEVNULL, stdout=full,
                               stderr=subprocess.PIPE, timeout=60)
        err = p.stderr.decode("utf-8", "replace")
        self.assertEqual(p.returncode, EXIT_NOTRACE, err)
        self.assertIn("footprint: writing the HTML report to - failed", err)
        with open(rpath, "rb") as f:
            self.assertTrue(json.load(f)["ok"], "the verdict itself is ok")

    def test_replay_is_report_of_the_log(self):
        log = self.sb.out_path("run.fplog")
        r = self.sb.run(["sh", "-c", "mkdir -p d && echo y > d/f"],
                        opts=["--record", log])
        self.assertEqual(r.rc, su.EXIT_VERDICT, r.describe())
        page = self.sb.out_path("replay.html")
        again = self.sb.out_path("again.json")
        rc, _, err = fp("replay", "-q", "--html", page, "--receipt", again,
                        log)
        self.assertEqual(rc, su.EXIT_VERDICT, err)
        self.assertEqual(read(again), read(r.receipt_path))
        raw = read(page)
        self.assertIn(b"d/f", raw)
        self.assertEqual(raw, self.report_page(log))
        self.assertEqual(raw, self.report_page(r.receipt_path))
        # a page it cannot write fails before the log is judged
        rc, _, err = fp("replay", "--html",
                        os.path.join(self.sb.base, "none", "p.html"),
                        "--receipt", self.sb.out_path("no.json"), log)
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith("footprint: "), err)
        self.assertFalse(os.path.exists(self.sb.out_path("no.json")))

    def test_sidecar_start_status_mark_refuse_it(self):
        for verb in (["start"], ["status"], ["mark", "x"]):
            with self.subTest(verb=verb):
                rc, _, err = fp("sidecar", *verb, "--state",
                                os.path.join(self.sb.base, "state"),
                                "--html", self.sb.out_path("s.html"))
                self.assertEqual(rc, EXIT_USAGE, err)
                self.assertIn("--html is stop's", err)

    def test_sidecar_stop(self):
        r = Runner(self)
        start = ('"$FP" sidecar start --state "$STATE" --root "$WS" '
                 '--cgroup "$CONTAINER"')
        stop = ('"$FP" sidecar stop --state "$STATE" --quiet '
                '--receipt "$OUT/receipt.json" --html "$OUT/job.html"')
        steps = [["start", start],
                 ["build", "mkdir -p out && echo o > out/app"],
                 ["write-outside", 'echo x > "$OUTSIDE/written"'],
                 ["test", "test -s out/app"],
                 # refused before the daemon is stopped: it goes on
                 ["bad-stop", '"$FP" sidecar stop --state "$STATE" '
                              '--html "$OUT/none/p.html"'],
                 ["stop", stop]]
        p, codes = r.run(steps)
        self.assertEqual(codes.get("start"), 0, p.stderr)
        self.assertEqual(codes.get("bad-stop"), EXIT_USAGE, p.stderr)
        self.assertIn(b"footprint: cannot write the HTML report to ",
                      p.stderr)
        self.assertEqual(codes.get("stop"), su.EXIT_VERDICT, p.stderr)
        doc = r.receipt()
        raw = read(os.path.join(r.out, "job.html"))
        rc, _, err = fp("report", "--html", os.path.join(r.out, "r.html"),
                        os.path.join(r.out, "receipt.json"))
        self.assertEqual(rc, EXIT_OK, err)
        self.assertEqual(raw, read(os.path.join(r.out, "r.html")))
        lanes = dict(re.findall(
            rb'<section class="lane[^"]*" data-step="(\d+)"><h3[^>]*>'
            rb'(.*?)</h3>', raw.replace(b"\n", b" ")))
        for step in doc["steps"]:
            if step["name"] in ("build", "write-outside", "test"):
                self.assertIn(str(step["index"]).encode(), lanes)
                self.assertIn(step["name"].encode(),
                              lanes[str(step["index"]).encode()])


if __name__ == "__main__":
    unittest.main()
