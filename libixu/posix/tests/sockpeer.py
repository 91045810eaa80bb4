#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""sockpeer - the other side of sockcheck's cases, on Linux's own TCP/IP

  sockpeer.py LISTEN_ADDR CTL_PORT

Listens on LISTEN_ADDR:CTL_PORT (0: a free port) for control connections
from sockcheck, one after the other, and prints "port N" on stdout once it
listens.  Each control connection is a dialogue of lines: sockcheck sends a
command, the peer does it and answers one line, "ok [RESULT]" or
"err WHY".  The peer knows no case; sockcheck drives it step by step, so
each case's choreography is written once, in sockcheck.c:

  hello ADDR          the subject's address (for connect and udp_send)
  case NAME           a new case: every socket of the last one is closed
  listen              a TCP listener on LISTEN_ADDR          -> ok PORT
  accept              accept on it (the data connection)
  connect PORT        connect to ADDR:PORT (the data connection)
  refused             a TCP port nobody listens on (bound)   -> ok PORT
  write TEXT          send TEXT
  fill N              send N bytes of the stream pattern (byte i = i % 251)
  split A B MS        answer first, then send A, sleep MS ms, send B
  recv N              read exactly N bytes                    -> ok TEXT
  drain N             read N bytes, check the pattern         -> ok COUNT good|bad
  read_eof            read to the end          -> ok eof|reset|timeout COUNT
  check_open          is the connection still open? -> ok open|eof|reset|data
  shut                shutdown(SHUT_WR): a FIN
  rst                 SO_LINGER {1, 0}, close: a RST
  close               close the data connection
  udp_port            the peer's UDP socket on LISTEN_ADDR      -> ok PORT
  udp_send PORT N...  datagrams of N bytes from it to ADDR:PORT -> ok PORT
  udp_other PORT N    a datagram from another UDP socket
  udp_recv            receive one datagram -> ok LENGTH SOURCE_PORT [TEXT]
                      (TEXT if it is at most 64 letters and digits)
  udp_reply TEXT      send TEXT back to the last datagram's source
  udp_closed          a UDP port nobody has                    -> ok PORT

