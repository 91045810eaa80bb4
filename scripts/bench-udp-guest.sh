#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-udp-guest.sh - the guest half of scripts/bench-udp: UDP echo
# latency and throughput from udp-load in the Linux peer namespace to
# libixu's udp-echo on an igb port bound to ixmod, then to the Linux
# servers udp-echo-mmsg and udp-echo-uring on a second igb port left to
# Linux's igb driver; ROUNDS times, in that order, so that a slow spell of
# the emulator falls on every server rather than on one.
#
# Usage (inside the VM):
#   bench-udp-guest.sh OUTDIR IXMOD_KO COUNT SECONDS WINDOW SIZES IDLE_US
#                      URING_OPTS ROUNDS APP_CPU
#
# The VM has 2 vCPUs and 3 igb NICs on one QEMU hub: the first is
# ixmod's (198.18.0.1), the second Linux's (198.18.0.3, root namespace),
# the third the peer's (198.18.0.2, namespace ixpeer).  The client and
# the peer NIC's interrupts have CPU 0.  Every server's kernel work has
# CPU 1 (isolcpus=1 nohz_full=1): ixmod's dataplane thread, or the
# interrupts (hence the softirq work) of every queue of Linux's NIC.  The
# server's own thread (udp-echo, udp-echo-mmsg, udp-echo-uring) is pinned
# to APP_CPU: 1 (shared: one CPU per server) or 0 (split: it shares the
# client's CPU).
#
# For each server NAME (ixmod, mmsg, uring) and round R it writes
#   warm-NAME-rR.txt       udp-load's result line for the 200-request warm-up
#   lat-NAME-rR.txt        udp-load's result line, closed loop: one request
#                          outstanding, COUNT requests of 64 bytes
#   rtt-NAME-rR.txt        the RTT of each of them (us, one per line)
#   tput-NAME-SIZE-rR.txt  udp-load's result line, WINDOW requests
#                          outstanding over 4 flows for SECONDS, per SIZE
#   trtt-NAME-SIZE-rR.txt  the RTT of each of those
#   server-NAME-rR.log     the server's own output (its totals)
#   sched-NAME-rR.txt      the server's threads' (and ixmod's dataplane
#                          thread's) CPU time, run-queue wait and switches
#   load-NAME.log          udp-load's progress lines
# and params.txt (the arguments, KEY=VALUE), env.txt (kernel, CPUs,
# interrupt placement and counts), ixmod-stats.txt (the port's counters
# and drop reasons) and dmesg.txt (the kernel log of the run).

set -u
out=$1
export IXMOD_KO=$2
count=$3
secs=$4
window=$5
sizes=$6
idle_us=$7
uring_opts=$8
rounds=$9
app_cpu=${10}
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../tools/testing/selftests/ixmod/test_common.sh
. "$top/tools/testing/selftests/ixmod/test_common.sh"
mkdir -p "$out"

ECHO=$top/libixu/examples/udp-echo
BENCH=$top/tools/bench/udp
LIN_IP=198.18.0.3
SRV_CPU=1
CLI_CPU=0
PORT=7
LOSS_MS=2000	# TCG stalls reach a second: only longer is a real loss

say() { echo "bench-udp: $*"; }

# irqs_to DEV CPU: every MSI-X vector of the PCI device DEV to CPU (the
# driver must have requested them: /proc/irq/N exists only then)
irqs_to() {
	local i
	for i in /sys/bus/pci/devices/"$1"/msi_irqs/*; do
		echo "$2" > "/proc/irq/${i##*/}/smp_affinity_list" ||
			{ say "cannot move irq ${i##*/} of $1 to cpu $2"; return 1; }
	done
}

