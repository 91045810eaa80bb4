# SPDX-License-Identifier: GPL-2.0
"""bench_plot.py - what the benchmarks' reports share: matplotlib set up
for plots checked into Documentation/ (Agg, SVG text as text, no date, a
fixed hash salt: the same figures make the same file), results.json
without NaN, grouped bars, and the small formatters.  Imported by
scripts/bench-report.py and scripts/bench-sat-report.py.
"""
import importlib.util
import json
import math
import os
import sys

DEB_PYTHON = "/usr/bin/python3"


def reexec_for_matplotlib():
    """Run again under Debian's python3 when this python3 lacks matplotlib."""
    if importlib.util.find_spec("matplotlib") is not None:
        return
    if os.environ.get("BENCH_REPORT_REEXEC") or not os.access(DEB_PYTHON, os.X_OK):
        return
    # Debian's own, outside any venv (a venv of it, such as virtme-ng's
    # that scripts/lib.sh puts first in PATH, hides its packages)
    if (os.path.realpath(sys.executable) == os.path.realpath(DEB_PYTHON) and
            sys.prefix == sys.base_prefix):
        return
    os.environ["BENCH_REPORT_REEXEC"] = "1"
    os.execv(DEB_PYTHON, [DEB_PYTHON, os.path.abspath(sys.argv[0])] + sys.argv[1:])


def pyplot():
    """matplotlib.pyplot on the Agg backend; exits with a hint when missing.

    Imported only when a plot is drawn, so that the text report and
    results.json are written first either way.
    """
    try:
        import matplotlib
    except ImportError:
        sys.exit("bench-report.py: no plots: python3-matplotlib is missing "
                 "(scripts/bootstrap installs it); the text report is written")
    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "ixmod",
                                "font.size": 10})
    import matplotlib.pyplot as plt
    return plt


def ratio_of(a, b):
    """a / b, NaN when either is missing or b is 0."""
    if a is None or b is None or a != a or b != b or not b:
        return float("nan")
    return a / b


def fmt_ratio(v):
    return "%.2f" % v if v == v else "-"


def json_clean(v):
    """v with NaN and infinities turned into None, for strict JSON."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: json_clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_clean(x) for x in v]
    return v


def write_json(outdir, obj):
    """OUTDIR/results.json: obj, NaN written as null."""
    path = "%s/results.json" % outdir
    with open(path, "w") as f:
        json.dump(json_clean(obj), f, indent=1, allow_nan=False)
        f.write("\n")
    print("results: %s" % path)


def save(fig, outdir, base):
    """Write fig as OUTDIR/BASE.png and OUTDIR/BASE.svg, then close it."""
    fig.tight_layout()
    for ext in ("png", "svg"):
        path = "%s/%s.%s" % (outdir, base, ext)
        fig.savefig(path, dpi=100, metadata={"Date": None} if ext == "svg" else None)
        print("plot: %s" % path)
    pyplot().close(fig)


def bar_axes(ax, groups, series, title, ylabel, label=None):
    """Grouped bars on ax, each labelled with its value; NaN values are left out.

    groups: [(label, {name: value})]; series: [(name, label, colour)].  A
    server keeps its place in a group where it has no value.  label, if
    given, makes a bar's label: label(name, value, {name: value} of its
    group) -> str (default: the value, "%.0f").
    """
    from matplotlib.patches import Patch

    width = 0.8 / max(len(series), 1)
    top = 0.0
    for i, (name, _, colour) in enumerate(series):
        xs, hs, gs = [], [], []
        for g, (_, vals) in enumerate(groups):
            v = vals.get(name, float("nan"))
            if v == v:
                xs.append(g - 0.4 + (i + 0.5) * width)
                hs.append(v)
                gs.append(vals)
                top = max(top, v)
        bars = ax.bar(xs, hs, width * 0.9, color=colour)
        if label:
            ax.bar_label(bars, labels=[label(name, v, vals) for v, vals in zip(hs, gs)],
                         fontsize=6.5, padding=1)
        else:
            ax.bar_label(bars, fmt="%.0f", fontsize=8, padding=1)
    ax.set_xticks(range(len(groups)), [g[0] for g in groups])
    ax.set_xlim(-0.5, len(groups) - 0.5)
    ax.set_ylim(0, top * (1.5 if label else 1.3) if top > 0 else 1)
    ax.set_title(title, fontsize=11)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", color="#dddddd")
    ax.set_axisbelow(True)
    ax.legend(handles=[Patch(color=c, label=t) for _, t, c in series],
              loc="upper right", fontsize=9 if not label else 7)


def kernel_user_bar(ax, x, width, colour, kernel, user):
    """One server's instructions per request at x: kernel, then user
    stacked on it (paler), the total written above; returns the total"""
    ax.bar(x, kernel, width * 0.9, color=colour)
    ax.bar(x, user, width * 0.9, bottom=kernel, color=colour, alpha=0.45)
    ax.text(x, kernel + user, short(kernel + user), ha="center", va="bottom",
            fontsize=6, rotation=90)
    return kernel + user


def kernel_user_legend(ax, runs):
    """The legend of kernel_user_bar()'s plots: a colour per server, then
    what solid and pale mean"""
    from matplotlib.patches import Patch

    handles = [Patch(color=c, label=t) for _, t, c in runs]
    handles += [Patch(color="#777777", label="kernel"),
                Patch(color="#777777", alpha=0.45, label="user")]
    ax.legend(handles=handles, loc="upper left", fontsize=7, ncol=2)


def is_ixmod(name):
    """Whether server name is an ixmod variant (the rest are Linux's)."""
    return name == "ixmod" or name.startswith("ixmod-")


def num(v, fmt):
    return fmt % v if v == v else "-"


def short(v):
    """A count in 3 or 4 characters: 950, 12.3k, 1.2M."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return "%.3g%s" % (v / div, unit)
    return "%.0f" % v
