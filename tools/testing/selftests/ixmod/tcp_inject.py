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

  tcp_inject.py mss IFACE DUT_MAC DUT_IP DUT_PORT --mss M,... [--mss-no-ts M,...]
          [--bytes N]
      For each M, a raw-socket client that names MSS M (0 included) on its
      SYN, with timestamps (without for --mss-no-ts), and a window of
      65535 << 7, from the made-up address --src (default 198.18.0.200)
      at IFACE's own MAC address (the peer's kernel drops the DUT's answers, as they are not
      for its address, instead of resetting them).  It acknowledges every
      segment and reads N bytes (default 65536) of tcp-echo --source's
      pattern to the DUT's FIN, then closes.  Every segment must fit the
      1500-byte MTU, have an IP total length that is its frame's and a
      right TCP checksum, and carry at most the MSS budget: M (0: 536),
      at least 64 + options and at most 1460, less 12 for timestamps.
      Prints what it saw and "ok|not ok mss M with|without timestamps"
      for each; exits 0 only if every one checked out.

  tcp_inject.py ooo IFACE DUT_MAC DUT_IP DUT_PORT [--conns N] [--bytes B]
                [--hole H] [--segs S] [--seg-bytes L] [--stride D] [--ready FILE]
      N Linux connections to DUT_IP:DUT_PORT, each sending B bytes in
      order; then on each S forged segments of L bytes (default 1 of
      300), the first H bytes past the end of them (a hole the DUT must
      keep them behind: out of order), each D bytes after the one before
      (default L: touching).  The sequence numbers come from the
      handshake, read on a packet socket, so no probe disturbs the
      connection.  Writes FILE once done, then keeps the connections open
      until SIGTERM, which resets them.  Issue 35's flood is --bytes 0
      --hole 1 --segs 64 --seg-bytes 1 --stride 2: one-byte segments that
      touch no other, so none can share a buffer.

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
        if a.bytes:
            c.sendall(os.urandom(a.bytes))
        conns.append((c, socket.inet_aton(sip), lport, isn, dut_isn))
    # every byte acknowledged, so that the hole is where it is meant to be
    deadline = time.monotonic() + 20
    for c, *_ in conns:
        while struct.unpack("I", fcntl_outq(c))[0] and time.monotonic() < deadline:
            time.sleep(0.05)
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    raw.bind((a.iface, 0))
    stride = a.stride or a.seg_bytes
    for c, sip, lport, isn, dut_isn in conns:
        for k in range(a.segs):
            seq = (isn + 1 + a.bytes + a.hole + k * stride) & M32
            raw.send(tcp_data_frame(smac, dmac, sip, dip, lport, a.dut_port, seq,
                                    (dut_isn + 1) & M32, b"O" * a.seg_bytes))
    print(f"# {a.conns} connections: {a.bytes} bytes in order, then {a.segs} of "
          f"{a.seg_bytes} bytes {stride} apart past a {a.hole}-byte hole")
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


def tcp_frame(smac, dmac, sip, dip, sport, dport, seq, ack, flags, win, opts=b"",
              payload=b""):
    """An Ethernet frame with a TCP segment, checksums set."""
    opts += b"\0" * (-len(opts) % 4)
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (5 + len(opts) // 4) << 4,
                      flags, win, 0, 0) + opts + payload
    pseudo = struct.pack("!4s4sBBH", sip, dip, 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", csum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), random.getrandbits(16),
                     0x4000, 64, 6, 0, sip, dip)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dmac + smac + b"\x08\x00" + ip + tcp


