#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No process reads a frame that was not delivered to it.  A receive
# region shows every buffer of its core's pools, and RSS or software
# steering puts any flow of a port on any of the port's cores, so a port
# belongs to one process at a time (Documentation/design/ixmod.rst,
# "Isolation"):
#
#   - while udp-echo or tcp-echo owns the port from cpu 1, a hostile
#     process (rx_scan) is refused cpu 2 (EBUSY, one dmesg line), and the
#     datagrams RSS puts on cpu 2 are dropped and counted there;
#   - a process that comes back to cpu 2 after the owner left finds the
#     core's buffers zeroed: the marker the peer sent is seen 0 times;
#   - on the test's NIC (igb or virtio-net, with RSS or steering), and
#     with igb (make check's 6.1 VM) also on a software port;
#   - ports served by disjoint cores (ports/<port>/cores) belong to
#     different processes: rx_scan on the other port's core sees 0
#     markers while udp-echo echoes all 64 flows on its own.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

SCAN=$_here/rx_scan
ISO=$_here/iso_peer.py
UDP_ECHO=$_here/../../../../libixu/examples/udp-echo
TMP=$(mktemp -d)
MARK=ixmod-isolation-$$-$RANDOM$RANDOM
ISO_NS=ixiso
SP=5			# the software port ixsw5
SP_IP=198.18.5.1
SP_PEER=198.18.5.2
trap 'rm -rf "$TMP"' EXIT

# start LOG PROGRAM ARGS...: in the background, its pid in BG_PID
start() {
	local log=$1
	shift
	"$@" > "$log" 2>&1 &
	BG_PID=$!
}
ready() { busywait 20000 grep -q 'ready\|attached\|cpu' "$1"; grep -q 'ready\|attached' "$1"; }
stop() { kill -INT "$1" 2>/dev/null; wait "$1"; }

# refused PORTDIR OWNER_PID: rx_scan on cpu 2 gets EBUSY and the dmesg
# line names the owner
refused() {
	local out
	out=$("$SCAN" 2 "$MARK" 2>&1)
	echo "# rx_scan: $out"
	[[ $out == *"Device or resource busy"* ]] &&
		dmesg_since | grep -q "cpu 2 serves port .*, which pid $2 owns"
}

owner_is() { [ "$(cat "$1/owner")" = "$2" ]; }

# fresh_neigh NS: the peer in NS forgets the port's MAC, so that its next
# datagram follows an ARP request, from which the port learns the peer's
# (RFC 826's merge).  The port's entry may have expired during the
# earlier checks, and ixmod does not hold a datagram for a neighbour being
# resolved: the first echo would fail (-EAGAIN) and the 64 flows would
# not add up, for a reason that is not this test's.
fresh_neigh() { ip -n "$1" neigh flush all >/dev/null 2>&1; }

