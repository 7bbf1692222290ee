"""Headless Chromium for the HTML report's tests (test_html_*.py): load a
page from a file, take the DOM Chromium built from it (--dump-dom) and a
screenshot, and walk that DOM. Nothing is mocked: the DOM is the one the
browser made, parsed back with the standard library's HTML parser.

Environment: FOOTPRINT_REQUIRE_BPF=1 makes a missing chromium a failure
(scripts/install-deps installs it), else the tests are skipped.
"""

import html.parser
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REQUIRE = os.environ.get("FOOTPRINT_REQUIRE_BPF") == "1"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}


def need_chromium():
    if CHROMIUM:
        return
    why = "chromium is not installed (scripts/install-deps installs it)"
    if REQUIRE:
        raise AssertionError(why)
    raise unittest.SkipTest(why)


def _run(args, timeout=120):
    need_chromium()
    with tempfile.TemporaryDirectory(prefix="fp-chromium-") as home:
        argv = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--user-data-dir=" + home] + args
        env = dict(os.environ, HOME=home)
        t0 = time.monotonic()
        p = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        took = time.monotonic() - t0
    if p.returncode != 0:
        raise AssertionError("chromium failed (rc %d): %s" % (
            p.returncode, p.stderr.decode("utf-8", "replace")[-2000:]))
    return p.stdout, took


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag = tag
        self.attrs = dict(attrs)
        self.parent = parent
        self.children = []  # Nodes and str

    @property
    def classes(self):
        return (self.attrs.get("class") or "").split()

    def text(self):
        return "".join(c if isinstance(c, str) else c.text()
                       for c in self.children)

    def walk(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.walk()

    def find_all(self, tag=None, cls=None, **attrs):
        return [n for n in self.walk()
                if (tag is None or n.tag == tag) and
                (cls is None or cls in n.classes) and
                all(n.attrs.get(k.replace("_", "-")) == v
                    for k, v in attrs.items())]

    def find(self, tag=None, cls=None, **attrs):
        got = self.find_all(tag, cls, **attrs)
        return got[0] if got else None

    def by_id(self, ident):
        return self.find(id=ident)


class _Builder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(text):
    b = _Builder()
    b.feed(text)
    b.close()
    return b.root


def dump_dom(path):
    """(the DOM Chromium built from the file at path, seconds it took)"""
    out, took = _run(["--dump-dom", "file://" + os.path.abspath(path)])
    return parse(out.decode("utf-8")), took


def layout_ms(path, work_dir):
    """Milliseconds from navigation to the page parsed, styled and laid
    out, as Chromium's performance.now() says at its load event (layout
    forced). Measured on a copy of the page with a script added (the
    page itself has none, and its CSP would forbid it)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "",
                  text)
    text = text.replace(
        "</body>", '<script>addEventListener("load", () => { '
        "document.body.offsetHeight; document.title = 'T=' + "
        "performance.now().toFixed(0); });</script></body>")
    copy = os.path.join(work_dir, "timed.html")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text)
    out, _ = _run(["--dump-dom", "file://" + copy])
    m = re.search(rb"<title>T=(\d+)</title>", out)
    if not m:
        raise AssertionError("the timed page did not say its time")
    return int(m.group(1))


def screenshot(path, png, width=1280, height=2400):
    os.makedirs(os.path.dirname(png), exist_ok=True)
    _run(["--screenshot=" + png, "--window-size=%d,%d" % (width, height),
          "--hide-scrollbars", "file://" + os.path.abspath(path)])
    with open(png, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            raise AssertionError("chromium wrote no PNG at %s" % png)


def artifact_dir():
    """Where the screenshots are kept: beside the binary under test, in
    the build directory (build/test-artifacts/html)."""
    fp = os.environ.get("FOOTPRINT") or os.path.join(
        os.path.dirname(__file__), "..", "..", "build", "footprint")
    d = os.path.join(os.path.dirname(os.path.abspath(fp)), "test-artifacts",
                     "html")
    os.makedirs(d, exist_ok=True)
    return d
