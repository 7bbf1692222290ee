"""The ring buffer's consumer reads every record, whole and in order.

footprint maps only a window of the ring (user/trace/ring.h) and moves it
on as it consumes. These runs put megabytes of records of changing sizes
through it, so that records begin, end and straddle the window's edges and
the ring's own wrap, and check that each open arrives once, in the order
the command made them, with its whole name, and that a huge argv, read in
many chunks, arrives byte for byte.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import verdict_util as vu

OPENS = 12000


class RingTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fp-ring-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.root = os.path.join(self.tmp, "root")
        self.work = os.path.join(self.tmp, "work")
        os.mkdir(self.root)
        os.mkdir(self.work)
        # base names of 6 to 206 bytes: record sizes that do not repeat
        # in step with the window
        self.names = []
        for i in range(OPENS):
            name = os.path.join(self.work,
                                "f%05d%s" % (i, "n" * ((i * 37) % 201)))
            self.names.append(name)
            with open(name, "w"):
                pass
        self.listing = os.path.join(self.tmp, "list")
        with open(self.listing, "w") as f:
            f.write("".join(n + "\n" for n in self.names))

    def run_fp(self, ring, argv_tail=(), cold=False):
        events = os.path.join(self.tmp, "e-%s.ndjson" % ring)
        script = 'while IFS= read -r f; do : < "$f"; done < "$1"'
        if argv_tail:
            script += '; shift; /bin/true "$@"'
        argv = [vu.FOOTPRINT, "run", "--quiet", "--root", self.root,
                "--allow", self.work + "/", "--ring-size", ring,
                "--every-open", "--events", events] + \
            (["--cold"] if cold else []) + ["--",
                "sh", "-c", script, "sh", self.listing] + list(argv_tail)
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=300)
        if p.returncode == vu.EXIT_NOTRACE:
            vu.cannot_test("footprint cannot trace here: %s" %
                           p.stderr.decode(errors="replace"))
            self.skipTest("cannot trace")
        with open(events) as f:
            evs = [json.loads(line) for line in f]
        self.assertEqual(evs[-1]["type"], "stats")
        self.assertEqual(evs[-1]["lost"], 0, evs[-1])
        self.assertEqual(p.returncode, 0, p.stderr)
        return evs

    def opened(self, evs):
        prefix = self.work + "/"
        return [e["path"] for e in evs
                if e["type"] == "open" and e["path"].startswith(prefix)]

    def test_every_open_once_in_order_default_ring(self):
        # some 3.7 MB of records (300 bytes an open): the 1 MiB window
        # moves on three times at least
        evs = self.run_fp("16M")
        self.assertEqual(self.opened(evs), self.names)

    def test_every_open_once_in_order_across_the_wrap(self):
        # a ring smaller than the window: it wraps some fourteen times, and
        # records straddle its end (mapped twice over, read as one)
        evs = self.run_fp("256K")
        self.assertEqual(self.opened(evs), self.names)

    def test_every_open_once_in_order_across_the_wrap_of_a_big_ring(self):
        # a ring loaded afresh starts at position 0, so its 3.7 MB of
        # records wrap a 2 MiB ring once: the window that ends it runs on
        # into the second copy of the data (a kept ring starts anywhere)
        evs = self.run_fp("2M", cold=True)
        self.assertEqual(self.opened(evs), self.names)

    def test_huge_argv_after_the_window_moved(self):
        # 30 arguments of 30 KiB (under the 1 MiB argv cap): some 225 chunks
        # of argv, after the opens
        args = [("%02d" % i) * 15360 for i in range(30)]
        evs = self.run_fp("16M", args)
        self.assertEqual(self.opened(evs), self.names)
        execs = [e for e in evs
                 if e["type"] == "exec" and e["filename"] == "/bin/true"]
        self.assertEqual(len(execs), 1)
        got = execs[0]["argv"]
        # not assertEqual: its diff of 1.2 MB of argv says less than this
        self.assertTrue(got == ["/bin/true"] + args,
                        "%d arguments, %d bytes" %
                        (len(got), sum(len(a) for a in got)))
        self.assertEqual(execs[0]["argv_dropped"], 0)


if __name__ == "__main__":
    unittest.main()
