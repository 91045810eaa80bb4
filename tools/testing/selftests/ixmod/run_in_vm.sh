#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_in_vm.sh - run every ixmod selftest inside the test VM
#
# Usage (inside the guest):
#   run_in_vm.sh OUTDIR IXMOD_KO [all|base|iommu|ports|udp|tcp|only] [EXCEPT,...|-] [ONLY,...|-]
#
# "ports" runs only the port and UDP tests, "iommu" the port tests,
# test_udp_01, test_tcp_02 and test_tcp_04 (for the run behind the
# IOMMU), "base" every
# test that needs no port, "udp" only the UDP tests, "tcp" only the TCP
# tests; "only" the tests named in ONLY; "all" runs everything.  test_tcp_02's bulk transfers are 1 MB
# and 4 MB in "all" and "iommu" unless IXMOD_TCP_BULK_BYTES and
# IXMOD_TCP_ECHO_BYTES say otherwise.  EXCEPT names tests (test_tcp_02,
# ...) not to run: make check runs them in another VM.
#
# Writes OUTDIR/<test>.tap (the test's TAP) and OUTDIR/<test>.rc (its exit
# status) for each test, the libixu tests likewise, and OUTDIR/dmesg.txt at
# the end.  The console may garble output under emulation, so the host
# reads the files, not the console.  scripts/vm-selftests starts this.

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
echo "# kernel $kver, $(nproc --all) cpus, cmdline: $(cat /proc/cmdline | tr ' ' '\n' | grep -E '^(isolcpus|nohz_full)=' | tr '\n' ' ')"

run() {		# run NAME COMMAND...
	local name=$1 limit=600
	shift
	# bulk transfers under four netem impairments take longer
	[ "$name" = test_tcp_02 ] && limit=1800
	local t0=$SECONDS
	echo "# running $name"
	timeout "$limit" "$@" > "$out/$name.tap" 2>&1
	echo $? > "$out/$name.rc"
	grep -E '^(not )?ok ' "$out/$name.tap" | sed "s|^|# $name: |"
	echo "# $name took $((SECONDS - t0)) s" | tee -a "$out/times.txt"
}

if [ "$mode" = all ] || [ "$mode" = base ]; then
	# load/unload tests load and unload the module themselves: first
	run test_load_01 "$here/test_load_01.sh"
	insmod "$IXMOD_KO" || { echo "# insmod $IXMOD_KO failed"; exit 1; }
	run test_trace_01 "$here/test_trace_01.sh"
	run abi "$here/abi"
	run sysfs "$here/sysfs"
	run libixu "$top/libixu/tests/runtests.sh" "$top"/libixu/tests/abi "$top"/libixu/tests/open \
		"$top"/libixu/tests/prep
else
	insmod "$IXMOD_KO" || { echo "# insmod $IXMOD_KO failed"; exit 1; }
fi
if [ "$mode" != base ]; then
	case "$mode" in
	all|iommu)
		# make check's size of the netem transfers (about 80 s instead
		# of 170); "tcp" mode keeps test_tcp_02's own (4 MB, 20 MB)
		export IXMOD_TCP_BULK_BYTES=${IXMOD_TCP_BULK_BYTES:-1000000}
		export IXMOD_TCP_ECHO_BYTES=${IXMOD_TCP_ECHO_BYTES:-4000000}
		if [ "$mode" = all ]; then
			tests=("$here"/test_port_*.sh "$here"/test_udp_*.sh "$here"/test_tcp_*.sh)
		else
			# behind the IOMMU: every DMA path once, TCP's zero-copy
			# transmit from the arena included, and the arena unmapped
			# from a device that goes away under it
			tests=("$here"/test_port_*.sh "$here"/test_udp_01.sh "$here"/test_tcp_02.sh
			       "$here"/test_tcp_04.sh)
		fi ;;
	ports) tests=("$here"/test_port_*.sh "$here"/test_udp_*.sh) ;;
	udp) tests=("$here"/test_udp_*.sh) ;;
	tcp) tests=("$here"/test_tcp_*.sh) ;;
	only)
		tests=()
		for t in ${only//,/ }; do tests+=("$here/$t.sh"); done ;;
	esac
	for t in "${tests[@]}"; do
		name=$(basename "$t" .sh)
		if [[ $except == *",$name,"* ]]; then
			echo "# $name not run here: make check runs it in another VM"
			continue
		fi
		run "$name" "$t"
	done
fi
# a port test may have unloaded it
[ -d /sys/module/ixmod ] && rmmod ixmod

dmesg > "$out/dmesg.txt"
echo "# done"
