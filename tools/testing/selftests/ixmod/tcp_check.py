#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tcp_check.py - Linux TCP peers that check ixmod's TCP byte for byte.

Plain sockets only; the tests run it in the peer namespace.

  tcp_check.py echo HOST PORT --sizes 1,100,65536   one connection per size
  tcp_check.py echo HOST PORT --parallel 16 --bytes N  N bytes on each, at once
  tcp_check.py echo HOST PORT --bytes N            one big echo, by SHA-256
  tcp_check.py short HOST PORT --count 2000        open, echo, close: every
                                                   second one with a FIN, the
                                                   others with a RST
  tcp_check.py opts HOST PORT                      ss -tin shows mss, wscale
                                                   and ts on the connection
  tcp_check.py send HOST PORT --bytes N            N random bytes, then FIN;
                                                   prints their CRC-32
  tcp_check.py recv HOST PORT --bytes N            reads to EOF, checks N
                                                   bytes of tcp-echo's pattern
  tcp_check.py hold HOST PORT --go FILE            echoes, waits for FILE,
                                                   echoes again (attack target)
  tcp_check.py server PORT [--ready FILE] [--seconds S]  a Linux echo
                                                   server, for S seconds
  tcp_check.py owned HOST PORT --key HEX --queues N --queue Q --count C
                                                   C echoes from source ports
                                                   whose Toeplitz hash with
                                                   the port's key names
                                                   queue Q of N

