#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench-sat-report.py - the report of scripts/bench-sat: throughput at
saturation, instructions per request there, latency against load.

usage: bench-sat-report.py OUTDIR

Reads OUTDIR/params.json and OUTDIR/raw.json (scripts/bench-sat-host.py's
every point) and writes OUTDIR/report.txt (also printed), OUTDIR/results.json
(the run's parameters, every point as measured, and what the report
derives: the saturation rates, their ratios ixmod/Linux, the latency
curves) and the plots, SVG and PNG:
  sat-tput      msgs/s per server vCPU at each closed-loop TCP point and
                the key-value saturation per workload, each ixmod bar
                labelled with its ratio to epoll (TCP) or memcached (KV)
  sat-latency   p99 (solid) and p50 (dashed) against the achieved rate, a
                curve per server, a panel per workload (TCP echo at 64
                connections, ETC, USR): IX's figure 4
  sat-icount    with -i, the server vCPU's instructions per request,
                kernel and user stacked, at each saturation point
The light-load points (one per server at one rate, each server's idle
policy as loaded) are a table, ratios to the Linux servers and the plot
  sat-light     the whole vCPU's instructions per request (idle polling
                included), kernel and user stacked, with each p99
A figure that is missing is '-' (null in results.json).
"""
import json
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_plot import (bar_axes, fmt_ratio, is_ixmod, kernel_user_bar,  # noqa: E402
                        kernel_user_legend, num, pyplot, ratio_of, reexec_for_matplotlib,
                        save, short, write_json)

TCP_RUNS = [("ixmod", "ixmod tcp-echo", "#c0392b"),
            ("ixmod-colo", "ixmod tcp-echo -C", "#8e44ad"),
            ("epoll", "Linux epoll", "#2471a3"),
            ("uring", "Linux io_uring", "#27ae60")]
KV_RUNS = [("ixmod", "ixmod kv-ixev", "#c0392b"),
           ("ixmod-colo", "ixmod kv-ixev -C", "#8e44ad"),
           ("epoll", "Linux kv-epoll", "#2471a3"),
           ("uring", "Linux kv-uring", "#27ae60"),
           ("memcached", "memcached", "#7f8c8d"),
           ("ixmod-memcached", "memcached on ixmod (libixu-posix)", "#d35400")]
NIC = {"virtio": "virtio-net", "igb": "igb (82576)"}
BUCKETS = ("1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127", "128+")
MIDPOINTS = (1, 2.5, 5.5, 11.5, 23.5, 47.5, 95.5, 128)
OTHER_MAX = 20		# % of a host core other work may take before a point is marked


def batch_mean(h):
    """The mean rx batch of a histogram (scripts/ixmod-stat's midpoints)"""
    if not h or not sum(h):
        return float("nan")
    return sum(n * m for n, m in zip(h, MIDPOINTS)) / sum(h)


def get(pt, *path):
    """pt[path...] or NaN"""
    v = pt
    for k in path:
        v = v.get(k) if isinstance(v, dict) else None
    return v if v is not None else float("nan")


def rate_of(pt):
    """A point's achieved rate: tcp-load's rate, kvload's achieved"""
    r = pt.get("result") or {}
    return r.get("rate", r.get("achieved", float("nan")))


def disturbed(pt):
    """'!' when other work on the host took more than OTHER_MAX% of a core
    during the point (the emulation, and so the rate, slowed by it)"""
    return "!" if get(pt, "host_other_pct") > OTHER_MAX else ""


def busy_ins(pt):
    """Instructions per request less ixmod's idle polling (its total times
    its busy share), the total for a Linux server (its idle vCPU halts)"""
    if "idle_share_pct" in pt and pt["idle_share_pct"] is not None:
        return get(pt, "ins", "total") * (100.0 - pt["idle_share_pct"]) / 100.0
    return float("nan") if is_ixmod(pt["server"]) else get(pt, "ins", "total")


def sat_row(pt, w, label):
    """A saturation point's line"""
    return "  %-*s %9s %7s %7s %7s %9s %7s %7s %6s %6s %6s %6s %6s" % (
        w, label, num(rate_of(pt), "%.0f") + disturbed(pt),
        num(get(pt, "result", "p50_us"), "%.0f"),
        num(get(pt, "result", "p99_us"), "%.0f"), num(get(pt, "result", "p999_us"), "%.0f"),
        num(get(pt, "ins", "kernel"), "%.0f"), num(get(pt, "ins", "user"), "%.0f"),
        num(busy_ins(pt), "%.0f"), num(get(pt, "client_cpu_pct"), "%.0f"),
        num(get(pt, "vcpu_host_pct"), "%.0f"),
        num(get(pt, "host_other_pct"), "%.0f"), num(get(pt, "server_busy_pct"), "%.0f"),
        num(batch_mean(pt["guest"].get("rx_batch_hist")), "%.1f"))


SAT_HEAD = ("  %-*s %9s %7s %7s %7s %9s %7s %7s %6s %6s %6s %6s %6s",
            ("server", "req/s", "p50 us", "p99 us", "p999 us", "ins kern", "user", "w/o idl",
             "client", "vCPU", "other", "busy", "batch"))


def head(w):
    fmt, cols = SAT_HEAD
    return fmt % ((w,) + cols)


def pairs(runs, bases):
    return [(b, o) for b, _, _ in runs if is_ixmod(b) for o in bases
            if any(o == n for n, _, _ in runs)]


def ratio_lines(pts, prs, w):
    """ixmod/Linux: requests/s (above 1 favours ixmod) and instructions
    per request (below 1 favours ixmod)"""
    lines = []
    for b, o in prs:
        if b in pts and o in pts:
            lines.append("  %-*s %9s %7s %7s %7s %9s %7s %6s" % (
                w, "%s/%s" % (b, o), fmt_ratio(ratio_of(rate_of(pts[b]), rate_of(pts[o]))),
                "", "", "", "", "", "") + "  instr total %s, w/o idle %s" % (
                    fmt_ratio(ratio_of(get(pts[b], "ins", "total"), get(pts[o], "ins", "total"))),
                    fmt_ratio(ratio_of(busy_ins(pts[b]), busy_ins(pts[o])))))
    return lines


def lat_rows(pts, w, label):
    """A latency curve's lines: one per load"""
    lines = []
    for pt in pts:
        r = pt.get("result") or {}
        bad = " ".join("%s=%d" % (k, r[k]) for k in ("timeouts", "dropped", "late", "errors",
                                                       "lost") if r.get(k))
        lines.append("  %-*s %5s %9s %9s %8s %8s %9s %6s %s" % (
            w, label, "mc90" if pt.get("kind") == "mc90" else "%.0f%%" % (100 * pt["fraction"]),
            num(float(pt["offered"]), "%.0f"), num(rate_of(pt), "%.0f") + disturbed(pt),
            num(get(pt, "result", "p50_us"), "%.0f"), num(get(pt, "result", "p99_us"), "%.0f"),
            num(get(pt, "result", "p999_us"), "%.0f"),
            num(batch_mean(pt["guest"].get("rx_batch_hist")), "%.1f"), bad))
        if pt["guest"].get("rx_batch_hist"):
            lines[-1] += " rx %s" % " ".join(map(str, pt["guest"]["rx_batch_hist"]))
    return lines


LAT_HEAD = "  %-*s %5s %9s %9s %8s %8s %9s %6s"

LIGHT_HEAD = ("  %-*s %7s %8s %8s %8s %8s %9s %7s %8s %7s %6s %6s",
              ("server", "idle_us", "achieved", "p50 us", "p99 us", "p99.9 us", "ins kern",
               "user", "total", "sleeps", "vCPU", "busy"))


def light_rows(pts, w, runs):
    """The light-load points: every instruction the vCPU ran per request
    (ixmod's idle polling included), sleeps: the core's per request"""
    fmt, cols = LIGHT_HEAD
    lines = [fmt % ((w,) + cols)]
    for s, t, _ in runs:
        for pt in sorted(pts.get(s, []), key=lambda p: p.get("idle_us") or 0):
            n = get(pt, "ins", "requests")
            lines.append(fmt % (
                w, t, "-" if pt.get("idle_us") is None else pt["idle_us"],
                num(rate_of(pt), "%.0f") + disturbed(pt),
                num(get(pt, "result", "p50_us"), "%.0f"),
                num(get(pt, "result", "p99_us"), "%.0f"),
                num(get(pt, "result", "p999_us"), "%.0f"),
                num(get(pt, "ins", "kernel"), "%.0f"), num(get(pt, "ins", "user"), "%.0f"),
                num(get(pt, "ins", "total"), "%.0f"),
                num(get(pt, "guest", "loop_sleeps") / n if n == n and n else float("nan"),
                    "%.2f"),
                num(get(pt, "vcpu_host_pct"), "%.0f"), num(get(pt, "server_busy_pct"), "%.0f")))
    return lines


def light_ratios(pts, runs, base):
    """ixmod's light-load figures over base's: p99 and the whole vCPU's
    instructions per request (below 1 favours ixmod)"""
    res = {}
    if not pts.get(base):
        return res
    b = pts[base][0]
    for s, _, _ in runs:
        if not is_ixmod(s):
            continue
        for pt in pts.get(s, []):
            res["%s%s/%s" % (s, "" if pt.get("idle_us") is None else "@%d" % pt["idle_us"],
                             base)] = {
                "p99": ratio_of(get(pt, "result", "p99_us"), get(b, "result", "p99_us")),
                "ins_total": ratio_of(get(pt, "ins", "total"), get(b, "ins", "total"))}
    return res


def lat_head(w):
    return LAT_HEAD % (w, "server", "load", "offered", "achieved", "p50 us", "p99 us",
                       "p99.9 us", "batch")


def ratio_label(base):
    """bar_axes()'s label: the value, and for ixmod its ratio to base"""
    def label(name, v, vals):
        q = ratio_of(v, vals.get(base))
        return short(v) + ("\n%.1fx" % q if is_ixmod(name) and q == q else "")
    return label


def tput_plot(outdir, prm, tcp, kv, tcp_runs, kv_runs):
    panels = [("n=%d" % n, n) for n in prm["nlist"]] if tcp else []
    plt = pyplot()
    k = len(panels) + (1 if kv else 0)
    if not k:
        return
    fig, axes = plt.subplots(1, k, figsize=(5.2 * k, 4.4), squeeze=False)
    nic = NIC.get(prm["nic"], prm["nic"])
    for ax, (label, n) in zip(axes[0], panels):
        groups = [("%d conns" % c, {s: rate_of(tcp[(s, n, c)]) for s, _, _ in tcp_runs
                                    if (s, n, c) in tcp}) for c in prm["clist"]]
        bar_axes(ax, groups, tcp_runs, "TCP 64 B echo, closed loop, %s\n(%s; ixmod: ratio "
                 "to epoll)" % (label, nic), "messages/s, one server vCPU", ratio_label("epoll"))
    if kv:
        groups = [(wl.upper(), {s: kv[(wl, s)] for s, _, _ in kv_runs if (wl, s) in kv})
                  for wl in prm["workloads"]]
        bar_axes(axes[0][-1], groups, kv_runs, "key-value saturation (open-loop ramp)"
                 "\n(%s; ixmod: ratio to memcached)" % nic, "requests/s, one server vCPU",
                 ratio_label("memcached"))
    save(fig, outdir, "sat-tput")


def latency_plot(outdir, prm, curves):
    """curves: [(panel title, runs, {server: [points]})]"""
    plt = pyplot()
    if not curves:
        return
    fig, axes = plt.subplots(1, len(curves), figsize=(5.4 * len(curves), 4.6), squeeze=False)
    for ax, (title, runs, cv) in zip(axes[0], curves):
        for name, t, colour in runs:
            pts = sorted((p for p in cv.get(name, []) if p["result"]), key=lambda p: p["fraction"])
            if not pts:
                continue
            xs = [rate_of(p) / 1000 for p in pts]
            ax.plot(xs, [get(p, "result", "p99_us") / 1000 for p in pts], "-o", color=colour,
                    markersize=3.5, label="%s p99" % t)
            ax.plot(xs, [get(p, "result", "p50_us") / 1000 for p in pts], "--", marker=".",
                    color=colour, alpha=0.6, label="%s p50" % t)
        ax.set_yscale("log")
        ax.set_xlabel("achieved requests/s (thousands)")
        ax.set_ylabel("latency (ms, log scale)")
        ax.set_title("%s\n(open loop, Poisson; %s; 10-100%% of each server's saturation)"
                     % (title, NIC.get(prm["nic"], prm["nic"])), fontsize=10)
        ax.grid(True, which="both", color="#eeeeee")
        ax.legend(fontsize=6.5, ncol=2)
    save(fig, outdir, "sat-latency")


def ins_bars(outdir, prm, groups, name, ylabel, title, headroom, note=None):
    """groups: [(label, {server: point})]: each point's instructions per
    request, kernel and user stacked, a bar per server in a group;
    note(point): text written inside its bar, or None"""
    plt = pyplot()
    runs = TCP_RUNS + [r for r in KV_RUNS if r[0] == "memcached"]
    fig, ax = plt.subplots(figsize=(max(6.4, 1.2 * len(groups) + 3), 4.6))
    width = 0.8 / len(runs)
    top = 0.0
    for g, (_, pts) in enumerate(groups):
        for i, (server, _, colour) in enumerate(runs):
            p = pts.get(server)
            if not p or "ins" not in p:
                continue
            x = g - 0.4 + (i + 0.5) * width
            h = kernel_user_bar(ax, x, width, colour, p["ins"]["kernel"], p["ins"]["user"])
            top = max(top, h)
            if note:
                ax.text(x, h * 0.45, note(p), ha="center", va="center", rotation=90,
                        fontsize=7, color="white")
    ax.set_xticks(range(len(groups)), [g[0] for g in groups], fontsize=8)
    ax.set_xlim(-0.5, len(groups) - 0.5)
    ax.set_ylim(0, top * headroom if top else 1)
    ax.set_ylabel(ylabel)
    ax.set_title(title % NIC.get(prm["nic"], prm["nic"]), fontsize=10)
    ax.grid(True, axis="y", color="#dddddd")
    ax.set_axisbelow(True)
    kernel_user_legend(ax, runs)
    save(fig, outdir, name)


def icount_plot(outdir, prm, groups):
    """groups: [(label, runs, {server: point})]: kernel and user stacked"""
    groups = [(g[0], g[2]) for g in groups if any("ins" in p for p in g[2].values())]
    if groups:
        ins_bars(outdir, prm, groups, "sat-icount", "guest instructions per request",
                 "instructions per request on the server vCPU at saturation (%s)\n"
                 "icount plugin, host marks; kv-* servers for KV, memcached grey", 1.3)


def light_plot(outdir, prm, groups):
    """groups: [(label, {server: [points]})]: at light load, every
    instruction the vCPU ran per request (kernel and user stacked, idle
    polling included), each bar with its p99 written inside"""
    groups = [(label, {s: v[0] for s, v in pts.items() if v}) for label, pts in groups]
    groups = [g for g in groups if any("ins" in p for p in g[1].values())]
    if groups:
        ins_bars(outdir, prm, groups, "sat-light",
                 "guest instructions per request, idle included",
                 "light load (%s): the whole vCPU per request and p99, one rate for all\n"
                 "ixmod at its own idle policy (idle_us as loaded); Linux halts when idle",
                 1.35, lambda p: "p99 %.1f ms" % (get(p, "result", "p99_us") / 1000.0))


def main(outdir):
    with open(os.path.join(outdir, "params.json")) as f:
        prm = json.load(f)
    with open(os.path.join(outdir, "raw.json")) as f:
        raw = json.load(f)
    points = raw["points"]
    tcp = {(p["server"], p["n"], p["conns"]): p for p in points
           if p["part"] == "tcp" and p.get("kind") == "closed"}
    tcp_lat = {}
    for p in points:
        if p["part"] == "tcp" and p.get("kind") == "open":
            tcp_lat.setdefault(p["server"], []).append(p)
    tcp_light, kv_light = {}, {}
    for p in points:
        if p.get("kind") == "light":
            d = tcp_light if p["part"] == "tcp" else kv_light.setdefault(p["workload"], {})
            d.setdefault(p["server"], []).append(p)
    kv_ramp, kv_lat, kv_mc90 = {}, {}, {}
    for p in points:
        if p["part"] != "kv":
            continue
        if p.get("kind") == "ramp":
            kv_ramp.setdefault((p["workload"], p["server"]), []).append(p)
        elif p.get("kind") == "open":
            kv_lat.setdefault(p["workload"], {}).setdefault(p["server"], []).append(p)
        elif p.get("kind") == "mc90":
            kv_mc90[(p["workload"], p["server"])] = p
    # the saturation: the rate achieved at the highest rate kept up with
    # (bench-sat-host.py's kv_ramp()), and that point's figures
    kv, kv_sat_pt = {}, {}
    for k, v in kv_ramp.items():
        ok = [p for p in v if rate_of(p) >= 0.9 * p["offered"]]
        kv_sat_pt[k] = max(ok, key=lambda p: p["offered"]) if ok else max(v, key=rate_of)
        kv[k] = rate_of(kv_sat_pt[k])
    tcp_runs = [r for r in TCP_RUNS if any(k[0] == r[0] for k in tcp) or r[0] in tcp_light]
    kv_runs = [r for r in KV_RUNS if any(k[1] == r[0] for k in kv) or
               any(r[0] in d for d in kv_light.values())]
    w = 22
    nic = NIC.get(prm["nic"], prm["nic"])
    text = ["bench-sat: %s, kernel %s, commit %s, %s" % (nic, prm["kernel"], prm["commit"],
                                                         prm["date"]),
            "command: %s" % prm["command"]]
    text += textwrap.wrap(
        "The client runs natively on the host (one thread), each server on the guest's "
        "CPU 1 with its kernel work, one boot, QEMU TCG.  Closed-loop points: %g s after "
        "%g s of warm-up; latency points: %g s, open loop with Poisson arrivals.  req/s: "
        "per server vCPU.  ins: guest instructions per request on CPU 1 between the "
        "client's two marks (icount plugin); w/o idl: less ixmod's idle polling (the "
        "total times its busy share).  client: the client's CPU, %% of a host core "
        "(below 80: not the bottleneck).  vCPU: QEMU's thread of CPU 1, %% of a host "
        "core; other: the host's CPU time that neither QEMU nor the client used (other "
        "work on the machine, %% of a core).  busy: CPU 1's busy share, %% (its "
        "/proc/stat; for ixmod, whose core "
        "polls, 100 less the idle polling's share of its instructions when measured: "
        "above 95, the server is the bottleneck).  batch: ixmod's mean rx batch over "
        "the point (rx_batch_hist).  '!' after a rate: other work on the host took "
        "more than %d%% of a core during the point, slowing the emulation: the rate is "
        "low by an unknown amount (instructions per request do not depend on it)."
        % (prm["secs"], prm["warm"], prm["lsecs"], OTHER_MAX), 78)
    if raw.get("failures"):
        text += ["", "FAILURES:"] + ["  %s (%s): %s" % (f["server"], f["part"], f["why"])
                                     for f in raw["failures"]]
    derived = {"tcp_saturation": [], "tcp_ratios": [], "kv_saturation": {}, "kv_ratios": {},
               "headline": {}}
    tcp_prs = pairs(tcp_runs, ("epoll", "uring"))
    if tcp:
        text += ["", "TCP 64-byte echo, closed loop (tcp-load -n N -c C):"]
        for n in prm["nlist"]:
            for c in prm["clist"]:
                pts = {s: tcp[(s, n, c)] for s, _, _ in tcp_runs if (s, n, c) in tcp}
                text += ["", "n=%d, %d connections" % (n, c), head(w)]
                text += [sat_row(pts[s], w, t) for s, t, _ in tcp_runs if s in pts]
                text += ratio_lines(pts, tcp_prs, w)
                for s, p in pts.items():
                    derived["tcp_saturation"].append({
                        "server": s, "n": n, "conns": c, "rate": rate_of(p),
                        "ins": p.get("ins"), "client_cpu_pct": p.get("client_cpu_pct"),
                        "vcpu_host_pct": p.get("vcpu_host_pct"),
                        "server_busy_pct": p.get("server_busy_pct")})
                for b, o in tcp_prs:
                    if b in pts and o in pts:
                        derived["tcp_ratios"].append({
                            "n": n, "conns": c, "pair": "%s/%s" % (b, o),
                            "rate": ratio_of(rate_of(pts[b]), rate_of(pts[o])),
                            "ins_total": ratio_of(get(pts[b], "ins", "total"),
                                                  get(pts[o], "ins", "total")),
                            "ins_without_idle": ratio_of(busy_ins(pts[b]), busy_ins(pts[o]))})
    if tcp_lat:
        text += ["", "TCP latency against load: open loop, %d connections, loads as a share "
                 "of the server's own closed-loop rate at n=%d, %d connections:"
                 % (prm["lat_conns"], prm["lat_n"], prm["lat_conns"]), lat_head(w)]
        for s, t, _ in tcp_runs:
            text += lat_rows(sorted(tcp_lat.get(s, []), key=lambda p: p["fraction"]), w, t)
    kv_prs = pairs(kv_runs, ("memcached", "epoll", "uring"))
    if kv:
        text += ["", "Key-value saturation (kvload open-loop ramp, %d connections; the rate "
                 "achieved at the highest rate kept up with):" % prm["kv_conns"]]
        for wl in prm["workloads"]:
            pts = {s: kv_sat_pt[(wl, s)] for s, _, _ in kv_runs if (wl, s) in kv_sat_pt}
            text += ["", wl.upper(), head(w)]
            text += [sat_row(pts[s], w, t) for s, t, _ in kv_runs if s in pts]
            text += ratio_lines(pts, kv_prs, w)
            derived["kv_saturation"][wl] = {s: {"rate": kv[(wl, s)], "ins": pts[s].get("ins"),
                                                "ramp": [(p["offered"], rate_of(p))
                                                         for p in kv_ramp[(wl, s)]]}
                                            for s in pts}
            derived["kv_ratios"][wl] = {"%s/%s" % (b, o): ratio_of(kv.get((wl, b)),
                                                                   kv.get((wl, o)))
                                        for b, o in kv_prs}
        for wl in prm["workloads"]:
            if wl not in kv_lat:
                continue
            text += ["", "%s latency against load (share of the server's own saturation; "
                     "mc90: 90%% of memcached's):" % wl.upper(), lat_head(w)]
            for s, t, _ in kv_runs:
                pts = sorted(kv_lat[wl].get(s, []), key=lambda p: p["fraction"])
                if (wl, s) in kv_mc90:
                    pts.append(kv_mc90[(wl, s)])
                text += lat_rows(pts, w, t)
    light = [("TCP 64-byte echo", "tcp", tcp_light, tcp_runs, ("epoll", "uring"))]
    light += [("Key-value %s" % wl.upper(), wl, kv_light[wl], kv_runs, ("memcached", "epoll"))
              for wl in prm["workloads"] if wl in kv_light]
    derived["light"] = {}
    for title, part, pts, runs, base in light:
        if not pts:
            continue
        rate = next(iter(pts.values()))[0]["offered"]
        text += ["", "%s at light load: open loop, %d requests/s for every server (%s), "
                 "%g s; the idle policy as a user gets it: ixmod's idle_us as loaded "
                 "(or as given), Linux's vCPU halts.  ins: all the vCPU executed per "
                 "request, idle polling included; sleeps: the core's, per request:"
                 % (title, rate, "--light-rate" if prm.get("light_rate") else
                    "%g of %s's saturation" % (prm.get("light_frac", 0), base[0]),
                    prm.get("light_secs", 0))]
        text += light_rows(pts, w, runs)
        q = {}
        for b in base:
            q.update(light_ratios(pts, runs, b))
        text += ["  %-*s p99 %s, instructions %s" % (w + 10, k, fmt_ratio(v["p99"]),
                                                     fmt_ratio(v["ins_total"]))
                 for k, v in q.items()]
        derived["light"][part] = {"rate": rate, "ratios": q}
    # the headline figures
    hl = derived["headline"]
    key = (prm["lat_n"], prm["lat_conns"])
    for b, o in tcp_prs:
        if (b,) + key in tcp and (o,) + key in tcp:
            hl["tcp_n%d_c%d_%s/%s" % (key + (b, o))] = {
                "rate": ratio_of(rate_of(tcp[(b,) + key]), rate_of(tcp[(o,) + key])),
                "ins_total": ratio_of(get(tcp[(b,) + key], "ins", "total"),
                                      get(tcp[(o,) + key], "ins", "total")),
                "ins_without_idle": ratio_of(busy_ins(tcp[(b,) + key]),
                                             busy_ins(tcp[(o,) + key]))}
    for s, pts in tcp_lat.items():
        for p in pts:
            if abs(p["fraction"] - 0.9) < 1e-6:
                hl["tcp_p99_us_at_90pct_%s" % s] = get(p, "result", "p99_us")
    for wl, d in kv_lat.items():
        for s, pts in d.items():
            for p in pts:
                if abs(p["fraction"] - 0.9) < 1e-6:
                    hl["%s_p99_us_at_90pct_%s" % (wl, s)] = get(p, "result", "p99_us")
    for (wl, s), p in kv_mc90.items():
        hl["%s_p99_us_at_90pct_of_memcached_%s" % (wl, s)] = get(p, "result", "p99_us")
        # memcached's own, the figure the target halves
        hl["%s_p99_us_at_90pct_of_memcached_memcached" % wl] = \
            hl.get("%s_p99_us_at_90pct_memcached" % wl, float("nan"))
    for part, d in derived["light"].items():
        for pair, v in d["ratios"].items():
            hl["light_%s_%s" % (part, pair)] = v
    for wl, q in derived["kv_ratios"].items():
        for pair, v in q.items():
            hl["%s_%s" % (wl, pair)] = v
    text += ["", "headline:"] + ["  %-44s %s" % (k, num(v, "%.2f") if not isinstance(v, dict)
                                                else " ".join("%s %s" % (a, fmt_ratio(x))
                                                              for a, x in v.items()))
                                 for k, v in hl.items()]
    text = "\n".join(text)
    print(text)
    with open(os.path.join(outdir, "report.txt"), "w") as f:
        f.write(text + "\n")
    write_json(outdir, {"mode": "sat", "params": prm, "guest_kernel": raw.get("guest_kernel"),
                        "failures": raw.get("failures"), "calibration": raw.get("calibration"),
                        "dmesg_clean": raw.get("dmesg_clean"), "derived": derived,
                        "points": points})
    tput_plot(outdir, prm, tcp, kv, tcp_runs, kv_runs)
    curves = []
    if tcp_lat:
        curves.append(("TCP 64 B echo, %d connections" % prm["lat_conns"], tcp_runs, tcp_lat))
    for wl in prm["workloads"]:
        if wl in kv_lat:
            curves.append(("key-value %s" % wl.upper(), kv_runs, kv_lat[wl]))
    latency_plot(outdir, prm, curves)
    groups = [("TCP n=%d\nc=%d" % (n, c), tcp_runs,
               {s: tcp[(s, n, c)] for s, _, _ in tcp_runs if (s, n, c) in tcp})
              for n in prm["nlist"] for c in prm["clist"]]
    groups += [(wl.upper(), kv_runs, {s: kv_sat_pt[(wl, s)] for s, _, _ in kv_runs
                                      if (wl, s) in kv_sat_pt}) for wl in prm["workloads"]]
    icount_plot(outdir, prm, groups)
    lights = [("TCP %d/s" % derived["light"]["tcp"]["rate"], tcp_light)] if tcp_light else []
    lights += [("%s %d/s" % (wl.upper(), derived["light"][wl]["rate"]), kv_light[wl])
               for wl in prm["workloads"] if wl in kv_light]
    light_plot(outdir, prm, lights)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    reexec_for_matplotlib()
    main(sys.argv[1])
