#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a benchmark run: percentiles, rates, ratios, and a CDF plot.

Usage: bench-report.py icmp OUTDIR KERNEL
       bench-report.py udp OUTDIR KERNEL
       bench-report.py tcp OUTDIR KERNEL

icmp: reads OUTDIR/rtt-{ixmod,ixmod-idle,linux}.txt and
OUTDIR/flood-*.txt as scripts/bench-icmp-guest.sh writes them; prints a
table and writes OUTDIR/results.txt and OUTDIR/rtt-cdf.svg.

udp: reads OUTDIR/params.txt, and lat-NAME-rR.txt, rtt-NAME-rR.txt,
tput-NAME-SIZE-rR.txt and trtt-NAME-SIZE-rR.txt for NAME ixmod, mmsg and
uring and each round R, as scripts/bench-udp-guest.sh writes them; prints
a table per phase with the ratios ixmod/Linux and writes OUTDIR/report.txt
and OUTDIR/udp.svg (latency CDFs and throughput bars).

tcp: reads OUTDIR/params.txt, and res-NAME-nN-sS-rR.txt (tcp-load's
result line) and hist-NAME-nN-sS-rR.txt (its latency histogram) for NAME
ixmod, epoll and uring, each rounds-per-connection N, size S and round R,
as scripts/bench-tcp-guest.sh writes them; prints the msgs/s ratios
ixmod/Linux, then a table per point, and writes OUTDIR/report.txt and
OUTDIR/tcp.svg (msgs/s bars per N, and the latency CDFs of the last N at
the first S).  A point a server has no file for shows as '-'.

