#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload: loading starts nothing; rmmod with cores assigned stops
# every thread and removes every file; an open /dev/ixmod pins the module;
# repeated cycles leave nothing behind; a module parameter out of range
# fails insmod with EINVAL and one line naming it.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

[ -f "$IXMOD_KO" ] || { echo "# no module at $IXMOD_KO"; exit "$ksft_skip"; }
[ "$(nproc --all)" -ge 3 ] || { echo "# needs 3 cpus"; exit "$ksft_skip"; }

tap_plan 20
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
check "no kernel error reported" dmesg_clean

tap_done
