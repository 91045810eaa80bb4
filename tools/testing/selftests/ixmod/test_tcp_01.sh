#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libixu's tcp-echo against Linux's TCP in the peer namespace: the
# handshake agrees on MSS, window scaling and timestamps; sizes from 1 to
# 65536 bytes echo byte for byte; 16 connections at once; connections
# opened on the core their Toeplitz hash names; 2000 short
# connections, half closed by the peer with a FIN and half with a RST;
# an idle core holding a connection in TIME_WAIT sleeps rather than wake
# every jiffy; ixmod as the client of a Linux echo server, closing with
# FIN and with RST.  Afterwards no connection is left (tcp_conns, tcp_established), no
# receive buffer is held, and the kernel logged no error.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

LOG=$(mktemp)
READY=$(mktemp -u)
trap 'rm -f "$LOG" "$LOG.client" "$READY"' EXIT
NTESTS=14
SIZES=1,2,3,7,100,535-537,1447-1449,1460,1461,2896,2920,4096,8192,16384,32767,32768,65535,65536

# echo_cpu_conns LOG CPU: the connections one thread of tcp-echo served
echo_cpu_conns() { sed -n "s/^tcp-echo: cpu $2: \([0-9]*\) conns.*/\1/p" "$1"; }

# owned_opens: for each queue, 8 connections from source ports whose
# Toeplitz hash (the port's rss_key through ixm_rss_queue()'s table,
# computed by tcp_check.py from the specification) names that queue; each
# must be a passive open on the queue's core and on no other.  RSS in the
# NIC, ixmod's software steering on a virtio-net NIC without it, or the
# software port's ndo_select_queue put each SYN there; a NIC's own choice
# of queue does not.
owned_opens() {
	local key map nq qc q cpu d c n rc=0
	local -A before
	key=$(cat "$(port_dir)/rss_key")
	map=$(cat "$(port_dir)/queues")
	nq=$(wc -w <<< "$map")
	for qc in $map; do
		q=${qc%%:*} cpu=${qc#*:}
		for d in "$IXMOD_SYSFS"/dataplane/cpu*; do
			before[$d]=$(cat "$d/stats/tcp_passive_opens")
		done
		peer timeout 120 "$PY" "$TCP_CHECK" owned $DUT_IP 7 --key "$key" \
			--queues "$nq" --queue "$q" --count 8 || rc=1
		for d in "$IXMOD_SYSFS"/dataplane/cpu*; do
			c=${d##*/cpu}
			n=$(($(cat "$d/stats/tcp_passive_opens") - ${before[$d]}))
			echo "queue $q (cpu $cpu): cpu $c opened $n"
			if [ "$c" = "$cpu" ]; then
				[ "$n" -eq 8 ] || rc=1
			else
				[ "$n" -eq 0 ] || rc=1
			fi
		done
	done
	return $rc
}

tcp_test_begin "$NTESTS"
echo "# buffers held before: $(port_stat stats/bufs_held)"

# ---- ixmod as the server ----
start_tcp_echo "$LOG" -p 7
check "tcp-echo listens on cores 1 and 2" tcp_echo_ready "$LOG"
check "the handshake agrees on MSS, window scaling and timestamps (ss -tin)" \
	peer timeout 60 "$PY" "$TCP_CHECK" opts $DUT_IP 7
check "sizes from 1 to 65536 bytes echo byte for byte" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --sizes $SIZES
check "16 connections at once echo 100000 bytes each" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --parallel 16 --bytes 100000
check "8 connections per queue, each opened on the core its Toeplitz hash names" owned_opens
check "2000 short connections, half closed by a FIN and half by a RST" \
	peer timeout 600 "$PY" "$TCP_CHECK" short $DUT_IP 7 --count 2000 --workers 4
tcp_stats_dump
# each core's loop: a connection that timed out on a core that slept
# through its frames would show here (sleeps beside wakeups)
for d in "$IXMOD_SYSFS"/dataplane/cpu*/stats; do
	echo "# ${d%/stats}: $(for f in iterations busy sleeps wakeups rx_packets; do
		[ -r "$d/$f" ] && printf '%s=%s ' $f "$(cat "$d/$f")"; done)"
done
echo "# port: $(for f in bufs_free bufs_held stats/rx_no_buf stats/tx_ring_full stats/rx_errors \
	stats/rx_steered stats/rx_steer_drops; do
	[ -r "$(port_dir)/$f" ] && printf '%s=%s ' "${f#stats/}" "$(port_stat "$f")"; done)"
