#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile application (rings.c) against the setup ioctl, the mappings
# and the rings while the Linux peer floods the port it binds: bad setups,
# wrong mappings, writes to the read-only receive region, forged handles,
# out-of-bounds offsets and lengths, tampered ring indices and random
# calls for a bounded time.  Afterwards nothing has leaked (buffers,
# vmalloc'd regions, kmemleak when the kernel has it), the kernel logged
# no oops or WARN, and a real application on the same core still echoes
# byte for byte.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

RINGS=$_here/rings
ECHO=$_here/../../../../libixu/examples/udp-echo
CHECK=$_here/udp_check.py
SECONDS_HOSTILE=${IXMOD_HOSTILE_SECONDS:-10}
LOG=$(mktemp)
trap 'rm -f "$LOG" "$LOG.echo" "$LOG.flood"' EXIT

ctx_vmallocs() { grep -c 'ixm_ctx_setup' /proc/vmallocinfo; }
core_stat() { cat "$IXMOD_SYSFS/dataplane/cpu1/$1"; }
kmemleak_ixm() {	# prints the number of ixmod leaks kmemleak reports
	local k=/sys/kernel/debug/kmemleak
	echo scan > $k
	sleep 1
	echo scan > $k
	grep -c 'ixm' $k
}

tap_plan 9
dmesg_mark
if ! ports_setup; then
	for _ in $(seq 9); do tap_fail "port setup" "setup failed (# lines above)"; done
	ports_teardown
	tap_done
fi
[ -e /sys/kernel/debug/kmemleak ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
kmemleak=0
if [ -w /sys/kernel/debug/kmemleak ]; then
	kmemleak=1
	echo clear > /sys/kernel/debug/kmemleak
fi

free0=$(port_stat stats/bufs_free); held0=$(port_stat stats/bufs_held)
vm0=$(ctx_vmallocs)
echo "# buffers free before: $free0, held: $held0; context vmallocs: $vm0; kmemleak: $kmemleak"

nosock0=$(port_stat drops/udp_no_sock)
peer "$PY" "$CHECK" $DUT_IP 9000 --flood $((SECONDS_HOSTILE + 40)) --flows 8 > "$LOG.flood" 2>&1 &
flood=$!
# the flood is on once datagrams to the still unbound port are dropped
busywait 30000 holds -gt "$nosock0" port_stat drops/udp_no_sock ||
	echo "# no flood datagram seen after 30 s: $(cat "$LOG.flood")"
udp0=$(port_stat stats/udp_in)
# a block device for rings' O_DIRECT attempt (6.1's tmpfs has no O_DIRECT)
modprobe loop 2>/dev/null
truncate -s 4M "$LOG.img"
loopdev=$(losetup -f --show "$LOG.img") || loopdev=""
IXMOD_CPU=1 IXMOD_UDP_PORT=9000 IXMOD_HOSTILE_SECONDS=$SECONDS_HOSTILE \
	IXMOD_ODIRECT_PATH=$loopdev timeout $((SECONDS_HOSTILE + 120)) "$RINGS" > "$LOG" 2>&1
rc=$?
[ -n "$loopdev" ] && losetup -d "$loopdev"
rm -f "$LOG.img"
sed 's/^/# /' "$LOG"
kill "$flood" 2>/dev/null
wait "$flood" 2>/dev/null
echo "# datagrams delivered to applications meanwhile: $(($(port_stat stats/udp_in) - udp0))"
check "every hostile request refused, the context kept working (rings: exit $rc)" \
	test "$rc" -eq 0
check "rings had a loop device to try O_DIRECT from the regions (${loopdev:-none})" \
	test -n "$loopdev"
check "the datagrams it held came back (bufs_held 0)" \
	busywait 5000 holds -eq 0 port_stat stats/bufs_held
check "no context left on the core" \
	test "$(core_stat contexts)" -eq 0 -a "$(core_stat stats/app_rx_bufs)" -eq 0
check "its regions are freed ($vm0 context vmallocs)" \
	busywait 5000 holds -eq "$vm0" ctx_vmallocs
check "tampered indices were counted" test "$(core_stat stats/app_ring_corrupt)" -gt 0
if [ "$kmemleak" = 1 ]; then
	check "kmemleak reports nothing of ixmod" test "$(kmemleak_ixm)" -eq 0
else
	tap_skip "kmemleak reports nothing of ixmod" "kernel without CONFIG_DEBUG_KMEMLEAK; counts above"
fi

"$ECHO" -p 7 > "$LOG.echo" 2>&1 &
echo_pid=$!
busywait 10000 grep -q 'ready\|udp-echo: cpu' "$LOG.echo"
check "a real application then echoes byte for byte" \
	peer "$PY" "$CHECK" $DUT_IP 7 --sizes 1-200
kill -INT "$echo_pid"
wait "$echo_pid"
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
