#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""incast.py - the receiving end of test_tcp_08's incast, with the queue
it builds and the latency of small requests that wait in that queue.

  incast.py run HOST PORT --bytes N --flows F --echo HOST:PORT --dev IFNAME
                [--size S] [--gap SECS] [--interval SECS] [--warmup SECS]

F connections to HOST:PORT at once (a source: tcp-echo --source or
tcp_recovery.py serve's), each read to EOF and checked to be N bytes of
tcp-echo's pattern, a process each.  Meanwhile, in this process:

  - the probe: one connection to the echo server at --echo, opened before
    the flows, on which an S-byte request (default 64) waits for its
    S-byte echo, one at a time, --gap (0.005 s) apart; its answers cross
    the bottleneck the flows fill, so each time is what the queue adds
    to a small request;
  - the sampler: every --interval (0.05 s), the root qdisc of IFNAME (in
    this namespace) read through rtnetlink (RTM_GETQDISC; no process
    forked: tc every 50 ms would load the emulated guest): its packets
    and bytes waiting (gnet_stats_queue qlen and backlog).

The figures are taken over the window in which every flow runs: from the
last connect() plus --warmup (1 s: slow start) to the first flow's end;
a window shorter than a second falls back to the whole run, and says so.
The rate is all the flows' bytes over the time from the first connect()
to the last flow's end (the bottleneck's use over the incast).  Printed,
as '# ...' lines: each flow's, its TCP_INFO's ECN flags (agreed, and ECT
seen on what it received), the probe's percentiles, the queue's mean
and max, what the qdisc counted during the run (dropped, and for codel
ce_mark), and one line for the test to read:

  # result mbit=R queue_mean=P queue_max=P backlog_mean=B backlog_max=B
    p50_ms=T p90_ms=T p99_ms=T max_ms=T probes=K ecn=E ect_seen=E flows=F
    dropped=D ce_mark=M window_s=W

Exits 0 only if every flow's bytes were exact and the probe ran.
"""
import argparse
import json
import os
import socket
import struct
import sys
import threading
import time

from tcp_check import pattern

CHUNK = 65536
TCPI_OPT_ECN = 8
TCPI_OPT_ECN_SEEN = 16

# rtnetlink (linux/rtnetlink.h, linux/pkt_sched.h, linux/gen_stats.h)
NLMSG_ERROR = 2
NLMSG_DONE = 3
RTM_NEWQDISC = 36
RTM_GETQDISC = 38
NLM_F_REQUEST = 1
NLM_F_DUMP = 0x300
TC_H_ROOT = 0xffffffff
TCA_KIND = 1
TCA_STATS2 = 7
TCA_STATS_QUEUE = 3
TCA_STATS_APP = 4


def attrs(buf):
    """The (type, payload) of each rtattr in @buf."""
    off = 0
    while off + 4 <= len(buf):
        alen, atype = struct.unpack_from("HH", buf, off)
        if alen < 4:
            break
        yield atype & 0x3fff, buf[off + 4:off + alen]
        off += (alen + 3) & ~3


class Qdisc:
    """The root qdisc of one interface, read over rtnetlink."""

    def __init__(self, dev):
        self.ifindex = socket.if_nametoindex(dev)
        self.sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)   # NETLINK_ROUTE
        self.sk.bind((0, 0))
        self.seq = 0

    def read(self):
        """{qlen, backlog, drops, kind, ce_mark} of the root qdisc, or
        None; drops and ce_mark are a codel's below it if there is one
        (it counts its own drops, the root only those at enqueue)."""
        self.seq += 1
        tcm = struct.pack("BBHiIII", socket.AF_UNSPEC, 0, 0, self.ifindex, 0, 0, 0)
        hdr = struct.pack("IHHII", 16 + len(tcm), RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP,
                          self.seq, 0)
        self.sk.send(hdr + tcm)
        root = codel = None
        done = False
        while not done:
            data = self.sk.recv(65536)
            off = 0
            while off + 16 <= len(data):
                mlen, mtype, _, seq, _ = struct.unpack_from("IHHII", data, off)
                if mlen < 16:
                    done = True
                    break
                msg = data[off + 16:off + mlen]
                off += (mlen + 3) & ~3
                if seq != self.seq:
                    continue
                if mtype in (NLMSG_DONE, NLMSG_ERROR):
                    done = True
                    break
                if mtype != RTM_NEWQDISC or len(msg) < 20:
                    continue
                _, _, _, ifindex, _, parent, _ = struct.unpack_from("BBHiIII", msg)
                if ifindex != self.ifindex:
                    continue
                q = self.parse(msg[20:])
                if parent == TC_H_ROOT:
                    root = q
                if q["kind"] == "codel":
                    codel = q
        if root and codel and codel is not root:
            root["drops"], root["ce_mark"] = codel["drops"], codel["ce_mark"]
        return root

    @staticmethod
    def parse(buf):
        q = {"qlen": 0, "backlog": 0, "drops": 0, "kind": "", "ce_mark": None}
        for atype, val in attrs(buf):
            if atype == TCA_KIND:
                q["kind"] = val.rstrip(b"\0").decode()
            elif atype == TCA_STATS2:
                for stype, sval in attrs(val):
                    if stype == TCA_STATS_QUEUE and len(sval) >= 12:
                        q["qlen"], q["backlog"], q["drops"] = struct.unpack_from("III", sval)
                    elif stype == TCA_STATS_APP:
                        q["app"] = sval
        # struct tc_codel_xstats: ce_mark is its ninth u32
        if q["kind"] == "codel" and len(q.get("app", b"")) >= 36:
            q["ce_mark"] = struct.unpack_from("I", q["app"], 32)[0]
        q.pop("app", None)
        return q


class Sampler(threading.Thread):
    """The qdisc's queue every @interval seconds, until stop."""

    def __init__(self, qd, interval):
        super().__init__(daemon=True)
        self.qd, self.interval = qd, interval
        self.samples = []       # (time, packets, bytes)
        self.stop = threading.Event()
        self.err = None

    def run(self):
        nxt = time.monotonic()
        while not self.stop.is_set():
            try:
                q = self.qd.read()
            except OSError as e:
                self.err = f"rtnetlink: {e}"
                return
            if q:
                self.samples.append((time.monotonic(), q["qlen"], q["backlog"]))
            nxt += self.interval
            self.stop.wait(max(0, nxt - time.monotonic()))


