#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-tcp-guest.sh - the guest half of scripts/bench-tcp: the IX paper's
# TCP echo benchmark, tcp-load in the Linux peer namespace against
# libixu's tcp-echo on an igb port bound to ixmod, then against the Linux
# servers tcp-echo-epoll and tcp-echo-uring on a second igb port left to
# Linux's igb driver; ROUNDS times, in that order, so that a slow spell of
# the emulator falls on every server rather than on one.  With
# IXMOD_TEST_NIC=virtio in the environment, three virtio-net ports
# instead (Linux's under virtio_net; scripts/bench-guest-lib.sh); with
# IXMOD_TEST_NIC=softport, no NIC: ixmod's software port against the
# Linux servers on loopback in the client's namespace.
#
# Usage (inside the VM):
#   bench-tcp-guest.sh OUTDIR IXMOD_KO SECONDS CONNS NLIST SIZES IDLE_US
#                      EPOLL_OPTS URING_OPTS ROUNDS APP_CPU MODES MARK PROF
#                      TUNE SWEEP
#
# Layout (scripts/bench-guest-lib.sh): ixmod's port 198.18.0.1, Linux's
# 198.18.0.3, the peer 198.18.0.2; the client on CPU 0; each server's
# kernel work on CPU 1 (isolcpus=1 nohz_full=1), its own thread on
# APP_CPU: 1 (shared: one CPU per server) or 0 (split: beside the client).
#
# MODES: ixmod's execution modes, any of "kthread" (server NAME ixmod:
# the dataplane core's kernel thread runs the loop) and "colo" (ixmod-colo:
# tcp-echo -C, its thread on the dataplane core runs the loop itself).
# MARK: the icount plugin's mark program (tools/bench/icount), or "-" when
# the VM runs without the plugin.  With it, each server's turn starts with
# an unloaded calibration window of CALIB_S seconds between two marks, and
# tcp-load -M marks each point's measured window; marks.txt names every
# mark in order ("calib NAME-rR start|end [idle=N]", "point NAME-nN-sS-rR"
# for the two of tcp-load, whose result line has the idle counter).
# PROF 1: the plugin also profiles the server's vCPU; the guest's
# /proc/kallsyms, ixmod's symbols included, goes to kallsyms.txt.
# TUNE 1: in round 1, after each ixmod server's points, extra load (n=64,
# 64 B, stopped once the tools are done: they take tens of seconds to
# start under TCG) under the operator's tools: tune-NAME-perf.txt (perf
# stat -e 'ixmod:*' over 2 s), tune-NAME-trace.txt (trace-cmd record -e
# ixmod over 1 s, reported), tune-NAME-stat.txt (scripts/ixmod-stat,
# two reports a second apart).
#
# For each server NAME (ixmod, ixmod-colo, epoll, uring), round R, rounds per
# connection N in NLIST and message size S in SIZES, tcp-load keeps CONNS
# connections busy for SECONDS and writes
#   res-NAME-nN-sS-rR.txt   its result line
#   hist-NAME-nN-sS-rR.txt  its message latency histogram (us count)
#   res-NAME-n64-s64-cC-rR.txt, hist-...  the load sweep: the same with
#                           C connections for each C in SWEEP, 64 rounds
#                           of 64 B (C=1: the latency row, closed loop)
#   snmp-NAME-nN-sS-rR-a.txt, -b.txt  the peer namespace's /proc/net/snmp
#                           before and after: the client's TCP counters,
#                           so the server's segments are the client's
#                           InSegs, whichever stack sent them
#   ixtcp-NAME-nN-sS-rR-a.txt, -b.txt  for an ixmod server, its core's
#                           tcp_delayed_acks before and after
# and per server and round
#   warm-NAME-rR.txt        the result line of a 1 s warm-up (N 64, S 64)
#   server-NAME-rR.log      the server's own output (its totals)
#   sched-NAME-rR.txt       the server's threads' (and ixmod's dataplane
#                           thread's) CPU time, run-queue wait and switches
#   load-NAME.log           tcp-load's progress and errno lines
#   NAME-dataplane-rR.txt   ixmod's per-core counters after its turn (TCP's
#                           included)
#   reflect-rR.txt          udp-load's result line against ixmod's port
#                           with udp_reflect on (no server: the port sends
#                           each datagram back), 64 bytes, 8 outstanding
#                           over 4 flows, SECONDS: the driver's ceiling
# and params.txt (the arguments, KEY=VALUE), env.txt (kernel, CPUs,
# interrupt placement and counts), ixmod-stats.txt (the port's counters
# and drop reasons) and dmesg.txt (the kernel log of the run).

