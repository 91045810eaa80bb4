#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The co-located mode (IXMOD_IOC_RUN, libixu's IXU_MODE_COLOCATED): each
# thread of udp-echo -C and tcp-echo -C runs its core's loop itself.
# Linux's UDP and TCP in the peer namespace get their echo byte for byte;
# the cores say "application TID" in their mode file and count runs; an
# application stopped outside the call (SIGSTOP) loses its core to the
# kernel thread, which serves it meanwhile (ping), and gets it back when
# it continues; a signal ends the program cleanly; an owner killed while
# it sleeps inside the call leaves the core to its thread with nothing
# held; entering the call does not wake the parked thread;
# colo_probe checks the call's rules (EINVAL, EBUSY, EINTR, ETIME).

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

ECHO=$_here/../../../../libixu/examples/udp-echo
TCP_ECHO=$_here/../../../../libixu/examples/tcp-echo
CHECK=$_here/udp_check.py
TCP_CHECK=$_here/tcp_check.py
PROBE=$_here/colo_probe
LOG=$(mktemp)
trap 'rm -f "$LOG" "$LOG.probe"' EXIT
NTESTS=19

core_stat() { cat "$IXMOD_SYSFS/dataplane/cpu$1/stats/$2"; }
# context switches of core $1's kernel thread so far
thread_switches() {
	awk '/ctxt_switches/ { n += $2 } END { print n }' \
		"/proc/$(cat "$IXMOD_SYSFS/dataplane/cpu$1/pid")/status"
}
mode_is() { grep -q "^$2" "$IXMOD_SYSFS/dataplane/cpu$1/mode"; }
start_echo() {
	"$ECHO" "$@" > "$LOG" 2>&1 &
	ECHO_PID=$!
}
echo_ready() {
	busywait 10000 grep -q 'ready\|udp-echo: cpu' "$LOG"
	grep -q ready "$LOG"
}

port_test_begin $NTESTS
echo 1000 > "$IXMOD_SYSFS/away_us"

check "both cores start in the kernel thread's mode" \
	bash -c "[ \"\$(cat $IXMOD_SYSFS/dataplane/cpu1/mode)\" = thread ] &&
		 [ \"\$(cat $IXMOD_SYSFS/dataplane/cpu2/mode)\" = thread ]"
runs1=$(core_stat 1 runs)
start_echo -p 7 -C
check "udp-echo -C attaches a thread to each of cores 1 and 2" echo_ready
check "each core's mode names the application thread" \
	bash -c "grep -q '^application [0-9]' $IXMOD_SYSFS/dataplane/cpu1/mode &&
		 grep -q '^application [0-9]' $IXMOD_SYSFS/dataplane/cpu2/mode"
check "every size from 1 to 1472 bytes echoes byte for byte" \
	peer "$PY" "$CHECK" $DUT_IP 7 --sizes 1-1472
check "16 flows of 20 datagrams echo byte for byte" \
	peer "$PY" "$CHECK" $DUT_IP 7 --flows 16 --count 20
check "the application ran core 1's loop (runs $runs1 -> $(core_stat 1 runs))" \
	holds -gt "$runs1" core_stat 1 runs

# The parked kernel thread stays parked: neither the queue interrupt that
# wakes the application sleeping in the call (idle_us 1: it sleeps
# between datagrams) nor the call's return wakes it (away_us long, so
# that it does not look on its own either).
echo 10000000 > "$IXMOD_SYSFS/away_us"
echo 1 > "$IXMOD_SYSFS/idle_us"
sw0=$(thread_switches 1)
wk0=$(core_stat 1 wakeups)
runs0=$(core_stat 1 runs)
peer "$PY" "$CHECK" $DUT_IP 7 --flows 16 --count 20 > /dev/null
sw=$(($(thread_switches 1) - sw0))
runs=$(($(core_stat 1 runs) - runs0))
wk=$(($(core_stat 1 wakeups) - wk0))
check "core 1's thread stays parked: $sw context switches over $runs calls, $wk wakes from sleep" \
	test "$runs" -ge 20 -a "$wk" -ge 10 -a "$sw" -le $((wk / 10 + 2))

# A shorter away_us takes effect at once: the parked threads, waiting
# out the 10 s they read while the application polled inside the call
# (idle_us 0), look again under the new value.
echo 0 > "$IXMOD_SYSFS/idle_us"
sleep 0.5
echo 1000 > "$IXMOD_SYSFS/away_us"
echo 1000 > "$IXMOD_SYSFS/idle_us"

# stopped outside the call: the kernel thread takes the core back
take0=$(core_stat 1 takeovers)
kill -STOP "$ECHO_PID"
both_taken() {
	mode_is 1 'application [0-9]* taken' && mode_is 2 'application [0-9]* taken'
}
check "stopped, the application loses its cores to the kernel thread at once" \
	busywait 5000 both_taken
# ping answered within 5 s, or what the cores did meanwhile
ping_served() {
	busywait 5000 peer ping -c 1 -W 1 $DUT_IP && return
	for c in 1 2; do
		echo "cpu$c: $(cat "$IXMOD_SYSFS/dataplane/cpu$c/mode"), wakeups $(core_stat $c wakeups), sleeps $(core_stat $c sleeps), iterations $(core_stat $c iterations)"
	done
	return 1
}
check "which serves them meanwhile (ping answered)" ping_served
check "and counts the takeover ($take0 -> $(core_stat 1 takeovers))" \
	holds -gt "$take0" core_stat 1 takeovers
kill -CONT "$ECHO_PID"
check "continued, it echoes again" peer "$PY" "$CHECK" $DUT_IP 7 --sizes 1000-1010
kill -INT "$ECHO_PID"
wait "$ECHO_PID"
echo_rc=$?
sed 's/^/# /' "$LOG"
check "SIGINT ends it cleanly (status $echo_rc), the cores go back to the thread" \
	bash -c "[ $echo_rc -eq 0 ] && [ \"\$(cat $IXMOD_SYSFS/dataplane/cpu1/mode)\" = thread ]"

# killed while it sleeps inside IXMOD_IOC_RUN
start_echo -p 7 -C
echo_ready || echo "# udp-echo did not start: $(cat "$LOG")"
busywait 5000 mode_is 1 'application [0-9]* inside'
kill -KILL "$ECHO_PID"
wait "$ECHO_PID" 2>/dev/null
check "killed inside the call: the core is the thread's again" \
	busywait 5000 mode_is 1 thread
check "with nothing held (bufs_held 0)" busywait 5000 bufs_held_zero
check "and the thread serves the port (ping answered)" \
	busywait 5000 peer ping -c 1 -W 1 $DUT_IP

# TCP the same way
if has_tcp; then
	start_tcp_echo "$LOG" -p 7 -C
	check "tcp-echo -C listens on cores 1 and 2" tcp_echo_ready "$LOG"
	check "TCP sizes from 1 to 65536 bytes echo byte for byte" \
		peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT_IP 7 \
		--sizes 1,100,1460,1461,4096,65536
	stop_tcp_echo "$LOG"
else
	tap_skip "tcp-echo -C" "the module lacks IXMOD_FEAT_TCP"
	tap_skip "TCP echo" "the module lacks IXMOD_FEAT_TCP"
fi

IXMOD_CPU=1 "$PROBE" > "$LOG.probe" 2>&1
probe_rc=$?
sed 's/^/# /' "$LOG.probe"
check "colo_probe: EINVAL unbound, EBUSY for a second thread, EINTR, ETIME" \
	test "$probe_rc" -eq 0
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
