#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udp_check.py - a Linux UDP client that checks an echo server byte for byte.

  udp_check.py HOST PORT --sizes 1-1472       every size once, random bytes
  udp_check.py HOST PORT --flows 16 --count 20  16 source ports, 20 each
  udp_check.py HOST PORT --flood SECONDS      send without waiting (load)
  udp_check.py HOST PORT --first-echo SECONDS [--src ADDR]
      a datagram every 50 ms (from ADDR) until the first exact echo;
      prints how long it took, exits 0 if it came within SECONDS
  udp_check.py HOST PORT --refused
      a connected socket sends a datagram (up to 3 times, a second
      apart) and exits 0 once the host's ICMP port unreachable makes it
      fail with ECONNREFUSED; 1 on an echo or silence

HOST may be an IPv6 address (then the sockets are AF_INET6).  Each
request is retried up to 3 times if no reply comes within a second
(UDP may lose a datagram; a wrong reply is never retried).  Prints one
'# ...' summary line and exits 0 only if every request got its exact echo.
"""
import argparse
import ipaddress
import os
import socket
import sys
import time

FAMILY = socket.AF_INET


def udp_socket():
    return socket.socket(FAMILY, socket.SOCK_DGRAM)


def same_peer(src, addr):
    """recvfrom()'s address is the one asked (IPv6: 4-tuple, any spelling)."""
    return (ipaddress.ip_address(src[0].split("%")[0]) == ipaddress.ip_address(addr[0])
            and src[1] == addr[1])


def refused(addr):
    s = udp_socket()
    s.connect(addr)
    for i in range(3):
        try:
            s.send(os.urandom(32))
            s.settimeout(1.0)
            s.recv(4096)
            print("# an answer came: the port is not closed")
            return 1
        except ConnectionRefusedError:
            print(f"# ECONNREFUSED after {i + 1} datagram(s)")
            return 0
        except socket.timeout:
            continue
    print("# no port unreachable within 3 s")
    return 1


def echo_once(sock, addr, payload):
    for _ in range(3):
        sock.sendto(payload, addr)
        deadline = time.monotonic() + 1.0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            sock.settimeout(left)
            try:
                data, src = sock.recvfrom(4096)
            except socket.timeout:
                break
            if not same_peer(src, addr):
                continue
            return data
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--sizes")
    ap.add_argument("--flows", type=int, default=0)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--flood", type=float, default=0)
    ap.add_argument("--first-echo", type=float, default=0)
    ap.add_argument("--src")
    ap.add_argument("--refused", action="store_true")
    a = ap.parse_args()
    global FAMILY
    if ipaddress.ip_address(a.host).version == 6:
        FAMILY = socket.AF_INET6
    any_addr = "::" if FAMILY == socket.AF_INET6 else "0.0.0.0"
    if a.src is None:
        a.src = any_addr
    addr = (a.host, a.port)
    bad = lost = ok = 0

    if a.refused:
        return refused(addr)

    if a.first_echo:
        # the first datagram from a new address may be lost to ARP
        # resolution (the server sends a request and drops its echo)
        s = udp_socket()
        s.bind((a.src, 0))
        payload = os.urandom(64)
        start = time.monotonic()
        sent = 0
        while time.monotonic() - start < a.first_echo + 2:
            s.sendto(payload, addr)
            sent += 1
            s.settimeout(0.05)
            try:
                data, src = s.recvfrom(4096)
            except socket.timeout:
                continue
            if same_peer(src, addr) and data == payload:
                ms = (time.monotonic() - start) * 1000
                print(f"# first echo to {a.src} after {ms:.0f} ms, {sent} datagrams sent")
                return 0 if ms <= a.first_echo * 1000 else 1
        print(f"# no echo to {a.src} within {a.first_echo + 2:.1f} s, {sent} datagrams sent")
        return 1

    if a.flood:
        # --flows sockets (source ports), so that RSS spreads the load
        socks = [udp_socket() for _ in range(max(1, a.flows))]
        for s in socks:
            s.setblocking(False)
        end = time.monotonic() + a.flood
        sent = 0
        while time.monotonic() < end:
            s = socks[sent % len(socks)]
            try:
                s.sendto(os.urandom(64), addr)
                sent += 1
            except BlockingIOError:
                time.sleep(0.001)
            try:
                while True:
                    s.recvfrom(4096)
            except BlockingIOError:
                pass
        print(f"# flood: {sent} sent")
        return 0

    jobs = []
    if a.sizes:
        lo, hi = (int(x) for x in a.sizes.split("-"))
        s = udp_socket()
        jobs = [(s, n) for n in range(lo, hi + 1)]
    for _ in range(a.flows):
        s = udp_socket()
        s.bind((any_addr, 0))
        jobs += [(s, 64 + i) for i in range(a.count)]
    for s, n in jobs:
        payload = os.urandom(n)
        got = echo_once(s, addr, payload)
        if got is None:
            lost += 1
            print(f"# no reply to a {n}-byte datagram")
        elif got != payload:
            bad += 1
            print(f"# wrong reply to a {n}-byte datagram ({len(got)} bytes back)")
        else:
            ok += 1
    print(f"# {ok} echoed exactly, {bad} wrong, {lost} lost")
    return 0 if ok == len(jobs) and jobs else 1


if __name__ == "__main__":
    sys.exit(main())
