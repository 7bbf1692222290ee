"""A target for test_shape.py: listen on TCP and UDP (127.0.0.1, port 0),
optionally fork a child, mount a tmpfs (when in its own mount namespace),
install N allow-all seccomp filters, then print one JSON line of what it
did and wait for stdin to close.

    shape_target.py [--fork] [--mount DIR] [--seccomp N]
"""
import ctypes
import json
import os
import socket
import subprocess
import sys


def seccomp_allow_all(n):
    """n filters of one instruction each: return SECCOMP_RET_ALLOW."""
    class Filter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8),
                    ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_uint16),
                    ("filter", ctypes.POINTER(Filter))]

    libc = ctypes.CDLL(None, use_errno=True)
    insn = (Filter * 1)(Filter(0x06, 0, 0, 0x7fff0000))  # BPF_RET|BPF_K
    prog = Prog(1, insn)
    for _ in range(n):
        # PR_SET_SECCOMP, SECCOMP_MODE_FILTER; root needs no NoNewPrivs
        if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def main():
    args = sys.argv[1:]
    if "--seccomp" in args:
        seccomp_allow_all(int(args[args.index("--seccomp") + 1]))
    if "--mount" in args:
        where = args[args.index("--mount") + 1]
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "fpshape",
                        where], check=True)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(4)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    child = os.fork() if "--fork" in args else -1
    if child == 0:
        sys.stdin.read()
        os._exit(0)
    print(json.dumps({"pid": os.getpid(), "child": child,
                      "tcp": tcp.getsockname()[1],
                      "udp": udp.getsockname()[1]}), flush=True)
    sys.stdin.read()
    if child > 0:
        os.waitpid(child, 0)


main()
