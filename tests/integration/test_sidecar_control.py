"""The control socket cannot freeze the sidecar (issue 28, Medium).

One idle client on the control socket used to stop the daemon's loop in
a blocking read: the ring buffer was not drained (27,489 events lost in
25 s) and status and stop hung. Here, in a simulated CI job (ci_job.py),
a step holds more idle connections than the daemon serves at once while
the job writes thousands of files through a small ring buffer: status
must answer at once, nothing may be lost, the idle clients must be
dropped after their timeout, and the stop must judge the job.

Run as root: FOOTPRINT=build/footprint python3 -m unittest -v \\
    tests/integration/test_sidecar_control.py
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ci_job  # noqa: E402
import sudo_util as su  # noqa: E402

# holds N silent connections; reports, once the workload is done, how
# many the daemon closed (recv gives b"" at EOF)
IDLE = r"""
import socket, sys, time
path, n, hold = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
conns = []
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    conns.append(s)
open(sys.argv[4], "w").close()  # connected: the workload may go
time.sleep(hold)
closed = 0
for s in conns:
    s.settimeout(0.5)
    try:
        closed += s.recv(16) == b""
    except (socket.timeout, OSError):
        pass
print("closed by the daemon:", closed, "of", n, flush=True)
"""

# many distinct files: each a traced create, together far more than the
# ring holds
WORK = r"""
import os, sys
d = sys.argv[1]
os.mkdir(d)
for i in range(int(sys.argv[2])):
    with open(os.path.join(d, "f%06d" % i), "w") as f:
        f.write("x")
"""

STATE = '"$RUNNER_TEMP/footprint-state"'


class ControlSocketTest(unittest.TestCase):
    def test_idle_clients_do_not_freeze_the_daemon(self):
        j = ci_job.Job(self)
        # other tests on this machine may listen meanwhile
        with open(os.path.join(j.temp, "noise.policy"), "w") as f:
            f.write("ignore bind *\n")
        idle = os.path.join(j.base, "idle.py")
        work = os.path.join(j.base, "work.py")
        for path, text in ((idle, IDLE), (work, WORK)):
            with open(path, "w") as f:
                f.write(text)
        script = """
ready=idle-ready
%(py)s %(idle)s "$RUNNER_TEMP/footprint-state/ctl" 24 8 "$ready" &
holder=$!
while [ ! -e "$ready" ]; do sleep 0.05; done
%(py)s %(work)s out 5000
start=$(date +%%s%%N)
timeout 10 footprint sidecar status --state %(state)s --json > status.json
echo "status took $(( ($(date +%%s%%N) - start) / 1000000 )) ms"
wait $holder
""" % {"py": su.PY, "idle": idle, "work": work, "state": STATE}
        j.run([
            {"id": "start", "run":
             "sudo -n footprint sidecar start --state %s --root "
             '"$GITHUB_WORKSPACE" --ring-size 64K --allow "**" --policy '
             '"$RUNNER_TEMP/noise.policy"' %
             STATE},
            {"id": "busy", "run": script},
            {"id": "stop", "if": "always()", "run":
             "sudo -n footprint sidecar stop --state %s --quiet --receipt "
             '"$RUNNER_TEMP/receipt.json"' % STATE},
        ], timeout=120)
        busy = j.step("busy")
        self.assertEqual(busy["rc"], 0, j.describe())
        took = int(busy["stdout"].split("status took ")[1].split()[0])
        self.assertLess(took, 3000, busy["stdout"])
        with open(os.path.join(j.ws, "status.json")) as f:
            st = json.load(f)
        self.assertEqual(st["lost"], 0, st)
        self.assertGreater(st["events"], 5000, st)
        # every idle client was dropped after its timeout (5 s)
        self.assertIn("closed by the daemon: 24 of 24", busy["stdout"])
        doc = j.receipt(os.path.join(j.temp, "receipt.json"))
        self.assertIs(doc["ok"], True, doc["reasons"])
        self.assertEqual(j.step("stop")["rc"], 0, j.describe())
        self.assertTrue(doc["trace"]["complete"])
        self.assertEqual(len(doc["files"]["added"]), 5003)


if __name__ == "__main__":
    unittest.main()
