"""The HTML report stays small and quick on a long job: a synthetic receipt
the size of a 400,000-event sidecar job (30,000 processes in three steps,
120,000 files in 4,000 directories, 60,000 reads, 3,000 destinations)
gives a page under 5 MiB that Chromium loads, with the bounded rows the
page promises ("and N more"), and hostile names escaped. Chromium's load
time (from navigation to the page laid out, three times) is printed with
FOOTPRINT_HTML_TIMING=1, not asserted: timings are never tests here; the
DOM's size, which is what makes a page slow, is asserted instead.
"""

import base64
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import html_dom  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FOOTPRINT = os.environ.get("FOOTPRINT") or os.path.join(TOP, "build",
                                                        "footprint")
MAX_PAGE = 5 * 1024 * 1024
# the page's bounds (user/report/html_int.h): what it may show at most
PROC_ROWS = 2500
FILE_ROWS = 3000


def actor(i, step=None):
    a = {"pid": 1000 + i, "ppid": 999 + i, "exe": "/usr/bin/cc1",
         "proc": i}
    if step:
        a["step"] = "step-%d" % step
        a["step_index"] = step
    return a


def synthetic(nprocs=30000, ndirs=4000, per_dir=30, nreads=60000,
              ndest=3000):
    steps = [{"index": i, "name": "step-%d" % i, "named_by": "action",
              "first_pid": 1000 + i, "started_ns": i, "findings": {},
              "failing": 0, "ok": True} for i in (1, 2, 3)]
    procs = []
    for i in range(nprocs):
        step = 1 + i * 3 // nprocs
        # a tree: each step's first process, its children, their children
        first = (step - 1) * nprocs // 3
        parent = None if i == first else (
            first if i < first + 50 else first + 1 + (i % 49))
        procs.append({"id": i, "pid": 1000 + i, "ppid": 999,
                      "parent": parent, "exe": "/usr/bin/cc1",
                      "argv": ["cc1", "-o", "f%d.o" % i],
                      "start_us": i * 100, "end_us": i * 100 + 5000,
                      "exit_code": 0, "signal": None, "step": step})
    added = []
    for d in range(ndirs):
        for f in range(per_dir):
            i = (d * per_dir + f) % nprocs
            added.append({"path": "/ws/build/d%05d/f%03d.o" % (d, f),
                          "allowed": d % 7 != 0, "explained": True,
                          "before": None, "after": None,
                          "by": actor(i, 1 + i * 3 // nprocs)})
    reads = [{"path": "/usr/include/h%06d.h" % i, "secret": None,
              "read": True, "failing": False, "by": actor(i % nprocs)}
             for i in range(nreads)]
    reads.append({"path": "/root/.ssh/id_rsa", "secret": "ssh_key",
                  "read": True, "failing": True, "by": actor(5)})
    conns = [{"pid": 1000 + i, "ppid": 999, "exe": "/usr/bin/curl",
              "argv": ["curl"], "via": "connect", "family": "inet",
              "address": "10.%d.%d.1" % (i // 250, i % 250), "port": 443,
              "protocol": "tcp", "names": ["h%d.example" % i],
              "count": 3, "ok": True, "loopback": False,
              "allowed": False, "failing": True} for i in range(ndest)]
    # written outside the roots (high): its directory is shown first
    hostile = {"path": "/tmp/<img src=x onerror=alert(1)>\u202e.txt",
               "path_b64": "%s",
               "allowed": False, "ops": ["open"], "by": actor(7, 1)}
    hostile["path_b64"] %= base64.b64encode(
        b"/tmp/<img src=x onerror=alert(1)>\xe2\x80\xae\xff.txt").decode()
    return {
        "format": 2, "ok": False,
        "reasons": ["files.read: /root/.ssh/id_rsa"] * 500,
        "command": {"argv": ["footprint-sidecar-job"], "exit_code": 0,
                    "signal": None, "timed_out": False,
                    "interrupted": False, "duration_ms": nprocs // 10},
        "trace": {"events": 400000, "opens_collapsed": 0, "lost": 0,
                  "complete": True},
        "roots": ["/ws"], "mode": "sidecar",
        "provenance": {"footprint": "test", "host": "h", "kernel": "k",
                       "user": "u", "uid": 0, "started": "now",
                       "ended": "later"},
        "files": {"added": added, "removed": [], "changed": [],
                  "transient": [], "outside_roots": [hostile], "unexplained": [],
                  "unreadable": [], "cut": [], "magic_link": [],
                  "read": reads},
        "processes": {"executed": [], "short_lived": [], "leftover": [],
                      "new_outside": [], "disappeared": [],
                      "privileged": []},
        "network": {"bound": [], "listening": [], "connected": conns,
                    "accepted": [], "dns": []},
        "tamper": [], "steps": steps, "process_table": procs,
        "process_table_omitted": 0, "expected": [], "suggestions": [],
    }


class HtmlScaleTest(unittest.TestCase):
    def test_big_job_page_is_bounded(self):
        html_dom.need_chromium()
        with tempfile.TemporaryDirectory(prefix="fp-html-scale-") as d:
            rpath = os.path.join(d, "receipt.json")
            page = os.path.join(d, "job.html")
            with open(rpath, "w") as f:
                json.dump(synthetic(), f)
            p = subprocess.run([FOOTPRINT, "report", "--html", page, rpath],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            size = os.path.getsize(page)
            self.assertLess(size, MAX_PAGE)
            dom, took = html_dom.dump_dom(page)
            if os.environ.get("FOOTPRINT_HTML_TIMING") == "1":
                ms = [html_dom.layout_ms(page, d) for _ in range(3)]
                sys.stderr.write("\n  [receipt %d bytes, page %d bytes, "
                                 "chromium --dump-dom %.2fs, laid out in "
                                 "%s ms]" % (os.path.getsize(rpath), size,
                                             took, ms))
            html_dom.screenshot(page, os.path.join(
                html_dom.artifact_dir(), "scale.png"))
        rows = dom.find_all("div", cls="p")
        procs = [r for r in rows if "data-id" in r.attrs]
        self.assertLessEqual(len(procs), PROC_ROWS)
        self.assertGreater(len(procs), 100)
        # what is left out is counted, to the process
        more = sum(int(r.text().split()[1]) for r in rows
                   if "more" in r.classes and "axis" not in r.classes)
        self.assertEqual(len(procs) + more, 30000)
        # the failing finding (critical: a secret read) comes first
        first = dom.find("li", cls="finding")
        self.assertEqual(first.attrs["data-sev"], "critical")
        self.assertIn("id_rsa", first.text())
        # three lanes, one per step
        lanes = [s.attrs["data-step"] for s in dom.find_all("section",
                                                            cls="lane")]
        self.assertEqual(lanes, ["1", "2", "3"])
        files = [li for li in dom.find("section", id="files").find_all("li")
                 if "more" not in li.classes]
        self.assertLessEqual(len(files), FILE_ROWS)
        self.assertLess(sum(1 for _ in dom.walk()), 60000)
        # the hostile name: text, never markup; its bytes shown
        self.assertEqual(dom.find_all("script") + dom.find_all("img"), [])
        # directories by their worst finding: the secret's, then /tmp/
        dirs = dom.find("section", id="files").find_all("details")
        self.assertEqual([d.find("code").text() for d in dirs[:2]],
                         ["/root/.ssh/", "/tmp/"])
        self.assertEqual(dirs[1].attrs["class"], "dir sev-high")
        self.assertIn("<img src=x onerror=alert(1)>\\u{202e}\\xff.txt",
                      dirs[1].find("li").text())
        more = dom.find("section", id="network").find("p", cls="more")
        self.assertEqual(more.text(), "and 2800 more destinations")


if __name__ == "__main__":
    unittest.main()
