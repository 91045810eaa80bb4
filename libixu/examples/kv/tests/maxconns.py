#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""maxconns - a server started with a connection limit of N refuses the
next one as memcached does, and a closed one frees its slot (TAP)

  maxconns.py HOST:PORT N

For a server that runs elsewhere (kv-ixev in the VM; tests/frontend.py
starts kv-epoll and kv-uring itself for the same check).
"""
import socket
import sys
import time


def request(addr, s, data):
    s.sendall(data)
    buf = b""
    while not buf.endswith(b"\r\n"):
        d = s.recv(4096)
        if not d:
            break
        buf += d
    return buf


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    addr, n = (host, int(port)), int(sys.argv[2])
    socks = [socket.create_connection(addr, timeout=10) for _ in range(n)]
    first = [request(addr, s, b"version\r\n") for s in socks]
    extra = socket.create_connection(addr, timeout=10)
    refused = request(addr, extra, b"version\r\n")
    extra.close()
    socks.pop().close()
    time.sleep(0.5)
    again = socket.create_connection(addr, timeout=10)
    freed = request(addr, again, b"version\r\n")
    again.close()
    for s in socks:
        s.close()
    ok = all(r.startswith(b"VERSION") for r in first) and \
        refused == b"ERROR Too many open connections\r\n" and freed.startswith(b"VERSION")
    print("1..1")
    print("%sok 1 - limit %d: connection %d answered %r, a closed one frees its slot (%r)"
          % ("" if ok else "not ", n, n + 1, refused, freed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
