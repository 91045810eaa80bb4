#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A port on QEMU's igb (or, with IXMOD_TEST_NIC=virtio, a virtio-net NIC)
# with a Linux peer: ICMP echo at several sizes with no loss, arping,
# counters that move, down/up with traffic, and unbind giving the NIC
# back to Linux's driver (igb, virtio_net), which then works.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

tap_plan 27
dmesg_mark
if ! ports_setup; then
	for _ in $(seq 1 22); do tap_fail "port setup" "setup failed (# lines above)"; done
	ports_teardown
	tap_done
fi

ok=1
for size in 0 56 100 512 1000 1472; do
	peer ping -q -c 5 -i 0.2 -W 2 -s $size $DUT_IP >/dev/null || { ok=0; echo "# ping -s $size lost replies"; }
done
check "ping at sizes 0..1472 with no loss" test $ok -eq 1
check "icmp_echo_replies counted" test "$(port_stat stats/icmp_echo_replies)" -ge 30
if [ "$IXMOD_TEST_NIC" = virtio ]; then
	# virtio vouches for TCP/UDP checksums only (DATA_VALID): the stack
	# checked these IPv4 headers itself
	check "no checksum vouched for by virtio on ICMP (rx_csum_hw 0)" \
		test "$(port_stat stats/rx_csum_hw)" -eq 0
else
	check "the NIC checked IPv4 header checksums (rx_csum_hw)" \
		test "$(port_stat stats/rx_csum_hw)" -ge 30
fi
check "rx and tx counters moved" test "$(port_stat stats/rx_packets)" -gt 30 -a "$(port_stat stats/tx_packets)" -gt 30
# idle cores sleep; a frame's MSI-X interrupt wakes the owning core
echo 1000 > $IXMOD_SYSFS/idle_us
asleep() { grep -q sleeping $IXMOD_SYSFS/dataplane/cpu1/state &&
	grep -q sleeping $IXMOD_SYSFS/dataplane/cpu2/state; }
wakeups() { echo $(($(cat $IXMOD_SYSFS/dataplane/cpu1/stats/wakeups) +
	$(cat $IXMOD_SYSFS/dataplane/cpu2/stats/wakeups))); }
busywait 10000 asleep
w0=$(wakeups)
check "sleeping cores answer pings" peer ping -c 3 -i 0.5 -W 2 $DUT_IP
check "the queue interrupt woke a core ($w0 -> $(wakeups) wakeups)" test "$(wakeups)" -gt "$w0"
# The idle policy adapts (runner.c): a core polls idle_us only while its
# idle periods average under an eighth of it.  Pings 5 ms apart with
# idle_us 10000 (1.25 ms): it sleeps between them (a fixed 10 ms of
# polling would never sleep); a flood (each ping waits for the last one's
# reply) with idle_us 40000 (5 ms): it polls.  Not the same idle_us: a
# flood's round trip under emulation on a busy host can pass 1.25 ms,
# and then sleeping is the policy's right answer.
sleeps() { echo $(($(cat $IXMOD_SYSFS/dataplane/cpu1/stats/sleeps) +
	$(cat $IXMOD_SYSFS/dataplane/cpu2/stats/sleeps))); }
echo 10000 > $IXMOD_SYSFS/idle_us
s0=$(sleeps)
peer ping -q -c 60 -i 0.005 -W 2 $DUT_IP > /dev/null
s1=$(sleeps)
check "60 pings 5 ms apart, idle_us 10000: the core sleeps between them ($((s1 - s0)) sleeps)" \
	test $((s1 - s0)) -ge 30
echo 40000 > $IXMOD_SYSFS/idle_us
s1=$(sleeps)
peer ping -q -f -c 2000 -W 2 $DUT_IP > /dev/null
s2=$(sleeps)
check "a flood of 2000 pings: the core polls ($((s2 - s1)) sleeps, at most 500)" \
	test $((s2 - s1)) -le 500
idle_default
check "arping gets answers" peer arping -c 3 -w 5 -I "$PEERIF" $DUT_IP
check "arp_replies_out counted" test "$(port_stat stats/arp_replies_out)" -ge 3
mac=$(cat "$(port_dir)/mac")
check "the peer learned our MAC ($mac)" bash -c "[ -n '$mac' ] && ip -n $PEER_NS neigh show $DUT_IP | grep -qi -- ' $mac '"

