#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo-guest.sh - the part of `make demo` that runs inside the VM: load
# ixmod, assign cores through sysfs, and show the dataplane threads, their
# placement and their counters, a port answering a Linux peer, libixu's
# udp-echo and tcp-echo serving it, and the key-value server answering
# memcached clients, with its latency beside the same server on Linux;
# then the same with no NIC at all, through a software port.
# scripts/demo starts it.
#
# Usage (inside the guest): demo-guest.sh IXMOD_KO [--softport-only]
#   --softport-only: only the software port (a VM with no NIC)

set -u
KO=$1
ONLY_SOFTPORT=${2:-}
S=/sys/kernel/ixmod
top=$(cd "$(dirname "$0")/.." && pwd)

say() { printf '\n\033[1m### %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; bash -c "$*"; }
counters() {
	printf '%-6s %-9s %12s %8s %8s %8s %8s %8s\n' core state iterations busy sleeps \
		wakeups rx_pkts tx_pkts
	for d in "$S"/dataplane/cpu*; do
		printf '%-6s %-9s %12s %8s %8s %8s %8s %8s\n' "${d##*/}" "$(cat "$d/state")" \
			"$(cat "$d/stats/iterations")" "$(cat "$d/stats/busy")" \
			"$(cat "$d/stats/sleeps")" "$(cat "$d/stats/wakeups")" \
			"$(cat "$d/stats/rx_packets")" "$(cat "$d/stats/tx_packets")"
	done
}


# A software port: no NIC, Linux's ixsw0 on the other side, in a namespace
softport_demo() {
	say "No NIC at all: a software port (softports/new makes the netdev ixsw0 and the port ixsw0)"
	local P=$S/ports/ixsw0 CHECK=$top/tools/testing/selftests/ixmod/tcp_check.py
	run "echo 0 > $S/softports/new; cat $S/softports/list"
	run "dmesg | grep softports: | tail -n 1"
	ip netns add ixsw
	ip link set ixsw0 netns ixsw
	ip -n ixsw link set lo up
	ip -n ixsw addr add 198.19.0.2/24 dev ixsw0
	ip -n ixsw link set ixsw0 up
	run "echo 198.19.0.1/24 > $P/ipv4; echo 1 > $P/up; cat $P/link $P/queues"
	run "ip netns exec ixsw ping -c 3 -i 0.2 198.19.0.1"
	"$top/libixu/examples/tcp-echo" -p 7 > /tmp/tcp-echo-sw.log 2>&1 &
	local pid=$!
	for _ in $(seq 100); do grep -q 'ready\|tcp-echo: cpu' /tmp/tcp-echo-sw.log && break; sleep 0.1; done
	echo "Linux's TCP (namespace ixsw) through ixsw0 to libixu's tcp-echo: 1 MB compared by SHA-256, 8 connections at once:"
	run "ip netns exec ixsw python3 $CHECK echo 198.19.0.1 7 --bytes 1000000"
	run "ip netns exec ixsw python3 $CHECK echo 198.19.0.1 7 --parallel 8 --bytes 100000"
	kill -INT $pid
	wait $pid
	run "tail -n 3 /tmp/tcp-echo-sw.log"
	"$top/libixu/examples/kv/kv-ixev" -p 11211 > /tmp/kv-sw.log 2>&1 &
	pid=$!
	for _ in $(seq 100); do grep -q 'ready\|kv-ixev: cpu' /tmp/kv-sw.log && break; sleep 0.1; done
	echo "The key-value server through the software port; memccapable from the namespace:"
	run "ip netns exec ixsw memccapable -h 198.19.0.1 -p 11211 -a 2>&1 | tail -n 4"
	kill -INT $pid
	wait $pid
	echo "Counters, from both sides: what Linux sent on ixsw0 is what the port received"
	run "ip -n ixsw -s link show ixsw0 | sed -n '3,6p'; grep . $P/stats/rx_packets $P/stats/tx_packets $P/stats/rx_csum_hw | sed 's|$S/||'"
	run "echo 0 > $P/up; echo 0 > $S/softports/del; cat $S/softports/list"
	ip netns del ixsw
}

if [ "$ONLY_SOFTPORT" = --softport-only ]; then
	say "A Debian $(uname -r) guest with $(nproc --all) CPUs and no NIC for ixmod"
	dmesg -C
	run "insmod $KO"
	run "echo 1-2 > $S/cores; cat $S/cores"
	echo 0 > $S/idle_us
	softport_demo
	say "rmmod with cores assigned stops everything"
	run "rmmod ixmod"
	exit 0
fi

say "A Debian $(uname -r) guest with $(nproc --all) CPUs; cpus 1-2 are isolated"
run "grep -o 'isolcpus=[^ ]*\|nohz_full=[^ ]*' /proc/cmdline"

say "Load ixmod: it starts nothing until told"
dmesg -C
run "insmod $KO"
run "dmesg | grep ixmod"
run "ls $S; echo \"cores='\$(cat $S/cores)' idle_us=\$(cat $S/idle_us)\""

say "Assign cores 1-2: one pinned dataplane thread each"
run "echo 1-2 > $S/cores"
run "cat $S/cores"
run "ps -eo pid,psr,stat,comm | grep -E 'PID|ixmod/'"
for d in "$S"/dataplane/cpu*; do
	pid=$(cat "$d/pid")
	printf '%s: pid %s, allowed cpus %s, isolated=%s\n' "${d##*/}" "$pid" \
		"$(awk '/Cpus_allowed_list/ {print $2}' /proc/"$pid"/status)" "$(cat "$d/isolated")"
done

say "/dev/ixmod answers the ABI query (libixu's ixu-info)"
run "$top/libixu/examples/ixu-info"

say "Polling (idle_us=0): the loop runs flat out and counts itself (no port yet: every iteration is idle)"
echo 0 > $S/idle_us
for _ in 1 2 3; do sleep 0.5; counters; echo; done

say "Idle (idle_us=1000): after 1 ms without work each thread sleeps"
echo 1000 > $S/idle_us
sleep 1
counters
echo "... one second later, the counters have not moved:"
sleep 1
counters
run "ps -eo pid,psr,stat,comm | grep -E 'PID|ixmod/'"

say "Tracepoints (trace-cmd record -e ixmod reads the same events)"
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
echo > $T/trace
echo 1 > $T/events/ixmod/enable
echo 0 > $S/idle_us; sleep 0.2; echo 1000 > $S/idle_us; sleep 0.2
echo 0 > $T/events/ixmod/enable
grep ixm_ $T/trace | sed 's/^ *//' | head -n 8

say "Hand the first igb NIC to ixmod (driver_override + bind, never automatic)"
modprobe igb
mapfile -t nics < <(for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor"):$(cat "$d/device")" = 0x8086:0x10c9 ] && basename "$d"; done | sort)
DUT=${nics[0]} PEERDEV=${nics[1]}
P=$S/ports/$DUT
run "$top/scripts/ixmod-bind list"
run "$top/scripts/ixmod-bind bind $DUT"
run "ls $P; cat $P/mac $P/link"
run "echo 198.18.0.1/24 > $P/ipv4; echo 1 > $P/up"
run "cat $P/ipv4 $P/queues; dmesg | grep 'ports:' | tail -n 1"

