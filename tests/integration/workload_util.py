"""Helpers for test_workloads.py: the real workloads (a cmake build, an
offline pip install, git, tar), each run by `footprint run` in its own
temp directory, and the checks made on what footprint says about them:
policy lines read back from receipts and policy files, a checker for path
components that look random, and a parser for `strace -ff -y` output,
the oracle the trace is compared with.

Environment:
  FOOTPRINT             the footprint binary (default: build/footprint)
  FOOTPRINT_REQUIRE_BPF 1: "cannot trace" (exit 125), and a tool a
                        workload needs but that is missing, are failures,
                        not skips (scripts/install-deps installs them all)
  FOOTPRINT_WORKLOAD_STATS 1: print one line per run to stderr (time,
                        summary lines, suggestions, findings)
"""

import codecs
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from fptest import cannot_test, need_tools  # noqa: F401

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FOOTPRINT = os.path.abspath(os.environ.get("FOOTPRINT") or
                            os.path.join(TOP, "build", "footprint"))
REQUIRE_BPF = os.environ.get("FOOTPRINT_REQUIRE_BPF") == "1"
STATS = os.environ.get("FOOTPRINT_WORKLOAD_STATS") == "1"
PY = "/usr/bin/python3"
SYS_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_NOTRACE = 125


def need_python_modules(*mods):
    """Each module importable by /usr/bin/python3 (one process per module:
    setuptools refuses to load after pip has imported distutils)."""
    for mod in mods:
        p = subprocess.run([PY, "-c", "import " + mod],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=clean_env("/"))
        if p.returncode != 0:
            cannot_test("python3 module %s is missing; run "
                        "scripts/install-deps (python3-%s)" % (mod, mod))


def clean_env(home, **extra):
    """What a CI job would see, and nothing of the caller's: no PIP_*,
    no TMPDIR (so the tools' temp files land in /tmp, as they do in CI),
    no user or system git configuration."""
    env = {"PATH": SYS_PATH, "HOME": home, "LC_ALL": "C", "LANG": "C",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "fp",
           "GIT_AUTHOR_EMAIL": "fp@example.invalid",
           "GIT_COMMITTER_NAME": "fp",
           "GIT_COMMITTER_EMAIL": "fp@example.invalid"}
    env.update(extra)
    return env


def write_tree(root, tree):
    """tree: {relative path: str content}."""
    for rel, content in sorted(tree.items()):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)


# ---- policy lines -------------------------------------------------------

