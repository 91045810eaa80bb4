#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send malformed frames to ixmod's port and print what each should cost.

Usage: malformed.py IFACE DST_MAC DST_IP SRC_IP COUNT

Each line printed is "<drop counter> <count>": the ixmod drop counter
(/sys/kernel/ixmod/ports/<port>/drops/<name>) that must rise by exactly
<count>.  Frames are padded to 60 bytes on the wire, so only defects that
survive padding (and QEMU's transmit parser, see below) are sent here; the
host unit tests cover the rest.
"""
import sys

# The layers it needs, not scapy.all: loading every layer takes scapy
# three times as long, about a minute under the VM's emulation
from scapy.arch import get_if_hwaddr
from scapy.layers.inet import ICMP, IP
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw
from scapy.sendrecv import sendp

iface, dmac, dip, sip, count = sys.argv[1:6]
count = int(count)
# The sender's own MAC as source, always: scapy fills it in only for
# frames it can route (an IP layer), and leaves 00:00:00:00:00:00 on the
# others, which a Linux bridge between two taps drops as an invalid source
# (br_handle_frame(): is_valid_ether_addr()) before any NIC sees them.
smac = get_if_hwaddr(iface)
eth = Ether(src=smac, dst=dmac)


def ip(**kw):
    return IP(src=sip, dst=dip, **kw)


def raw_ip(hdr_bytes):
    return Ether(src=smac, dst=dmac, type=0x0800) / Raw(bytes(hdr_bytes))


def ip_bytes(pkt, **patch):
    b = bytearray(bytes(pkt))
    for off, val in patch.items():
        b[int(off[1:])] = val
    return b


base = ip(proto=1) / ICMP(type=8) / Raw(b"x" * 32)
cases = [
    ("ip_csum", eth / ip(chksum=0x1234) / ICMP() / Raw(b"y" * 32)),
    ("ip_version", raw_ip(ip_bytes(base, o0=0x65))),
    # No bad IHL here: the peer's emulated NIC parses every frame it sends
    # and silently drops one whose IHL is below 5 or past the datagram
    # (QEMU's net_tx_pkt_parse), so it never reaches ixmod.  The host unit
    # tests and the fuzzer cover ip_hlen.
    ("ip_totlen", eth / ip(len=1400) / ICMP() / Raw(b"z" * 32)),
    ("ip_totlen", eth / ip(len=16) / ICMP() / Raw(b"z" * 32)),
    ("ip_frag", eth / ip(flags="MF") / ICMP() / Raw(b"f" * 32)),
    ("ip_frag", eth / ip(frag=100) / ICMP() / Raw(b"f" * 32)),
    ("ip_ttl", eth / ip(ttl=0) / ICMP() / Raw(b"t" * 32)),
    ("ip_dst", eth / IP(src=sip, dst="198.18.0.99") / ICMP() / Raw(b"d" * 32)),
    ("ip_proto", eth / ip(proto=99) / Raw(b"p" * 32)),
    ("icmp_csum", eth / ip() / ICMP(chksum=0x4321) / Raw(b"c" * 32)),
    ("icmp_type", eth / ip() / ICMP(type=13) / Raw(b"q" * 32)),
    ("eth_type", Ether(src=smac, dst=dmac, type=0x88B5) / Raw(b"e" * 46)),
    ("arp_malformed", eth / ARP(hwlen=8, op=1, pdst=dip, psrc=sip)),
    ("arp_op", eth / ARP(op=3, pdst=dip, psrc=sip)),
]

expect = {}
frames = []
for name, pkt in cases:
    expect[name] = expect.get(name, 0) + count
    frames += [pkt] * count
sendp(frames, iface=iface, verbose=False, inter=0.002)
for name, n in expect.items():
    print(name, n)
