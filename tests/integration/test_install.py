"""footprint installed like a tool (issue 32): --version, the man pages,
the bash completion and `cmake --install`.

The man pages and the completion must not drift from the options: every
option each `--help` lists is in that command's man page, and the
completion (made from the parsers' option tables) offers exactly the
options `--help` lists, checked with real bash. None of this needs root
or BPF.

Environment: FOOTPRINT (the built binary) and FOOTPRINT_BUILD_DIR (its
build directory: man/ and completion/ are there; default: the binary's
directory).
"""

import glob
import gzip
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from fptest import FOOTPRINT, TOP

BUILD = os.path.abspath(os.environ.get("FOOTPRINT_BUILD_DIR")
                        or os.path.dirname(FOOTPRINT))
MAN_DIR = os.path.join(BUILD, "man")
COMPLETION = os.path.join(BUILD, "completion", "footprint")
BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"


def fp(*args):
    r = subprocess.run([FOOTPRINT, *args], capture_output=True, text=True,
                       timeout=60)
    return r


def help_text(words):
    r = fp(*words, "--help")
    if r.returncode != 0:
        raise AssertionError("footprint %s --help exited %d: %s" %
                             (" ".join(words), r.returncode, r.stderr))
    return r.stdout


OPT = re.compile(r"(?<![\w/.-])(--?[A-Za-z][\w-]*)")


def help_options(text, usage=True):
    """The options a --help lists: on its option lines (first non-blank
    character a '-') and, with usage, in its Usage: lines."""
    found = set()
    in_usage = False
    for line in text.split("\n"):
        if line.startswith("Usage:"):
            in_usage = True
        elif not line.strip():
            in_usage = False
        if (usage and in_usage) or re.match(r"^\s+-", line):
            found |= set(OPT.findall(line))
    return found


def commands():
    """The commands `footprint --help` lists."""
    text = help_text([])
    block = text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.split("\n") if line.strip()]


def man_text(page):
    """A man page's text, roff escapes taken out (\\fB, \\-, \\&, ...)."""
    path = os.path.join(MAN_DIR, page)
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        with gzip.open(path + ".gz", "rt") as f:
            roff = f.read()
    else:
        with open(path) as f:
            roff = f.read()
    roff = re.sub(r"\\f(\[[^]]*\]|\(..|.)", "", roff)
    roff = roff.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
    return roff


def completion_tables():
    """{"run": [...], "shape_diff": [...]}: the options the completion
    script offers per command, from its data lines."""
    with open(COMPLETION) as f:
        script = f.read()
    return {m.group(1): m.group(2).split() for m in re.finditer(
        r"^_footprint_(\w+)_opts='([^']*)'$", script, re.M)}


class Version(unittest.TestCase):
    def test_version_commit_libbpf(self):
        r = fp("--version")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        lines = r.stdout.split("\n")
        self.assertEqual(len(lines), 4, r.stdout)  # three and the last \n
        self.assertEqual(lines[3], "")
        m = re.fullmatch(r"footprint (\S+)", lines[0])
        self.assertTrue(m, lines[0])
        version = m.group(1)
        m = re.fullmatch(r"commit (\S+)", lines[1])
        self.assertTrue(m, lines[1])
        commit = m.group(1)
        # a valid Debian version once scripts/package has made "-" "~"
        self.assertEqual(subprocess.run(
            ["dpkg", "--validate-version", version.replace("-", "~")]
            ).returncode, 0, version)
        if os.path.exists(os.path.join(TOP, ".git")):
            head = subprocess.run(["git", "-C", TOP, "rev-parse", "HEAD"],
                                  capture_output=True, text=True,
                                  check=True).stdout.strip()
            self.assertEqual(commit, head)
            with open(os.path.join(TOP, "CMakeLists.txt")) as f:
                base = re.search(r"project\(footprint VERSION (\S+)",
                                 f.read()).group(1)
            tag = subprocess.run(
                ["git", "-C", TOP, "describe", "--tags", "--exact-match",
                 "--match", "v[0-9]*"], capture_output=True, text=True)
            want = (tag.stdout.strip()[1:] if tag.returncode == 0 else
                    "%s+g%s" % (base, head[:12]))
            self.assertIn(version, (want, want + ".dirty"))
        # the libbpf it runs with: the one the loader finds for it
        ldd = subprocess.run(["ldd", FOOTPRINT], capture_output=True,
                             text=True, check=True).stdout
        so = re.search(r"libbpf\.so\.\S+ => (\S+)", ldd).group(1)
        real = os.path.basename(os.path.realpath(so))
        major, minor = re.match(r"libbpf\.so\.(\d+)\.(\d+)", real).groups()
        self.assertRegex(lines[2], r"^libbpf v?%s\.%s(\.\d+)?$" %
                         (major, minor))

    def test_short_option_is_the_same(self):
        self.assertEqual(fp("-V").stdout, fp("--version").stdout)


