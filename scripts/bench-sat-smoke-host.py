#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-sat-smoke-host.py - the host half of scripts/bench-sat-smoke: run
by scripts/vm-run --host in the VM's host network namespace, it drives the
guest through scripts/bench-agent.py and loads each server with a native
tcp-load.

usage: bench-sat-smoke-host.py OUTDIR IXMOD_KO

In order: Linux's tcp-echo-epoll on the guest's second NIC (198.18.0.3,
pinned to CPU 1, the NIC's interrupts on CPU 1), tcp-load from the host
(198.18.0.2) against it (each load of IXMOD_SAT_LOADS, "|" between
loads: bench-sat-smoke -l; with IXMOD_SAT_CTL and IXMOD_SAT_ICOUNT,
bench-sat-smoke -i, each load marks its window in the icount plugin and
the server vCPU's instructions per message are printed); then ixmod.ko
loaded, the first NIC bound to it
(198.18.0.1, dataplane core 1, idle_us 0), libixu's tcp-echo on it
(thread on CPU 1), tcp-load against it; the module unloaded; the agent
told to quit.  For each: the result line (res-NAME.txt), tcp-load's
stderr (load-NAME.log), the server's output (server-NAME.log), the host's
CPU over the load (cpu-NAME.txt: tcp-load's share of a host core, each
busy QEMU thread's, the guest CPU 1's busy share from its /proc/stat; and
top-NAME.txt, top -H over one second of it).  Checks only that both ran:
a result line that parses, msgs > 0, no error counted, tcp-load's status
0.  Exit status 0 if so, 1 if not.
"""

import os
import resource
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_ctl  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOAD = os.path.join(TOP, "tools/bench/tcp/tcp-load")
# tcp-load's arguments, one load per "|"-separated part (bench-sat-smoke
# -l), each run against every server; with IXMOD_SAT_CTL (bench-sat-smoke
# -i) each load marks its window in the icount plugin through that FIFO
LOADS = [a.split() for a in os.environ.get(
    "IXMOD_SAT_LOADS", "-c 8 -n 64 -s 64 -d 3 -L 5000").split("|")]
CTL = os.environ.get("IXMOD_SAT_CTL", "")
ICOUNT = os.environ.get("IXMOD_SAT_ICOUNT", "")	# the plugin's out= file
LOAD_ARGS = ["-p", "7"]
LIN_IP = "198.18.0.3"
DUT_IP = "198.18.0.1"
SRV_CPU = 1
ERRORS = ("conn_err", "conn_timeouts", "timeouts", "io_err", "eofs", "mismatched")
MARK = "bench-sat-smoke-mark-%d" % os.getpid()


def say(msg):
    print("bench-sat-smoke: %s" % msg, flush=True)


def write(out, name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


def qemu_pid():
    """The QEMU in this network namespace (vm-run's), or None"""
    me = os.stat("/proc/self/ns/net").st_ino
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % p) as f:
                if not f.read().startswith("qemu-system"):
                    continue
            if os.stat("/proc/%s/ns/net" % p).st_ino == me:
                return int(p)
        except OSError:
            continue
    return None


def thread_ticks(pid):
    """{thread name (tid): utime + stime in clock ticks} of pid's threads"""
    res = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return res
    for t in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, t)) as f:
                s = f.read()
        except OSError:
            continue
        name = s[s.index("(") + 1:s.rindex(")")]
        if t == str(pid) and name.startswith("qemu-system"):
            name = "main loop"	# QEMU's: device emulation, the taps' I/O
        fields = s[s.rindex(")") + 2:].split()
        res["%s (%s)" % (name, t)] = int(fields[11]) + int(fields[12])
    return res


def guest_cpu(g, cpu):
    """(busy, total) jiffies of the guest's CPU cpu"""
    line = g.check("grep '^cpu%d ' /proc/stat" % cpu).split()
    v = [int(x) for x in line[1:]]
    idle = v[3] + v[4]
    return sum(v[:8]) - idle, sum(v[:8])


def marks(path):
    """{SEQ: {"k1": N, "u1": N, ...}} of the icount plugin's mark lines"""
    res = {}
    with open(path) as f:
        for ln in f:
            w = ln.split()
            if len(w) > 4 and w[0] == "mark":
                res[int(w[1])] = {k: int(v) for k, v in (x.split("=") for x in w[4:])}
    return res


def per_request(res):
    """The server vCPU's (CPU SRV_CPU) guest instructions per message
    between the load's two marks: a line, or None"""
    if not ICOUNT or "mark_seq0" not in res or not res.get("marked_msgs"):
        return None
    m = marks(ICOUNT)
    a, b = m.get(int(res["mark_seq0"])), m.get(int(res["mark_seq1"]))
    if a is None or b is None:
        return "icount: marks %d and %d not in %s" % (res["mark_seq0"], res["mark_seq1"], ICOUNT)
    k = "k%d" % SRV_CPU
    u = "u%d" % SRV_CPU
    n = res["marked_msgs"]
    return ("cpu%d instructions per message: kernel %.0f, user %.0f, total %.0f (%d messages)"
            % (SRV_CPU, (b[k] - a[k]) / n, (b[u] - a[u]) / n,
               (b[k] - a[k] + b[u] - a[u]) / n, n))


