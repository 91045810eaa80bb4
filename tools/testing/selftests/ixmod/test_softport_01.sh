#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A software port, no NIC at all: /sys/kernel/ixmod/softports/new makes
# the netdev ixsw0 and the port ixsw0, whose netdev Linux's TCP/UDP use
# from the peer namespace.  Bad requests get an errno and one dmesg line;
# pings wake sleeping cores; flows spread over both cores by the port's
# Toeplitz key; the port's counters match the netdev's frame for frame;
# a partial checksum from Linux's TCP is completed by the copy; the
# key-value server passes memccapable through it; a port that is up
# cannot be deleted; unloading the module removes a port that is up.  The other port tests run on it too (group softport).

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

IXMOD_TEST_NIC=softport
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
NTESTS=19

# fails_with ERRNO-TEXT DMESG-ERE FILE VALUE: the write is refused with
# that error and the kernel says why in one line
fails_with() {
	local want=$1 line=$2 file=$3 value=$4 out
	dmesg_mark
	if out=$(bash -c "echo '$value' > '$file'" 2>&1); then
		echo "the write of '$value' to $file succeeded"
		return 1
	fi
	case "$out" in
	*"$want"*) ;;
	*) echo "expected '$want', got: $out"; return 1 ;;
	esac
	dmesg_since | grep -E -q "$line" || { echo "no dmesg line matching '$line'"; dmesg_since; return 1; }
}

tap_plan $NTESTS
dmesg_mark
ixmod_load
check "softports/new makes the netdev ixsw0 and the port ports/ixsw0" \
	sh -c "echo 0 > $IXMOD_SYSFS/softports/new && test -d /sys/class/net/ixsw0 &&
	       test -d $IXMOD_SYSFS/ports/ixsw0 && grep -qx ixsw0 $IXMOD_SYSFS/softports/list"
check "a second ixsw0 is refused (EEXIST, one dmesg line)" \
	fails_with "File exists" "softports: new: ixsw0 exists" $IXMOD_SYSFS/softports/new 0
check "a name that is not a number 0-63 is refused (EINVAL)" \
	fails_with "Invalid argument" "softports: new: write a number" $IXMOD_SYSFS/softports/new 64
check "deleting a software port that does not exist is refused (ENOENT)" \
	fails_with "No such file" "softports: del: there is no ixsw5" $IXMOD_SYSFS/softports/del 5
check "an MTU a 2 KiB buffer cannot carry is refused; 1500 is taken" \
	sh -c '! ip link set ixsw0 mtu 1501 2>/dev/null && ip link set ixsw0 mtu 1500'
echo 0 > $IXMOD_SYSFS/softports/del

if ! ports_setup; then
	for _ in $(seq $((NTESTS - 5))); do tap_fail "port setup" "setup failed (# lines above)"; done
	ports_teardown
	tap_done
fi
check "the peer reaches the port: the ARP entry names the port's MAC" \
	sh -c "ip -n $PEER_NS neigh show $DUT_IP | grep -qi \"\$(cat $(port_dir)/mac)\""

# cores that sleep idle are woken by a frame, as a NIC's MSI-X would
all_sleeps() { cat "$IXMOD_SYSFS"/dataplane/cpu*/stats/sleeps | awk '{ n += $1 } END { print n }'; }
echo 100 > $IXMOD_SYSFS/idle_us
s0=$(all_sleeps)
sleep 1
check "sleeping cores are woken by the frames Linux sends: 20 pings, none lost" \
	peer ping -q -c 20 -i 0.2 -W 2 $DUT_IP
s1=$(all_sleeps)
check "the cores slept between the pings ($s0 -> $s1 sleeps)" test $((s1 - s0)) -ge 10
idle_default

start_tcp_echo "$LOG" -p 7
check "tcp-echo listens on cores 1 and 2" tcp_echo_ready "$LOG"
check "sizes from 1 to 65536 bytes echo byte for byte through the software port" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --sizes 1,100,1460,1461,4096,65536
check "16 connections at once echo 100000 bytes each" \
	peer timeout 300 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --parallel 16 --bytes 100000
stop_tcp_echo "$LOG"
c1=$(sed -n 's/^tcp-echo: cpu 1: \([0-9]*\) conns.*/\1/p' "$LOG")
c2=$(sed -n 's/^tcp-echo: cpu 2: \([0-9]*\) conns.*/\1/p' "$LOG")
check "the port's Toeplitz hash spread the connections over both cores (${c1:-?}/${c2:-?})" \
	test "${c1:-0}" -gt 0 -a "${c2:-0}" -gt 0
check "Linux's partial TCP checksums were completed by the copy (rx_csum_hw $(port_stat stats/rx_csum_hw)), the port's left to Linux (tx_csum_hw $(port_stat stats/tx_csum_hw))" \
	test "$(port_stat stats/rx_csum_hw)" -gt 0 -a "$(port_stat stats/tx_csum_hw)" -gt 0

# the key-value server, with no NIC
MEMCAPABLE=$(command -v memccapable || command -v memcapable)
"$_here/../../../../libixu/examples/kv/kv-ixev" -p 11211 -m 64 > "$LOG" 2>&1 &
kv=$!
busywait 10000 grep -q 'ready\|kv-ixev: cpu\|usage' "$LOG"
check "memccapable -a passes against kv-ixev through the software port" \
	peer timeout 300 "$MEMCAPABLE" -h $DUT_IP -p 11211 -a
kill -INT "$kv" 2>/dev/null
wait "$kv"

# counters: what Linux sent is what the port received, and back
nd_stat() { ip netns exec $PEER_NS cat /sys/class/net/ixsw0/statistics/"$1"; }
counters_match() {
	[ "$(nd_stat tx_packets)" = "$(port_stat stats/rx_packets)" ] &&
		[ "$(nd_stat rx_packets)" = "$(port_stat stats/tx_packets)" ] &&
		[ "$(nd_stat tx_dropped)" = 0 ] && [ "$(nd_stat rx_dropped)" = 0 ]
}
check "ixsw0's counters match the port's frame for frame (Linux tx $(nd_stat tx_packets) = port rx $(port_stat stats/rx_packets), Linux rx $(nd_stat rx_packets) = port tx $(port_stat stats/tx_packets))" \
	busywait 5000 counters_match

check "a port that is up cannot be deleted (EBUSY, one dmesg line)" \
	fails_with "busy" "ixsw0 is up; write 0 to" $IXMOD_SYSFS/softports/del 0
check "every receive buffer came back (bufs_held 0)" busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean

# unloading the module with the port up takes it down and removes it
ip netns pids $PEER_NS 2>/dev/null | xargs -r kill -9 2>/dev/null
check "rmmod with the software port up removes port and netdev" \
	sh -c "rmmod ixmod && ! ip -n $PEER_NS link show ixsw0 2>/dev/null && ! test -d /sys/class/net/ixsw0"
ip netns del $PEER_NS 2>/dev/null
ixmod_load
DUT=""
tap_done