_ESC = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquote(tok):
    out, i = [], 1
    while i < len(tok) - 1:
        c = tok[i]
        if c == "\\" and tok[i + 1] == "x":
            out.append(chr(int(tok[i + 2:i + 4], 16)))
            i += 4
        elif c == "\\":
            out.append(_ESC.get(tok[i + 1], tok[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_rule(line):
    """A policy line's words, quotes undone, up to a '#' outside quotes.
    [] for a blank or comment line."""
    words = re.findall(r'"(?:[^"\\]|\\.)*"|[^\s"#]+|#', line)
    out = []
    for w in words:
        if w == "#":
            break
        out.append(_unquote(w) if w.startswith('"') else w)
    return out


def parse_rule(line):
    """(kind, target, pattern) of a policy line, or None. target is
    "path", "process" or "bind"."""
    w = split_rule(line)
    if len(w) < 2 or w[0] not in ("allow", "forbid", "expect", "ignore"):
        return None
    if len(w) >= 3 and w[1] in ("process", "leftover", "exec", "bind"):
        return w[0], "bind" if w[1] == "bind" else "process", w[2]
    return w[0], "path", w[1]


def suggestion_lines(receipt):
    """The receipt's suggested policy lines. Each is a string (a policy
    line, perhaps with a trailing comment such as the number of findings
    it covers) or an object holding it under "rule"."""
    out = []
    for s in receipt.get("suggestions") or []:
        if isinstance(s, dict):
            s = s.get("rule") or s.get("line") or s.get("text") or ""
        out.append(s)
    return out


def policy_rules(text):
    """The rules of a policy file, as (kind, target, pattern)."""
    return [r for r in map(parse_rule, text.splitlines()) if r]


# ---- names that will never match again ----------------------------------

# words with digits in them that are names, not random
KNOWN_WORDS = ("x86_64", "x86-64", "aarch64", "i686", "amd64", "arm64",
               "utf8", "sha256", "sha512", "md5", "base64", "python3")


def _glob_free(comp):
    """comp without escaped characters, to look for glob characters."""
    return re.sub(r"\\.", "", comp)


def _digit_turns(tok):
    d = [c.isdigit() for c in tok]
    return sum(1 for a, b in zip(d, d[1:]) if a != b)


def random_part(comp):
    """Why a path component looks like a random temp name, or None.

    Tuned on every name the four workloads touch (their sources, build
    trees, git objects, pip's and gcc's temp files, the Python and
    library paths they read): the temp names are flagged, no other name
    is. A component holding a glob character is not checked: the rule
    no longer spells the random part."""
    if re.search(r"[*?\[]", _glob_free(comp)):
        return None
    if re.fullmatch(r"cc[A-Za-z0-9]{6}(\..*)?", comp):
        return "gcc's temp name: cc and 6 random characters"
    if re.fullmatch(r"pip-[a-z-]+-[a-z0-9_]{8}", comp):
        return "pip's temp directory"
    for tok in re.split(r"[-.]", comp):
        if re.fullmatch(r"tmp_?[A-Za-z0-9_]{5,}", tok) and \
                re.search(r"[0-9A-Z_]", tok[3:]):
            return "temp name %r" % tok
    for run in re.findall(r"[A-Za-z0-9]+", comp):
        if len(run) >= 5 and re.fullmatch(r"[0-9a-f]+", run) and \
                re.search(r"[0-9]", run) and re.search(r"[a-f]", run):
            return "hex digits %r" % run
        if re.fullmatch(r"[0-9]{9,}", run):
            return "a long number %r" % run
    for tok in re.split(r"[-.]", comp):
        for k in KNOWN_WORDS:
            tok = tok.replace(k, "_")
        if len(tok) < 6 or not re.search(r"[0-9]", tok):
            continue
        if re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", tok):
            return "digits and random case changes in %r" % tok
        upper = re.search(r"[A-Z]", tok)
        if _digit_turns(tok) >= (2 if upper else 3):
            return "letters and digits interleaved in %r" % tok
    return None


def random_names(rules, own_prefix):
    """[(pattern, component, why)] for each path rule naming a component
    that looks random. The part of an absolute pattern under own_prefix
    (the test's own temp directory, the same for every run of a job, as
    a CI workspace is) is checked; own_prefix itself is not."""
    found = []
    for kind, target, pat in rules:
        if target != "path":
            continue
        rest = pat
        if own_prefix and (pat + "/").startswith(own_prefix + "/"):
            rest = pat[len(own_prefix):]
        for comp in rest.split("/"):
            why = random_part(comp) if comp else None
            if why:
                found.append((pat, comp, why))
    return found


def literal_prefix(pattern, root):
    """The part of a path pattern before its first globbed component,
    absolute (a relative pattern is relative to root)."""
    if not pattern.startswith("/"):
        pattern = os.path.join(root, pattern)
    keep = []
    for comp in pattern.rstrip("/").split("/"):
        if re.search(r"[*?\[]", _glob_free(comp)):
            break
        keep.append(comp)
    return "/".join(keep) or "/"


def ancestors(paths):
    out = set()
    for p in paths:
        while p and p not in out:
            out.add(p)
            p = os.path.dirname(p) if p != "/" else ""
    return out


EVENT_PATH_FIELDS = ("path", "named_path", "old_path", "new_path", "exe")


def event_paths(events_file):
    """Every absolute path an events file names."""
    out = set()
    for ev in read_ndjson(events_file):
        for k in EVENT_PATH_FIELDS:
            v = ev.get(k)
            if isinstance(v, str) and v.startswith("/"):
                out.add(os.path.normpath(v))
    return out


def receipt_paths(receipt):
    """Every path of a file finding: what the after snapshot found,
    including files that came in inside a renamed directory and so
    were never named by an event."""
    out = set()
    for items in receipt["files"].values():
        if not isinstance(items, list):  # read_omitted: a count
            continue
        for x in items:
            if isinstance(x.get("path"), str):
                out.add(x["path"])
    return out


def read_ndjson(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return [json.loads(line) for line in f if line.strip()]


# ---- strace -ff -y, the oracle ------------------------------------------

_CALL = re.compile(r"^(\w+)\((.*)\)\s+=\s+(-?\d+)(?:<(.*?)>)?(?:\s.*)?$")
_ARG = re.compile(r'(AT_FDCWD|-?\d+)<([^>]*)>|"((?:[^"\\]|\\.)*)"')


def _c_unescape(s):
    return codecs.decode(s.encode("latin-1"), "unicode_escape")


def _paths(args):
    """Path arguments in order, each joined to the directory of the dirfd
    just before it (strace -y prints it); relative ones left relative."""
    out, base = [], None
    for fd, fdpath, string in _ARG.findall(args):
        if fd:
            base = fdpath
            continue
        s = _c_unescape(string)
        if not s.startswith("/") and base is not None:
            s = os.path.join(base, s)
        out.append(os.path.normpath(s) if s.startswith("/") else s)
        base = None
    return out


def strace_keys(prefix):
    """The execs, forks and successful creating opens, unlinks, renames
    and mkdirs in strace -ff -o PREFIX output, as keys comparable with
    footprint_keys(): (kind, tid, path...)."""
    keys = []
    d, base = os.path.split(prefix)
    for name in os.listdir(d):
        if not name.startswith(base + "."):
            continue
        tid = int(name[len(base) + 1:])
        with open(os.path.join(d, name), encoding="latin-1") as f:
            for line in f:
                key = _strace_key(tid, line.rstrip("\n"))
                if key:
                    keys.append(key)
    return keys


def strace_tids(prefix):
    d, base = os.path.split(prefix)
    return {int(n[len(base) + 1:]) for n in os.listdir(d)
            if n.startswith(base + ".")}


def _strace_key(tid, line):
    m = _CALL.match(line)
    if not m:
        return None
    name, args, ret, anno = m.group(1), m.group(2), int(m.group(3)), \
        m.group(4)
    if ret < 0:
        return None
    paths = _paths(args)
    if name in ("execve", "execveat"):
        return ("exec", tid, paths[0])
    if name in ("clone", "clone3", "fork", "vfork"):
        return None if "CLONE_THREAD" in args or ret == 0 else \
            ("fork", tid, ret)
    if name in ("open", "openat", "openat2", "creat"):
        if name == "creat" or "O_CREAT" in args:
            return ("creat", tid, os.path.normpath(anno) if anno
                    else paths[0])
        return None
    if name in ("unlink", "unlinkat", "rmdir"):
        return ("unlink", tid, paths[0])
    if name in ("rename", "renameat", "renameat2"):
        return ("rename", tid, paths[0], paths[1])
    if name in ("mkdir", "mkdirat"):
        return ("mkdir", tid, paths[0])
    return None


O_CREAT = 0o100


def footprint_keys(events, tids):
    """The same keys from footprint's events, for the threads in tids."""
    keys = []
    for ev in events:
        t = ev.get("type")
        tid = ev.get("tid")
        if t == "exec":
            tid = ev.get("old_pid", tid)
            key = ("exec", tid, ev["filename"])
        elif t == "fork":
            tid = ev.get("parent_tid")
            key = ("fork", tid, ev["pid"])
        elif not ev.get("ok"):
            continue
        elif t == "open" and (ev.get("flags", 0) & O_CREAT or
                              ev.get("syscall") == "creat"):
            key = ("creat", tid, ev["path"])
        elif t in ("unlink", "mkdir"):
            key = (t, tid, ev["path"])
        elif t == "rename":
            key = ("rename", tid, ev["old_path"], ev["new_path"])
        else:
            continue
        if tid in tids:
            keys.append(key)
    return keys


def _suffix_match(rel_key, key):
    if rel_key[:2] != key[:2] or len(rel_key) != len(key):
        return False
    for a, b in zip(rel_key[2:], key[2:]):
        if isinstance(a, int) or a.startswith("/"):
            if a != b:
                return False
        elif not str(b).endswith("/" + os.path.normpath(a)):
            return False
    return True


def match_one_for_one(want, got):
    """Pair strace keys (want) with footprint keys (got), one for one.
    A path strace printed relative (unlink("x"): no dirfd to resolve it
    by) pairs with the footprint path that ends with it. Returns the
    unpaired keys of each side."""
    w, g = collections.Counter(want), collections.Counter(got)
    common = w & g
    w -= common
    g -= common
    missing = []
    for key in sorted(w.elements(), key=repr):
        hit = next((k for k in g if g[k] and _suffix_match(key, k)), None)
        if hit is None:
            missing.append(key)
        else:
            g[hit] -= 1
    return missing, sorted((+g).elements(), key=repr)


# ---- one job, run several times -----------------------------------------

class Run:
    """One `footprint run` of a job and what came out of it."""

    def __init__(self, tag, argv, proc, elapsed, receipt, log, events):
        self.tag = tag
        self.argv = argv
        self.rc = proc.returncode
        self.stdout = proc.stdout.decode("utf-8", "replace")
        self.stderr = proc.stderr.decode("utf-8", "replace")
        self.elapsed = elapsed
        self.receipt_path = receipt
        self.log = log
        self.events = events
        self.r = None
        if os.path.exists(receipt):
            with open(receipt, encoding="utf-8") as f:
                self.r = json.load(f)

    @property
    def summary(self):
        """footprint's summary: from its verdict line to the end of
        stderr (the job's own output comes before it)."""
        lines = self.stderr.splitlines()
        for i, line in enumerate(lines):
            if re.match(r"footprint: (\S+ )?(ok|FAIL)\b", line):
                return lines[i:]
        return []

    @property
    def suggestions(self):
        return suggestion_lines(self.r) if self.r else []

    def findings(self):
        if not self.r:
            return 0
        return sum(len(v) for v in self.r["files"].values()) + \
            sum(len(v) for v in self.r["network"].values()) + \
            len(self.r["processes"].get("leftover", []))

    def describe(self, lines=60):
        err = self.stderr.splitlines()
        if len(err) > lines:
            err = err[:lines // 2] + ["... (%d lines)" % len(err)] + \
                err[-lines // 2:]
        return "run %s: %r\nrc=%s elapsed=%.1fs\nstderr:\n  %s" % (
            self.tag, self.argv, self.rc, self.elapsed, "\n  ".join(err))


class Job:
    """A workload in a temp directory of its own. Every run starts from a
    fresh copy of the workload at the same path (base/ws), as the same CI
    job does in its workspace, with HOME at base/home (outside the
    watched tree) and footprint's outputs in base/out."""

    def __init__(self, test, workload):
        self.test = test
        self.wl = workload
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="fpwl-",
                                                      dir="/tmp"))
        test.addCleanup(shutil.rmtree, self.base, True)
        self.ws = os.path.join(self.base, "ws")
        self.home = os.path.join(self.base, "home")
        self.out = os.path.join(self.base, "out")
        os.mkdir(self.home)
        os.mkdir(self.out)
        self.env = clean_env(self.home)

    def out_path(self, name):
        return os.path.join(self.out, name)

    def fresh_ws(self):
        shutil.rmtree(self.ws, ignore_errors=True)
        os.mkdir(self.ws)
        self.wl.setup(self.ws)

    def run(self, tag, wrapper=(), opts=()):
        """footprint run --root WS --record --receipt --events -- JOB."""
        if not os.access(FOOTPRINT, os.X_OK):
            cannot_test("%s is not built; run scripts/build" % FOOTPRINT)
        self.fresh_ws()
        receipt = self.out_path("receipt-%s.json" % tag)
        log = self.out_path("run-%s.fplog" % tag)
        events = self.out_path("events-%s.ndjson" % tag)
        argv = [FOOTPRINT, "run", "--root", self.ws, "--timeout", "120s",
                "--record", log, "--receipt", receipt, "--events",
                events] + list(opts) + ["--"] + list(wrapper) + \
            list(self.wl.argv(self.ws))
        t0 = time.monotonic()
        p = subprocess.run(argv, cwd=self.ws, env=self.env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=180)
        r = Run(tag, argv, p, time.monotonic() - t0, receipt, log, events)
        if r.rc == EXIT_NOTRACE:
            cannot_test("footprint cannot trace (exit 125): %s" %
                        r.stderr.strip())
        if STATS:
            sys.stderr.write(
                "\n  [%s run %s: %.2fs, summary %d lines, %d suggestions, "
                "%d findings]" % (self.wl.name, tag, r.elapsed,
                                  len(r.summary), len(r.suggestions),
                                  r.findings()))
        return r

    def footprint(self, *args, timeout=120):
        """footprint replay / policy ...: (rc, stdout + stderr)."""
        p = subprocess.run([FOOTPRINT] + list(args), env=self.env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace")

    def write_policy(self, name, lines):
        path = self.out_path(name)
        with open(path, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        return path
