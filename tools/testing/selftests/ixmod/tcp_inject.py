#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tcp_inject.py - forged TCP segments against ixmod, from the peer (scapy).

  tcp_inject.py synflood IFACE DUT_MAC DUT_IP PORT [--seconds S] [--stop FILE]
      SYNs from spoofed addresses (--spoof, default 198.18.0.128/26) at
      PORT for S seconds, or until FILE exists.  Built with struct on a
      raw socket: importing scapy alone takes many seconds under
      emulation.  Each spoofed address is first announced to the
      DUT with an ARP request giving a made-up MAC address, so the DUT's
      SYN-ACKs go to a station that does not exist: the half-open
      connections stay open and fill the listener's backlog, and no
      kernel answers them with a RST.  Prints "# N SYNs sent".

  tcp_inject.py inject IFACE DUT_MAC DUT_IP DUT_PORT PEER_IP PEER_PORT
      Forged segments into the live connection PEER_IP:PEER_PORT ->
      DUT_IP:DUT_PORT (read from `ss -tn`): RSTs and a SYN at wrong
      sequence numbers, data outside the window, data whose ACK is not
      acceptable.  None may reset the connection or add a byte to its
      stream (RFC 9293 §3.10.7.4, RFC 5961).  First a bare ACK at a random
      sequence number makes the DUT answer with an ACK that gives its
      SND.NXT and RCV.NXT, so the forgeries land where they are meant to.
      Exits 0 once everything was sent; the caller checks the connection.

  tcp_inject.py ooo IFACE DUT_MAC DUT_IP DUT_PORT [--conns N] [--bytes B]
                [--hole H] [--ready FILE]
      N Linux connections to DUT_IP:DUT_PORT, each sending B bytes in
      order; then on each a forged segment of 300 bytes H bytes past the
      end of them (a hole the DUT must keep it behind: out of order).  The
      sequence numbers come from the handshake, read on a packet socket,
      so no probe disturbs the connection.  Writes FILE once done, then
      keeps the connections open until SIGTERM, which resets them.

Run as root with /usr/bin/python3 (Debian's python3-scapy).
"""
import argparse
import ipaddress
import os
import random
import socket
import struct
import sys
import time

M32 = 0xFFFFFFFF


def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


def csum(data):
    """RFC 1071 Internet checksum."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def syn_frame(smac, dmac, sip, dip, sport, dport, seq):
    """An Ethernet frame with a SYN carrying an MSS option, checksums set.

    Built by hand: scapy takes milliseconds a packet under emulation, and a
    flood wants thousands.
    """
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 6 << 4, 0x02, 64240, 0, 0)
    tcp += struct.pack("!BBH", 2, 4, 1460)
    pseudo = struct.pack("!4s4sBBH", sip, dip, 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", csum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), random.getrandbits(16),
                     0x4000, 64, 6, 0, sip, dip)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dmac + smac + b"\x08\x00" + ip + tcp


def arp_request(smac, dmac, sip, dip):
    """"Who has DIP? Tell SIP at SMAC", unicast to the DUT: RFC 826 makes
    the target learn SIP -> SMAC."""
    arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, smac, sip, b"\0" * 6, dip)
    return dmac + smac + b"\x08\x06" + arp


def cmd_synflood(a):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    dmac = mac_bytes(a.dut_mac)
    dip = socket.inet_aton(a.dut_ip)
    hosts = list(ipaddress.ip_network(a.spoof).hosts())
    spoofed = [(socket.inet_aton(str(ip)), bytes([0x02, 0, 0, 0x5e, i >> 8, i & 0xFF]))
               for i, ip in enumerate(hosts)]
    end = time.monotonic() + a.seconds
    announce = 0.0
    sent = 0
    while time.monotonic() < end and not (a.stop and os.path.exists(a.stop)):
        if time.monotonic() >= announce:
            # again every few seconds, before the DUT's translations age
            for sip, smac in spoofed:
                s.send(arp_request(smac, dmac, sip, dip))
            announce = time.monotonic() + 5
            time.sleep(0.05)
        for _ in range(64):
            sip, smac = random.choice(spoofed)
            s.send(syn_frame(smac, dmac, sip, dip, random.randint(1024, 65535),
                             a.port, random.getrandbits(32)))
            sent += 1
        if a.rate:
            time.sleep(64 / a.rate)
    print(f"# {sent} SYNs sent from {len(spoofed)} spoofed addresses in "
          f"{time.monotonic() - end + a.seconds:.0f} s")
    return 0


