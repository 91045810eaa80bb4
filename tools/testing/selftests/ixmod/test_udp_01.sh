#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libixu's udp-echo against Linux's UDP stack in the peer namespace: every
# size from 1 to 1472 bytes comes back byte for byte; two threads on two
# cores each serve their own flows; a second process is refused the
# cores; killing the owner mid-traffic frees its cores, buffers and
# regions, and a new owner works.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

ECHO=$_here/../../../../libixu/examples/udp-echo
CHECK=$_here/udp_check.py
LOG=$(mktemp)
trap 'rm -f "$LOG" "$LOG.2"' EXIT

ctx_vmallocs() { grep -c 'ixm_ctx_setup' /proc/vmallocinfo; }

# start_echo LOG ARGS...: udp-echo in the background (in this shell, so
# that ECHO_PID stays set); echo_ready LOG: wait for its verdict
start_echo() {
	local log=$1
	shift
	"$ECHO" "$@" > "$log" 2>&1 &
	ECHO_PID=$!
}
echo_ready() {
	busywait 10000 grep -q 'ready\|udp-echo: cpu' "$1"
	grep -q ready "$1"
}

tap_plan 14
dmesg_mark
if ! ports_setup; then
	for _ in $(seq 10); do tap_fail "port setup" "setup failed (# lines above)"; done
	ports_teardown
	tap_done
fi

free0=$(port_stat stats/bufs_free); held0=$(port_stat stats/bufs_held)
vm0=$(ctx_vmallocs)
echo "# buffers free before: $free0, held: $held0; context vmallocs: $vm0"

start_echo "$LOG" -p 7
check "udp-echo attaches to cores 1 and 2" echo_ready "$LOG"
check "every size from 1 to 1472 bytes echoes byte for byte" \
	peer "$PY" "$CHECK" $DUT_IP 7 --sizes 1-1472
check "16 flows of 20 datagrams echo byte for byte" \
	peer "$PY" "$CHECK" $DUT_IP 7 --flows 16 --count 20
# Linux drops a datagram whose checksum is wrong: the echoes above prove
# the NIC's; these say it, not software, summed them
check "the NIC inserted the checksums (tx_csum_hw $(port_stat stats/tx_csum_hw), tx_csum_sw $(port_stat stats/tx_csum_sw))" \
	test "$(port_stat stats/tx_csum_hw)" -ge 1792 -a "$(port_stat stats/tx_csum_sw)" -eq 0
# rx_batch 1: a queue gives the loop one frame an iteration, no more
batches() {	# batches [FIRST_BUCKET]: non-empty RX batches of both cores
	cat "$IXMOD_SYSFS"/dataplane/cpu{1,2}/stats/rx_batch_hist |
		awk -v from="${1:-1}" '{ for (i = from; i <= NF; i++) n += $i } END { print n + 0 }'
}
echo 1 > "$IXMOD_SYSFS/rx_batch"
b0=$(batches); big0=$(batches 2)
peer "$PY" "$CHECK" $DUT_IP 7 --flows 16 --count 20 > /dev/null
b1=$(batches); big1=$(batches 2)
echo 64 > "$IXMOD_SYSFS/rx_batch"
check "rx_batch 1: batches of one frame only ($((b1 - b0)) batches, $((big1 - big0)) larger)" \
	test $((b1 - b0)) -ge 320 -a "$big1" -eq "$big0"
second_refused() { ! "$ECHO" -p 9 -c 1 > "$LOG.2" 2>&1 && grep -q 'busy' "$LOG.2"; }
check "a second process is refused the core (EBUSY)" second_refused
kill -INT "$ECHO_PID"
wait "$ECHO_PID"
sed "s/^/# /" "$LOG"
c1=$(sed -n 's/^udp-echo: cpu 1: \([0-9]*\) echoed.*/\1/p' "$LOG")
c2=$(sed -n 's/^udp-echo: cpu 2: \([0-9]*\) echoed.*/\1/p' "$LOG")
check "both threads served flows (cpu1 ${c1:-?}, cpu2 ${c2:-?})" \
	test "${c1:-0}" -gt 0 -a "${c2:-0}" -gt 0

# kill the owner while the peer floods it
start_echo "$LOG" -p 7
echo_ready "$LOG" || echo "# udp-echo did not start: $(cat "$LOG")"
peer "$PY" "$CHECK" $DUT_IP 7 --flood 4 > /dev/null &
flood=$!
sleep 2
kill -KILL "$ECHO_PID"
wait "$ECHO_PID" 2>/dev/null
wait "$flood"
check "the owner's buffers come back (bufs_held 0)" \
	busywait 5000 holds -eq 0 port_stat stats/bufs_held
check "the owner's regions are freed ($vm0 context vmallocs)" \
	busywait 5000 holds -eq "$vm0" ctx_vmallocs
start_echo "$LOG.2" -p 7
check "a new owner attaches after the kill" echo_ready "$LOG.2"
check "and echoes" peer "$PY" "$CHECK" $DUT_IP 7 --sizes 1400-1410
kill -INT "$ECHO_PID"
wait "$ECHO_PID"
# udp_reflect (benchmarks): the port itself sends datagrams back, to a
# port no socket has, and stops when told
echo 1 > "$(port_dir)/udp_reflect"
check "udp_reflect 1: datagrams to a port with no socket come back byte for byte" \
	peer "$PY" "$CHECK" $DUT_IP 9 --sizes 1400-1472
echo 0 > "$(port_dir)/udp_reflect"
no_reply() { ! peer "$PY" "$CHECK" $DUT_IP 9 --sizes 64-64 > /dev/null; }
check "udp_reflect 0: they do not" no_reply
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
