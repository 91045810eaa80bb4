#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vnet_backend_check.sh - what scripts/vm-run --virtio gives the guest,
# checked with Linux's own virtio_net on both NICs (no ixmod): the two
# NICs found by their MACs, the feature bits ixmod's virtio-net driver
# will need, N queue pairs and RSS spreading flows over them, and
# traffic between the two through the host's bridge.
#
# Usage, in a guest booted by scripts/vm-run --virtio N:
#   tools/testing/selftests/ixmod/vnet_backend_check.sh [OUTDIR]
# e.g. from the host:
#   scripts/vm-run -k 6.12 -n 0 --virtio 4 -w /tmp/vnetchk -- \
#       tools/testing/selftests/ixmod/vnet_backend_check.sh /tmp/vnetchk
#
# Prints TAP; with OUTDIR also leaves it in OUTDIR/vnet_backend_check.tap
# and the exit status in OUTDIR/vnet_backend_check.rc (the console may
# garble lines under emulation).  On the hub fallback (ixmod_vnet=hub:1)
# the checks of queues, RSS and checksum offload are skipped with the
# reason, never passed.  The feature bits read are those virtio_net
# negotiated, which it takes whenever the device offers them: a bit set
# there was offered.

if [ -n "${1:-}" ]; then
	mkdir -p "$1"
	"$0" > "$1/vnet_backend_check.tap" 2>&1
	rc=$?
	echo "$rc" > "$1/vnet_backend_check.rc"
	cat "$1/vnet_backend_check.tap"
	exit "$rc"
fi

IXMOD_TEST_NIC=virtio
# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

DUT_NS=ixvdut	# the device under test's netdev; the peer's is in $PEER_NS
PORT=5001
NTESTS=10

cleanup() {
	local ns
	for ns in $DUT_NS $PEER_NS; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
}
trap cleanup EXIT

# rest_fail WHY: the checks not yet run fail, and the test ends
rest_fail() {
	while [ "$_tap_n" -lt "$NTESTS" ]; do tap_fail "not run" "$1"; done
	tap_done
}

# features_of DEV: the feature bits virtio_net negotiated with DEV, a 0
# or 1 per bit number
features_of() { cat "/sys/bus/pci/devices/$1/"virtio*/features; }

# missing_features FEATURES NAME:BIT...: the names whose bit is not set
missing_features() {
	local f=$1 nb miss=""
	shift
	for nb in "$@"; do
		[ "${f:${nb#*:}:1}" = 1 ] || miss+=" ${nb%%:*}"
	done
	echo "${miss# }"
}

# check_features DESCRIPTION NAME:BIT...
check_features() {
	local desc=$1 miss
	shift
	miss=$(missing_features "$dut_features" "$@")
	if [ -z "$miss" ]; then
		tap_ok "$desc"
	else
		tap_fail "$desc" "not offered: $miss"
	fi
}

# rxq_packets NETDEV: "QUEUE PACKETS" per receive queue of the device
# under test (in its namespace): from ethtool -S where virtio_net has
# them there (rx_queue_N_packets, 6.1); 6.12 moved them to the netdev
# netlink family's per-queue stats, read with the kernel's ynl from
# Debian's linux-source
KSRC=${KSRC:-/usr/src/linux-source-6.12}
rxq_packets() {
	local s ifindex
	s=$(ip netns exec $DUT_NS ethtool -S "$1" |
		sed -n -E 's/^ *rx(_queue_)?([0-9]+)_packets: *([0-9]+)$/\2 \3/p')
	if [ -n "$s" ]; then
		echo "$s"
		return
	fi
	ifindex=$(ip netns exec $DUT_NS cat "/sys/class/net/$1/ifindex")
	ip netns exec $DUT_NS "$PY" "$KSRC/tools/net/ynl/cli.py" --no-schema \
		--spec "$KSRC/Documentation/netlink/specs/netdev.yaml" \
		--dump qstats-get --json '{"scope": ["queue"]}' --output-json |
		"$PY" -c 'import json, sys
for q in json.load(sys.stdin):
    if q["ifindex"] == int(sys.argv[1]) and q["queue-type"] == "rx":
        print(q["queue-id"], q.get("rx-packets", 0))' "$ifindex"
}

