#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""slow_readers - clients that never read must stall only themselves (TAP)

  slow_readers.py HOST:PORT [--stalled N] [--timeout S]

Stores a 1 MB value, opens N connections (default 100) that each ask for
it 30 times and never read (a small receive buffer: their windows close
at once), then times an honest client: it must read the 1 MB value whole,
and store and read back a 100 KB one, within --timeout seconds (default
10).  On ixmod this is the transmit arena: every stalled connection holds
its unacknowledged replies there (issue 35: about 32 such clients filled
a core's 8 MiB arena and every other client of the core stalled).
"""
import argparse
import socket
import sys
import time


def hostport(s):
    host, port = s.rsplit(":", 1)
    return host, int(port)


def request(s, data, until, deadline):
    s.sendall(data)
    buf = b""
    while not buf.endswith(until):
        s.settimeout(max(deadline - time.time(), 0.01))
        d = s.recv(1 << 20)
        if not d:
            break
        buf += d
    return buf


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server", type=hostport)
    ap.add_argument("--stalled", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=10.0)
    a = ap.parse_args()
    big, small = b"B" * 1000000, b"s" * 100000
    s = socket.create_connection(a.server, timeout=10)
    ok = request(s, b"set big 0 0 %d\r\n%s\r\n" % (len(big), big), b"\r\n",
                 time.time() + 10) == b"STORED\r\n"
    s.close()
    stalled = []
    for _ in range(a.stalled):
        t = socket.socket()
        t.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        t.settimeout(10)
        t.connect(a.server)
        t.sendall(b"get" + b" big" * 30 + b"\r\n")
        stalled.append(t)
    time.sleep(2)               # their replies fill what the server gives them
    start = time.time()
    deadline = start + a.timeout
    try:
        s = socket.create_connection(a.server, timeout=a.timeout)
        got = request(s, b"get big\r\n", b"END\r\n", deadline)
        ok = ok and got == b"VALUE big 0 1000000\r\n" + big + b"\r\nEND\r\n"
        got = request(s, b"set small 0 0 %d\r\n%s\r\nget small\r\n" % (len(small), small),
                      b"END\r\n", deadline)
        ok = ok and got == b"STORED\r\nVALUE small 0 100000\r\n" + small + b"\r\nEND\r\n"
        s.close()
    except OSError as e:
        print("# honest client: %r" % e)
        ok = False
    took = time.time() - start
    for t in stalled:
        t.close()
    print("1..1")
    print("%sok 1 - %d clients never reading 30 x 1 MB: another client's 1 MB get and "
          "100 KB set and get took %.2f s (limit %.0f s)" % ("" if ok else "not ", a.stalled,
                                                             took, a.timeout))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
