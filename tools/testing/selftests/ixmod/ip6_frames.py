#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile IPv6 frames for ixmod's port, laid out byte by byte.

Usage: ip6_frames.py flood IFACE DST_IP6 FIRST_SRC_IP6 COUNT
       ip6_frames.py malformed IFACE DST_MAC DST_IP6 SRC_IP6 COUNT DROPS_DIR

flood: COUNT Neighbor Solicitations for DST_IP6 (RFC 4861 §4.3) to its
solicited-node group (ff02::1:ffXX:XXXX, MAC 33:33:ffXX:XXXX), each
from its own spoofed source FIRST_SRC_IP6, FIRST_SRC_IP6 + 1, ... with
a source link-layer address option 02:a6:00:00:00:01 and up (the
Ethernet source too), hop limit 255: every one valid, so each asks
ixmod to learn a new neighbour.  Prints "sent N in S s".

malformed: each malformed datagram in turn, COUNT copies from SRC_IP6
to DST_IP6 at DST_MAC, then a wait (2 s at most) for its ixmod drop
counter (DROPS_DIR/<name>, DROPS_DIR being
/sys/kernel/ixmod/ports/<port>/drops) to rise by COUNT; a line for each,
"ok <counter> <what>" when that counter rose by exactly COUNT and no
other drop counter moved, else "bad <counter> <what>: " and what moved.
Every frame is 60 bytes or more on the wire, and every defect survives
Ethernet padding.  An extension header that runs past the payload is not
among them: QEMU's igb model parses what it transmits and drops such a
frame silently (unit/ip6.c's "header length past the payload" has it).

Written without scapy, which takes a minute to import under emulation;
checksums as RFC 1071 adds, over RFC 8200 §8.1's pseudo-header.
"""
import ipaddress
import os
import socket
import struct
import sys
import time


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def icmp6(src, dst, typ, code, body):
    """An ICMPv6 message with its checksum (RFC 4443 §2.3)."""
    msg = struct.pack("!BBH", typ, code, 0) + body
    pseudo = src + dst + struct.pack("!IxxxB", len(msg), 58)
    return msg[:2] + struct.pack("!H", csum(pseudo + msg)) + msg[4:]


def ip6(src, dst, nh, payload, hlim=64, plen=None):
    """The RFC 8200 §3 header: version 6, class and label 0."""
    if plen is None:
        plen = len(payload)
    return struct.pack("!IHBB", 6 << 28, plen, nh, hlim) + src + dst + payload


def eth(dst, src, payload):
    return (dst + src + struct.pack("!H", 0x86dd) + payload).ljust(60, b"\0")


def mac_of(iface):
    with open(f"/sys/class/net/{iface}/address") as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def solicited(a):
    return bytes.fromhex("ff0200000000000000000001ff") + a[13:]


def flood(iface, dst_ip, first_src, count):
    target = ipaddress.IPv6Address(dst_ip).packed
    grp = solicited(target)
    gmac = b"\x33\x33" + grp[12:]
    first = int(ipaddress.IPv6Address(first_src))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    t0 = time.monotonic()
    for i in range(count):
        src = ipaddress.IPv6Address(first + i).packed
        smac = struct.pack("!HI", 0x02a6, i + 1)
        body = b"\0" * 4 + target + bytes([1, 1]) + smac
        msg = icmp6(src, grp, 135, 0, body)
        s.send(eth(gmac, smac, ip6(src, grp, 58, msg, hlim=255)))
    print(f"sent {count} in {time.monotonic() - t0:.1f} s")


def malformed(iface, dmac, dst_ip, src_ip, count, drops_dir):
    dmac = bytes.fromhex(dmac.replace(":", ""))
    dst = ipaddress.IPv6Address(dst_ip).packed
    src = ipaddress.IPv6Address(src_ip).packed
    smac = mac_of(iface)
    echo = icmp6(src, dst, 128, 0, struct.pack("!HH", 0x77, 1) + b"ip6")

    def opts(nh, body):
        """An options header of 8 bytes: next header, length 0, 6 bytes."""
        return bytes([nh, 0]) + body

    pad6 = bytes([1, 4, 0, 0, 0, 0])	# PadN of 4 data bytes
    frames = [
        # a Fragment header (RFC 8200 §4.5), first fragment
        ("ip6_frag", "first fragment", ip6(src, dst, 44, bytes([58, 0, 0, 1, 0, 0, 0, 7]) + echo)),
        # Hop-by-Hop after a Destination Options header (§4.1)
        ("ip6_exthdr", "Hop-by-Hop after Destination Options",
         ip6(src, dst, 60, opts(0, pad6) + opts(58, pad6) + echo)),
        # nine Destination Options headers: over ixmod's bound of 8
        ("ip6_exthdr", "nine Destination Options headers",
         ip6(src, dst, 60, opts(60, pad6) * 8 + opts(58, pad6) + echo)),
        # an option running past its header
        ("ip6_exthdr", "option past its header",
         ip6(src, dst, 60, opts(58, bytes([1, 9, 0, 0, 0, 0])) + echo)),
        # Routing header type 4 with Segments Left 1 (§4.4)
        ("ip6_rthdr", "Routing type 4, segments left 1",
         ip6(src, dst, 43, bytes([58, 2, 4, 1, 0, 0, 0, 0]) + dst + echo)),
        # unknown options: 01 (discard), 10 and 11 (discard, problem)
        ("ip6_opt", "option type 01",
         ip6(src, dst, 60, opts(58, bytes([0x41, 4, 0, 0, 0, 0])) + echo)),
        ("ip6_opt", "option type 10",
         ip6(src, dst, 60, opts(58, bytes([0x81, 4, 0, 0, 0, 0])) + echo)),
        ("ip6_opt", "option type 11",
         ip6(src, dst, 60, opts(58, bytes([0xc1, 4, 0, 0, 0, 0])) + echo)),
        # an unknown next header, and No Next Header
        ("ip6_nexthdr", "next header 253", ip6(src, dst, 253, b"\0" * 16)),
        ("ip6_nexthdr", "No Next Header", ip6(src, dst, 59, b"")),
        # a payload length past the frame (padding included)
        ("ip6_plen", "payload length past the frame", ip6(src, dst, 58, echo, plen=200)),
        # version 4 in an IPv6 frame
        ("ip6_version", "version 4", struct.pack("!I", 4 << 28) + ip6(src, dst, 58, echo)[4:]),
        # to an address that is not the port's, from a group
        ("ip6_dst", "not our address", ip6(src, dst[:15] + b"\x99", 58, echo)),
        ("ip6_src", "source a group", ip6(bytes.fromhex("ff02" + "0" * 27 + "1"), dst, 58, echo)),
        # a wrong ICMPv6 checksum
        ("icmp6_csum", "ICMPv6 checksum", ip6(src, dst, 58, echo[:2] + b"\x12\x34" + echo[4:])),
        # a Neighbor Solicitation that was forwarded (hop limit 64)
        ("nd_invalid", "forwarded NS", ip6(src, dst, 58,
                           icmp6(src, dst, 135, 0, b"\0" * 4 + dst + bytes([1, 1]) + smac))),
        # UDP over IPv6 without its mandatory checksum (RFC 8200 §8.1)
        ("udp6_nocsum", "UDP over IPv6, checksum 0",
         ip6(src, dst, 17, struct.pack("!HHHH", 1234, 7, 8, 0))),
        # TCP over IPv6 with a checksum of 0 (RFC 9293 §3.1: verified over RFC 8200's
        # pseudo-header)
        ("tcp_csum", "TCP over IPv6, checksum 0",
         ip6(src, dst, 6, struct.pack("!HHIIHHHH", 1234, 7, 1, 0, 0x5002, 1024, 0, 0))),
    ]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    for name, label, pkt in frames:
        before = counters(drops_dir)
        for _ in range(count):
            s.send(eth(dmac, smac, pkt))
        deadline = time.monotonic() + 2
        while (counters(drops_dir).get(name, 0) - before.get(name, 0) < count
               and time.monotonic() < deadline):
            time.sleep(0.02)
        time.sleep(0.05)
        after = counters(drops_dir)
        moved = {k: after[k] - before.get(k, 0) for k in after
                 if after[k] != before.get(k, 0)}
        if moved == {name: count}:
            print("ok", name, label)
        else:
            print("bad", name, f"{label}: expected +{count}, moved", moved or "nothing")


def counters(drops_dir):
    c = {}
    for name in os.listdir(drops_dir):
        with open(os.path.join(drops_dir, name)) as f:
            c[name] = int(f.read())
    return c

if sys.argv[1] == "flood":
    flood(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
elif sys.argv[1] == "malformed":
    malformed(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]),
              sys.argv[7])
else:
    sys.exit(__doc__)
