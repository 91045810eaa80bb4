#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# regs-crosscheck.py - compare ixmod's register headers with Linux's, as TAP
#
# Every macro ixmod/nic/ixgbe_regs.h and ixmod/nic/igb_regs.h define is
# matched by name with the Linux driver's headers from Debian's
# linux-source-6.12 (scripts/bootstrap unpacks it; LINUX_SRC= overrides):
#
#   ixgbe_regs.h  IXGBE_X  <->  IXGBE_X  in ixgbe/ixgbe_type.h
#   igb_regs.h    IGB_X    <->  E1000_X  in igb/e1000_regs.h, e1000_defines.h
#                                        and e1000_82575.h
#
# and, where ALIASES below names other expressions, with those too: an
# alias adds a comparison and never replaces the same name's, so a macro
# that takes a Linux name must mean what Linux means by it (the 82599's
# IXGBE_FCRTH_82599(n), 4 bytes apart, is not Linux's IXGBE_FCRTH(n),
# the 82598's, 8 apart).  Both sides are
# evaluated by the C compiler, never parsed for values: one program
# includes ixmod's header, another the Linux headers' preprocessor lines
# (their C code dropped, so that no kernel header is needed), and each
# prints its side.  A macro with an index (IXGBE_RDBAL(n)) is compared at
# the boundary indices RANGES allows.  Values are compared as 32-bit
# words, the width of every register.  Where Linux's headers count the
# entries (E1000_RAR_ENTRIES_82576), RANGES names that macro rather than
# a number, so the indices probed are Linux's: the 82576's receive
# addresses 16-23 sit at 0x054e0, not after entry 15.
#
# A value that differs fails the test.  A macro without a Linux
# counterpart is listed as a "#" line, so a reader sees what is unchecked;
# it does not fail.  A missing linux-source fails, naming scripts/bootstrap.
#
# Options are the kselftest harness's, for tap-run.sh: -l lists the tests,
# -t/-f/-v NAME and -r FIXTURE.TEST select (the fixture is "global").

import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
LINUX_SRC = os.environ.get('LINUX_SRC', '/usr/src/linux-source-6.12')
INTEL = 'drivers/net/ethernet/intel'

# Indices each indexed macro is defined for (datasheet counts), or the
# explicit argument values to try.  Every indexed macro that has a Linux
# counterpart must be here: one that is not fails, so none goes unchecked.
# A string is a Linux macro that holds the count.
RANGES = {
    # 82599: 128 queues, 8 packet buffers, 16 queue counters (§8.2.3)
    'IXGBE_FCRTL_82599': 8, 'IXGBE_FCRTH_82599': 8, 'IXGBE_MPC': 8,
    'IXGBE_EIMS_EX': 2, 'IXGBE_EIMC_EX': 2, 'IXGBE_EITR': 129,
    'IXGBE_IVAR': 64, 'IXGBE_MTA': 128, 'IXGBE_RAL': 128, 'IXGBE_RAH': 128,
    'IXGBE_RETA': 32, 'IXGBE_RSSRK': 10,
    'IXGBE_RDBAL': 128, 'IXGBE_RDBAH': 128, 'IXGBE_RDLEN': 128, 'IXGBE_RDH': 128,
    'IXGBE_RDT': 128, 'IXGBE_RXDCTL': 128, 'IXGBE_SRRCTL': 128,
    'IXGBE_TDBAL': 128, 'IXGBE_TDBAH': 128, 'IXGBE_TDLEN': 128, 'IXGBE_TDH': 128,
    'IXGBE_TDT': 128, 'IXGBE_TXDCTL': 128,
    'IXGBE_QPRC': 16, 'IXGBE_QPTC': 16, 'IXGBE_QPRDC': 16,
    'IXGBE_RQSMR': 32, 'IXGBE_TQSM': 32,
    # 82576: 16 queues, 24 receive addresses (82576 datasheet ch. 8)
    'IGB_MTA': 128, 'IGB_RAL': 'E1000_RAR_ENTRIES_82576',
    'IGB_RAH': 'E1000_RAR_ENTRIES_82576', 'IGB_RETA': 32, 'IGB_RSSRK': 10,
    'IGB_RDBAL': 16, 'IGB_RDBAH': 16, 'IGB_RDLEN': 16, 'IGB_SRRCTL': 16,
    'IGB_RDH': 16, 'IGB_RDT': 16, 'IGB_RXDCTL': 16,
    'IGB_TDBAL': 16, 'IGB_TDBAH': 16, 'IGB_TDLEN': 16, 'IGB_TDH': 16,
    'IGB_TDT': 16, 'IGB_TXDCTL': 16,
    # field builders: values that fill the field (CT bits 11:4, COLD 21:12)
    'IGB_TCTL_CT': [0, 1, 15, 0xff], 'IGB_TCTL_COLD': [0, 1, 0x3f, 0x3ff],
}
PROBES = [0, 1, 2, 3, 4, 7, 8, 15, 16, 23, 24, 31, 32, 63, 64, 65, 127, 128]