def parse_tcp(f):
    """(ip, tcp, opts, payload, error) of an IPv4/TCP frame; error says
    what is wrong with its lengths or checksum, or is None."""
    if len(f) < 14 + 20 or f[12:14] != b"\x08\x00" or f[14] >> 4 != 4:
        return None
    ihl = (f[14] & 15) * 4
    tot = struct.unpack("!H", f[16:18])[0]
    if f[23] != 6:
        return None
    ip = {"tot": tot, "src": f[26:30], "dst": f[30:34]}
    if tot > 1500:
        return ip, None, None, None, f"IP total length {tot} over the 1500-byte MTU"
    # a frame shorter than 60 bytes is padded by the sender (RFC 894)
    if 14 + tot != len(f) and not (len(f) == 60 and 14 + tot < 60):
        return ip, None, None, None, f"IP total length {tot} in a frame of {len(f)} bytes"
    t = f[14 + ihl:14 + tot]
    if len(t) < 20:
        return ip, None, None, None, "TCP header cut short"
    sport, dport, seq, ack, doff, flags, win = struct.unpack("!HHIIBBH", t[:16])
    doff = (doff >> 4) * 4
    if doff < 20 or doff > len(t):
        return ip, None, None, None, f"TCP data offset {doff} in {len(t)} bytes"
    if csum(struct.pack("!4s4sBBH", ip["src"], ip["dst"], 0, 6, len(t)) + t):
        return ip, None, None, None, "TCP checksum"
    opts = {}
    o = t[20:doff]
    while o:
        if o[0] == 0:
            break
        if o[0] == 1:
            o = o[1:]
            continue
        if len(o) < 2 or o[1] < 2:
            break
        if o[0] == 2 and o[1] == 4:
            opts["mss"] = struct.unpack("!H", o[2:4])[0]
        if o[0] == 8 and o[1] == 10:
            opts["ts"] = struct.unpack("!II", o[2:10])
        o = o[o[1]:]
    tcp = {"sport": sport, "dport": dport, "seq": seq, "ack": ack, "flags": flags,
           "win": win, "doff": doff}
    return ip, tcp, opts, t[doff:], None


def mss_budget(mss, ts):
    """The most data a segment may carry for a peer's MSS option (ixmod's
    ixm_tcp_set_mss(): RFC 9293 3.7.1, RFC 6691 2, a floor of 64)."""
    opt = 12 if ts else 0
    m = mss or 536
    return min(max(m, 64 + opt), 1460) - opt


def mss_conn(a, mss, no_ts):
    """One connection: a SYN with MSS @mss, then a.bytes of the pattern.

    Prints what it saw; returns 0 if everything checked out.
    """
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
    s.bind((a.iface, 0x0800))
    s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)   # SO_RCVBUFFORCE (root)
    with open(f"/sys/class/net/{a.iface}/address") as f:
        smac = mac_bytes(f.read().strip())
    dmac = mac_bytes(a.dut_mac)
    sip, dip = socket.inet_aton(a.src), socket.inet_aton(a.dut_ip)
    sport = random.randint(20000, 60000)
    iss = random.getrandbits(32)
    tsval = random.getrandbits(31)
    s.send(arp_request(smac, dmac, sip, dip))
    # The pattern: imported here, so that tcp_inject.py stands alone otherwise
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from tcp_check import pattern

    def send(flags, seq, ack, opts=b""):
        nonlocal tsval
        if ts:
            tsval += 1
            opts += b"\1\1" + struct.pack("!BBII", 8, 10, tsval, ts_recent)
        s.send(tcp_frame(smac, dmac, sip, dip, sport, a.dut_port, seq, ack, flags,
                         65535, opts))

    def segments(deadline):
        """The DUT's segments to us, parsed and checked, until @deadline."""
        while time.monotonic() < deadline:
            s.settimeout(max(deadline - time.monotonic(), 0.001))
            try:
                f, addr = s.recvfrom(65536)
            except socket.timeout:
                return
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            r = parse_tcp(f)
            if r is None or r[0]["src"] != dip or r[0]["dst"] != sip:
                continue
            if r[4] is None and (r[1]["sport"] != a.dut_port or r[1]["dport"] != sport):
                continue
            yield r

    errors = []
    ts = False
    ts_recent = 0
    syn_opts = struct.pack("!BBH", 2, 4, mss) + b"\1\3\3\7"
    if not no_ts:
        syn_opts += b"\1\1" + struct.pack("!BBII", 8, 10, tsval, 0)
    synack = None
    for _ in range(5):
        s.send(tcp_frame(smac, dmac, sip, dip, sport, a.dut_port, iss, 0, 0x02, 65535,
                         syn_opts))
        for ip, tcp, opts, payload, err in segments(time.monotonic() + 1):
            if err:
                errors.append(err)
            elif tcp["flags"] & 0x12 == 0x12 and tcp["ack"] == (iss + 1) & M32:
                synack = tcp, opts
                break
        if synack:
            break
    if not synack:
        print(f"# mss {mss}: no SYN-ACK")
        for e in errors[:10]:
            print(f"# {e}")
        return 1
    tcp, opts = synack
    ts = "ts" in opts
    if ts:
        ts_recent = opts["ts"][0]
    if ts == no_ts:
        errors.append(f"timestamps {'agreed' if ts else 'refused'}, asked {not no_ts}")
    budget = mss_budget(mss, ts)
    irs = tcp["seq"]
    rcv_nxt = (irs + 1) & M32
    snd_nxt = (iss + 1) & M32
    send(0x10, snd_nxt, rcv_nxt)

    data = bytearray()
    nseg = largest = 0
    fin = False
    start = time.monotonic()
    deadline = start + a.timeout
    for ip, tcp, opts, payload, err in segments(deadline):
        if err:
            errors.append(err)
            continue
        if tcp["flags"] & 0x04:
            errors.append(f"RST after {len(data)} bytes")
            break
        if "ts" in opts:
            ts_recent = opts["ts"][0]
        if payload:
            nseg += 1
            largest = max(largest, len(payload))
            if len(payload) > budget:
                errors.append(f"a segment of {len(payload)} bytes over the budget {budget}")
        if tcp["seq"] == rcv_nxt:
            data += payload
            rcv_nxt = (rcv_nxt + len(payload)) & M32
            if tcp["flags"] & 0x01:
                rcv_nxt = (rcv_nxt + 1) & M32
                fin = True
        if payload or tcp["flags"] & 0x01:
            send(0x10, snd_nxt, rcv_nxt)
        if fin:
            break
    secs = time.monotonic() - start
    # close our half and wait for its ACK (the DUT keeps TIME_WAIT)
    closed = False
    if fin:
        for _ in range(4):
            send(0x11, snd_nxt, rcv_nxt)
            for ip, tcp, opts, payload, err in segments(time.monotonic() + 0.5):
                if not err and tcp["flags"] & 0x10 and tcp["ack"] == (snd_nxt + 1) & M32:
                    closed = True
                    break
            if closed:
                break
    print(f"# mss {mss}, timestamps {'on' if ts else 'off'}: {nseg} data segments, "
          f"the largest {largest} bytes (budget {budget}), {len(data)} of {a.bytes} bytes "
          f"in {secs:.1f} s{', FIN' if fin else ''}{', closed' if closed else ''}")
    if len(data) != a.bytes:
        errors.append(f"{len(data)} bytes arrived for {a.bytes}")
    elif data != pattern(0, a.bytes):
        want = pattern(0, a.bytes)
        errors.append(f"byte {next(i for i in range(a.bytes) if data[i] != want[i])} "
                      "is not the pattern's")
    if not fin or not closed:
        errors.append("no FIN from the DUT" if not fin else "our FIN was not acknowledged")
    for e in errors[:10]:
        print(f"# {e}")
    return 1 if errors else 0


