"""A small DNS responder for the network tests: answers A queries for the
names it is given (NAME=IP[,IP...]), NOERROR with no answer for their other types, NXDOMAIN
for any other name. UDP and TCP on one address, in a thread each.

    python3 dns_responder.py ADDR PORT NAME=IP... : serve until killed,
    after writing "ready" on stdout once both sockets listen.
"""

import socket
import struct
import sys
import threading


def parse_question(msg):
    """(id, flags, qname, qtype, end of the question) of a query."""
    qid, flags, qd = struct.unpack(">HHH", msg[:6])
    if qd != 1:
        raise ValueError("want one question")
    pos, labels = 12, []
    while msg[pos]:
        n = msg[pos]
        labels.append(msg[pos + 1:pos + 1 + n].decode("ascii").lower())
        pos += 1 + n
    qtype = struct.unpack(">H", msg[pos + 1:pos + 3])[0]
    return qid, flags, ".".join(labels), qtype, pos + 5


def answer(msg, names):
    qid, flags, qname, qtype, end = parse_question(msg)
    ips = names.get(qname)
    rcode = 0 if ips else 3
    records = []
    if ips and qtype == 1:
        records = [struct.pack(">HHHIH", 0xc00c, 1, 1, 60, 4) +
                   socket.inet_aton(ip) for ip in ips.split(",")]
    hdr = struct.pack(">HHHHHH", qid, 0x8180 | rcode | (flags & 0x0100), 1,
                      len(records), 0, 0)
    return hdr + msg[12:end] + b"".join(records)


def serve_udp(sock, names):
    while True:
        msg, peer = sock.recvfrom(512)
        try:
            sock.sendto(answer(msg, names), peer)
        except (ValueError, IndexError, struct.error):
            pass


def serve_tcp(sock, names):
    while True:
        conn, _ = sock.accept()
        with conn:
            try:
                n = struct.unpack(">H", conn.recv(2, socket.MSG_WAITALL))[0]
                out = answer(conn.recv(n, socket.MSG_WAITALL), names)
                conn.sendall(struct.pack(">H", len(out)) + out)
            except (ValueError, IndexError, struct.error, OSError):
                pass


def main():
    addr, port = sys.argv[1], int(sys.argv[2])
    names = dict(a.split("=", 1) for a in sys.argv[3:])
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((addr, port))
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind((addr, port))
    t.listen(8)
    threading.Thread(target=serve_tcp, args=(t, names), daemon=True).start()
    print("ready", flush=True)
    serve_udp(u, names)


if __name__ == "__main__":
    main()