# ixmod name -> Linux expressions it must equal (in terms of the macro's
# own parameters), where the plain name does not match.
ALIASES = {
    # Linux's IXGBE_EEC(hw) picks the address by MAC; the 82599's:
    'IXGBE_EEC': ['IXGBE_EEC_8259X'],
    'IXGBE_NUM_MSIX': ['IXGBE_MAX_MSIX_VECTORS_82599'],
    # the field is bits 7:6 (01: 100 Mb/s, 1x: 1000)
    'IGB_STATUS_SPEED_SHIFT': ['__builtin_ctz(E1000_STATUS_SPEED_100)'],
    # Linux has masks and shifts; ixmod builds the field
    'IGB_TCTL_CT': ['((x) << E1000_CT_SHIFT)'],
    'IGB_TCTL_COLD': ['((x) << E1000_COLD_SHIFT)'],
    # Linux names the array base, without an index
    'IGB_MTA': ['(E1000_MTA + (i) * 4)'],
    'IGB_MRQC_RSS': ['E1000_MRQC_ENABLE_RSS_MQ'],
    'IGB_MRQC_FIELD_IPV4_TCP': ['E1000_MRQC_RSS_FIELD_IPV4_TCP'],
    'IGB_MRQC_FIELD_IPV4': ['E1000_MRQC_RSS_FIELD_IPV4'],
    'IGB_MRQC_FIELD_IPV4_UDP': ['E1000_MRQC_RSS_FIELD_IPV4_UDP'],
    'IGB_MRQC_FIELD_IPV6_TCP_EX': ['E1000_MRQC_RSS_FIELD_IPV6_TCP_EX'],
    'IGB_MRQC_FIELD_IPV6': ['E1000_MRQC_RSS_FIELD_IPV6'],
    'IGB_MRQC_FIELD_IPV6_TCP': ['E1000_MRQC_RSS_FIELD_IPV6_TCP'],
    'IGB_MRQC_FIELD_IPV6_UDP': ['E1000_MRQC_RSS_FIELD_IPV6_UDP'],
    'IGB_SRRCTL_DESC_ADV_ONEBUF': ['E1000_SRRCTL_DESCTYPE_ADV_ONEBUF'],
    # one ixmod bit for both queue enables
    'IGB_XDCTL_ENABLE': ['E1000_RXDCTL_QUEUE_ENABLE', 'E1000_TXDCTL_QUEUE_ENABLE'],
    # the PHY's clause 22 control register and its bits (e1000_defines.h)
    'IGB_PHY_BMCR': ['PHY_CONTROL'],
    'IGB_BMCR_ANRESTART_1000FD': ['(MII_CR_AUTO_NEG_EN | MII_CR_RESTART_AUTO_NEG | '
                                  'MII_CR_FULL_DUPLEX | MII_CR_SPEED_1000)'],
}

HEADERS = [
    # (test name, ixmod header, ixmod prefix, Linux prefix, Linux headers)
    ('regs_crosscheck_ixgbe', 'ixmod/nic/ixgbe_regs.h', 'IXGBE_', 'IXGBE_',
     [INTEL + '/ixgbe/ixgbe_type.h']),
    ('regs_crosscheck_igb', 'ixmod/nic/igb_regs.h', 'IGB_', 'E1000_',
     [INTEL + '/igb/e1000_regs.h', INTEL + '/igb/e1000_defines.h',
      INTEL + '/igb/e1000_82575.h']),
]

