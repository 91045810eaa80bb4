#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The port goes away under a streaming TCP context.  tcp-echo --source
# streams to a Linux peer, zero-copy from its transmit arena, and the
# port's PCI device is unbound from ixmod meanwhile (what PCI removal
# does).  The unbind must finish, the context die cleanly (tcp-echo says
# it lost its port and exits with status 1 by itself), the arena come
# back without waiting out the NIC, no connection or buffer stay behind,
# and the kernel log stay free of errors (no DMAR fault behind the
# IOMMU).  Then ixmod takes the same device again and serves an echo:
# nothing was left half-configured.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
tcp_test_begin 11

zc0=$(tcp_stat tx_zerocopy)
start_tcp_echo "$LOG" --source 1000000000 -p 7
tcp_echo_ready "$LOG" || sed 's/^/# /' "$LOG"
# not through peer(): kill must reach timeout (and so the client), not a subshell
ip netns exec $PEER_NS timeout 120 "$PY" "$TCP_CHECK" recv $DUT_IP 7 --bytes 1000000000 >/dev/null 2>&1 &
rpid=$!
check "tcp-echo streams from its arena (tcp_tx_zerocopy +500)" \
	busywait 30000 holds -gt $((zc0 + 500)) tcp_stat tx_zerocopy

# unbind the device from ixmod, as PCI removal would, with frames that
# point into the arena still in the TX ring
check "ixmod lets go of the device while tcp-echo streams (within 30 s)" \
	timeout 30 sh -c "echo $DUT > /sys/bus/pci/drivers/ixmod/unbind"
check "its port directory is gone" test ! -e "$(port_dir)"
check "one kernel line says the contexts died with the port" \
	test "$(dmesg_since | grep -c "ports: $DUT: removed under [0-9]* application contexts")" -eq 1

exited() { ! kill -0 "$TCP_ECHO_PID" 2>/dev/null; }
if busywait 10000 exited; then
	wait "$TCP_ECHO_PID"
	rc=$?
else
	echo "# tcp-echo still runs 10 s after its port went away"
	kill -KILL "$TCP_ECHO_PID"
	wait "$TCP_ECHO_PID"
	rc=none
fi
sed 's/^/# /' "$LOG"
check "tcp-echo stopped by itself with status 1 (status $rc)" test "$rc" = 1
check "tcp-echo said it lost its port" grep -q 'lost its port' "$LOG"
kill "$rpid" 2>/dev/null
wait "$rpid" 2>/dev/null

check "its arena was given back at once (no 'still reads' in the kernel log)" \
	bash -c "! dmesg | grep -q 'still reads .* transmit arena'"
check "no connection left (tcp_conns, tcp_established)" busywait 10000 tcp_stats_zero

# the same device, bound again: an echo through a new context works
rebind_and_echo() {
	"$IXMOD_BIND" bind "$DUT" >/dev/null || return 1
	echo $DUT_IP/24 > "$(port_dir)/ipv4" || return 1
	echo 1 > "$(port_dir)/up" || return 1
	busywait 10000 grep -q '^up' "$(port_dir)/link" || { echo "# link stays down"; return 1; }
	start_tcp_echo "$LOG" -p 7
	tcp_echo_ready "$LOG" || { sed 's/^/# /' "$LOG"; return 1; }
	peer timeout 120 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --bytes 200000 2>&1
	local rc=$?
	stop_tcp_echo "$LOG"
	return $rc
}
check "ixmod binds the device again and echoes 200000 bytes through it" rebind_and_echo
check "every receive buffer came back (bufs_held 0)" busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
