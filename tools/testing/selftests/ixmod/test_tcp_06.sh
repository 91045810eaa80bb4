#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The port's PCI device is removed while TCP connections hold its buffers
# (issue 15).  tcp-echo --hold accepts connections from the peer and never
# returns a received byte (no recv_done), and a forged segment past a hole
# leaves data out of order on each connection (tcp_inject.py ooo).  Then
# the device is removed from the PCI bus.  Before the pools are freed the
# cores must let go of every buffer of them: right after the removal the
# dead context holds none (app_rx_bufs 0) and its connections are gone.
# The device is found again by a rescan and bound to ixmod at the same
# address; the holding context closes, the port comes up.  No kernel
# report (KFENCE, BUG, WARN: ixmod warns if a pool is freed with a buffer
# out), no connection, buffer, context or owner left, a fresh echo
# through the new port, and rmmod succeeds.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

CONNS=4
LOG=$(mktemp)
READY=$(mktemp -u)
trap 'rm -f "$LOG" "$READY"' EXIT
tcp_test_begin 18

ooo0=$(tcp_stat ooo)
start_tcp_echo "$LOG" --hold -p 7
hold_pid=$TCP_ECHO_PID
tcp_echo_ready "$LOG" || sed 's/^/# /' "$LOG"
# not through peer(): $! must be timeout's pid, so that SIGTERM reaches it
ip netns exec $PEER_NS timeout 300 "$PY" "$_here/tcp_inject.py" ooo "$PEERIF" "$(cat "$(port_dir)/mac")" \
	$DUT_IP 7 --conns $CONNS --bytes 3000 --hole 1000 --ready "$READY" &
ipid=$!
check "$CONNS peer connections sent 3000 bytes each and a segment past a hole" \
	busywait 60000 test -e "$READY"
check "the connections hold data out of order (tcp_ooo +$CONNS)" \
	busywait 10000 holds -ge $((ooo0 + CONNS)) tcp_stat ooo
held_all() {
	[ "$(grep -c 'holds 3000 bytes' "$LOG")" -eq $CONNS ] &&
		[ "$(port_stat stats/bufs_held)" -ge $((2 * CONNS)) ]
}
check "and in order, unread: 3000 bytes on each (bufs_held >= $((2 * CONNS)))" \
	busywait 10000 held_all

check "the device is removed from the PCI bus (within 30 s)" \
	timeout 30 sh -c "echo 1 > /sys/bus/pci/devices/$DUT/remove"
check "its port directory is gone" test ! -e "$(port_dir)"
check "tcp-echo hears its port is gone, and keeps its context open" \
	busywait 10000 bash -c "grep -q 'lost its port' '$LOG' && kill -0 $hold_pid"

# what the dead context held went back before the pools were freed
detached() {
	local f sum=0
	for f in "$IXMOD_SYSFS"/dataplane/cpu*/stats/app_rx_bufs; do
		sum=$((sum + $(cat "$f")))
	done
	[ "$sum" -eq 0 ] && tcp_stats_zero
}
check "its connections are gone and it holds no buffer (app_rx_bufs 0, tcp_conns 0)" \
	busywait 5000 detached

# the same device again, bound and addressed before the old context closes
# (up waits for that: a port goes up only with no context attached).
# A rescan probes the device with the driver whose IDs match (Linux's
# igb): pci_bus_add_device() calls device_attach(), which does not ask
# drivers_autoprobe.  igb is left to finish its probe (its net device
# registered, udev's rename done) before ixmod-bind takes the device
# from it, as the other tests take their ports from an igb that has
# settled: a device unbound in the middle of igb's probe and rename
# is not what this test is about.
reprobe() {
	echo 1 > /sys/bus/pci/rescan || return 1
	busywait 10000 test -e "/sys/bus/pci/devices/$DUT" || { echo "# no $DUT after rescan"; return 1; }
	if [ -e "/sys/bus/pci/devices/$DUT/driver" ]; then
		busywait 10000 bash -c "ls /sys/bus/pci/devices/$DUT/net/* >/dev/null 2>&1" ||
			echo "# $DUT's driver registered no net device within 10 s"
		command -v udevadm >/dev/null && udevadm settle --timeout=10
	fi
	"$IXMOD_BIND" bind "$DUT" || return 1
	echo $DUT_IP/24 > "$(port_dir)/ipv4"
}
check "a PCI rescan finds it; ixmod takes it, at $DUT_IP" reprobe

kill -INT "$hold_pid" 2>/dev/null
wait "$hold_pid"
rc=$?
sed 's/^/# /' "$LOG"
check "the holding tcp-echo closes its dead context (status 1: it lost its port; status $rc)" \
	test "$rc" = 1
port_up() {
	echo 1 > "$(port_dir)/up" || return 1
	busywait 10000 grep -q '^up' "$(port_dir)/link" || { echo "# link stays down"; return 1; }
}
check "the new port comes up at the same address" port_up
kill "$ipid" 2>/dev/null	# it resets its connections
wait "$ipid" 2>/dev/null

core_levels_zero() {
	local d
	for d in "$IXMOD_SYSFS"/dataplane/cpu*; do
		[ "$(cat "$d/contexts")" -eq 0 ] && [ "$(cat "$d/owner")" -eq 0 ] || return 1
	done
}
check "no context and no owner left on any core" busywait 5000 core_levels_zero
check "no connection left (tcp_conns, tcp_established)" busywait 10000 tcp_stats_zero
check "no buffer of the new port held (bufs_held 0)" busywait 5000 bufs_held_zero

echo_again() {
	start_tcp_echo "$LOG" -p 7
	tcp_echo_ready "$LOG" || { sed 's/^/# /' "$LOG"; return 1; }
	peer timeout 120 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --bytes 50000 2>&1
	local rc=$?
	stop_tcp_echo "$LOG"
	return $rc
}
check "a fresh tcp-echo echoes 50000 bytes through the new port" echo_again
all_zero() { bufs_held_zero && tcp_stats_zero; }
check "and gives back every buffer (bufs_held 0, tcp_conns 0)" busywait 10000 all_zero
check "no kernel report (BUG, WARNING, KFENCE, ...)" dmesg_clean
ports_teardown
# the namespace goes asynchronously; the next test needs the peer's NIC back
peer_back() { [ -n "$(ls "/sys/bus/pci/devices/$PEER/net" 2>/dev/null)" ]; }
check "the peer's NIC is back in the first namespace (within 60 s)" busywait 60000 peer_back
check "rmmod ixmod succeeds" ixmod_unload
ixmod_load
tap_done
