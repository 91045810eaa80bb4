#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ICMPv6 errors about TCP over IPv6, against Linux in the peer namespace
# (issue 39): (a) ixev_probe's IPv6 connect to a port the peer's nftables
# rejects with an ICMPv6 port unreachable, and to one rejected as
# administratively prohibited, fails at once with ECONNREFUSED and EACCES
# (RFC 4443 §3.1, the errnos Linux gives the codes), counted in
# tcp_icmp_unreach; (b) while tcp-echo -6 echoes 256 KiB to the peer, the
# peer plays a router whose next link takes 1280 bytes: nftables drops
# ixmod's larger packets and tcp6_peer.py answers them with Packet Too
# Bigs quoting them (RFC 4443 §3.2).  ixmod must lower its MSS (RFC 8201
# §4, tcp_icmp_ptb), send what was lost again in segments that fit, and
# send nothing larger after its first 1280-byte segment: the echo
# arrives exact (SHA-256).  Addresses from 2001:2::/48 (RFC 5180).
#
# Two dataplane cores, and (b) runs twice, from a source port whose
# connection RSS gives queue 0 and from one it gives queue 1 (the port's
# rss_key, Toeplitz as the NIC hashes).  RSS gives every ICMPv6 message
# from the peer one queue (it hashes their addresses alone), so one of
# the two connections is the other core's: the core the errors reach
# hands them over (tcp_icmp_handed), and each core lowers its
# connection's MSS once (tcp_icmp_ptb per core); none is dropped
# (tcp_icmp_hand_full), and only repeats are ignored (tcp_icmp_ignored
# at most the Packet Too Bigs sent less the two that acted).
#
# The echo's window closes while its first flight is dropped for its
# size (tcp-echo frees a receive buffer once its echo is acknowledged),
# and the peer acknowledges the echo on segments that probe that zero
# window: until ixmod heard the ACK on such a segment (RFC 9293
# §3.10.7.4), one of the two echoes stalled in five runs of eight.

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

# core_stat CPU NAME: dataplane/cpuCPU/stats/tcp_NAME
core_stat() { cat "$IXMOD_SYSFS/dataplane/cpu$1/stats/tcp_$2"; }

# sport_for_queue Q: a source port from which the peer's connection to
# $DUT6 port 7 reaches queue Q of the port's two (RSS: Toeplitz over the
# addresses and ports with the port's key, redirection entry hash % 2)
sport_for_queue() {
	"$PY" - "$(cat "$(port_dir)/rss_key")" "$1" $PEER6 $DUT6 <<-'EOF'
	import ipaddress, sys
	key, q = bytes.fromhex(sys.argv[1]), int(sys.argv[2])
	src, dst = (ipaddress.IPv6Address(a).packed for a in sys.argv[3:5])
	k, kb = int.from_bytes(key, "big"), len(key) * 8
	for sport in range(41000, 42000):
	    h = 0
	    for i, byte in enumerate(src + dst + sport.to_bytes(2, "big") + b"\0\7"):
	        for b in range(8):
	            if byte & (0x80 >> b):
	                h ^= (k >> (kb - 32 - (i * 8 + b))) & 0xffffffff
	    if (h & 127) % 2 == q:
	        print(sport)
	        break
	EOF
}

tcp_test_begin 16

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
ign0=$(tcp_stat icmp_ignored)
handed0=$(tcp_stat icmp_handed)
full0=$(tcp_stat icmp_hand_full)
retrans0=$(tcp_stat retrans)
ptbs=0
# the port's queues as QUEUE:CPU; cpus[Q] serves queue Q
read -ra cpus <<< "$(sed 's/[0-9]*://g' "$(port_dir)/queues")"
echo "# queues $(cat "$(port_dir)/queues")"
for q in 0 1; do
	sport=$(sport_for_queue $q)
	ptb0[q]=$(core_stat "${cpus[q]}" icmp_ptb)
	peer timeout 300 "$PY" "$PEER6_PY" ptb "$PEERIF" "$mac" $DUT6 $PEER6 7 1280 262144 \
		"$sport" > "$LOG.p" 2>&1
	rc=$?
	cat "$LOG.p"
	# what the connection's core did, for a failure's diagnosis
	line=""
	for f in segs_in segs_out retrans timeouts fast_retrans sack_recoveries rack_losses \
		 tlp_probes sacks_rcvd icmp_ptb; do
		line+=" $f=$(core_stat "${cpus[q]}" $f)"
	done
	echo "# cpu${cpus[q]} (queue $q) so far:$line"
	# segments the peer's stack threw away (a bad checksum, a bad header)
	# would stall the echo just so, nothing acknowledged: say if it did
	echo "# peer: $(peer nstat -az TcpInCsumErrors TcpInErrs Ip6InHdrErrors 2>/dev/null |
		awk '/^[A-Z]/ { printf "%s=%s ", $1, $2 }')"
	n=$(sed -n 's/.* \([0-9]*\) PTBs sent$/\1/p' "$LOG.p")
	ptbs=$((ptbs + ${n:-0}))
	desc="256 KiB echo exact over a 1280-byte path from port $sport (queue $q)"
	check "$desc, nothing larger after the MSS fell" test $rc -eq 0
done
peer nft list table inet $NFT_TABLE | grep counter | sed 's/^[[:space:]]*/# nft: /'
peer ethtool -K "$PEERIF" gro on
peer nft delete table inet $NFT_TABLE
ptb1=$(($(core_stat "${cpus[0]}" icmp_ptb) - ptb0[0]))
ptb2=$(($(core_stat "${cpus[1]}" icmp_ptb) - ptb0[1]))
handed=$(($(tcp_stat icmp_handed) - handed0))
ign=$(($(tcp_stat icmp_ignored) - ign0))
echo "# $ptbs PTBs sent; tcp_icmp_handed +$handed, tcp_icmp_ignored +$ign," \
	"tcp_retrans +$(($(tcp_stat retrans) - retrans0))"
desc="cpu${cpus[0]} +$ptb1, cpu${cpus[1]} +$ptb2"
check "tcp_icmp_ptb: each core lowered its connection's MSS once ($desc)" \
	test $ptb1 -eq 1 -a $ptb2 -eq 1
check "tcp_icmp_handed: errors reached the other core's connection (+$handed)" test $handed -ge 1
check "tcp_icmp_hand_full: none dropped" test "$(tcp_stat icmp_hand_full)" -eq "$full0"
check "tcp_icmp_ignored: only repeats ($ign <= $ptbs - 2)" test $ign -le $((ptbs - 2))
check "an echo over the full MTU still works after it" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT6 7 --bytes 65536
stop_tcp_echo "$LOG"
check "no connection left once tcp-echo -6 closed (tcp_conns, tcp_established)" \
	busywait 10000 tcp_stats_zero
check "no buffer leaked (bufs_held 0)" busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean

ports_teardown
tap_done