An echo client sends from one thread and reads in another, so a server
that applies backpressure cannot deadlock it; it half-closes after
sending and expects the server to close after echoing everything.
Every command prints '# ...' lines and exits 0 only if everything checked
out; --timeout (default 60 s) bounds each connection.
"""
import argparse
import hashlib
import os
import random
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib

CHUNK = 65536


def pattern(start, length):
    """tcp-echo's pattern: byte i is (i * 131 + (i >> 11)) & 0xff.

    Within a 2 KiB block (i >> 11 == k) byte i is (j * 131 + k) & 0xff with
    j = i & 2047, because 2048 * 131 is a multiple of 256: one precomputed
    block, shifted by k with bytes.translate().
    """
    out = bytearray()
    i = start
    end = start + length
    while i < end:
        k = i >> 11
        j = i & 2047
        n = min(2048 - j, end - i)
        out += _BLOCK[j:j + n].translate(_SHIFT[k & 0xff])
        i += n
    return bytes(out)


_BLOCK = bytes((j * 131) & 0xff for j in range(2048))
_SHIFT = [bytes((x + s) & 0xff for x in range(256)) for s in range(256)]


def connect(host, port, timeout):
    s = socket.create_connection((host, port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def echo_stream(host, port, total, timeout):
    """Send @total random bytes and read the echo to EOF, hashing both.

    Returns (sent_digest, received_digest, received_length, error).
    """
    sent = hashlib.sha256()
    got = hashlib.sha256()
    err = []
    s = connect(host, port, timeout)

    def sender():
        try:
            left = total
            while left:
                n = min(CHUNK, left)
                buf = os.urandom(n)
                sent.update(buf)
                s.sendall(buf)
                left -= n
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            err.append(f"send: {e}")

    t = threading.Thread(target=sender)
    t.start()
    n = 0
    try:
        while True:
            buf = s.recv(CHUNK)
            if not buf:
                break
            got.update(buf)
            n += len(buf)
    except OSError as e:
        err.append(f"recv after {n} bytes: {e}")
    t.join()
    s.close()
    return sent.hexdigest(), got.hexdigest(), n, "; ".join(err)


def echo_exact(host, port, payload, timeout):
    """One connection: payload out, the same bytes back, then EOF."""
    return echo_on(connect(host, port, timeout), payload)


def echo_on(s, payload):
    """On connected socket @s: payload out, the same bytes back, then EOF."""
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
    try:
        while True:
            buf = s.recv(CHUNK)
            if not buf:
                break
            back += buf
    except OSError as e:
        err.append(f"recv after {len(back)} bytes: {e}")
    t.join()
    s.close()
    if err:
        return "; ".join(err)
    if bytes(back) != payload:
        first = next((i for i, (a, b) in enumerate(zip(back, payload)) if a != b),
                     min(len(back), len(payload)))
        return f"{len(back)} bytes back for {len(payload)}, first difference at {first}"
    return None


def cmd_echo(a):
    bad = 0
    if a.sizes:
        sizes = []
        for part in a.sizes.split(","):
            lo, _, hi = part.partition("-")
            sizes += range(int(lo), int(hi or lo) + 1)
        for n in sizes:
            why = echo_exact(a.host, a.port, os.urandom(n), a.timeout)
            if why:
                bad += 1
                print(f"# {n} bytes: {why}")
        print(f"# {len(sizes) - bad}/{len(sizes)} sizes echoed exactly")
        return 0 if sizes and not bad else 1

    if a.parallel:
        results = [None] * a.parallel

        def one(i):
            try:
                results[i] = echo_exact(a.host, a.port, os.urandom(a.bytes), a.timeout)
            except OSError as e:
                results[i] = f"connect: {e}"

        threads = [threading.Thread(target=one, args=(i,)) for i in range(a.parallel)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for i, why in enumerate(results):
            if why:
                bad += 1
                print(f"# connection {i}: {why}")
        print(f"# {a.parallel - bad}/{a.parallel} parallel connections of {a.bytes} bytes "
              "echoed exactly")
        return 0 if not bad else 1

    start = time.monotonic()
    sent, got, n, err = echo_stream(a.host, a.port, a.bytes, a.timeout)
    secs = time.monotonic() - start
    print(f"# sent {a.bytes} bytes sha256 {sent}")
    print(f"# got  {n} bytes sha256 {got} in {secs:.1f} s"
          f" ({a.bytes * 8 / secs / 1e6:.1f} Mbit/s each way)")
    if err:
        print(f"# {err}")
    return 0 if not err and n == a.bytes and sent == got else 1


def cmd_short(a):
    """--count connections: echo a few bytes, close with FIN or RST."""
    lock = threading.Lock()
    counts = {"fin": 0, "rst": 0, "bad": 0}
    next_i = [0]

    where = {}    # connection -> its local port, once connected
    step = {}     # connection -> the step it is in

    def one(i):
        """One connection; a failure says in which step, from which port, when."""
        t0 = time.monotonic()
        try:
            return one_steps(i)
        except OSError as e:
            raise OSError(f"{step[i]} (local port {where.get(i, '?')}) failed after "
                          f"{time.monotonic() - t0:.1f} s: {e}") from e

    def one_steps(i):
        payload = os.urandom(1 + i % 200)
        step[i] = "connect"
        s = connect(a.host, a.port, a.timeout)
        where[i] = s.getsockname()[1]
        step[i] = "echo"
        s.sendall(payload)
        back = bytearray()
        while len(back) < len(payload):
            buf = s.recv(CHUNK)
            if not buf:
                break
            back += buf
        if bytes(back) != payload:
            s.close()
            return "bad", f"{len(back)} bytes back for {len(payload)}"
        if i % 2:
            # SO_LINGER with a zero timeout: close() sends a RST
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
            return "rst", None
        # FIN, then the server's FIN once it has echoed everything
        step[i] = "the server's FIN"
        s.shutdown(socket.SHUT_WR)
        extra = s.recv(CHUNK)
        s.close()
        if extra:
            return "bad", f"{len(extra)} bytes after the echo"
        return "fin", None

    def worker():
        while True:
            with lock:
                i = next_i[0]
                if i >= a.count:
                    return
                next_i[0] += 1
            try:
                kind, why = one(i)
            except OSError as e:
                kind, why = "bad", f"connection {i}: {e}"
            with lock:
                counts[kind] += 1
                if why and counts["bad"] <= 10:
                    print(f"# connection {i}: {why}")

    threads = [threading.Thread(target=worker) for _ in range(a.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"# {a.count} short connections: {counts['fin']} closed with FIN, "
          f"{counts['rst']} with RST, {counts['bad']} bad")
    return 0 if counts["bad"] == 0 and counts["fin"] + counts["rst"] == a.count else 1


def ss_info(host, port, lport):
    """The `ss -tin` lines of the connection from local port @lport."""
    out = subprocess.run(["ss", "-tin", "state", "established",
                          f"( sport = :{lport} and dport = :{port} )", "dst", host],
                         capture_output=True, text=True, check=False).stdout
    return " ".join(out.split("\n")[1:])


def tcp_info(s):
    """(options, snd_wscale, rcv_wscale, snd_mss) from TCP_INFO."""
    ti = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 32)
    opts, wscale = ti[5], ti[6]
    return opts, wscale & 0xf, wscale >> 4, struct.unpack_from("I", ti, 16)[0]


def cmd_opts(a):
    """The handshake's options as Linux records them (RFC 7323, RFC 9293).

    ss -tin is the check; TCP_INFO, where the same facts come from, is
    printed next to it and used if this ss does not show an option.
    """
    s = connect(a.host, a.port, a.timeout)
    payload = os.urandom(1000)
    s.sendall(payload)
    back = bytearray()
    while len(back) < len(payload):
        buf = s.recv(CHUNK)
        if not buf:
            break
        back += buf
    info = ss_info(a.host, a.port, s.getsockname()[1])
    opts, snd_ws, rcv_ws, snd_mss = tcp_info(s)
    s.close()
    print(f"# ss -tin: {info.strip()}")
    print(f"# TCP_INFO: options 0x{opts:x}, wscale {snd_ws},{rcv_ws}, mss {snd_mss}")
    m = re.search(r"\bmss:(\d+)", info)
    ss_says = {
        # without an MSS option Linux assumes 536 (RFC 9293 §3.7.1)
        "mss": bool(m) and int(m.group(1)) > 536,
        "wscale": bool(re.search(r"\bwscale:\d+,\d+", info)),
        "ts": bool(re.search(r"(^|\s)ts(\s|$)", info)),
    }
    info_says = {"mss": snd_mss > 536, "wscale": bool(opts & 4), "ts": bool(opts & 1)}
    ok = bytes(back) == payload
    if not ok:
        print("# the 1000-byte echo differs")
    for name, why in (("mss", "no MSS above 536: the SYN-ACK carried no MSS option"),
                      ("wscale", "window scaling was not agreed"),
                      ("ts", "timestamps were not agreed")):
        if not info_says[name]:
            print(f"# {name}: {why}")
            ok = False
        elif not ss_says[name]:
            print(f"# {name}: agreed (TCP_INFO), though this ss does not show it")
    return 0 if ok else 1


def cmd_send(a):
    """--bytes random bytes, then FIN; the server's FIN must follow."""
    s = connect(a.host, a.port, a.timeout)
    crc = 0
    left = a.bytes
    start = time.monotonic()
    while left:
        buf = os.urandom(min(CHUNK, left))
        crc = zlib.crc32(buf, crc)
        s.sendall(buf)
        left -= len(buf)
    s.shutdown(socket.SHUT_WR)
    extra = s.recv(CHUNK)
    s.close()
    secs = time.monotonic() - start
    print(f"# sent {a.bytes} bytes crc {crc:08x} in {secs:.1f} s")
    if extra:
        print(f"# {len(extra)} unexpected bytes came back")
        return 1
    return 0


