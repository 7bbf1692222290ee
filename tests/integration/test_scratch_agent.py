"""The scratch workflow of docs/scratch.md, run as written by a real user
who is not root, through the real sudo (issue 29, item 1): an agent that
edits its file in place gets its fix promoted, whichever way it edits.

The block is taken from docs/scratch.md and run unchanged by sh, as the
user, in a tree laid out as seed 003's stage 1 (job/, fixture/, out/),
with ~/.ssh and job/.env there for its --hide options. Only ./agent
differs between the tests.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_user  # noqa: E402
import sudo_util as su  # noqa: E402

BLOCK_START = "footprint lock --inputs job -o fixture/input.lock\n"
BROKEN = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST_CALC = "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"
README = "add is broken on purpose\n"

# what an agent does besides its edit: reads what --hide hides (each read
# fails with EACCES: not a finding that fails), and "improves" files
# nobody allowed (set aside by --skip-disallowed, never promoted)
PEEK = """
for p in (".env", os.path.expanduser("~/.ssh/id_rsa")):
    try:
        open(p).read()
    except OSError:
        pass
"""
SIDE_QUEST = """
open("extra.py", "w").write("print('side quest')\\n")
open("README.md", "w").write("# rewritten by the model, ignore me\\n")
"""

AGENTS = {
    "sed": "#!/bin/sh\nsed -i 's/a - b/a + b/' calc.py\n",
    "read_modify_write": "#!/usr/bin/python3\nimport os\n" + PEEK + """
with open("calc.py") as f:
    text = f.read()
with open("calc.py", "w") as f:
    f.write(text.replace("a - b", "a + b"))
""" + SIDE_QUEST,
    "temp_then_rename": "#!/usr/bin/python3\nimport os, tempfile\n" + PEEK +
    """
text = open("calc.py").read().replace("a - b", "a + b")
fd, tmp = tempfile.mkstemp(dir=".", prefix=".calc-")
with os.fdopen(fd, "w") as f:
    f.write(text)
