#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-sat-host.py - the host half of scripts/bench-sat (and of
scripts/bench-sat-smoke, its smoke mode): run by scripts/vm-run --host in
the VM's host network namespace, it drives the guest through
scripts/bench-agent.py and loads each server with a native client.

usage: bench-sat-host.py OUTDIR IXMOD_KO

OUTDIR/params.json (written by scripts/bench-sat) says what to run:
  mode        "full" (bench-sat) or "smoke" (bench-sat-smoke)
  parts       ["tcp", "kv"] or one of them
  secs, warm  measured and warm-up seconds of a saturation point
  lsecs       measured seconds of a latency point (after warm seconds)
  tcp_servers, kv_servers   the servers, in order (names below)
  nlist, clist   closed-loop TCP: rounds per connection, connection counts
  lat_conns, lat_n   the TCP latency curve's connections, and the
              closed-loop point (n=lat_n, c=lat_conns) that is its 100%
  fractions   the latency curve's loads, fractions of saturation
  workloads, kv_conns, keys, ramp0, ramp_max   the key-value part
  loads       smoke mode: tcp-load's arguments, one list per load
  light_frac, light_rate, light_secs, light_only, light_idle_us
              the light-load point of every server, after its others
              (light()): at light_rate requests/s, else at light_frac of
              epoll's TCP saturation (memcached's for key-value: they run
              first), for light_secs, ixmod at the module's own idle_us
              (or at each of light_idle_us); light_only: no other point
  ctl, icount, hostmark   with -i: the plugin's ctl FIFO, its out= file,
              and build/icount/icount-host-mark