def cmd_recv(a):
    """Read to EOF; the stream must be exactly --bytes bytes of the pattern."""
    s = connect(a.host, a.port, a.timeout)
    n = 0
    bad_at = None
    start = time.monotonic()
    while True:
        buf = s.recv(CHUNK)
        if not buf:
            break
        if bad_at is None and buf != pattern(n, len(buf)):
            want = pattern(n, len(buf))
            bad_at = n + next(i for i in range(len(buf)) if buf[i] != want[i])
        n += len(buf)
    s.close()
    secs = time.monotonic() - start
    print(f"# received {n} bytes in {secs:.1f} s, expected {a.bytes}")
    if bad_at is not None:
        print(f"# byte {bad_at} is not the pattern's")
    return 0 if n == a.bytes and bad_at is None else 1


def cmd_hold(a):
    """Echo, wait until --go exists (the attacks run meanwhile), echo again."""
    s = connect(a.host, a.port, a.timeout)
    print(f"# holding {s.getsockname()[0]}:{s.getsockname()[1]} -> {a.host}:{a.port}",
          flush=True)

    def roundtrip(n):
        payload = os.urandom(n)
        s.sendall(payload)
        back = bytearray()
        while len(back) < n:
            buf = s.recv(CHUNK)
            if not buf:
                break
            back += buf
        return bytes(back) == payload

    try:
        first = roundtrip(1000)
    except OSError as e:
        first = False
        print(f"# first echo: {e}")
    if not first:
        print("# the first echo failed")
        return 1
    deadline = time.monotonic() + a.timeout
    while not os.path.exists(a.go):
        if time.monotonic() > deadline:
            print(f"# {a.go} never appeared")
            return 1
        time.sleep(0.05)
    try:
        ok = roundtrip(2000)
        s.shutdown(socket.SHUT_WR)
        extra = s.recv(CHUNK)
    except OSError as e:
        print(f"# after the attacks: {e}")
        return 1
    s.close()
    if not ok:
        print("# the echo after the attacks differs")
    if extra:
        print(f"# {len(extra)} bytes too many came back: injected data was accepted")
    return 0 if ok and not extra else 1


