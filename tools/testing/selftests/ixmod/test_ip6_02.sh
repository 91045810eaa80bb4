#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UDP over IPv6 (issue 39 §3) against Linux's UDP stack in the peer
# namespace: libixu's udp-echo -6 (contexts with IXMOD_SETUP_INET6)
# echoes every size from 1 to 1452 bytes byte for byte, and 16 flows,
# which RSS on the IPv6 4-tuple spreads over both dataplane cores, while
# IPv4 still echoes; the counters say it went through udp6 with the
# NIC's checksums (tx_csum_hw, not tx_csum_sw) and dropped nothing; a datagram to an unbound port
# draws a port unreachable the peer sees as ECONNREFUSED; and udp-echo
# without -6 (an ABI 2 application) never sees an IPv6 peer: its port
# answers IPv6 as a closed one while it echoes IPv4.  Addresses from
# 2001:2::/48 (RFC 5180, benchmarking).

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

ECHO=$_here/../../../../libixu/examples/udp-echo
CHECK=$_here/udp_check.py
DUT6=2001:2::1
PEER6=2001:2::2
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

# start_echo ARGS...: udp-echo in the background (ECHO_PID stays set);
# echo_ready: wait for its verdict
start_echo() {
	"$ECHO" "$@" > "$LOG" 2>&1 &
	ECHO_PID=$!
}
echo_ready() {
	busywait 10000 grep -q 'ready\|udp-echo: cpu' "$LOG"
	grep -q ready "$LOG"
}
stop_echo() {
	kill -INT "$ECHO_PID"
	wait "$ECHO_PID"
	sed "s/^/# /" "$LOG"
}
udp6_drops() {
	local n=0 r
	for r in udp6_short udp6_len udp6_nocsum udp6_csum; do
		n=$((n + $(port_stat drops/$r)))
	done
	echo $n
}

# read, not cat: a process per look is slow under emulation
core_rx() { local n; read -r n < "$IXMOD_SYSFS/dataplane/cpu$1/stats/rx_packets"; echo "$n"; }

port_test_begin 16

# the peer speaks IPv6 again (ports_setup turned it off), without DAD
peer sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0 \
	"net.ipv6.conf.$PEERIF.disable_ipv6=0" "net.ipv6.conf.$PEERIF.accept_dad=0" \
	"net.ipv6.conf.$PEERIF.accept_ra=0"
peer ip -6 addr add $PEER6/64 dev "$PEERIF" nodad
echo "$DUT6/64" > "$(port_dir)/ipv6"
check "the port answers ping -6 ($DUT6)" busywait 20000 peer ping -6 -c 1 -W 2 $DUT6

in0=$(port_stat stats/udp6_in); out0=$(port_stat stats/udp6_out)
sw0=$(port_stat stats/tx_csum_sw); hw0=$(port_stat stats/tx_csum_hw)
start_echo -p 7 -6
check "udp-echo -6 attaches (IPv4 and IPv6)" echo_ready
check "every size from 1 to 1452 bytes over IPv6 echoes byte for byte" \
	peer "$PY" "$CHECK" $DUT6 7 --sizes 1-1452
a1=$(core_rx 1) a2=$(core_rx 2)
check "16 IPv6 flows of 20 datagrams echo byte for byte" \
	peer "$PY" "$CHECK" $DUT6 7 --flows 16 --count 20
d1=$(($(core_rx 1) - a1)) d2=$(($(core_rx 2) - a2))
# 16 flows by random source ports: all on one core 1 time in 32768
check "RSS spread the IPv6 flows over both cores (cpu1 +$d1, cpu2 +$d2 frames)" \
	test "$d1" -ge 20 -a "$d2" -ge 20
check "IPv4 still echoes beside it" peer "$PY" "$CHECK" $DUT_IP 7 --sizes 1400-1472
in1=$(port_stat stats/udp6_in); out1=$(port_stat stats/udp6_out)
check "udp6_in and udp6_out counted each ($((in1 - in0)) in, $((out1 - out0)) out)" \
	test $((in1 - in0)) -ge 1772 -a $((out1 - out0)) -ge 1772
hw=$(($(port_stat stats/tx_csum_hw) - hw0)) sw=$(($(port_stat stats/tx_csum_sw) - sw0))
check "the NIC inserted the checksums, software none (tx_csum_hw +$hw, tx_csum_sw +$sw)" \
	test $hw -ge 1772 -a $sw -eq 0
check "nothing dropped as udp6_short, udp6_len, udp6_nocsum or udp6_csum" \
	test "$(udp6_drops)" -eq 0

nosock0=$(port_stat drops/udp6_no_sock); err0=$(port_stat stats/icmp6_errors_out)
check "an unbound port: the peer's connected socket gets ECONNREFUSED" \
	peer "$PY" "$CHECK" $DUT6 9 --refused
check "counted as udp6_no_sock, answered as an ICMPv6 error" \
	test "$(port_stat drops/udp6_no_sock)" -gt "$nosock0" -a \
	"$(port_stat stats/icmp6_errors_out)" -gt "$err0"
stop_echo

# an ABI 2 application: the same port, no IPv6 peer ever reaches it
start_echo -p 7
echo_ready || echo "# udp-echo did not start: $(cat "$LOG")"
nosock0=$(port_stat drops/udp6_no_sock); in0=$(port_stat stats/udp6_in)
check "udp-echo without -6: IPv6 to its port is refused (ECONNREFUSED)" \
	peer "$PY" "$CHECK" $DUT6 7 --refused
nosock=$(($(port_stat drops/udp6_no_sock) - nosock0))
check "and not delivered (udp6_in unchanged, udp6_no_sock +$nosock)" \
	test "$(port_stat stats/udp6_in)" -eq "$in0" -a "$nosock" -gt 0
check "while IPv4 echoes" peer "$PY" "$CHECK" $DUT_IP 7 --sizes 1-64
stop_echo

check "no buffer leaked (bufs_held 0)" busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
