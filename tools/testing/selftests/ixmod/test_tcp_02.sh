#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bulk TCP through an impaired link.  netem on the peer's interface, in
# both directions (egress, and ingress through an ifb device), with 1 %
# loss, 5 % loss, reordering (5 ms delay, 25 % of the packets sent at
# once) and 5 % duplication.  Under each, three transfers must arrive byte
# for byte: peer -> tcp-echo --sink (CRC-32 compared), tcp-echo --source
# -> peer (the pattern checked), and an echo of 20 MB (SHA-256 compared).
# The counter that each impairment must move moves (retransmissions,
# out-of-order queueing, duplicate data).  Afterwards no connection and no
# receive buffer is left, and the kernel logged no error.  Then tcp-echo
# is killed while it streams: closing its context waits for the NIC to
# finish with the transmit arena before freeing it.
#
# IXMOD_TCP_BULK_BYTES (4000000) and IXMOD_TCP_ECHO_BYTES (20000000) size
# the transfers; IXMOD_TCP_TIMEOUT (300) bounds each, in seconds.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

BULK=${IXMOD_TCP_BULK_BYTES:-4000000}
ECHO_BYTES=${IXMOD_TCP_ECHO_BYTES:-20000000}
TMO=${IXMOD_TCP_TIMEOUT:-300}
IFB=ixifb0
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