Standard library only.
"""
import math
import sys
import textwrap


def percentile(xs, p):
    """Nearest-rank percentile (p in 0..100) of a sorted list."""
    if not xs:
        return float("nan")
    k = max(0, min(len(xs) - 1, int(round(p / 100.0 * len(xs) + 0.5)) - 1))
    return xs[k]


def load_rtt(path):
    with open(path) as f:
        return sorted(float(line) for line in f if line.strip())


def load_flood(path):
    with open(path) as f:
        sent, recv, secs = f.read().split()
    return int(sent), int(recv), float(secs)


def svg_cdf(series, path, title, xlabel):
    """series: [(name, colour, sorted values)] -> a log-x CDF as SVG."""
    w, h = 640, 400
    out = svg_open(w, h)
    out += cdf_panel(series, 0, 0, w, h, title, xlabel)
    svg_write(out, path)


def svg_open(w, h):
    return ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'font-family="sans-serif" font-size="12">' % (w, h),
            '<rect width="100%" height="100%" fill="white"/>']


def svg_write(out, path):
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def cdf_panel(series, x0, y0, w, h, title, xlabel):
    """SVG elements of a log-x CDF in the w x h box at (x0, y0)."""
    ml, mr, mt, mb = x0 + 60, 20, y0 + 40, 50
    h += y0
    w += x0
    lo = min(s[2][0] for s in series if s[2])
    hi = max(s[2][-1] for s in series if s[2])
    lo, hi = math.log10(max(lo, 1e-3)), math.log10(max(hi, 2e-3))
    lo, hi = math.floor(lo), math.ceil(hi)
    if hi <= lo:
        hi = lo + 1

    def x(v):
        return ml + (math.log10(max(v, 1e-3)) - lo) / (hi - lo) * (w - ml - mr)

    def y(q):
        return h - mb - q * (h - mt - mb)

    out = ['<text x="%d" y="%d" font-size="14">%s</text>' % (ml, y0 + 20, title)]
    for d in range(lo, hi + 1):
        xv = ml + (d - lo) / (hi - lo) * (w - ml - mr)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (xv, mt, xv, h - mb))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>'
                   % (xv, h - mb + 16, 10 ** d))
    for q in (0, 0.5, 0.9, 0.99, 1):
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (ml, y(q), w - mr, y(q)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>'
                   % (ml - 4, y(q) + 4, q))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
               % ((w + ml) // 2, h - 12, xlabel))
    for i, (name, colour, xs) in enumerate(series):
        n = len(xs)
        pts = " ".join("%.1f,%.1f" % (x(v), y((k + 1) / n))
                       for k, v in enumerate(xs))
        out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" '
                   'points="%s"/>' % (colour, pts))
        out.append('<text x="%d" y="%d" fill="%s">%s</text>'
                   % (ml + 10, mt + 16 + 16 * i, colour, name))
    return out


def bar_panel(groups, series, x0, y0, w, h, title, ylabel):
    """SVG elements of a grouped bar chart in the w x h box at (x0, y0).

    groups: [(label, {name: value})]; series: [(name, label, colour)].
    """
    ml, mr, mt, mb = x0 + 60, 20, y0 + 40, 50
    h += y0
    w += x0
    top = max([v for _, vals in groups for v in vals.values()] + [1e-9])
    step = 10 ** math.floor(math.log10(top))
    for m in (1, 2, 5, 10):
        if top / (step * m) <= 6:
            step *= m
            break
    top = math.ceil(top / step) * step

    def y(v):
        return h - mb - v / top * (h - mt - mb)

    out = ['<text x="%d" y="%d" font-size="14">%s</text>' % (ml, y0 + 20, title)]
    t = 0.0
    while t <= top * 1.0001:
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (ml, y(t), w - mr, y(t)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>'
                   % (ml - 4, y(t) + 4, t))
        t += step
    out.append('<text x="%d" y="%.1f" text-anchor="middle" '
               'transform="rotate(-90 %d %.1f)">%s</text>'
               % (x0 + 14, (mt + h - mb) / 2, x0 + 14, (mt + h - mb) / 2, ylabel))
    gw = (w - ml - mr) / max(len(groups), 1)
    bw = gw * 0.8 / max(len(series), 1)
    for g, (label, vals) in enumerate(groups):
        gx = ml + g * gw + gw * 0.1
        for i, (name, _, colour) in enumerate(series):
            v = vals.get(name, 0.0)
            if v != v:		# NaN: no figure
                continue
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                       % (gx + i * bw, y(v), bw * 0.9, h - mb - y(v), colour))
            out.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10">%.0f</text>'
                       % (gx + (i + 0.45) * bw, y(v) - 3, v))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (ml + (g + 0.5) * gw, h - mb + 16, label))
    for i, (_, label, colour) in enumerate(series):
        out.append('<text x="%d" y="%d" fill="%s">%s</text>'
                   % (ml + 10, mt + 16 + 16 * i, colour, label))
    return out


RUNS = [("ixmod", "ixmod poll", "#c0392b"),
        ("ixmod-idle", "ixmod idle", "#e67e22"),
        ("linux", "Linux igb", "#2471a3")]


def icmp(outdir, kernel):
    rtt = {n: load_rtt("%s/rtt-%s.txt" % (outdir, n)) for n, _, _ in RUNS}
    fl = {n: load_flood("%s/flood-%s.txt" % (outdir, n)) for n, _, _ in RUNS}
    base = "linux"
    rows = []

    def row(label, vals, unit, fmt="%.3f"):
        cells = ["%12s" % (fmt % vals[n]) for n, _, _ in RUNS]
        ratios = ["%8s" % ("%.2f" % (vals[n] / vals[base]) if vals[base] else "-")
                  for n, _, _ in RUNS if n != base]
        rows.append("%-26s %s %s  %s" % (label, " ".join(cells), " ".join(ratios), unit))

    hdr = "%-26s %s %s" % ("ICMP echo, peer -> port",
                           " ".join("%12s" % t for _, t, _ in RUNS),
                           " ".join("%8s" % ("%s/L" % t.split()[-1]) for n, t, _ in RUNS
                                    if n != base))
    row("replies", {n: len(rtt[n]) for n in rtt}, "count", "%d")
    for p in (50, 90, 99):
        row("RTT p%d" % p, {n: percentile(rtt[n], p) for n in rtt}, "ms")
    row("flood replies/s (ping -f)", {n: fl[n][1] / fl[n][2] for n in fl}, "/s", "%.0f")
    row("flood loss", {n: 100.0 * (fl[n][0] - fl[n][1]) / max(fl[n][0], 1) for n in fl},
        "%", "%.2f")
    text = "\n".join(["kernel %s, QEMU TCG, one VM run; ratios are to Linux igb (L)" % kernel,
                      hdr] + rows)
    print(text)
    with open("%s/results.txt" % outdir, "w") as f:
        f.write(text + "\n")
    svg_cdf([(t, c, rtt[n]) for n, t, c in RUNS],
            "%s/rtt-cdf.svg" % outdir, "ICMP echo RTT CDF (same VM run, TCG)",
            "round-trip time (ms, log scale)")
    print("plot: %s/rtt-cdf.svg" % outdir)


UDP_RUNS = [("ixmod", "ixmod udp-echo", "#c0392b"),
            ("mmsg", "Linux recvmmsg", "#2471a3"),
            ("uring", "Linux io_uring", "#27ae60")]


def load_result(path):
    """udp-load's result line -> {key: float}."""
    with open(path) as f:
        line = f.read().split("\n")[0]
    return {k: float(v) for k, v in (kv.split("=") for kv in line.split())}


