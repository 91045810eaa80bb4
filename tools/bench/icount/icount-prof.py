#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""icount-prof.py - where a window's instructions went, function by function.

Usage: icount-prof.py [-n PER] [-t TOP] [-x WINDOW:SCALE] [-u MAPS]
                      PROF KALLSYMS WINDOW[,WINDOW...]

PROF is the icount plugin's profile (prof=PROF): for each window (the
instructions of one vCPU between a mark and the one before it)
    window SEQ
    ADDR NINSNS INSNS     (hex block address, block length, instructions)
KALLSYMS is the guest's /proc/kallsyms of the same boot, read as root
(modules' symbols included while they are loaded).  Sums the windows
named, gives each block's instructions to the kernel function whose
address is the nearest at or below the block's, user-space blocks
(below 0xffff800000000000) to "[user]", and prints, largest first,
instructions (divided by PER when given: per request), the share, and
the function with its module.  TOP rows (default 40), then the rest as
one row and the total.

-x subtracts another window's blocks, each multiplied by SCALE, before
attributing: with an unloaded (calibration) window and SCALE the
point's idle iterations over the window's, what remains is where the
instructions went with the idle polling taken out, on the assumption
that an idle iteration under load costs what one unloaded does.  A
function can then come out slightly negative (the two windows' noise).

-u names user-space functions too: MAPS is /proc/PID/maps of the one
process that ran on the profiled vCPU, saved while it ran.  Each
executable mapping's file is read on this machine (the guest of
scripts/vm-run shares the host's files), its symbols listed with nm, and
a user block is given to the nearest symbol at or below it, shown as
"FUNCTION (FILE)"; "[vdso]" and "[user, no symbol]" otherwise.

Standard library only.
"""
import bisect
import getopt
import os
import subprocess
import sys

KERNEL_BASE = 0xffff800000000000


def read_kallsyms(path):
    """[(address, name)] of text symbols, sorted by address."""
    syms = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 3 or w[1] not in "tTwW":
                continue
            addr = int(w[0], 16)
            if not addr:
                continue	# kptr_restrict hid them: read as root
            name = w[2] + (" " + w[3] if len(w) > 3 else "")
            syms.append((addr, name))
    syms.sort()
    return syms


def read_windows(path, wanted):
    """{address: instructions} summed over the windows in wanted."""
    blocks = {}
    cur = None
    seen = set()
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "window":
                cur = int(w[1])
                if cur in wanted:
                    seen.add(cur)
                continue
            if cur in wanted:
                a = int(w[0], 16)
                blocks[a] = blocks.get(a, 0) + int(w[2])
    missing = wanted - seen
    if missing:
        raise ValueError("%s: no window %s" % (path, ", ".join(map(str, sorted(missing)))))
    return blocks


def elf_is_exec(path):
    """True for a position-dependent executable (ET_EXEC: no load bias)"""
    with open(path, "rb") as f:
        h = f.read(18)
    return len(h) == 18 and h[:4] == b"\x7fELF" and h[16] == 2


def nm_text(path):
    """[(address in the file, name)] of path's text symbols"""
    res = []
    for args in (["nm", "--defined-only"], ["nm", "-D", "--defined-only"]):
        r = subprocess.run(args + [path], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            w = line.split()
            if len(w) == 3 and w[1] in "tTwWiI":
                res.append((int(w[0], 16), w[2]))
        if res:
            break
    return res


def read_user_syms(maps):
    """[(address, name)] of the text symbols mapped in a /proc/PID/maps,
    at the addresses they ran at, sorted; and [(start, end, label)] of
    mappings without symbols"""
    syms, areas, done = [], [], set()
    with open(maps) as f:
        for line in f:
            w = line.split()
            if len(w) < 5 or "x" not in w[1]:
                continue
            start, end = (int(x, 16) for x in w[0].split("-"))
            path = w[5] if len(w) > 5 else ""
            if not path.startswith("/") or not os.path.exists(path):
                areas.append((start, end, path or "[anonymous]"))
                continue
            if path in done:
                continue
            done.add(path)
            bias = 0 if elf_is_exec(path) else start - int(w[2], 16)
            base = os.path.basename(path)
            syms += [(bias + a, "%s (%s)" % (n, base)) for a, n in nm_text(path)]
    syms.sort()
    return syms, areas


def attribute(blocks, syms, usyms=None):
    """{function: instructions}"""
    addrs = [a for a, _ in syms]
    uaddrs = [a for a, _ in usyms[0]] if usyms else []
    out = {}
    for a, n in blocks.items():
        if a == 0:
            name = "[blocks past the plugin's slots]"
        elif a < KERNEL_BASE:
            name = "[user]"
            if usyms:
                name = "[user, no symbol]"
                area = [lab for s, e, lab in usyms[1] if s <= a < e]
                i = bisect.bisect_right(uaddrs, a) - 1
                if area:
                    name = area[0]
                elif i >= 0:
                    name = usyms[0][i][1]
        else:
            i = bisect.bisect_right(addrs, a) - 1
            name = syms[i][1] if i >= 0 else "[kernel, no symbol]"
        out[name] = out.get(name, 0) + n
    return out


def main(argv):
    try:
        opts, args = getopt.getopt(argv[1:], "n:t:x:u:")
    except getopt.GetoptError as e:
        sys.exit("icount-prof.py: %s\n%s" % (e, __doc__.split("\n\n")[1]))
    per, top, sub, maps = None, 40, None, None
    for o, v in opts:
        if o == "-u":
            maps = v
        elif o == "-n":
            per = float(v)
        elif o == "-x":
            try:
                win, scale = v.split(":")
                sub = (int(win), float(scale))
            except ValueError:
                sys.exit("icount-prof.py: -x takes WINDOW:SCALE, not %r" % v)
        else:
            top = int(v)
    if len(args) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    try:
        wanted = {int(x) for x in args[2].split(",")}
        blocks = read_windows(args[0], wanted)
        if sub:
            for a, n in read_windows(args[0], {sub[0]}).items():
                blocks[a] = blocks.get(a, 0) - n * sub[1]
        funcs = attribute(blocks, read_kallsyms(args[1]),
                          read_user_syms(maps) if maps else None)
    except (OSError, ValueError) as e:
        print("icount-prof.py: %s" % e, file=sys.stderr)
        return 1
    total = sum(funcs.values())
    div = per if per else 1.0
    unit = "per request" if per else "instructions"
    less = " less window %d x %.4g" % sub if sub else ""
    print("%14s %6s  function (windows %s%s of %s)" % (unit, "share", args[2], less,
                                                       args[0]))
    rows = sorted(funcs.items(), key=lambda kv: -kv[1])
    for name, n in rows[:top]:
        print("%14.1f %5.1f%%  %s" % (n / div, 100.0 * n / total if total else 0, name))
    rest = sum(n for _, n in rows[top:])
    if rest:
        print("%14.1f %5.1f%%  (%d other functions)" % (rest / div, 100.0 * rest / total,
                                                     len(rows) - top))
    print("%14.1f %5.1f%%  total" % (total / div, 100.0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