os.chmod(tmp, 0o644)
os.replace(tmp, "calc.py")
""" + SIDE_QUEST,
}

USER = None


def setUpModule():
    global USER
    su.check_binary()
    USER = sudo_user.SudoUser("fpagent")


def tearDownModule():
    if USER is not None:
        USER.close()


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


class ScratchAgentTest(unittest.TestCase):
    def setUp(self):
        self.top = os.path.join(USER.home, "agent-scratch")
        shutil.rmtree(self.top, ignore_errors=True)
        self.job = os.path.join(self.top, "job")
        for rel, text in (("job/calc.py", BROKEN),
                          ("job/test_calc.py", TEST_CALC),
                          ("job/README.md", README),
                          ("job/.env", "TOKEN=secret\n"),
                          ("fixture/.keep", ""), ("out/.keep", "")):
            USER.write(os.path.join(self.top, rel), text)
        os.unlink(os.path.join(self.top, "fixture", ".keep"))
        os.unlink(os.path.join(self.top, "out", ".keep"))
        USER.write(os.path.join(USER.home, ".ssh", "id_rsa"),
                   "PRIVATE KEY\n", 0o600)
        os.chmod(os.path.join(USER.home, ".ssh"), 0o700)

    def workflow(self, agent):
        """docs/scratch.md's block with this ./agent: (exit status of its
        last command, promote; its output; the receipt; the lock)."""
        USER.write(os.path.join(self.job, "agent"), agent, 0o755)
        block = sudo_user.doc_block("docs/scratch.md", BLOCK_START)
        rc, out = USER.sh(block, cwd=self.top)
        r = lock = None
        rpath = os.path.join(self.top, "out", "r.json")
        if os.path.exists(rpath):
            with open(rpath) as f:
                r = json.load(f)
            self.assertEqual(su.schema_errors(r), [])
            self.addCleanup(shutil.rmtree, r["scratch"]["dir"], True)
        lpath = os.path.join(self.top, "fixture", "output.lock")
        if os.path.exists(lpath):
            with open(lpath) as f:
                lock = json.load(f)
        return rc, out, r, lock

    def check_promoted(self, rc, out, lock, skipped):
        self.assertEqual(rc, su.EXIT_OK, out)
        self.assertIn("footprint: promoted 1 locked changes into %s" %
                      self.job, out)
        with open(os.path.join(self.job, "calc.py")) as f:
            self.assertEqual(f.read(), FIXED, out)
        self.assertEqual(
            [(c["path"], c["op"], c["sha256"]) for c in lock["changes"]],
            [(os.path.join(self.job, "calc.py"), "changed", sha(FIXED))])
        self.assertEqual(sorted(lock["skipped"]),
                         [os.path.join(self.job, n) for n in skipped])
        # what was set aside stayed in the box
        with open(os.path.join(self.job, "README.md")) as f:
            self.assertEqual(f.read(), README)
        self.assertEqual(sorted(os.listdir(self.job)),
                         [".env", "README.md", "agent", "calc.py",
                          "test_calc.py"])
        rc, out = USER.sh("python3 -m unittest -q test_calc", cwd=self.job)
        self.assertEqual(rc, 0, out)

    def test_sed_in_place(self):
        """The issue's own case: the run passes, the lock must hold the
        edit (the agent read calc.py, and reads are not changes)."""
        rc, out, r, lock = self.workflow(AGENTS["sed"])
        self.assertTrue(r["ok"], out)
        self.assertIn(os.path.join(self.job, "calc.py"),
                      [x["path"] for x in r["files"]["read"]])
        self.check_promoted(rc, out, lock, [])

    def test_read_modify_write(self):
        rc, out, r, lock = self.workflow(AGENTS["read_modify_write"])
        self.assertFalse(r["ok"], out)  # extra.py and README.md
        # ~/.ssh/id_rsa, hidden: a secret read denied, not failing
        hidden = [x for x in r["files"]["read"]
                  if x.get("errno") == "EACCES" and not x["failing"]]
        self.assertTrue(hidden, r["files"]["read"])
        self.check_promoted(rc, out, lock, ["README.md", "extra.py"])

    def test_write_temp_then_rename(self):
        rc, out, r, lock = self.workflow(AGENTS["temp_then_rename"])
        self.assertFalse(r["ok"], out)
        self.check_promoted(rc, out, lock, ["README.md", "extra.py"])

    def test_readme_block(self):
        """README.md's shorter form of the same workflow, as written."""
        USER.write(os.path.join(self.job, "agent"), AGENTS["sed"], 0o755)
        block = sudo_user.doc_block(
            "README.md", "footprint lock --inputs job -o fixture/input.lock"
            "             # freeze the fixture\n")
        rc, out = USER.sh(block, cwd=self.top)
        with open(os.path.join(self.top, "r.json")) as f:
            r = json.load(f)
        self.addCleanup(shutil.rmtree, r["scratch"]["dir"], True)
        with open(os.path.join(self.top, "fixture", "output.lock")) as f:
            lock = json.load(f)
        self.check_promoted(rc, out, lock, [])

    def test_refusal_names_a_connect(self):
        """What really happened outside the box is never set aside, and
        the refusal says what it was: a connect, not "a process left
        running or a port bound"."""
        agent = AGENTS["sed"] + (
            "python3 -c \"import socket\n"
            "try: socket.create_connection(('203.0.113.7', 443), 2)\n"
            "except OSError: pass\"\n")
        rc, out, r, lock = self.workflow(agent)
        self.assertFalse(r["ok"], out)
        self.assertIsNone(lock, out)
        self.assertNotEqual(rc, su.EXIT_OK, out)
        line = [ln for ln in out.splitlines()
                if ln.startswith("footprint: lock:")]
        self.assertEqual(len(line), 1, out)
        self.assertIn("network.connected: tcp/203.0.113.7:443", line[0])
        self.assertIn("--skip-disallowed cannot", line[0])
        with open(os.path.join(self.job, "calc.py")) as f:
            self.assertEqual(f.read(), BROKEN)


if __name__ == "__main__":
    unittest.main()