def merge(outdir, res_fmt, rtt_fmt, rounds):
    """Rounds of one series -> {rate, spread, p50_us, p99_us, lost, mismatched}.

    rate is the mean of the rounds' rates and spread (max - min) / mean;
    percentiles are over the RTT samples of every round together.
    """
    res = [load_result("%s/%s" % (outdir, res_fmt % r)) for r in rounds]
    rtt = []
    for r in rounds:
        rtt += load_rtt("%s/%s" % (outdir, rtt_fmt % r))
    rtt.sort()
    rates = [x["rate"] for x in res]
    mean = sum(rates) / len(rates)
    return {"rate": mean,
            "spread": (max(rates) - min(rates)) / mean if mean else float("nan"),
            "p50_us": percentile(rtt, 50), "p99_us": percentile(rtt, 99),
            "requests": sum(x["requests"] for x in res),
            "lost": sum(x["lost"] for x in res),
            "mismatched": sum(x["mismatched"] for x in res),
            "rtt": rtt}


def sched_block(outdir, rounds, runs, served, unit):
    """Where the server threads' time went: CPU and run-queue wait.

    served(name, r): what server name did in round r, counted in unit.
    """
    lines = ["the servers' own threads (not ixmod's dataplane thread, not Linux's",
             "softirq), all phases (schedstat), per 1000 %s:" % unit,
             "  %-16s %10s %10s %10s" % ("server", "CPU ms", "wait ms", "switches")]
    for n, t, _ in runs:
        tot = {"run_ms": 0, "wait_ms": 0, "switches": 0}
        done = 0
        try:
            for r in rounds:
                with open("%s/sched-%s-r%d.txt" % (outdir, n, r)) as f:
                    line = f.readline().split()
                for kv in line[1:]:
                    k, _, v = kv.partition("=")
                    tot[k] += int(v)
                done += served(n, r)
        except (OSError, ValueError, IndexError, KeyError):
            lines.append("  %-16s %10s" % (t, "-"))
            continue
        k = 1000.0 / done if done else float("nan")
        lines.append("  %-16s %10.1f %10.1f %10.0f"
                     % (t, tot["run_ms"] * k, tot["wait_ms"] * k, tot["switches"] * k))
    return lines


def udp_served(outdir, name, r):
    """Requests the UDP server name echoed in round r, from its last line."""
    with open("%s/server-%s-r%d.log" % (outdir, name, r)) as f:
        return int(f.read().split("\n")[-2].split()[1])


def load_params(outdir):
    """OUTDIR/params.txt (KEY=VALUE lines, as the guest halves write it) -> dict."""
    prm = {}
    with open("%s/params.txt" % outdir) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            prm[k] = v
    return prm


def host_lines(outdir):
    """The host's load before and after the run (OUTDIR/host.txt), if any."""
    try:
        with open("%s/host.txt" % outdir) as f:
            return [line.strip() for line in f]
    except OSError:
        return []


def layout(prm):
    """Where the echo benchmarks ran the servers, from params.txt's app_cpu."""
    if prm.get("app_cpu", "1") == "1":
        return ("Each server had CPU 1 to itself: its own thread and its kernel "
                "work (ixmod's dataplane thread, or Linux's NIC interrupts); the "
                "client ran on CPU 0.")
    return ("Split: each server's kernel work (ixmod's dataplane thread, or "
            "Linux's NIC interrupts) had CPU 1; its own thread ran on CPU 0, "
            "beside the client.")


