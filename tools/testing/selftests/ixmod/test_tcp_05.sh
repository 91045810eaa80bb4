#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A peer names a tiny MSS (issue 15, item 0).  A raw-socket client in the
# peer namespace (tcp_inject.py mss) opens connections to tcp-echo
# --source 65536 with SYNs that carry MSS 1, 0, 11 and 12 with timestamps
# and MSS 1 without, and a window of 65535 << 7.  ixmod once took the
# timestamps' 12 bytes from an MSS below 12 in unsigned arithmetic and
# sent segments as long as the data: copied ones overran their buffer,
# gathered ones went out over the MTU with a wrapped IP length.  Now every
# segment must fit the MTU, carry at most the MSS budget (64 data bytes
# for these, 536 - 12 for MSS 0), have an IP length that is its frame's
# and a right checksum, and the 64 KiB arrive intact.  tcp_tx_oversize
# (segments ixm_tcp_xmit() had to refuse) stays 0, no connection or
# buffer is left once tcp-echo exits, and the kernel logged no warning.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

INJECT=$_here/tcp_inject.py
LOG=$(mktemp)
trap 'rm -f "$LOG" "$LOG.mss"' EXIT
# the MSS options of the connections, with timestamps and without; one
# client process for all of them (a Python start is slow under emulation)
MSS_TS="1 0 11 12"
MSS_NO_TS="1"
NTESTS=$(($(wc -w <<< "$MSS_TS $MSS_NO_TS") + 6))

tcp_test_begin "$NTESTS"
DUT_MAC=$(cat "$(port_dir)/mac")
# the client must see the DUT's segments as they were sent: GRO would
# hand its raw socket merged ones, over the MTU, checksums not redone
peer ethtool -K "$PEERIF" gro off || echo "# GRO stays on: merged segments will fail"

start_tcp_echo "$LOG" --source 65536 -p 7
check "tcp-echo --source 65536 listens" tcp_echo_ready "$LOG"

over0=$(tcp_stat tx_oversize)
zc0=$(tcp_stat tx_zerocopy)
cp0=$(tcp_stat tx_copied)
peer timeout 200 "$PY" "$INJECT" mss "$PEERIF" "$DUT_MAC" $DUT_IP 7 \
	--mss "${MSS_TS// /,}" --mss-no-ts "${MSS_NO_TS// /,}" > "$LOG.mss" 2>&1
for ts in with without; do
	list=$MSS_TS; [ $ts = without ] && list=$MSS_NO_TS
	for mss in $list; do
		desc="SYN with MSS $mss $ts timestamps: 64 KiB intact, every segment within the MSS budget and the MTU"
		# the client's comment lines for this connection, then its verdict
		diag=$(awk -v want="mss $mss $ts timestamps" '
			/^# / { buf = buf $0 "\n"; next }
			/^(not )?ok mss / { if ($0 == "ok " want || $0 == "not ok " want) printf "%s%s\n", buf, $0; buf = "" }
		' "$LOG.mss")
		if grep -qx "ok mss $mss $ts timestamps" <<< "$diag"; then
			tap_ok "$desc"
			grep '^# ' <<< "$diag"
		else
			tap_fail "$desc" "$(sed 's/^# //' <<< "${diag:-$(cat "$LOG.mss")}")"
		fi
	done
done
over=$(($(tcp_stat tx_oversize) - over0))
echo "# data segments: tcp_tx_zerocopy +$(($(tcp_stat tx_zerocopy) - zc0)), tcp_tx_copied +$(($(tcp_stat tx_copied) - cp0))"
check "no segment had to be refused for the MTU (tcp_tx_oversize +$over)" test "$over" -eq 0
check "every connection closed (tcp_established 0; the DUT's ends wait in TIME_WAIT)" \
	busywait 10000 holds -eq 0 tcp_stat established

stop_tcp_echo "$LOG"
check "no connection left once the context closed (tcp_conns, tcp_established)" \
	busywait 10000 tcp_stats_zero
check "every receive buffer came back (bufs_held 0)" \
	busywait 5000 bufs_held_zero
check "no kernel warning or error reported" dmesg_clean
ports_teardown
tap_done