say "A Linux peer on the second NIC (network namespace ixpeer, 198.18.0.2)"
peerif=$(ls /sys/bus/pci/devices/"$PEERDEV"/net)
ip netns add ixpeer
ip link set "$peerif" netns ixpeer
ip -n ixpeer link set lo up
ip -n ixpeer addr add 198.18.0.2/24 dev "$peerif"
ip -n ixpeer link set "$peerif" up
for _ in $(seq 100); do grep -q '^up' $P/link && break; sleep 0.1; done
run "cat $P/link"
run "ip netns exec ixpeer ping -c 5 -i 0.2 198.18.0.1"
run "ip netns exec ixpeer arping -c 2 -I $peerif 198.18.0.1"

say "RSS: pings from 8 peer addresses spread over the two cores (symmetric Toeplitz key)"
echo 1000 > $S/idle_us
counters
for i in $(seq 10 17); do
	ip -n ixpeer addr add 198.18.0.$i/24 dev "$peerif"
	ip netns exec ixpeer ping -q -c 20 -i 0.02 -I 198.18.0.$i 198.18.0.1 >/dev/null
done
echo "... after 8 x 20 pings from 198.18.0.10-17:"
counters
run "grep . $P/stats/* | sed 's|$P/||'"
echo "Drop counters that are not zero (one file per reason in $P/drops/):"
grep -H -v '^0$' $P/drops/* | sed "s|$P/||" || echo "(none)"

say "An application: libixu's udp-echo, one thread per dataplane core, zero-copy receive"
"$top/libixu/examples/udp-echo" -p 7 > /tmp/udp-echo.log 2>&1 &
echo_pid=$!
for _ in $(seq 100); do grep -q 'ready\|udp-echo: cpu' /tmp/udp-echo.log && break; sleep 0.1; done
run "cat /tmp/udp-echo.log"
run "for d in $S/dataplane/cpu*; do echo \"\${d##*/}: owner pid \$(cat \$d/owner), \$(cat \$d/contexts) contexts\"; done"
echo "The Linux peer sends datagrams of 1 to 1472 bytes with Python's socket module; each reply is checked byte for byte:"
run "ip netns exec ixpeer python3 $top/tools/testing/selftests/ixmod/udp_check.py 198.18.0.1 7 --sizes 1-1472"
kill -INT $echo_pid
wait $echo_pid
run "cat /tmp/udp-echo.log"
run "grep . $P/stats/udp_* $S/dataplane/cpu1/stats/app_*  | sed 's|$S/||'"

