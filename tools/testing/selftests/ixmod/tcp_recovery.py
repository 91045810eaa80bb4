#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tcp_recovery.py - the Linux ends of test_tcp_07 (loss recovery), timed.

  tcp_recovery.py tail HOST PORT --bytes N --count C [--drop IFACE]
      C connections one after the other to an echo server: on each, N
      random bytes out, timed from the first byte sent to the Nth byte
      echoed, which must be the same; then FIN and EOF.  Prints each
      time and 'best MS ms'.  --drop: the server's ISN, read from its
      SYN-ACK on IFACE (a packet socket), gives the end of the echo's
      last segment, and every (sequence, IP length) that segment may
      have, with or without timestamps, goes into the nftables set
      "inet ixtail tails" before the request is sent (test_tcp_07's
      rule drops a segment in that set once per connection)
  tcp_recovery.py send HOST PORT --bytes N [--flows F] [--crc-reply] [--ss]
      on each of F connections at once, N random bytes, then FIN, then
      read to EOF (a sink closes after the FIN); prints each one's CRC-32
      and rate, and their rate together; --crc-reply: the server
      answers 'crc XXXXXXXX N' before it closes (serve's sink), and it
      must be the sender's
  tcp_recovery.py recv HOST PORT --bytes N [--flows F] [--ss]
      on each of F connections at once, reads to EOF and checks N bytes
      of the pattern; prints each one's rate and their rate together
  tcp_recovery.py serve --sink PORT --echo PORT --source PORT:BYTES...
                        [--ready FILE]
      Linux's own sink (answers 'crc XXXXXXXX N' to the FIN, then
      closes), echo server and sources (BYTES of the pattern, then FIN),
      a process per connection, for --seconds; each connection's end
      is a line with what TCP_INFO says of it

