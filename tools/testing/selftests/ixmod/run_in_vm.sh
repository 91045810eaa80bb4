#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_in_vm.sh - run every ixmod selftest inside the test VM
#
# Usage (inside the guest):
#   run_in_vm.sh OUTDIR IXMOD_KO [all|base|iommu|ports|udp|tcp|only] [EXCEPT,...|-] [ONLY,...|-]
#
# Which test is in which mode is said once, in ./groups: "base" runs the
# tests that need no port, "iommu" those for the run behind the IOMMU,
# "ports" the port and UDP tests, "udp" and "tcp" those groups, "all"
# every test; "only" the tests named in ONLY, in that order.  test_tcp_02's bulk transfers are 1 MB
# and 4 MB in "all" and "iommu" unless IXMOD_TCP_BULK_BYTES and
# IXMOD_TCP_ECHO_BYTES say otherwise.  EXCEPT names tests (test_tcp_02,
# ...) not to run: make check runs them in another VM.
#
# Writes OUTDIR/<test>.tap (the test's TAP) and OUTDIR/<test>.rc (its exit
# status) for each test, the libixu tests likewise, and OUTDIR/dmesg.txt at
# the end.  The console may garble output under emulation, so the host
# reads the files, not the console.  scripts/vm-selftests starts this.
# IXMOD_TEST_NIC in its environment (vm-selftests --nic virtio) reaches
# every test: test_common.sh's ports_setup then drives vm-run --virtio's
# virtio-net NICs instead of the igbs.

set -u
out=$1
export IXMOD_KO=$2
mode=${3:-all}
# "-" stands for none (the VM runner drops empty arguments)
except=",${4#-},"
only=${5:-}
only=${only#-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
mkdir -p "$out"
rm -f "$out"/*.tap "$out"/*.rc "$out/times.txt"
touch "$out/started"	# the host retries a boot only if this is missing

kver=$(uname -r)
echo "# kernel $kver, $(nproc --all) cpus, cmdline: $(cat /proc/cmdline | tr ' ' '\n' | grep -E '^(isolcpus|nohz_full|ixmod_vnet)=' | tr '\n' ' ')"

# A kernel with kmemleak (scripts/build-debug-kernel) is scanned after
# every test: leaks are reported once they are 5 s old, so a scan waits
# that long, and each report is cleared once saved.
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
kmemleak=/sys/kernel/debug/kmemleak
[ -w "$kmemleak" ] || kmemleak=""
kmemleak_scan() {	# kmemleak_scan FILE
	[ -n "$kmemleak" ] || return 0
	sleep 6
	echo scan > "$kmemleak"
	cat "$kmemleak" > "$1"
	echo clear > "$kmemleak"
}
# timeouts: the debug kernel runs every test a few times slower
slow=1
[ -n "$kmemleak" ] && slow=10	# measured: 8 to 17 times slower than Debian's
export IXMOD_TEST_TIMEOUT_SCALE=$slow	# the harness programs' own (ixmod_test.h)

run() {		# run NAME COMMAND...
	local name=$1 limit=600 mark
	shift
	# bulk transfers under four netem impairments take longer
	[ "$name" = test_tcp_02 ] && limit=1800
	local t0=$SECONDS
	echo "# running $name"
	mark="run_in_vm: begin $name $RANDOM$RANDOM"
	echo "$mark" > /dev/kmsg
	cat /proc/sys/kernel/tainted > "$out/$name.taint"
	timeout $((limit * slow)) "$@" > "$out/$name.tap" 2>&1
	echo $? > "$out/$name.rc"
	kmemleak_scan "$out/$name.kmemleak"
	cat /proc/sys/kernel/tainted >> "$out/$name.taint"
	dmesg | sed -n "/$mark/,\$p" > "$out/$name.dmesg"
	grep -E '^(not )?ok ' "$out/$name.tap" | sed "s|^|# $name: |"
	# and the memory left (a guest that ran out would die with its tests)
	local avail
	avail=$(awk '/^MemAvailable/ {print int($2 / 1024)}' /proc/meminfo)
	echo "# $name took $((SECONDS - t0)) s; $avail MiB available" | tee -a "$out/times.txt"
}

# libixu's own tests (a command, not a function: run() starts it under timeout)
libixu_tests=("$top/libixu/tests/runtests.sh" "$top"/libixu/tests/abi "$top"/libixu/tests/open
	      "$top"/libixu/tests/prep "$top"/libixu/tests/version)

# in_groups GROUP...: the tests of the groups file in any of GROUPs, in
# its order ("all": every test)
in_groups() {
	awk -v want=" $* " '!/^#/ && NF {
		for (i = 2; i <= NF; i++)
			if (want ~ " " $i " " || want == " all ")
				{ print $1; next }
	}' "$here/groups"
}

case "$mode" in
all) tests=$(in_groups all) ;;
base) tests=$(in_groups base) ;;
iommu) tests=$(in_groups iommu) ;;
ports) tests=$(in_groups port udp) ;;
udp|tcp) tests=$(in_groups "$mode") ;;
only) tests=${only//,/ } ;;
*) echo "# unknown mode $mode"; exit 1 ;;
esac
case "$mode" in
all|iommu|only)
	# make check's size of the netem transfers (about 80 s instead of
	# 170), also for --only (check-debug's parts); "tcp" mode keeps
	# test_tcp_02's own (4 MB, 20 MB)
	export IXMOD_TCP_BULK_BYTES=${IXMOD_TCP_BULK_BYTES:-1000000}
	export IXMOD_TCP_ECHO_BYTES=${IXMOD_TCP_ECHO_BYTES:-4000000}
	;;
esac

# test_load_01 loads and unloads the module itself: first, if at all
for name in $tests; do
	[ "$name" = test_load_01 ] && [[ $except != *",$name,"* ]] &&
		run test_load_01 "$here/test_load_01.sh"
done
insmod "$IXMOD_KO" || { echo "# insmod $IXMOD_KO failed"; exit 1; }
for name in $tests; do
	[ "$name" = test_load_01 ] && continue
	if [[ $except == *",$name,"* ]]; then
		echo "# $name not run here: make check runs it in another VM"
		continue
	fi
	if [ "$name" = libixu ]; then
		run libixu "${libixu_tests[@]}"
	elif [ -f "$here/$name.sh" ]; then
		run "$name" "$here/$name.sh"
	else
		run "$name" "$here/$name"
	fi
done
# a port test may have unloaded it
[ -d /sys/module/ixmod ] && rmmod ixmod
# what the last test or the unload left behind
kmemleak_scan "$out/final.kmemleak"
kmemleak_scan "$out/final2.kmemleak"

dmesg > "$out/dmesg.txt"
echo "# done"
