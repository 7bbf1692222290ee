#!/usr/bin/env python3
"""Per-call program time of footprint's own BPF programs over one command,
from the kernel's bpf_stats: what each of N calls of a loop (a flood's
sendto()s) costs in each program, the machine's background subtracted.

Run it as the traced command, with the stats on (they cost two clock
reads a program run, so they are off by default):

    sudo sysctl kernel.bpf_stats_enabled=1
    sudo footprint run --cold -q -- \\
        python3 scripts/bench/progstats.py 1000000 ./udpflood 1000000 9
    sudo sysctl kernel.bpf_stats_enabled=0

It finds the footprint above it, takes the programs whose fds it holds
(/proc/PID/fdinfo), samples run_time_ns and run_cnt (bpftool prog show)
over two idle seconds (the background: every syscall on the machine runs
handle_sys_exit), then over CMD, and prints, per program that ran, the
background's ns a call and (time in CMD - background calls * that) / N.
"""

import json
import os
import re
import subprocess
import sys
import time


def footprint_pid():
    pid = os.getpid()
    while pid > 1:
        with open("/proc/%d/status" % pid) as f:
            st = dict(l.split(":\t", 1) for l in f.read().splitlines()
                      if ":\t" in l)
        if st["Name"].strip() == "footprint":
            return pid
        pid = int(st["PPid"])
    sys.exit("progstats: run it under footprint run")


def prog_ids(pid):
    ids = set()
    for fd in os.listdir("/proc/%d/fdinfo" % pid):
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                m = re.search(r"^prog_id:\s*(\d+)", f.read(), re.M)
        except OSError:
            continue
        if m:
            ids.add(int(m.group(1)))
    return ids


def sample(ids):
    out = subprocess.run(["bpftool", "-j", "prog", "show"], check=True,
                         capture_output=True, text=True).stdout
    return {p["id"]: (p.get("name", "?"), p.get("run_time_ns", 0),
                      p.get("run_cnt", 0))
            for p in json.loads(out) if p["id"] in ids}


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit("usage: progstats.py N CMD [ARG...]")
    n = int(sys.argv[1])
    ids = prog_ids(footprint_pid())
    s0 = sample(ids)
    time.sleep(2)
    s1 = sample(ids)
    subprocess.run(sys.argv[2:], check=True, stdout=subprocess.DEVNULL)
    s2 = sample(ids)
    for i in sorted(ids):
        name, _, _ = s0[i]
        bt, bc = s1[i][1] - s0[i][1], s1[i][2] - s0[i][2]
        ft, fc = s2[i][1] - s1[i][1], s2[i][2] - s1[i][2]
        if fc < n:
            continue
        bg = bt / bc if bc else 0.0
        print("%-24s background %6.0f ns a call; %8d calls in CMD: "
              "%6.1f ns per call of N" % (name, bg, fc,
                                          (ft - (fc - n) * bg) / n))


if __name__ == "__main__":
    main()