def udp(outdir, kernel):
    prm = load_params(outdir)
    rounds = range(1, int(prm["rounds"]) + 1)
    sizes = prm["sizes"].split()
    lat = {n: merge(outdir, "lat-%s-r%%d.txt" % n, "rtt-%s-r%%d.txt" % n, rounds)
           for n, _, _ in UDP_RUNS}
    tput = {s: {n: merge(outdir, "tput-%s-%s-r%%d.txt" % (n, s),
                         "trtt-%s-%s-r%%d.txt" % (n, s), rounds)
                for n, _, _ in UDP_RUNS} for s in sizes}
    base = "ixmod"
    others = [n for n, _, _ in UDP_RUNS if n != base]

    def ratio(a, b):
        return "%.2f" % (a / b) if b and a == a and b == b else "-"

    def block(title, res):
        """One phase: a row per server, then ixmod's ratio to each."""
        lines = [title,
                 "  %-16s %10s %7s %9s %9s %7s %5s" % ("server", "requests/s", "spread",
                                                       "p50 us", "p99 us", "lost", "bad")]
        for n, t, _ in UDP_RUNS:
            r = res[n]
            lines.append("  %-16s %10.0f %6.0f%% %9.0f %9.0f %7d %5d"
                         % (t, r["rate"], 100 * r["spread"], r["p50_us"], r["p99_us"],
                            r["lost"], r["mismatched"]))
        for n in others:
            lines.append("  %-16s %10s %7s %9s %9s" % (
                "ixmod/" + n, ratio(res[base]["rate"], res[n]["rate"]), "",
                ratio(res[base]["p50_us"], res[n]["p50_us"]),
                ratio(res[base]["p99_us"], res[n]["p99_us"])))
        return lines

    note = ("Under TCG every instruction is emulated: absolute figures are slow "
            "and noisy and mean nothing alone.  Read the ratios ixmod/Linux, "
            "measured in this run on the same NIC model, CPUs and peer: "
            "requests/s above 1 and latency below 1 favour ixmod.  " + layout(prm) +
            "  requests/s is the mean over the rounds, spread (max - min) / mean; "
            "latencies are over all rounds' samples.  Other work on the host "
            "(other VMs) skews a run: compare runs only with the host quiet.")
    text = ["UDP echo, kernel %s, QEMU TCG (software emulation), one VM run, %d rounds"
            % (kernel, len(rounds)),
            "ixmod: libixu udp-echo, idle_us=%s; Linux: udp-echo-mmsg, udp-echo-uring %s"
            % (prm["idle_us"], prm["uring_opts"] or "(plain ring)")] + host_lines(outdir) + [""]
    text += textwrap.wrap(note, 76, break_on_hyphens=False) + [""]
    text += block("closed loop: 1 request outstanding, 64 B, %s requests per round"
                  % prm["count"], lat)
    for s in sizes:
        text += [""] + block("throughput: %s requests outstanding over 4 flows, %s B, "
                             "%s s per round" % (prm["window"], s, prm["secs"]), tput[s])
    text += [""] + sched_block(outdir, rounds, UDP_RUNS,
                               lambda n, r: udp_served(outdir, n, r), "requests served")
    text = "\n".join(text)
    print(text)
    with open("%s/report.txt" % outdir, "w") as f:
        f.write(text + "\n")

    series = [(t, c, lat[n]["rtt"]) for n, t, c in UDP_RUNS]
    groups = [("1 outstanding, 64 B", {n: lat[n]["rate"] for n in lat})]
    groups += [("%s outstanding, %s B" % (prm["window"], s),
                {n: tput[s][n]["rate"] for n in tput[s]}) for s in sizes]
    out = svg_open(1280, 400)
    out += cdf_panel(series, 0, 0, 640, 400,
                     "UDP echo RTT CDF, 1 outstanding, 64 B (one VM run, TCG)",
                     "round-trip time (us, log scale)")
    out += bar_panel(groups, UDP_RUNS, 640, 0, 640, 400,
                     "UDP echo requests/s, mean of rounds (one VM run, TCG)",
                     "requests/s")
    svg_write(out, "%s/udp.svg" % outdir)
    print("plot: %s/udp.svg" % outdir)


