"""A target for test_shape.py: listen on TCP and UDP (127.0.0.1, port 0),
optionally fork a child, mount a tmpfs (when in its own mount namespace),
then print one JSON line of what it did and wait for stdin to close.

    shape_target.py [--fork] [--mount DIR]
"""
import json
import os
import socket
import subprocess
import sys


def main():
    args = sys.argv[1:]
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