Every blocking step gives up after TIMEOUT seconds.
"""
import select
import socket
import struct
import sys
import time

TIMEOUT = 5.0


PERIOD = bytes(range(251))


def pattern(off, n):
    """n bytes of the stream pattern from offset off: byte i = i % 251"""
    off %= 251
    return (PERIOD * ((off + n) // 251 + 1))[off:off + n]


class Peer:
    def __init__(self, addr):
        self.addr = addr
        self.subject = None
        self.socks = {}
        self.sent = 0           # stream offsets of the data connection
        self.got = 0
        self.last_src = None

    def reset(self):
        for s in self.socks.values():
            s.close()
        self.socks = {}
        self.sent = self.got = 0
        self.last_src = None

    def tcp(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(TIMEOUT)
        return s

    def udp(self):
        if "u" not in self.socks:
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.settimeout(TIMEOUT)
            u.bind((self.addr, 0))
            self.socks["u"] = u
        return self.socks["u"]

    def data(self, s):
        if "c" in self.socks:
            self.socks["c"].close()
        s.settimeout(TIMEOUT)
        self.socks["c"] = s
        self.sent = self.got = 0

    # The commands: each returns the result that follows "ok".

    def cmd_hello(self, addr):
        self.subject = addr
        return ""

    def cmd_case(self, name):
        self.reset()
        return ""

    def cmd_listen(self):
        s = self.tcp()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((self.addr, 0))
        s.listen(8)
        self.socks["l"] = s
        return str(s.getsockname()[1])

    def cmd_accept(self):
        c, _ = self.socks["l"].accept()
        self.data(c)
        return ""

    def cmd_connect(self, port):
        s = self.tcp()
        s.connect((self.subject, int(port)))
        self.data(s)
        return ""

    def cmd_refused(self):
        s = self.tcp()
        s.bind((self.addr, 0))          # bound, never listening: a RST
        self.socks["refused"] = s
        return str(s.getsockname()[1])

    def cmd_write(self, text):
        self.socks["c"].sendall(text.encode())
        self.sent += len(text)
        return ""

    def cmd_fill(self, n):
        n = int(n)
        self.socks["c"].sendall(pattern(self.sent, n))
        self.sent += n
        return ""

    def cmd_split(self, a, b, ms):
        c = self.socks["c"]
        self.reply("ok")
        c.sendall(a.encode())
        time.sleep(int(ms) / 1000)
        c.sendall(b.encode())
        return None

    def read(self, n):
        """Up to n bytes, fewer only at the end: (bytes, end)."""
        buf = bytearray()
        end = "timeout"
        c = self.socks["c"]
        while len(buf) < n:
            try:
                d = c.recv(min(n - len(buf), 1 << 20))
            except ConnectionResetError:
                end = "reset"
                break
            except socket.timeout:
                break
            if not d:
                end = "eof"
                break
            buf += d
        self.got += len(buf)
        return bytes(buf), end

    def cmd_recv(self, n):
        buf, _ = self.read(int(n))
        return buf.decode("latin-1")

    def cmd_drain(self, n):
        off = self.got
        buf, _ = self.read(int(n))
        good = buf == pattern(off, len(buf))
        return "%d %s" % (len(buf), "good" if good else "bad")

    def cmd_read_eof(self):
        buf, end = self.read(1 << 62)
        return "%s %d" % (end, len(buf))

    def cmd_check_open(self):
        c = self.socks["c"]
        r, _, _ = select.select([c], [], [], 0.3)
        if not r:
            return "open"
        try:
            d = c.recv(1, socket.MSG_PEEK)
        except ConnectionResetError:
            return "reset"
        return "data" if d else "eof"

    def cmd_shut(self):
        self.socks["c"].shutdown(socket.SHUT_WR)
        return ""

    def cmd_rst(self):
        c = self.socks.pop("c")
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))
        c.close()
        return ""

    def cmd_close(self):
        self.socks.pop("c").close()
        return ""

    def cmd_udp_port(self):
        return str(self.udp().getsockname()[1])

    def cmd_udp_send(self, port, *sizes):
        u = self.udp()
        for n in sizes:
            u.sendto(pattern(0, int(n)), (self.subject, int(port)))
        return str(u.getsockname()[1])

    def cmd_udp_other(self, port, n):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as o:
            o.bind((self.addr, 0))
            o.sendto(pattern(0, int(n)), (self.subject, int(port)))
        return ""

    def cmd_udp_recv(self):
        d, self.last_src = self.udp().recvfrom(65536)
        text = d.decode("latin-1") if len(d) <= 64 and d.isalnum() else ""
        return "%d %d %s" % (len(d), self.last_src[1], text)

    def cmd_udp_reply(self, text):
        self.udp().sendto(text.encode(), self.last_src)
        return ""

    def cmd_udp_closed(self):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as o:
            o.bind((self.addr, 0))
            return str(o.getsockname()[1])

    def reply(self, line):
        self.ctl.sendall(line.encode() + b"\n")

    def serve(self, ctl):
        """One control connection, until sockcheck closes it."""
        self.ctl = ctl
        for line in ctl.makefile("r", encoding="latin-1"):
            words = line.split()
            if not words:
                continue
            fn = getattr(self, "cmd_" + words[0], None)
            try:
                if fn is None:
                    raise ValueError("unknown command " + words[0])
                res = fn(*words[1:])
            except (OSError, ValueError, KeyError, TypeError) as e:
                self.reply("err %s: %s" % (words[0], e))
                continue
            if res is not None:
                self.reply(("ok " + res).rstrip())
        self.reset()


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: sockpeer.py LISTEN_ADDR CTL_PORT")
    addr = sys.argv[1]
    lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsn.bind((addr, int(sys.argv[2])))
    lsn.listen(4)
    print("port %d" % lsn.getsockname()[1], flush=True)
    peer = Peer(addr)
    while True:
        ctl, _ = lsn.accept()
        with ctl:
            try:
                peer.serve(ctl)
            except OSError as e:
                print("sockpeer: control connection: %s" % e, file=sys.stderr)
                peer.reset()


if __name__ == "__main__":
    main()