TCP_RUNS = [("ixmod", "ixmod tcp-echo", "#c0392b"),
            ("epoll", "Linux epoll", "#2471a3"),
            ("uring", "Linux io_uring", "#27ae60")]

TCP_FAILS = ("conn_err", "conn_timeouts", "timeouts", "io_err", "eofs", "mismatched")


def load_hist(path):
    """tcp-load's -H histogram -> sorted [(us, count)]."""
    with open(path) as f:
        return sorted((float(v), int(c)) for v, c in (line.split() for line in f
                                                     if line.strip()))


def hist_percentile(hist, total, p):
    """Nearest-rank percentile (p in 0..100) of a merged histogram."""
    if not total:
        return float("nan")
    rank = max(1, math.ceil(p / 100.0 * total))
    seen = 0
    for v, c in hist:
        seen += c
        if seen >= rank:
            return v
    return hist[-1][0]


def hist_quantiles(hist, total, k=500):
    """k values at evenly spaced ranks: the histogram's CDF for cdf_panel."""
    return [hist_percentile(hist, total, 100.0 * (i + 1) / k) for i in range(k)] if total else []


def tcp_point(outdir, name, n, s, rounds, secs):
    """One server at one matrix point, over the rounds -> dict; None if missing.

    rate is the mean of the rounds' msgs/s and spread (max - min) / mean;
    percentiles are over every round's histogram merged.
    """
    res, hist = [], {}
    try:
        for r in rounds:
            f = "%s-n%s-s%s-r%d" % (name, n, s, r)
            res.append(load_result("%s/res-%s.txt" % (outdir, f)))
            for v, c in load_hist("%s/hist-%s.txt" % (outdir, f)):
                hist[v] = hist.get(v, 0) + c
    except (OSError, ValueError, IndexError):
        return None
    hist = sorted(hist.items())
    total = sum(c for _, c in hist)
    rates = [x["rate"] for x in res]
    mean = sum(rates) / len(rates)
    return {"rate": mean,
            "spread": (max(rates) - min(rates)) / mean if mean else float("nan"),
            "p50_us": hist_percentile(hist, total, 50),
            "p99_us": hist_percentile(hist, total, 99),
            "conns": sum(x["conns"] for x in res) / (len(res) * secs),
            "msgs": sum(x["msgs"] for x in res),
            "fails": sum(x.get(k, 0) for x in res for k in TCP_FAILS),
            "cdf": hist_quantiles(hist, total)}


