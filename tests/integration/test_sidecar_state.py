"""Issue 30 (item 6): the sidecar's state files have one writer with one
policy. A file the daemon cannot write (here: a directory stands where
its list of roots goes) is said in one line and the sidecar does not
start: a stop that could not read it could not refuse an output inside a
root. It used to start all the same, without the file.
"""

import os
import subprocess
import unittest

import sudo_util as su
from test_sidecar import Job


class StateWriterTest(unittest.TestCase):
    def test_a_state_file_not_written_is_no_start(self):
        job = Job(self)
        # a clean start and stop first: the journal says the directory
        # may be taken again
        job.start()
        p, _, _ = job.stop("--quiet")
        self.assertIn(p.returncode, (su.EXIT_OK, su.EXIT_VERDICT), p.stderr)
        roots = os.path.join(job.state, "roots")
        if os.path.lexists(roots):
            os.unlink(roots)
        os.mkdir(roots)
        p = job.step('"$FP" sidecar start --state "$STATE" --root "$WS" '
                     '--cgroup "$CG"')
        self.assertEqual(p.returncode, su.EXIT_NOTRACE, p.stderr)
        self.assertIn(b"footprint: cannot write roots in the state "
                      b"directory: Is a directory; the sidecar did not "
                      b"start\n", p.stderr)
        # no daemon answers there
        self.assertFalse(os.path.exists(os.path.join(job.state,
                                                     "daemon.pid")))
        s = subprocess.run([su.FOOTPRINT, "sidecar", "status", "--state",
                            job.state], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        self.assertNotEqual(s.returncode, su.EXIT_OK, s.stderr)


if __name__ == "__main__":
    unittest.main()
