"""Every command block of README.md and docs/*.md runs as written (issue
29, "Done when"), as a non-root user who types them in /bin/sh, with
`sudo` where the block says sudo: docblocks.py finds the blocks, prepares
what each expects, runs it in a mount namespace of its own (a private
/tmp and /srv) and checks each command's exit status and what must hold
after it. A block that cannot run here is listed with its reason
(test_blocks_that_do_not_run_say_why); docs/ci.md's blocks are
test_sidecar's.

Run from the top of the tree, as root:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_doc_blocks.py
"""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import docblocks as db  # noqa: E402
import realuse_util as ru  # noqa: E402

USER = ru.User("fpdoc")


def setUpModule():
    ru.need_tools("unshare", "mount", "jq", "make")
    USER.make()


def tearDownModule():
    USER.remove()


class DocBlocksTest(unittest.TestCase):
    maxDiff = None

    def test_every_block_has_an_entry(self):
        blocks = db.extract()
        self.assertGreater(len(blocks), 5)
        missing = [repr(b) + "  " + b.key for b in blocks
                   if b.key not in db.BLOCKS]
        self.assertEqual(missing, [], "blocks with no entry in "
                         "docblocks.BLOCKS (prepare them, or say why they "
                         "cannot run)")
        stale = sorted(set(db.BLOCKS) - {b.key for b in blocks})
        self.assertEqual(stale, [], "entries for blocks no doc has")

    def test_blocks_that_do_not_run_say_why(self):
        for b in db.extract():
            spec = db.BLOCKS.get(b.key)
            if isinstance(spec, db.Skip):
                self.assertGreater(len(spec.why), 20, b)
                sys.stderr.write("\n  not run: %r: %s" % (b, spec.why))
            elif spec is not None and spec.only:
                self.assertTrue(spec.why_not, b)
                sys.stderr.write("\n  partly run: %r: %s" % (b,
                                                            spec.why_not))

    def run_block(self, b):
        spec = db.BLOCKS[b.key]
        p = subprocess.run(
            ["unshare", "--mount", "--propagation", "private",
             "/usr/bin/python3", os.path.join(db.HERE, "docblocks.py"),
             "--child", b.key, USER.name, USER.bin, db.TOP],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, timeout=1200)
        if p.returncode:
            self.fail("%r: the harness failed (%d): %s" % (
                b, p.returncode, p.stderr.decode("utf-8", "replace")))
        res = json.loads(p.stdout)
        ctx = "%r as written:\n%s\n-- its stdout:\n%s\n-- its stderr:\n%s" % (
            b, b.text, res["out"][-4000:], res["err"][-4000:])
        if spec.needs:
            ctx += "\n-- it works once this is fixed: %s" % spec.needs
        if any(rc == ru.EXIT_NOTRACE for rc in res["rcs"].values()) and \
                "footprint cannot" in res["err"]:
            ru.cannot_test("footprint cannot trace here: %s" %
                           res["err"][-500:])
        self.assertEqual(len(res["rcs"]), res["commands"],
                         "not every command ran\n" + ctx)
        for n in range(1, res["commands"] + 1):
            rc = res["rcs"][str(n)]
            allowed = spec.rc.get(n, {0})
            self.assertIn(rc, allowed, "command %d exited %d\n%s" %
                          (n, rc, ctx))
        self.assertEqual(res["bad"], [], ctx)

    def test_blocks_run_as_written(self):
        ran = 0
        for b in db.extract():
            spec = db.BLOCKS.get(b.key)
            if not isinstance(spec, db.Run):
                continue
            ran += 1
            with self.subTest(block=repr(b)):
                self.run_block(b)
        self.assertGreaterEqual(ran, 6)


if __name__ == "__main__":
    unittest.main()
