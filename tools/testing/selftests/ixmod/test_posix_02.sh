#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libixu-posix's call semantics against Linux's own: every case of
# libixu/posix/tests/sockcheck (nonblocking connect, half-close, resets,
# partial writes, epoll edge and level triggering, poll and select,
# options, dup, UDP...) runs twice, with sockpeer.py (Python on Linux's
# TCP/IP in the peer namespace) as the other side each time: once on
# Linux alone (both in the peer namespace, on loopback), once with the
# layer on ixmod's port.  Each case must print the same observations both
# times, and neither run may print UNEXPECTED (sockcheck knows Linux's
# answers).  The two cases of what ixmod does not do (UDP fragmentation,
# ICMP errors) are reported as skipped.  Afterwards no connection is left and the kernel logged no
# error.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

TOP=$_here/../../../..
PRELOAD=$TOP/libixu/libixu-posix.so
SC=$TOP/libixu/posix/tests
TMP=$(mktemp -d)
peers=()
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local p
	for p in "${peers[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ -x "$SC/sockcheck" ]; then
	mapfile -t CASES < <("$SC/sockcheck" --list)
else
	CASES=(sockcheck)
fi
tcp_test_begin $((${#CASES[@]} + 2))
if [ ! -x "$SC/sockcheck" ] || [ ! -f "$PRELOAD" ]; then
	for _ in "${CASES[@]}" 1 2; do
		tap_fail "libixu-posix" "no sockcheck or libixu-posix.so: make -C libixu and make -C libixu/posix/tests"
	done
	ports_teardown
	tap_done
fi

# start_peer ADDR FILE: sockpeer.py in the peer namespace; its port in FILE
start_peer() {
	peer "$PY" "$SC/sockpeer.py" "$1" 0 > "$2" 2> "$2.err" &
	peers+=($!)
	busywait 10000 grep -q '^port ' "$2"
}
start_peer 127.0.0.1 "$TMP/ref.port"
start_peer $PEER_IP "$TMP/ixm.port"
ref_port=$(awk '/^port/ {print $2}' "$TMP/ref.port")
ixm_port=$(awk '/^port/ {print $2}' "$TMP/ixm.port")

# What ixmod does not do, as Documentation/userspace-api/libixu-posix.rst
# says: reported as skipped, never as passed
declare -A UNSUPPORTED=(
	[udp_big]="ixmod does not fragment: a datagram above one frame fails EMSGSIZE"
	[udp_refused]="ixmod does not report ICMP errors to sockets"
)

for c in "${CASES[@]}"; do
	if [ -n "${UNSUPPORTED[$c]:-}" ]; then
		tap_skip "sockcheck $c" "${UNSUPPORTED[$c]}"
		continue
	fi
	peer timeout 45 "$SC/sockcheck" 127.0.0.1 127.0.0.1 "$ref_port" "$c" \
		> "$TMP/ref" 2>&1
	rr=$?
	LD_PRELOAD=$PRELOAD timeout 45 "$SC/sockcheck" $DUT_IP $PEER_IP "$ixm_port" "$c" \
		> "$TMP/ixm" 2>&1
	ri=$?
	if [ "$rr" -eq 0 ] && [ "$ri" -eq 0 ] && cmp -s "$TMP/ref" "$TMP/ixm"; then
		tap_ok "sockcheck $c: the layer on ixmod prints what Linux gives"
	else
		tap_fail "sockcheck $c: the layer on ixmod prints what Linux gives" \
			"$(echo "status: Linux $rr, layer $ri"; diff "$TMP/ref" "$TMP/ixm")"
	fi
done

tcp_stats_dump
check "no connection left (tcp_conns, tcp_established)" busywait 15000 tcp_stats_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
