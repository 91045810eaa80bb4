#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Flood ixmod's port with ARP requests for its address from spoofed senders.

Usage: arp_flood.py IFACE TARGET_IP FIRST_SENDER COUNT [RATE]
       arp_flood.py IFACE TARGET_IP --keep SENDER_IP

COUNT broadcast requests for TARGET_IP, each from its own sender:
protocol addresses FIRST_SENDER, FIRST_SENDER + 1, ... and hardware
addresses 02:a5:00:00:00:01 and up (locally administered unicast, so
that only the protocol address decides what ixmod does with them).
The frames are laid out here byte by byte (RFC 826 for Ethernet and
IPv4; scapy alone takes seconds to import under emulation) and then
written to a packet socket in a loop: as fast as the socket takes them,
or RATE a second.
Prints "sent N in S s".

--keep keeps SENDER_IP's entry in ixmod's table in use while a flood
runs, however slowly the kernel gets through it (an entry is in use
when it was confirmed and sent through within the last 60 s): until
killed, every second a gratuitous ARP request (sender and target
SENDER_IP, IFACE's own hardware address), which ixmod merges into the
entry it has (confirmed) but which makes none (RFC 826: only a packet
for ixmod's own address adds a sender), and a UDP datagram to TARGET_IP
port 7, whose echo goes out through the entry.  An entry the flood took
therefore stays gone, and ixmod asks for it again (arp_requests_out).
"""
import errno
import ipaddress
import socket
import struct
import sys
import time

BCAST = b"\xff" * 6


def arp_request(sha, spa, tpa):
    """RFC 826 over Ethernet: broadcast, from sha, EtherType ARP; then
    ar$hrd 1, ar$pro IPv4, ar$hln 6, ar$pln 4, ar$op 1 (request), sha,
    spa, tha, tpa; padded to the 60-byte minimum"""
    f = BCAST + sha + struct.pack("!HHHBBH", 0x0806, 1, 0x0800, 6, 4, 1) + \
        sha + spa + b"\0" * 6 + tpa
    return f.ljust(60, b"\0")


def keep(iface, target, sender):
    with open(f"/sys/class/net/{iface}/address") as f:
        sha = bytes.fromhex(f.read().strip().replace(":", ""))
    pkt = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    pkt.bind((iface, 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((sender, 0))
    udp.setblocking(False)
    spa = ipaddress.IPv4Address(sender).packed
    req = arp_request(sha, spa, spa)
    while True:
        pkt.send(req)
        udp.sendto(b"keep", (target, 7))
        time.sleep(1)
        try:
            while udp.recv(64):  # the echoes: read and forgotten
                pass
        except BlockingIOError:
            pass


if len(sys.argv) == 5 and sys.argv[3] == "--keep":
    keep(sys.argv[1], sys.argv[2], sys.argv[4])
    sys.exit(0)

iface, target, first, count = sys.argv[1:5]
count = int(count)
rate = float(sys.argv[5]) if len(sys.argv) > 5 else 0
base = int(ipaddress.IPv4Address(first))

tpa = ipaddress.IPv4Address(target).packed
frames = []
for i in range(count):
    mac = b"\x02\xa5" + (i + 1).to_bytes(4, "big")
    spa = (base + i).to_bytes(4, "big")
    frames.append(arp_request(mac, spa, tpa))

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
