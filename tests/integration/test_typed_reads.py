"""Typed kernel reads against probe reads (bpf/shared.bpf.c).

From 6.2 on, the kernel side reads the fd table, files, sockets and
dentries through pointers bpf_rdonly_cast types, as plain loads; before,
each field is a probe-read helper call. Both ways must trace the same
thing. FOOTPRINT_DEBUG_PROBE_READS=1 makes a load take the older way on
this kernel, so one workload is traced each way (both loaded afresh, with
--cold) and their events compared: the files it makes, renames and reads
over and over through a directory fd, and the sockets it sends on,
connects, binds and accepts.
"""

import collections
import json
import os
import sys
import unittest

import fptest

WORKLOAD = r"""
import os, socket, sys
os.makedirs("a/b")
d = os.open("a", os.O_RDONLY | os.O_DIRECTORY)
for i in range(50):
    os.close(os.open("b/f", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=d))
os.rename("b/f", "b/g", src_dir_fd=d, dst_dir_fd=d)
os.chdir("a/b")
for i in range(30):
    with open("g") as f:
        f.read()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(500):
    s.sendto(b"x", ("127.0.0.1", 9011))
s.close()
# the same fd number, another kind of socket: the flow cache must see it
r = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    r.sendto(b"x", ("127.0.0.1", 9011))
except OSError:
    pass
l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen()
c = socket.create_connection(l.getsockname())
a, _ = l.accept()
print(l.getsockname()[1])
"""

DEBUG = "footprint: debug: kernel reads: "
# what differs between two runs of the same work
VOLATILE = ("ts_ns", "pid", "tid", "ppid", "cgroup_id")
PATHS = ("path", "old_path", "new_path")


def reads_line(stderr):
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.startswith(DEBUG):
            return line[len(DEBUG):]
    raise AssertionError("no kernel reads debug line: %r" % stderr)


@unittest.skipUnless(os.geteuid() == 0, "footprint run needs root")
class TypedReadsTest(fptest.TraceCase):

    def traced(self, probe_reads):
        work = self.path("probe" if probe_reads else "typed")
        os.mkdir(work)
        env = dict(os.environ, FOOTPRINT_DEBUG="1")
        if probe_reads:
            env["FOOTPRINT_DEBUG_PROBE_READS"] = "1"
        r = self.trace([sys.executable, "-c", WORKLOAD], opts=["--cold"],
                       cwd=work, env=env)
        self.assertTrue(r.stats and r.stats["complete"], r.describe())
        self.assertEqual(r.stats["lost"], 0)
        return r, work, reads_line(r.stderr)

    def shape(self, r, work):
        """The workload's own file and socket events, as a multiset."""
        listener = int(r.stdout.split()[-1])
        out = collections.Counter()
        for ev in r.events:
            ev = {k: v for k, v in ev.items() if k not in VOLATILE}
            if "port" in ev and ev["port"] == listener:
                ev["port"] = "listener"
            if ev.get("bound_port") == listener:
                ev["bound_port"] = "listener"
            if "family" in ev:
                out[json.dumps(ev, sort_keys=True)] += 1
                continue
            for key in PATHS:
                if key in ev or key + "_b64" in ev:
                    raw = fptest.field_bytes(ev, key)
                    ev.pop(key + "_b64", None)
                    ev[key] = raw.replace(os.fsencode(work),
                                          b"W").decode("utf-8", "replace")
            if any(str(ev.get(k, "")).startswith("W/") for k in PATHS):
                out[json.dumps(ev, sort_keys=True)] += 1
        return out

    def test_typed_and_probe_reads_trace_the_same(self):
        typed, typed_dir, line = self.traced(False)
        if line != "typed (bpf_rdonly_cast)":
            self.skipTest("this kernel reads by probe only: %s" % line)
        probe, probe_dir, line = self.traced(True)
        self.assertEqual(line, "probe reads (FOOTPRINT_DEBUG_PROBE_READS)")
        a = self.shape(typed, typed_dir)
        b = self.shape(probe, probe_dir)
        self.assertEqual(a, b)
        # and the comparison is not of two empty sets
        kinds = collections.Counter(json.loads(k)["type"] for k in a)
        for kind in ("mkdir", "open", "rename", "sendto", "net_count",
                     "connect", "accept", "bind"):
            self.assertIn(kind, kinds, sorted(a))
        flood = [json.loads(k) for k in a
                 if json.loads(k).get("port") == 9011 and
                 json.loads(k)["type"] in ("sendto", "net_count")]
        self.assertEqual(sum(ev["count"] for ev in flood
                             if ev["protocol"] == 17), 500, flood)
        reads = [json.loads(k) for k in a
                 if json.loads(k).get("path") == "W/a/b/g" and
                 json.loads(k)["type"] == "open"]
        self.assertEqual(sum(ev.get("count", 1) for ev in reads), 30, reads)


if __name__ == "__main__":
    unittest.main()
