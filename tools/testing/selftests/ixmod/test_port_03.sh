#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Malformed frames from the peer (scapy): each is dropped and counted under
# its own reason, exactly, nothing else is hurt, and the port still answers.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

tap_plan 6
dmesg_mark
if ! ports_setup; then
	for _ in 1 2 3 4 5 6; do tap_fail "port setup" "setup failed (# lines above)"; done
	ports_teardown
	tap_done
fi

drops="$(port_dir)/drops"
declare -A before
for f in "$drops"/*; do before[${f##*/}]=$(cat "$f"); done
replies0=$(port_stat stats/icmp_echo_replies)

# trace-cmd records the whole ixmod system while the frames arrive
dat=$(mktemp -d)/ixmod.dat
trace-cmd record -e ixmod -o "$dat" >/dev/null 2>&1 &
tcpid=$!
busywait 30000 grep -q 1 /sys/kernel/tracing/events/ixmod/ixm_drop/enable

out=$(peer /usr/bin/python3 "$_here/malformed.py" "$PEERIF" "$(cat "$(port_dir)/mac")" $DUT_IP $PEER_IP 5 2>&1)
sleep 1
bad=""
declare -A want
while read -r name n; do want[$name]=$n; done <<<"$out"
for f in "$drops"/*; do
	name=${f##*/}
	got=$(($(cat "$f") - ${before[$name]}))
	exp=${want[$name]:-0}
	[ "$got" -eq "$exp" ] || bad+="$name: expected +$exp, got +$got; "
done
check "every malformed frame counted under its reason (${#want[@]} reasons)" test -z "$bad" -a "${#want[@]}" -ge 10
[ -n "$bad" ] && echo "# $bad"
check "no echo reply to a malformed request" test "$(port_stat stats/icmp_echo_replies)" -eq "$replies0"
check "the port still answers pings" peer ping -c 3 -W 2 $DUT_IP
kill -INT $tcpid
wait $tcpid
report=$(trace-cmd report -i "$dat" 2>&1)
rm -rf "$(dirname "$dat")"
# csum_events: as many ip_csum drop events as drops; if not, the drop
# events that were recorded (which show where the recording began)
csum_events() {
	[ "$ncsum" -eq "${want[ip_csum]:-x}" ] && return
	grep 'ixm_drop:' <<<"$report" | head -n 20
	return 1
}
ncsum=$(grep -c 'ixm_drop:.*reason=ip_csum' <<<"$report")
check "trace-cmd: one ixm_drop event per ip_csum drop, named ($ncsum for ${want[ip_csum]:-?})" \
	csum_events
has_batches() {
	grep -q 'ixm_rx_batch:.*n=[1-9]' <<<"$report" &&
		grep -q 'ixm_tx_batch:.*sent=[1-9]' <<<"$report"
}
check "trace-cmd: rx and tx batch events" has_batches
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
