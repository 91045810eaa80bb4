#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RSS: pings from 16 peer addresses spread over both dataplane cores, and
# each flow (one source address) stays on one core.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

tap_plan 3
dmesg_mark
if ! ports_setup; then
	for _ in 1 2 3; do tap_fail "port setup" "setup failed (# lines above)"; done
	ports_teardown
	tap_done
fi

# read, not cat: a process per look is slow under emulation
core_rx() { local n; read -r n < "$IXMOD_SYSFS/dataplane/cpu$1/stats/rx_packets"; echo "$n"; }

for i in $(seq 10 25); do
	ip -n $PEER_NS addr add 198.18.0.$i/24 dev "$PEERIF"
done
for i in $(seq 10 25); do	# resolve ARP first, all at once
	peer ping -c 1 -W 2 -I 198.18.0.$i $DUT_IP >/dev/null &
done
wait
# ARP is not hashed (it lands on queue 0): pin the peer's entry so no
# re-resolution during the flows below counts against stickiness
ip -n $PEER_NS neigh replace $DUT_IP lladdr "$(cat "$(port_dir)/mac")" dev "$PEERIF" nud permanent

spread1=0 spread2=0 sticky=1
for i in $(seq 10 25); do
	a1=$(core_rx 1) a2=$(core_rx 2)
	peer ping -q -c 10 -i 0.02 -W 2 -I 198.18.0.$i $DUT_IP >/dev/null
	d1=$(($(core_rx 1) - a1)) d2=$(($(core_rx 2) - a2))
	echo "# flow from 198.18.0.$i: cpu1 +$d1, cpu2 +$d2"
	if [ "$d1" -ge 10 ] && [ "$d2" -eq 0 ]; then
		spread1=$((spread1 + 1))
	elif [ "$d2" -ge 10 ] && [ "$d1" -eq 0 ]; then
		spread2=$((spread2 + 1))
	else
		sticky=0
	fi
done
check "flows landed on cpu 1 ($spread1) and on cpu 2 ($spread2)" test "$spread1" -gt 0 -a "$spread2" -gt 0
check "each flow stayed on one core" test "$sticky" -eq 1
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