stop_tcp_echo "$LOG"
c1=$(echo_cpu_conns "$LOG" 1)
c2=$(echo_cpu_conns "$LOG" 2)
check "both threads served connections (cpu1 ${c1:-?}, cpu2 ${c2:-?})" \
	test "${c1:-0}" -gt 0 -a "${c2:-0}" -gt 0
check "no connection left once the server's contexts closed (tcp_conns, tcp_established)" \
	busywait 10000 tcp_stats_zero

# ---- an idle core holding a connection in TIME_WAIT sleeps ----
# tcp-echo --source closes first, so its end stays in TIME_WAIT (60 s) while
# tcp-echo runs; the core's timer is pending all that time, and the core
# must sleep until the wheel's next slot, not wake every jiffy (HZ a second)
all_sleeps() { cat "$IXMOD_SYSFS"/dataplane/cpu*/stats/sleeps | awk '{ n += $1 } END { print n }'; }
idle_sleeps() {	# the cores' sleeps over 2 s with idle_us 1000, into $sleeps
	local a
	echo 1000 > "$IXMOD_SYSFS"/idle_us
	sleep 1
	a=$(all_sleeps)
	sleep 2
	sleeps=$(($(all_sleeps) - a))
	idle_default
}
start_tcp_echo "$LOG" --source 1000 -p 7
sleeps=-1
if tcp_echo_ready "$LOG" &&
   peer timeout 60 "$PY" "$TCP_CHECK" recv $DUT_IP 7 --bytes 1000 > /dev/null &&
   busywait 5000 holds -gt 0 tcp_stat conns; then
	idle_sleeps
fi
check "an idle core with a connection in TIME_WAIT sleeps ($sleeps sleeps in 2 s, at most 20)" \
	test "$sleeps" -ge 0 -a "$sleeps" -le 20 -a "$(tcp_stat conns)" -gt 0
stop_tcp_echo "$LOG"

# ---- ixmod as the client of a Linux echo server ----
rm -f "$READY"
# not through peer(): $! must be the server itself, for the kill below
ip netns exec $PEER_NS "$PY" "$TCP_CHECK" server 9000 --ready "$READY" --seconds 900 \
	> /dev/null 2>&1 &
server=$!
busywait 30000 test -e "$READY" || echo "# the Linux echo server did not start"
client() {	# client ARGS...: tcp-echo --connect, its output as comments
	local rc
	timeout 300 "$TCP_ECHO_HELPER" --connect $PEER_IP:9000 "$@" > "$LOG.client" 2>&1
	rc=$?
	sed 's/^/# /' "$LOG.client"
	[ "$rc" -eq 0 ] && grep -q ' 0 bad$' "$LOG.client"
}
check "tcp-echo --connect: 8 connections x 3 rounds of 100000 bytes verified, closed with FIN" \
	client --conns 8 --bytes 100000 --repeat 3
check "tcp-echo --connect --rst: 4 connections x 2 rounds verified, closed with RST" \
	client --conns 4 --bytes 20000 --repeat 2 --rst
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
tcp_stats_dump
check "no connection left once the client's contexts closed (TIME_WAIT included)" \
	busywait 10000 tcp_stats_zero
check "every receive buffer came back (bufs_held 0)" \
	busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
