#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-icount.py - a benchmark run's instruction counts, per window.

Usage: bench-icount.py OUTDIR

Reads what scripts/bench-tcp, scripts/bench-udp or scripts/bench-kv
leaves in OUTDIR:
params.txt, icount.txt (the icount plugin's marks), marks.txt (the guest's
name for each mark, in order) and each point's result line, with the
requests done at the end mark and, for ixmod, watch0/watch1: the server
core's idle iterations at the two marks.  params.txt tells which
benchmark wrote OUTDIR (tcp's has nlist=, udp's window=, kv's rates=):

    bench  result file   requests             point KEY (server NAME)
    tcp    res-KEY.txt   marked_msgs or msgs  NAME-nN-sS-rR
    udp    KEY.txt       marked_reqs or       lat-NAME-rR,
                         requests             tput-NAME-SIZE-rR
    kv     kv-KEY.json   window_replies or    NAME-WORKLOAD-RATE-rR
                         requests (kvload's
                         JSON)

marks.txt lines are

    calib NAME-rR start [idle=N]    one mark: an unloaded window begins
    calib NAME-rR end [idle=N]      one mark: it ends
    point KEY                       two marks: tcp-load -M's,
                                    udp-load -M's or kvload -M's window

Prints one JSON object on stdout:

    {"server_cpu": 1, "client_cpu": 0,
     "points": {KEY: {"window", "msgs", "secs",
                      "server": {"kernel", "user"}, "client": {...},
                      "idle_iterations", "idle_instructions"}},
     "calibration": {NAME-rR: {"window", "secs", "server": {...},
                               "iterations", "per_iteration"}}}

window is the sequence number of the window's end mark: the window's
name in the plugin's profile (prof=, tools/bench/icount/icount-prof.py).

msgs is the point's requests (a UDP point's too: the name is tcp's).
secs is the point's length: tcp-load's -d, kvload's duration_s; for a
UDP point, whose window runs until the last reply, its requests over
udp-load's rate (null when nothing was answered).

idle_instructions is a point's idle iterations times the instructions
per idle iteration of its server's unloaded window in the same round
(null for a Linux server, which has no polling loop: a halted vCPU
executes nothing; null too when params.txt's idle_us is not 0: ixmod's
cores then sleep when idle, the unloaded window measures sleeping, not
polling, and the polling a point did before its sleeps cannot be told
apart, so only the totals compare).  Exits 1, saying why, when the
marks and their names disagree.
"""
import importlib.util
import json
import os
import re
import sys

SERVER_CPU = 1
CLIENT_CPU = 0


def read_icount():
    """read-icount.py's parser (its file name is not a module name)."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("read_icount",
                                                  os.path.join(here, "read-icount.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tcp_server(key):
    """NAME-nN-sS-rR -> (NAME, rR)."""
    return key.split("-n")[0], key.rsplit("-", 1)[1]


UDP_KEY = re.compile(r"(?:lat-(.+)|tput-(.+)-\d+)-(r\d+)")


def udp_server(key):
    """lat-NAME-rR or tput-NAME-SIZE-rR -> (NAME, rR)."""
    m = UDP_KEY.fullmatch(key)
    if not m:
        raise ValueError("point %s: neither lat-NAME-rR nor tput-NAME-SIZE-rR" % key)
    return m.group(1) or m.group(2), m.group(3)


KV_KEY = re.compile(r"(.+)-[a-z]+-\d+-(r\d+)")


def kv_server(key):
    """NAME-WORKLOAD-RATE-rR -> (NAME, rR)."""
    m = KV_KEY.fullmatch(key)
    if not m:
        raise ValueError("point %s: not NAME-WORKLOAD-RATE-rR" % key)
    return m.group(1), m.group(2)


# Per benchmark: a point's result file, the key of its requests done at
# the end mark and the key to use instead when the line has no mark (a
# run's whole count), and the server and round the point belongs to,
# which name its calibration window.
BENCHES = {
    "tcp": {"file": "res-%s.txt", "count": ("marked_msgs", "msgs"), "server": tcp_server},
    "udp": {"file": "%s.txt", "count": ("marked_reqs", "requests"), "server": udp_server},
    "kv": {"file": "kv-%s.json", "count": ("window_replies", "requests"), "server": kv_server},
}


def bench_of(prm):
    """Which benchmark wrote params.txt: tcp's names nlist, udp's window, kv's rates."""
    if "nlist" in prm:
        return "tcp"
    if "window" in prm:
        return "udp"
    if "rates" in prm:
        return "kv"
    raise ValueError("params.txt names neither nlist (bench-tcp), window (bench-udp) "
                     "nor rates (bench-kv)")


def result(outdir, bench, key):
    """The result (tcp-load's or udp-load's line, kvload's JSON) of point KEY
    -> {name: number}."""
    path = os.path.join(outdir, BENCHES[bench]["file"] % key)
    with open(path) as f:
        if path.endswith(".json"):
            return {k: float(v) for k, v in json.load(f).items()
                    if isinstance(v, (int, float)) and not isinstance(v, bool)}
        words = f.read().split()
    return {k: float(v) for k, _, v in (w.partition("=") for w in words)}


def params(outdir):
    with open(os.path.join(outdir, "params.txt")) as f:
        return dict(line.rstrip("\n").partition("=")[::2] for line in f if "=" in line)


def labels(outdir):
    """marks.txt -> [(kind, key, where, idle)], one per mark, in order."""
    out = []
    with open(os.path.join(outdir, "marks.txt")) as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if len(w) >= 3 and w[0] == "calib" and w[2] in ("start", "end"):
                idle = None
                if len(w) == 4 and w[3].startswith("idle="):
                    idle = int(w[3][5:])
                out.append(("calib", w[1], w[2], idle))
            elif len(w) == 2 and w[0] == "point":
                out.append(("point", w[1], "start", None))
                out.append(("point", w[1], "end", None))
            else:
                raise ValueError("marks.txt:%d: bad line %r" % (n, line.strip()))
    return out


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    outdir = argv[1]
    ric = read_icount()
    try:
        marks, _ = ric.read_marks(os.path.join(outdir, "icount.txt"))
        names = labels(outdir)
        prm = params(outdir)
        bench = bench_of(prm)
    except (OSError, ValueError) as e:
        print("bench-icount.py: %s" % e, file=sys.stderr)
        return 1
    if sorted(marks) != list(range(len(marks))) or len(marks) != len(names):
        print("bench-icount.py: %d marks in icount.txt, %d named in marks.txt: "
              "they must match one to one" % (len(marks), len(names)), file=sys.stderr)
        return 1

    def window(i):
        """Counts from mark i to mark i + 1, server and client vCPU."""
        d = ric.delta(marks[i], marks[i + 1])
        return d[SERVER_CPU], d[CLIENT_CPU]

    calib, points = {}, {}
    i = 0
    while i < len(names):
        kind, key, where, idle = names[i]
        if i + 1 >= len(names) or names[i + 1][:2] != (kind, key) or where != "start":
            print("bench-icount.py: mark %d (%s %s %s) has no end mark after it"
                  % (i, kind, key, where), file=sys.stderr)
            return 1
        server, client = window(i)
        if kind == "calib":
            end_idle = names[i + 1][3]
            iters = end_idle - idle if idle is not None and end_idle is not None else None
            total = server["kernel"] + server["user"]
            calib[key] = {"window": i + 1,
                          "secs": float(prm.get("calib_s", "nan")), "server": server,
                          "iterations": iters,
                          "per_iteration": total / iters if iters else None}
        else:
            try:
                res = result(outdir, bench, key)
                name, rnd = BENCHES[bench]["server"](key)
            except (OSError, ValueError) as e:
                print("bench-icount.py: %s" % e, file=sys.stderr)
                return 1
            marked, whole = BENCHES[bench]["count"]
            msgs = int(res.get(marked, res[whole]))
            if bench == "tcp":
                secs = float(prm["secs"])
            elif bench == "kv":
                secs = res.get("duration_s")
            else:
                secs = msgs / res["rate"] if res.get("rate") else None
            points[key] = {"window": i + 1, "msgs": msgs,
                           "secs": secs, "server": server, "client": client,
                           "idle_iterations": None, "idle_instructions": None}
            if "watch0" in res:
                iters = int(res["watch1"] - res["watch0"])
                cal = calib.get("%s-%s" % (name, rnd), {}).get("per_iteration")
                points[key]["calibration"] = "%s-%s" % (name, rnd)
                points[key]["idle_iterations"] = iters
                polls = prm.get("idle_us", "0") == "0"
                points[key]["idle_instructions"] = round(iters * cal) if cal and polls else None
        i += 2
    json.dump({"server_cpu": SERVER_CPU, "client_cpu": CLIENT_CPU,
               "points": points, "calibration": calib}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
