"""`footprint report --html` on real runs, loaded in headless Chromium.

- A small run that reads a secret, writes outside its root and forks a
  few processes: the page made from its log is the page made from its
  receipt, byte for byte; in the DOM Chromium built, the verdict fails,
  the secret read is the first finding, and every process the log shows
  (its exec and fork events) is a row of the tree, under its parent.
- A cmake build (test_workloads' CMakeBuild), reported from its log: every
  process of its table is a row or counted in an "and N more" row.
- A sidecar job with three steps between start and stop: one lane per
  step, named after it, its processes in it.
- As users run it: under sudo, the page is the invoking user's; bad input
  is one line starting "footprint:" and exit 2.

Each page's screenshot is kept under build/test-artifacts/html.
"""

import json
import os
import pwd
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import html_dom  # noqa: E402
import sudo_util as su  # noqa: E402
import verdict_util as vu  # noqa: E402
import workload_util as wu  # noqa: E402
from test_sidecar_job import Runner  # noqa: E402
from test_workloads import CMakeBuild  # noqa: E402

FOOTPRINT = vu.FOOTPRINT
JOB = ('mkdir -p d && echo x > d/a && sh -c "touch b; cat d/a >/dev/null" '
       '&& echo y > "$OUTSIDE/w" && cat "$HOME/.ssh/id_ed25519" >/dev/null; '
       'sleep 0.05 & wait')