A flow's rate is its bytes over the time from connect() to EOF; the
flows' rate together, all their bytes over the mean of their times.
--ss samples `ss -tnio` on the first connection while it runs (at
once, then every second; iproute2 6.1's ss shows the ts, sack and ecn
options only with -o or -e): the first sample is printed, then a summary
with how many samples showed the sack option and the most 'sacked:' and
'lost:' seen.  send and recv add up what TCP_INFO says of their sockets
at the end (sack negotiated, retransmissions, D-SACKs, out-of-order
packets).
Every command prints '# ...' lines and exits 0 only if the bytes were
exact; --timeout (default 120 s) bounds each connection.
"""
import argparse
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib

from tcp_check import pattern

CHUNK = 65536
TCPI_OPT_SACK = 2


def tcp_info(s):
    """What TCP_INFO says about @s, the fields this test prints."""
    ti = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)

    def u32(off):
        return struct.unpack_from("I", ti, off)[0] if len(ti) >= off + 4 else -1

    return {"sack": int(bool(ti[5] & TCPI_OPT_SACK)), "total_retrans": u32(100),
            "dsack_dups": u32(216), "rcv_ooopack": u32(224), "rtt_us": u32(68)}


def info_line(s):
    return " ".join(f"{k}={v}" for k, v in tcp_info(s).items())


class SsSampler:
    """`ss -tnio` on one connection, in a thread, while it runs."""

    def __init__(self, s, host, port):
        # not an earlier connection's TIME-WAIT from the same port
        self.cmd = ["ss", "-tnioH", "state", "connected", "exclude", "time-wait",
                    f"( sport = :{s.getsockname()[1]} and dport = :{port} )", "dst", host]
        self.first = None
        self.n = self.with_sack = self.sacked = self.lost = 0
        self.stop = threading.Event()
        # the first sample before the flow starts (and its clock): the
        # options were agreed on the handshake, and under emulation with
        # every flow running one ss can take longer than a fast flow
        # lasts (a 1 % run's flow to ixmod's sink had no sample at all)
        self.sample()
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop.wait(1.0):
            self.sample()

    def sample(self):
        out = subprocess.run(self.cmd, capture_output=True, text=True,
                             check=False).stdout
        line = " ".join(out.split())
        if not line:
            return
        self.n += 1
        self.first = self.first or line
        if re.search(r"(^|\s)sack(\s|$)", line):
            self.with_sack += 1
        for key in ("sacked", "lost"):
            m = re.search(rf"\b{key}:(\d+)", line)
            if m:
                setattr(self, key, max(getattr(self, key), int(m.group(1))))

    def report(self):
        self.stop.set()
        self.t.join()
        return [f"ss -tnio: {self.first}",
                f"ss: {self.n} samples, sack in {self.with_sack}, "
                f"most sacked:{self.sacked} lost:{self.lost}"]


def connect(host, port, timeout):
    s = socket.create_connection((host, port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def rate(n, secs):
    return f"{n * 8 / secs / 1e6:.2f} Mbit/s"


def check_pattern(n, buf, bad_at):
    """The first byte of @buf (at stream offset @n) off the pattern, or @bad_at."""
    if bad_at is None and buf != pattern(n, len(buf)):
        want = pattern(n, len(buf))
        bad_at = n + next(i for i in range(len(buf)) if buf[i] != want[i])
    return bad_at


def syn_ack_isn(rs, host, port, lport, timeout):
    """The sequence number of the SYN-ACK from @host:@port to @lport, read
    from packet socket @rs (bound before the SYN went out)."""
    want = socket.inet_aton(host)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        rs.settimeout(max(0.01, end - time.monotonic()))
        try:
            frame = rs.recv(2048)
        except socket.timeout:
            break
        ip = frame[14:]
        if len(ip) < 40 or ip[9] != 6 or ip[12:16] != want:
            continue
        tcp = ip[(ip[0] & 15) * 4:]
        sport, dport, seq = struct.unpack_from("!HHI", tcp)
        if sport == port and dport == lport and tcp[13] & 0x12 == 0x12:
            return seq
    return None


def tail_elements(isn, total):
    """(sequence . IP length) of every segment that ends the @total-byte
    stream after @isn, with 52- or 40-byte headers (timestamps or not)."""
    end = (isn + 1 + total) & 0xffffffff
    return ", ".join(f"{(end - n) & 0xffffffff} . {n + hdr}"
                     for n in range(1, 1461) for hdr in (52, 40))


def cmd_tail(a):
    times = []
    bad = 0
    for k in range(a.count):
        rs = None
        if a.drop:
            rs = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
            rs.bind((a.drop, 0x0800))
        s = connect(a.host, a.port, a.timeout)
        if rs:
            isn = syn_ack_isn(rs, a.host, a.port, s.getsockname()[1], 5)
            rs.close()
            if isn is None:
                print(f"# tail {k}: no SYN-ACK seen on {a.drop}")
                return 1
            r = subprocess.run(["nft", "-f", "-"], input="add element inet ixtail tails { "
                               + tail_elements(isn, a.bytes) + " }\n",
                               capture_output=True, text=True, check=False)
            if r.returncode:
                print(f"# tail {k}: nft: {r.stderr.strip()}")
                return 1
        payload = os.urandom(a.bytes)
        err = []

        def sender():
            try:
                s.sendall(payload)
            except OSError as e:
                err.append(f"send: {e}")

        start = time.monotonic()
        t = threading.Thread(target=sender)
        t.start()
        back = bytearray()
        try:
            while len(back) < a.bytes:
                buf = s.recv(CHUNK)
                if not buf:
                    break
                back += buf
        except OSError as e:
            err.append(f"recv after {len(back)} bytes: {e}")
        secs = time.monotonic() - start
        t.join()
        try:
            s.shutdown(socket.SHUT_WR)
            extra = s.recv(CHUNK)
        except OSError as e:
            extra = b""
            err.append(f"close: {e}")
        s.close()
        if err or bytes(back) != payload or extra:
            bad += 1
            print(f"# tail {k}: {len(back)} bytes back for {a.bytes}, "
                  f"{'equal' if bytes(back) == payload else 'different'}, "
                  f"{len(extra)} after them{'; ' if err else ''}{'; '.join(err)}")
            continue
        times.append(secs)
        print(f"# tail {k}: {a.bytes} bytes echoed in {secs * 1000:.1f} ms")
    if times:
        print(f"# best {min(times) * 1000:.1f} ms of {len(times)}")
    return 0 if not bad else 1


def send_flow(a, k):
    """Flow @k of send: its result (flows())."""
    s = connect(a.host, a.port, a.timeout)
    ss = SsSampler(s, a.host, a.port) if a.ss and k == 0 else None
    crc = 0
    left = a.bytes
    start = time.monotonic()
    while left:
        buf = os.urandom(min(CHUNK, left))
        crc = zlib.crc32(buf, crc)
        s.sendall(buf)
        left -= len(buf)
    s.shutdown(socket.SHUT_WR)
    back = bytearray()
    while True:
        buf = s.recv(CHUNK)
        if not buf:
            break
        back += buf
    secs = time.monotonic() - start
    r = {"secs": secs, "info": tcp_info(s), "lines": ss.report() if ss else []}
    s.close()
    line = f"flow {k}: sent {a.bytes} bytes crc {crc:08x} in {secs:.2f} s: {rate(a.bytes, secs)}"
    want = f"crc {crc:08x} {a.bytes}\n".encode() if a.crc_reply else b""
    if bytes(back) != want:
        line += f"; the server answered {bytes(back[:80])!r}, not {want!r}"
    r.update(ok=bytes(back) == want, line=line)
    return r


def recv_flow(a, k):
    """Flow @k of recv: its result (flows())."""
    s = connect(a.host, a.port, a.timeout)
    ss = SsSampler(s, a.host, a.port) if a.ss and k == 0 else None
    n = 0
    bad_at = None
    start = time.monotonic()
    while True:
        buf = s.recv(CHUNK)
        if not buf:
            break
        bad_at = check_pattern(n, buf, bad_at)
        n += len(buf)
    secs = time.monotonic() - start
    r = {"secs": secs, "info": tcp_info(s), "lines": ss.report() if ss else []}
    s.close()
    line = f"flow {k}: received {n} bytes in {secs:.2f} s: {rate(n, secs)}"
    if n != a.bytes:
        line += f", expected {a.bytes}"
    if bad_at is not None:
        line += f"; byte {bad_at} is not the pattern's"
    r.update(ok=n == a.bytes and bad_at is None, line=line)
    return r


def flows(a, fn):
    """--flows connections at once, each by @fn in a process of its own
    (threads would share one interpreter lock: a Python bottleneck under
    emulation).  Prints each one's line, then their rate together: all
    their bytes over the mean of their times (a sum of rates would weigh
    a flow that happened to see no loss early far above the others)."""
    kids = []
    for k in range(a.flows):
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            try:
                r = fn(a, k)
            except OSError as e:
                r = {"ok": False, "line": f"flow {k}: {e}"}
            os.write(wfd, json.dumps(r).encode())
            os._exit(0)
        os.close(wfd)
        kids.append((pid, rfd))
    res = []
    for pid, rfd in kids:
        with os.fdopen(rfd, "rb") as f:
            data = f.read()
        os.waitpid(pid, 0)
        res.append(json.loads(data) if data else {"ok": False, "line": "a flow died"})
    for r in res:
        for line in r.get("lines", []) + [r["line"]]:
            print(f"# {line}")
    infos = [r["info"] for r in res if "info" in r]
    print(f"# tcp_info: sack on {sum(i['sack'] for i in infos)} of {len(infos)}, "
          + ", ".join(f"{key} {sum(i[key] for i in infos)}"
                      for key in ("total_retrans", "dsack_dups", "rcv_ooopack")))
    ok = all(r["ok"] for r in res)
    if ok:
        times = sorted(r["secs"] for r in res)
        mean = sum(times) / len(times)
        print(f"# {a.flows} flows of {a.bytes} bytes: {rate(a.flows * a.bytes, mean)} "
              f"together (each {times[0]:.2f} to {times[-1]:.2f} s, mean {mean:.2f} s)")
    return 0 if ok else 1


def cmd_send(a):
    return flows(a, send_flow)


def cmd_recv(a):
    return flows(a, recv_flow)


def serve_sink(c):
    crc = n = 0
    while True:
        buf = c.recv(CHUNK)
        if not buf:
            break
        crc = zlib.crc32(buf, crc)
        n += len(buf)
    c.sendall(f"crc {crc:08x} {n}\n".encode())
    return f"sink: {n} bytes crc {crc:08x}"


def serve_echo(c):
    n = 0
    while True:
        buf = c.recv(CHUNK)
        if not buf:
            break
        c.sendall(buf)
        n += len(buf)
    return f"echo: {n} bytes"


def serve_source(c, total):
    n = 0
    while n < total:
        k = min(CHUNK, total - n)
        c.sendall(pattern(n, k))
        n += k
    c.shutdown(socket.SHUT_WR)
    while c.recv(CHUNK):        # until the client's FIN: no RST for it
        pass
    return f"source: {n} bytes"


def cmd_serve(a):
    """One process: a select loop over the listeners, a child per
    connection (no threads: see flows())."""
    lss = {}
    for spec in [f"{a.sink}:0", f"{a.echo}:-1"] + a.source:
        port, _, total = spec.partition(":")
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("0.0.0.0", int(port)))
        ls.listen(64)
        lss[ls] = int(total)
    if a.ready:
        with open(a.ready, "w", encoding="ascii") as f:
            f.write("ready\n")
    print(f"# Linux sink on port {a.sink}, echo on {a.echo}, sources on "
          f"{' '.join(a.source)}", flush=True)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)     # no zombies
    # it ends by itself, so that it never outlives its test
    end = time.monotonic() + a.seconds
    while time.monotonic() < end:
        ready, _, _ = select.select(list(lss), [], [], max(0, end - time.monotonic()))
        for ls in ready:
            c, _ = ls.accept()
            if os.fork():
                c.close()
                continue
            for x in lss:
                x.close()
            total = lss[ls]
            c.settimeout(a.timeout)
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                if total > 0:
                    what = serve_source(c, total)
                else:
                    what = serve_echo(c) if total else serve_sink(c)
                print(f"# {what}: {info_line(c)}", flush=True)
            except OSError as e:
                print(f"# {'source' if total > 0 else 'sink/echo'}: {e}", flush=True)
            os._exit(0)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("tail", "send", "recv"):
        p = sub.add_parser(name)
        p.add_argument("host")
        p.add_argument("port", type=int)
        p.add_argument("--bytes", type=int, required=True)
        p.add_argument("--timeout", type=float, default=120)
        if name == "tail":
            p.add_argument("--count", type=int, default=1)
            p.add_argument("--drop", metavar="IFACE")
        else:
            p.add_argument("--flows", type=int, default=1)
            p.add_argument("--ss", action="store_true", help="on the first flow")
        if name == "send":
            p.add_argument("--crc-reply", action="store_true")
    p = sub.add_parser("serve")
    p.add_argument("--sink", type=int, required=True)
    p.add_argument("--echo", type=int, required=True)
    p.add_argument("--source", action="append", default=[], help="PORT:BYTES")
    p.add_argument("--ready")
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    return globals()["cmd_" + a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
