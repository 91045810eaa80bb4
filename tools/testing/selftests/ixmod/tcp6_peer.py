#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tcp6_peer.py - Linux's TCP over IPv6 against ixmod, what echoes cannot show.

Usage: tcp6_peer.py opts IFACE HOST PORT
       tcp6_peer.py refused HOST PORT
       tcp6_peer.py badcsum IFACE DST_MAC DST_IP6 SRC_IP6 PORT COUNT DROPS_DIR
       tcp6_peer.py ptb IFACE DST_MAC DST_IP6 SRC_IP6 PORT MTU BYTES [SPORT]

opts: one connection to HOST (an IPv6 address, fe80::...%IFACE for a
link-local one) and PORT, 64 KiB echoed, while an AF_PACKET socket on
IFACE records the server's segments: its SYN-ACK must carry MSS 1440
(RFC 8200's 40-byte header: 1500 - 40 - 20) and SACK-permitted (RFC
2018), no segment of it may carry more than 1440 bytes (IFACE without
GRO, which would merge them), and Linux's TCP_INFO must say SACK was
agreed (`ss -ti` is printed beside it).  The MSS is read from
the SYN-ACK itself: Linux clamps what it sends to its own MTU, so its
socket would show 1440 (less the timestamps) even for a server that
announced 1460.

refused: a connection to HOST and PORT must fail with ECONNREFUSED (the
server answered the SYN with a RST).