say "TCP: libixu's tcp-echo, one thread per core, against Linux's TCP stack in the peer (zero-copy both ways)"
CHECK=$top/tools/testing/selftests/ixmod/tcp_check.py
"$top/libixu/examples/tcp-echo" -p 7 > /tmp/tcp-echo.log 2>&1 &
echo_pid=$!
for _ in $(seq 100); do grep -q 'ready\|tcp-echo: cpu' /tmp/tcp-echo.log && break; sleep 0.1; done
run "cat /tmp/tcp-echo.log"
echo "The handshake as Linux recorded it (ss -ti and TCP_INFO in the peer): MSS, window scaling, timestamps:"
run "ip netns exec ixpeer python3 $CHECK opts 198.18.0.1 7"
echo "1 MB through the echo server, compared by SHA-256; then 200 short connections, half closed with a RST:"
run "ip netns exec ixpeer python3 $CHECK echo 198.18.0.1 7 --bytes 1000000"
run "ip netns exec ixpeer python3 $CHECK short 198.18.0.1 7 --count 200"
kill -INT $echo_pid
wait $echo_pid
run "tail -n 2 /tmp/tcp-echo.log"
echo "Per-core TCP counters: every connection is gone (conns, established 0), and the NIC"
echo "read the echoed data from tcp-echo's arena in place (tx_zerocopy, not tx_copied):"
tcp_names="passive_opens,resets_in,established,conns,retrans,tx_zerocopy,tx_copied"
run "grep . $S/dataplane/cpu*/stats/tcp_{$tcp_names} | sed 's|$S/dataplane/||'"

say "A key-value server: libixu/examples/kv/kv-ixev (memcached's protocol, on libixu's event layer)"
KV=$top/libixu/examples/kv
KVLOAD="$top/tools/bench/kvload/kvload -s 198.18.0.1:11211 -W etc -r 500 -d 3 -w 1 -k 1000 --preload --spin-us 0 -q"
"$KV/kv-ixev" -p 11211 > /tmp/kv.log 2>&1 &
kv_pid=$!
for _ in $(seq 100); do grep -q 'ready\|kv-ixev: cpu' /tmp/kv.log && break; sleep 0.1; done
run "cat /tmp/kv.log"
echo "A real memcached client: libmemcached's memccapable runs its ASCII protocol tests from the peer:"
run "ip netns exec ixpeer memccapable -h 198.18.0.1 -p 11211 -a 2>&1 | tail -n 4"
echo "kvload, an open-loop client (Poisson arrivals, Facebook's ETC sizes), 500 requests/s for 3 s:"
run "ip netns exec ixpeer $KVLOAD -o /tmp/kv-ixmod.json | head -n 4"
kill -INT $kv_pid
wait $kv_pid

say "Give the NIC back: Linux's igb takes it and works"
run "echo 0 > $P/up; $top/scripts/ixmod-bind unbind $DUT"
dutif=$(ls /sys/bus/pci/devices/"$DUT"/net)
ip addr add 198.18.0.1/24 dev "$dutif"; ip link set "$dutif" up
for _ in $(seq 150); do ip netns exec ixpeer ping -c1 -W1 198.18.0.1 >/dev/null 2>&1 && break; sleep 0.1; done
run "ip -br addr show $dutif; ip netns exec ixpeer ping -c 3 198.18.0.1"

say "The same store and protocol on Linux (kv-epoll on the same NIC, now Linux's), the same client"
taskset -c 1-2 "$KV/kv-epoll" -p 11211 -t 2 > /tmp/kv-epoll.log 2>&1 &
kv_pid=$!
for _ in $(seq 100); do grep -q ready /tmp/kv-epoll.log && break; sleep 0.1; done
run "ip netns exec ixpeer $KVLOAD -o /tmp/kv-linux.json | head -n 4"
kill $kv_pid
wait $kv_pid 2>/dev/null
echo "Latency, ixmod against Linux (the same VM, NIC model and client; software emulation, so"
echo "only the ratio means something, and one run of 3 s is noisy):"
python3 - /tmp/kv-ixmod.json /tmp/kv-linux.json <<'PY' || echo "(no figures: a run failed)"
import json, sys
ix, lx = (json.load(open(f)) for f in sys.argv[1:3])
for k, name in (("p50_us", "p50"), ("p99_us", "p99")):
    print("  %s: ixmod %8.0f us, Linux epoll %8.0f us, ratio %.2f"
          % (name, ix[k], lx[k], ix[k] / lx[k] if lx[k] else float("nan")))
print("  achieved: ixmod %.0f/s, Linux %.0f/s (offered 500/s)" % (ix["achieved"], lx["achieved"]))
PY
ip link set "$dutif" down; ip addr flush dev "$dutif"; ip netns del ixpeer

softport_demo

say "Bad input is refused, explained, and changes nothing"
run "echo 0-2 > $S/cores"
run "echo +2 > $S/cores"
run "echo banana > $S/idle_us"
run "dmesg | grep ixmod | tail -n 3"
run "cat $S/cores"

say "rmmod with cores assigned stops everything"
run "rmmod ixmod"
run "ps -eo comm | grep -c '^ixmod/' || true"
run "ls $S 2>&1"