class ManPages(unittest.TestCase):
    """Every option of every --help is in the man page of its command."""

    def pages(self):
        """(words, page): footprint itself, each command, and each verb
        with options of its own (shape diff), from the completion's
        tables, which are the parsers'."""
        out = [([], "footprint.1")]
        for c in commands():
            out.append(([c], "footprint-%s.1" % c))
        for name in completion_tables():
            if "_" in name:
                cmd, verb = name.split("_", 1)
                out.append(([cmd, verb], "footprint-%s.1" % cmd))
        return out

    def test_every_command_has_a_page(self):
        missing = [page for _, page in self.pages()
                   if not os.path.exists(os.path.join(MAN_DIR, page))]
        self.assertEqual(missing, [], "no man page in %s; write man/PAGE.scd"
                         % MAN_DIR)

    def test_every_help_option_is_in_the_man_page(self):
        missing = []
        for words, page in self.pages():
            text = man_text(page)
            have = set(OPT.findall(text))
            for opt in sorted(help_options(help_text(words))):
                if opt not in have:
                    missing.append(
                        "man/%s.scd lacks %s, which `footprint%s --help` "
                        "lists" % (page, opt,
                                   "".join(" " + w for w in words)))
        self.assertEqual(missing, [], "\n" + "\n".join(missing))

    def test_pages_render_without_warnings(self):
        if not shutil.which("man"):
            self.skipTest("man (man-db) is not installed")
        pages = sorted(glob.glob(os.path.join(MAN_DIR, "*.1")))
        self.assertTrue(pages, "no man page in " + MAN_DIR)
        for path in pages:
            r = subprocess.run(
                ["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z",
                 path], capture_output=True, text=True,
                env={**os.environ, "MANWIDTH": "80", "LC_ALL": "C.UTF-8"})
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr, "", path)


def complete(words, cwd=None, loader=False, prefix=None):
    """What bash offers for the last of words (the one being typed), as
    readline would ask the completion function; sorted, deduplicated."""
    script = ('source "$1" || exit 3; declare -F _footprint >/dev/null || '
              'exit 4; shift; COMP_WORDS=("$@"); '
              'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); '
              'COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); '
              '_footprint footprint "${COMP_WORDS[COMP_CWORD]}" '
              '"${COMP_WORDS[COMP_CWORD-1]}"; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", script,
                        "complete", COMPLETION, "footprint", *words],
                       capture_output=True, text=True, cwd=cwd, timeout=30)
    if r.returncode != 0:
        raise AssertionError("bash: %s" % r.stderr)
    return sorted({x for x in r.stdout.split("\n") if x})


