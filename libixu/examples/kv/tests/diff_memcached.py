#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""diff_memcached - run the same random operations on memcached and on a kv
server and require identical answers (TAP output).

  diff_memcached.py [--ops N] [--seed S] [--ref HOST:PORT]
                    [--server HOST:PORT | BINARY ...]

BINARY: a server taking kv-epoll's options (-p -t -l); it is started on a
free port and killed at the end.  --server: a server already running (the
ixmod front end, say).  --ref: a memcached already running; without it,
Debian's /usr/bin/memcached is started on a free port.  WARNING: both
servers are flushed.

Operations: every command pymemcache 3.5 offers (get, get_many, gets,
gets_many, set, set_many, add, replace, append, prepend, cas, delete,
delete_many, incr, decr, touch, flush_all), with and without noreply, plus
gat and gats on a raw socket, over a small key space, then a list of
malformed requests on raw sockets.  Answers must be equal, except what
legitimately differs: stats, the version string, and cas uniques, which
must only correspond one to one (the same reference cas always pairs with
the same tested cas, and the reverse).
"""
import argparse
import os
import random
import re
import socket
import subprocess
import sys
import time

from pymemcache.client.base import Client

KEYS = [b"k%d" % i for i in range(8)] + [b"n0", b"n1", b"x" * 250]
VALUES = [b"", b"0", b"1", b"12", b" 7", b"42 ", b"100", b"99", b"abc", b"-5",
          b"18446744073709551615", b"18446744073709551614", b"hello world",
          b"a\r\nb", b"0" * 30, b"\x00\xff binary"]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(host, port, proc, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("server exited with %d" % proc.returncode)
        try:
            socket.create_connection((host, port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError("no server on %s:%d" % (host, port))


def start(argv, port):
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port("127.0.0.1", port, proc)
    return proc


def start_memcached():
    port = free_port()
    # Without its LRU maintainer and crawler threads, which take references
    # to items behind the clients' backs, memcached answers incr/decr the
    # same way every time (an item another thread holds is not rewritten in
    # place but copied, and we saw a decr lost that way under load).
    argv = ["/usr/bin/memcached", "-p", str(port), "-U", "0", "-l", "127.0.0.1", "-t", "2",
            "-o", "no_lru_crawler,no_lru_maintainer"]
    if os.geteuid() == 0:
        argv += ["-u", "root"]
    return start(argv, port), ("127.0.0.1", port)


def start_binary(path):
    port = free_port()
    return start([path, "-p", str(port), "-t", "2", "-l", "127.0.0.1"], port), \
        ("127.0.0.1", port)


def hostport(s):
    host, port = s.rsplit(":", 1)
    return (host, int(port))


class Raw:
    """A raw text-protocol connection."""

    def __init__(self, addr):
        self.addr = addr
        self.sock = socket.create_connection(addr, timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def close(self):
        self.sock.close()

    def request(self, data, done):
        """Send @data; read until done(buffer) or the peer closes."""
        self.sock.sendall(data)
        buf = b""
        while not done(buf):
            try:
                d = self.sock.recv(1 << 20)
            except socket.timeout:
                return buf + b"<TIMEOUT>"
            except ConnectionResetError:
                return buf + b"<RESET>"
            if not d:
                return buf + b"<EOF>"
            buf += d
        return buf


def ends_with_end(buf):
    return buf.endswith(b"END\r\n") or buf.endswith(b"ERROR\r\n")


class CasMap:
    """cas uniques must correspond one to one between the two servers."""

    def __init__(self):
        self.fwd, self.back = {}, {}

    def pair(self, rc, tc):
        if rc is None or tc is None:
            return rc is None and tc is None
        if self.fwd.setdefault(rc, tc) != tc or self.back.setdefault(tc, rc) != rc:
            return False
        return True


VALUE_RE = re.compile(rb"^VALUE (\S+) (\d+) (\d+) (\d+)\r\n", re.M)


def split_cas(buf):
    """A get reply with its cas uniques replaced by C, and the list of them."""
    cas = [int(m.group(4)) for m in VALUE_RE.finditer(buf)]
    return VALUE_RE.sub(rb"VALUE \1 \2 \3 C\r\n", buf), cas


def normalize(buf):
    buf = re.sub(rb"VERSION [^\r]*\r\n", b"VERSION x\r\n", buf)
    return split_cas(buf)[0]


NUMERIC_RE = re.compile(rb"\d+ +")


def unpad(x):
    """
    memcached rewrites an incr/decr result in place, padded with spaces to
    the old length ("100" decr 1 reads "99 "), but only when no other
    reference to the item exists, so it may as well answer "99": a race
    inside memcached.  Compare numbers without their padding.
    """
    if isinstance(x, bytes):
        return x.rstrip(b" ") if NUMERIC_RE.fullmatch(x) else x
    if isinstance(x, tuple):
        return tuple(unpad(y) for y in x)
    if isinstance(x, list):
        return [unpad(y) for y in x]
    if isinstance(x, dict):
        return {k: unpad(v) for k, v in x.items()}
    return x


def unpad_reply(buf):
    """unpad() on the values of a raw get reply, fixing their lengths."""
    out, pos = b"", 0
    for m in re.finditer(rb"VALUE (\S+) (\d+) (\d+)( C)?\r\n", buf):
        if m.start() < pos:
            continue
        n = int(m.group(3))
        data = unpad(buf[m.end():m.end() + n])
        out += buf[pos:m.start()] + b"VALUE %s %s %d%s\r\n" % (
            m.group(1), m.group(2), len(data), m.group(4) or b"") + data
        pos = m.end() + n
    return out + buf[pos:]


def call(fn, *args, **kw):
    try:
        return ("ok", fn(*args, **kw))
    except Exception as e:  # the exception is part of the answer
        return ("exc", type(e).__name__, str(e))


class Pair:
    def __init__(self, ref, tst):
        self.ref, self.tst = ref, tst
        mk = dict(default_noreply=False, connect_timeout=5, timeout=5, no_delay=True)
        self.mc = (Client(ref, **mk), Client(tst, **mk))
        self.raw = (Raw(ref), Raw(tst))
        self.cas = CasMap()
        self.last_cas = {}      # key -> (ref cas, tested cas)
        self.skipped = 0        # incr/decr not sent: see above_int64()

    def close(self):
        for c in self.mc:
            c.close()
        for r in self.raw:
            r.close()


def above_int64(p, key):
    """
    Whether @key holds a number of 2^63 or more.  memcached 1.6.18 then looks
    for a minus sign with strchr() from the value's first byte, past the
    value's end into whatever its slab chunk held before (a "-5" stored
    earlier), and answers "non-numeric" or the result by that stale memory.
    Such an incr/decr has no single right answer to compare, so it is not
    sent (the store's unit tests check the wrap at 2^64).
    """
    out = p.raw[1].request(b"get " + key + b"\r\n", ends_with_end)
    m = re.match(rb"VALUE \S+ \d+ (\d+)\r\n", out)
    if not m:
        return False
    num = re.match(rb"\s*\+?(\d+)", out[m.end():m.end() + int(m.group(1))])
    return bool(num) and int(num.group(1)) >= 1 << 63


def random_op(rng, p):
    """One random operation on both servers: (description, ref, tested, ok)."""
    key = rng.choice(KEYS)
    keys = rng.sample(KEYS, rng.randint(1, 5))
    val = rng.choice(VALUES)
    exp = rng.choice([0, 0, 0, 1000, -1, 2592000])
    flags = rng.choice([0, 0, 1, 65535, 4294967295])
    nr = rng.random() < 0.2
    op = rng.choice(["get", "get_many", "gets", "gets_many", "set", "set_many", "add",
                     "replace", "append", "prepend", "cas", "delete", "delete_many",
                     "incr", "decr", "touch", "gat", "gats", "flush_all", "numeric"])
    cas_ok = True
    if op == "get":
        r = [call(c.get, key) for c in p.mc]
    elif op == "get_many":
        r = [call(c.get_many, keys) for c in p.mc]
    elif op in ("gets", "gets_many"):
        if op == "gets":
            r = [call(c.gets, key) for c in p.mc]
            pairs = {key: (r[0][1][1], r[1][1][1])} if r[0][0] == r[1][0] == "ok" else {}
            strip = [(x[0], x[1][0]) if x[0] == "ok" else x for x in r]
        else:
            r = [call(c.gets_many, keys) for c in p.mc]
            pairs, strip = {}, []
            for x in r:
                strip.append((x[0], {k: v[0] for k, v in x[1].items()}) if x[0] == "ok"
                             else x)
            if r[0][0] == r[1][0] == "ok" and set(r[0][1]) == set(r[1][1]):
                pairs = {k: (r[0][1][k][1], r[1][1][k][1]) for k in r[0][1]}
        for k, (rc, tc) in pairs.items():
            cas_ok = cas_ok and p.cas.pair(rc, tc)
            if rc is not None:
                p.last_cas[k] = (rc, tc)
        r = strip
    elif op in ("set", "add", "replace", "append", "prepend"):
        kw = {"noreply": nr}
        if op not in ("append", "prepend") or rng.random() < 0.5:
            kw.update(expire=exp, flags=flags)
        r = [call(getattr(c, op), key, val, **kw) for c in p.mc]
    elif op == "set_many":
        items = {k: rng.choice(VALUES) for k in keys}
        r = [call(c.set_many, items, expire=exp, noreply=nr) for c in p.mc]
    elif op == "cas":
        if key in p.last_cas and rng.random() < 0.7:
            casv = p.last_cas[key]
        else:
            casv = (12345678, 12345678)
        r = [call(c.cas, key, val, cv, expire=exp, noreply=nr, flags=flags)
             for c, cv in zip(p.mc, casv)]
    elif op == "delete":
        r = [call(c.delete, key, noreply=nr) for c in p.mc]
    elif op == "delete_many":
        r = [call(c.delete_many, keys, noreply=nr) for c in p.mc]
    elif op in ("incr", "decr"):
        delta = rng.choice([0, 1, 5, 100, 18446744073709551615])
        if above_int64(p, key):
            p.skipped += 1
            return "%s %r on a value above 2^63: not compared" % (op, key), None, None, True
        r = [call(getattr(c, op), key, delta, noreply=nr) for c in p.mc]
    elif op == "numeric":
        v = rng.choice([b"0", b"1", b"100", b"18446744073709551615"])
        key = rng.choice([b"n0", b"n1"])
        r = [call(c.set, key, v) for c in p.mc]
    elif op == "touch":
        r = [call(c.touch, key, expire=exp, noreply=nr) for c in p.mc]
    elif op in ("gat", "gats"):
        line = b"%s %d %s\r\n" % (op.encode(), exp, b" ".join(keys))
        out = [x.request(line, ends_with_end) for x in p.raw]
        split = [split_cas(o) for o in out]
        if len(split[0][1]) == len(split[1][1]):
            for rc, tc in zip(split[0][1], split[1][1]):
                cas_ok = cas_ok and p.cas.pair(rc, tc)
        else:
            cas_ok = False
        r = [unpad_reply(s[0]) for s in split]
        op = line.decode(errors="replace").strip()
    else:
        r = [call(c.flush_all, noreply=nr) for c in p.mc]
        p.last_cas.clear()
    if nr:
        # a noreply command has no answer to wait for: make sure it ran
        # before the next command, which may go on another connection
        for c in p.mc:
            c.version()
    r = unpad(r)
    desc = "%s %r %r %r exp=%d flags=%d noreply=%s" % (op, key, keys, val, exp, flags, nr)
    return desc, r[0], r[1], cas_ok and r[0] == r[1]


# Malformed or odd requests, each sent alone on a fresh connection; the reply
# is read up to the VERSION that follows (or the close).  Only cases whose
# answer does not depend on how memcached's reads cut the bytes.
BIG = 2000000
# Two lines above 2048 bytes that are not gets: memcached answers them when
# they come in one read, and closes the connection when their first 2048
# bytes come without the newline (try_read_command_ascii()).  On loopback
# (MTU 64 KiB) they come whole; across a NIC (1460-byte segments) memcached
# itself may read them in pieces: --segmented leaves them out.
GAT_100 = (b"set k0_3456789012345678901234567 0 0 1\r\na\r\n"
           b"gat 0" + b" k0_3456789012345678901234567" * 100 + b"\r\n")
LINE_16K = b"a" * 16382 + b"\r\n"
SPLIT_SENSITIVE = (GAT_100, LINE_16K)

MALFORMED = [
    b"foo\r\n", b"GET k0\r\n", b"\r\n", b"   \r\n", b"get\r\n", b"gets\r\n",
    b"set k0 0 0\r\n", b"set k0 0 0 x\r\n", b"set k0 0 0 1 noreply extra\r\na\r\n",
    b"set k0 abc 0 1\r\na\r\n", b"set k0 -1 0 1\r\na\r\n", b"set k0 0 x 1\r\na\r\n",
    b"set k0 0 0 -1\r\na\r\n", b"set k0 0 0 5\r\nabcdefg\r\n", b"set k0 0 0 1\r\nabc\r\n",
    b"set k0 0 0 1 noreply\r\nabc\r\n", b"set k0 4294967296 0 1\r\na\r\nget k0\r\n",
    b"set k0 0 0 1\na\r\nget k0\n", b"set  k0  0 0 1 garbage\r\na\r\nget k0\r\n",
    b"set " + b"a" * 251 + b" 0 0 1\r\na\r\n",
    b"set k0 0 0 1\r\na\r\nset k0 0 0 %d\r\n" % BIG + b"z" * BIG + b"\r\nget k0\r\n",
    b"set k0 0 0 %d noreply\r\n" % BIG + b"z" * BIG + b"\r\n",
    b"set k0 0 0 1048000\r\n" + b"q" * 1048000 + b"\r\nget k0\r\n",
    # memcached's item size limit counts its header: 1 MiB exactly is too large
    b"set k0 0 0 1048576\r\n" + b"q" * 1048576 + b"\r\nget k0\r\n",
    b"set k0 0 0 1048515\r\n" + b"q" * 1048515 + b"\r\nget k0\r\n",
    b"set k0 0 0 1048514\r\n" + b"q" * 1048514 + b"\r\nget k0\r\n",
    b"set " + b"a" * 250 + b" 0 0 1048267\r\n" + b"q" * 1048267 + b"\r\n",
    b"set " + b"a" * 250 + b" 0 0 1048268\r\n" + b"q" * 1048268 + b"\r\n",
    # append or prepend past the item size: NOT_STORED, the old value stays
    b"set k0 0 0 1000000\r\n" + b"q" * 1000000 + b"\r\nappend k0 0 0 100000\r\n" +
    b"r" * 100000 + b"\r\nprepend k0 0 0 48515\r\n" + b"r" * 48515 + b"\r\nget k0\r\n",
    b"cas k0 0 0 1\r\n", b"cas k0 0 0 1 x\r\na\r\n", b"cas nx 0 0 1 5\r\na\r\n",
    b"append nx 0 0 1\r\na\r\nprepend nx 0 0 1\r\na\r\nreplace nx 0 0 1\r\na\r\n",
    b"delete\r\n", b"delete a b c\r\n", b"delete k0 5\r\n", b"delete k0 0\r\n",
    b"delete k0 0 noreply\r\n", b"delete " + b"a" * 251 + b"\r\n",
    b"incr\r\n", b"incr k0\r\n", b"incr k0 x\r\n", b"decr k0 -1\r\n",
    b"incr k0 18446744073709551616\r\n", b"incr " + b"a" * 251 + b" 1\r\n",
    b"set n0 0 0 3\r\n100\r\ndecr n0 1\r\nget n0\r\nincr n0 5\r\nget n0\r\n",
    b"set n0 0 0 5\r\n12 ab\r\nincr n0 1\r\nget n0\r\n",
    b"set n0 0 0 0\r\n\r\nincr n0 1\r\n", b"set n0 0 0 2\r\n-5\r\nincr n0 1\r\n",
    b"incr n0 1 noreply\r\nincr n0 x noreply\r\n",
    b"touch k0\r\n", b"touch k0 x\r\n", b"touch " + b"a" * 251 + b" 0\r\n",
    b"gat\r\n", b"gat 10\r\n", b"gat x k0\r\n", b"gats x k0\r\n",
    b"flush_all x\r\n", b"flush_all 0 0\r\n", b"flush_all noreply\r\n",
    b"flush_all x noreply\r\n", b"verbosity\r\n", b"verbosity x\r\n", b"verbosity 1\r\n",
    b"verbosity 1 noreply\r\n", b"stats foo\r\n", b"version x\r\n",
    b"get " + b"k0 " * 100 + b"\r\n", b"get " + b"a" * 3000 + b"\r\n",
    b"get k0 " + b"a" * 251 + b" k1\r\n", b"a" * 2047 + b"\r\n",
    b"set k0 0 -1 1\r\na\r\nget k0\r\nadd k0 0 0 1\r\nb\r\nget k0\r\n",
    b"set k0 0 1000000000 1\r\na\r\nget k0\r\n",
    b"quit\r\n", b"get k0\r\nquit extra\r\n",
    # long lines that come in one read: memcached answers them up to its
    # 16 KiB read buffer (a 100-key gat, a get of 3 KB with a 251-byte key:
    # the error alone), a NUL ends a get line however long
    GAT_100,
    # (the key was set by the case before: memcached drops the replies before
    # the error in the same read)
    b"gets" + b" k0_3456789012345678901234567" * 90 + b" " + b"a" * 251 + b" k0\r\n",
    LINE_16K,
    b"set k0 0 0 1\r\na\r\nset k1 0 0 1\r\nb\r\n"
    b"get" + b" k0" * 6000 + b" \0 k1 k0\r\n",
    b"set k0 0 0 1\r\na\r\nset k1 0 0 1\r\nb\r\n"
    b"get" + b" k0" * 100 + b" \0 k1 k0\r\n",
]
# No newline in the first 17000 bytes: memcached and kv both close.  (Under
# 16 KiB memcached closes a line without a newline once it holds 2048 bytes
# of it, unless it is a get; kv waits for the rest: see proto.c.)
CLOSING = [b"a" * 17000, b"set k0 0 0 1 " + b"b" * 17000, b"a" * 16383 + b"\r\n"]


def split_sensitive(case):
    """Whether memcached's answer to @case depends on how it was cut into reads"""
    return case in SPLIT_SENSITIVE


def malformed(ref, tst, whole_lines=True):
    bad = []
    for case in MALFORMED:
        if not whole_lines and split_sensitive(case):
            continue
        out = []
        for addr in (ref, tst):
            r = Raw(addr)
            out.append(normalize(r.request(case + b"version\r\n",
                                           lambda b: b.endswith(b"VERSION x\r\n") or
                                           b.endswith(b"\r\n") and b"VERSION " in b)))
            r.close()
        if out[0] != out[1]:
            bad.append((case, out))
    for case in CLOSING:
        out = []
        for addr in (ref, tst):
            r = Raw(addr)
            # a reset or an end: whether bytes were left unread at the
            # close (a reset) depends on how much the server had read
            out.append(r.request(case, lambda b: False).replace(b"<RESET>", b"<CLOSED>")
                       .replace(b"<EOF>", b"<CLOSED>"))
            r.close()
        if out[0] != out[1]:
            bad.append((case, out))
    n = len(MALFORMED) + len(CLOSING)
    if not whole_lines:
        n -= sum(split_sensitive(c) for c in MALFORMED)
    return n, bad


def run(ref, tst, name, ops, seed, tap, whole_lines=True):
    rng = random.Random(seed)
    p = Pair(ref, tst)
    p.mc[0].flush_all()
    p.mc[1].flush_all()
    diffs = []
    for i in range(ops):
        desc, a, b, ok = random_op(rng, p)
        if not ok:
            diffs.append((i, desc, a, b))
            if len(diffs) >= 5:
                break
    skipped = p.skipped
    p.close()
    print("# %s: %d incr/decr on values above 2^63 not compared" % (name, skipped))
    tap.result(not diffs, "%s: %d random operations (seed %d) answer as memcached"
               % (name, ops, seed))
    for i, desc, a, b in diffs:
        print("#   op %d: %s\n#     memcached: %r\n#     tested:    %r" % (i, desc, a, b))
    n, bad = malformed(ref, tst, whole_lines)
    tap.result(not bad, "%s: %d malformed requests answer as memcached" % (name, n))
    for case, (a, b) in bad[:10]:
        print("#   %r\n#     memcached: %r\n#     tested:    %r" % (case[:80], a[:200], b[:200]))


class Tap:
    def __init__(self):
        self.n = self.failed = 0

    def result(self, ok, msg):
        self.n += 1
        self.failed += not ok
        print("%sok %d - %s" % ("" if ok else "not ", self.n, msg))
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binaries", nargs="*", help="kv-epoll, kv-uring, ...")
    ap.add_argument("--server", action="append", default=[], type=hostport,
                    help="HOST:PORT of a running server to test")
    ap.add_argument("--ref", type=hostport, help="HOST:PORT of a running memcached")
    ap.add_argument("--ops", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--segmented", action="store_true",
                    help="the tested server is memcached itself across a NIC: leave out the "
                    "malformed requests whose answer depends on how the line was cut into "
                    "reads (long lines that are not gets)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    print("# seed %d (rerun with --seed %d)" % (seed, seed))
    if not args.binaries and not args.server:
        ap.error("nothing to test")
    procs = []
    tap = Tap()
    try:
        if args.ref:
            ref = args.ref
        else:
            proc, ref = start_memcached()
            procs.append(proc)
        targets = [("%s:%d" % s, s) for s in args.server]
        for path in args.binaries:
            proc, addr = start_binary(path)
            procs.append(proc)
            targets.append((os.path.basename(path), addr))
        for name, addr in targets:
            run(ref, addr, name, args.ops, seed, tap, not args.segmented)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
    print("1..%d" % tap.n)
    print("# diff_memcached: %d passed, %d failed" % (tap.n - tap.failed, tap.failed))
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
