#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a benchmark run: percentiles, rates, ratios, results.json, plots.

Usage: bench-report.py icmp OUTDIR KERNEL
       bench-report.py udp OUTDIR KERNEL
       bench-report.py tcp OUTDIR KERNEL
       bench-report.py kv OUTDIR KERNEL

icmp: reads OUTDIR/rtt-{ixmod,ixmod-idle,linux}.txt and
OUTDIR/flood-*.txt as scripts/bench-icmp-guest.sh writes them; prints a
table and writes OUTDIR/results.txt, OUTDIR/results.json and
OUTDIR/rtt-cdf.png and .svg (the RTT CDFs).

udp: reads OUTDIR/params.txt, and lat-NAME-rR.txt, rtt-NAME-rR.txt,
tput-NAME-SIZE-rR.txt and trtt-NAME-SIZE-rR.txt for NAME ixmod,
ixmod-colo (co-located: udp-echo -C), mmsg and uring and each round R, as
scripts/bench-udp-guest.sh writes them.  A server with no file at all is
left out (older runs have no ixmod-colo).  Prints a table per phase with
the ratios ixmod/Linux and, with OUTDIR/icount.json (as scripts/bench-udp
writes it with the plugin), the instructions per request of each phase as
in tcp below; writes OUTDIR/report.txt, OUTDIR/results.json,
OUTDIR/udp.png and .svg (latency CDFs and throughput bars) and, with
icount.json, OUTDIR/icount.png and .svg.

tcp: reads OUTDIR/params.txt, and res-NAME-nN-sS-rR.txt (tcp-load's
result line) and hist-NAME-nN-sS-rR.txt (its latency histogram) for NAME
ixmod, ixmod-colo (co-located: the application thread runs the dataplane
loop itself), epoll and uring, each rounds-per-connection N, size S and
round R, as scripts/bench-tcp-guest.sh writes them.  A server with no res
file at all is left out (older runs have no ixmod-colo); a point a server
has no file for shows as '-'.  When OUTDIR/icount.json is there (the
icount QEMU plugin's guest instruction counts per point and an idle
calibration, as scripts/bench-tcp writes them with the plugin), it adds
the instructions per request on the server's vCPU (kernel, user, idle
polling) and their ratios ixmod/Linux.  Prints the ratios ixmod/Linux,
then a table per point, and writes OUTDIR/report.txt, OUTDIR/results.json,
OUTDIR/tcp.png and .svg (msgs/s bars per N, and the latency CDFs of the
last N at the first S) and, with icount.json, OUTDIR/icount.png and .svg
(instructions per request, stacked kernel / user / idle polling).