The TCP servers (guest CPU 1, with their kernel work): ixmod (libixu's
tcp-echo, the dataplane core's kernel thread running the loop), ixmod-colo
(tcp-echo -C: its thread runs the loop), epoll (tcp-echo-epoll -e), uring
(tcp-echo-uring -B -D); the key-value servers: ixmod, ixmod-colo (kv-ixev,
-C), epoll (kv-epoll -t 1), uring (kv-uring -t 1), memcached (Debian's, -t
1), ixmod-memcached (the same memcached on ixmod through libixu-posix,
the LD_PRELOAD sockets layer).  ixmod's port is the guest's first NIC (198.18.0.1, dataplane core 1,
idle_us 0), Linux's the second (198.18.0.3, interrupts on CPU 1); the
client is the host (198.18.0.2).

Per point (KEY names it: NAME-nN-cC, NAME-lat-PCT, NAME-light[-US],
NAME-WL-ramp-RATE, NAME-WL-lat-PCT, NAME-WL-light[-US]; smoke: NAME,
NAME-1, ...): res-KEY.txt (tcp-load's
result line) or kv-KEY.json (kvload's JSON), hist-KEY.txt (tcp-load's
histogram), and in raw.json, rewritten after every point, everything
measured: the client's result, the client's CPU share (its own cpu_pct),
QEMU's busy threads over the window (CPU 1/TCG: the server vCPU's), the
host's CPU time neither QEMU nor the client took, the guest CPU 1's busy
share (its /proc/stat), for ixmod the loop's idle and busy iterations and
its rx_batch_hist (the guest's counters read inside the window), and with
-i the server vCPU's instructions per request, kernel and user, between
the client's two marks, and ixmod's idle polling share (calibrated: 2 s
unloaded between two host marks per ixmod server).  Key-value saturation
is a ramp (kv_ramp()); after an overloaded point the server drains
(settle()).
Also load-NAME.log (the clients' stderr), server-NAME.log,
ixmod-stats.txt, dmesg.txt; smoke mode also cpu-NAME.txt and top-NAME.txt.
Exit status 0 when every server ran every point, 1 when a server failed
(it is named; its remaining points are skipped and the run goes on).
"""

import json
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_ctl  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TCPLOAD = os.path.join(TOP, "tools/bench/tcp/tcp-load")
KVLOAD = os.path.join(TOP, "tools/bench/kvload/kvload")
LIN_IP = "198.18.0.3"
DUT_IP = "198.18.0.1"
SRV_CPU = 1
TCP_PORT = 7
KV_PORT = 11211
TCP_TIMEOUT_MS = 5000	# TCG stalls reach a second, and a lost SYN waits 1 s more
TCP_ERRORS = ("conn_err", "conn_timeouts", "timeouts", "io_err", "eofs", "mismatched")
MARK = "bench-sat-mark-%d" % os.getpid()
CALIB_S = 2
SYSFS = "/sys/kernel/ixmod"
STATS = "%s/dataplane/cpu%d/stats" % (SYSFS, SRV_CPU)
SNAP_FILES = ("idle", "iterations", "busy", "sleeps", "rx_batch_hist")	# snapshot()'s, in order

TCP_SERVERS = {
    "ixmod": "exec taskset -c 1 libixu/examples/tcp-echo -p 7 -c 1",
    "ixmod-colo": "exec taskset -c 1 libixu/examples/tcp-echo -p 7 -c 1 -C",
    "epoll": "exec tools/bench/tcp/tcp-echo-epoll -p 7 -c 1 -e",
    "uring": "exec tools/bench/tcp/tcp-echo-uring -p 7 -c 1 -B -D",
}
KV = "libixu/examples/kv"
KV_SERVERS = {
    "ixmod": "exec taskset -c 1 %s/kv-ixev -p 11211 -c 1" % KV,
    "ixmod-colo": "exec taskset -c 1 %s/kv-ixev -p 11211 -c 1 -C" % KV,
    "epoll": "exec taskset -c 1 %s/kv-epoll -p 11211 -t 1 -l %s" % (KV, LIN_IP),
    "uring": "exec taskset -c 1 %s/kv-uring -p 11211 -t 1 -l %s" % (KV, LIN_IP),
    "memcached": ("exec taskset -c 1 /usr/bin/memcached -p 11211 -t 1 -U 0 -u nobody "
                  "-l %s -m 64" % LIN_IP),
    # the same memcached on ixmod through the sockets layer (libixu-posix);
    # root: it opens /dev/ixmod when it binds, after memcached's setuid
    "ixmod-memcached": ("exec taskset -c 1 sh -c 'echo ready; exec env "
                        "LD_PRELOAD=libixu/libixu-posix.so IXU_POSIX_CORES=1 "
                        "/usr/bin/memcached -p 11211 -t 1 -U 0 -u root -l %s -m 64'"
                        % DUT_IP),
}


T0 = time.monotonic()


def say(msg):
    t = int(time.monotonic() - T0)
    print("bench-sat: %d:%02d %s" % (t // 60, t % 60, msg), flush=True)


def is_ixmod(name):
    return name == "ixmod" or name.startswith("ixmod-")


def write(out, name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


class ServerFailed(Exception):
    pass


# ---- the host's view: QEMU's threads, the icount plugin's marks ----------

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
    """{thread name: utime + stime in clock ticks} of pid's threads (QEMU's
    main thread is "main loop": device emulation, the taps' I/O)"""
    res = {}
    if pid is None:
        return res
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
            name = "main loop"
        fields = s[s.rindex(")") + 2:].split()
        key = name if name not in res else "%s (%s)" % (name, t)
        res[key] = int(fields[11]) + int(fields[12])
    return res


def host_busy():
    """The host's busy and total jiffies, all CPUs (its /proc/stat)"""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return sum(v) - v[3] - v[4], sum(v)


def thread_pcts(q0, q1, secs):
    """{thread: % of a host core} of the threads busy at least 1%"""
    hz = os.sysconf("SC_CLK_TCK")
    res = {}
    for k in q1:
        pct = 100.0 * (q1[k] - q0.get(k, 0)) / hz / secs if secs > 0 else 0.0
        if pct >= 1:
            res[k] = round(pct, 1)
    return res


def marks(path):
    """{SEQ: {"k1": N, "u1": N, ...}} of the icount plugin's mark lines"""
    res = {}
    try:
        with open(path) as f:
            for ln in f:
                w = ln.split()
                if len(w) > 4 and w[0] == "mark":
                    res[int(w[1])] = {k: int(v) for k, v in (x.split("=") for x in w[4:])}
    except OSError:
        pass
    return res


def server_instructions(prm, seq0, seq1):
    """(kernel, user) instructions of the server vCPU between two marks, or None"""
    if not prm.get("icount") or seq0 is None or seq1 is None:
        return None
    m = marks(prm["icount"])
    a, b = m.get(int(seq0)), m.get(int(seq1))
    if a is None or b is None:
        return None
    k, u = "k%d" % SRV_CPU, "u%d" % SRV_CPU
    return b[k] - a[k], b[u] - a[u]


def host_mark(prm, label):
    """A host mark through the plugin's FIFO: its sequence number, or None"""
    r = subprocess.run([prm["hostmark"], prm["ctl"], label], capture_output=True, text=True)
    if r.returncode != 0:
        say("icount-host-mark failed: %s" % r.stderr.strip())
        return None
    return int(r.stdout.strip())


# ---- the guest's view ---------------------------------------------------

def snapshot(g):
    """The server CPU's /proc/stat and ixmod's loop counters, read once
    (one cat: under TCG every process the guest starts costs time):
    {"t": host time, "dt": how long reading took, "cpu": (busy, total)
    jiffies, "idle": N, "iterations": N, "busy": N, "hist": [8 counts]}
    (no ixmod keys without its core)"""
    t0 = time.monotonic()
    r = g.run("exec cat /proc/stat %s" % " ".join("%s/%s" % (STATS, f) for f in SNAP_FILES))
    t1 = time.monotonic()
    s = {"t": (t0 + t1) / 2, "dt": t1 - t0}
    vals = []
    for ln in r["stdout"].splitlines():
        w = ln.split()
        if not w:
            continue
        if w[0] == "cpu%d" % SRV_CPU:
            v = [int(x) for x in w[1:9]]
            s["cpu"] = (sum(v) - v[3] - v[4], sum(v))
        elif w[0].isdigit():
            vals.append([int(x) for x in w])
    if r["rc"] == 0 and len(vals) == len(SNAP_FILES) and len(vals[-1]) == 8:
        s.update(zip(SNAP_FILES[:-1], (v[0] for v in vals)))
        s["hist"] = vals[-1]
    return s


def moved(s0, s1):
    """What the guest's counters did between two snapshots"""
    res = {"secs": s1["t"] - s0["t"]}
    if "cpu" in s0 and "cpu" in s1:
        busy, total = s1["cpu"][0] - s0["cpu"][0], s1["cpu"][1] - s0["cpu"][1]
        res["guest_busy_pct"] = round(100.0 * busy / total, 1) if total else None
    for k in SNAP_FILES[:-1]:
        if k in s0 and k in s1:
            res["loop_" + k] = s1[k] - s0[k]
    if res.get("loop_iterations"):
        res["loop_busy_iter_pct"] = round(100.0 * res["loop_busy"] / res["loop_iterations"], 2)
    if "hist" in s0 and "hist" in s1:
        res["rx_batch_hist"] = [b - a for a, b in zip(s0["hist"], s1["hist"])]
    return res


def reachable(ip, port, timeout=30):
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


def parse_tcp(line):
    """tcp-load's result line as a dict of numbers, or None"""
    if not line.startswith("msgs="):
        return None
    try:
        return {k: float(v) for k, v in (w.split("=", 1) for w in line.split())}
    except ValueError:
        return None


class Bench:
    def __init__(self, out, ko, prm):
        self.out, self.ko, self.prm = out, ko, prm
        self.g = bench_ctl.Guest()
        self.raw = {"params": prm, "points": [], "calibration": {}, "failures": [],
                    "saturation": {}}
        self.qemu = None
        self.dut = self.lin = None
        self.done = 0
        self.planned = 1
        self.t_points = 0.0

    def save(self):
        with open(os.path.join(self.out, "raw.json"), "w") as f:
            json.dump(self.raw, f, indent=1)
            f.write("\n")

    def fail(self, name, part, why):
        say("FAILED: [%s %s] %s" % (name, part, why))
        self.raw["failures"].append({"server": name, "part": part, "why": why})
        self.save()

    def eta(self):
        if not self.done:
            return ""
        left = max(self.planned - self.done, 0) * self.t_points / self.done
        return ", point %d of about %d, about %d min left" % (
            self.done + 1, self.planned, (left + 59) // 60)

    # ---- servers ----

    def setup(self):
        """Linux's NIC up at LIN_IP with its interrupts on CPU 1, and, with
        ixmod's servers to run, ixmod loaded, the first NIC bound to it"""
        g = self.g
        self.dut, self.lin, peer = self.devs
        say("Linux's NIC %s at %s, its interrupts on cpu %d" % (self.lin, LIN_IP, SRV_CPU))
        self.linif = g.check(bench_ctl.PRELUDE + """
LIN=%s
modprobe "$NIC_DRIVER"
busywait 10000 ls "$(nic_netdev_dir $LIN)" || { echo "no netdev for $LIN" >&2; exit 1; }
LINIF=$(ls "$(nic_netdev_dir $LIN)")
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip addr flush dev "$LINIF"
ip addr add %s/24 dev "$LINIF"
ip link set "$LINIF" up
BENCH=bench-sat irqs_to $LIN %d || exit 1
echo "$LINIF"
""" % (self.lin, LIN_IP, SRV_CPU)).strip()
        servers = self.prm.get("tcp_servers", []) + self.prm.get("kv_servers", [])
        if any(is_ixmod(s) for s in servers):
            say("ixmod: %s bound at %s, dataplane core %d while an ixmod server runs, idle_us 0"
                % (self.dut, DUT_IP, SRV_CPU))
            out = g.check(bench_ctl.PRELUDE + """
DUT=%s
export IXMOD_KO=%s
modprobe "$NIC_DRIVER"
ixmod_load || exit 1
echo "" > $IXMOD_SYSFS/cores
cat $IXMOD_SYSFS/idle_us
echo 0 > $IXMOD_SYSFS/idle_us
"$IXMOD_BIND" bind $DUT > /dev/null || exit 1
echo %s/24 > "$(port_dir)/ipv4" || exit 1
""" % (self.dut, self.ko, DUT_IP), 120)
            self.ixmod_loaded = True
            # the module's own idle policy, for the light-load points
            self.idle_default = int(out.split()[-1])

    def ixmod_up(self):
        self.g.check(bench_ctl.PRELUDE + """
DUT=%s
echo %d > $IXMOD_SYSFS/cores || exit 1
echo 1 > "$(port_dir)/up" || exit 1
busywait 10000 grep -q '^up' "$(port_dir)/link" || { echo "ixmod's link stays down" >&2; exit 1; }
""" % (self.dut, SRV_CPU), 60)
        # The port's ARP table was emptied when it went down, but this host
        # still knows its MAC and would not ask: make it ask, so that the
        # port learns the host's before the measurement
        subprocess.run(["ip", "neigh", "flush", "to", DUT_IP], stderr=subprocess.DEVNULL)
        if not pings(DUT_IP):
            raise ServerFailed("ixmod's port never answered ping")

    def ixmod_down(self):
        self.g.run(bench_ctl.PRELUDE + """
DUT=%s
echo 0 > "$(port_dir)/up"
echo "" > $IXMOD_SYSFS/cores
""" % self.dut, 60)

    def start(self, part, name, cmd, port):
        """Start a server (the agent's job NAME-PART); raises ServerFailed"""
        job = "%s-%s" % (name, part)
        ip = DUT_IP if is_ixmod(name) else LIN_IP
        if is_ixmod(name):
            self.ixmod_up()
        say("[%s %s] server: %s" % (name, part, cmd.replace("exec ", "")))
        pid = self.g.bg(job, cmd).get("pid")
        if is_ixmod(name):
            if not self.g.wait_output(job, "ready", 60):
                raise ServerFailed("never became ready: %s" % self.tail(job))
        if not reachable(ip, port, 60):
            raise ServerFailed("%s:%d never accepted a connection: %s" % (ip, port, self.tail(job)))
        if self.prm.get("profile") and pid:
            # its executable mappings name user-space blocks (icount-prof.py -u)
            self.g.run("cat /proc/%d/maps > %s/maps-%s.txt" % (pid, self.out, job))
        return job, ip

    def tail(self, job):
        try:
            r = self.g.poll(job)
        except bench_ctl.GuestError as e:
            return str(e)
        last = (r["stdout"] + r["stderr"]).strip().splitlines()
        return "%s%s" % ("exited %s: " % r["rc"] if not r["running"] else "",
                         last[-1] if last else "(no output)")

    def alive(self, job):
        r = self.g.poll(job)
        if not r["running"]:
            last = (r["stdout"] + r["stderr"]).strip().splitlines()
            raise ServerFailed("the server exited (status %s): %s"
                               % (r["rc"], last[-1] if last else "(no output)"))

    def stop(self, job, name):
        try:
            r = self.g.kill(job, "INT")
        except bench_ctl.GuestError as e:
            say("[%s] could not stop the server: %s" % (job, e))
            return
        with open(os.path.join(self.out, "server-%s.log" % name), "a") as f:
            f.write("== %s\n%s%s" % (job, r["stdout"], r["stderr"]))
        last = (r["stdout"] + r["stderr"]).strip().splitlines()
        say("[%s] server stopped (status %s%s): %s" % (job, r["rc"],
            ", killed" if r["killed"] else "", last[-1] if last else ""))
        if is_ixmod(name):
            r = self.g.run("grep . %s/* 2>/dev/null" % STATS)
            write(self.out, "dataplane-%s.txt" % job, r["stdout"])
            self.ixmod_down()

    def calibrate(self, key, name):
        """With -i, for ixmod: the unloaded core's instructions per idle
        iteration (instructions per second between two host marks CALIB_S
        apart over idle iterations per second)"""
        if not self.prm.get("ctl") or not is_ixmod(name):
            return None
        s0 = snapshot(self.g)
        t0 = time.monotonic()
        m0 = host_mark(self.prm, "calib-%s-a" % key)
        time.sleep(CALIB_S)
        m1 = host_mark(self.prm, "calib-%s-b" % key)
        t1 = time.monotonic()
        s1 = snapshot(self.g)
        ins = server_instructions(self.prm, m0, m1)
        idle = s1.get("idle", 0) - s0.get("idle", 0)
        if ins is None or not idle:
            return None
        per_s = (ins[0] + ins[1]) / (t1 - t0)
        c = {"instructions_per_s": per_s, "idle_per_s": idle / (s1["t"] - s0["t"]),
             "per_idle_iteration": per_s / (idle / (s1["t"] - s0["t"]))}
        self.raw["calibration"][key] = c
        say("[%s] unloaded: %.0f instructions/s, %.1f per idle iteration"
            % (key, per_s, c["per_idle_iteration"]))
        return c

    # ---- one point ----

    def point(self, key, name, part, argv, secs, warm, job, calib=None, extra=None):
        """Run one client (tcp-load or kvload) against the server job:
        its result, with the host's and the guest's figures; None when it
        gave nothing (the point counts as failed).  extra: what the point
        is, into raw.json"""
        t_start = time.monotonic()
        kv = argv[0] == KVLOAD
        say("[%s] %s%s" % (key, " ".join(os.path.basename(a) if a in (TCPLOAD, KVLOAD) else a
                                        for a in argv), self.eta()))
        with open(os.path.join(self.out, "load-%s.log" % name), "a") as err:
            err.write("== %s\n" % key)
            err.flush()
            p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, text=True)
            # QEMU's threads and the guest's counters over the measured
            # window, less its first and last 0.2 s (the client starts
            # its window after connecting: about)
            time.sleep(warm + 0.2)
            q0, w0, h0 = thread_ticks(self.qemu), time.monotonic(), host_busy()
            s0 = snapshot(self.g)
            top = None
            if self.prm["mode"] == "smoke":
                top = subprocess.run(["top", "-H", "-b", "-n", "2", "-d", "1", "-w", "200"],
                                     capture_output=True, text=True).stdout
            time.sleep(max(0.1, warm + secs - 0.2 - s0["dt"] / 2 - (time.monotonic() - t_start)))
            s1 = snapshot(self.g)
            q1, w1, h1 = thread_ticks(self.qemu), time.monotonic(), host_busy()
            try:
                stdout, _ = p.communicate(timeout=warm + secs + 60)
            except subprocess.TimeoutExpired:
                p.kill()
                stdout, _ = p.communicate()
        if kv:
            try:
                with open(argv[argv.index("-o") + 1]) as f:
                    res = json.load(f)
            except (OSError, ValueError):
                res = None
            n = res.get("window_replies") if res else None
        else:
            line = stdout.strip().splitlines()[-1] if stdout.strip() else ""
            write(self.out, "res-%s.txt" % key, line + "\n")
            res = parse_tcp(line)
            n = res.get("marked_msgs", res.get("msgs")) if res else None
        pt = {"key": key, "server": name, "part": part, "status": p.returncode}
        pt.update(extra or {})
        pt["result"] = res
        pt["guest"] = moved(s0, s1)
        pt["qemu_threads_pct"] = thread_pcts(q0, q1, w1 - w0)
        pt["vcpu_host_pct"] = pt["qemu_threads_pct"].get("CPU %d/TCG" % SRV_CPU, 0.0)
        pt["client_cpu_pct"] = res.get("cpu_pct") if res else None
        # the host's CPUs over the window: all busy, and what neither QEMU
        # nor the client used (other work on the machine)
        ncpu = os.cpu_count() or 1
        busy = 100.0 * ncpu * (h1[0] - h0[0]) / max(h1[1] - h0[1], 1)
        pt["host_busy_pct"] = round(busy, 1)
        pt["host_other_pct"] = round(max(0.0, busy - sum(pt["qemu_threads_pct"].values()) -
                                         (pt["client_cpu_pct"] or 0)), 1)
        ins = server_instructions(self.prm, res.get("mark_seq0"), res.get("mark_seq1")) \
            if res else None
        if ins and n:
            pt["ins"] = {"kernel": ins[0] / n, "user": ins[1] / n,
                         "total": (ins[0] + ins[1]) / n, "requests": n}
            # ixmod's idle polling share of what its vCPU executed
            idle = pt["guest"].get("loop_idle")
            if calib and idle is not None and pt["guest"]["secs"] > 0:
                rate = (ins[0] + ins[1]) / secs
                idle_ins = idle / pt["guest"]["secs"] * calib["per_idle_iteration"]
                pt["idle_share_pct"] = round(min(100.0, 100.0 * idle_ins / rate), 1) \
                    if rate else None
        if pt["guest"].get("guest_busy_pct") is not None:
            pt["server_busy_pct"] = pt["guest"]["guest_busy_pct"]
            if "idle_share_pct" in pt and pt["idle_share_pct"] is not None:
                pt["server_busy_pct"] = round(100.0 - pt["idle_share_pct"], 1)
        self.raw["points"].append(pt)
        self.save()
        self.done += 1
        self.t_points += time.monotonic() - t_start
        if top is not None:
            frames = top.split("\ntop - ")
            write(self.out, "top-%s.txt" % key, "top - " + frames[-1] if len(frames) > 1 else top)
        self.summary(pt)
        if res is None:
            with open(os.path.join(self.out, "load-%s.log" % name)) as f:
                last = f.read().strip().splitlines()
            say("[%s] no result from the client (status %s): %s"
                % (key, p.returncode, last[-1] if last else "(no output)"))
        return res

    def summary(self, pt):
        r = pt["result"] or {}
        if pt["part"] == "tcp":
            figs = "msgs/s %s p50 %s p99 %s p99.9 %s us" % tuple(
                "%.0f" % r[k] if k in r else "-" for k in ("rate", "p50_us", "p99_us", "p999_us"))
            bad = ["%s=%d" % (k, r[k]) for k in TCP_ERRORS + ("dropped", "late") if r.get(k)]
        else:
            figs = "achieved %s/s p50 %s p99 %s p99.9 %s us" % tuple(
                "%.0f" % r[k] if r.get(k) is not None else "-"
                for k in ("achieved", "p50_us", "p99_us", "p999_us"))
            bad = ["%s=%d" % (k, r[k]) for k in ("errors", "lost", "late") if r.get(k)]
        line = ("[%s] %s; client %s%% of a core, vCPU %d's thread %.0f%%, other host work "
                "%.0f%%, server %s%% busy" % (
                    pt["key"], figs, "%.0f" % pt["client_cpu_pct"]
                    if pt["client_cpu_pct"] is not None else "-", SRV_CPU, pt["vcpu_host_pct"],
                    pt["host_other_pct"], pt.get("server_busy_pct", "-")))
        if "ins" in pt:
            line += "; instr/req kernel %.0f user %.0f" % (pt["ins"]["kernel"], pt["ins"]["user"])
        if pt["guest"].get("rx_batch_hist"):
            line += "; rx batches %s" % " ".join(map(str, pt["guest"]["rx_batch_hist"]))
        if bad:
            line += "; %s" % " ".join(bad)
        say(line)
        if self.prm["mode"] == "smoke":
            lines = ["tcp-load: %s%% of a host core (its cpu_pct)" % r.get("cpu_pct", "-")]
            lines += ["qemu thread %s: %.0f%% of a host core" % kv
                      for kv in sorted(pt["qemu_threads_pct"].items(), key=lambda x: -x[1])]
            lines.append("guest cpu%d: %s%% busy over the load (its /proc/stat)"
                         % (SRV_CPU, pt["guest"].get("guest_busy_pct", "-")))
            if "ins" in pt:
                lines.append("cpu%d instructions per message: kernel %.0f, user %.0f, "
                             "total %.0f (%d messages)" % (SRV_CPU, pt["ins"]["kernel"],
                                                           pt["ins"]["user"], pt["ins"]["total"],
                                                           pt["ins"]["requests"]))
            write(self.out, "cpu-%s.txt" % pt["key"], "\n".join(lines) + "\n")

    # ---- TCP echo ----

    def serve(self, part, name, cmd, port, points):
        """Start a server, run points(name, job, ip, calibration) against
        it, stop it; a failure (of the server, the guest, a client that
        hangs) is recorded and the run goes on"""
        job = None
        try:
            job, ip = self.start(part, name, cmd, port)
            points(name, job, ip, self.calibrate("%s-%s" % (name, part), name))
        except (ServerFailed, bench_ctl.GuestError, subprocess.TimeoutExpired) as e:
            self.fail(name, part, str(e))
        finally:
            if job:
                self.stop(job, name)
            elif is_ixmod(name):
                self.ixmod_down()

    def tcp_argv(self, ip, args, key):
        argv = [TCPLOAD, "-a", ip, "-p", str(TCP_PORT), "-s", "64", "-L", str(TCP_TIMEOUT_MS),
                "-H", os.path.join(self.out, "hist-%s.txt" % key)] + args
        if self.prm.get("ctl"):
            argv += ["-X", self.prm["ctl"]]
        return argv

    def tcp_server(self, name):
        self.serve("tcp", name, TCP_SERVERS[name], TCP_PORT, self.tcp_points)

    def tcp_points(self, name, job, ip, calib):
        prm = self.prm
        if prm["mode"] == "smoke":
            for i, args in enumerate(prm["loads"]):
                key = name if i == 0 else "%s-%d" % (name, i)
                res = self.point(key, name, "tcp", self.tcp_argv(ip, args, key),
                                 float(arg_of(args, "-d", 5)), float(arg_of(args, "-w", 0)),
                                 job, calib, {"args": args})
                self.alive(job)
                if not smoke_ok(res):
                    raise ServerFailed("load %d gave no clean result" % i)
            return
        if prm.get("light_only"):
            self.light(name, "tcp", job, lambda key, rate: self.tcp_argv(ip, [
                "-c", str(prm["lat_conns"]), "-r", str(rate), "-w", str(prm["warm"]),
                "-d", str(prm["light_secs"])], key))
            return
        sat = {}
        for n in prm["nlist"]:
            for c in prm["clist"]:
                key = "%s-n%d-c%d" % (name, n, c)
                res = self.point(key, name, "tcp", self.tcp_argv(
                    ip, ["-c", str(c), "-n", str(n), "-w", str(prm["warm"]),
                         "-d", str(prm["secs"])], key),
                    prm["secs"], prm["warm"], job, calib,
                    {"kind": "closed", "n": n, "conns": c})
                self.alive(job)
                if not res or not res.get("msgs"):
                    raise ServerFailed("no message echoed at n=%d c=%d" % (n, c))
                sat[(n, c)] = res["rate"]
        ref = sat.get((prm["lat_n"], prm["lat_conns"]))
        if not ref:
            return
        self.raw["saturation"]["tcp-" + name] = ref
        for f in prm["fractions"]:
            rate = max(1, int(round(f * ref)))
            key = "%s-lat-%d" % (name, round(100 * f))
            res = self.point(key, name, "tcp", self.tcp_argv(
                ip, ["-c", str(prm["lat_conns"]), "-r", str(rate), "-w", str(prm["warm"]),
                     "-d", str(prm["lsecs"])], key),
                prm["lsecs"], prm["warm"], job, calib,
                {"kind": "open", "fraction": f, "offered": rate, "conns": prm["lat_conns"]})
            self.alive(job)
            if not kept_up(res, rate):
                self.settle(name)
        self.light(name, "tcp", job, lambda key, rate: self.tcp_argv(ip, [
            "-c", str(prm["lat_conns"]), "-r", str(rate), "-w", str(prm["warm"]),
            "-d", str(prm["light_secs"])], key))

    # ---- light load ----

    def light_rate(self, part, wl=None):
        """A light-load point's rate: light_rate when given, else
        light_frac of the reference Linux server's saturation (TCP:
        epoll's closed-loop rate at n=lat_n, c=lat_conns; key-value:
        memcached's), which ran first; None when unknown"""
        prm = self.prm
        if prm.get("light_rate"):
            return prm["light_rate"]
        ref = self.raw["saturation"].get("tcp-epoll" if part == "tcp" else
                                         "%s-memcached" % wl)
        if not ref or not prm.get("light_frac"):
            return None
        return max(1, int(round(prm["light_frac"] * ref)))

    def light(self, name, part, job, argv_of, wl=None):
        """Light load: one open-loop point at light_rate() (the same for
        every server) with the idle policy a user gets: ixmod's idle_us
        at the module's default (or each of light_idle_us in turn), so
        that the vCPU's whole instructions per request, idle polling
        included, compare with a Linux server's halted vCPU.  argv_of(key,
        rate): the client's command"""
        prm = self.prm
        rate = self.light_rate(part, wl)
        if not rate:
            return
        idles = [None]
        if is_ixmod(name):
            idles = prm.get("light_idle_us") or [self.idle_default]
        for us in idles:
            key = "%s-%slight" % (name, wl + "-" if wl else "")
            if us is not None and prm.get("light_idle_us"):
                key += "-%d" % us
            if us is not None:
                self.g.check("echo %d > %s/idle_us" % (us, SYSFS))
            try:
                res = self.point(key, name, part, argv_of(key, rate), prm["light_secs"],
                                 prm["warm"], job, None,
                                 {"kind": "light", "offered": rate, "idle_us": us,
                                  "workload": wl})
            finally:
                if us is not None:
                    self.g.check("echo 0 > %s/idle_us" % SYSFS)
            self.alive(job)
            if not kept_up(res, rate):
                self.settle(name)

    # ---- key-value ----

    def kv_argv(self, ip, wl, key, rate, secs, warm, more=()):
        argv = [KVLOAD, "-s", "%s:%d" % (ip, KV_PORT), "-W", wl, "-k", str(self.prm["keys"]),
                "-c", str(self.prm["kv_conns"]), "-r", str(rate), "-d", str(secs),
                "-w", str(warm), "-q", "-o", os.path.join(self.out, "kv-%s.json" % key)]
        argv += list(more)
        if self.prm.get("ctl") and not more:
            argv += ["--mark-ctl", self.prm["ctl"]]
        return argv

    def kv_server(self, name):
        self.serve("kv", name, KV_SERVERS[name], KV_PORT, self.kv_points)

    def kv_points(self, name, job, ip, calib):
        prm = self.prm
        for wl in prm["workloads"]:
            argv_of = (lambda w: lambda key, rate: self.kv_argv(
                ip, w, key, rate, prm["light_secs"], prm["warm"]))(wl)
            key = "%s-%s-preload" % (name, wl)
            say("[%s] preloading %d keys" % (key, prm["keys"]))
            argv = self.kv_argv(ip, wl, key, 100, 1, 0, ["--preload"])
            with open(os.path.join(self.out, "load-%s.log" % name), "a") as err:
                r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=err,
                                   timeout=300)
            self.alive(job)
            if r.returncode != 0:
                raise ServerFailed("kvload --preload failed (status %d)" % r.returncode)
            if prm.get("light_only"):
                self.light(name, "kv", job, argv_of, wl)
                continue
            best = self.kv_ramp(name, wl, ip, job, calib)
            self.raw["saturation"]["%s-%s" % (wl, name)] = best
            say("[%s %s] saturation %.0f requests/s" % (name, wl, best))
            loads = [(f, "open", "%s-%s-lat-%d" % (name, wl, round(100 * f)))
                     for f in prm["fractions"]]
            # IX's target: p99 at 90% of memcached's saturation load
            mc = self.raw["saturation"].get("%s-memcached" % wl)
            if mc and name != "memcached":
                loads.append((0.9 * mc / best, "mc90", "%s-%s-mc90" % (name, wl)))
            for f, kind, key in loads:
                rate = max(1, int(round(f * best)))
                res = self.point(key, name, "kv", self.kv_argv(
                    ip, wl, key, rate, prm["lsecs"], prm["warm"]),
                    prm["lsecs"], prm["warm"], job, calib,
                    {"kind": kind, "workload": wl, "fraction": f, "offered": rate})
                self.alive(job)
                if not kept_up(res, rate):
                    self.settle(name)
            self.light(name, "kv", job, argv_of, wl)

    def kv_ramp(self, name, wl, ip, job, calib):
        """The saturation of a key-value server, open loop (kvload has no
        closed loop): from ramp0 requests/s, doubled while at least 90%
        of the offered rate is achieved (halved while not, if the first
        rate is too high), then two steps of bisection between the last
        rate kept up with and the first not; the rate achieved at the
        highest rate kept up with"""
        prm = self.prm

        def run(rate):
            key = "%s-%s-ramp-%d" % (name, wl, rate)
            res = self.point(key, name, "kv", self.kv_argv(
                ip, wl, key, rate, prm["secs"], prm["warm"]),
                prm["secs"], prm["warm"], job, calib,
                {"kind": "ramp", "workload": wl, "offered": rate})
            self.alive(job)
            if not res:
                raise ServerFailed("no result at %s %d/s" % (wl, rate))
            # near saturation even a rate kept up with leaves a queue
            self.settle(name)
            return res

        good, bad = {}, None
        rate = prm["ramp0"]
        while rate <= prm["ramp_max"]:
            res = run(rate)
            if kept_up(res, rate):
                good[rate] = res["achieved"]
                if bad is not None:
                    break
                rate *= 2
            else:
                bad = rate
                if good or rate < 500:
                    break
                rate //= 2
        for _ in range(2 if good and bad else 0):
            lo, hi = max(r for r in good), min(bad, prm["ramp_max"])
            rate = (lo + hi) // 2
            res = run(rate)
            if kept_up(res, rate):
                good[rate] = res["achieved"]
            else:
                bad = rate
        if not good:
            raise ServerFailed("kept up with no offered rate of %s" % wl)
        return good[max(good)]

    def settle(self, name):
        """After an overloaded point: wait (up to 20 s) for the server to
        drain what it left queued, until its CPU 1 is below 20% busy over
        a second (ixmod, whose core polls: under 100 busy iterations a
        second)"""
        end = time.monotonic() + 20
        s0 = snapshot(self.g)
        while time.monotonic() < end:
            time.sleep(1)
            s1 = snapshot(self.g)
            m = moved(s0, s1)
            if is_ixmod(name):
                idle = m.get("loop_busy") is not None and m["loop_busy"] / m["secs"] < 100
            else:
                idle = (m.get("guest_busy_pct") or 0) < 20
            if idle:
                return
            s0 = s1
        say("[%s] still busy 20 s after an overloaded point" % name)

    def plan(self):
        """How many points the run will have, about (a ramp guessed at 6)"""
        prm = self.prm
        if prm["mode"] == "smoke":
            return len(prm["tcp_servers"]) * len(prm["loads"])
        if prm.get("light_only"):
            nidle = max(1, len(prm.get("light_idle_us") or []))
            per = sum(nidle if is_ixmod(s) else 1 for s in prm["tcp_servers"])
            n = per if "tcp" in prm["parts"] else 0
            if "kv" in prm["parts"]:
                n += len(prm["workloads"]) * sum(nidle if is_ixmod(s) else 1
                                                 for s in prm["kv_servers"])
            return n
        n = 0
        if "tcp" in prm["parts"]:
            n += len(prm["tcp_servers"]) * (len(prm["nlist"]) * len(prm["clist"]) +
                                           len(prm["fractions"]) + 1)
        if "kv" in prm["parts"]:
            n += len(prm["kv_servers"]) * len(prm["workloads"]) * (8 + len(prm["fractions"]))
        return n

    def run(self):
        g = self.g
        say("waiting for the guest's agent at %s:%d (the VM boots under TCG: a minute or two)"
            % (g.addr, g.port))
        t0 = time.monotonic()
        g.connect(600, say)
        self.qemu = qemu_pid()
        self.raw["guest_kernel"] = g.check("uname -r").strip()
        say("agent up after %d s: %s" % (time.monotonic() - t0, self.raw["guest_kernel"]))
        g.check("echo %s > /dev/kmsg" % MARK)
        self.devs = g.check(bench_ctl.PRELUDE + "bench_devices").split()
        if len(self.devs) != 3:
            self.fail("-", "setup", "the guest has not the three NICs (%s)" % " ".join(self.devs))
            return
        say("guest NICs: ixmod's %s, Linux's %s, the agent's %s" % tuple(self.devs))
        self.ixmod_loaded = False
        self.setup()
        if self.prm.get("profile"):
            # the kernel's symbols, ixmod's among them: read as root, now loaded
            g.check("cat /proc/kallsyms > %s/kallsyms.txt" % self.out)
        self.planned = self.plan()
        t_run = time.monotonic()
        if "tcp" in self.prm["parts"]:
            for name in self.prm["tcp_servers"]:
                self.tcp_server(name)
        if "kv" in self.prm["parts"]:
            for name in self.prm["kv_servers"]:
                self.kv_server(name)
        say("%d points in %d s" % (self.done, time.monotonic() - t_run))
        if self.ixmod_loaded:
            r = g.run(bench_ctl.PRELUDE + """
DUT=%s
grep . "$(port_dir)"/stats/* "$(port_dir)"/drops/* 2>/dev/null
ports_teardown > /dev/null
rmmod ixmod
""" % self.dut, 120)
            write(self.out, "ixmod-stats.txt", r["stdout"])
            if r["rc"] != 0:
                say("ixmod's teardown failed (status %d): %s" % (r["rc"], r["stderr"].strip()))
        g.run("ip link set %s down; ip addr flush dev %s" % (self.linif, self.linif))
        r = g.run(bench_ctl.PRELUDE + "_dmesg_mark=%s; dmesg_since; dmesg_clean > /dev/null"
                  % MARK)
        write(self.out, "dmesg.txt", r["stdout"])
        self.raw["dmesg_clean"] = r["rc"] == 0
        say("kernel log %s" % ("clean" if r["rc"] == 0 else "reports errors: see dmesg.txt"))
        self.save()


def arg_of(args, opt, default):
    """The value of option opt in the argument list args, else default"""
    return args[args.index(opt) + 1] if opt in args[:-1] else default


def kept_up(res, rate):
    """Whether an open-loop point achieved at least 90% of its rate"""
    return bool(res) and (res.get("achieved", res.get("rate")) or 0) >= 0.9 * rate


def smoke_ok(res):
    """The smoke's check: a result line that parses, msgs > 0, no error"""
    return bool(res) and res.get("msgs", 0) > 0 and not any(res.get(k) for k in TCP_ERRORS)


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out, ko = sys.argv[1], sys.argv[2]
    with open(os.path.join(out, "params.json")) as f:
        prm = json.load(f)
    b = Bench(out, ko, prm)
    try:
        b.run()
    except (bench_ctl.GuestError, ServerFailed) as e:
        b.fail("-", "setup", str(e))
    finally:
        try:
            b.g.quit()
        except bench_ctl.GuestError as e:
            say("the agent did not quit: %s" % e)
        b.save()
    if prm["mode"] == "smoke":
        for pt in b.raw["points"]:
            say("%-8s %s" % (pt["key"], " ".join("%s=%g" % kv for kv in
                                                 (pt["result"] or {}).items())))
    for f in b.raw["failures"]:
        say("FAILED: %s (%s): %s" % (f["server"], f["part"], f["why"]))
    ok = not b.raw["failures"] and b.raw["points"]
    say("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