class Completion(unittest.TestCase):
    def test_registered_for_footprint(self):
        r = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                            'source "$1" && complete -p footprint', "x",
                            COMPLETION], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "complete -F _footprint footprint\n")

    def test_the_build_made_it_from_this_binary(self):
        with open(COMPLETION) as f:
            self.assertEqual(f.read(), fp("completion", "bash").stdout)

    def test_commands(self):
        self.assertEqual(complete([""]),
                         sorted(commands() + ["--help", "--version"]))
        self.assertEqual(complete(["sh"]), ["shape"])

    def test_options_are_those_help_lists(self):
        """The completion offers what the parser takes (its tables);
        --help must list each, and each listed one must be offered."""
        problems = []
        tables = completion_tables()
        self.assertEqual(sorted(c for c in tables if "_" not in c),
                         sorted(commands()))
        for name, opts in sorted(tables.items()):
            words = name.split("_", 1)
            offered = complete(words + ["--"])
            self.assertEqual(offered, sorted(set(opts)), name)
            text = help_text(words)
            for o in offered:
                if o not in help_options(text):
                    problems.append("`footprint %s` takes %s, which its "
                                    "--help does not list" %
                                    (" ".join(words), o))
            for o in help_options(text, usage=False):
                if o.startswith("--") and o not in offered:
                    problems.append("`footprint %s --help` lists %s, which "
                                    "its option table lacks" %
                                    (" ".join(words), o))
        self.assertEqual(problems, [], "\n" + "\n".join(problems))

    def test_verbs(self):
        self.assertEqual(complete(["sidecar", ""]),
                         ["mark", "start", "status", "stop"])
        self.assertEqual(complete(["sidecar", "st"]),
                         ["start", "status", "stop"])
        self.assertEqual(complete(["policy", ""]),
                         ["check", "learn", "suggest"])
        self.assertEqual(complete(["completion", ""]), ["bash"])
        self.assertEqual(complete(["shape", ""]), ["diff"])
        # a verb with options of its own
        self.assertEqual(complete(["shape", "diff", "--"]),
                         ["--help", "--output", "--policy", "--quiet"])
        self.assertIn("--unit", complete(["shape", "--"]))
        # options may come before the verb
        self.assertEqual(complete(["sidecar", "--state", "/tmp", "mar"]),
                         ["mark"])

    def test_values(self):
        d = tempfile.mkdtemp(prefix="fpcomp-")
        self.addCleanup(shutil.rmtree, d)
        os.mkdir(os.path.join(d, "rdir"))
        open(os.path.join(d, "rfile"), "w").close()
        self.assertEqual(complete(["run", "--leftovers", ""]),
                         ["allow", "fail", "kill"])
        self.assertEqual(complete(["run", "--receipt", "r"], cwd=d),
                         ["rdir", "rfile"])
        self.assertEqual(complete(["run", "--root", "r"], cwd=d), ["rdir"])
        self.assertEqual(complete(["replay", "-q", "r"], cwd=d),
                         ["rdir", "rfile"])
        self.assertIn("root", complete(["run", "--user", "ro"]))
        # --opt=value: bash hands it over split at the =
        self.assertEqual(complete(["run", "--leftovers", "=", "k"]), ["kill"])
        self.assertEqual(complete(["run", "--leftovers", "="]),
                         ["allow", "fail", "kill"])
        self.assertEqual(complete(["run", "--root", "=", "r"], cwd=d),
                         ["rdir"])

    def test_run_command_and_its_words(self):
        d = tempfile.mkdtemp(prefix="fpcomp-")
        self.addCleanup(shutil.rmtree, d)
        open(os.path.join(d, "true-file"), "w").close()
        # the value of --receipt is a file, the word after it the command
        self.assertEqual(complete(["run", "--receipt", "tru"], cwd=d),
                         ["true-file"])
        cmd = complete(["run", "--receipt", "r.json", "-q", "tru"], cwd=d)
        self.assertIn("true", cmd)
        self.assertNotIn("true-file", cmd)
        self.assertIn("true", complete(["run", "--", "tru"], cwd=d))
        cmd = complete(["run", "--receipt", "=", "r.json", "tru"], cwd=d)
        self.assertIn("true", cmd)
        self.assertNotIn("true-file", cmd)
        # the command's own words are not footprint's options
        self.assertNotIn("--root", complete(["run", "true", "--ro"], cwd=d))
        self.assertNotIn("--root", complete(["run", "--", "ls", "--ro"]))
        self.assertEqual(complete(["run", "ls", "tr"], cwd=d), ["true-file"])

    def test_typed_words_are_never_run(self):
        d = tempfile.mkdtemp(prefix="fpcomp-")
        self.addCleanup(shutil.rmtree, d)
        mark = os.path.join(d, "ran")
        for w in ("$(touch %s)" % mark, "a[$(touch %s)]" % mark,
                  "`touch %s`" % mark):
            complete([w, ""])
            complete(["shape", w, "--"])
            complete(["run", w, ""])
            complete(["sidecar", w, "--"])
        self.assertFalse(os.path.exists(mark))

    def test_installed_file_is_found_by_bash_completion(self):
        """bash-completion loads share/bash-completion/completions/
        footprint from the prefix cmake --install used, on first use."""
        if not os.path.exists(BASH_COMPLETION):
            self.skipTest("bash-completion is not installed")
        prefix = cmake_install(self)
        r = subprocess.run(
            ["bash", "--norc", "--noprofile", "-c",
             'source "$1"; __load_completion footprint; complete -p footprint',
             "x", BASH_COMPLETION], capture_output=True, text=True,
            env={**os.environ,
                 "XDG_DATA_DIRS": os.path.join(prefix, "share"),
                 "BASH_COMPLETION_USER_DIR": os.path.join(prefix, "none")})
        self.assertEqual(r.stdout, "complete -F _footprint footprint\n",
                         r.stderr)


def cmake_install(test):
    prefix = tempfile.mkdtemp(prefix="fpinstall-")
    test.addCleanup(shutil.rmtree, prefix)
    r = subprocess.run(["cmake", "--install", BUILD, "--prefix", prefix],
                       capture_output=True, text=True, timeout=120)
    test.assertEqual(r.returncode, 0, r.stdout + r.stderr)
    return prefix


class CmakeInstall(unittest.TestCase):
    def test_the_usual_places(self):
        prefix = cmake_install(self)
        want = ["bin/footprint", "share/man/man1/footprint.1",
                "share/bash-completion/completions/footprint",
                "share/doc/footprint/README.md",
                "share/doc/footprint/docs/policy.md",
                "share/doc/footprint/docs/receipt.schema.json"]
        want += ["share/man/man1/footprint-%s.1" % c for c in commands()]
        missing = [w for w in want
                   if not os.path.isfile(os.path.join(prefix, w))]
        self.assertEqual(missing, [])
        binary = os.path.join(prefix, "bin", "footprint")
        self.assertTrue(os.access(binary, os.X_OK))
        r = subprocess.run([binary, "--version"], capture_output=True,
                           text=True)
        self.assertEqual(r.stdout, fp("--version").stdout)
        # README's links (docs/policy.md) hold where it is installed
        with open(os.path.join(prefix, "share/doc/footprint/README.md")) as f:
            for link in set(re.findall(r"\]\((docs/[^)#]+)", f.read())):
                self.assertTrue(os.path.exists(os.path.join(
                    prefix, "share/doc/footprint", link)), link)


if __name__ == "__main__":
    unittest.main()
