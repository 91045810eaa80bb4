#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# iso_peer.py - the Linux peer of test_owner_01.sh: traffic that
# carries a marker to an echo server, each datagram or connection a flow
# of its own (a new source port), so that RSS or steering spreads it
# over the port's cores.
#
#   iso_peer.py udp HOST PORT MARKER N   N datagrams, one per flow
#   iso_peer.py tcp HOST PORT MARKER N   N connections, one exchange each
#
# Prints "echoed K of N" (what came back byte for byte).

import select
import socket
import sys
import time


def udp(host, port, data, n):
    """Send all n at once, then take the echoes until every one came or
    none came for 2 seconds (5 before the first; a flow the server drops
    never answers), 15 seconds at most.  A fixed 3 seconds lost echoes
    that a VM starved by a busy host sent late."""
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setblocking(False)
        s.sendto(data, (host, port))
        socks.append(s)
    ok = 0
    waiting = set(socks)
    last_at_most = time.monotonic() + 15
    end = time.monotonic() + 5
    while waiting and time.monotonic() < end:
        ready, _, _ = select.select(list(waiting), [], [], end - time.monotonic())
        if ready:
            end = min(time.monotonic() + 2, last_at_most)
        for s in ready:
            try:
                ok += s.recv(2048) == data
            except OSError:
                pass
            waiting.discard(s)
    for s in socks:
        s.close()
    return ok


def tcp(host, port, data, n):
    ok = 0
    for _ in range(n):
        try:
            with socket.create_connection((host, port), timeout=10) as s:
                s.sendall(data)
                got = b""
                while len(got) < len(data):
                    more = s.recv(len(data) - len(got))
                    if not more:
                        break
                    got += more
                ok += got == data
        except OSError:
            pass
    return ok


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in ("udp", "tcp"):
        sys.exit("usage: iso_peer.py udp|tcp HOST PORT MARKER N")
    mode, host, port, marker, n = sys.argv[1:]
    data = (marker.encode() + b" ") * 8
    fn = udp if mode == "udp" else tcp
    print(f"echoed {fn(host, int(port), data, int(n))} of {n}")


if __name__ == "__main__":
    main()
