#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TCP under attack from the peer (tcp_inject.py, scapy).  A SYN flood from
# spoofed addresses fills tcp-echo's backlog while legitimate clients
# still connect and echo: SYN cookies go out and are validated.  Then
# forged segments are injected into a live connection, with its real
# 4-tuple read from `ss -tn` on the peer: RSTs and a SYN at wrong sequence
# numbers, data outside the window, data with unacceptable ACKs.  The
# connection must survive, echo byte for byte with no injected byte in its
# stream, and the challenge-ACK counter must move (RFC 5961).  Then an
# out-of-order flood (issue 35): 64 connections from the peer, each with
# 64 one-byte segments past a hole, every other byte, which once held
# 7/8 of a core's buffers for good; beside them a Linux client must echo
# 4 MiB byte for byte, the cores must prune or drop the flood's segments,
# and the flood's queues must go when its connections are reset.
# Afterwards no connection and no receive buffer is left, and the kernel
# logged no error.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

INJECT=$_here/tcp_inject.py
LOG=$(mktemp)
GO=$(mktemp -u)
STOP=$(mktemp -u)
READY=$(mktemp -u)
trap 'rm -f "$LOG" "$LOG.flood" "$LOG.hold" "$LOG.ooo" "$GO" "$STOP" "$READY"' EXIT
NTESTS=18

# Whether SYN cookies went out since the flood started.
cookies_flowing() { [ "$(tcp_stat syncookies_sent)" -gt "$sent0" ]; }

# The peer's port of its established connection to tcp-echo.
held_port() {
	peer ss -Htn state established dst $DUT_IP dport = :7 |
		awk '{ n = split($3, a, ":"); print a[n]; exit }'
}
held_port_known() { [ -n "$(held_port)" ]; }

tcp_test_begin "$NTESTS"
DUT_MAC=$(cat "$(port_dir)/mac")

start_tcp_echo "$LOG" -p 7 -b 16
check "tcp-echo listens with a backlog of 16" tcp_echo_ready "$LOG"

# ---- SYN flood ----
sent0=$(tcp_stat syncookies_sent)
ok0=$(tcp_stat syncookies_ok)
# the flood goes on until the legitimate clients are done (at most 10 min)
rm -f "$STOP"
ip netns exec $PEER_NS "$PY" "$INJECT" synflood "$PEERIF" "$DUT_MAC" $DUT_IP 7 \
	--seconds 600 --stop "$STOP" --rate 1000 > "$LOG.flood" 2>&1 &
flood=$!
# the backlog is full once cookies go out instead of half-open connections
busywait 60000 cookies_flowing ||
	echo "# no SYN cookie sent 60 s into the flood"
check "8 connections at once echo 20000 bytes each during the flood" \
	peer timeout 120 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --parallel 8 --bytes 20000
check "100 short connections open, echo and close during the flood" \
	peer timeout 300 "$PY" "$TCP_CHECK" short $DUT_IP 7 --count 100
touch "$STOP"
wait "$flood"
sed 's/^/# /' "$LOG.flood"
sent=$(($(tcp_stat syncookies_sent) - sent0))
ok=$(($(tcp_stat syncookies_ok) - ok0))
check "SYN cookies went out (tcp_syncookies_sent +$sent)" test "$sent" -gt 0
check "legitimate clients came back with valid cookies (tcp_syncookies_ok +$ok)" test "$ok" -gt 0
echo "# tcp_backlog_drops $(tcp_stat backlog_drops), tcp_syncookies_bad $(tcp_stat syncookies_bad)"

# ---- forged segments into a live connection ----
rm -f "$GO"
ip netns exec $PEER_NS "$PY" "$TCP_CHECK" hold $DUT_IP 7 --go "$GO" --timeout 120 \
	> "$LOG.hold" 2>&1 &
holder=$!
busywait 30000 held_port_known
sport=$(held_port)
check "the peer holds an established connection (port ${sport:-none})" test -n "$sport"
acks0=$(tcp_stat challenge_acks)
oow0=$(tcp_stat out_of_window)
resets0=$(tcp_stat resets_in)
check "forged RSTs, a SYN, out-of-window data and bad ACKs injected" \
	peer timeout 120 "$PY" "$INJECT" inject "$PEERIF" "$DUT_MAC" $DUT_IP 7 $PEER_IP "${sport:-0}"
touch "$GO"
wait "$holder"
rc=$?
sed 's/^/# /' "$LOG.hold"
check "the connection survived: it echoes byte for byte, no injected byte in its stream" \
	test "$rc" -eq 0
acks=$(($(tcp_stat challenge_acks) - acks0))
oow=$(($(tcp_stat out_of_window) - oow0))
check "challenge ACKs answered the forgeries (tcp_challenge_acks +$acks)" test "$acks" -gt 0
check "out-of-window segments were counted (tcp_out_of_window +$oow)" test "$oow" -gt 0
check "no forged RST was accepted (tcp_resets_in +$(($(tcp_stat resets_in) - resets0)))" \
	test "$(tcp_stat resets_in)" -eq "$resets0"

# ---- out-of-order flood beside an honest transfer (issue 35) ----
# 64 connections spread over the cores: before the bounds, about 28 on
# one core (28 x 64 of its 2048 buffers) took it below the eighth free
# that in-order data needs, and every connection there had its data
# dropped (tcp_rcv_drops) until the flood's connections ended.
shed0=$(($(tcp_stat ooo_pruned) + $(tcp_stat ooo_drops)))
purged0=$(tcp_stat ooo_purged)
rm -f "$READY"
# not through peer(): kill must reach timeout (and so the script)
ip netns exec $PEER_NS timeout 600 "$PY" "$INJECT" ooo "$PEERIF" "$DUT_MAC" $DUT_IP 7 \
	--conns 64 --bytes 0 --hole 1 --segs 64 --seg-bytes 1 --stride 2 \
	--ready "$READY" > "$LOG.ooo" 2>&1 &
oooflood=$!
check "64 peer connections sent 64 one-byte segments each past a hole" \
	busywait 120000 test -e "$READY"
check "beside them a Linux client echoes 4 MiB byte for byte" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --bytes 4194304
shed=$(($(tcp_stat ooo_pruned) + $(tcp_stat ooo_drops) - shed0))
check "the cores kept the flood to their share (tcp_ooo_pruned + tcp_ooo_drops +$shed)" \
	test "$shed" -gt 0
kill "$oooflood" 2>/dev/null	# it resets its connections
wait "$oooflood" 2>/dev/null
sed 's/^/# /' "$LOG.ooo"
check "the reset connections' queues went at once (tcp_ooo_purged > $purged0)" \
	busywait 10000 holds -gt "$purged0" tcp_stat ooo_purged
echo "# tcp_ooo $(tcp_stat ooo), tcp_ooo_pruned $(tcp_stat ooo_pruned)," \
	"tcp_ooo_drops $(tcp_stat ooo_drops), tcp_rcv_drops $(tcp_stat rcv_drops)"

stop_tcp_echo "$LOG"
check "no connection left once the context closed (tcp_conns, tcp_established)" \
	busywait 10000 tcp_stats_zero
check "every receive buffer came back (bufs_held 0)" \
	busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