# each impairment, and the counters of which one at least must move: a
# duplicate arrives after the original and counts as duplicate data (or,
# depending on where it lands, out of the window, or a PAWS drop)
NETEMS=("loss 1%" "loss 5%" "delay 5ms reorder 25% 50%" "duplicate 5%")
MOVES=(retrans retrans ooo "out_of_window paws_drops dup_data")
NTESTS=$((1 + 5 * ${#NETEMS[@]} + 6))

# check_verbose DESCRIPTION COMMAND...: like check, but the command's
# output becomes TAP comments whatever its status (throughput, hashes),
# and on failure the TCP counters follow
check_verbose() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^# //; s/^/# /'
	if [ "$rc" -eq 0 ]; then
		tap_ok "$desc"
	else
		tcp_stats_dump
		tap_fail "$desc"
	fi
}

# tcp_stats_sum "NAME...": the sum of several tcp_* counters
tcp_stats_sum() {
	local n sum=0
	for n in $1; do
		sum=$((sum + $(tcp_stat "$n")))
	done
	echo "$sum"
}

# netem on both directions of the peer's link: its egress, and its
# ingress redirected through an ifb device.  GRO, TSO and GSO go off
# first: netem drops whole skbs, and a GRO or TSO skb carries tens of
# segments: 1 % of those skbs can be no segment of ixmod's at all (a
# CI run once saw tcp_retrans +0 under 1 % loss with GRO on).
netem_setup() {
	peer ethtool -K "$PEERIF" gro off tso off gso off || return 1
	peer ip link add $IFB type ifb || return 1
	peer ip link set $IFB up || return 1
	peer tc qdisc add dev "$PEERIF" handle ffff: ingress || return 1
	peer tc filter add dev "$PEERIF" parent ffff: protocol all u32 match u32 0 0 \
		action mirred egress redirect dev $IFB || return 1
	netem_set "loss 0%"
}
netem_set() {	# netem_set "SPEC"
	# shellcheck disable=SC2086  # SPEC is several words on purpose
	peer tc qdisc replace dev "$PEERIF" root netem $1 &&
		peer tc qdisc replace dev $IFB root netem $1
}
# netem_drops DEV: packets the netem on DEV dropped so far ("Sent ...
# (dropped N, overlimits ...)")
netem_drops() {
	local n
	n=$(peer tc -s qdisc show dev "$1" root | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p')
	echo "${n:-0}"
}
netem_teardown() {
	peer tc qdisc del dev "$PEERIF" root 2>/dev/null
	peer tc qdisc del dev "$PEERIF" ingress 2>/dev/null
	peer ip link del $IFB 2>/dev/null
}

# run_server ARGS...: tcp-echo ARGS in the background until stop_server
run_server() {
	start_tcp_echo "$LOG" "$@"
	tcp_echo_ready "$LOG" || { echo "# tcp-echo did not start:"; sed 's/^/# /' "$LOG"; return 1; }
}
stop_server() {
	kill -INT "$TCP_ECHO_PID" 2>/dev/null
	wait "$TCP_ECHO_PID"
	grep -v '^tcp-echo: conn ' "$LOG" | sed 's/^/# /'
}

# peer -> sink: the CRC-32 the sink prints is the one the peer computed
to_sink() {
	local out crc rc
	run_server --sink -p 7 || return 1
	out=$(peer timeout "$TMO" "$PY" "$TCP_CHECK" send $DUT_IP 7 --bytes "$BULK" 2>&1)
	rc=$?
	echo "$out"
	crc=$(sed -n 's/^# sent [0-9]* bytes crc \([0-9a-f]*\).*/\1/p' <<<"$out")
	busywait 10000 grep -q ' bytes crc ' "$LOG"
	grep '^tcp-echo: conn ' "$LOG"
	stop_server
	[ "$rc" -eq 0 ] && [ -n "$crc" ] &&
		grep -q "^tcp-echo: conn [0-9]* $BULK bytes crc $crc\$" "$LOG"
}

# source -> peer: the peer checks length and pattern
from_source() {
	local rc
	run_server --source "$BULK" -p 7 || return 1
	peer timeout "$TMO" "$PY" "$TCP_CHECK" recv $DUT_IP 7 --bytes "$BULK" 2>&1
	rc=$?
	stop_server
	return $rc
}

# echo: the peer compares the SHA-256 of what it sent and got back
echo_big() {
	local rc
	run_server -p 7 || return 1
	peer timeout "$TMO" "$PY" "$TCP_CHECK" echo $DUT_IP 7 --bytes "$ECHO_BYTES" 2>&1
	rc=$?
	stop_server
	return $rc
}

tcp_test_begin "$NTESTS"

check "netem on both directions of the peer's link (egress and ifb ingress)" netem_setup
for i in "${!NETEMS[@]}"; do
	spec=${NETEMS[$i]}
	check "netem $spec applied on both directions" netem_set "$spec"
	moved0=$(tcp_stats_sum "${MOVES[$i]}")
	out0=$(netem_drops "$PEERIF")
	in0=$(netem_drops $IFB)
	check_verbose "netem $spec: $BULK bytes peer -> sink, CRC-32 equal" to_sink
	check_verbose "netem $spec: $BULK bytes source -> peer, pattern intact" from_source
	check_verbose "netem $spec: $ECHO_BYTES bytes echoed, SHA-256 equal" echo_big
	moved=$(($(tcp_stats_sum "${MOVES[$i]}") - moved0))
	echo "# netem $spec dropped $(($(netem_drops $IFB) - in0)) packets from ixmod," \
		"$(($(netem_drops "$PEERIF") - out0)) to it"
	check "netem $spec: tcp_{${MOVES[$i]// /,}} moved (+$moved)" test "$moved" -gt 0
done
netem_teardown

# the NIC read the data from tcp-echo's transmit arena, not from a copy
zc=$(tcp_stat tx_zerocopy)
cp=$(tcp_stat tx_copied)
check "data segments sent from the arena in place: tcp_tx_zerocopy $zc, tcp_tx_copied $cp" \
	test "$zc" -gt 0 -a "$zc" -gt "$cp"

# SIGKILL while the source streams: frames that point into the arena are
# still in the TX ring when the context closes
kill_streaming() {
	local zc0 rpid
	zc0=$(tcp_stat tx_zerocopy)
	run_server --source 1000000000 -p 7 || return 1
	peer timeout 60 "$PY" "$TCP_CHECK" recv $DUT_IP 7 --bytes 1000000000 >/dev/null 2>&1 &
	rpid=$!
	if ! busywait 20000 holds -gt $((zc0 + 500)) tcp_stat tx_zerocopy; then
		echo "# the source did not stream"
		kill "$rpid"
		stop_server
		return 1
	fi
	kill -KILL "$TCP_ECHO_PID"
	wait "$TCP_ECHO_PID" 2>/dev/null
	wait "$rpid"
	echo "# sent $(($(tcp_stat tx_zerocopy) - zc0)) segments in place before the kill"
	return 0
}
check "tcp-echo killed while streaming from its arena" kill_streaming
check "its arena was given back at once (no 'still reads' in the kernel log)" \
	bash -c "! dmesg | grep -q 'still reads .* transmit arena'"

check "no connection left (tcp_conns, tcp_established)" busywait 10000 tcp_stats_zero
check "every receive buffer came back (bufs_held 0)" \
	busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