set -u
out=$1
export IXMOD_KO=$2
secs=$3
conns=$4
nlist=$5
sizes=$6
idle_us=$7
epoll_opts=$8
uring_opts=$9
rounds=${10}
app_cpu=${11}
modes=${12}
mark_bin=${13}
prof=${14}
tune=${15}
sweep=${16}
[ "$mark_bin" = - ] && mark_bin=""
CALIB_S=2
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../tools/testing/selftests/ixmod/test_common.sh
. "$top/tools/testing/selftests/ixmod/test_common.sh"
# shellcheck source-path=SCRIPTDIR source=bench-guest-lib.sh
. "$top/scripts/bench-guest-lib.sh"
BENCH=bench-tcp
mkdir -p "$out"

ECHO=$top/libixu/examples/tcp-echo
LOAD=$top/tools/bench/tcp/tcp-load
UDPLOAD=$top/tools/bench/udp/udp-load
SRVS=$top/tools/bench/tcp
PORT=7
TIMEOUT_MS=5000	# TCG stalls reach a second, and a lost SYN waits 1 s more

load() {	# load ARGS...: tcp-load on the client CPU in the peer namespace
	peer "$LOAD" -p $PORT -C $BENCH_CLI_CPU -L $TIMEOUT_MS "$@"
}

# measure NAME IP: a warm-up, then every point of the matrix, in round $round
measure() {
	local name=$1 ip=$2 r=$round n s
	say "[$name $r] warm-up: 1 s, $conns connections, 64 rounds of 64 bytes"
	load -a "$ip" -c "$conns" -n 64 -s 64 -d 1 > "$out/warm-$name-r$r.txt" 2>> "$out/load-$name.log"
	say "[$name $r] $(cat "$out/warm-$name-r$r.txt")"
	for n in $nlist; do
		for s in $sizes; do
			point "$name" "$ip" "$conns" "$n" "$s" "$name-n$n-s$s-r$r"
		done
	done
	# the offered load: C connections, each closed loop
	for c in $sweep; do
		point "$name" "$ip" "$c" 64 64 "$name-n64-s64-c$c-r$r"
	done
}

# ixtcp NAME: for an ixmod server, the ACKs its core's delayed-ACK timer
# sent (a "name value" line); nothing for Linux
ixtcp() {
	local f=$IXMOD_SYSFS/dataplane/cpu$BENCH_SRV_CPU/stats/tcp_delayed_acks
	[ "${1%%-*}" = ixmod ] && [ -r "$f" ] || return 0
	echo "tcp_delayed_acks $(cat "$f")"
}

# point NAME IP CONNS N S KEY: one measured point, its files named by KEY
point() {
	local name=$1 ip=$2 c=$3 n=$4 s=$5 f=$6 marks=() w
	if [ -n "$mark_bin" ]; then
		marks=(-M)
		w=$(idle_stat "$name") && marks+=(-W "$w")
		echo "point $f" >> "$out/marks.txt"
	fi
	say "[$name $round] n=$n s=$s: $c connections, $n rounds of $s bytes each, $secs s"
	echo "== n=$n s=$s c=$c round $round" >> "$out/load-$name.log"
	peer cat /proc/net/snmp > "$out/snmp-$f-a.txt"
	ixtcp "$name" > "$out/ixtcp-$f-a.txt"
	load -a "$ip" -c "$c" -n "$n" -s "$s" -d "$secs" -H "$out/hist-$f.txt" \
		"${marks[@]}" > "$out/res-$f.txt" 2>> "$out/load-$name.log"
	peer cat /proc/net/snmp > "$out/snmp-$f-b.txt"
	ixtcp "$name" > "$out/ixtcp-$f-b.txt"
	say "[$name $round] n=$n s=$s c=$c: $(cat "$out/res-$f.txt")"
}

# tuning_capture NAME IP: what perf, trace-cmd and ixmod-stat show of
# the server under load (TUNE), outside any measured point
tuning_capture() {
	local name=$1 ip=$2 lp
	[ "$tune" = 1 ] && [ "$round" = 1 ] || return 0
	say "[$name] tuning capture: perf stat, trace-cmd and ixmod-stat under load"
	load -a "$ip" -c "$conns" -n 64 -s 64 -d 600 > /dev/null 2>> "$out/load-$name.log" &
	lp=$!
	sleep 2
	perf stat -e 'ixmod:*' -a -o "$out/tune-$name-perf.txt" -- sleep 2 > /dev/null 2>&1 ||
		say "[$name] perf stat failed"
	trace-cmd record -q -e ixmod -o "/tmp/trace-$name.dat" -- sleep 1 > /dev/null 2>&1 &&
		trace-cmd report -i "/tmp/trace-$name.dat" 2>/dev/null |
		head -n 5000 > "$out/tune-$name-trace.txt"
	"$top/scripts/ixmod-stat" -i 1 -c 2 > "$out/tune-$name-stat.txt" 2>&1
	# the load's tcp-load, not the netns wrapper alone
	pkill -INT -f "tcp-load -p $PORT" 2>/dev/null
	wait "$lp"
}

