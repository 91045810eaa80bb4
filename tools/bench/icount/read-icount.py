#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""read-icount.py - instructions each vCPU executed between two marks.

Usage: read-icount.py FILE A B

FILE is what the icount QEMU plugin wrote (out=FILE): lines
    mark SEQ vcpu IDX k0=N u0=N k1=N u1=N ...
    exit k0=N u0=N ...
and '#' comments.  IDX is the marking vCPU's index, or 'host' for a mark
the host asked for through the plugin's ctl= FIFO.  A and B are mark numbers (SEQ), or 'exit' for B.
Prints, as one JSON object, each vCPU's kernel and user instructions from
mark A to mark B:
    {"vcpu": [{"kernel": n, "user": n}, ...]}
The count at a mark includes the mark instruction itself, so the
difference covers the instructions after mark A up to and including
mark B.  The vCPU that executed a mark is counted exactly there; any other
vCPU may be counted up to one translation block (512 instructions) ahead,
as may every vCPU at a host mark.

Standard library only.
"""
import json
import re
import sys

COUNT = re.compile(r'^([ku])(\d+)=(\d+)$')


def parse_counts(words, where):
    """Map 'k3=5 u3=7 ...' to [{'kernel': .., 'user': ..}, ...]."""
    vcpus = {}
    for w in words:
        m = COUNT.match(w)
        if not m:
            raise ValueError(f'{where}: bad count {w!r}')
        key = 'kernel' if m.group(1) == 'k' else 'user'
        vcpus.setdefault(int(m.group(2)), {})[key] = int(m.group(3))
    if sorted(vcpus) != list(range(len(vcpus))):
        raise ValueError(f'{where}: vCPUs not numbered 0..n-1')
    for i, c in vcpus.items():
        if len(c) != 2:
            raise ValueError(f'{where}: vCPU {i} lacks a kernel or user count')
    return [vcpus[i] for i in range(len(vcpus))]


def read_marks(path):
    """Return ({seq: counts}, exit counts or None)."""
    marks = {}
    final = None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            where = f'{path}:{n}'
            if not words or words[0].startswith('#'):
                continue
            if words[0] == 'mark' and len(words) >= 4 and words[2] == 'vcpu':
                marks[int(words[1])] = parse_counts(words[4:], where)
            elif words[0] == 'exit':
                final = parse_counts(words[1:], where)
            else:
                raise ValueError(f'{where}: unknown line {line.strip()!r}')
    return marks, final


def delta(a, b):
    # A vCPU that had not started at mark A counts from zero.
    out = []
    for i, cb in enumerate(b):
        ca = a[i] if i < len(a) else {'kernel': 0, 'user': 0}
        out.append({k: cb[k] - ca[k] for k in ('kernel', 'user')})
    return out


def main(argv):
    if len(argv) != 4:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    path, a, b = argv[1:]
    try:
        marks, final = read_marks(path)
    except (OSError, ValueError) as e:
        print(f'read-icount.py: {e}', file=sys.stderr)
        return 1

    def counts(name):
        if name == 'exit':
            if final is None:
                raise KeyError('no exit line')
            return final
        if not name.isdigit() or int(name) not in marks:
            raise KeyError(f'no mark {name}')
        return marks[int(name)]

    try:
        ca, cb = counts(a), counts(b)
    except KeyError as e:
        print(f'read-icount.py: {path}: {e.args[0]}', file=sys.stderr)
        return 1
    print(json.dumps({'vcpu': delta(ca, cb)}))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