badcsum: COUNT SYNs from SRC_IP6 to DST_IP6 at DST_MAC, PORT (a
listener), with a wrong TCP checksum, then COUNT whose checksum is right
over an IPv4-style pseudo-header (not RFC 8200 §8.1's), each batch then
a wait (2 s at most) for DROPS_DIR/tcp_csum to rise by COUNT; a line
"ok ..." when it rose by exactly COUNT, no other drop counter moved and
no segment came back from PORT, else "bad ...".

ptb: one connection to DST_IP6 and PORT (an echo server), BYTES random
bytes echoed, while the path plays a router whose next link takes MTU
bytes: the caller's nftables drops the server's larger packets (after
IFACE's AF_PACKET socket saw them), and for them this sends the server
ICMPv6 Packet Too Bigs (RFC 4443 §3.2, from SRC_IP6, MTU MTU) quoting
the newest, one at first and then at most one each 100 ms while large
ones keep coming.  Passes when the echo is exact (SHA-256), a PTB went
out, and once a segment of exactly MTU bytes came (the new MSS in use),
no larger one followed (the server's segments leave in order).  SPORT:
the connection's source port (default: any).

Plain sockets and byte-by-byte frames (scapy takes a minute to import
under emulation).  Exits 0 only if everything checked out.
"""
import hashlib
import ipaddress
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time

ETH_P_IPV6 = 0x86dd


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


class Capture:
    """TCP over IPv6 segments from @sport seen on @iface, in a thread."""

    def __init__(self, iface, sport, keep=False):
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IPV6))
        self.s.bind((iface, ETH_P_IPV6))
        self.s.settimeout(0.2)
        self.sport = sport
        self.segs = []		# (flags, options bytes, payload length)
        self.keep = keep
        self.pkts = []		# with @keep: (time.monotonic(), IPv6 packet)
        self.stop = False
        self.t = threading.Thread(target=self.run)
        self.t.start()

    def run(self):
        while not self.stop:
            try:
                f, addr = self.s.recvfrom(65535)
            except socket.timeout:
                continue
            if addr[2] == socket.PACKET_OUTGOING or len(f) < 14 + 40 + 20:
                continue
            ip = f[14:]
            plen, nh = struct.unpack_from("!HB", ip, 4)
            if nh != 6:
                continue
            tcp = ip[40:40 + plen]
            sport, = struct.unpack_from("!H", tcp, 0)
            if sport != self.sport:
                continue
            doff = (tcp[12] >> 4) * 4
            self.segs.append((tcp[13], tcp[20:doff], plen - doff))
            if self.keep:
                self.pkts.append((time.monotonic(), bytes(ip[:40 + plen])))

    def done(self):
        self.stop = True
        self.t.join()
        self.s.close()
        return self.segs


def options(raw):
    """{kind: value bytes} of a TCP options block."""
    out, i = {}, 0
    while i < len(raw):
        kind = raw[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(raw) or raw[i + 1] < 2:
            break
        out[kind] = raw[i + 2:i + raw[i + 1]]
        i += raw[i + 1]
    return out


def echo(s, payload):
    err = []

    def sender():
        try:
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            err.append(f"send: {e}")

    t = threading.Thread(target=sender)
    t.start()
    back = bytearray()
    while True:
        buf = s.recv(65536)
        if not buf:
            break
        back += buf
    t.join()
    return not err and bytes(back) == payload, len(back)


def cmd_opts(iface, host, port):
    cap = Capture(iface, port)
    time.sleep(0.3)
    ok = True
    try:
        s = socket.create_connection((host, port), timeout=60)
        ti = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 32)
        lport = s.getsockname()[1]
        ss = subprocess.run(["ss", "-tin", "state", "established",
                             f"( sport = :{lport} )"], capture_output=True, text=True,
                            check=False).stdout
        same, n = echo(s, os.urandom(65536))
        s.close()
    finally:
        time.sleep(0.3)
        segs = cap.done()
    info = " ".join(ss.split("\n")[1:]).strip()
    print(f"# ss -ti: {info}")
    print(f"# TCP_INFO: options 0x{ti[5]:x}, snd_mss {struct.unpack_from('I', ti, 16)[0]}")
    if not same:
        print(f"# the 64 KiB echo differs ({n} bytes back)")
        ok = False
    synack = [o for fl, o, _ in segs if fl & 0x12 == 0x12]
    if not synack:
        print("# no SYN-ACK seen from the server")
        return 1
    o = options(synack[0])
    mss = struct.unpack("!H", o[2])[0] if len(o.get(2, b"")) == 2 else None
    print(f"# SYN-ACK options: {sorted(o)}, MSS {mss}")
    if mss != 1440:
        print(f"# the SYN-ACK announced MSS {mss}, not 1440")
        ok = False
    if 4 not in o:
        print("# the SYN-ACK carried no SACK-permitted")
        ok = False
    if not ti[5] & 2:
        print("# SACK was not agreed (TCP_INFO)")
        ok = False
    elif not re.search(r"(^|\s)sack(\s|$)", info):
        print("# sack: agreed (TCP_INFO), though this ss does not show it")
    big = max((ln for _, _, ln in segs), default=0)
    print(f"# {len(segs)} segments from the server, the largest {big} bytes")
    if not 1000 < big <= 1440:
        print("# its largest segment is not between 1000 and 1440 bytes")
        ok = False
    return 0 if ok else 1


def cmd_refused(host, port):
    try:
        s = socket.create_connection((host, port), timeout=20)
    except ConnectionRefusedError:
        print("# ECONNREFUSED")
        return 0
    except OSError as e:
        print(f"# {e}, not ECONNREFUSED")
        return 1
    s.close()
    print("# connected: not refused")
    return 1


def counters(d):
    c = {}
    for name in os.listdir(d):
        with open(os.path.join(d, name)) as f:
            c[name] = int(f.read())
    return c


def cmd_badcsum(iface, dmac, dst_ip, src_ip, port, count, drops):
    dmac = bytes.fromhex(dmac.replace(":", ""))
    with open(f"/sys/class/net/{iface}/address") as f:
        smac = bytes.fromhex(f.read().strip().replace(":", ""))
    dst = ipaddress.IPv6Address(dst_ip).packed
    src = ipaddress.IPv6Address(src_ip).packed

    def syn(sport, how):
        # MSS 1440, SACK-permitted, NOP NOP
        opts = struct.pack("!BBH", 2, 4, 1440) + bytes([4, 2, 1, 1])
        tcp = struct.pack("!HHIIHHHH", sport, port, 1000 + sport, 0,
                          (5 + len(opts) // 4) << 12 | 0x02, 64240, 0, 0) + opts
        pseudo = src + dst + struct.pack("!IxxxB", len(tcp), 6)
        c = csum(pseudo + tcp)
        if how == "wrong":
            c ^= 0x0101
        else:	# RFC 793's IPv4 pseudo-header, over the low 32 bits
            c = csum(src[12:] + dst[12:] + struct.pack("!xBH", 6, len(tcp)) + tcp)
        tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
        ip6 = struct.pack("!IHBB", 6 << 28, len(tcp), 6, 64) + src + dst + tcp
        return (dmac + smac + struct.pack("!H", ETH_P_IPV6) + ip6).ljust(60, b"\0")

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    bad = 0
    for how, label in (("wrong", "a wrong TCP checksum"),
                       ("ipv4", "a checksum over the IPv4 pseudo-header")):
        cap = Capture(iface, port)
        time.sleep(0.2)
        before = counters(drops)
        for i in range(count):
            s.send(syn(41000 + i, how))
        deadline = time.monotonic() + 2
        while (counters(drops).get("tcp_csum", 0) - before.get("tcp_csum", 0) < count
               and time.monotonic() < deadline):
            time.sleep(0.02)
        time.sleep(0.3)
        after = counters(drops)
        answers = [fl for fl, _, _ in cap.done()]
        moved = {k: after[k] - before.get(k, 0) for k in after
                 if after[k] != before.get(k, 0)}
        if moved == {"tcp_csum": count} and not answers:
            print(f"ok tcp_csum {label}")
        else:
            bad += 1
            print(f"bad tcp_csum {label}: expected +{count}, moved {moved or 'nothing'},"
                  f" {len(answers)} segments back")
    return 1 if bad else 0


def dump_flow(pkts, most=400):
    """For a failure's diagnosis: the server's segments as the peer's
    interface got them (before its firewall), in time order: sequence
    number relative to the SYN-ACK's, the acknowledgment relative to the
    first one seen, the raw window field (unscaled)."""
    isn = ack0 = None
    t0 = pkts[0][0] if pkts else 0
    for t, p in pkts[:most]:
        plen, = struct.unpack_from("!H", p, 4)
        tcp = p[40:]
        seq, ack = struct.unpack_from("!II", tcp, 4)
        doff, fl = (tcp[12] >> 4) * 4, tcp[13]
        if fl & 0x02:
            isn = seq
        if ack0 is None and fl & 0x10:
            ack0 = ack
        win, = struct.unpack_from("!H", tcp, 14)
        print(f"#  {t - t0:8.3f} seq {(seq - (isn or seq)) & 0xffffffff:7} "
              f"len {plen - doff:5} ack +{(ack - (ack0 or ack)) & 0xffffffff:7} "
              f"win {win:5} flags {fl:02x} opts {doff - 20} ip6 {40 + plen}")
    if len(pkts) > most:
        print(f"#  ... {len(pkts) - most} more")


def cmd_ptb(iface, dmac, dst_ip, src_ip, port, mtu, nbytes, sport=0):
    dmac = bytes.fromhex(dmac.replace(":", ""))
    with open(f"/sys/class/net/{iface}/address") as f:
        smac = bytes.fromhex(f.read().strip().replace(":", ""))
    dst = ipaddress.IPv6Address(dst_ip).packed
    src = ipaddress.IPv6Address(src_ip).packed

    def ptb(quoted):
        # RFC 4443 §3.2, quoting what keeps the message within 1280 bytes
        msg = struct.pack("!BBHI", 2, 0, 0, mtu) + quoted[:1280 - 48]
        c = csum(src + dst + struct.pack("!IxxxB", len(msg), 58) + msg)
        msg = msg[:2] + struct.pack("!H", c) + msg[4:]
        ip6 = struct.pack("!IHBB", 6 << 28, len(msg), 58, 255) + src + dst + msg
        return dmac + smac + struct.pack("!H", ETH_P_IPV6) + ip6

    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    raw.bind((iface, 0))
    cap = Capture(iface, port, keep=True)
    time.sleep(0.3)
    payload = os.urandom(nbytes)
    res = {}

    def run_echo():
        try:
            s = socket.create_connection((dst_ip, port), timeout=120,
                                         source_address=(src_ip, sport))
            res["echo"] = echo(s, payload)
            s.close()
        except OSError as e:
            res["err"] = str(e)

    t = threading.Thread(target=run_echo)
    t.start()
    sent, last, seen = [], 0.0, 0
    deadline = time.monotonic() + 240
    while t.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
        pkts = cap.pkts[seen:]
        seen += len(pkts)
        big = [p for _, p in pkts if len(p) > mtu]
        if big and (not sent or time.monotonic() - last >= 0.1) and len(sent) < 50:
            raw.send(ptb(big[-1]))
            last = time.monotonic()
            sent.append(last)
    t.join(10)
    time.sleep(0.3)
    cap.done()
    pkts = cap.pkts
    sizes = [len(p) for _, p in pkts]
    print(f"# {len(pkts)} segments from the server, the largest {max(sizes, default=0)} "
          f"bytes; {sum(n > mtu for n in sizes)} over {mtu}; {len(sent)} PTBs sent")
    ok = True
    if "err" in res or not res.get("echo", (False,))[0]:
        back = res["echo"][1] if "echo" in res else 0
        print(f"# the echo failed: {res.get('err') or f'{back} bytes back'}")
        dump_flow(pkts)
        ok = False
    else:
        print(f"# {nbytes} bytes echoed, SHA-256 {hashlib.sha256(payload).hexdigest()[:16]}... the same")
    if not sent:
        print("# no segment over the MTU: no PTB sent")
        return 1
    first = next((i for i, (tm, p) in enumerate(pkts) if tm > sent[0] and len(p) == mtu), None)
    if first is None:
        print(f"# no segment of {mtu} bytes after the first PTB: the MSS did not follow")
        return 1
    late = sum(len(p) > mtu for _, p in pkts[first:])
    print(f"# first {mtu}-byte segment {pkts[first][0] - sent[0]:.3f} s after the first PTB;"
          f" {late} larger after it")
    if late:
        ok = False
    return 0 if ok else 1


def main(argv):
    if len(argv) == 5 and argv[1] == "opts":
        return cmd_opts(argv[2], argv[3], int(argv[4]))
    if len(argv) == 4 and argv[1] == "refused":
        return cmd_refused(argv[2], int(argv[3]))
    if len(argv) == 9 and argv[1] == "badcsum":
        return cmd_badcsum(argv[2], argv[3], argv[4], argv[5], int(argv[6]), int(argv[7]),
                           argv[8])
    if len(argv) in (9, 10) and argv[1] == "ptb":
        return cmd_ptb(argv[2], argv[3], argv[4], argv[5], int(argv[6]), int(argv[7]),
                       int(argv[8]), int(argv[9]) if len(argv) == 10 else 0)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
