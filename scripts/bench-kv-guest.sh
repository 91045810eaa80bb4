#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-kv-guest.sh - the guest half of scripts/bench-kv: the key-value
# benchmark of issue 18, kvload (open loop, Poisson arrivals, Facebook's
# ETC and USR workloads) in the Linux peer namespace against kv-ixev on an
# igb port bound to ixmod, then against kv-epoll, kv-uring and Debian's
# memcached on a second igb port left to Linux's igb driver; ROUNDS times,
# in that order, so that a slow spell of the emulator falls on every
# server rather than on one.
#
# Usage (inside the VM):
#   bench-kv-guest.sh OUTDIR IXMOD_KO SECONDS CONNS RATES WORKLOADS IDLE_US
#                     ROUNDS MODES MARK KEYS
#
# Layout (scripts/bench-guest-lib.sh): ixmod's port 198.18.0.1, Linux's
# 198.18.0.3, the peer 198.18.0.2; kvload on CPU 0; each server's kernel
# work (ixmod's dataplane thread, or Linux's NIC interrupts and softirq)
# and its own threads on CPU 1 (isolcpus=1 nohz_full=1): one CPU per
# server.  Every server has one thread serving (kv-epoll and kv-uring -t
# 1, memcached -t 1: memcached's helper threads share CPU 1 too) and 64
# MiB of store.
#
# MODES: ixmod's execution modes, any of "kthread" (server NAME ixmod:
# the dataplane core's kernel thread runs the loop) and "colo" (ixmod-colo:
# kv-ixev -C, its thread on the dataplane core runs the loop itself).
# MARK: the icount plugin's mark program (tools/bench/icount), or "-" when
# the VM runs without the plugin.  With it, each server's turn starts with
# an unloaded calibration window of CALIB_S seconds between two marks, and
# kvload -M marks each point's measured window (--watch: ixmod's idle
# iterations at both marks); marks.txt names every mark in order
# ("calib NAME-rR start|end [idle=N]", "point KEY" for kvload's two).
#
# For each server NAME (ixmod, ixmod-colo, epoll, uring, memcached), round
# R and workload WL in WORKLOADS, kvload first sets every one of KEYS keys
# (--preload, then a 1 s run at 100/s: preload-NAME-WL-rR.json), then for
# each offered rate RATE in RATES runs 1 s of warm-up and SECONDS measured
# over CONNS connections and writes
#   kv-NAME-WL-RATE-rR.json   kvload's JSON (the point's KEY is
#                             NAME-WL-RATE-rR)
#   log-NAME-WL-RATE-rR.txt   kvload's summary
# and per server and round
#   server-NAME-rR.log        the server's own output
#   sched-NAME-rR.txt         the server's threads' (and ixmod's dataplane
#                             thread's) CPU time, run-queue wait, switches
#   load-NAME.log             kvload's errors
#   NAME-dataplane-rR.txt     ixmod's per-core counters after its turn
# and params.txt (the arguments, KEY=VALUE), env.txt (kernel, CPUs,
# interrupt placement and counts), ixmod-stats.txt (the port's counters
# and drop reasons) and dmesg.txt (the kernel log of the run).

set -u
out=$1
export IXMOD_KO=$2
secs=$3
conns=$4
rates=$5
workloads=$6
idle_us=$7
rounds=$8
modes=$9
mark_bin=${10}
keys=${11}
[ "$mark_bin" = - ] && mark_bin=""
CALIB_S=2
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../tools/testing/selftests/ixmod/test_common.sh
. "$top/tools/testing/selftests/ixmod/test_common.sh"
# shellcheck source-path=SCRIPTDIR source=bench-guest-lib.sh
. "$top/scripts/bench-guest-lib.sh"
BENCH=bench-kv
mkdir -p "$out"

KV=$top/libixu/examples/kv
KVLOAD=$top/tools/bench/kvload/kvload
MEMCACHED=/usr/bin/memcached
PORT=11211
WARM_S=1
APP_CPU=$BENCH_SRV_CPU

# kvload IP WL ARGS...: kvload on the client CPU in the peer namespace,
# the generator polling nothing (--spin-us 0: CPU 0 also takes the peer
# NIC's interrupts)
kvload() {
	local ip=$1 wl=$2
	shift 2
	peer taskset -c $BENCH_CLI_CPU "$KVLOAD" -s "$ip:$PORT" -W "$wl" -k "$keys" \
		-c "$conns" --spin-us 0 -q "$@"
}

# jget FILE KEY...: the JSON object's figures, space-separated ("-" when
# missing)
jget() {
	python3 -c 'import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    d = {}
print(" ".join("%s=%s" % (k, d.get(k, "-")) for k in sys.argv[2:]))' "$@"
}