def tcp_data_frame(smac, dmac, sip, dip, sport, dport, seq, ack, payload):
    """A PSH+ACK segment with @payload, checksums set, no options."""
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, 0x18, 502, 0, 0)
    pseudo = struct.pack("!4s4sBBH", sip, dip, 0, 6, len(tcp) + len(payload))
    tcp = tcp[:16] + struct.pack("!H", csum(pseudo + tcp + payload)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload),
                     random.getrandbits(16), 0x4000, 64, 6, 0, sip, dip)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dmac + smac + b"\x08\x00" + ip + tcp + payload


def handshake_isns(sniff, dip, dport, lport, deadline):
    """(our ISN, the DUT's ISN) from the SYN and SYN-ACK seen on @sniff."""
    isn = dut_isn = None
    while (isn is None or dut_isn is None) and time.monotonic() < deadline:
        try:
            f = sniff.recv(2048)
        except socket.timeout:
            continue
        if len(f) < 54 or f[12:14] != b"\x08\x00" or f[23] != 6:
            continue
        ihl = (f[14] & 15) * 4
        sport, dp, seq = struct.unpack("!HHI", f[14 + ihl:14 + ihl + 8])
        flags = f[14 + ihl + 13]
        if f[30:34] == dip and dp == dport and sport == lport and flags == 0x02:
            isn = seq
        elif f[26:30] == dip and sport == dport and dp == lport and flags == 0x12:
            dut_isn = seq
    return isn, dut_isn


def cmd_ooo(a):
    import signal

    conns = []

    def reset_all(*_):
        # RSTs, not FINs: an orphaned socket would keep the namespace (and
        # the peer's NIC in it) alive after the test deleted it
        for c, *_ in conns:
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            c.close()
        sys.exit(0)

    signal.signal(signal.SIGTERM, reset_all)
    with open(f"/sys/class/net/{a.iface}/address") as f:
        smac = mac_bytes(f.read().strip())
    dmac = mac_bytes(a.dut_mac)
    dip = socket.inet_aton(a.dut_ip)
    sniff = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))  # ETH_P_ALL
    sniff.bind((a.iface, 3))
    sniff.settimeout(0.2)
    for _ in range(a.conns):
        c = socket.create_connection((a.dut_ip, a.dut_port), timeout=10)
        sip, lport = c.getsockname()
        isn, dut_isn = handshake_isns(sniff, dip, a.dut_port, lport, time.monotonic() + 5)
        if isn is None or dut_isn is None:
            print("# the handshake was not seen on the packet socket")
            return 1
        c.sendall(os.urandom(a.bytes))
        conns.append((c, socket.inet_aton(sip), lport, isn, dut_isn))
    # every byte acknowledged, so that the hole is where it is meant to be
    deadline = time.monotonic() + 20
    for c, *_ in conns:
        while struct.unpack("I", fcntl_outq(c))[0] and time.monotonic() < deadline:
            time.sleep(0.05)
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    raw.bind((a.iface, 0))
    for c, sip, lport, isn, dut_isn in conns:
        seq = (isn + 1 + a.bytes + a.hole) & M32
        raw.send(tcp_data_frame(smac, dmac, sip, dip, lport, a.dut_port, seq,
                                (dut_isn + 1) & M32, b"O" * 300))
    print(f"# {a.conns} connections: {a.bytes} bytes in order, 300 past a {a.hole}-byte hole")
    sys.stdout.flush()
    if a.ready:
        with open(a.ready, "w"):
            pass
    while True:
        time.sleep(1)


def fcntl_outq(sock):
    """SIOCOUTQ: bytes not yet acknowledged by the DUT."""
    import fcntl

    return fcntl.ioctl(sock.fileno(), 0x5411, b"\0" * 4)


