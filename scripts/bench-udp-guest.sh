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

# shellcheck source-path=SCRIPTDIR source=bench-guest-lib.sh
. "$top/scripts/bench-guest-lib.sh"
BENCH=bench-udp
ECHO=$top/libixu/examples/udp-echo
TOOLS=$top/tools/bench/udp
PORT=7
LOSS_MS=2000	# TCG stalls reach a second: only longer is a real loss

load() {	# load ARGS...: udp-load on the client CPU in the peer namespace
	peer "$TOOLS/udp-load" -p $PORT -c $BENCH_CLI_CPU -L $LOSS_MS "$@"
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

linux_server() {	# linux_server NAME COMMAND...
	local name=$1
	shift
	serve "$name" "$@"
	busywait 5000 sh -c "ss -uln | grep -q ':$PORT '"
	measure "$name" $BENCH_LIN_IP
	stop_server "$name"
}

say "setting up: ixmod on the first igb (core $BENCH_SRV_CPU, idle_us=$idle_us), Linux igb on the second, peer on the third"
dmesg_mark
if ! bench_setup "$idle_us"; then
	say "setup failed"
	ports_teardown
	exit 1
fi
printf '%s\n' "rounds=$rounds" "count=$count" "secs=$secs" "window=$window" \
	"sizes=$sizes" "idle_us=$idle_us" "uring_opts=$uring_opts" "app_cpu=$app_cpu" \
	> "$out/params.txt"
bench_env "$idle_us" "$app_cpu"

for round in $(seq "$rounds"); do
	say "round $round of $rounds"
	if ixmod_up; then
		# udp-echo's threads go where the Linux servers' do: on the
		# dataplane core (shared) or on the client's (split)
		serve ixmod taskset -c "$app_cpu" "$ECHO" -p $PORT -c $BENCH_SRV_CPU
		if busywait 10000 grep -q 'ready' "$SRV_LOG"; then
			measure ixmod "$DUT_IP"
		else
			say "[ixmod $round] udp-echo never became ready: $(cat "$SRV_LOG")"
		fi
		stop_server ixmod
	fi
	ixmod_down
	linux_server mmsg "$TOOLS/udp-echo-mmsg" -p $PORT -t 1 -c "$app_cpu"
	# shellcheck disable=SC2086 # URING_OPTS is a list of options
	linux_server uring "$TOOLS/udp-echo-uring" -p $PORT -t 1 -c "$app_cpu" $uring_opts
done

bench_finish
say "done"