# What the Linux headers' macros use from headers that are not read
PRELUDE = '''#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))
#define GENMASK(h, l) (((~0UL) << (l)) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l) GENMASK(h, l)
'''

DEFINE = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)(\(([^)]*)\))?')
IDENT = re.compile(r'\b[A-Za-z_]\w*\b')


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def logical_lines(text):
    return strip_comments(text).replace('\\\n', ' ').split('\n')


def directives(path):
    """The preprocessor lines of a header, less its #includes."""
    with open(path) as f:
        lines = logical_lines(f.read())
    return [ln for ln in lines if ln.lstrip().startswith('#') and
            not re.match(r'\s*#\s*include\b', ln)]


def macros(lines):
    """name -> list of parameters, or None for an object-like macro"""
    out = {}
    for ln in lines:
        m = DEFINE.match(ln)
        if m:
            out[m.group(1)] = ([p.strip() for p in m.group(3).split(',') if p.strip()]
                               if m.group(2) else None)
    return out


def run_c(src, tmp, name):
    """Compile and run a program printing "key value" lines."""
    c = os.path.join(tmp, name + '.c')
    exe = os.path.join(tmp, name)
    with open(c, 'w') as f:
        f.write(src)
    cc = os.environ.get('CC', 'cc').split()
    r = subprocess.run(cc + ['-w', '-O0', '-I', os.path.join(TOP, 'ixmod/nic'), '-o', exe, c],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError('%s did not compile:\n%s' % (name, r.stderr[-3000:]))
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    vals = {}
    for ln in out.splitlines():
        k, v = ln.rsplit(' ', 1)
        vals[k] = v
    return vals


def program(head, probes):
    """probes: (key, guard identifiers, expression)"""
    body = [head, '#include <stdio.h>', 'int main(void)', '{']
    for key, guard, expr in probes:
        cond = ' && '.join('defined(%s)' % g for g in guard) or '1'
        body += ['#if %s' % cond,
                 '\tprintf("%%s %%#x\\n", "%s", (unsigned int)(%s));' % (key, expr),
                 '#else',
                 '\tprintf("%%s undefined\\n", "%s");' % key,
                 '#endif']
    body += ['\treturn 0;', '}', '']
    return '\n'.join(body)


def linux_counts(ldirs, ours, tmp, test):
    """The values of the Linux count macros RANGES names for ours."""
    names = sorted({RANGES[n] for n in ours if isinstance(RANGES.get(n), str)})
    if not names:
        return {}
    vals = run_c(program(PRELUDE + '\n'.join(ldirs), [(n, [n], n) for n in names]),
                 tmp, test + '_counts')
    return {n: int(v, 0) for n, v in vals.items() if v != 'undefined'}


def check(test, header, ixp, lxp, linux_headers, tmp):
    """Returns (failures, diagnostics)."""
    missing = [h for h in linux_headers if not os.path.isfile(os.path.join(LINUX_SRC, h))]
    if missing:
        return (['%s not found: the cross-check needs Debian\'s linux-source-6.12 '
                 'unpacked there; run scripts/bootstrap (or set LINUX_SRC=)'
                 % os.path.join(LINUX_SRC, missing[0])], [])
    hpath = os.path.join(TOP, header)
    with open(hpath) as f:
        ours = macros(logical_lines(f.read()))
    guard = [n for n in ours if n.startswith('_') and n.endswith('_H')]
    for g in guard:
        del ours[g]
    ldirs = []
    for h in linux_headers:
        ldirs += directives(os.path.join(LINUX_SRC, h))
    theirs = macros(ldirs)

    fails, diags, unmatched = [], [], []
    try:
        counts = linux_counts(ldirs, ours, tmp, test)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        return ([str(e)], [])
    ix_probes, lx_probes, pairs = [], [], []
    lx_helpers = []
    for name, params in ours.items():
        shown = name + ('(%s)' % ', '.join(params) if params is not None else '')
        lname = lxp + name[len(ixp):]
        exprs = []
        if lname in theirs and (theirs[lname] is None) == (params is None) and \
           (params is None or len(theirs[lname]) == len(params)):
            exprs = [lname + ('(%s)' % ', '.join(params) if params is not None else '')]
        exprs += ALIASES.get(name, [])
        if not exprs:
            unmatched.append('%s: %s' % (shown, 'no %s in Linux' % lname if lname not in theirs
                                         else 'Linux\'s %s takes other arguments' % lname))
            continue
        if params is None:
            args = [None]
        elif len(params) == 1 and name in RANGES:
            r = RANGES[name]
            if isinstance(r, str):
                r = counts.get(r)
                if not isinstance(r, int):
                    fails.append('%s: Linux does not define %s, its count'
                                 % (shown, RANGES[name]))
                    continue
            args = r if isinstance(r, list) else [n for n in PROBES if n < r]
        else:
            fails.append('%s has a Linux counterpart but no argument values in RANGES'
                         % shown)
            continue
        for j, expr in enumerate(exprs):
            helper = 'IXM_LX_%s_%d' % (name, j)
            lx_helpers.append('#define %s%s %s' % (
                helper, '(%s)' % ', '.join(params) if params is not None else '', expr))
            need = sorted({i for i in IDENT.findall(expr)
                           if i in theirs and i not in (params or [])})
            need = need or [i for i in IDENT.findall(expr) if i not in (params or [])][:1]
            for a in args:
                call = '' if a is None else '(%d)' % a
                key = '%s%s#%d' % (name, call, j)
                ix_probes.append((key, [name], name + call))
                lx_probes.append((key, [i for i in need if not i.startswith('__')],
                                  helper + call))
                shown_expr = expr if a is None else \
                    IDENT.sub(lambda m: str(a) if m.group(0) in params else m.group(0), expr)
                pairs.append((key, shown if a is None else name + call, shown_expr))

    try:
        mine = run_c(program('#include "%s"' % os.path.basename(header), ix_probes),
                     tmp, test + '_ixmod')
        linux = run_c(program(PRELUDE + '\n'.join(ldirs + lx_helpers), lx_probes),
                      tmp, test + '_linux')
    except (RuntimeError, subprocess.CalledProcessError) as e:
        return ([str(e)], [])

    checked = set()
    for key, what, expr in pairs:
        a, b = mine[key], linux[key]
        if b == 'undefined':
            fails.append('%s: Linux does not define %s' % (what, expr))
        elif a != b:
            fails.append('%s is %s, Linux\'s %s is %s' % (what, a, expr, b))
        checked.add(key.split('(')[0].split('#')[0])
    diags.append('%s: %d macros; %d matched in Linux (%d values compared), '
                 '%d without a counterpart, listed here unchecked'
                 % (header, len(ours), len(checked), len(pairs), len(unmatched)))
    diags += ['  unchecked: ' + u for u in unmatched]
    return fails, diags


def main(argv):
    tests = [h[0] for h in HEADERS]
    if '-l' in argv:
        for t in tests:
            print('global  ' + t)
        return 0
    i = 0
    sel = set()
    filtered = False
    while i < len(argv):
        opt, val = argv[i], argv[i + 1] if i + 1 < len(argv) else ''
        i += 2
        filtered = True
        if opt == '-t':
            sel |= {t for t in tests if t == val}
        elif opt == '-f':
            sel |= set(tests) if val == 'global' else set()
        elif opt == '-r':
            sel |= {t for t in tests if 'global.' + t == val}
        elif opt != '-v':
            print('usage: %s [-l] [-t TEST] [-f FIXTURE] [-v VARIANT] [-r F.T]'
                  % argv[0], file=sys.stderr)
            return 2
    want = [h for h in HEADERS if not filtered or h[0] in sel]
    print('TAP version 13')
    print('1..%d' % len(want))
    bad = 0
    with tempfile.TemporaryDirectory(prefix='regs-crosscheck.') as tmp:
        for n, (test, header, ixp, lxp, lh) in enumerate(want, 1):
            fails, diags = check(test, header, ixp, lxp, lh, tmp)
            for d in diags:
                print('# ' + d)
            for f in fails:
                for ln in f.splitlines():
                    print('# FAIL ' + ln)
            print('%sok %d %s' % ('not ' if fails else '', n, test))
            bad += bool(fails)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