def tcp(outdir, kernel):
    prm = load_params(outdir)
    rounds = range(1, int(prm["rounds"]) + 1)
    nlist, sizes, secs = prm["nlist"].split(), prm["sizes"].split(), float(prm["secs"])
    pts = {(n, s): {name: tcp_point(outdir, name, n, s, rounds, secs)
                    for name, _, _ in TCP_RUNS}
           for n in nlist for s in sizes}
    base = "ixmod"
    others = [n for n, _, _ in TCP_RUNS if n != base]

    def val(r, k):
        return r[k] if r else float("nan")

    def ratio(a, b):
        return "%.2f" % (a / b) if b and a == a and b == b else "-"

    def num(v, fmt):
        return fmt % v if v == v else "-"

    def block(n, s):
        res = pts[(n, s)]
        lines = ["n=%s round trips per connection, s=%s B, %s connections, %s s per round"
                 % (n, s, prm["conns"], prm["secs"]),
                 "  %-16s %9s %7s %9s %9s %8s %6s" % ("server", "msgs/s", "spread", "p50 us",
                                                     "p99 us", "conns/s", "failed")]
        for name, t, _ in TCP_RUNS:
            r = res[name]
            lines.append("  %-16s %9s %7s %9s %9s %8s %6s"
                         % (t, num(val(r, "rate"), "%.0f"), num(100 * val(r, "spread"), "%.0f%%"),
                            num(val(r, "p50_us"), "%.0f"), num(val(r, "p99_us"), "%.0f"),
                            num(val(r, "conns"), "%.0f"), num(val(r, "fails"), "%d")))
        for o in others:
            lines.append("  %-16s %9s %7s %9s %9s" % (
                "ixmod/" + o, ratio(val(res[base], "rate"), val(res[o], "rate")), "",
                ratio(val(res[base], "p50_us"), val(res[o], "p50_us")),
                ratio(val(res[base], "p99_us"), val(res[o], "p99_us"))))
        return lines

    def summary():
        """msgs/s of ixmod over each Linux server, one row per point."""
        lines = ["msgs/s ratios ixmod/Linux (above 1 favours ixmod):",
                 "  %6s %6s %12s %12s" % ("n", "s", "ixmod/epoll", "ixmod/uring")]
        for n in nlist:
            for s in sizes:
                res = pts[(n, s)]
                lines.append("  %6s %6s %12s %12s" % (
                    n, s, *(ratio(val(res[base], "rate"), val(res[o], "rate"))
                            for o in others)))
        return lines

    def served(name, r):
        """Messages server name answered in round r, over every point."""
        total = 0
        for n in nlist:
            for s in sizes:
                total += load_result("%s/res-%s-n%s-s%s-r%d.txt"
                                     % (outdir, name, n, s, r))["msgs"]
        return total

    note = ("Under TCG every instruction is emulated: absolute figures are slow "
            "and noisy and mean nothing alone.  Read the ratios ixmod/Linux, "
            "measured in this run on the same NIC model, CPUs and peer: "
            "msgs/s above 1 and latency below 1 favour ixmod.  " + layout(prm) +
            "  Each connection does n round trips of s bytes, then closes and "
            "reconnects (n=1: a connection per message).  msgs/s is the mean "
            "over the rounds, spread (max - min) / mean; latencies (a message's "
            "round trip, connection setup excluded) are over all rounds' "
            "histograms; conns/s are connections that completed their n round "
            "trips; failed counts refused, reset or timed-out connections and "
            "messages and mismatched replies (tcp-load's result lines say "
            "which).  Other work on the host (other VMs) skews a run: compare "
            "runs only with the host quiet.")
    text = ["TCP echo (IX paper), kernel %s, QEMU TCG (software emulation), one VM run, "
            "%d rounds" % (kernel, len(rounds)),
            "ixmod: libixu tcp-echo, idle_us=%s; Linux: tcp-echo-epoll %s, tcp-echo-uring %s"
            % (prm["idle_us"], prm["epoll_opts"] or "(level-triggered)",
               prm["uring_opts"] or "(plain ring)")] + host_lines(outdir) + [""]
    text += textwrap.wrap(note, 76, break_on_hyphens=False) + [""]
    text += summary()
    for n in nlist:
        for s in sizes:
            text += [""] + block(n, s)
    text += [""] + sched_block(outdir, rounds, TCP_RUNS, served, "messages")
    text = "\n".join(text)
    print(text)
    with open("%s/report.txt" % outdir, "w") as f:
        f.write(text + "\n")

    panels = [bar_panel([("%s B" % s, {name: val(pts[(n, s)][name], "rate")
                                       for name, _, _ in TCP_RUNS}) for s in sizes],
                        TCP_RUNS, 640 * i, 0, 640, 400,
                        "TCP echo msgs/s, n=%s round trips per connection (TCG)" % n,
                        "messages/s")
              for i, n in enumerate(nlist)]
    n, s = nlist[-1], sizes[0]
    series = [(t, c, pts[(n, s)][name]["cdf"]) for name, t, c in TCP_RUNS
              if pts[(n, s)][name] and pts[(n, s)][name]["cdf"]]
    out = svg_open(640 * (len(nlist) + 1), 400)
    for p in panels:
        out += p
    if series:
        out += cdf_panel(series, 640 * len(nlist), 0, 640, 400,
                         "TCP echo round-trip CDF, n=%s, s=%s B (TCG)" % (n, s),
                         "round-trip time (us, log scale)")
    svg_write(out, "%s/tcp.svg" % outdir)
    print("plot: %s/tcp.svg" % outdir)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "icmp":
        icmp(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "udp":
        udp(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "tcp":
        tcp(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