tcp also reads, when there, the load sweep (res- and hist-NAME-n64-s64-cC-rR.txt
for each C in params.txt's sweep: C connections, each closed loop; C=1 is
the latency row; drawn in OUTDIR/tcp-sweep.png and .svg), snmp-KEY-a.txt and -b.txt (the client
namespace's /proc/net/snmp around each point: segments per message of
server and client, and connections a reset ended) and reflect-rR.txt
(udp-load against the port's udp_reflect: the driver limit, and each
server's msgs/s over it at 64 B).

kv: reads OUTDIR/params.txt and kv-NAME-WL-RATE-rR.json (kvload's JSON)
for NAME ixmod, ixmod-colo, epoll, uring and memcached, each workload WL,
offered rate RATE and round R, as scripts/bench-kv-guest.sh writes them,
and OUTDIR/icount.json when there (the server vCPU's instructions per
request, as in tcp).  A server with no file at all is left out; a point a
server has no file for shows as '-'.  Prints, per workload and offered
rate, a row per server (achieved requests/s, p50, p99 and p99.9, late
sends, errors, misses, lost requests, instructions per request kernel,
user and total) and the ratios of each ixmod variant to each Linux server
beside them; writes OUTDIR/report.txt, OUTDIR/results.json, OUTDIR/kv.png
and .svg (p99 and p50 against the achieved rate, a panel per workload)
and, with icount.json, OUTDIR/icount.png and .svg (instructions per
request, kernel and user stacked, a panel per workload).  With several
rounds the achieved rate is their mean and each percentile their median
(kvload keeps no histogram to merge).

results.json holds every number the text report prints (no CDF samples);
a missing figure is null.

Needs python3-matplotlib (Debian's; scripts/bootstrap installs it).  Run
by a python3 without it (pyenv, a venv), the script runs itself again
with /usr/bin/python3.
"""
import json
import math
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_plot import (bar_axes, fmt_ratio, is_ixmod, kernel_user_bar,  # noqa: E402
                        kernel_user_legend, num, pyplot, ratio_of, reexec_for_matplotlib,
                        save, short, write_json)


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


def cdf_axes(ax, series, title, xlabel):
    """A log-x CDF on ax; series: [(label, colour, sorted values)]."""
    from matplotlib.ticker import FuncFormatter

    drawn, lo, hi = 0, math.inf, 0.0
    for label, colour, xs in series:
        if not xs:
            continue
        n = len(xs)
        xs = [max(v, 1e-3) for v in xs]
        ax.plot(xs, [(k + 1) / n for k in range(n)],
                drawstyle="steps-post", color=colour, linewidth=1.5, label=label)
        lo, hi = min(lo, xs[0]), max(hi, xs[-1])
        drawn += 1

    def minor_label(v, _):
        """2 and 5 times a power of ten, when the axis spans few decades."""
        m = v / 10 ** math.floor(math.log10(v) + 1e-9)
        return "%g" % v if hi / lo < 1e3 and min(abs(m - 2), abs(m - 5)) < 1e-6 else ""
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of samples at or below")
    ax.set_ylim(0, 1.005)
    ax.set_yticks((0, 0.25, 0.5, 0.75, 0.9, 0.99))
    ax.grid(True, which="major", color="#dddddd")
    ax.grid(True, which="minor", axis="x", color="#f0f0f0")
    if drawn:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
        ax.xaxis.set_minor_formatter(FuncFormatter(minor_label))
        ax.tick_params(axis="x", which="minor", labelsize=8)
        ax.legend(loc="lower right", fontsize=9)
    else:
        ax.text(0.5, 0.5, "no samples", transform=ax.transAxes, ha="center")


RUNS = [("ixmod", "ixmod poll", "#c0392b"),
        ("ixmod-idle", "ixmod idle", "#e67e22"),
        ("linux", "Linux igb", "#2471a3")]


def icmp(outdir, kernel):
    rtt = {n: load_rtt("%s/rtt-%s.txt" % (outdir, n)) for n, _, _ in RUNS}
    fl = {n: load_flood("%s/flood-%s.txt" % (outdir, n)) for n, _, _ in RUNS}
    base = "linux"
    # (key in results.json, label, unit, format, {server: value})
    table = [("replies", "replies", "count", "%d", {n: len(rtt[n]) for n in rtt})]
    for p in (50, 90, 99):
        table.append(("rtt_p%d_ms" % p, "RTT p%d" % p, "ms", "%.3f",
                      {n: percentile(rtt[n], p) for n in rtt}))
    table.append(("flood_replies_per_s", "flood replies/s (ping -f)", "/s", "%.0f",
                  {n: fl[n][1] / fl[n][2] for n in fl}))
    table.append(("flood_loss_pct", "flood loss", "%", "%.2f",
                  {n: 100.0 * (fl[n][0] - fl[n][1]) / max(fl[n][0], 1) for n in fl}))

    hdr = "%-26s %s %s" % ("ICMP echo, peer -> port",
                           " ".join("%12s" % t for _, t, _ in RUNS),
                           " ".join("%8s" % ("%s/L" % t.split()[-1]) for n, t, _ in RUNS
                                    if n != base))
    rows = []
    for _, label, unit, fmt, vals in table:
        cells = ["%12s" % (fmt % vals[n]) for n, _, _ in RUNS]
        ratios = ["%8s" % ("%.2f" % (vals[n] / vals[base]) if vals[base] else "-")
                  for n, _, _ in RUNS if n != base]
        rows.append("%-26s %s %s  %s" % (label, " ".join(cells), " ".join(ratios), unit))
    text = "\n".join(["kernel %s, QEMU TCG, one VM run; ratios are to Linux igb (L)" % kernel,
                      hdr] + rows)
    print(text)
    with open("%s/results.txt" % outdir, "w") as f:
        f.write(text + "\n")

    servers = {n: dict({"label": t, "flood_sent": fl[n][0], "flood_received": fl[n][1],
                        "flood_secs": fl[n][2]},
                       **{key: vals[n] for key, _, _, _, vals in table})
               for n, t, _ in RUNS}
    write_json(outdir, {
        "mode": "icmp", "kernel": kernel, "servers": servers,
        "ratios": {"%s/%s" % (n, base): {key: ratio_of(vals[n], vals[base])
                                         for key, _, _, _, vals in table}
                   for n, _, _ in RUNS if n != base}})

    fig, ax = pyplot().subplots(figsize=(6.4, 4))
    cdf_axes(ax, [(t, c, rtt[n]) for n, t, c in RUNS],
             "ICMP echo RTT CDF (same VM run, QEMU TCG)", "round-trip time (ms, log scale)")
    save(fig, outdir, "rtt-cdf")


def ixmod_pairs(runs):
    """(ixmod variant, Linux server) for each pair the ratios compare."""
    return [(b, o) for b, _, _ in runs if is_ixmod(b)
            for o, _, _ in runs if not is_ixmod(o)]


def val(r, k):
    """Figure k of a server's results r, NaN when r or the figure is missing."""
    v = r.get(k) if r else None
    return v if v is not None else float("nan")


def ratio_table(title, head, rows, pairs, pair_w, get):
    """A row per point, a column per pair ixmod variant/Linux server.

    head: the header of the row labels; rows: [(label, point)];
    get(point, b, o): the ratio of b to o at point.
    """
    lines = [title,
             "  %s %s" % (head, " ".join("%*s" % (pair_w, "%s/%s" % p) for p in pairs))]
    for label, pt in rows:
        lines.append("  %s %s" % (label, " ".join(
            "%*s" % (pair_w, fmt_ratio(get(pt, b, o))) for b, o in pairs)))
    return lines


# Instructions per request, from icount.json (tools/bench/icount/
# bench-icount.py): the udp and tcp reports share all of it, their points
# differing only in their names.

ICOUNT_MISSING = ("no instruction counts (icount.json missing: run %s "
                  "with the icount plugin)")


def load_icount(outdir, script):
    """OUTDIR/icount.json -> (dict or None, why not); script: what writes it."""
    try:
        with open("%s/icount.json" % outdir) as f:
            ic = json.load(f)
        if not isinstance(ic, dict) or not isinstance(ic.get("points"), dict):
            raise ValueError("no \"points\" object")
    except FileNotFoundError:
        return None, ICOUNT_MISSING % script
    except (OSError, ValueError) as e:
        return None, icount_unreadable(e)
    return ic, ""


def icount_unreadable(e):
    return "no instruction counts (icount.json unreadable: %s)" % e


def icount_point(ic, name, keys):
    """Instructions per request of server name at a point -> dict; None if none.

    keys: the point's names in icount.json, one per round.  The counts and
    msgs of the rounds are summed, then divided.  The idle polling is
    ixmod's dataplane loop, kernel code, so it is part of kernel and is
    taken out of it for kernel_without_idle; a Linux server's idle vCPU
    halts, so its without_idle is its total.
    """
    t = {"msgs": 0, "kernel": 0, "user": 0, "client": 0, "idle": 0, "idle_iterations": 0}
    used, idle_known = 0, True
    for key in keys:
        p = ic["points"].get(key)
        if not p:
            continue
        used += 1
        t["msgs"] += p["msgs"]
        t["kernel"] += p["server"]["kernel"]
        t["user"] += p["server"]["user"]
        t["client"] += p["client"]["kernel"] + p["client"]["user"]
        if p.get("idle_instructions") is None:
            idle_known = False
        else:
            t["idle"] += p["idle_instructions"]
            t["idle_iterations"] += p.get("idle_iterations") or 0
    if not used or not t["msgs"]:
        return None
    m = float(t["msgs"])
    total = (t["kernel"] + t["user"]) / m
    idle = t["idle"] / m if idle_known and is_ixmod(name) else None
    if idle is not None:
        without = total - idle
    else:
        without = float("nan") if is_ixmod(name) else total
    return {"rounds": used, "msgs": t["msgs"],
            "kernel": t["kernel"] / m, "user": t["user"] / m, "total": total,
            "idle": idle, "without_idle": without,
            "kernel_without_idle": t["kernel"] / m - (idle or 0.0),
            "idle_iterations": t["idle_iterations"] / m if idle is not None else None,
            "client_total": t["client"] / m,
            "both": total + t["client"] / m, "both_without_idle": without + t["client"] / m}


def icount_calibration(ic, runs, rounds):
    """The unloaded server vCPU per server and round -> [dict]."""
    out = []
    cal = ic.get("calibration") or {}
    for name, t, _ in runs:
        for r in rounds:
            c = cal.get("%s-r%d" % (name, r))
            if not c:
                continue
            secs = c.get("secs") or 0
            ins = c["server"]["kernel"] + c["server"]["user"]
            out.append({"server": name, "label": t, "round": r, "secs": secs,
                        "kernel": c["server"]["kernel"], "user": c["server"]["user"],
                        "per_s": ins / secs if secs else float("nan"),
                        "iterations": c.get("iterations"),
                        "per_iteration": c.get("per_iteration")})
    return out


def icount_plot(outdir, runs, groups, ic_pts, cpu, what, both=False):
    """icount.png/.svg: per point, a stacked bar per server (kernel / user / idle).

    groups: [(label, point)], ic_pts: {point: {server: icount_point()}};
    what: the benchmark, for the title; both: the client vCPU's count
    stacked on top (icount_block()'s both).
    """
    from matplotlib.patches import Patch

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(6.4, 1.1 * len(runs) * len(groups) + 2.5), 4.8))
    width = 0.8 / max(len(runs), 1)
    top = 0.0
    for i, (name, label, colour) in enumerate(runs):
        for g, (_, pt) in enumerate(groups):
            d = ic_pts[pt].get(name)
            if not d:
                continue
            x = g - 0.4 + (i + 0.5) * width
            kern = max(d["kernel_without_idle"], 0.0)
            ax.bar(x, kern, width * 0.9, color=colour)
            ax.bar(x, d["user"], width * 0.9, bottom=kern, color=colour, alpha=0.45)
            h = kern + d["user"]
            if d["idle"]:
                ax.bar(x, d["idle"], width * 0.9, bottom=h, facecolor="white",
                       edgecolor=colour, hatch="///", linewidth=0.8)
                h += d["idle"]
            if both:
                ax.bar(x, d["client_total"], width * 0.9, bottom=h, facecolor="white",
                       edgecolor=colour, hatch="...", linewidth=0.8)
                h += d["client_total"]
            ax.text(x, h, short(h), ha="center", va="bottom", fontsize=7)
            top = max(top, h)
    ax.set_xticks(range(len(groups)), [label for label, _ in groups])
    ax.set_xlim(-0.5, len(groups) - 0.5)
    ax.set_ylim(0, top * 1.35 if top > 0 else 1)
    ax.set_ylabel("guest instructions per request")
    ax.set_title("%s: instructions per request on the server vCPU (CPU %s)%s\n"
                 "icount plugin, one VM run, QEMU TCG"
                 % (what, cpu, " and the client's" if both else ""), fontsize=11)
    ax.grid(True, axis="y", color="#dddddd")
    ax.set_axisbelow(True)
    handles = [Patch(color=c, label=t) for _, t, c in runs]
    handles += [Patch(color="#777777", label="kernel, idle polling excluded"),
                Patch(color="#777777", alpha=0.45, label="user"),
                Patch(facecolor="white", edgecolor="#777777", hatch="///",
                      label="idle polling (ixmod)")]
    if both:
        handles.append(Patch(facecolor="white", edgecolor="#777777", hatch="...",
                             label="client vCPU (its share of both stacks)"))
    ax.legend(handles=handles, loc="upper left", fontsize=8, ncol=2)
    save(fig, outdir, "icount")


def icount_ratios(d, pairs):
    """{b/o: {total, without_idle}} of one point's icount_point()s."""
    return {"%s/%s" % (b, o): {k: ratio_of(val(d[b], k), val(d[o], k))
                               for k in ("total", "without_idle", "both", "both_without_idle")}
            for b, o in pairs}


def icount_block(title, d, runs, pairs, w, both=False):
    """One point's instructions per request: a row per server, then the ratios.

    both: also the two vCPUs added up, with and without ixmod's idle
    polling (the software port's runs, where part of each server's Linux
    work runs on the client's vCPU).
    """
    keys = ["kernel", "user", "total", "idle", "without_idle", "client_total"]
    head = [("kernel", ""), ("user", ""), ("total", ""), ("idle", "polling"),
            ("total w/o", "idle"), ("client", "vCPU total")]
    if both:
        keys += ["both", "both_without_idle"]
        head += [("both vCPUs", "total"), ("both vCPUs", "w/o idle")]
    cols = " ".join(["%10s"] * len(keys))
    lines = [title,
             ("  %-*s " + cols) % (w, "server", *(h for h, _ in head)),
             ("  %-*s " + cols) % (w, "", *(h for _, h in head))]
    for name, t, _ in runs:
        r = d[name]
        lines.append(("  %-*s " + cols) % (w, t, *(num(val(r, k), "%.0f") for k in keys)))
    for pair, q in icount_ratios(d, pairs).items():
        cells = ["", "", fmt_ratio(q["total"]), "", fmt_ratio(q["without_idle"]), ""]
        if both:
            cells += [fmt_ratio(q["both"]), fmt_ratio(q["both_without_idle"])]
        lines.append((("  %-*s " + cols) % (w, pair, *cells)).rstrip())
    return lines


def icount_section(ic, cal, blocks, runs, pairs, w, idle_us="0", both=False):
    """The report's instruction counts, as lines.

    blocks: [(title, {server: icount_point()})], one per point; cal: the
    calibration windows (icount_calibration()); idle_us: the run's; both:
    also the two vCPUs added up (icount_block()).
    """
    cpu = ic.get("server_cpu", 1)
    lines = textwrap.wrap("instructions per request on the server's vCPU (CPU %s), "
                          "guest instructions counted by the icount QEMU plugin:"
                          % cpu, 76)
    lines += textwrap.wrap(
        "kernel and user are told apart by address.  idle polling is the "
        "instructions ixmod's dataplane loop spent in iterations that found "
        "no work (part of kernel); a Linux server's idle vCPU halts and "
        "executes nothing, so its total without idle is its total.  client "
        "vCPU (CPU %s) is a check that the load was equal.  Ratios below 1 "
        "favour ixmod." % ic.get("client_cpu", 0), 76, break_on_hyphens=False)
    if idle_us != "0":
        lines += textwrap.wrap(
            "This run had idle_us=%s: ixmod's cores poll that long without work "
            "and then sleep until an interrupt, so the unloaded window measures "
            "sleeping, not polling, and the polling before each sleep cannot be "
            "told apart ('-'): compare the totals, which hold everything the "
            "server's vCPU executed." % idle_us, 76)
    for title, d in blocks:
        lines += [""] + icount_block(title, d, runs, pairs, w, both)
    lines += [""] + textwrap.wrap(
        "calibration, per server and round: the instructions per second of the "
        "server's vCPU with no load over the calibration window, and for ixmod "
        "the instructions per idle iteration of its loop:", 76)
    for c in cal:
        line = "  %-*s r%d: %s instructions/s over %g s" % (
            w, c["label"], c["round"], num(c["per_s"], "%.0f"), c["secs"])
        if c["per_iteration"] is not None:
            line += ", %.1f per idle iteration" % c["per_iteration"]
        lines.append(line)
    if not cal:
        lines.append("  (none in icount.json)")
    return lines


UDP_RUNS = [("ixmod", "ixmod udp-echo", "#c0392b"),
            ("ixmod-colo", "ixmod udp-echo -C (co-located)", "#8e44ad"),
            ("mmsg", "Linux recvmmsg", "#2471a3"),
            ("uring", "Linux io_uring", "#27ae60")]


def udp_present(outdir):
    """The UDP_RUNS that have at least one result file in outdir."""
    files = os.listdir(outdir)
    return [run for run in UDP_RUNS
            if any(re.fullmatch(r"(lat-%s|tput-%s-\d+)-r\d+\.txt"
                                % (re.escape(run[0]), re.escape(run[0])), f)
                   for f in files)]


def load_result(path):
    """udp-load's or tcp-load's result line -> {key: float}."""
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


def sched_block(outdir, rounds, runs, served, unit, w=16):
    """Where the server threads' time went: CPU and run-queue wait.

    served(name, r): what server name did in round r, counted in unit; w:
    the width of the server column.
    Returns (text lines, {name: {cpu_ms, wait_ms, switches} per 1000 unit
    or None}).
    """
    lines = ["the servers' own threads (not ixmod's dataplane thread, not Linux's",
             "softirq), all phases (schedstat), per 1000 %s:" % unit,
             "  %-*s %10s %10s %10s" % (w, "server", "CPU ms", "wait ms", "switches")]
    data = {}
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
            lines.append("  %-*s %10s" % (w, t, "-"))
            data[n] = None
            continue
        k = 1000.0 / done if done else float("nan")
        data[n] = {"cpu_ms": tot["run_ms"] * k, "wait_ms": tot["wait_ms"] * k,
                   "switches": tot["switches"] * k}
        lines.append("  %-*s %10.1f %10.1f %10.0f"
                     % (w, t, tot["run_ms"] * k, tot["wait_ms"] * k, tot["switches"] * k))
    return lines, {"per": "1000 " + unit, "servers": data}


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
    if prm.get("nic") == "softport":
        return ("No NIC: ixmod's core (CPU 1) behind its software port, whose "
                "Linux side (the netdev's transmit and NAPI, one copy each way) "
                "ran on the client's CPU 0; the Linux servers' threads on CPU %s, "
                "reached over loopback, whose receive work runs on the sending "
                "CPU: the client's CPU does part of each server's work, so the "
                "two vCPUs added up are the figures to compare."
                % prm.get("app_cpu", "1"))
    if prm.get("app_cpu", "1") == "1":
        return ("Each server had CPU 1 to itself: its own thread and its kernel "
                "work (ixmod's dataplane thread, or Linux's NIC interrupts); the "
                "client ran on CPU 0.")
    return ("Split: each server's kernel work (ixmod's dataplane thread, or "
            "Linux's NIC interrupts) had CPU 1; its own thread ran on CPU 0, "
            "beside the client.")


def nic_line(prm):
    """Which NICs the run had, from params.txt's nic (igb before it was written)."""
    nic = prm.get("nic") or "igb"
    if nic == "softport":
        return ("NICs: none: ixmod's software port ixsw0 (netdev in the client's "
                "namespace) against the Linux servers on loopback (127.0.0.1)")
    drv = {"virtio-net": "virtio_net"}.get(nic, nic)
    be = prm.get("nic_backend")
    return ("NICs: %s, ixmod's driver on one, Linux's %s on an identical one%s"
            % (nic, drv, ", backend %s" % be if be else ""))


def number(v):
    """A params.txt word as a number when it is one."""
    try:
        return int(v)
    except ValueError:
        return v


def udp(outdir, kernel):
    prm = load_params(outdir)
    rounds = range(1, int(prm["rounds"]) + 1)
    sizes = prm["sizes"].split()
    runs = udp_present(outdir)
    pairs = ixmod_pairs(runs)
    pair_w = max([12] + [len(b) + len(o) + 1 for b, o in pairs])
    w = max([16] + [len(t) for _, t, _ in runs])
    keys = ("rate", "spread", "p50_us", "p99_us", "requests", "lost", "mismatched")
    # The phases: their result and RTT files' names without .txt (NAME
    # open, then R; a result file's name is also its point's in
    # icount.json), their name in results.json, title in the report,
    # label in tables and plots
    phases = [{"file": "lat-%s-r%%d", "rtt": "rtt-%s-r%%d", "phase": "closed loop",
               "outstanding": 1, "size": 64,
               "title": "closed loop: 1 request outstanding, 64 B, %s requests per round"
                        % prm["count"],
               "ic_title": "closed loop: 1 request outstanding, 64 B",
               "label": "1 outstanding, 64 B"}]
    phases += [{"file": "tput-%s-" + s + "-r%%d", "rtt": "trtt-%s-" + s + "-r%%d",
                "phase": "throughput", "outstanding": prm["window"], "size": s,
                "title": "throughput: %s requests outstanding over 4 flows, %s B, "
                         "%s s per round" % (prm["window"], s, prm["secs"]),
                "ic_title": "throughput: %s requests outstanding over 4 flows, %s B"
                            % (prm["window"], s),
                "label": "%s outstanding, %s B" % (prm["window"], s)} for s in sizes]
    res = [{n: merge(outdir, ph["file"] % n + ".txt", ph["rtt"] % n + ".txt", rounds)
            for n, _, _ in runs} for ph in phases]
    ic, ic_why = load_icount(outdir, "scripts/bench-udp")
    ic_res, cal = [], []
    try:
        if ic:
            ic_res = [{n: icount_point(ic, n, [ph["file"] % n % r for r in rounds])
                       for n, _, _ in runs} for ph in phases]
            cal = icount_calibration(ic, runs, rounds)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        ic, ic_why = None, icount_unreadable("%s: %s" % (type(e).__name__, e))

    def ratios(r):
        return {"%s/%s" % (b, o): {k: ratio_of(r[b][k], r[o][k])
                                   for k in ("rate", "p50_us", "p99_us")}
                for b, o in pairs}

    def block(title, r):
        """One phase: a row per server, then each ixmod variant's ratio to each Linux one."""
        lines = [title,
                 "  %-*s %10s %7s %9s %9s %7s %5s" % (w, "server", "requests/s", "spread",
                                                      "p50 us", "p99 us", "lost", "bad")]
        for n, t, _ in runs:
            x = r[n]
            lines.append("  %-*s %10.0f %6.0f%% %9.0f %9.0f %7d %5d"
                         % (w, t, x["rate"], 100 * x["spread"], x["p50_us"], x["p99_us"],
                            x["lost"], x["mismatched"]))
        for pair, q in ratios(r).items():
            lines.append("  %-*s %10s %7s %9s %9s" % (
                w, pair, fmt_ratio(q["rate"]), "", fmt_ratio(q["p50_us"]),
                fmt_ratio(q["p99_us"])))
        return lines

    def phase(i):
        """Phase i for results.json."""
        ph = phases[i]
        p = {"phase": ph["phase"], "outstanding": number(ph["outstanding"]),
             "size": number(ph["size"]),
             "servers": {n: dict({"label": t}, **{k: res[i][n][k] for k in keys})
                         for n, t, _ in runs},
             "ratios": ratios(res[i])}
        if ic:
            p["icount"] = ic_res[i]
            p["icount_ratios"] = icount_ratios(ic_res[i], pairs)
        return p

    note = ("Under TCG every instruction is emulated: absolute figures are slow "
            "and noisy and mean nothing alone.  Read the ratios ixmod/Linux, "
            "measured in this run on the same NIC model, CPUs and peer: "
            "requests/s above 1 and latency below 1 favour ixmod.  " + layout(prm) +
            "  requests/s is the mean over the rounds, spread (max - min) / mean; "
            "latencies are over all rounds' samples.  Other work on the host "
            "(other VMs) skews a run: compare runs only with the host quiet.")
    colo = (", udp-echo -C (co-located)" if any(n == "ixmod-colo" for n, _, _ in runs)
            else "")
    text = ["UDP echo, kernel %s, QEMU TCG (software emulation), one VM run, %d rounds"
            % (kernel, len(rounds)),
            "ixmod: libixu udp-echo%s, idle_us=%s; Linux: udp-echo-mmsg, udp-echo-uring %s"
            % (colo, prm["idle_us"], prm["uring_opts"] or "(plain ring)"), nic_line(prm)]
    text += host_lines(outdir) + [""]
    text += textwrap.wrap(note, 76, break_on_hyphens=False) + [""]
    for i, ph in enumerate(phases):
        text += ([""] if i else []) + block(ph["title"], res[i])
    if ic:
        lw = max(len(ph["label"]) for ph in phases)

        def ic_ratios(title, key):
            return [""] + ratio_table(
                "instructions per request, ratios ixmod/Linux (below 1 favours ixmod), "
                + title, "%-*s" % (lw, "phase"),
                [("%-*s" % (lw, ph["label"]), i) for i, ph in enumerate(phases)], pairs,
                pair_w, lambda i, b, o: ratio_of(val(ic_res[i][b], key), val(ic_res[i][o], key)))
        # as bench-tcp's: with idle_us other than 0 the idle polling
        # cannot be told apart, and only the totals compare
        text += ic_ratios("everything the server's vCPU executed:", "total")
        if prm["idle_us"] == "0":
            text += ic_ratios("idle polling excluded:", "without_idle")
        blocks = [(ph["ic_title"] + ", instructions per request (rounds summed)", ic_res[i])
                  for i, ph in enumerate(phases)]
        text += [""] + icount_section(ic, cal, blocks, runs, pairs, w, prm["idle_us"])
    else:
        text += ["", ic_why]
    sched, sched_data = sched_block(outdir, rounds, runs,
                                    lambda n, r: udp_served(outdir, n, r), "requests served",
                                    w)
    if colo:
        sched.insert(2, "(ixmod-colo's own thread is its dataplane loop, and counts here)")
    text += [""] + sched
    text = "\n".join(text)
    print(text)
    with open("%s/report.txt" % outdir, "w") as f:
        f.write(text + "\n")
    write_json(outdir, {
        "mode": "udp", "kernel": kernel, "params": prm, "host": host_lines(outdir),
        "phases": [phase(i) for i in range(len(phases))],
        "icount": {"server_cpu": ic.get("server_cpu"), "client_cpu": ic.get("client_cpu"),
                   "calibration": cal} if ic else None,
        "icount_note": ic_why or None,
        "sched": sched_data})

    series = [(t, c, res[0][n]["rtt"]) for n, t, c in runs]
    groups = [(ph["label"], {n: res[i][n]["rate"] for n, _, _ in runs})
              for i, ph in enumerate(phases)]
    fig, (left, right) = pyplot().subplots(1, 2, figsize=(12.8, 4.4))
    cdf_axes(left, series, "UDP echo RTT CDF, 1 outstanding, 64 B\n(one VM run, QEMU TCG)",
             "round-trip time (us, log scale)")
    bar_axes(right, groups, runs,
             "UDP echo requests/s, mean of rounds\n(one VM run, QEMU TCG)", "requests/s")
    save(fig, outdir, "udp")
    if ic:
        icount_plot(outdir, runs, [(ph["label"], i) for i, ph in enumerate(phases)], ic_res,
                    ic.get("server_cpu", 1), "UDP echo")


TCP_RUNS = [("ixmod", "ixmod tcp-echo", "#c0392b"),
            ("ixmod-colo", "ixmod tcp-echo -C (co-located)", "#8e44ad"),
            ("epoll", "Linux epoll", "#2471a3"),
            ("uring", "Linux io_uring", "#27ae60")]

TCP_FAILS = ("conn_err", "conn_timeouts", "timeouts", "io_err", "eofs", "mismatched")


def tcp_present(outdir):
    """The TCP_RUNS that have at least one res file in outdir."""
    files = os.listdir(outdir)
    return [run for run in TCP_RUNS
            if any(re.fullmatch(r"res-%s-n\d+-s\d+-r\d+\.txt" % re.escape(run[0]), f)
                   for f in files)]


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
    """k values at evenly spaced ranks: the histogram's CDF for cdf_axes."""
    return [hist_percentile(hist, total, 100.0 * (i + 1) / k) for i in range(k)] if total else []


def tcp_point(outdir, name, n, s, rounds, secs, extra=""):
    """One server at one matrix point, over the rounds -> dict; None if missing.

    extra: "-c1" for the latency row (one connection, closed loop).

    rate is the mean of the rounds' msgs/s and spread (max - min) / mean;
    percentiles are over every round's histogram merged.
    """
    res, hist = [], {}
    try:
        for r in rounds:
            f = "%s-n%s-s%s%s-r%d" % (name, n, s, extra, r)
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


def load_snmp_tcp(path):
    """The Tcp: counters of a /proc/net/snmp copy -> {name: int}."""
    with open(path) as f:
        rows = [line.split()[1:] for line in f if line.startswith("Tcp:")]
    return {k: int(v) for k, v in zip(rows[0], rows[1])}


def tcp_segments(outdir, name, n, s, rounds):
    """Segments and resets per message at one point, from the client's side.

    The peer namespace's /proc/net/snmp before and after each point
    (snmp-KEY-a.txt, -b.txt): its InSegs are the server's segments,
    whichever stack sent them, OutSegs the client's; EstabResets and
    AttemptFails count connections a reset ended.  None if missing.
    """
    tot = {"InSegs": 0, "OutSegs": 0, "EstabResets": 0, "AttemptFails": 0, "OutRsts": 0}
    msgs = 0
    try:
        for r in rounds:
            f = "%s/snmp-%s-n%s-s%s-r%d" % (outdir, name, n, s, r)
            a, b = load_snmp_tcp(f + "-a.txt"), load_snmp_tcp(f + "-b.txt")
            for k in tot:
                tot[k] += b[k] - a[k]
            msgs += load_result("%s/res-%s-n%s-s%s-r%d.txt" % (outdir, name, n, s, r))["msgs"]
    except (OSError, ValueError, IndexError, KeyError):
        return None
    if not msgs:
        return None
    res = {"server_segs": tot["InSegs"] / msgs, "client_segs": tot["OutSegs"] / msgs,
           "resets": tot["EstabResets"] + tot["AttemptFails"],
           "client_rsts": tot["OutRsts"]}
    # an ixmod server's own count of the bare ACKs its delayed-ACK timer sent
    try:
        delacks = 0
        for r in rounds:
            f = "%s/ixtcp-%s-n%s-s%s-r%d" % (outdir, name, n, s, r)
            a, b = load_kv(f + "-a.txt"), load_kv(f + "-b.txt")
            delacks += b["tcp_delayed_acks"] - a["tcp_delayed_acks"]
        res["delayed_acks"] = delacks / msgs
    except (OSError, ValueError, IndexError, KeyError):
        pass
    return res


def load_kv(path):
    """"name value" lines -> {name: int}."""
    with open(path) as f:
        return {k: int(v) for k, v in (line.split() for line in f if line.strip())}


def reflect_rate(outdir, rounds):
    """udp_reflect's datagrams/s (mean over the rounds), or NaN."""
    rates = []
    for r in rounds:
        try:
            rates.append(load_result("%s/reflect-r%d.txt" % (outdir, r))["rate"])
        except (OSError, ValueError, IndexError, KeyError):
            pass
    return sum(rates) / len(rates) if rates else float("nan")


def sweep_plot(outdir, runs, swp):
    """IX's figure: msgs/s against connections, and p99 against msgs/s."""
    fig, (ax1, ax2) = pyplot().subplots(1, 2, figsize=(12.8, 4.4))
    for name, t, colour in runs:
        pts = [(int(c), d[name]) for c, d in swp.items() if d[name]]
        if not pts:
            continue
        ax1.plot([c for c, _ in pts], [r["rate"] for _, r in pts], "o-", color=colour, label=t)
        ax2.plot([r["rate"] for _, r in pts], [r["p99_us"] for _, r in pts], "o-",
                 color=colour, label=t)
    ax1.set_xscale("log", base=2)
    ax1.set_xlabel("connections (each closed loop: offered load)")
    ax1.set_ylabel("messages/s")
    ax1.set_title("TCP echo, 64 round trips of 64 B per connection\n(QEMU TCG)")
    ax2.set_xlabel("messages/s")
    ax2.set_ylabel("p99 round trip (us)")
    ax2.set_title("p99 latency against throughput\n(QEMU TCG)")
    for ax in (ax1, ax2):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    save(fig, outdir, "tcp-sweep")


def tcp(outdir, kernel):
    prm = load_params(outdir)
    rounds = range(1, int(prm["rounds"]) + 1)
    nlist, sizes, secs = prm["nlist"].split(), prm["sizes"].split(), float(prm["secs"])
    runs = tcp_present(outdir)
    points = [(n, s) for n in nlist for s in sizes]
    pts = {pt: {name: tcp_point(outdir, name, pt[0], pt[1], rounds, secs)
                for name, _, _ in runs}
           for pt in points}
    pairs = ixmod_pairs(runs)
    pair_w = max([12] + [len(b) + len(o) + 1 for b, o in pairs])
    w = max([16] + [len(t) for _, t, _ in runs])
    ic, ic_why = load_icount(outdir, "scripts/bench-tcp")
    ic_pts, cal = {}, []
    # no NIC: the client's vCPU does part of every server's work
    both = prm.get("nic") == "softport"
    try:
        if ic:
            ic_pts = {(n, s): {name: icount_point(ic, name, ["%s-n%s-s%s-r%d" % (name, n, s, r)
                                                             for r in rounds])
                               for name, _, _ in runs} for n, s in points}
            cal = icount_calibration(ic, runs, rounds)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        ic, ic_why = None, icount_unreadable("%s: %s" % (type(e).__name__, e))

    def ratios(res):
        return {"%s/%s" % (b, o): {k: ratio_of(val(res[b], k), val(res[o], k))
                                   for k in ("rate", "p50_us", "p99_us")}
                for b, o in pairs}

    def block(n, s):
        res = pts[(n, s)]
        lines = ["n=%s round trips per connection, s=%s B, %s connections, %s s per round"
                 % (n, s, prm["conns"], prm["secs"]),
                 "  %-*s %9s %7s %9s %9s %8s %6s" % (w, "server", "msgs/s", "spread", "p50 us",
                                                    "p99 us", "conns/s", "failed")]
        for name, t, _ in runs:
            r = res[name]
            lines.append("  %-*s %9s %7s %9s %9s %8s %6s"
                         % (w, t, num(val(r, "rate"), "%.0f"),
                            num(100 * val(r, "spread"), "%.0f%%"),
                            num(val(r, "p50_us"), "%.0f"), num(val(r, "p99_us"), "%.0f"),
                            num(val(r, "conns"), "%.0f"), num(val(r, "fails"), "%d")))
        for pair, q in ratios(res).items():
            lines.append("  %-*s %9s %7s %9s %9s" % (
                w, pair, fmt_ratio(q["rate"]), "", fmt_ratio(q["p50_us"]),
                fmt_ratio(q["p99_us"])))
        return lines

    def ratio_rows(title, get):
        """A row per point (n, s), a column per pair ixmod variant/Linux server."""
        return ratio_table(title, "%6s %6s" % ("n", "s"),
                           [("%6s %6s" % pt, pt) for pt in points], pairs, pair_w, get)

    def summary():
        """msgs/s (and instructions) of each ixmod variant over each Linux server."""
        lines = ratio_rows("msgs/s ratios ixmod/Linux (above 1 favours ixmod):",
                           lambda pt, b, o: ratio_of(val(pts[pt][b], "rate"),
                                                     val(pts[pt][o], "rate")))
        if not ic:
            return lines + [ic_why]

        def ratios(what, field):
            return ratio_rows("instructions per request, ratios ixmod/Linux "
                              "(below 1 favours ixmod), " + what + ":",
                              lambda pt, b, o: ratio_of(val(ic_pts[pt][b], field),
                                                        val(ic_pts[pt][o], field)))

        lines += ratios("everything the server's vCPU executed", "total")
        if both:
            lines += ratios("both vCPUs (server and client) added up", "both")
        if prm["idle_us"] != "0":
            return lines
        lines += ratios("idle polling excluded", "without_idle")
        if both:
            lines += ratios("both vCPUs added up, ixmod's idle polling excluded",
                            "both_without_idle")
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
    colo = (", tcp-echo -C (co-located)" if any(name == "ixmod-colo" for name, _, _ in runs)
            else "")
    text = ["TCP echo (IX paper), kernel %s, QEMU TCG (software emulation), one VM run, "
            "%d rounds" % (kernel, len(rounds)),
            "ixmod: libixu tcp-echo%s, idle_us=%s; Linux: tcp-echo-epoll %s, tcp-echo-uring %s"
            % (colo, prm["idle_us"], prm["epoll_opts"] or "(level-triggered)",
               prm["uring_opts"] or "(plain ring)"), nic_line(prm)] + host_lines(outdir) + [""]
    text += textwrap.wrap(note, 76, break_on_hyphens=False) + [""]
    text += summary()
    for n, s in points:
        text += [""] + block(n, s)
    # the load sweep: C connections of 64 round trips of 64 B, closed loop
    sweep = prm.get("sweep", "1").split()
    swp = {c: {name: tcp_point(outdir, name, "64", "64", rounds, secs, "-c" + c)
               for name, _, _ in runs} for c in sweep}
    swp = {c: d for c, d in swp.items() if any(d.values())}
    swp_ic = {}
    for c, d in swp.items():
        text += ["", "load sweep: %s connection%s, each closed loop, 64 round trips of 64 B"
                 % (c, "" if c == "1" else "s") + (" (the latency row)" if c == "1" else "")]
        text.append("  %-*s %9s %9s %9s" % (w, "server", "msgs/s", "p50 us", "p99 us"))
        for name, t, _ in runs:
            r = d[name]
            text.append("  %-*s %9s %9s %9s" % (w, t, num(val(r, "rate"), "%.0f"),
                                               num(val(r, "p50_us"), "%.0f"),
                                               num(val(r, "p99_us"), "%.0f")))
        for pair, q in ratios(d).items():
            text.append("  %-*s %9s %9s %9s" % (w, pair, fmt_ratio(q["rate"]),
                                               fmt_ratio(q["p50_us"]), fmt_ratio(q["p99_us"])))
        if ic:
            try:
                swp_ic[c] = {name: icount_point(ic, name, ["%s-n64-s64-c%s-r%d" % (name, c, r)
                                                           for r in rounds])
                             for name, _, _ in runs}
            except (KeyError, TypeError, ValueError, AttributeError):
                pass
    segs = {pt: {name: tcp_segments(outdir, name, pt[0], pt[1], rounds) for name, _, _ in runs}
            for pt in points}
    if any(v for d in segs.values() for v in d.values()):
        text += ["", "segments per message, counted by the client's Linux stack (its InSegs "
                 "are the server's", "segments), and connections a reset ended:"]
        for n, s in points:
            text.append("  n=%s, s=%s B:" % (n, s))
            text.append("    %-*s %12s %12s %8s %14s" % (w, "server", "server segs", "client segs",
                                                        "resets", "delayed ACKs"))
            for name, t, _ in runs:
                g = segs[(n, s)][name]
                text.append("    %-*s %12s %12s %8s %14s"
                            % (w, t, num(val(g, "server_segs"), "%.2f"),
                               num(val(g, "client_segs"), "%.2f"), num(val(g, "resets"), "%d"),
                               num(val(g, "delayed_acks"), "%.3f")))
    refl = reflect_rate(outdir, rounds)
    if refl == refl:
        text += ["", "driver limit: ixmod's port reflecting UDP (udp_reflect), 64 B, 8 "
                 "outstanding over 4 flows: %.0f datagrams/s" % refl]
        for n, s in points:
            if s != "64":
                continue
            text.append("  TCP echo msgs/s over it at n=%s, 64 B: %s" % (n, ", ".join(
                "%s %s" % (name, fmt_ratio(ratio_of(val(pts[(n, s)][name], "rate"), refl)))
                for name, _, _ in runs)))
    if ic:
        blocks = [("n=%s round trips per connection, s=%s B, instructions per request "
                   "(rounds summed)" % pt, ic_pts[pt]) for pt in points]
        for c, d in swp_ic.items():
            blocks.append(("load sweep, %s connection%s of 64 round trips of 64 B, "
                           "instructions per request (rounds summed)"
                           % (c, "" if c == "1" else "s"), d))
        text += [""] + icount_section(ic, cal, blocks, runs, pairs, w, prm["idle_us"], both)
    sched, sched_data = sched_block(outdir, rounds, runs, served, "messages", w)
    if colo:
        sched.insert(2, "(ixmod-colo's own thread is its dataplane loop, and counts here)")
    text += [""] + sched
    text = "\n".join(text)
    print(text)
    with open("%s/report.txt" % outdir, "w") as f:
        f.write(text + "\n")

    keys = ("rate", "spread", "p50_us", "p99_us", "conns", "msgs", "fails")
    jpoints = []
    for n, s in points:
        res = pts[(n, s)]
        p = {"n": number(n), "s": number(s),
             "servers": {name: {k: res[name][k] for k in keys} if res[name] else None
                         for name, _, _ in runs},
             "ratios": ratios(res)}
        if ic:
            p["icount"] = ic_pts[(n, s)]
            p["icount_ratios"] = icount_ratios(ic_pts[(n, s)], pairs)
        jpoints.append(p)
    for p, (n, s) in zip(jpoints, points):
        p["segments"] = segs[(n, s)]
    write_json(outdir, {
        "mode": "tcp", "kernel": kernel, "params": prm, "host": host_lines(outdir),
        "driver_limit": refl,
        "sweep": [{"conns": number(c),
                   "servers": {name: {k: d[name][k] for k in keys} if d[name] else None
                               for name, _, _ in runs},
                   "ratios": ratios(d), "icount": swp_ic.get(c)} for c, d in swp.items()],
        "servers": [{"name": name, "label": t} for name, t, _ in runs],
        "points": jpoints,
        "icount": {"server_cpu": ic.get("server_cpu"), "client_cpu": ic.get("client_cpu"),
                   "calibration": cal} if ic else None,
        "icount_note": ic_why or None,
        "sched": sched_data})

    n, s = nlist[-1], sizes[0]
    series = [(t, c, pts[(n, s)][name]["cdf"]) for name, t, c in runs
              if pts[(n, s)][name] and pts[(n, s)][name]["cdf"]]
    fig, axes = pyplot().subplots(1, len(nlist) + (1 if series else 0),
                                  figsize=(6.4 * (len(nlist) + (1 if series else 0)), 4.4),
                                  squeeze=False)
    for i, n in enumerate(nlist):
        bar_axes(axes[0][i], [("%s B" % s, {name: val(pts[(n, s)][name], "rate")
                                            for name, _, _ in runs}) for s in sizes],
                 runs, "TCP echo msgs/s, n=%s round trips per connection\n(QEMU TCG)" % n,
                 "messages/s")
    if series:
        cdf_axes(axes[0][-1], series, "TCP echo round-trip CDF, n=%s, s=%s B\n(QEMU TCG)"
                 % (nlist[-1], sizes[0]), "round-trip time (us, log scale)")
    save(fig, outdir, "tcp")
    if swp:
        sweep_plot(outdir, runs, swp)
    if ic:
        icount_plot(outdir, runs, [("n=%s, %s B" % pt, pt) for pt in points], ic_pts,
                    ic.get("server_cpu", 1), "TCP echo", both)


KV_RUNS = [("ixmod", "ixmod kv-ixev", "#c0392b"),
           ("ixmod-colo", "ixmod kv-ixev -C", "#8e44ad"),
           ("epoll", "Linux kv-epoll", "#2471a3"),
           ("uring", "Linux kv-uring", "#27ae60"),
           ("memcached", "memcached", "#7f8c8d")]
KV_FIGS = ("achieved", "p50_us", "p99_us", "p999_us", "lag_p99_us")
KV_COUNTS = ("late", "errors", "misses", "lost", "sent", "window_replies")
# below this share of the offered rate achieved, a point is saturated
KV_SATURATED = 0.9


def kv_present(outdir):
    """The KV_RUNS that have at least one point in outdir."""
    files = os.listdir(outdir)
    return [run for run in KV_RUNS
            if any(re.fullmatch(r"kv-%s-[a-z]+-\d+-r\d+\.json" % re.escape(run[0]), f)
                   for f in files)]


def kv_point(outdir, name, wl, rate, rounds):
    """kvload's JSON of every round of a point, merged; None when none is there."""
    res = []
    for r in rounds:
        try:
            with open("%s/kv-%s-%s-%s-r%d.json" % (outdir, name, wl, rate, r)) as f:
                res.append(json.load(f))
        except (OSError, ValueError):
            continue
    if not res:
        return None
    d = {"rounds": len(res), "offered": float(rate),
         "achieved": sum(x["achieved"] for x in res) / len(res)}
    for k in KV_FIGS[1:]:
        xs = sorted(x[k] for x in res)
        mid = len(xs) // 2
        d[k] = xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2
    for k in KV_COUNTS:
        d[k] = sum(x.get(k, 0) for x in res)
    d["late_pct"] = 100.0 * d["late"] / d["sent"] if d["sent"] else float("nan")
    d["saturated"] = d["achieved"] < KV_SATURATED * d["offered"]
    return d


def kv_ratios(d, ic, pairs):
    """{b/o: {figure: b's / o's}} for one point's servers d and icount ic."""
    out = {}
    for b, o in pairs:
        q = {k: ratio_of(val(d[b], k), val(d[o], k)) for k in KV_FIGS}
        for k in ("kernel", "user", "total"):
            q["ins_" + k] = ratio_of(val(ic.get(b), k), val(ic.get(o), k))
        out["%s/%s" % (b, o)] = q
    return out


def kv_block(title, d, ic, q, runs, pairs, w):
    """One workload and rate: a row per server, then the ratio rows."""
    head = ("  %-*s %9s %8s %8s %8s %8s %6s %5s %5s %5s %9s %7s %9s"
            % (w, "server", "achieved", "p50 us", "p99 us", "p999 us", "lag p99", "late%",
               "err", "miss", "lost", "ins kern", "user", "total"))
    lines = [title, head]
    for name, t, _ in runs:
        r, c = d[name], ic.get(name)
        if not r:
            lines.append("  %-*s %9s" % (w, t, "-"))
            continue
        lines.append("  %-*s %8.0f%s %8.0f %8.0f %8.0f %8.0f %6s %5d %5d %5d %9s %7s %9s" % (
            w, t, r["achieved"], "*" if r["saturated"] else " ", r["p50_us"], r["p99_us"],
            r["p999_us"], r["lag_p99_us"], num(r["late_pct"], "%.1f"), r["errors"], r["misses"], r["lost"],
            *(num(val(c, k), "%.0f") for k in ("kernel", "user", "total"))))
    for pair, x in q.items():
        lines.append(("  %-*s %9s %8s %8s %8s %8s %6s %5s %5s %5s %9s %7s %9s" % (
            w, pair, *(fmt_ratio(x[k]) for k in KV_FIGS), "", "", "", "",
            *(fmt_ratio(x["ins_" + k]) for k in ("kernel", "user", "total")))).rstrip())
    return lines


def kv_latency_plot(outdir, runs, workloads, pts):
    """kv.png/.svg: p99 (solid) and p50 (dashed) against the achieved rate."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(workloads), figsize=(6.4 * len(workloads), 4.8),
                             squeeze=False)
    for ax, wl in zip(axes[0], workloads):
        for name, t, colour in runs:
            xs = [(p[name]["achieved"], p[name]["p50_us"], p[name]["p99_us"])
                  for (w, _), p in pts.items() if w == wl and p.get(name)]
            if not xs:
                continue
            xs.sort()
            ax.plot([x[0] for x in xs], [x[2] / 1000 for x in xs], "-o", color=colour,
                    markersize=4, label="%s p99" % t)
            ax.plot([x[0] for x in xs], [x[1] / 1000 for x in xs], "--", marker=".",
                    color=colour, alpha=0.7, label="%s p50" % t)
        ax.set_yscale("log")
        ax.set_xlabel("achieved requests/s")
        ax.set_ylabel("latency (ms, log scale)")
        ax.set_title("%s: latency against throughput\n(kvload open loop, QEMU TCG, "
                     "one VM run)" % wl.upper(), fontsize=11)
        ax.grid(True, which="both", color="#dddddd")
        ax.legend(fontsize=7, ncol=2)
    save(fig, outdir, "kv")


def kv_icount_plot(outdir, runs, workloads, rates, ic_pts, cpu):
    """icount.png/.svg: per workload, per rate, kernel and user stacked per server."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(workloads), squeeze=False,
                             figsize=(max(6.4, 0.3 * len(runs) * len(rates) + 2.5)
                                      * len(workloads), 4.8))
    width = 0.8 / max(len(runs), 1)
    for ax, wl in zip(axes[0], workloads):
        top = 0.0
        for i, (name, _, colour) in enumerate(runs):
            for g, rate in enumerate(rates):
                d = ic_pts[(wl, rate)].get(name)
                if not d:
                    continue
                x = g - 0.4 + (i + 0.5) * width
                top = max(top, kernel_user_bar(ax, x, width, colour, d["kernel"], d["user"]))
        ax.set_xticks(range(len(rates)), ["%s/s" % r for r in rates])
        ax.set_xlim(-0.5, len(rates) - 0.5)
        ax.set_ylim(0, top * 1.4 if top > 0 else 1)
        ax.set_xlabel("offered rate")
        ax.set_ylabel("guest instructions per request")
        ax.set_title("%s: instructions per request on the server vCPU (CPU %s)\n"
                     "icount plugin, one VM run, QEMU TCG" % (wl.upper(), cpu), fontsize=10)
        ax.grid(True, axis="y", color="#dddddd")
        ax.set_axisbelow(True)
        kernel_user_legend(ax, runs)
    save(fig, outdir, "icount")