class Probe(threading.Thread):
    """Small requests one at a time on @s, each timed to its echo."""

    def __init__(self, s, size, gap):
        super().__init__(daemon=True)
        self.s, self.size, self.gap = s, size, gap
        self.times = []         # (time sent, seconds to the echo)
        self.stop = threading.Event()
        self.err = None

    def one(self):
        req = os.urandom(self.size)
        t = time.monotonic()
        self.s.sendall(req)
        back = b""
        while len(back) < self.size:
            buf = self.s.recv(self.size - len(back))
            if not buf:
                raise OSError("the echo server closed")
            back += buf
        if back != req:
            raise OSError("the echo differs")
        return t, time.monotonic() - t

    def run(self):
        try:
            while not self.stop.is_set():
                self.times.append(self.one())
                self.stop.wait(self.gap)
        except OSError as e:
            self.err = f"probe after {len(self.times)}: {e}"


def tcp_info(s):
    ti = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    return {"ecn": int(bool(ti[5] & TCPI_OPT_ECN)),
            "ect_seen": int(bool(ti[5] & TCPI_OPT_ECN_SEEN)),
            "rcv_ooopack": struct.unpack_from("I", ti, 224)[0] if len(ti) >= 228 else 0}


def recv_flow(a, k):
    """Flow @k: connect, read to EOF, check the pattern."""
    start = time.monotonic()
    s = socket.create_connection((a.host, a.port), timeout=a.timeout)
    n = 0
    bad_at = None
    while True:
        buf = s.recv(CHUNK)
        if not buf:
            break
        if bad_at is None and buf != pattern(n, len(buf)):
            want = pattern(n, len(buf))
            bad_at = n + next(i for i in range(len(buf)) if buf[i] != want[i])
        n += len(buf)
    end = time.monotonic()
    info = tcp_info(s)
    s.close()
    line = f"flow {k}: received {n} bytes in {end - start:.2f} s: " \
           f"{n * 8 / (end - start) / 1e6:.2f} Mbit/s, ecn {info['ecn']} " \
           f"ect_seen {info['ect_seen']} rcv_ooopack {info['rcv_ooopack']}"
    if n != a.bytes:
        line += f", expected {a.bytes}"
    if bad_at is not None:
        line += f"; byte {bad_at} is not the pattern's"
    return {"ok": n == a.bytes and bad_at is None, "start": start, "end": end,
            "bytes": n, "info": info, "line": line}


def flows(a):
    """--flows receivers at once, a process each (threads would share one
    interpreter lock, and the probe's times with them)."""
    kids = []
    for k in range(a.flows):
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            try:
                r = recv_flow(a, k)
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
    return res


