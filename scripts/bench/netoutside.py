#!/usr/bin/env python3
"""What footprint's machine-wide network programs cost the rest of the
machine: a network loop run OUTSIDE a `footprint run` while one is active,
and the program time per loop iteration of each of that run's BPF
programs that ran at least once an iteration, from the kernel's bpf_stats.

The fib, sock:inet_sock_set_state and sk_data_ready programs run for every
route lookup, TCP state change and queued datagram of every process on the
machine, traced or not: their early exit is what an untraced process pays.

    sudo scripts/bench/netoutside.py [--loop udp|tcp|udprecv] [--dns]
        [-n N] FOOTPRINT...

For each footprint binary in turn (give two, or the same two several
times, to compare builds interleaved): starts `FOOTPRINT run --cold -q --
sleep 12` (with --dns, a command that sends one UDP query to
127.0.0.1:53 first, so that the run's DNS programs are active), waits 3 s,
samples run_time_ns and run_cnt of that run's programs (bpftool prog
show), runs the loop outside the run, samples again, and prints each
program's ns per iteration and its runs. bpf_stats must be on (sysctl
kernel.bpf_stats_enabled=1; they add two clock reads, ~68 ns here, to
every program run); the background of the machine's other processes is
included, so compare builds interleaved and quote the load.

Loops (-n: iterations, default 1000000 for udp, 20000 for tcp, 100000 for
udprecv):
  udp      scripts/bench/udpflood.c: N one-byte sendto()s to 127.0.0.1
  tcp      N local TCP connect/accept/close pairs (python)
  udprecv  N local UDP send+recv pairs (python): every datagram is queued
"""

import os
import random
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# the programs' ids and their bpf_stats, read as progstats.py reads them
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from progstats import prog_ids, sample  # noqa: E402

TCP = """import socket, sys
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(128)
for i in range(int(sys.argv[1])):
    c = socket.create_connection(l.getsockname()); s, _ = l.accept()
    c.close(); s.close()
"""

UDPRECV = """import socket, sys
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
a.bind(("127.0.0.1", 0))
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])):
    b.sendto(b"x", a.getsockname()); a.recv(16)
"""

DNS = ("import socket, time; s = socket.socket(socket.AF_INET, "
       "socket.SOCK_DGRAM); s.sendto(bytes(12), ('127.0.0.1', 53)); "
       "time.sleep(12)")


def usage(msg):
    sys.stderr.write("netoutside: %s; see --help\n" % msg)
    sys.exit(2)


def loop_cmd(loop, n, tmp):
    if loop == "udp":
        exe = os.path.join(tmp, "udpflood")
        if not os.path.exists(exe):
            subprocess.run(["cc", "-O2", "-o", exe, os.path.join(
                TOP, "scripts/bench/udpflood.c")], check=True)
        return [exe, str(n), str(random.randint(20000, 40000))]
    return [sys.executable, "-c", TCP if loop == "tcp" else UDPRECV, str(n)]


def one(fp, loop, n, dns, tmp):
    root = os.path.join(tmp, "root")
    os.makedirs(root, exist_ok=True)
    cmd = [sys.executable, "-c", DNS] if dns else ["sleep", "12"]
    run = subprocess.Popen([fp, "run", "--cold", "-q", "--root", root, "--"]
                           + cmd, cwd=root, stdout=subprocess.DEVNULL)
    try:
        time.sleep(3)
        ids = prog_ids(run.pid)
        if not ids:
            sys.exit("netoutside: %s run has no BPF programs" % fp)
        s1 = sample(ids)
        subprocess.run(loop_cmd(loop, n, tmp), check=True,
                       stdout=subprocess.DEVNULL)
        s2 = sample(ids)
    finally:
        run.wait()
    res = []
    for i in sorted(ids):
        if i not in s1 or i not in s2:
            continue
        name, t1, c1 = s1[i]
        t2, c2 = s2[i][1], s2[i][2]
        if c2 - c1 >= n:
            res.append("%s %.1f ns (%d runs)" % (name, (t2 - t1) / n,
                                                  c2 - c1))
    print("%s: %s per iteration; load %s" % (
        fp, "; ".join(res) or "no program ran N times",
        open("/proc/loadavg").read().split()[0]))


def main():
    args = sys.argv[1:]
    loop, n, dns, fps = "udp", None, False, []
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return
        if a == "--dns":
            dns = True
        elif a == "--loop" and args:
            loop = args.pop(0)
        elif a == "-n" and args:
            n = args.pop(0)
        elif a.startswith("-"):
            usage("unknown option '%s'" % a)
        else:
            fps.append(a)
    if loop not in ("udp", "tcp", "udprecv"):
        usage("--loop is udp, tcp or udprecv, got '%s'" % loop)
    if n is None:
        n = {"udp": 1000000, "tcp": 20000, "udprecv": 100000}[loop]
    elif not str(n).isdigit() or int(n) == 0:
        usage("-n takes a positive whole number, got '%s'" % n)
    if not fps:
        usage("name at least one footprint binary")
    if os.geteuid() != 0:
        sys.exit("netoutside: footprint needs root; run: sudo %s"
                 % sys.argv[0])
    with open("/proc/sys/kernel/bpf_stats_enabled") as f:
        if f.read().strip() != "1":
            sys.exit("netoutside: bpf_stats are off; run: sudo sysctl "
                     "kernel.bpf_stats_enabled=1 (and =0 after)")
    with tempfile.TemporaryDirectory(prefix="footprint-netoutside.") as tmp:
        for fp in fps:
            one(fp, loop, int(n), dns, tmp)


if __name__ == "__main__":
    main()
