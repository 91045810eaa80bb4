#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench-agent.py - the guest's end of the benchmarks' control channel:
runs, inside the test VM, the shell commands a client on the host sends.

usage: bench-agent.py [--nic igb|virtio] [--addr IP/PREFIX] [--port PORT]
                      [--cpu CPU] [--idle SECONDS]

Run as root in the guest of scripts/vm-run --host (with --virtio N
--virtio-nics 3, or -n 3 --igb-tap).  It takes the peer NIC of the
benchmarks' three-NIC layout (scripts/bench-guest-lib.sh): the third igb
in PCI order, or the virtio-net NIC with MAC 52:54:00:49:58:02; --nic
says which (default: $IXMOD_TEST_NIC, else igb).  It loads that NIC's
Linux driver, gives its netdev --addr (default 198.18.1.2/24, the control
subnet; the host's end is 198.18.1.1 on vm-run's bridge) in the root
namespace, puts its interrupts on --cpu (default 0, the client's CPU of
the benchmarks: the server's CPU 1 stays quiet), sets arp_ignore=1 and
arp_announce=2 (every guest NIC sits on one bridge: each answers ARP for
its own addresses only), and listens on TCP --port (default 7070) of that
address alone, pinned to --cpu.  The benchmarks' peer address 198.18.0.2
is the host's in this mode: the peer NIC carries only the control
address.

It executes whatever it is sent, as root: a test VM's tool, reachable only
from the host namespace of one vm-run (the private control subnet on its
bridge), never to be run elsewhere.

Protocol: one JSON object per line each way, one client at a time (a new
one may connect when the last has gone).  Every reply has "ok" (false
with "error" when the request was wrong).
  {"cmd": SH, "timeout": S}   run SH with bash -c in the repository's top
                              directory; reply {rc, stdout, stderr,
                              timed_out} (rc -9 when it was killed after S
                              seconds, default 60)
  {"bg": SH, "name": X}       start SH in the background as X (its own
                              process group; output to files); reply {pid}
  {"poll": X}                 reply {running, rc, stdout, stderr}: X's
                              state and output so far
  {"kill": X, "sig": "INT", "timeout": S}  signal X's process group, wait
                              up to S seconds (default 10), then SIGKILL;
                              reply {rc, stdout, stderr, killed} and forget X
  {"quit": true}              stop every background process, reply, exit 0
Commands run with the environment the agent had plus IXMOD_TEST_NIC, and
the CPU affinity it had before pinning itself.  With no request for
--idle seconds (default 1800) the agent stops its processes and exits 2,
so that a host side that died does not keep the VM up until vm-run's
timeout.
"""

import argparse
import glob
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER_MAC = "52:54:00:49:58:02"	# test_common.sh's VNET_PEER_MAC
IGB_ID = ("0x8086", "0x10c9")	# the 82576s vm-run gives the guest
VIRTIO_NET = (("0x1af4", "0x1041"), ("0x1af4", "0x1000"))
OUT_MAX = 4 << 20		# bytes of a stream a reply carries at most


def log(msg):
    print("bench-agent: %s" % msg, file=sys.stderr, flush=True)


def sh(*cmd):
    subprocess.run(cmd, check=True)


def pci_ids(dev):
    def rd(f):
        with open("/sys/bus/pci/devices/%s/%s" % (dev, f)) as fh:
            return fh.read().strip()
    return rd("vendor"), rd("device")


def peer_netdev(nic, wait_s=60):
    """The peer NIC's Linux netdev, its driver loaded; (netdev, PCI function)"""
    sh("modprobe", "igb" if nic == "igb" else "virtio_net")
    end = time.monotonic() + wait_s
    while True:
        devs = sorted(os.listdir("/sys/bus/pci/devices"))
        if nic == "igb":
            igbs = [d for d in devs if pci_ids(d) == IGB_ID]
            if len(igbs) >= 3:
                nets = glob.glob("/sys/bus/pci/devices/%s/net/*" % igbs[2])
                if nets:
                    return os.path.basename(nets[0]), igbs[2]
        else:
            for d in devs:
                if pci_ids(d) not in VIRTIO_NET:
                    continue
                for n in glob.glob("/sys/bus/pci/devices/%s/virtio*/net/*" % d):
                    with open(n + "/address") as fh:
                        if fh.read().strip() == PEER_MAC:
                            return os.path.basename(n), d
        if time.monotonic() > end:
            raise SystemExit("bench-agent: no %s peer NIC (the third igb, or virtio-net %s)"
                             % (nic, PEER_MAC))
        time.sleep(0.2)


def irqs_to(dev, cpu):
    for irq in glob.glob("/sys/bus/pci/devices/%s/msi_irqs/*" % dev):
        try:
            with open("/proc/irq/%s/smp_affinity_list" % os.path.basename(irq), "w") as fh:
                fh.write(str(cpu))
        except OSError as e:
            log("irq %s of %s stays where it is: %s" % (os.path.basename(irq), dev, e))


def setup(args):
    ifname, dev = peer_netdev(args.nic)
    for k, v in (("net.ipv4.conf.all.arp_ignore", "1"),
                 ("net.ipv4.conf.all.arp_announce", "2")):
        sh("sysctl", "-qw", "%s=%s" % (k, v))
    sh("ip", "addr", "flush", "dev", ifname)
    sh("ip", "addr", "add", args.addr, "dev", ifname)
    sh("ip", "link", "set", ifname, "up")
    # igb requests its vectors when the link goes up
    irqs_to(dev, args.cpu)
    log("%s (%s, %s) at %s" % (ifname, dev, args.nic, args.addr))


class Job:
    """A background process: its own process group, output in files"""

    def __init__(self, name, cmd, env, preexec):
        self.dir = tempfile.mkdtemp(prefix="bench-agent-%s-" % name)
        self.out = open(os.path.join(self.dir, "stdout"), "wb+")
        self.err = open(os.path.join(self.dir, "stderr"), "wb+")
        self.proc = subprocess.Popen(["bash", "-c", cmd], cwd=TOP, env=env,
                                     stdin=subprocess.DEVNULL, stdout=self.out,
                                     stderr=self.err, start_new_session=True,
                                     preexec_fn=preexec)

    def output(self):
        res = []
        for f in (self.out, self.err):
            f.flush()
            f.seek(0)
            res.append(f.read()[-OUT_MAX:].decode(errors="replace"))
        return res

    def signal(self, sig):
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def stop(self, sig, timeout):
        self.signal(sig)
        killed = False
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.proc.wait()
            killed = True
        # what the group left behind (a process of its own group that
        # outlived the leader)
        self.signal(signal.SIGKILL)
        out, err = self.output()
        for f in (self.out, self.err):
            f.close()
            os.unlink(f.name)
        os.rmdir(self.dir)
        return {"rc": self.proc.returncode, "stdout": out, "stderr": err,
                "killed": killed}


class Agent:
    def __init__(self, args, affinity):
        self.args = args
        self.jobs = {}
        self.env = dict(os.environ, IXMOD_TEST_NIC=args.nic)
        self.affinity = affinity

    def preexec(self):
        os.sched_setaffinity(0, self.affinity)

    def run(self, req):
        cmd = req["cmd"]
        timeout = float(req.get("timeout", 60))
        p = subprocess.Popen(["bash", "-c", cmd], cwd=TOP, env=self.env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True,
                             preexec_fn=self.preexec)
        timed_out = False
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = p.communicate()
        return {"rc": p.returncode, "timed_out": timed_out,
                "stdout": out[-OUT_MAX:].decode(errors="replace"),
                "stderr": err[-OUT_MAX:].decode(errors="replace")}

    def handle(self, req):
        if not isinstance(req, dict):
            raise ValueError("a request is a JSON object")
        if "cmd" in req:
            log("run: %s" % req["cmd"])
            return self.run(req)
        if "bg" in req:
            name = str(req.get("name", ""))
            if not name:
                raise ValueError("bg needs a name")
            if name in self.jobs:
                raise ValueError("a job named %r exists (kill it first)" % name)
            log("bg %s: %s" % (name, req["bg"]))
            job = Job(name, req["bg"], self.env, self.preexec)
            self.jobs[name] = job
            return {"pid": job.proc.pid}
        if "poll" in req:
            job = self.job(req["poll"])
            out, err = job.output()
            rc = job.proc.poll()
            return {"running": rc is None, "rc": rc, "stdout": out, "stderr": err}
        if "kill" in req:
            job = self.job(req["kill"])
            sig = getattr(signal, "SIG" + str(req.get("sig", "INT")).upper().removeprefix("SIG"))
            log("kill %s with %s" % (req["kill"], sig.name))
            res = job.stop(sig, float(req.get("timeout", 10)))
            del self.jobs[req["kill"]]
            return res
        if req.get("quit"):
            return {"quit": True}
        raise ValueError("unknown request (cmd, bg, poll, kill or quit)")

    def job(self, name):
        if name not in self.jobs:
            raise ValueError("no job named %r" % name)
        return self.jobs[name]

    def stop_all(self):
        for name, job in list(self.jobs.items()):
            log("stopping %s" % name)
            job.stop(signal.SIGTERM, 5)
        self.jobs.clear()

    def serve(self, conn):
        """One client's requests; True once asked to quit"""
        conn.settimeout(self.args.idle)
        rfile = conn.makefile("rb")
        while True:
            try:
                line = rfile.readline()
            except socket.timeout:
                raise
            except OSError as e:
                log("client gone: %s" % e)
                return False
            if not line:
                return False
            if not line.strip():
                continue
            try:
                res = self.handle(json.loads(line))
                res["ok"] = True
            except Exception as e:	# a bad request must not end the agent
                res = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
            try:
                conn.sendall(json.dumps(res).encode() + b"\n")
            except OSError as e:
                log("client gone: %s" % e)
                return bool(res.get("quit"))
            if res.get("quit"):
                return True


def main():
    ap = argparse.ArgumentParser(description="the guest's end of the benchmarks' control channel")
    ap.add_argument("--nic", choices=("igb", "virtio"),
                    default=os.environ.get("IXMOD_TEST_NIC") or "igb")
    ap.add_argument("--addr", default="198.18.1.2/24")
    ap.add_argument("--port", type=int, default=7070)
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--idle", type=float, default=1800)
    args = ap.parse_args()

    affinity = os.sched_getaffinity(0)
    setup(args)
    os.sched_setaffinity(0, {args.cpu})
    agent = Agent(args, affinity)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((args.addr.split("/")[0], args.port))
    ls.listen(1)
    ls.settimeout(args.idle)
    log("listening on %s:%d" % (args.addr.split("/")[0], args.port))
    rc = 0
    try:
        while True:
            conn, peer = ls.accept()
            log("client %s:%d" % peer)
            with conn:
                if agent.serve(conn):
                    break
    except socket.timeout:
        log("no request for %g s: giving up" % args.idle)
        rc = 2
    except KeyboardInterrupt:
        rc = 130
    agent.stop_all()
    log("done")
    return rc


if __name__ == "__main__":
    sys.exit(main())