# measure NAME IP: for each workload, the preload, then every rate
measure() {
	local name=$1 ip=$2 r=$round wl rate f
	for wl in $workloads; do
		f=preload-$name-$wl-r$r
		say "[$name $r] $wl: preloading $keys keys"
		kvload "$ip" "$wl" --preload -r 100 -d 1 -w 0 -o "$out/$f.json" \
			> "$out/log-$f.txt" 2>> "$out/load-$name.log"
		say "[$name $r] $wl: preload $(jget "$out/$f.json" preload_sets preload_errors)"
		for rate in $rates; do
			point "$name" "$ip" "$wl" "$rate" "$name-$wl-$rate-r$r"
		done
	done
}

# point NAME IP WL RATE KEY: one measured point, its files named by KEY
point() {
	local name=$1 ip=$2 wl=$3 rate=$4 f=$5 marks=() w
	if [ -n "$mark_bin" ]; then
		marks=(-M)
		w=$(idle_stat "$name") && marks+=(--watch "$w")
	fi
	say "[$name $round] $wl at $rate/s: $conns connections, $WARM_S s warm-up, $secs s"
	echo "== $wl rate=$rate round $round" >> "$out/load-$name.log"
	kvload "$ip" "$wl" -r "$rate" -d "$secs" -w $WARM_S -o "$out/kv-$f.json" \
		"${marks[@]}" > "$out/log-$f.txt" 2>> "$out/load-$name.log"
	# kvload's two marks, named once they are known to have been placed
	if [ -n "$mark_bin" ] && grep -q '"marks": 2' "$out/kv-$f.json" 2>/dev/null; then
		echo "point $f" >> "$out/marks.txt"
	fi
	say "[$name $round] $wl at $rate/s: $(jget "$out/kv-$f.json" achieved p50_us \
		p99_us p999_us late errors misses lost)"
}

# reachable IP: a TCP connection from the peer to IP:PORT opens
reachable() {
	peer timeout 5 bash -c "exec 3<>/dev/tcp/$1/$PORT"
}

linux_server() {	# linux_server NAME COMMAND...
	local name=$1
	shift
	# A background job of this shell starts with SIGINT ignored, and
	# kv-epoll and kv-uring keep that: give them the default back, so
	# that stop_server's SIGINT ends them
	serve "$name" env --default-signal=INT taskset -c $APP_CPU "$@"
	if busywait 10000 reachable $BENCH_LIN_IP; then
		calibrate "$name"
		measure "$name" $BENCH_LIN_IP
	else
		say "[$name $round] server never accepted: $(cat "$SRV_LOG")"
	fi
	stop_server "$name"
}

say "setting up: ixmod on the first igb (core $BENCH_SRV_CPU, idle_us=$idle_us), Linux igb on the second, peer on the third"
dmesg_mark
if ! bench_setup "$idle_us"; then
	say "setup failed"
	ports_teardown
	exit 1
fi
printf '%s\n' "rounds=$rounds" "secs=$secs" "conns=$conns" "rates=$rates" \
	"workloads=$workloads" "idle_us=$idle_us" "modes=$modes" "keys=$keys" \
	"warm_s=$WARM_S" "app_cpu=$APP_CPU" \
	"icount=$([ -n "$mark_bin" ] && echo 1 || echo 0)" "calib_s=$CALIB_S" > "$out/params.txt"
bench_env "$idle_us" "$APP_CPU"
"$MEMCACHED" -V > "$out/memcached-version.txt" 2>&1

for round in $(seq "$rounds"); do
	say "round $round of $rounds"
	for mode in $modes; do
		name=ixmod colo=()
		[ "$mode" = colo ] && name=ixmod-colo colo=(-C)
		if ! has_tcp; then
			say "[$name $round] the module lacks IXMOD_FEAT_TCP: no ixmod figures"
		elif ixmod_up; then
			serve "$name" taskset -c $APP_CPU "$KV/kv-ixev" -p $PORT -c $BENCH_SRV_CPU "${colo[@]}"
			if busywait 10000 grep -q 'ready' "$SRV_LOG"; then
				calibrate "$name"
				measure "$name" "$DUT_IP"
			else
				say "[$name $round] kv-ixev never became ready: $(cat "$SRV_LOG")"
			fi
			stop_server "$name"
			grep . "$IXMOD_SYSFS"/dataplane/cpu*/stats/* 2>/dev/null |
				sed "s|$IXMOD_SYSFS/dataplane/||" > "$out/$name-dataplane-r$round.txt"
		fi
		ixmod_down
	done
	linux_server epoll "$KV/kv-epoll" -p $PORT -t 1 -l $BENCH_LIN_IP
	linux_server uring "$KV/kv-uring" -p $PORT -t 1 -l $BENCH_LIN_IP
	# Debian's, as a reference: one worker thread, no UDP, as nobody
	linux_server memcached "$MEMCACHED" -p $PORT -t 1 -U 0 -u nobody -l $BENCH_LIN_IP -m 64
done

bench_finish
say "done"
