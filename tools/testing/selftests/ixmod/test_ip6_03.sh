#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TCP over IPv6 against Linux's TCP in the peer namespace: libixu's
# tcp-echo -6 (contexts with IXMOD_SETUP_INET6, whose listeners take both
# families) echoes sizes from 1 to 3000 bytes, 64 KiB and 1 MiB byte for
# byte, 8 connections at once while 8 over IPv4 run beside them, at the
# port's global and its link-local address; its SYN-ACK announces MSS
# 1440 and SACK and no segment of it is larger; the port's NIC inserted
# the checksums (tx_csum_hw grows over IPv6 alone, tx_csum_sw does not)
# and no TCP segment was dropped.  Two hostile batches: SYNs
# with a wrong checksum and with one over IPv4's pseudo-header are
# counted in drops/tcp_csum and never answered.  tcp-echo without -6 (an
# ABI 2 application) refuses IPv6 with a RST (ECONNREFUSED, counted in
# drops/tcp_no_sock) while it echoes IPv4.  Addresses from 2001:2::/48
# (RFC 5180, benchmarking).

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

PEER6_PY=$_here/tcp6_peer.py
DUT6=2001:2::1
PEER6=2001:2::2
LOG=$(mktemp)
trap 'rm -f "$LOG" "$LOG".*' EXIT
# 1 to 3000 bytes in steps of 61, and each side of the segment sizes
SIZES=$(seq -s, 1 61 3000),1427-1429,1439-1441,2879-2881,3000,65536

# ready6: tcp-echo started, and says it takes IPv6 peers
# shellcheck disable=SC2317 # called by check
ready6() { tcp_echo_ready "$LOG" && grep -q 'IPv4 and IPv6' "$LOG"; }

tcp_test_begin 20

peer sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0 \
	"net.ipv6.conf.$PEERIF.disable_ipv6=0" "net.ipv6.conf.$PEERIF.accept_dad=0" \
	"net.ipv6.conf.$PEERIF.accept_ra=0"
peer ip -6 addr add $PEER6/64 dev "$PEERIF" nodad
echo "$DUT6/64" > "$(port_dir)/ipv6"
mac=$(cat "$(port_dir)/mac")
# fe80::/64 with the modified EUI-64 of the MAC (RFC 4291 Appendix A)
ll=$("$PY" -c "import ipaddress,sys; m=bytes.fromhex(sys.argv[1].replace(':',''));
print(ipaddress.IPv6Address(b'\xfe\x80'+b'\0'*6+bytes([m[0]^2])+m[1:3]+b'\xff\xfe'+m[3:]))" "$mac")
check "the port answers ping -6 ($DUT6, $ll)" busywait 20000 \
	bash -c "ip netns exec $PEER_NS ping -6 -q -c 1 -W 2 $DUT6 >/dev/null && \
		 ip netns exec $PEER_NS ping -6 -q -c 1 -W 2 -I $PEERIF $ll >/dev/null"

sw0=$(port_stat stats/tx_csum_sw)
hw0=$(port_stat stats/tx_csum_hw)
csum0=$(port_stat drops/tcp_csum)
nosock0=$(port_stat drops/tcp_no_sock)
start_tcp_echo "$LOG" -p 7 -6
check "tcp-echo -6 listens (IPv4 and IPv6)" ready6
check "sizes from 1 to 3000 bytes and 64 KiB over IPv6 echo byte for byte" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT6 7 --sizes "$SIZES"
check "1 MiB over IPv6 echoes (SHA-256)" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT6 7 --bytes 1048576
# only IPv6 so far: Linux drops a segment whose checksum is wrong, so the
# echoes prove the NIC's, and the counter says the NIC, not software, summed
hw=$(($(port_stat stats/tx_csum_hw) - hw0))
check "the NIC inserted the TCP over IPv6 checksums (tx_csum_hw +$hw)" test $hw -ge 500
# the peer's raw socket must see the segments as sent: GRO would merge them
peer ethtool -K "$PEERIF" gro off || echo "# GRO stays on: merged segments will fail"
check "the SYN-ACK announces MSS 1440 and SACK, no segment above 1440 bytes" \
	peer timeout 60 "$PY" "$PEER6_PY" opts "$PEERIF" $DUT6 7
peer ethtool -K "$PEERIF" gro on
# 8 IPv6 and 8 IPv4 connections at once
peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --parallel 8 --bytes 100000 \
	> "$LOG.v4" 2>&1 &
v4=$!
check "8 IPv6 connections at once echo 100000 bytes each" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT6 7 --parallel 8 --bytes 100000
wait $v4
v4rc=$?
sed 's/^/# /' "$LOG.v4"
check "8 IPv4 connections beside them echo too" test $v4rc -eq 0
check "the link-local address echoes sizes 1 to 3000 and 64 KiB" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo "$ll%$PEERIF" 7 \
	--sizes 1,100,1439-1441,3000,65536
check "and takes 4 connections at once" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo "$ll%$PEERIF" 7 --parallel 4 --bytes 50000
sw=$(($(port_stat stats/tx_csum_sw) - sw0))
check "software summed no checksum over IPv6 or IPv4 (tx_csum_sw +$sw)" test $sw -eq 0
echo "# drops/tcp_no_sock +$(($(port_stat drops/tcp_no_sock) - nosock0)) meanwhile"
check "no TCP segment dropped as tcp_csum meanwhile" \
	test "$(port_stat drops/tcp_csum)" -eq "$csum0"

out=$(peer "$PY" "$PEER6_PY" badcsum "$PEERIF" "$mac" $DUT6 $PEER6 7 5 "$(port_dir)/drops" 2>&1)
while read -r line; do echo "# $line"; done <<<"$out"
check "SYNs with a wrong checksum, or one over IPv4's pseudo-header: tcp_csum, no answer" \
	test "$(grep -c '^ok ' <<<"$out")" -eq 2 -a "$(grep -vc '^ok ' <<<"$out")" -eq 0
check "IPv6 and IPv4 still echo after them" bash -c \
	"ip netns exec $PEER_NS $PY $TCP_CHECK echo $DUT6 7 --sizes 1,1440 && \
	 ip netns exec $PEER_NS $PY $TCP_CHECK echo $DUT_IP 7 --sizes 1,1460"
stop_tcp_echo "$LOG"
check "no connection left once tcp-echo -6 closed (tcp_conns, tcp_established)" \
	busywait 10000 tcp_stats_zero

# an ABI 2 application: the same listener port refuses IPv6
start_tcp_echo "$LOG" -p 7
tcp_echo_ready "$LOG" || echo "# tcp-echo did not start: $(cat "$LOG")"
nosock0=$(port_stat drops/tcp_no_sock)
check "tcp-echo without -6: an IPv6 connection is refused (ECONNREFUSED)" \
	peer timeout 60 "$PY" "$PEER6_PY" refused $DUT6 7
nosock=$(($(port_stat drops/tcp_no_sock) - nosock0))
check "counted in drops/tcp_no_sock (+$nosock)" test "$nosock" -gt 0
check "while IPv4 echoes" peer timeout 120 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --sizes 1,1460,65536
stop_tcp_echo "$LOG"

check "no buffer leaked (bufs_held 0)" busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
