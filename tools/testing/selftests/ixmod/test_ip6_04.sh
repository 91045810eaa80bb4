#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ICMPv6 errors about TCP over IPv6, against Linux in the peer namespace
# (issue 39): (a) ixev_probe's IPv6 connect to a port the peer's nftables
# rejects with an ICMPv6 port unreachable, and to one rejected as
# administratively prohibited, fails at once with ECONNREFUSED and EACCES
# (RFC 4443 §3.1, the errnos Linux gives the codes), counted in
# tcp_icmp_unreach; (b) while tcp-echo -6 echoes 1 MiB to the peer, the
# peer plays a router whose next link takes 1280 bytes: nftables drops
# ixmod's larger packets and tcp6_peer.py answers them with Packet Too
# Bigs quoting them (RFC 4443 §3.2).  ixmod must lower its MSS (RFC 8201
# §4, tcp_icmp_ptb), send what was lost again in segments that fit, and
# send nothing larger after its first 1280-byte segment: the echo
# arrives exact (SHA-256).  Addresses from 2001:2::/48 (RFC 5180).
#
# One dataplane core: an ICMPv6 error is handled by the core its queue
# is (RSS hashes it by its addresses alone), and a connection lives on
# the core of its 4-tuple; with several cores an error about another
# core's connection is ignored (tcp_icmp_ignored), as the design says.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

PEER6_PY=$_here/tcp6_peer.py
PROBE=$_here/ixev_probe
DUT6=2001:2::1
PEER6=2001:2::2
NFT_TABLE=ixm_icmp6
LOG=$(mktemp)
# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	rm -f "$LOG" "$LOG".*
	ip netns exec "$PEER_NS" nft delete table inet "$NFT_TABLE" 2>/dev/null
}
trap cleanup EXIT

# ready6: tcp-echo started, and says it takes IPv6 peers
# shellcheck disable=SC2317 # called by check
ready6() { tcp_echo_ready "$LOG" && grep -q 'IPv4 and IPv6' "$LOG"; }

# connect6 PORT: ixev_probe's IPv6 connect to the peer, its output in $LOG.c
# and its time in ms in $ms
connect6() {
	local t0
	t0=$(date +%s%N)
	timeout 120 "$PROBE" client "$PEER6:$1" -n 1 -B 1000 > "$LOG.c" 2>&1
	ms=$((($(date +%s%N) - t0) / 1000000))
	sed 's/^/# /' "$LOG.c"
}

tcp_test_begin 12

# the port down, its cores down to one (cores change only then), up again
echo 0 > "$(port_dir)/up"
echo -2 > $IXMOD_SYSFS/cores || echo "# cores stay $(cat $IXMOD_SYSFS/cores)"
echo 1 > "$(port_dir)/up"
busywait 10000 grep -q '^up' "$(port_dir)/link" || echo "# ixmod link stays down"
echo "# cores $(cat $IXMOD_SYSFS/cores)"
peer sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0 \
	"net.ipv6.conf.$PEERIF.disable_ipv6=0" "net.ipv6.conf.$PEERIF.accept_dad=0" \
	"net.ipv6.conf.$PEERIF.accept_ra=0"
peer ip -6 addr add $PEER6/64 dev "$PEERIF" nodad
echo "$DUT6/64" > "$(port_dir)/ipv6"
mac=$(cat "$(port_dir)/mac")
check "the port answers ping -6 ($DUT6)" busywait 20000 \
	bash -c "ip netns exec $PEER_NS ping -6 -q -c 1 -W 2 $DUT6 >/dev/null"

# ---- (a) Destination Unreachable ends a connect ----
if ! command -v nft >/dev/null; then
	echo "# no nft; run scripts/bootstrap"
fi
peer nft -f - <<-EOF
table inet $NFT_TABLE {
	chain input {
		type filter hook input priority 0; policy accept;
		ip6 saddr $DUT6 tcp dport 9 reject with icmpv6 type port-unreachable
		ip6 saddr $DUT6 tcp dport 10 reject with icmpv6 type admin-prohibited
	}
}
EOF
unreach0=$(tcp_stat icmp_unreach)
connect6 9
check "a connect to a port rejected as unreachable fails with ECONNREFUSED ($ms ms)" \
	grep -q 'connect: Connection refused' "$LOG.c"
connect6 10
check "one rejected as administratively prohibited fails with EACCES ($ms ms)" \
	grep -q 'connect: Permission denied' "$LOG.c"
check "at once: no SYN retransmitted before the answer ($ms ms)" test $ms -lt 10000
unreach=$(($(tcp_stat icmp_unreach) - unreach0))
check "tcp_icmp_unreach counted both (+$unreach)" test $unreach -eq 2
peer nft delete table inet $NFT_TABLE

# ---- (b) Packet Too Big lowers the MSS ----
start_tcp_echo "$LOG" -p 7 -6
check "tcp-echo -6 listens (IPv4 and IPv6)" ready6
# a router with a 1280-byte next link: ixmod's larger packets go no further
peer nft -f - <<-EOF
table inet $NFT_TABLE {
	chain input {
		type filter hook prerouting priority -300; policy accept;
		ip6 saddr $DUT6 tcp sport 7 ip6 length > 1240 counter drop
	}
}
EOF
# the raw socket must see the segments as sent: GRO would merge them
peer ethtool -K "$PEERIF" gro off || echo "# GRO stays on: merged segments will fail"
ptb0=$(tcp_stat icmp_ptb)
ign0=$(tcp_stat icmp_ignored)
retrans0=$(tcp_stat retrans)
check "1 MiB echoes exact over a 1280-byte path, nothing larger after the MSS fell" \
	peer timeout 300 "$PY" "$PEER6_PY" ptb "$PEERIF" "$mac" $DUT6 $PEER6 7 1280 1048576
peer nft list table inet $NFT_TABLE | grep counter | sed 's/^[[:space:]]*/# nft: /'
peer ethtool -K "$PEERIF" gro on
peer nft delete table inet $NFT_TABLE
ptb=$(($(tcp_stat icmp_ptb) - ptb0))
echo "# tcp_icmp_ignored +$(($(tcp_stat icmp_ignored) - ign0))," \
	"tcp_retrans +$(($(tcp_stat retrans) - retrans0))"
check "tcp_icmp_ptb: the MSS lowered once (+$ptb)" test $ptb -eq 1
check "an echo over the full MTU still works after it" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT6 7 --bytes 65536
stop_tcp_echo "$LOG"
check "no connection left once tcp-echo -6 closed (tcp_conns, tcp_established)" \
	busywait 10000 tcp_stats_zero
check "no buffer leaked (bufs_held 0)" busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean

ports_teardown
tap_done
