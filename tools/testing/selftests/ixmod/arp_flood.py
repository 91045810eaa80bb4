#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Flood ixmod's port with ARP requests for its address from spoofed senders.

Usage: arp_flood.py IFACE TARGET_IP FIRST_SENDER COUNT [RATE]

COUNT broadcast requests for TARGET_IP, each from its own sender:
protocol addresses FIRST_SENDER, FIRST_SENDER + 1, ... and hardware
addresses 02:a5:00:00:00:01 and up (locally administered unicast, so
that only the protocol address decides what ixmod does with them).
The frames are laid out here byte by byte (RFC 826 for Ethernet and
IPv4; scapy alone takes seconds to import under emulation) and then
written to a packet socket in a loop: as fast as the socket takes them,
or RATE a second.
Prints "sent N in S s".
"""
import errno
import ipaddress
import socket
import struct
import sys
import time

iface, target, first, count = sys.argv[1:5]
count = int(count)
rate = float(sys.argv[5]) if len(sys.argv) > 5 else 0
base = int(ipaddress.IPv4Address(first))

BCAST = b"\xff" * 6
tpa = ipaddress.IPv4Address(target).packed
frames = []
for i in range(count):
    mac = b"\x02\xa5" + (i + 1).to_bytes(4, "big")
    spa = (base + i).to_bytes(4, "big")
    # Ethernet: broadcast, from the sender, EtherType ARP; then ar$hrd 1,
    # ar$pro IPv4, ar$hln 6, ar$pln 4, ar$op 1 (request), sha, spa, tha, tpa
    f = BCAST + mac + struct.pack("!HHHBBH", 0x0806, 1, 0x0800, 6, 4, 1) + \
        mac + spa + b"\0" * 6 + tpa
    frames.append(f.ljust(60, b"\0"))

s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
start = time.monotonic()
for i, f in enumerate(frames):
    if rate:
        delay = start + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    while True:
        try:
            s.send(f)
            break
        except OSError as e:
            if e.errno != errno.ENOBUFS:
                raise
            time.sleep(0.001)  # the qdisc dropped it: let the NIC drain

print(f"sent {count} in {time.monotonic() - start:.3f} s")