def kv(outdir, kernel):
    prm = load_params(outdir)
    rounds = range(1, int(prm["rounds"]) + 1)
    rates = prm["rates"].split()
    workloads = prm["workloads"].split()
    runs = kv_present(outdir)
    pairs = ixmod_pairs(runs)
    w = max([16] + [len(t) for _, t, _ in runs] + [len(b) + len(o) + 1 for b, o in pairs])
    ic, ic_why = load_icount(outdir, "scripts/bench-kv") if prm.get("icount") == "1" \
        else (None, "no instruction counts (run with -P: no plugin)")
    pts, ic_pts, q_pts = {}, {}, {}
    for wl in workloads:
        for rate in rates:
            pt = (wl, rate)
            pts[pt] = {name: kv_point(outdir, name, wl, rate, rounds) for name, _, _ in runs}
            ic_pts[pt] = {}
            if ic:
                ic_pts[pt] = {name: icount_point(ic, name, ["%s-%s-%s-r%d" % (name, wl, rate, r)
                                                            for r in rounds])
                              for name, _, _ in runs}
            q_pts[pt] = kv_ratios(pts[pt], ic_pts[pt], pairs)

    text = ["Key-value (memcached protocol), kvload open loop from the peer namespace; "
            "kernel %s" % kernel]
    text += textwrap.wrap(
        "%s connections, %s s measured per point after %s s of warm-up, %s keys "
        "preloaded per server and workload, %s round(s); idle_us=%s.  Each server had "
        "CPU 1 to itself (its threads and its kernel work: ixmod's dataplane thread, or "
        "Linux's NIC interrupts); kvload ran on CPU 0." % (
            prm["conns"], prm["secs"], prm.get("warm_s", "1"), prm.get("keys", "?"),
            prm["rounds"], prm["idle_us"]), 76)
    text += textwrap.wrap(
        "achieved: replies read in the window per second; latency from each request's "
        "scheduled send time to its complete reply (a generator that falls behind "
        "includes its lag: lag p99 is how late the generator sent, late%% the share "
        "of requests sent more than 1 ms late; a ratio of lag is a check, not a result); "
        "'*': below %d%% of the offered rate, the server saturated.  ins: guest "
        "instructions per request on the server's vCPU (CPU 1), everything it executed "
        "in the window (idle included) over the window's replies.  Ratios are ixmod "
        "over Linux: above 1 favours ixmod for achieved, below 1 for the rest."
        % (100 * KV_SATURATED), 76)
    if ic_why:
        text.append(ic_why)
    host = host_lines(outdir)
    if host:
        text += [""] + host
    for wl in workloads:
        for rate in rates:
            pt = (wl, rate)
            text += [""] + kv_block("%s, offered %s requests/s" % (wl.upper(), rate),
                                    pts[pt], ic_pts[pt], q_pts[pt], runs, pairs, w)
    text += ["", "saturation: the highest offered rate each server kept up with (achieved",
             "at least %d%% of it), and the most it achieved at any rate:"
             % (100 * KV_SATURATED)]
    sat = {}
    for wl in workloads:
        for name, t, _ in runs:
            ok = [int(rate) for rate in rates
                  if pts[(wl, rate)][name] and not pts[(wl, rate)][name]["saturated"]]
            best = max([pts[(wl, rate)][name]["achieved"] for rate in rates
                        if pts[(wl, rate)][name]] or [float("nan")])
            sat.setdefault(wl, {})[name] = {"served_up_to": max(ok) if ok else None,
                                            "best_achieved": best}
            text.append("  %-4s %-*s %8s offered, best achieved %s/s" % (
                wl, w, t, max(ok) if ok else "none", num(best, "%.0f")))
    text.append("")
    sched_lines, sched_data = sched_block(
        outdir, rounds, runs,
        lambda n, r: sum(pts[(wl, rate)][n]["window_replies"]
                         for wl in workloads for rate in rates if pts[(wl, rate)][n]),
        "measured requests", w)
    sched_lines.insert(2, "(their time includes the warm-ups and preloads, the requests do not)")
    text += sched_lines
    text = "\n".join(text)
    print(text)
    with open("%s/report.txt" % outdir, "w") as f:
        f.write(text + "\n")

    write_json(outdir, {
        "mode": "kv", "kernel": kernel, "params": prm, "host": host,
        "servers": [{"name": name, "label": t} for name, t, _ in runs],
        "points": [{"workload": wl, "offered": number(rate), "servers": pts[(wl, rate)],
                    "icount": ic_pts[(wl, rate)] or None, "ratios": q_pts[(wl, rate)]}
                   for wl in workloads for rate in rates],
        "saturation": sat,
        "icount": {"server_cpu": ic.get("server_cpu"), "client_cpu": ic.get("client_cpu"),
                   "calibration": icount_calibration(ic, runs, rounds)} if ic else None,
        "icount_note": ic_why or None,
        "sched": sched_data})
    kv_latency_plot(outdir, runs, workloads, pts)
    if ic and any(d for p in ic_pts.values() for d in p.values()):
        kv_icount_plot(outdir, runs, workloads, rates, ic_pts, ic.get("server_cpu", 1))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] in ("icmp", "udp", "tcp", "kv"):
        reexec_for_matplotlib()
        {"icmp": icmp, "udp": udp, "tcp": tcp, "kv": kv}[sys.argv[1]](sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