# down and up again while a ping flood runs
peer ping -q -f -w 6 $DUT_IP >/dev/null 2>&1 &
flood=$!
sleep 1
echo 0 > "$(port_dir)/up"
check "down: up reads 0, no queues" test "$(cat "$(port_dir)/up")" = 0 -a -z "$(cat "$(port_dir)/queues")"
# the peer watches for our gratuitous ARP (sender IP == target IP)
garp_out=$(mktemp)
peer timeout 60 tcpdump -l -c 1 -n -i "$PEERIF" 'arp and arp[14:4] = arp[24:4]' \
	> "$garp_out" 2> "$garp_out.err" &
garp=$!
# capturing once it says so (a fixed sleep lost the race on a loaded host)
busywait 30000 grep -q 'listening on' "$garp_out.err"
echo 1 > "$(port_dir)/up"
wait $flood
wait $garp
check "a gratuitous ARP goes out when the port comes up" \
	grep -qE "who-has $DUT_IP( \\([0-9a-f:]+\\))? tell $DUT_IP" "$garp_out"
rm -f "$garp_out" "$garp_out.err"
check "up again: pings answered" busywait 10000 peer ping -c 1 -W 1 $DUT_IP
check "cores cannot change while the port is up" bash -c "! echo 1 > $IXMOD_SYSFS/cores 2>/dev/null"

# an address written while both cores sleep is announced at once: the
# write wakes queue 0's core, which nothing else would (no frame comes,
# no timer is pending)
busywait 10000 asleep
garp_out=$(mktemp)
peer timeout 20 tcpdump -l -c 1 -n -i "$PEERIF" 'arp and arp[14:4] = arp[24:4]' \
	> "$garp_out" 2> "$garp_out.err" &
garp=$!
busywait 30000 grep -q 'listening on' "$garp_out.err"
busywait 10000 asleep
echo "$DUT_IP/24" > "$(port_dir)/ipv4"
wait $garp
check "an address written while the cores sleep is announced (gratuitous ARP)" \
	grep -qE "who-has $DUT_IP( \\([0-9a-f:]+\\))? tell $DUT_IP" "$garp_out"
rm -f "$garp_out" "$garp_out.err"

# unbind with traffic flowing: Linux's driver takes the NIC back and uses it
peer ping -q -i 0.05 -w 4 $DUT_IP >/dev/null 2>&1 &
flood=$!
sleep 1
check "unbind while traffic flows" "$IXMOD_BIND" unbind "$DUT"
wait $flood
# udev may still be renaming the new interface (eth0 to its stable name)
udevadm settle -t 60 2>/dev/null
dutif=$(ls "$(nic_netdev_dir "$DUT")" 2>/dev/null)
check "$NIC_DRIVER owns the NIC again" test -n "$dutif"
ip addr add $DUT_IP/24 dev "$dutif"
ip link set "$dutif" up
check "Linux networking works on it" busywait 15000 ping -c 1 -W 1 $PEER_IP
# up with an address, the interface carries traffic: ixmod-bind refuses
# it (a remote machine's only NIC) unless --force, and says why
bind_refused() {
	local out rc=0
	out=$("$IXMOD_BIND" bind "$DUT" 2>&1) && rc=1
	echo "# ixmod-bind said: $out"
	grep -qF "is $dutif, which is up,$DUT_IP/24: " <<<"$out" || rc=1
	grep -qF "take it down first" <<<"$out" || rc=1
	test "$(basename "$(readlink -f /sys/bus/pci/devices/$DUT/driver)")" != ixmod || rc=1
	test -e "/sys/class/net/$dutif" || rc=1
	return $rc
}
check "ixmod-bind refuses $dutif while it is up with an address" bind_refused
check "ixmod-bind list names $dutif, up, with its address" \
	bash -c "'$IXMOD_BIND' list | grep -qF ' $dutif (up,$DUT_IP/24)'"
ip link set "$dutif" down
ip addr flush dev "$dutif"

check "rebind to ixmod and answer again" bash -c "'$IXMOD_BIND' bind $DUT >/dev/null && echo $DUT_IP/24 > $(port_dir)/ipv4 && echo 1 > $(port_dir)/up"
check "the rebound port answers" busywait 10000 peer ping -c 1 -W 1 $DUT_IP

# rmmod with the port up and pings arriving: everything stops cleanly
peer ping -q -i 0.05 -w 3 $DUT_IP >/dev/null 2>&1 &
flood=$!
sleep 1
check "rmmod with the port up" rmmod ixmod
wait $flood
check "no dataplane thread left" test "$(dp_threads)" -eq 0
check "the port goes back to $NIC_DRIVER after rmmod" \
	bash -c "'$IXMOD_BIND' unbind $DUT && ls $(nic_netdev_dir "$DUT")"
check "no kernel error reported" dmesg_clean
ip netns del $PEER_NS 2>/dev/null
tap_done