def parse(line):
    """tcp-load's result line as a dict of numbers, or None"""
    if not line.startswith("msgs="):
        return None
    try:
        return {k: float(v) for k, v in (w.split("=", 1) for w in line.split())}
    except ValueError:
        return None


def load(g, out, name, ip):
    """tcp-load from here against ip, with the host's and the guest's CPU
    figures; the parsed result, or None"""
    hz = os.sysconf("SC_CLK_TCK")
    qemu = qemu_pid()
    say("[%s] tcp-load %s -a %s (native, in %s)"
        % (name, " ".join(LOAD_ARGS), ip, os.environ.get("IXMOD_VM_NETNS", "?")))
    g0 = guest_cpu(g, SRV_CPU)
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with open(os.path.join(out, "load-%s.log" % name), "w") as err:
        p = subprocess.Popen([LOAD, "-a", ip] + LOAD_ARGS, stdout=subprocess.PIPE,
                             stderr=err, text=True)
        # the host over the middle of the load: one second of top -H, and
        # each thread's CPU time from 0.5 s to 2.5 s
        time.sleep(0.5)
        w0 = time.monotonic()
        q0 = thread_ticks(qemu) if qemu else {}
        l0 = thread_ticks(p.pid)
        top = subprocess.run(["top", "-H", "-b", "-n", "2", "-d", "1", "-w", "200"],
                             capture_output=True, text=True)
        time.sleep(max(0, 2.5 - (time.monotonic() - t0)))
        w1 = time.monotonic()
        q1 = thread_ticks(qemu) if qemu else {}
        l1 = thread_ticks(p.pid)
        stdout, _ = p.communicate()
    t1 = time.monotonic()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    g1 = guest_cpu(g, SRV_CPU)
    # top's second frame: the one second measured
    frames = top.stdout.split("\ntop - ")
    write(out, "top-%s.txt" % name, "top - " + frames[-1] if len(frames) > 1 else top.stdout)
    line = stdout.strip().splitlines()[-1] if stdout.strip() else ""
    write(out, "res-%s.txt" % name, line + "\n")

    win = w1 - w0
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    lines = ["tcp-load: %.2f s CPU (user %.2f, sys %.2f) in %.2f s: %.0f%% of a host core"
             % (cpu, ru1.ru_utime - ru0.ru_utime, ru1.ru_stime - ru0.ru_stime,
                t1 - t0, 100 * cpu / (t1 - t0))]
    lt = sum(l1.values()) - sum(l0.values())
    lines.append("tcp-load over %.1f s mid-run: %.0f%% of a host core"
                 % (win, 100 * lt / hz / win))
    for k in sorted(q1, key=lambda k: q0.get(k, 0) - q1[k]):
        pct = 100 * (q1[k] - q0.get(k, 0)) / hz / win
        if pct >= 1:
            lines.append("qemu thread %s: %.0f%% of a host core" % (k, pct))
    busy, total = g1[0] - g0[0], g1[1] - g0[1]
    lines.append("guest cpu%d: %.0f%% busy over the load (its /proc/stat)"
                 % (SRV_CPU, 100 * busy / total if total else 0))
    write(out, "cpu-%s.txt" % name, "\n".join(lines) + "\n")
    for ln in lines:
        say("[%s] %s" % (name, ln))

    res = parse(line)
    say("[%s] result: %s (tcp-load status %d)" % (name, line or "(none)", p.returncode))
    icount = per_request(res) if res else None
    if icount:
        say("[%s] %s" % (name, icount))
        with open(os.path.join(out, "cpu-%s.txt" % name), "a") as f:
            f.write(icount + "\n")
    if res is None:
        say("[%s] FAILED: no result line that parses" % name)
        return None
    bad = [k for k in ERRORS if res.get(k, 0) != 0]
    if res.get("msgs", 0) <= 0 or bad or p.returncode != 0:
        say("[%s] FAILED: msgs=%d%s, status %d" % (name, res.get("msgs", 0),
            "".join(" %s=%d" % (k, res[k]) for k in bad), p.returncode))
        return None
    return res


def run_loads(g, out, name, ip):
    """Each load of LOADS against ip (results NAME, NAME-1, NAME-2...);
    the last result, or None if any failed"""
    res = None
    for i, args in enumerate(LOADS):
        LOAD_ARGS[2:] = args + (["-X", CTL] if CTL else [])
        r = load(g, out, name if i == 0 else "%s-%d" % (name, i), ip)
        if r is None:
            return None
        res = r
    return res


