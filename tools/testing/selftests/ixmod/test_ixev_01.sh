#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libixu's event layer (ixev.h) against Linux in the peer namespace, with
# ixev_probe: an echo server whose readable() takes 1000 bytes at a time
# and resumes from a timer (held bytes, ixev_resume(), timers, merged
# recv_done: 2 MB and 8 connections echo exactly); an echo server that
# sends every piece zero-copy (ixev_zc_alloc(), ixev_send_zc(), every
# release called once); ixev as a client of a Linux echo server, from
# ixev_run_once() and from the program's own epoll loop on ixev_fd(),
# 4 MB per connection through a 256 KiB send buffer (writable()), and 8
# connections through an arena too small for their send buffers
# (writable() once other connections free units); UDP echo with
# ixev_udp_*.  After each, the transmit arena is all free (arena_used 0),
# nothing is left in the kernel, and dmesg is clean.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

PROBE=$_here/ixev_probe
UDP_CHECK=$_here/udp_check.py
LOG=$(mktemp)
READY=$(mktemp -u)
trap 'rm -f "$LOG" "$LOG.client" "$READY"' EXIT
NTESTS=17

# start_probe ARGS...: ixev_probe in the background (in this shell, so that
# PROBE_PID stays set); probe_ready: wait for its verdict
start_probe() {
	"$PROBE" "$@" > "$LOG" 2>&1 &
	PROBE_PID=$!
}
probe_ready() {
	busywait 10000 grep -q 'ready\|ixev_probe: cpu' "$LOG"
	grep -q ready "$LOG"
}
# stop_probe: SIGINT, its output as comments; then every core's arena is free
stop_probe() {
	kill -INT "$PROBE_PID" 2>/dev/null
	wait "$PROBE_PID"
	sed 's/^/# /' "$LOG"
}
arena_free() {
	grep -q 'arena_used' "$1" && ! grep 'arena_used' "$1" | grep -qv 'arena_used 0$'
}

tcp_test_begin "$NTESTS"

# ---- held bytes, resume, timers ----
start_probe slow -p 7 -k 1000
check "ixev_probe slow listens on cores 1 and 2" probe_ready
check "2 MB echo exactly through readable() taking 1000 bytes at a time" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --bytes 2000000
check "8 connections at once echo 100000 bytes each" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --parallel 8 --bytes 100000
stop_probe
check "slow: the transmit arena is all free at the end, no error" \
	eval 'arena_free "$LOG" && ! grep -q " [1-9][0-9]* errors" "$LOG"'

# ---- zero-copy sends ----
start_probe zc -p 7
check "ixev_probe zc listens on cores 1 and 2" probe_ready
check "sizes from 1 to 65536 bytes echo exactly, sent zero-copy" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --sizes 1,100,1460,2049,65536
stop_probe
check "zc: every zero-copy send released once, the arena all free" \
	eval 'grep -Eq "zc sends ([1-9][0-9]*) releases \1$" "$LOG" && arena_free "$LOG"'

# ---- ixev as a client ----
rm -f "$READY"
ip netns exec $PEER_NS "$PY" "$TCP_CHECK" server 9000 --ready "$READY" --seconds 900 \
	> /dev/null 2>&1 &
server=$!
busywait 30000 test -e "$READY" || echo "# the Linux echo server did not start"
client() {	# client ARGS...: ixev_probe client, its output as comments
	local rc
	timeout 300 "$PROBE" client $PEER_IP:9000 "$@" > "$LOG.client" 2>&1
	rc=$?
	sed 's/^/# /' "$LOG.client"
	[ "$rc" -eq 0 ] && arena_free "$LOG.client"
}
check "ixev client: 4 connections x 4 MB verified through a 256 KiB send buffer" \
	client -n 4 -B 4000000
check "ixev client from its own epoll loop on ixev_fd(): 8 x 200000 bytes verified" \
	client -n 8 -B 200000 -e
# 1024 call slots take 128 KiB of it for sendv arrays: 128 KiB of units
# for 8 send buffers of 256 KiB
check "8 x 1 MB verified through a 256 KiB arena (writable() when others free units)" \
	client -n 8 -B 1000000 -a 256
check "and the arena did turn sends away (arena waits > 0)" \
	grep -Eq " [1-9][0-9]* arena waits" "$LOG.client"
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null

# ---- UDP ----
start_probe udp -p 7
check "ixev_probe udp binds on cores 1 and 2" probe_ready
check "UDP datagrams of 1 to 1472 bytes echo exactly" \
	peer timeout 300 "$PY" "$UDP_CHECK" $DUT_IP 7 --sizes 1-1472
stop_probe
check "udp: no send failed, the arena all free" \
	eval 'grep -q "udp send failures 0" "$LOG" && arena_free "$LOG"'

tcp_stats_dump
check "no connection left (tcp_conns, tcp_established)" busywait 10000 tcp_stats_zero
check "every receive buffer came back (bufs_held 0)" busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
