# SPDX-License-Identifier: GPL-2.0
"""bench_ctl.py - the host's end of the benchmarks' control channel: a
client of scripts/bench-agent.py, which runs in the guest of
scripts/vm-run --host.  Imported by the host side of a benchmark, which
vm-run --host runs in the VM's host network namespace (where the control
subnet 198.18.1.0/24 is on vm-run's bridge).

    import bench_ctl
    g = bench_ctl.Guest()          # 198.18.1.2:7070
    g.connect()                    # retries while the guest boots
    r = g.run("uname -r", 30)      # {"rc": 0, "stdout": ..., "stderr": ...}
    g.bg("srv", "exec tools/bench/tcp/tcp-echo-epoll -p 7 -c 1")
    g.wait_output("srv", "ready")  # or poll("srv")
    r = g.kill("srv", "INT")       # its rc, output, and whether it was killed
    g.quit()                       # the agent exits, and so the VM's command

Every call returns the agent's reply (a dict) and raises GuestError when
the agent says a request was wrong or the connection breaks; run() and
check() leave a command's own failure to the caller (rc) or raise it.
"""

import json
import socket
import time

PRELUDE = (". tools/testing/selftests/ixmod/test_common.sh && "
           ". scripts/bench-guest-lib.sh && ")
"""A command prefix that sources the guest libraries (IXMOD_TEST_NIC is
the agent's --nic): bench_devices, irqs_to, port_dir, busywait..."""


class GuestError(Exception):
    pass


class Guest:
    def __init__(self, addr="198.18.1.2", port=7070):
        self.addr = addr
        self.port = port
        self.sock = None
        self.rfile = None

    def connect(self, timeout=600, progress=None):
        """Connect to the agent, trying again every 2 s for up to timeout
        seconds (a TCG guest takes a minute or more to boot); progress, if
        given, is called with a line every 30 s of waiting"""
        start = time.monotonic()
        said = start
        last = None
        while True:
            try:
                s = socket.create_connection((self.addr, self.port), timeout=5)
                break
            except OSError as e:
                last = e
            now = time.monotonic()
            if now - start > timeout:
                raise GuestError("no agent at %s:%d after %d s: %s"
                                 % (self.addr, self.port, timeout, last))
            if progress and now - said >= 30:
                progress("waiting for the guest's agent (%d s)" % (now - start))
                said = now
            time.sleep(2)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.settimeout(None)
        self.sock = s
        self.rfile = s.makefile("rb")
        return self

    def request(self, req, timeout=None):
        """One request, its reply; timeout: seconds to wait for the reply"""
        if self.sock is None:
            raise GuestError("not connected")
        self.sock.settimeout(timeout)
        try:
            self.sock.sendall(json.dumps(req).encode() + b"\n")
            line = self.rfile.readline()
        except OSError as e:
            raise GuestError("agent connection: %s" % e) from e
        if not line:
            raise GuestError("the agent closed the connection")
        res = json.loads(line)
        if not res.get("ok"):
            raise GuestError("agent: %s" % res.get("error"))
        return res

    def run(self, cmd, timeout=60):
        """Run cmd (bash) in the guest, in the repository's top directory:
        {rc, stdout, stderr, timed_out}"""
        return self.request({"cmd": cmd, "timeout": timeout}, timeout + 30)

    def check(self, cmd, timeout=60):
        """run(), raising GuestError unless the command exits 0: its stdout"""
        r = self.run(cmd, timeout)
        if r["rc"] != 0:
            raise GuestError("guest command failed (rc %s%s): %s\n%s%s"
                             % (r["rc"], ", timed out" if r["timed_out"] else "",
                                cmd, r["stdout"], r["stderr"]))
        return r["stdout"]

    def bg(self, name, cmd):
        """Start cmd in the background in the guest as name: {pid}"""
        return self.request({"bg": cmd, "name": name}, 60)

    def poll(self, name):
        """{running, rc, stdout, stderr} of the background process name"""
        return self.request({"poll": name}, 60)

    def wait_output(self, name, text, timeout=30):
        """Wait until name's stdout or stderr has text: True, or False when
        it ended or the time ran out first"""
        end = time.monotonic() + timeout
        while True:
            r = self.poll(name)
            if text in r["stdout"] or text in r["stderr"]:
                return True
            if not r["running"] or time.monotonic() > end:
                return False
            time.sleep(0.5)

    def kill(self, name, sig="INT", timeout=10):
        """Signal name's process group, SIGKILL after timeout seconds:
        {rc, stdout, stderr, killed}"""
        return self.request({"kill": name, "sig": sig, "timeout": timeout}, timeout + 30)

    def quit(self):
        """End the agent (and so the VM's command)"""
        res = self.request({"quit": True}, 60)
        self.close()
        return res

    def close(self):
        if self.sock is not None:
            self.rfile.close()
            self.sock.close()
            self.sock = None