def pct(sorted_vals, p):
    """The nearest-rank @p-th percentile."""
    if not sorted_vals:
        return 0.0
    k = max(0, min(len(sorted_vals) - 1, -(-len(sorted_vals) * p // 100) - 1))
    return sorted_vals[int(k)]


def cmd_run(a):
    qd = Qdisc(a.dev)
    q0 = qd.read()
    if q0 is None:
        print(f"# no root qdisc on {a.dev}")
        return 1
    ehost, _, eport = a.echo.rpartition(":")
    ps = socket.create_connection((ehost, int(eport)), timeout=a.timeout)
    ps.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    probe = Probe(ps, a.size, a.gap)
    probe.one()                 # the connection works before the flows start
    sampler = Sampler(qd, a.interval)
    sampler.start()
    probe.start()
    t0 = time.monotonic()
    res = flows(a)
    t1 = time.monotonic()
    probe.stop.set()
    sampler.stop.set()
    probe.join()
    sampler.join()
    q1 = qd.read() or q0
    pinfo = tcp_info(ps)
    ps.close()

    for r in res:
        print(f"# {r['line']}")
    ok = all(r["ok"] for r in res) and probe.err is None and sampler.err is None
    for err in (probe.err, sampler.err):
        if err:
            print(f"# {err}")
    good = [r for r in res if "end" in r]
    if len(good) != len(res):
        return 1
    lo = max(r["start"] for r in good) + a.warmup
    hi = min(r["end"] for r in good)
    whole = hi - lo < 1.0
    if whole:
        lo, hi = t0, t1
    window = hi - lo
    qs = [(p, b) for t, p, b in sampler.samples if lo <= t <= hi]
    rtts = sorted(d * 1000 for t, d in probe.times if lo <= t <= hi)
    total = sum(r["bytes"] for r in good)
    span = max(r["end"] for r in good) - min(r["start"] for r in good)
    mbit = total * 8 / span / 1e6
    ecn = sum(r["info"]["ecn"] for r in good)
    seen = sum(r["info"]["ect_seen"] for r in good)
    qmean = sum(p for p, _ in qs) / len(qs) if qs else 0.0
    bmean = sum(b for _, b in qs) / len(qs) if qs else 0.0
    qmax = max((p for p, _ in qs), default=0)
    bmax = max((b for _, b in qs), default=0)
    dropped = q1["drops"] - q0["drops"]
    ce = (q1["ce_mark"] - q0["ce_mark"]) if q1["ce_mark"] is not None else -1
    print(f"# {a.flows} flows of {a.bytes} bytes: {mbit:.2f} Mbit/s together "
          f"(first connect to last byte {span:.2f} s); ECN agreed on {ecn}, "
          f"ECT seen on {seen}")
    print(f"# window {'(whole run: the flows overlapped less than 1 s) ' if whole else ''}"
          f"{window:.2f} s: {len(qs)} queue samples, {len(rtts)} probes "
          f"({a.size} bytes, ECN {pinfo['ecn']}; {len(probe.times)} in all)")
    print(f"# queue ({q1['kind']} on {a.dev}): mean {qmean:.1f} packets, max {qmax}; "
          f"mean {bmean:.0f} bytes, max {bmax}; dropped {dropped}, ce_mark {ce}")
    print(f"# probe: p50 {pct(rtts, 50):.2f} ms, p90 {pct(rtts, 90):.2f} ms, "
          f"p99 {pct(rtts, 99):.2f} ms, max {max(rtts, default=0):.2f} ms")
    print(f"# result mbit={mbit:.2f} queue_mean={qmean:.1f} queue_max={qmax} "
          f"backlog_mean={bmean:.0f} backlog_max={bmax} p50_ms={pct(rtts, 50):.2f} "
          f"p90_ms={pct(rtts, 90):.2f} p99_ms={pct(rtts, 99):.2f} "
          f"max_ms={max(rtts, default=0):.2f} probes={len(rtts)} ecn={ecn} "
          f"ect_seen={seen} flows={len(good)} dropped={dropped} ce_mark={ce} "
          f"window_s={window:.2f}")
    return 0 if ok and rtts and qs else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("--bytes", type=int, required=True)
    p.add_argument("--flows", type=int, default=8)
    p.add_argument("--echo", required=True, metavar="HOST:PORT")
    p.add_argument("--dev", required=True)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--gap", type=float, default=0.005)
    p.add_argument("--interval", type=float, default=0.05)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    return globals()["cmd_" + a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