def cmd_mss(a):
    """One connection per MSS of --mss (timestamps) and of --mss-no-ts."""
    sys.stdout.reconfigure(line_buffering=True)     # a timeout(1) kill keeps the lines
    cases = [(int(m), False) for m in a.mss.split(",") if m]
    cases += [(int(m), True) for m in a.mss_no_ts.split(",") if m]
    failed = 0
    for mss, no_ts in cases:
        rc = mss_conn(a, mss, no_ts)
        failed += rc != 0
        print(f"{'not ok' if rc else 'ok'} mss {mss} {'without' if no_ts else 'with'} timestamps")
    return 1 if failed else 0


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
    p = sub.add_parser("mss")
    p.add_argument("iface")
    p.add_argument("dut_mac")
    p.add_argument("dut_ip")
    p.add_argument("dut_port", type=int)
    p.add_argument("--mss", default="", help="MSS options, comma-separated: one "
                   "connection each, with timestamps")
    p.add_argument("--mss-no-ts", default="", help="the same, without timestamps")
    p.add_argument("--bytes", type=int, default=65536)
    p.add_argument("--src", default="198.18.0.200", help="the client's made-up address")
    p.add_argument("--timeout", type=float, default=40)
    p = sub.add_parser("ooo")
    p.add_argument("iface")
    p.add_argument("dut_mac")
    p.add_argument("dut_ip")
    p.add_argument("dut_port", type=int)
    p.add_argument("--conns", type=int, default=4)
    p.add_argument("--bytes", type=int, default=3000)
    p.add_argument("--hole", type=int, default=1000)
    p.add_argument("--segs", type=int, default=1, help="forged segments per connection")
    p.add_argument("--seg-bytes", type=int, default=300, help="bytes in each")
    p.add_argument("--stride", type=int, default=0,
                   help="sequence space from one to the next (0: --seg-bytes)")
    p.add_argument("--ready", help="written once the segments are sent")
    a = ap.parse_args()
    return globals()["cmd_" + a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
