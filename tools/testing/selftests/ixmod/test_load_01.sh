#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload: loading starts nothing; rmmod with cores assigned stops
# every thread and removes every file; an open /dev/ixmod pins the module;
# repeated cycles leave nothing behind; a module parameter out of range
# fails insmod with EINVAL and one line naming it; a module built without
# a queue driver refuses that chip's ports and still drives the other.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

[ -f "$IXMOD_KO" ] || { echo "# no module at $IXMOD_KO"; exit "$ksft_skip"; }
[ "$(nproc --all)" -ge 3 ] || { echo "# needs 3 cpus"; exit "$ksft_skip"; }

tap_plan 22
ixmod_unload
dmesg_mark

check "insmod succeeds" insmod "$IXMOD_KO"
check "/dev/ixmod is a character device" test -c /dev/ixmod
check "cores is empty after load" test -z "$(cat $IXMOD_SYSFS/cores)"
check "no dataplane thread after load" test "$(dp_threads)" -eq 0
check "load is logged" grep -q 'ixmod: loaded' <(dmesg_since)

echo 1-2 > $IXMOD_SYSFS/cores
check "two threads after cores=1-2" test "$(dp_threads)" -eq 2
check "rmmod with cores assigned" rmmod ixmod
check "no thread after rmmod" busywait 2000 holds -eq 0 dp_threads
check "/sys/kernel/ixmod is gone" test ! -e $IXMOD_SYSFS
check "/dev/ixmod is gone" test ! -e /dev/ixmod

insmod "$IXMOD_KO"
exec 3</dev/ixmod
check "an open /dev/ixmod pins the module" bash -c '! rmmod ixmod 2>/dev/null'
exec 3<&-
check "rmmod after close" rmmod ixmod

ok=1
for _ in 1 2 3 4 5; do
	insmod "$IXMOD_KO" || ok=0
	echo 1-2 > $IXMOD_SYSFS/cores || ok=0
	echo 1 > $IXMOD_SYSFS/cores || ok=0
	rmmod ixmod || ok=0
done
check "five load/assign/unload cycles" test "$ok" -eq 1
check "no thread left after the cycles" test "$(dp_threads)" -eq 0

# insmod_refused PARAM=VALUE: insmod fails, says why, and loads nothing
insmod_refused() {
	local out
	dmesg_mark
	out=$(insmod "$IXMOD_KO" "$1" 2>&1) && return 1
	case $out in
	*"Invalid argument"* | *"Invalid parameters"*) ;;
	*) echo "# insmod said: $out"; return 1 ;;
	esac
	test ! -e $IXMOD_SYSFS && dmesg_since | grep -q "ixmod: ${1%%=*}=${1#*=} is out of range"
}
check "tcp_rcv_buf=1 refused with EINVAL and a dmesg line" insmod_refused tcp_rcv_buf=1
check "tcp_delack_us=500001 refused (RFC 9293 limit)" insmod_refused tcp_delack_us=500001
check "tcp_syncookies=3 refused" insmod_refused tcp_syncookies=3

# rmmod while another process keeps rewriting cores
insmod "$IXMOD_KO"
( for _ in $(seq 1 2000); do
	echo 1-2 > $IXMOD_SYSFS/cores 2>/dev/null
	echo 1 > $IXMOD_SYSFS/cores 2>/dev/null
  done ) &
writer=$!
sleep 0.3
check "rmmod while a writer is busy" rmmod ixmod
wait "$writer"
check "no thread left after racing rmmod" busywait 2000 holds -eq 0 dp_threads
# Modules built without one queue driver (scripts/build-modules
# --variants puts them beside the module under test)
variant_ko() { echo "${IXMOD_KO%/ixmod/ixmod.ko}-$1/ixmod/ixmod.ko"; }
mapfile -t igbs < <(igb_devices)

# bind_refused KO: that module refuses the 82576 with a line naming the
# option it lacks, creates no port, and Linux's igb gets the NIC back
bind_refused() {
	local dev=${igbs[0]} out rc=0
	insmod "$1" || return 1
	dmesg_mark
	out=$("$IXMOD_BIND" bind "$dev" 2>&1) && rc=1
	echo "# ixmod-bind said: $out"
	test ! -e "$IXMOD_SYSFS/ports/$dev" || rc=1
	dmesg_since | grep -q "82576 (8086:10c9): this ixmod was built without its queue driver (CONFIG_IXMOD_IGB)" || rc=1
	test "$(basename "$(readlink -f "/sys/bus/pci/devices/$dev/driver")")" = igb || rc=1
	rmmod ixmod || rc=1
	return $rc
}

# bind_works KO: that module drives the 82576 (bind, port, unbind)
bind_works() {
	local dev=${igbs[0]} rc=0
	insmod "$1" || return 1
	"$IXMOD_BIND" bind "$dev" >/dev/null || rc=1
	test -d "$IXMOD_SYSFS/ports/$dev" || rc=1
	"$IXMOD_BIND" unbind "$dev" >/dev/null || rc=1
	rmmod ixmod || rc=1
	return $rc
}

modprobe igb 2>/dev/null
if [ "${#igbs[@]}" -lt 1 ]; then
	for t in "built without CONFIG_IXMOD_IGB: the 82576 refused" \
		 "built without CONFIG_IXMOD_IXGBE: the 82576 still driven"; do
		tap_skip "$t" "no igb NIC in this VM"
	done
else
	if [ -f "$(variant_ko no-igb)" ]; then
		check "built without CONFIG_IXMOD_IGB: the 82576 refused, one line naming the option, back to igb" \
			bind_refused "$(variant_ko no-igb)"
	else
		tap_skip "built without CONFIG_IXMOD_IGB: the 82576 refused" \
			"no $(variant_ko no-igb) (scripts/build-modules --variants)"
	fi
	if [ -f "$(variant_ko no-ixgbe)" ]; then
		check "built without CONFIG_IXMOD_IXGBE: the 82576 still driven" \
			bind_works "$(variant_ko no-ixgbe)"
	else
		tap_skip "built without CONFIG_IXMOD_IXGBE: the 82576 still driven" \
			"no $(variant_ko no-ixgbe) (scripts/build-modules --variants)"
	fi
fi
check "no kernel error reported" dmesg_clean

tap_done