tap_plan $NTESTS

backend=$(vnet_backend)
if [ -n "$backend" ]; then
	tap_ok "the kernel command line says ixmod_vnet=$backend"
else
	tap_fail "the kernel command line says ixmod_vnet=" "no ixmod_vnet= word: boot with scripts/vm-run --virtio N"
	rest_fail "not booted with scripts/vm-run --virtio N"
fi
kind=${backend%%:*}
queues=${backend#*:}
echo "# backend $kind, $queues queue pair(s) per NIC"

mapfile -t devs < <(vnet_devices)
if [ "${#devs[@]}" -eq 2 ]; then
	DUT=${devs[0]}
	PEER=${devs[1]}
	tap_ok "two virtio-net functions by MAC: $VNET_DUT_MAC at $DUT, $VNET_PEER_MAC at $PEER"
else
	found=""
	for d in $(virtio_net_functions); do
		found+=" $d=$(virtio_net_mac "$d" || echo '?')"
	done
	tap_fail "two virtio-net functions by MAC" "virtio-net functions:${found:- none}"
	rest_fail "no device under test and peer"
fi

modprobe virtio_net 2>/dev/null
netdev_of() { ls "$(nic_netdev_dir "$1")" 2>/dev/null; }
busywait 20000 netdev_of "$DUT"
busywait 20000 netdev_of "$PEER"
DUTIF=$(netdev_of "$DUT")
PEERIF=$(netdev_of "$PEER")
if [ -n "$DUTIF" ] && [ -n "$PEERIF" ] &&
   [ "$(cat "/sys/class/net/$DUTIF/address")" = "$VNET_DUT_MAC" ] &&
   [ "$(cat "/sys/class/net/$PEERIF/address")" = "$VNET_PEER_MAC" ]; then
	tap_ok "virtio_net drives both: $DUTIF and $PEERIF, with the MACs read from config space"
else
	tap_fail "virtio_net drives both, with the MACs read from config space" \
		"netdevs '$DUTIF' '$PEERIF'; $(ip -br link)"
	rest_fail "no netdevs"
fi

dut_features=$(features_of "$DUT")
echo "# $DUTIF features (bit 0 first): $dut_features"
echo "# $PEERIF features (bit 0 first): $(features_of "$PEER")"
check_features "the device under test offers VERSION_1 MAC STATUS CTRL_VQ EVENT_IDX" \
	VERSION_1:32 MAC:5 STATUS:16 CTRL_VQ:17 EVENT_IDX:29
if [ "$kind" = tap ]; then
	check_features "the device under test offers CSUM GUEST_CSUM" CSUM:0 GUEST_CSUM:1
	check_features "the device under test offers MQ RSS" MQ:22 RSS:60
else
	tap_skip "the device under test offers CSUM GUEST_CSUM" \
		"hub backend: a hub port takes no virtio-net header, so QEMU offers no checksum offload (bits 0-1: ${dut_features:0:2})"
	tap_skip "the device under test offers MQ RSS" "hub backend: one queue pair"
fi

# the two ends in their own namespaces, so that traffic between them
# leaves through one NIC and comes back through the other
ip netns del $DUT_NS 2>/dev/null
ip netns del $PEER_NS 2>/dev/null
ip netns add $DUT_NS
ip netns add $PEER_NS
for e in "$DUT_NS $DUTIF $DUT_IP" "$PEER_NS $PEERIF $PEER_IP"; do
	read -r ns ifc ip <<< "$e"
	ip link set "$ifc" netns "$ns"
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$ns" addr add "$ip/24" dev "$ifc"
	ip -n "$ns" link set "$ifc" up
done
dut() { ip netns exec $DUT_NS "$@"; }

if [ "$kind" = tap ]; then
	max=$(dut ethtool -l "$DUTIF" | awk '/^Pre-set/ { p = 1 } /^Current/ { p = 0 } p && /^Combined:/ { print $2 }')
	dut ethtool -L "$DUTIF" combined "$queues" 2>/dev/null
	cur=$(dut ethtool -l "$DUTIF" | awk '/^Current/ { c = 1 } c && /^Combined:/ { print $2 }')
	if [ "$max" = "$queues" ] && [ "$cur" = "$queues" ]; then
		tap_ok "ethtool -l: $queues combined channels at most, $queues in use"
	else
		tap_fail "ethtool -l: $queues combined channels" "$(dut ethtool -l "$DUTIF")"
	fi
else
	tap_skip "ethtool -l: N combined channels" "hub backend: one queue pair"
fi

out=""
if ! busywait 30000 peer ping -c1 -W1 $DUT_IP; then
	out="no answer from $DUT_IP within 30 s"
elif ! o=$(peer ping -c 5 -i 0.2 -W 2 $DUT_IP 2>&1); then
	out="peer -> device under test: $o"
elif ! o=$(dut ping -c 5 -i 0.2 -W 2 $PEER_IP 2>&1); then
	out="device under test -> peer: $o"
fi
via="the host's bridge"
[ "$kind" = hub ] && via="QEMU's hub"
if [ -z "$out" ]; then
	tap_ok "ping both ways between $DUTIF and $PEERIF through $via"
else
	tap_fail "ping both ways between $DUTIF and $PEERIF through $via" "$out"
fi

# a Linux echo server behind the device under test, a stream through it
# from the peer: 4 MB each way, SHA-256 compared
ready=$(mktemp -u /tmp/vnet-ready.XXXXXX)
dut "$PY" "$TCP_CHECK" server $PORT --ready "$ready" --seconds 300 > /dev/null 2>&1 &
busywait 20000 test -e "$ready"
if out=$(peer "$PY" "$TCP_CHECK" echo $DUT_IP $PORT --bytes 4000000 --timeout 120 2>&1); then
	tap_ok "a TCP stream of 4 MB each way between them, byte for byte"
else
	tap_fail "a TCP stream of 4 MB each way between them, byte for byte" "$out"
fi
printf '%s\n' "$out" | grep '^#'
rm -f "$ready"

if [ "$kind" = tap ]; then
	# RSS as Linux programs it: the indirection table over every queue,
	# then 16 UDP flows (source ports) from the peer for 3 s
	out=$(dut ethtool -X "$DUTIF" equal "$queues" 2>&1) || echo "# ethtool -X: $out"
	dut ethtool -x "$DUTIF" | awk '/^ +0:/ || /: on$/ { print "# ethtool -x:" $0 }'
	mapfile -t before < <(rxq_packets "$DUTIF")
	peer "$PY" "$_here/udp_check.py" $DUT_IP 9 --flows 16 --flood 3
	mapfile -t after < <(rxq_packets "$DUTIF")
	used=0
	line=""
	for i in "${!after[@]}"; do
		read -r q n1 <<< "${after[i]}"
		read -r _ n0 <<< "${before[i]:-$q 0}"
		line+=" rx$q +$((n1 - n0))"
		[ $((n1 - n0)) -ge 20 ] && used=$((used + 1))
	done
	echo "# receive queues:$line"
	if [ "${#after[@]}" -eq 0 ]; then
		tap_fail "RSS (ethtool -X equal $queues): 16 UDP flows over more than one receive queue" \
			"no per-queue receive counters (ethtool -S, or ynl in $KSRC)"
	elif [ "$used" -gt 1 ]; then
		tap_ok "RSS (ethtool -X equal $queues): 16 UDP flows over $used of $queues receive queues"
	else
		tap_fail "RSS (ethtool -X equal $queues): 16 UDP flows over more than one receive queue" \
			"receive queues:$line"
	fi
else
	tap_skip "RSS: flows over several receive queues" "hub backend: one queue pair"
fi

tap_done