def cmd_inject(a):
    from scapy.all import IP, TCP, AsyncSniffer, Ether, Raw, conf, get_if_hwaddr

    conf.sniff_promisc = False      # see only what is addressed to the peer
    eth = Ether(src=get_if_hwaddr(a.iface), dst=a.dut_mac)

    def seg(payload=b"", **kw):
        p = eth / IP(src=a.peer_ip, dst=a.dut_ip) / TCP(sport=a.peer_port,
                                                        dport=a.dut_port, window=502, **kw)
        return p / Raw(payload) if payload else p

    def from_dut(p):
        return (TCP in p and p[IP].src == a.dut_ip and p[TCP].sport == a.dut_port and
                p[TCP].dport == a.peer_port)

    sock = conf.L2socket(iface=a.iface)
    reply = None
    # a bare ACK changes nothing, wherever it lands; a SYN if that stays unanswered
    for flags in ("A", "A", "S"):
        sniffer = AsyncSniffer(iface=a.iface, lfilter=from_dut, count=1, timeout=2,
                               started_callback=lambda f=flags: sock.send(
                                   seg(flags=f, seq=random.getrandbits(32),
                                       ack=random.getrandbits(32) if f == "A" else 0)))
        sniffer.start()
        sniffer.join()
        if sniffer.results:
            reply = sniffer.results[0][TCP]
            break
    if reply is None:
        print("# the DUT never answered a probe: cannot learn the sequence numbers")
        return 1
    snd_nxt, rcv_nxt = reply.seq, reply.ack     # the DUT's
    print(f"# DUT SND.NXT {snd_nxt}, RCV.NXT {rcv_nxt}, window {reply.window}")

    def at(base, delta):
        return (base + delta) & M32

    cases = [
        ("RSTs in the window, not at RCV.NXT (RFC 5961 §3.2: challenge ACK)",
         [seg(flags="R", seq=at(rcv_nxt, 1 + 97 * i)) for i in range(8)]),
        ("RST+ACKs in the window, not at RCV.NXT",
         [seg(flags="RA", seq=at(rcv_nxt, 50 + i), ack=snd_nxt) for i in range(4)]),
        ("RSTs outside the window (dropped)",
         [seg(flags="R", seq=at(rcv_nxt, 1 << 30 | i)) for i in range(4)] +
         [seg(flags="R", seq=at(rcv_nxt, -70000 - i)) for i in range(4)]),
        ("data far beyond the window (RFC 9293 §3.10.7.4: ACK, drop)",
         [seg(b"X" * 100, flags="PA", seq=at(rcv_nxt, 1 << 30), ack=snd_nxt)] * 4),
        ("data before the window (old duplicate: ACK, drop)",
         [seg(b"O" * 100, flags="PA", seq=at(rcv_nxt, -5000), ack=snd_nxt)] * 2),
        ("data at RCV.NXT acknowledging bytes never sent (ACK, drop)",
         [seg(b"Y" * 100, flags="PA", seq=rcv_nxt, ack=at(snd_nxt, 1 << 30))]),
        ("data at RCV.NXT with an ACK older than the window (RFC 5961 §5.2: drop)",
         [seg(b"Z" * 100, flags="PA", seq=rcv_nxt, ack=at(snd_nxt, -(1 << 30)))]),
        ("ACKs for bytes never sent (ACK, drop)",
         [seg(flags="A", seq=rcv_nxt, ack=at(snd_nxt, 100000 + i)) for i in range(4)]),
        ("a SYN in the window (RFC 5961 §4.2: challenge ACK)",
         [seg(flags="S", seq=at(rcv_nxt, 10))]),
    ]
    # Stacks rate-limit the ACKs they send to unacceptable segments (RFC
    # 5961 §7; Linux: one per 500 ms and connection), so leave time after
    # the probe's answer and between the cases for each to be answered.
    for what, pkts in cases:
        time.sleep(a.gap)
        for p in pkts:
            sock.send(p)
        print(f"# sent {len(pkts)}: {what}")
    sock.close()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("synflood")
    p.add_argument("iface")
    p.add_argument("dut_mac")
    p.add_argument("dut_ip")
    p.add_argument("port", type=int)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--stop", help="stop as soon as this file exists")
    p.add_argument("--spoof", default="198.18.0.128/26")
    p.add_argument("--rate", type=float, default=0, help="SYNs per second (0: flat out)")
    p = sub.add_parser("inject")
    p.add_argument("iface")
    p.add_argument("dut_mac")
    p.add_argument("dut_ip")
    p.add_argument("dut_port", type=int)
    p.add_argument("peer_ip")
    p.add_argument("peer_port", type=int)
    p.add_argument("--gap", type=float, default=0.6, help="seconds between the cases")
    p = sub.add_parser("ooo")
    p.add_argument("iface")
    p.add_argument("dut_mac")
    p.add_argument("dut_ip")
    p.add_argument("dut_port", type=int)
    p.add_argument("--conns", type=int, default=4)
    p.add_argument("--bytes", type=int, default=3000)
    p.add_argument("--hole", type=int, default=1000)
    p.add_argument("--ready", help="written once the segments are sent")
    a = ap.parse_args()
    return globals()["cmd_" + a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