def report(*args, env=None):
    p = subprocess.run([FOOTPRINT, "report"] + list(args), env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def events(log, kind):
    p = subprocess.run([FOOTPRINT, "events", "--type", kind, log],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60, check=True)
    return [json.loads(line) for line in p.stdout.splitlines()]


def proc_rows(dom):
    return [r for r in dom.find("section", id="processes").find_all(
        "div", cls="p") if "data-id" in r.attrs]


def counted_out(dom):
    """processes the tree counts in its "and N more" rows"""
    return sum(int(r.text().split()[1]) for r in dom.find(
        "section", id="processes").find_all("div", cls="more"))


class HtmlReportTest(unittest.TestCase):
    def page(self, out_dir, name, source):
        """footprint report --html of source, its DOM, and a screenshot"""
        page = os.path.join(out_dir, name + ".html")
        rc, _, err = report("--html", page, source)
        self.assertEqual(rc, 0, err)
        with open(page, "rb") as f:
            raw = f.read()
        self.assertNotIn(b"<script", raw)
        self.assertNotIn(b"http://", raw)
        self.assertNotIn(b"https://", raw)
        dom, _ = html_dom.dump_dom(page)
        html_dom.screenshot(page, os.path.join(html_dom.artifact_dir(),
                                               name + ".png"))
        return raw, dom

    def test_small_run(self):
        html_dom.need_chromium()
        env = vu.Env(self)
        root = env.root()
        outside = env.root("outside")
        home = env.root("home", {".ssh/id_ed25519":
                                 "-----BEGIN OPENSSH PRIVATE KEY-----\n"})
        e = dict(os.environ, HOME=home, OUTSIDE=outside)
        res = env.run(["sh", "-c", JOB], roots=[root], env=e, cwd=root)
        self.assertEqual(res.rc, vu.EXIT_VERDICT, res.describe())
        log = os.path.join(env.out, "record-%d.fplog" % env.n)
        from_log, dom = self.page(env.out, "small-run", log)
        from_receipt, _ = self.page(env.out, "small-run-receipt",
                                    res.receipt_path)
        self.assertEqual(from_log, from_receipt)
        verdict = dom.by_id("verdict")
        self.assertEqual(verdict.attrs["data-ok"], "false")
        self.assertEqual(verdict.find("span", cls="badge").text(), "FAILED")
        first = dom.find("li", cls="finding")
        self.assertEqual(first.attrs["data-sev"], "critical")
        self.assertEqual(first.attrs["data-list"], "files.read")
        self.assertIn(os.path.join(home, ".ssh/id_ed25519"), first.text())
        sevs = [li.attrs["data-sev"] for li in dom.find_all("li",
                                                            cls="finding")]
        order = ["critical", "high", "medium", "low"]
        self.assertEqual(sevs, sorted(sevs, key=order.index))
        self.assertIn("high", sevs)  # the write outside the root
        # the page fails what the receipt fails, at the same severities
        chips = {a.attrs["data-sev"]: int(a.attrs["data-count"])
                 for a in dom.find_all("a", cls="chip")}
        self.assertEqual(chips, {k: res.r["by_severity"].get(k, 0)
                                 for k in order})
        # every process, under its parent
        table = res.r["process_table"]
        rows = proc_rows(dom)
        self.assertEqual(sorted(int(r.attrs["data-id"]) for r in rows),
                         [p["id"] for p in table])
        pids = {ev["pid"] for kind in ("exec", "fork")
                for ev in events(log, kind)}
        self.assertEqual({int(r.attrs["data-pid"]) for r in rows}, pids)
        depth = {}
        for r in rows:
            i, parent = int(r.attrs["data-id"]), int(r.attrs["data-parent"])
            self.assertEqual(parent, -1 if table[i]["parent"] is None
                             else table[i]["parent"])
            depth[i] = 0 if parent < 0 else depth[parent] + 1
            self.assertEqual(int(r.attrs["data-depth"]), depth[i])
        cat = [r for r in rows if table[int(r.attrs["data-id"])]["argv"][:2]
               == ["cat", os.path.join(home, ".ssh/id_ed25519")]]
        self.assertEqual(len(cat), 1, [r.text() for r in rows])
        self.assertIn("sev-critical", cat[0].classes)

    def test_cmake_build(self):
        html_dom.need_chromium()
        wu.need_tools(*CMakeBuild.tools)
        job = wu.Job(self, CMakeBuild())
        r = job.run("html")
        self.assertIn(r.rc, (wu.EXIT_OK, wu.EXIT_VERDICT), r.describe())
        _, dom = self.page(job.out, "cmake-build", r.log)
        self.assertEqual(dom.by_id("verdict").attrs["data-ok"],
                         "true" if r.r["ok"] else "false")
        chips = {a.attrs["data-sev"]: int(a.attrs["data-count"])
                 for a in dom.find_all("a", cls="chip")}
        self.assertEqual(chips, r.r["by_severity"])
        table = r.r["process_table"]
        self.assertGreater(len(table), 20)
        rows = proc_rows(dom)
        self.assertEqual(len(rows) + counted_out(dom), len(table))
        names = {r.find("span", cls="n").text().split()[0] for r in rows}
        for exe in ("cmake", "make", "cc1", "x86_64-linux-gnu-ld"):
            self.assertTrue(any(n.startswith(exe) for n in names),
                            (exe, sorted(names)))

    def test_sidecar_three_steps(self):
        html_dom.need_chromium()
        r = Runner(self)
        start = ('"$FP" sidecar start --state "$STATE" --root "$WS" '
                 '--cgroup "$CONTAINER"')
        stop = ('"$FP" sidecar stop --state "$STATE" '
                '--receipt "$OUT/receipt.json" --quiet')
        steps = [["start", start],
                 ["build", "mkdir -p out && echo o > out/app && "
                           "sh -c 'cat out/app >/dev/null'"],
                 ["write-outside", 'echo x > "$OUTSIDE/written"'],
                 ["test", "test -s out/app && ls out >/dev/null"],
                 ["stop", stop]]
        p, codes = r.run(steps)
        self.assertEqual(codes.get("start"), 0, p.stderr)
        doc = r.receipt()
        _, dom = self.page(r.out, "sidecar-job",
                           os.path.join(r.out, "receipt.json"))
        lanes = {s.attrs["data-step"]: s
                 for s in dom.find_all("section", cls="lane")}
        table = doc["process_table"]
        for step in doc["steps"]:
            if step["name"] not in ("build", "write-outside", "test"):
                continue
            lane = lanes[str(step["index"])]
            self.assertIn(step["name"], lane.find("h3").text())
            mine = sorted(p["id"] for p in table
                          if p["step"] == step["index"])
            self.assertTrue(mine, step)
            self.assertEqual(sorted(int(x.attrs["data-id"]) for x in
                                    lane.find_all("div", cls="p")
                                    if "data-id" in x.attrs), mine)
        chips = {a.attrs["data-sev"]: int(a.attrs["data-count"])
                 for a in dom.find_all("a", cls="chip")}
        self.assertEqual(chips, {k: doc["by_severity"].get(k, 0)
                                 for k in chips})
        outside = lanes[str([s["index"] for s in doc["steps"]
                             if s["name"] == "write-outside"][0])]
        self.assertIn("failing", outside.classes)

    def test_as_the_invoking_user_and_bad_input(self):
        env = vu.Env(self)
        pw = su.nobody()
        os.chmod(env.base, 0o755)
        os.chmod(env.out, 0o777)
        receipt = os.path.join(env.out, "r.json")
        with open(os.path.join(vu.TOP, "tests", "data",
                               "changes.receipt.json"), "rb") as f:
            data = f.read()
        with open(receipt, "wb") as f:
            f.write(data)
        os.chmod(receipt, 0o644)
        page = os.path.join(env.out, "p.html")
        rc, _, err = report("--html", page, receipt, env=su.sudo_env(pw))
        self.assertEqual(rc, 0, err)
        self.assertEqual(os.stat(page).st_uid, pw.pw_uid)
        # the user cannot read it: neither can footprint on their behalf
        os.chmod(receipt, 0o600)
        rc, _, err = report("--html", page + "2", receipt,
                            env=su.sudo_env(pw))
        self.assertEqual((rc, err.startswith("footprint: ")), (2, True), err)
        self.assertIn("Permission denied", err)
        self.assertFalse(os.path.exists(page + "2"))
        # to stdout, and from stdin
        p = subprocess.run([FOOTPRINT, "report", "--html", "-", "-"],
                           input=data, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith(b"<!DOCTYPE html>"))
        bad = os.path.join(env.out, "bad.txt")
        with open(bad, "w") as f:
            f.write("hello\n")
        for args, msg in (
                ([receipt], "--html FILE"),
                (["--html", page], "exactly one"),
                (["--html", page, bad], "neither a receipt nor a footprint "
                                        "log"),
                (["--html", page, os.path.join(env.out, "none")],
                 "No such file"),
                (["--html", page, "--bogus", receipt], "--bogus")):
            with self.subTest(args=args):
                rc, out, err = report(*args)
                self.assertEqual(rc, 2, err)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertTrue(err.startswith("footprint: "), err)
                self.assertIn(msg, err)
        with open(os.path.join(vu.TOP, "tests", "data", "clean.fplog"),
                  "rb") as f:
            p = subprocess.run([FOOTPRINT, "report", "--html", page, "-"],
                               stdin=f, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"give its path", p.stderr)
        rc, out, _ = report("--help")
        self.assertEqual(rc, 0)
        self.assertIn(b"Examples:", out)


if __name__ == "__main__":
    unittest.main()