# reachable IP: a TCP connection from the peer to IP:PORT opens
reachable() {
	peer timeout 5 bash -c "exec 3<>/dev/tcp/$1/$PORT"
}

linux_server() {	# linux_server NAME COMMAND...
	local name=$1
	shift
	serve "$name" "${BENCH_LIN_RUN[@]}" "$@"
	if busywait 10000 reachable $BENCH_LIN_IP; then
		calibrate "$name"
		measure "$name" $BENCH_LIN_IP
	else
		say "[$name $round] server never accepted: $(cat "$SRV_LOG")"
	fi
	stop_server "$name"
}

if [ "$IXMOD_TEST_NIC" = softport ]; then
	say "setting up: ixmod's software port (core $BENCH_SRV_CPU, idle_us=$idle_us), the Linux servers on loopback beside the client"
else
	say "setting up: ixmod on the first $BENCH_NIC (core $BENCH_SRV_CPU, idle_us=$idle_us), Linux $NIC_DRIVER on the second, peer on the third"
fi
dmesg_mark
if ! bench_setup "$idle_us"; then
	say "setup failed"
	ports_teardown
	exit 1
fi
# The client closes first: its TIME_WAIT sockets must not run it out of
# ports for the next connection to the same server
peer sysctl -qw net.ipv4.ip_local_port_range="1024 65535" net.ipv4.tcp_tw_reuse=1
printf '%s\n' "rounds=$rounds" "secs=$secs" "conns=$conns" "nlist=$nlist" \
	"sizes=$sizes" "idle_us=$idle_us" "epoll_opts=$epoll_opts" \
	"uring_opts=$uring_opts" "app_cpu=$app_cpu" "modes=$modes" "sweep=$sweep" \
	"icount=$([ -n "$mark_bin" ] && echo 1 || echo 0)" "calib_s=$CALIB_S" \
	"nic=$BENCH_NIC" "nic_backend=$(vnet_backend)" > "$out/params.txt"
bench_env "$idle_us" "$app_cpu"
# ixmod stays loaded until bench_finish: its symbols are in the list
[ "$prof" = 1 ] && cat /proc/kallsyms > "$out/kallsyms.txt"

for round in $(seq "$rounds"); do
	say "round $round of $rounds"
	for mode in $modes; do
		name=ixmod cpu=$app_cpu colo=()
		if [ "$mode" = colo ]; then
			# the application thread runs the loop: on the dataplane core
			name=ixmod-colo cpu=$BENCH_SRV_CPU colo=(-C)
		fi
		if ! has_tcp; then
			say "[$name $round] the module lacks IXMOD_FEAT_TCP: no ixmod figures"
		elif ixmod_up; then
			# tcp-echo's threads go where the Linux servers' do: on
			# the dataplane core (shared) or on the client's (split)
			serve "$name" taskset -c "$cpu" "$ECHO" -p $PORT -c $BENCH_SRV_CPU "${colo[@]}"
			if busywait 10000 grep -q 'ready' "$SRV_LOG"; then
				calibrate "$name"
				measure "$name" "$DUT_IP"
				tuning_capture "$name" "$DUT_IP"
			else
				say "[$name $round] tcp-echo never became ready: $(cat "$SRV_LOG")"
			fi
			stop_server "$name"
			grep . "$IXMOD_SYSFS"/dataplane/cpu*/stats/* 2>/dev/null |
				sed "s|$IXMOD_SYSFS/dataplane/||" > "$out/$name-dataplane-r$round.txt"
		fi
		ixmod_down
	done
	# the driver limit: the same port and core reflecting UDP, no TCP
	if ixmod_up; then
		say "[reflect $round] udp_reflect on: 64 B, 8 outstanding over 4 flows, $secs s"
		echo 1 > "$(port_dir)/udp_reflect"
		peer "$UDPLOAD" -d "$DUT_IP" -p 9 -s 64 -n 8 -f 4 -T "$secs" -c $BENCH_CLI_CPU \
			> "$out/reflect-r$round.txt" 2>> "$out/load-reflect.log"
		echo 0 > "$(port_dir)/udp_reflect"
		say "[reflect $round] $(cat "$out/reflect-r$round.txt")"
	fi
	ixmod_down
	# shellcheck disable=SC2086 # the options are a list
	linux_server epoll "$SRVS/tcp-echo-epoll" -p $PORT -c "$app_cpu" $epoll_opts
	# shellcheck disable=SC2086
	linux_server uring "$SRVS/tcp-echo-uring" -p $PORT -c "$app_cpu" $uring_opts
done

bench_finish
say "done"