setup() {
	local devs
	mapfile -t devs < <(igb_devices)
	[ "${#devs[@]}" -ge 3 ] || { say "needs three igb NICs, found ${#devs[@]}"; return 1; }
	DUT=${devs[0]}
	LIN=${devs[1]}
	PEER=${devs[2]}
	modprobe igb 2>/dev/null
	ixmod_load || return 1
	echo "" > "$IXMOD_SYSFS"/cores
	echo "$idle_us" > "$IXMOD_SYSFS"/idle_us
	"$IXMOD_BIND" bind "$DUT" >/dev/null || return 1
	busywait 5000 ls "/sys/bus/pci/devices/$PEER/net" || { say "no netdev for $PEER"; return 1; }
	busywait 5000 ls "/sys/bus/pci/devices/$LIN/net" || { say "no netdev for $LIN"; return 1; }
	PEERIF=$(ls "/sys/bus/pci/devices/$PEER/net")
	LINIF=$(ls "/sys/bus/pci/devices/$LIN/net")
	ip netns del "$PEER_NS" 2>/dev/null
	ip netns add "$PEER_NS"
	ip link set "$PEERIF" netns "$PEER_NS"
	ip -n "$PEER_NS" link set lo up
	ip netns exec "$PEER_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$PEER_NS" addr add "$PEER_IP/24" dev "$PEERIF"
	ip -n "$PEER_NS" link set "$PEERIF" up
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip addr add $LIN_IP/24 dev "$LINIF"
	ip link set "$LINIF" up
	# igb requests its vectors when the link goes up: place them now
	irqs_to "$PEER" $CLI_CPU || return 1
	irqs_to "$LIN" $SRV_CPU || return 1
	echo "$DUT_IP/24" > "$(port_dir)/ipv4" || return 1
	busywait 15000 peer ping -c1 -W1 $LIN_IP || { say "Linux igb port never answered ping"; return 1; }
}

load() {	# load ARGS...: udp-load on the client CPU in the peer namespace
	peer "$BENCH/udp-load" -p $PORT -c $CLI_CPU -L $LOSS_MS "$@"
}

# measure NAME IP: warm-up, closed loop, then throughput for each size,
# in round $round
measure() {
	local name=$1 ip=$2 r=$round s
	say "[$name $r] warm-up (200 requests)"
	load -d "$ip" -s 64 -N 200 -T 60 > "$out/warm-$name-r$r.txt" 2>> "$out/load-$name.log"
	say "[$name $r] $(cat "$out/warm-$name-r$r.txt")"
	say "[$name $r] closed loop: $count requests of 64 bytes, 1 outstanding"
	# -T: a server that stops answering must not hold the run for
	# count * LOSS_MS; 20 requests/s is 10 times slower than seen
	load -d "$ip" -s 64 -n 1 -N "$count" -T $((30 + count / 20)) -o "$out/rtt-$name-r$r.txt" \
		> "$out/lat-$name-r$r.txt" 2>> "$out/load-$name.log"
	say "[$name $r] $(cat "$out/lat-$name-r$r.txt")"
	for s in $sizes; do
		say "[$name $r] throughput: $s bytes, $window outstanding over 4 flows, $secs s"
		load -d "$ip" -s "$s" -n "$window" -f 4 -T "$secs" -o "$out/trtt-$name-$s-r$r.txt" \
			> "$out/tput-$name-$s-r$r.txt" 2>> "$out/load-$name.log"
		say "[$name $r] $(cat "$out/tput-$name-$s-r$r.txt")"
	done
}

# serve NAME COMMAND...: start a server in the background (SRV_PID), its
# output in $out/server-NAME-rROUND.log
serve() {
	local name=$1
	shift
	SRV_LOG=$out/server-$name-r$round.log
	"$@" > "$SRV_LOG" 2>&1 &
	SRV_PID=$!
	say "[$name $round] server: $* (pid $SRV_PID)"
}

# schedstat PID: "run_ms wait_ms switches" summed over PID's threads:
# time on a CPU, time runnable but waiting for one, times scheduled in
schedstat() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null |
		awk '{r += $1; w += $2; n += $3} END {printf "run_ms=%d wait_ms=%d switches=%d", r / 1e6, w / 1e6, n}'
}

# stop_server NAME: SIGINT, then the server's totals
stop_server() {
	local dp
	echo "schedstat $(schedstat "$SRV_PID")" >> "$out/sched-$1-r$round.txt"
	if [ -e "$IXMOD_SYSFS/dataplane/cpu$SRV_CPU/pid" ]; then
		dp=$(cat "$IXMOD_SYSFS/dataplane/cpu$SRV_CPU/pid")
		echo "dataplane $(schedstat "$dp")" >> "$out/sched-$1-r$round.txt"
	fi
	say "[$1 $round] $(xargs < "$out/sched-$1-r$round.txt")"
	kill -INT "$SRV_PID" 2>/dev/null
	# a hung server must not hang the run
	if ! busywait 10000 sh -c "! kill -0 $SRV_PID"; then
		say "[$1 $round] server pid $SRV_PID ignored SIGINT; killing it"
		kill -KILL "$SRV_PID"
	fi
	wait "$SRV_PID" 2>/dev/null
	say "[$1 $round] $(tail -n1 "$SRV_LOG")"
}