def toeplitz(key, data):
    """The Toeplitz hash of RSS (Microsoft's RSS specification).

    Input bit i (the most significant bit of data[0] first) XORs in the 32
    key bits starting at key bit i.  Written from the specification, not
    from ixmod's base/toeplitz.c, so the two check each other.
    """
    k = int.from_bytes(key, "big")
    top = len(key) * 8 - 32
    h = 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                h ^= (k >> (top - (i * 8 + b))) & 0xFFFFFFFF
    return h


def rss_queue(key, src, dst, sport, dport, nq):
    """The queue ixmod's table gives a TCP/IPv4 flow: ixm_rss_queue()."""
    data = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!HH", sport, dport)
    return (toeplitz(key, data) & 127) % nq


def cmd_owned(a):
    """--count echoes from source ports that hash to queue --queue."""
    key = bytes.fromhex(a.key)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.connect((a.host, a.port))
    src = u.getsockname()[0]
    u.close()
    ports = []
    cand = list(range(20000, 61000))
    random.shuffle(cand)
    bad = 0
    for sport in cand:
        if len(ports) == a.count:
            break
        if rss_queue(key, src, a.host, sport, a.port, a.queues) != a.queue:
            continue
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((src, sport))
        except OSError:
            s.close()
            continue
        s.settimeout(a.timeout)
        try:
            s.connect((a.host, a.port))
        except OSError as e:
            bad += 1
            print(f"# from port {sport}: connect: {e}")
            s.close()
            ports.append(sport)
            continue
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        why = echo_on(s, os.urandom(1000))
        if why:
            bad += 1
            print(f"# from port {sport}: {why}")
        ports.append(sport)
    print(f"# {src} -> {a.host}:{a.port}, queue {a.queue} of {a.queues}: "
          f"from ports {' '.join(map(str, ports))}")
    print(f"# {len(ports) - bad}/{a.count} connections echoed exactly")
    return 0 if len(ports) == a.count and not bad else 1


def cmd_server(a):
    """A threaded Linux echo server; echoes until the client's FIN, then closes."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", a.port))
    ls.listen(1024)
    if a.ready:
        with open(a.ready, "w", encoding="ascii") as f:
            f.write("ready\n")
    print(f"# echo server on port {a.port}", flush=True)
    # it ends by itself, so that it never outlives its test
    end = time.monotonic() + a.seconds

    def serve(c):
        with c:
            try:
                while True:
                    buf = c.recv(CHUNK)
                    if not buf:
                        break
                    c.sendall(buf)
            except OSError:
                pass            # a client that resets is fine here

    while time.monotonic() < end:
        ls.settimeout(max(0.1, end - time.monotonic()))
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        c.settimeout(None)
        threading.Thread(target=serve, args=(c,), daemon=True).start()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("echo", "short", "opts", "send", "recv", "hold"):
        p = sub.add_parser(name)
        p.add_argument("host")
        p.add_argument("port", type=int)
        p.add_argument("--timeout", type=float, default=60)
        if name == "echo":
            p.add_argument("--sizes", help="list of sizes and ranges: 1,10-20")
            p.add_argument("--parallel", type=int, default=0)
            p.add_argument("--bytes", type=int, default=65536)
        if name == "short":
            p.add_argument("--count", type=int, default=100)
            p.add_argument("--workers", type=int, default=4)
        if name in ("send", "recv"):
            p.add_argument("--bytes", type=int, required=True)
        if name == "hold":
            p.add_argument("--go", required=True)
    p = sub.add_parser("owned")
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--key", required=True, help="the port's rss_key, 80 hex digits")
    p.add_argument("--queues", type=int, required=True)
    p.add_argument("--queue", type=int, required=True)
    p.add_argument("--count", type=int, default=8)
    p = sub.add_parser("server")
    p.add_argument("port", type=int)
    p.add_argument("--ready")
    p.add_argument("--seconds", type=float, default=600)
    a = ap.parse_args()
    socket.setdefaulttimeout(getattr(a, "timeout", None))
    return globals()["cmd_" + a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
