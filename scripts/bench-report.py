#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a benchmark run: percentiles, rates, ratios, and a CDF plot.

Usage: bench-report.py icmp OUTDIR KERNEL

Reads OUTDIR/rtt-{ixmod,linux}.txt and OUTDIR/flood-{ixmod,linux}.txt as
scripts/bench-icmp-guest.sh writes them; prints a table and writes
OUTDIR/results.txt and OUTDIR/rtt-cdf.svg.  Standard library only.
"""
import sys


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
    import math
    w, h, ml, mr, mt, mb = 640, 400, 60, 20, 40, 50
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

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14">%s</text>' % (ml, title)]
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
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


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


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "icmp":
        sys.exit(__doc__)
    icmp(sys.argv[2], sys.argv[3])
