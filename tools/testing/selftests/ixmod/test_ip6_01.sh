#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPv6 on a port (issue 39 §3): the ipv6 attribute validates and reads
# back; the port announces itself (unsolicited Neighbor Advertisement);
# Linux in the peer namespace pings its global and link-local addresses
# at several sizes and learns its MAC by Neighbor Discovery; a flood of
# Neighbor Solicitations from spoofed sources leaves the neighbour table
# within its 1024 entries; malformed IPv6 (extension-header chains,
# truncations, fragments, bad options) is dropped, each frame under its
# own counter, parameter problems go out rate-limited, and the port
# still answers.  Addresses from 2001:2::/48 (RFC 5180, benchmarking).

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

FRAMES=$_here/ip6_frames.py
DUT6=2001:2::1
PEER6=2001:2::2

port_test_begin 21

ipv6=$(port_dir)/ipv6
bad_addrs=""
for a in fe80::1/64 ff02::1/64 ::/64 ::1/128 2001:2::/64 2001:2::1/129 2001:2::1 nonsense; do
	echo "$a" > "$ipv6" 2>/dev/null && bad_addrs+="$a "
done
check "ipv6 refuses link-local, multicast, ::, ::1, anycast, bad prefixes (${bad_addrs:-none taken})" \
	test -z "$bad_addrs"
check "ipv6 is empty until set" test -z "$(cat "$ipv6")"

# the peer speaks IPv6 again (ports_setup turned it off), without DAD
peer sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0 \
	"net.ipv6.conf.$PEERIF.disable_ipv6=0" "net.ipv6.conf.$PEERIF.accept_dad=0" \
	"net.ipv6.conf.$PEERIF.accept_ra=0"
peer ip -6 addr add $PEER6/64 dev "$PEERIF" nodad

# the announcement: an NA from the port (ICMPv6 type 136) once ipv6 is set
na_out=$(mktemp)
peer timeout 60 tcpdump -l -c 1 -n -i "$PEERIF" 'icmp6 and ip6[40] == 136' \
	> "$na_out" 2> "$na_out.err" &
na=$!
busywait 30000 grep -q 'listening on' "$na_out.err"
echo "$DUT6/64" > "$ipv6"
wait $na
check "an unsolicited Neighbor Advertisement goes out when ipv6 is set" \
	grep -q 'neighbor advertisement' "$na_out"
rm -f "$na_out" "$na_out.err"
check "ipv6 reads back $DUT6/64" test "$(cat "$ipv6")" = "$DUT6/64"

mac=$(cat "$(port_dir)/mac")
# fe80::/64 with the modified EUI-64 of the MAC (RFC 4291 Appendix A)
ll=$(/usr/bin/python3 -c "import ipaddress,sys; m=bytes.fromhex(sys.argv[1].replace(':',''));
print(ipaddress.IPv6Address(b'\xfe\x80'+b'\0'*6+bytes([m[0]^2])+m[1:3]+b'\xff\xfe'+m[3:]))" "$mac")

check "ping -6 the global address" busywait 20000 peer ping -6 -c 1 -W 2 $DUT6
ok=1
for size in 0 56 1232 1452; do
	peer ping -6 -q -c 5 -i 0.2 -W 2 -s $size $DUT6 >/dev/null || { ok=0; echo "# ping -6 -s $size lost replies"; }
done
check "ping -6 at sizes 0..1452 with no loss" test $ok -eq 1
check "ping -6 the link-local address $ll" peer ping -6 -c 3 -i 0.2 -W 2 -I "$PEERIF" "$ll"
check "icmp6_echo_replies counted" test "$(port_stat stats/icmp6_echo_replies)" -ge 24
neigh=$(peer ip -6 neigh show $DUT6 dev "$PEERIF")
echo "# peer: $neigh"
check "the peer learned our MAC by ND ($mac)" \
	bash -c "grep -qiE 'lladdr $mac (REACHABLE|STALE|DELAY|PROBE)' <<<'$neigh'"
check "Neighbor Solicitations answered (nd_solicits_in, nd_adverts_out)" \
	test "$(port_stat stats/nd_solicits_in)" -ge 1 -a "$(port_stat stats/nd_adverts_out)" -ge 2
check "the peer is in the neighbour table" test "$(port_stat stats/nd_entries)" -ge 1

# a flood of solicitations from spoofed sources, all valid
out=$(peer /usr/bin/python3 "$FRAMES" flood "$PEERIF" $DUT6 2001:2::a:0 3000 2>&1)
echo "# flood: $out"
sleep 2
echo "# nd: entries=$(port_stat stats/nd_entries) learned=$(port_stat stats/nd_learned)" \
	"evicted=$(port_stat stats/nd_evicted) refused=$(port_stat stats/nd_refused)" \
	"ratelimited=$(port_stat stats/nd_ratelimited) solicits_in=$(port_stat stats/nd_solicits_in)"
check "the flood left the table within its bound (nd_entries <= 1024)" \
	test "$(port_stat stats/nd_entries)" -le 1024
check "the wire's new neighbours were rate-limited (nd_ratelimited)" \
	test "$(port_stat stats/nd_ratelimited)" -gt 0
check "after the flood the port still answers ping -6" busywait 10000 peer ping -6 -c 1 -W 2 $DUT6

# malformed IPv6, each frame alone: its own counter rises, no other
drops=$(port_dir)/drops
errs0=$(port_stat stats/icmp6_errors_out)
replies0=$(port_stat stats/icmp6_echo_replies)
out=$(peer /usr/bin/python3 "$FRAMES" malformed "$PEERIF" "$mac" $DUT6 $PEER6 3 "$drops" 2>&1)
grep -v '^ok ' <<<"$out" | sed 's/^/# /'
check "every malformed IPv6 frame counted under its reason, no other ($(grep -c '^ok ' <<<"$out") ok)" \
	test "$(grep -c '^ok ' <<<"$out")" -ge 17 -a "$(grep -vc '^ok ' <<<"$out")" -eq 0
check "no echo reply to a malformed request" \
	test "$(port_stat stats/icmp6_echo_replies)" -eq "$replies0"
check "parameter problems sent, rate-limited ($(($(port_stat stats/icmp6_errors_out) - errs0)))" \
	test "$(port_stat stats/icmp6_errors_out)" -gt "$errs0"
check "the port still answers ping -6 and ping" \
	bash -c "ip netns exec $PEER_NS ping -6 -c 2 -W 2 $DUT6 && ip netns exec $PEER_NS ping -c 2 -W 2 $DUT_IP"

off0=$(port_stat drops/ip6_off)
echo "" > "$ipv6"
peer ping -6 -c 1 -W 1 $DUT6 >/dev/null 2>&1
check "ipv6 cleared: IPv6 is dropped as ip6_off" test "$(port_stat drops/ip6_off)" -gt "$off0"
check "no buffer leaked (bufs_held 0)" busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
