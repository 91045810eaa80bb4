#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-icmp-guest.sh - the guest half of scripts/bench-icmp: ICMP echo
# round trips and a flood from the Linux peer, first to ixmod's port, then
# to the same NIC driven by Linux's igb.
#
# Usage (inside the VM): bench-icmp-guest.sh OUTDIR IXMOD_KO COUNT FLOOD_SECONDS
#
# Writes OUTDIR/rtt-NAME.txt (one RTT in ms per line, in order) and
# OUTDIR/flood-NAME.txt ("sent received seconds") for NAME ixmod (cores
# polling: idle_us=0), ixmod-idle (idle_us=1000: an idle core sleeps and
# the queue's MSI-X interrupt wakes it) and linux (the same NIC under igb).

set -u
out=$1
export IXMOD_KO=$2
count=$3
flood=$4
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tools/testing/selftests/ixmod/test_common.sh
. "$top/tools/testing/selftests/ixmod/test_common.sh"
mkdir -p "$out"

say() { echo "bench-icmp: $*"; }

# measure NAME: RTT samples, then a flood, against $DUT_IP
measure() {
	local name=$1 s
	say "[$name] warm-up"
	peer ping -q -c 20 -i 0.01 -W 1 $DUT_IP >/dev/null
	say "[$name] $count echo round trips (ping -i 0.002)"
	peer ping -n -c "$count" -i 0.002 -W 1 $DUT_IP |
		sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' > "$out/rtt-$name.txt"
	say "[$name] $(wc -l < "$out/rtt-$name.txt") replies of $count"
	say "[$name] flood for $flood s (ping -f)"
	s=$(peer ping -q -f -w "$flood" $DUT_IP | sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p')
	echo "$s $flood" > "$out/flood-$name.txt"
	say "[$name] flood: sent/received $s"
}

say "setting up: ixmod on the first igb (cores 1-2, polling), Linux peer on the second"
if ! ports_setup; then
	say "setup failed"
	ports_teardown
	exit 1
fi
measure ixmod
echo 1000 > $IXMOD_SYSFS/idle_us
measure ixmod-idle
grep . "$(port_dir)"/stats/* | sed "s|$(port_dir)/||" > "$out/ixmod-stats.txt"

say "handing the NIC back to Linux's igb"
echo 0 > "$(port_dir)/up"
"$IXMOD_BIND" unbind "$DUT" >/dev/null || exit 1
busywait 5000 ls "/sys/bus/pci/devices/$DUT/net" || exit 1
dutif=$(ls "/sys/bus/pci/devices/$DUT/net")
ip addr add $DUT_IP/24 dev "$dutif"
ip link set "$dutif" up
busywait 15000 peer ping -c 1 -W 1 $DUT_IP || { say "Linux igb never answered"; exit 1; }
measure linux
ip link set "$dutif" down
ip addr flush dev "$dutif"
ip netns del $PEER_NS
echo "" > $IXMOD_SYSFS/cores
rmmod ixmod
say "done"
