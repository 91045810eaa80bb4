#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-udp-guest.sh - the guest half of scripts/bench-udp: UDP echo
# latency and throughput from udp-load in the Linux peer namespace to
# libixu's udp-echo on an igb port bound to ixmod, then to the Linux
# servers udp-echo-mmsg and udp-echo-uring on a second igb port left to
# Linux's igb driver; ROUNDS times, in that order, so that a slow spell of
# the emulator falls on every server rather than on one.  With
# IXMOD_TEST_NIC=virtio in the environment, three virtio-net ports
# instead (Linux's under virtio_net; scripts/bench-guest-lib.sh).
#
# Usage (inside the VM):
#   bench-udp-guest.sh OUTDIR IXMOD_KO COUNT SECONDS WINDOW SIZES IDLE_US
#                      URING_OPTS ROUNDS APP_CPU MODES MARK
#
# The VM has 2 vCPUs and 3 igb NICs on one QEMU hub (or virtio-net NICs
# on one bridge): the first is ixmod's (198.18.0.1), the second Linux's
# (198.18.0.3, root namespace), the third the peer's (198.18.0.2,
# namespace ixpeer).  The client and the peer NIC's interrupts have
# CPU 0.  Every server's kernel work has CPU 1 (isolcpus=1
# nohz_full=1): ixmod's dataplane thread, or the interrupts (hence the
# softirq work) of every queue of Linux's NIC.  The server's own thread
# (udp-echo, udp-echo-mmsg, udp-echo-uring) is pinned to APP_CPU: 1
# (shared: one CPU per server) or 0 (split: it shares the client's CPU).
#
# MODES: ixmod's execution modes, any of "kthread" (server NAME ixmod:
# the dataplane core's kernel thread runs the loop) and "colo" (ixmod-colo:
# udp-echo -C, its thread on the dataplane core runs the loop itself).
# MARK: the icount plugin's mark program (tools/bench/icount), or "-" when
# the VM runs without the plugin.  With it, each server's turn starts with
# an unloaded calibration window of CALIB_S seconds between two marks, and
# udp-load -M marks the measured window of each phase but the warm-up;
# marks.txt names every mark in order ("calib NAME-rR start|end [idle=N]",
# and "point KEY" for the two of udp-load, KEY its result file's name
# without .txt, whose line has ixmod's idle counter at both).
#
# For each server NAME (ixmod, ixmod-colo, mmsg, uring) and round R it
# writes
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
modes=${11}
mark_bin=${12}
[ "$mark_bin" = - ] && mark_bin=""
CALIB_S=2
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

# point KEY: with the plugin, names the two marks udp-load -M places next
point() {
	[ -z "$mark_bin" ] || echo "point $1" >> "$out/marks.txt"
}

# measure NAME IP: warm-up, closed loop, then throughput for each size,
# in round $round
measure() {
	local name=$1 ip=$2 r=$round s marks=() w
	if [ -n "$mark_bin" ]; then
		marks=(-M)
		w=$(idle_stat "$name") && marks+=(-W "$w")
	fi
	say "[$name $r] warm-up (200 requests)"
	load -d "$ip" -s 64 -N 200 -T 60 > "$out/warm-$name-r$r.txt" 2>> "$out/load-$name.log"
	say "[$name $r] $(cat "$out/warm-$name-r$r.txt")"
	say "[$name $r] closed loop: $count requests of 64 bytes, 1 outstanding"
	point "lat-$name-r$r"
	# -T: a server that stops answering must not hold the run for
	# count * LOSS_MS; 20 requests/s is 10 times slower than seen
	load -d "$ip" -s 64 -n 1 -N "$count" -T $((30 + count / 20)) -o "$out/rtt-$name-r$r.txt" \
		"${marks[@]}" > "$out/lat-$name-r$r.txt" 2>> "$out/load-$name.log"
	say "[$name $r] $(cat "$out/lat-$name-r$r.txt")"
	for s in $sizes; do
		say "[$name $r] throughput: $s bytes, $window outstanding over 4 flows, $secs s"
		point "tput-$name-$s-r$r"
		load -d "$ip" -s "$s" -n "$window" -f 4 -T "$secs" -o "$out/trtt-$name-$s-r$r.txt" \
			"${marks[@]}" > "$out/tput-$name-$s-r$r.txt" 2>> "$out/load-$name.log"
		say "[$name $r] $(cat "$out/tput-$name-$s-r$r.txt")"
	done
}

linux_server() {	# linux_server NAME COMMAND...
	local name=$1
	shift
	serve "$name" "$@"
	busywait 5000 sh -c "ss -uln | grep -q ':$PORT '"
	calibrate "$name"
	measure "$name" $BENCH_LIN_IP
	stop_server "$name"
}

say "setting up: ixmod on the first $BENCH_NIC (core $BENCH_SRV_CPU, idle_us=$idle_us), Linux $NIC_DRIVER on the second, peer on the third"
dmesg_mark
if ! bench_setup "$idle_us"; then
	say "setup failed"
	ports_teardown
	exit 1
fi
printf '%s\n' "rounds=$rounds" "count=$count" "secs=$secs" "window=$window" \
	"sizes=$sizes" "idle_us=$idle_us" "uring_opts=$uring_opts" "app_cpu=$app_cpu" \
	"modes=$modes" "icount=$([ -n "$mark_bin" ] && echo 1 || echo 0)" \
	"calib_s=$CALIB_S" \
	"nic=$BENCH_NIC" "nic_backend=$(vnet_backend)" > "$out/params.txt"
bench_env "$idle_us" "$app_cpu"

for round in $(seq "$rounds"); do
	say "round $round of $rounds"
	for mode in $modes; do
		name=ixmod cpu=$app_cpu colo=()
		if [ "$mode" = colo ]; then
			# the application thread runs the loop: on the dataplane core
			name=ixmod-colo cpu=$BENCH_SRV_CPU colo=(-C)
		fi
		if ixmod_up; then
			# udp-echo's threads go where the Linux servers' do: on
			# the dataplane core (shared) or on the client's (split)
			serve "$name" taskset -c "$cpu" "$ECHO" -p $PORT -c $BENCH_SRV_CPU "${colo[@]}"
			if busywait 10000 grep -q 'ready' "$SRV_LOG"; then
				calibrate "$name"
				measure "$name" "$DUT_IP"
			else
				say "[$name $round] udp-echo never became ready: $(cat "$SRV_LOG")"
			fi
			stop_server "$name"
		fi
		ixmod_down
	done
	linux_server mmsg "$TOOLS/udp-echo-mmsg" -p $PORT -t 1 -c "$app_cpu"
	# shellcheck disable=SC2086 # URING_OPTS is a list of options
	linux_server uring "$TOOLS/udp-echo-uring" -p $PORT -t 1 -c "$app_cpu" $uring_opts
done

bench_finish
say "done"