# The dataplane thread polls whenever cores are assigned, so ixmod holds
# core $SRV_CPU only during its own turn: the Linux servers get it idle.
ixmod_up() {
	echo $SRV_CPU > "$IXMOD_SYSFS"/cores || return 1
	echo 1 > "$(port_dir)/up" || return 1
	busywait 10000 grep -q '^up' "$(port_dir)/link" || { say "ixmod link stays down"; return 1; }
	busywait 10000 peer ping -c1 -W1 "$DUT_IP" || { say "ixmod port never answered ping"; return 1; }
	# Down emptied ixmod's ARP table, but the peer still knows ixmod's
	# MAC and would not ask: the first echo would find no translation
	# (udp-echo drops a reply whose send returns -EAGAIN).  Make the peer
	# ask, so that ixmod learns its MAC before the measurement.
	ip -n "$PEER_NS" neigh flush to "$DUT_IP"
	busywait 10000 peer ping -c1 -W1 "$DUT_IP"
}

ixmod_down() {
	echo 0 > "$(port_dir)/up"
	echo "" > "$IXMOD_SYSFS"/cores
}

linux_server() {	# linux_server NAME COMMAND...
	local name=$1
	shift
	serve "$name" "$@"
	busywait 5000 sh -c "ss -uln | grep -q ':$PORT '"
	measure "$name" $LIN_IP
	stop_server "$name"
}

say "setting up: ixmod on the first igb (core $SRV_CPU, idle_us=$idle_us), Linux igb on the second, peer on the third"
dmesg_mark
if ! setup; then
	say "setup failed"
	ports_teardown
	exit 1
fi
printf '%s\n' "rounds=$rounds" "count=$count" "secs=$secs" "window=$window" \
	"sizes=$sizes" "idle_us=$idle_us" "uring_opts=$uring_opts" "app_cpu=$app_cpu" \
	> "$out/params.txt"
{
	echo "kernel $(uname -r), $(nproc --all) vCPUs, $(grep -o 'isolcpus=[^ ]*\|nohz_full=[^ ]*' /proc/cmdline | xargs)"
	echo "ixmod $DUT on core $SRV_CPU, idle_us=$idle_us; Linux $LIN ($LINIF); peer $PEER ($PEERIF)"
	echo "server threads on cpu $app_cpu, their kernel work on cpu $SRV_CPU, client on cpu $CLI_CPU"
	for d in "$LIN" "$PEER"; do
		for i in /sys/bus/pci/devices/"$d"/msi_irqs/*; do
			echo "$d irq ${i##*/} cpus $(cat "/proc/irq/${i##*/}/smp_affinity_list")"
		done
	done
} > "$out/env.txt"

for round in $(seq "$rounds"); do
	say "round $round of $rounds"
	if ixmod_up; then
		# udp-echo's threads go where the Linux servers' do: on the
		# dataplane core (shared) or on the client's (split)
		serve ixmod taskset -c "$app_cpu" "$ECHO" -p $PORT -c $SRV_CPU
		if busywait 10000 grep -q 'ready' "$SRV_LOG"; then
			measure ixmod "$DUT_IP"
		else
			say "[ixmod $round] udp-echo never became ready: $(cat "$SRV_LOG")"
		fi
		stop_server ixmod
	fi
	ixmod_down
	linux_server mmsg "$BENCH/udp-echo-mmsg" -p $PORT -t 1 -c "$app_cpu"
	# shellcheck disable=SC2086 # URING_OPTS is a list of options
	linux_server uring "$BENCH/udp-echo-uring" -p $PORT -t 1 -c "$app_cpu" $uring_opts
done

grep . "$(port_dir)"/stats/* "$(port_dir)"/drops/* 2>/dev/null |
	sed "s|$(port_dir)/||" > "$out/ixmod-stats.txt"
grep -E 'CPU|enp' /proc/interrupts >> "$out/env.txt"
ip link set "$LINIF" down
ip addr flush dev "$LINIF"
ports_teardown
rmmod ixmod
dmesg_since > "$out/dmesg.txt"
if dmesg_clean > /dev/null; then
	say "kernel log clean"
else
	say "kernel log reports errors: see $out/dmesg.txt"
fi
say "done"