def reachable(ip, port=7, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection((ip, port), timeout=2).close()
            return True
        except OSError:
            time.sleep(0.5)
    return False


def pings(ip, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if subprocess.run(["ping", "-c1", "-W1", ip], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            return True
    return False


def stop(g, out, name):
    r = g.kill(name, "INT")
    write(out, "server-%s.log" % name, r["stdout"] + r["stderr"])
    last = (r["stdout"] + r["stderr"]).strip().splitlines()
    say("[%s] server stopped (status %s%s): %s" % (name, r["rc"],
        ", killed" if r["killed"] else "", last[-1] if last else ""))


def linux(g, out, lin):
    say("[epoll] Linux's NIC %s at %s, its interrupts on cpu %d" % (lin, LIN_IP, SRV_CPU))
    ifname = g.check(bench_ctl.PRELUDE + """
LIN=%s
modprobe "$NIC_DRIVER"
busywait 10000 ls "$(nic_netdev_dir $LIN)" || { echo "no netdev for $LIN" >&2; exit 1; }
LINIF=$(ls "$(nic_netdev_dir $LIN)")
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip addr flush dev "$LINIF"
ip addr add %s/24 dev "$LINIF"
ip link set "$LINIF" up
BENCH=bench-sat-smoke irqs_to $LIN %d || exit 1
echo "$LINIF"
""" % (lin, LIN_IP, SRV_CPU)).strip()
    g.bg("epoll", "exec tools/bench/tcp/tcp-echo-epoll -p 7 -c %d -e" % SRV_CPU)
    if not reachable(LIN_IP):
        say("[epoll] FAILED: %s:7 never accepted a connection" % LIN_IP)
        stop(g, out, "epoll")
        return None
    res = run_loads(g, out, "epoll", LIN_IP)
    stop(g, out, "epoll")
    g.check("ip link set %s down; ip addr flush dev %s" % (ifname, ifname))
    return res


def ixmod(g, out, dut, ko):
    say("[ixmod] %s bound to ixmod at %s, dataplane core %d, idle_us 0" % (dut, DUT_IP, SRV_CPU))
    g.check(bench_ctl.PRELUDE + """
DUT=%s
export IXMOD_KO=%s
modprobe "$NIC_DRIVER"
ixmod_load || exit 1
echo "" > $IXMOD_SYSFS/cores
echo 0 > $IXMOD_SYSFS/idle_us
"$IXMOD_BIND" bind $DUT > /dev/null || exit 1
echo %s/24 > "$(port_dir)/ipv4" || exit 1
echo %d > $IXMOD_SYSFS/cores || exit 1
echo 1 > "$(port_dir)/up" || exit 1
busywait 10000 grep -q '^up' "$(port_dir)/link" || { echo "ixmod's link stays down" >&2; exit 1; }
""" % (dut, ko, DUT_IP, SRV_CPU), 120)
    res = None
    if not pings(DUT_IP):
        say("[ixmod] FAILED: the port never answered ping")
    else:
        g.bg("ixmod", "exec taskset -c %d libixu/examples/tcp-echo -p 7 -c %d" % (SRV_CPU, SRV_CPU))
        if g.wait_output("ixmod", "ready", 30):
            res = run_loads(g, out, "ixmod", DUT_IP)
        else:
            say("[ixmod] FAILED: tcp-echo never became ready")
        stop(g, out, "ixmod")
    r = g.run(bench_ctl.PRELUDE + """
DUT=%s
grep . "$(port_dir)"/stats/* "$(port_dir)"/drops/* "$IXMOD_SYSFS"/dataplane/cpu*/stats/* 2>/dev/null
ports_teardown > /dev/null
rmmod ixmod
""" % dut, 120)
    write(out, "ixmod-stats.txt", r["stdout"])
    if r["rc"] != 0:
        say("[ixmod] teardown failed (status %d): %s" % (r["rc"], r["stderr"].strip()))
    return res


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out, ko = sys.argv[1], sys.argv[2]
    ok = False
    g = bench_ctl.Guest()
    say("waiting for the guest's agent at %s:%d (the VM boots under TCG: a minute or two)"
        % (g.addr, g.port))
    t0 = time.monotonic()
    g.connect(600, say)
    try:
        say("agent up after %d s: %s" % (time.monotonic() - t0, g.check("uname -r").strip()))
        g.check("echo %s > /dev/kmsg" % MARK)
        devs = g.check(bench_ctl.PRELUDE + "bench_devices").split()
        if len(devs) != 3:
            say("FAILED: the guest has not the three NICs (%s)" % " ".join(devs))
        else:
            dut, lin, peer = devs
            say("guest NICs: ixmod's %s, Linux's %s, the agent's %s" % (dut, lin, peer))
            r1 = linux(g, out, lin)
            r2 = ixmod(g, out, dut, ko)
            ok = r1 is not None and r2 is not None
        r = g.run(bench_ctl.PRELUDE + "_dmesg_mark=%s; dmesg_since; dmesg_clean > /dev/null" % MARK)
        write(out, "dmesg.txt", r["stdout"])
        say("kernel log %s" % ("clean" if r["rc"] == 0 else "reports errors: see dmesg.txt"))
    finally:
        try:
            g.quit()
        except bench_ctl.GuestError as e:
            say("the agent did not quit: %s" % e)
    for name in sorted(n[4:-4] for n in os.listdir(out) if n.startswith("res-")):
        with open(os.path.join(out, "res-%s.txt" % name)) as f:
            say("%-8s %s" % (name, f.read().strip()))
    say("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
