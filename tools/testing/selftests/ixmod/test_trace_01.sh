#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tracepoints: the ixmod trace system exists and core start, sleep, wake
# and stop are recorded (what `trace-cmd record -e ixmod` reads).

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/events ] || { echo "# no tracefs"; exit "$ksft_skip"; }

tap_plan 6
ixmod_load
dmesg_mark
echo "" > $IXMOD_SYSFS/cores
echo 1000 > $IXMOD_SYSFS/idle_us

check "events/ixmod exists" test -d $T/events/ixmod
echo > $T/trace
echo 1 > $T/events/ixmod/enable
echo 1 > $IXMOD_SYSFS/cores
busywait 5000 grep -q sleeping $IXMOD_SYSFS/dataplane/cpu1/state
echo 0 > $IXMOD_SYSFS/idle_us	# wakes the thread
echo "" > $IXMOD_SYSFS/cores
echo 1000 > $IXMOD_SYSFS/idle_us
echo 0 > $T/events/ixmod/enable
trace=$(cat $T/trace)

check "ixm_core_start recorded" grep -q 'ixm_core_start: cpu=1' <<<"$trace"
check "ixm_core_sleep recorded" grep -q 'ixm_core_sleep: cpu=1' <<<"$trace"
check "ixm_core_wake recorded" grep -q 'ixm_core_wake: cpu=1' <<<"$trace"
check "ixm_core_stop recorded" grep -q 'ixm_core_stop: cpu=1' <<<"$trace"
check "no kernel error reported" dmesg_clean
echo > $T/trace
tap_done