# all_accounted PORTDIR BEFORE LOG: every one of 64 datagrams was echoed
# on cpu 1 or dropped and counted (drops/udp_no_sock) on cpu 2
all_accounted() {
	local echoed drops
	echoed=$(sed -n 's/^echoed \([0-9]*\) of 64/\1/p' "$3")
	drops=$(($(cat "$1/drops/udp_no_sock") - $2))
	echo "# echoed ${echoed:-?} on cpu 1, udp_no_sock +$drops on cpu 2"
	[ $((${echoed:-0} + drops)) -eq 64 ] && [ "${echoed:-0}" -gt 0 ] && return
	# where the others went: every drop reason and core counter not zero
	grep -v '^0$' -H "$1"/drops/* "$IXMOD_SYSFS"/dataplane/cpu[12]/stats/rx_* 2>/dev/null |
		sed 's/^/# /'
	return 1
}

# scan_result LOG: the number rx_scan printed
scan_result() { sed -n 's/.*marker seen \([0-9]*\) times/\1/p' "$1"; }
seen_zero() { [ "$(scan_result "$1")" = 0 ]; }

# one_owner NAME PORTDIR NS HOST: the checks of one port served by cpus
# 1 and 2, its peer in namespace NS reaching it at HOST (6 checks).  The
# returning process comes back before any other process tries cpu 2, so
# that the core's last owner is still itself
one_owner() {
	local name=$1 dir=$2 ns=$3 host=$4 flag=$TMP/back-$1 y e before
	local ylog=$TMP/y-$1 elog=$TMP/e-$1 plog=$TMP/p-$1

	start "$ylog" "$SCAN" -r "$flag" 2 "$MARK"
	y=$BG_PID
	check "$name: rx_scan attaches to cpu 2 and leaves" ready "$ylog"
	busywait 5000 owner_is "$dir" 0
	start "$elog" "$UDP_ECHO" -p 7 -c 1
	e=$BG_PID
	busywait 10000 grep -q 'ready\|udp-echo: cpu' "$elog"
	check "$name: udp-echo on cpu 1 owns the port (owner $(cat "$dir/owner"))" owner_is "$dir" $e
	before=$(cat "$dir/drops/udp_no_sock")
	fresh_neigh "$ns"
	ip netns exec "$ns" "$PY" "$ISO" udp "$host" 7 "$MARK" 64 > "$plog" 2>&1
	check "$name: 64 flows: each echoed on cpu 1 or dropped and counted on cpu 2" \
		all_accounted "$dir" "$before" "$plog"
	stop $e
	grep 'udp-echo: cpu' "$elog" | sed 's/^/# /'	# what it echoed, and its errors
	touch "$flag"
	wait $y
	sed 's/^/# /' "$ylog"
	check "$name: back on cpu 2 after the owner left, rx_scan sees the marker 0 times" \
		seen_zero "$ylog"
	start "$elog" "$UDP_ECHO" -p 7 -c 1
	e=$BG_PID
	busywait 10000 grep -q 'ready\|udp-echo: cpu' "$elog"
	ip netns exec "$ns" "$PY" "$ISO" udp "$host" 7 "$MARK" 64 > "$plog" 2>&1
	check "$name: with udp-echo on cpu 1, a process on cpu 2 is refused (EBUSY, one dmesg line)" \
		refused "$dir" $e
	stop $e
	start "$elog" "$TCP_ECHO" -p 7 -c 1
	e=$BG_PID
	tcp_echo_ready "$elog"
	ip netns exec "$ns" "$PY" "$ISO" tcp "$host" 7 "$MARK" 16 > "$plog" 2>&1
	echo "# tcp-echo on cpu 1: $(cat "$plog") connections"
	check "$name: with tcp-echo on cpu 1 and connections flowing, a process on cpu 2 is refused" \
		refused "$dir" $e
	stop $e
}

# softport_up N IP CORES: the software port ixswN up with IP/24 on CORES
softport_up() {
	local d=$IXMOD_SYSFS/ports/ixsw$1
	[ -d "$d" ] || echo "$1" > $IXMOD_SYSFS/softports/new || return 1
	echo "$3" > "$d/cores" && echo "$2/24" > "$d/ipv4" && echo 1 > "$d/up"
}

# the software port's phase once per make check, in the igb VMs (the
# port code is the same whatever the test's NIC)
if [ "$IXMOD_TEST_NIC" = igb ]; then
	port_test_begin 20
else
	port_test_begin 13
fi
[ -x "$SCAN" ] || echo "# $SCAN is missing: make -C tools/testing/selftests/ixmod"

one_owner "$IXMOD_TEST_NIC" "$(port_dir)" $PEER_NS $DUT_IP

# the same on a software port, with the test's port down
echo 0 > "$(port_dir)/up"
ip netns del $ISO_NS 2>/dev/null
ip netns add $ISO_NS
sp_ok() {
	softport_up $SP $SP_IP all || return 1
	ip link set ixsw$SP netns $ISO_NS &&
	ip -n $ISO_NS addr add $SP_PEER/24 dev ixsw$SP &&
	ip -n $ISO_NS link set ixsw$SP up &&
	busywait 10000 ip netns exec $ISO_NS ping -c1 -W1 $SP_IP
}
SPD=$IXMOD_SYSFS/ports/ixsw$SP
if [ "$IXMOD_TEST_NIC" = igb ]; then
	check "a software port ixsw$SP on cpus 1-2, its peer in a namespace" sp_ok
	one_owner softport "$SPD" $ISO_NS $SP_IP
	echo 0 > "$SPD/up"
else
	[ -d "$SPD" ] || echo $SP > $IXMOD_SYSFS/softports/new
fi

# two ports on disjoint cores: two owners
bad_cores() {
	! echo 1-2x > "$(port_dir)/cores" 2>/dev/null &&
	dmesg_since | grep -q "cores: '1-2x' is not a CPU list" &&
	echo 1 > "$(port_dir)/up" && ! echo 1 > "$(port_dir)/cores" 2>/dev/null &&
	dmesg_since | grep -q "cores: the port is up; write 0 to up first" &&
	echo 0 > "$(port_dir)/up"
}
check "ports/*/cores refuses a bad list (EINVAL) and a change while up (EBUSY)" bad_cores
split() {
	echo 1 > "$(port_dir)/cores" && echo 1 > "$(port_dir)/up" &&
	echo 2 > "$SPD/cores" && echo 1 > "$SPD/up" &&
	grep -qx 1 "$(port_dir)/cores" && grep -qx 2 "$SPD/cores" &&
	[ "$(wc -w < "$(port_dir)/queues")" = 1 ] && grep -q ':2$' "$SPD/queues" &&
	busywait 10000 peer ping -c1 -W1 $DUT_IP
}
check "the test's port on cpu 1 and ixsw$SP on cpu 2 (cores, queues)" split
start "$TMP/y" "$SCAN" -w 300 2 "$MARK"
y=$BG_PID
check "rx_scan attaches to cpu 2, which serves only ixsw$SP" ready "$TMP/y"
start "$TMP/e" "$UDP_ECHO" -p 7 -c 1
e=$BG_PID
busywait 10000 grep -q 'ready\|udp-echo: cpu' "$TMP/e"
fresh_neigh $PEER_NS
peer "$PY" "$ISO" udp $DUT_IP 7 "$MARK" 64 > "$TMP/p" 2>&1
check "udp-echo on cpu 1 echoes all 64 flows ($(cat "$TMP/p"))" grep -qx "echoed 64 of 64" "$TMP/p"
two_owners() { owner_is "$(port_dir)" $e && owner_is "$SPD" $y; }
check "each port has its own owner" two_owners
stop $y
sed 's/^/# /' "$TMP/y"
check "rx_scan on cpu 2 saw the marker 0 times while it flowed" seen_zero "$TMP/y"
stop $e

echo 0 > "$SPD/up"
ip -n $ISO_NS link set ixsw$SP netns 1 2>/dev/null
ip netns del $ISO_NS 2>/dev/null
echo $SP > $IXMOD_SYSFS/softports/del
echo 0 > "$(port_dir)/up"
echo all > "$(port_dir)/cores"
check "no kernel report" dmesg_clean
ports_teardown
tap_done
