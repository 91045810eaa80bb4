#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_common.sh - helpers for ixmod's scenario tests (ublk's pattern):
# TAP output, busywait instead of sleep, module load/unload, and a kernel
# log check after each step.
#
# IXMOD_KO names the module to load (default: the in-tree build).
# IXMOD_TEST_NIC says which NICs the port tests drive: igb (default: the
# emulated 82576s every test VM has), virtio (the two virtio-net NICs
# of scripts/vm-run --virtio, told apart by their MACs) or softport (no
# NIC: the software port ixsw0, whose Linux netdev is the peer).

export ksft_skip=4
IXMOD_SYSFS=/sys/kernel/ixmod
_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IXMOD_KO=${IXMOD_KO:-$_here/../../../../ixmod/ixmod.ko}

_tap_n=0
_tap_failed=0
_tap_planned=0
_tap_t=${EPOCHREALTIME/./}
_dmesg_mark=ixmod-selftest-no-mark

tap_plan() {
	_tap_planned=$1
	echo "TAP version 13"
	echo "1..$1"
}

# _tap_time: a comment with the seconds since the previous TAP line (or
# the start), when they reached 5: where a test spends make check's time
_tap_time() {
	local now=${EPOCHREALTIME/./}
	[ $(((now - _tap_t) / 1000000)) -lt 5 ] ||
		echo "# $(((now - _tap_t) / 1000000)) s to the next line"
	_tap_t=$now
}

tap_ok() {	# tap_ok DESCRIPTION
	_tap_n=$((_tap_n + 1))
	_tap_time
	echo "ok $_tap_n $1"
}

tap_skip() {	# tap_skip DESCRIPTION REASON: reported as skipped, never as passed
	_tap_n=$((_tap_n + 1))
	_tap_time
	echo "ok $_tap_n $1 # SKIP $2"
}

tap_fail() {	# tap_fail DESCRIPTION [DIAGNOSTIC]
	_tap_n=$((_tap_n + 1))
	_tap_failed=$((_tap_failed + 1))
	_tap_time
	echo "not ok $_tap_n $1"
	[ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/# /'
	return 0
}

# check DESCRIPTION COMMAND...: one TAP line for the command's status
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		tap_ok "$desc"
	else
		tap_fail "$desc" "$out"
	fi
}

tap_done() {
	if [ "$_tap_n" -ne "$_tap_planned" ]; then
		echo "# planned $_tap_planned tests but ran $_tap_n"
		_tap_failed=$((_tap_failed + 1))
	fi
	[ "$_tap_failed" -eq 0 ]
	exit $?
}

# busywait TIMEOUT_MS COMMAND...: retry every 10 ms until it succeeds or
# TIMEOUT_MS of wall-clock time have passed (the command may be slow;
# times IXMOD_TEST_TIMEOUT_SCALE, which run_in_vm.sh sets on a debug kernel).
# The clock ($EPOCHREALTIME) and the pause (a read that times out on a pipe
# nobody writes) are the shell's own: a process costs the debug kernel
# about 0.75 s, which spaced the polls that far apart when they forked
# date and sleep.
exec {_busywait_fd}<> <(:)
busywait() {
	local now=${EPOCHREALTIME/./}
	local end=$((now / 1000 + $1 * ${IXMOD_TEST_TIMEOUT_SCALE:-1}))
	shift
	while ! "$@" >/dev/null 2>&1; do
		now=${EPOCHREALTIME/./}
		[ $((now / 1000)) -ge "$end" ] && return 1
		read -rt 0.01 -u "$_busywait_fd" _ || :
	done
	return 0
}

# holds OP VALUE COMMAND...: COMMAND's output compared with VALUE by
# test's OP (-eq, -gt, ...), read afresh on every call: for busywait, as
# "busywait 5000 test \"$(cmd)\" -eq 0" would test one old reading again
holds() {
	local op=$1 v=$2
	shift 2
	test "$("$@")" "$op" "$v"
}

ixmod_loaded() { [ -d "$IXMOD_SYSFS" ]; }

ixmod_load() {
	ixmod_loaded && return 0
	insmod "$IXMOD_KO"
}

ixmod_unload() {
	ixmod_loaded || return 0
	rmmod ixmod
}

# Number of live "ixmod/N" threads.
dp_threads() {
	local n=0 c
	for c in /proc/[0-9]*/comm; do
		{ read -r comm < "$c"; } 2>/dev/null || continue
		case "$comm" in ixmod/*) n=$((n + 1)) ;; esac
	done
	echo "$n"
}

# A marker line in the kernel log (counting lines fails once the ring
# buffer is full and old lines fall out as new ones arrive).
dmesg_mark() {
	_dmesg_mark="ixmod-selftest-mark-$$-$RANDOM$RANDOM"
	echo "$_dmesg_mark" > /dev/kmsg
}

# Lines logged since dmesg_mark.
dmesg_since() { dmesg | sed -n "/$_dmesg_mark/,\$p" | tail -n +2; }

# kernel_reports: what the kernel logs when it finds a bug, one ERE per
# line (./kernel_reports, shared with fault_op and make check-debug)
kernel_reports() { grep -v -E '^(#|$)' "$_here/kernel_reports"; }

# Fail if the kernel reported a bug since dmesg_mark (any stack dump too:
# outside fault injection, nothing here expects one).
dmesg_clean() {
	! dmesg_since | grep -E -f <(kernel_reports; echo 'Call Trace:')
}

# ---- ports: the first NIC is ixmod's, the second a Linux peer ----

IXMOD_BIND=$_here/../../../../scripts/ixmod-bind
PEER_NS=ixpeer
DUT_IP=198.18.0.1
PEER_IP=198.18.0.2

IXMOD_TEST_NIC=${IXMOD_TEST_NIC:-igb}
# scripts/vm-run --virtio's NICs (it has the same two MACs)
VNET_DUT_MAC=52:54:00:49:58:01
VNET_PEER_MAC=52:54:00:49:58:02

# per IXMOD_TEST_NIC: the peer's Linux driver, and what a VM lacking
# the NICs lacks
case "$IXMOD_TEST_NIC" in
igb)	NIC_DRIVER=igb
	NIC_NEEDS="two igb NICs" ;;
virtio)	NIC_DRIVER=virtio_net
	NIC_NEEDS="the two virtio-net NICs of vm-run --virtio ($VNET_DUT_MAC, $VNET_PEER_MAC)" ;;
softport) NIC_DRIVER=""
	NIC_NEEDS="a module built with CONFIG_IXMOD_SOFTPORT" ;;
*)	NIC_DRIVER=""
	NIC_NEEDS="IXMOD_TEST_NIC igb, virtio or softport, not '$IXMOD_TEST_NIC'" ;;
esac

igb_devices() {
	local d
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x8086 ] && [ "$(cat "$d/device")" = 0x10c9 ] &&
			basename "$d"
	done | sort
}

# virtio_net_functions: the PCI functions that are virtio-net devices:
# modern (1af4:1041) or transitional (1af4:1000, subsystem 1)
virtio_net_functions() {
	local d v id sub
	for d in /sys/bus/pci/devices/*; do
		read -r v < "$d/vendor"
		[ "$v" = 0x1af4 ] || continue
		read -r id < "$d/device"
		read -r sub < "$d/subsystem_device"
		[ "$id" = 0x1041 ] || { [ "$id" = 0x1000 ] && [ "$sub" = 0x0001 ]; } || continue
		echo "${d##*/}"
	done
}

# _pci_cfg_write DEV OFFSET BYTE...: bytes into DEV's config space, in one
# write (the PCI core splits it into aligned dwords)
_pci_cfg_write() {
	local cfg=/sys/bus/pci/devices/$1/config off=$2
	shift 2
	printf '%b' "$(printf '\\x%02x' "$@")" |
		dd of="$cfg" bs=$# count=1 seek="$off" oflag=seek_bytes conv=notrunc status=none
}

# virtio_net_mac DEV: the MAC in a virtio-net function's device-specific
# configuration, read through its PCI configuration access capability
# (virtio 1.1, 4.1.4.7: VIRTIO_PCI_CAP_PCI_CFG, a window onto the BARs in
# config space).  Config-space accesses only, so it works whichever
# driver has the device (virtio_net, ixmod) or none, and while the peer's
# netdev is on its way back from a deleted namespace and has no address
# to read in sysfs.
virtio_net_mac() {
	local dev=$1 b ptr n=0 bar="" off="" win="" mac="" o len w
	read -ra b < <(od -An -tu1 -v -w256 -N256 "/sys/bus/pci/devices/$dev/config")
	[ "${#b[@]}" -eq 256 ] || return 1
	ptr=${b[0x34]}
	while [ "$ptr" -ge 64 ] && [ "$ptr" -le 240 ] && [ $((n += 1)) -le 48 ]; do
		# a vendor capability (0x09): struct virtio_pci_cap, cfg_type at +3
		if [ "${b[ptr]}" -eq 9 ]; then
			case "${b[ptr + 3]}" in
			4)	# DEVICE_CFG: bar at +4, offset (le32) at +8
				bar=${b[ptr + 4]}
				off=$((b[ptr + 8] | b[ptr + 9] << 8 | b[ptr + 10] << 16 | b[ptr + 11] << 24)) ;;
			5)	win=$ptr ;;	# PCI_CFG: bar, offset, length, then 4 data bytes
			esac
		fi
		ptr=${b[ptr + 1]}
	done
	[ -n "$off" ] && [ -n "$win" ] || return 1
	# struct virtio_net_config starts with mac[6]: four bytes, then two
	for o in 0 4; do
		len=$((o == 0 ? 4 : 2))
		# bar, (id and padding: read-only), offset, length: one write
		_pci_cfg_write "$dev" $((win + 4)) "$bar" 0 0 0 \
			$(((off + o) & 255)) $(((off + o) >> 8 & 255)) $(((off + o) >> 16 & 255)) $(((off + o) >> 24)) \
			"$len" 0 0 0 || return 1
		# reading the data bytes makes the device do the access
		w=$(dd if="/sys/bus/pci/devices/$dev/config" bs=4 count=1 skip=$((win + 16)) \
			iflag=skip_bytes status=none | od -An -tx1) || return 1
		read -ra w <<< "$w"
		mac+=" ${w[*]:0:len}"
	done
	mac=${mac# }
	echo "${mac// /:}"
}

# vnet_devices: the device under test's virtio-net function, then the
# peer's, found by their MACs; nothing unless both are there
vnet_devices() {
	local d mac dut="" peer=""
	for d in $(virtio_net_functions); do
		mac=$(virtio_net_mac "$d") || continue
		[ "$mac" = "$VNET_DUT_MAC" ] && dut=$d
		[ "$mac" = "$VNET_PEER_MAC" ] && peer=$d
	done
	[ -n "$dut" ] && [ -n "$peer" ] || return 1
	printf '%s\n%s\n' "$dut" "$peer"
}

# vnet_backend: what vm-run --virtio gave this guest, from the kernel
# command line's ixmod_vnet= word: "tap:N" (multi-queue taps on a host
# bridge, N queue pairs) or "hub:1" (one queue pair each, QEMU's hub);
# status 1 and nothing without virtio NICs
vnet_backend() {
	local w
	for w in $(cat /proc/cmdline); do
		case "$w" in ixmod_vnet=*) echo "${w#ixmod_vnet=}"; return 0 ;; esac
	done
	return 1
}

# nic_devices: the device under test, then the peer (the igbs in PCI
# order; the virtio-net NICs by MAC)
nic_devices() {
	case "$IXMOD_TEST_NIC" in
	igb) igb_devices ;;
	virtio) vnet_devices ;;
	esac
}

# nic_netdev_dir DEV: where sysfs lists the Linux netdev of a NIC the
# stock driver has (an igb's under its PCI function, virtio_net's under
# the function's virtio device)
nic_netdev_dir() {
	case "$IXMOD_TEST_NIC" in
	virtio) echo "/sys/bus/pci/devices/$1/"virtio*/net ;;
	*) echo "/sys/bus/pci/devices/$1/net" ;;
	esac
}

port_dir() { echo "$IXMOD_SYSFS/ports/$DUT"; }

# the peer's NIC has its netdev in this namespace
peer_netdev_back() { [ -n "$(ls "$(nic_netdev_dir "$PEER")" 2>/dev/null)" ]; }

# idle_default: the cores poll for idle_us (1000, the module's default)
# after their last work, then sleep until a frame, a call or a timer
# wakes them, as on a server.  Polling for ever (idle_us 0) would keep
# two of the VM's three vCPUs busy through every test and leave the
# test's own processes, the peer's stack and QEMU's device threads a
# fraction of this 2-core host: tests that need it set it themselves
idle_default() { echo 1000 > $IXMOD_SYSFS/idle_us; }

# softport_setup: the software port ixsw0 as the device under test, its
# netdev the peer's interface
softport_setup() {
	ixmod_load || return 1
	[ -e $IXMOD_SYSFS/softports/new ] || { echo "# needs $NIC_NEEDS"; return 1; }
	echo "" > $IXMOD_SYSFS/cores
	idle_default
	echo 1-2 > $IXMOD_SYSFS/cores || return 1
	echo 0 > $IXMOD_SYSFS/softports/new || return 1
	DUT=ixsw0
	PEER=""
	PEERIF=ixsw0
}

# pci_nic_setup: the first NIC (IXMOD_TEST_NIC) bound to ixmod with cores
# 1-2, the second back with its Linux driver
pci_nic_setup() {
	local devs
	mapfile -t devs < <(nic_devices)
	[ "${#devs[@]}" -ge 2 ] || { echo "# needs $NIC_NEEDS"; return 1; }
	DUT=${devs[0]}
	PEER=${devs[1]}
	modprobe "$NIC_DRIVER" 2>/dev/null
	ixmod_load || return 1
	echo "" > $IXMOD_SYSFS/cores
	idle_default
	echo 1-2 > $IXMOD_SYSFS/cores || return 1
	"$IXMOD_BIND" bind "$DUT" >/dev/null || return 1
	# a namespace deleted by the test before gives the NIC back to this
	# one asynchronously (once its last process and socket are gone: up to
	# 2 minutes after test_tcp_04), and net/ exists (empty) meanwhile
	busywait 150000 peer_netdev_back || { echo "# no netdev for $PEER"; return 1; }
	PEERIF=$(ls "$(nic_netdev_dir "$PEER")")
}

# The device under test (IXMOD_TEST_NIC) up as ixmod's port with cores
# 1-2, and the peer's interface in namespace $PEER_NS; sets DUT, PEER,
# PEERIF.  Returns non-zero (with a reason on stdout) when the VM lacks
# the NICs.
ports_setup() {
	if [ "$IXMOD_TEST_NIC" = softport ]; then
		softport_setup || return 1
	else
		pci_nic_setup || return 1
	fi
	ip netns del $PEER_NS 2>/dev/null
	ip netns add $PEER_NS
	ip link set "$PEERIF" netns $PEER_NS
	ip -n $PEER_NS link set lo up
	# no IPv6 chatter (router solicitations, MLD) to blur exact counters
	ip netns exec $PEER_NS sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n $PEER_NS addr add $PEER_IP/24 dev "$PEERIF"
	ip -n $PEER_NS link set "$PEERIF" up
	echo $DUT_IP/24 > "$(port_dir)/ipv4" || return 1
	echo 1 > "$(port_dir)/up" || return 1
	busywait 10000 grep -q '^up' "$(port_dir)/link" || { echo "# ixmod link stays down"; return 1; }
	busywait 10000 ip netns exec $PEER_NS ping -c1 -W1 $DUT_IP || { echo "# first ping failed"; return 1; }
}

# steer_stats_dump: a port with software steering (virtio-net, MQ without
# RSS) says how many frames its cores passed on, before down zeroes them
steer_stats_dump() {
	local d
	d=$(port_dir)/stats
	[ -e "$d/rx_steered" ] && [ "$(cat "$d/rx_steered")$(cat "$d/rx_steered_in")" != 00 ] ||
		return 0
	echo "# software steering: rx_packets=$(cat "$d/rx_packets") rx_steered=$(cat "$d/rx_steered")" \
	     "rx_steer_drops=$(cat "$d/rx_steer_drops") rx_steered_in=$(cat "$d/rx_steered_in")"
}

ports_teardown() {
	[ -n "${DUT:-}" ] || return 0
	[ -e "$(port_dir)/up" ] && steer_stats_dump
	[ -e "$(port_dir)/up" ] && echo 0 > "$(port_dir)/up"
	if [ "$IXMOD_TEST_NIC" = softport ]; then
		echo "$DUT" > $IXMOD_SYSFS/softports/del 2>/dev/null
	else
		"$IXMOD_BIND" unbind "$DUT" >/dev/null 2>&1
	fi
	# a process left in the namespace would keep it, and the peer's NIC
	# in it, alive after its name is gone
	ip netns pids $PEER_NS 2>/dev/null | xargs -r kill -9 2>/dev/null
	ip netns del $PEER_NS 2>/dev/null
	echo "" > $IXMOD_SYSFS/cores 2>/dev/null
	echo 1000 > $IXMOD_SYSFS/idle_us 2>/dev/null
}

peer() { ip netns exec $PEER_NS "$@"; }

port_stat() { cat "$(port_dir)/$1"; }

# ---- TCP: libixu's tcp-echo against Linux in the peer namespace ----

# the echo server as applications write it (libixu's event layer), and
# the test modes (--sink, --source, --hold, --connect) on the raw rings
TCP_ECHO=$_here/../../../../libixu/examples/tcp-echo
TCP_ECHO_HELPER=$_here/tcp_echo_helper
# shellcheck disable=SC2034  # for the test_tcp_*.sh that source this
TCP_CHECK=$_here/tcp_check.py
# Debian's python (scapy is there), started directly: a pyenv shim or the
# like is slow under emulation
# shellcheck disable=SC2034
PY=/usr/bin/python3
IXU_INFO=$_here/../../../../libixu/examples/ixu-info

# Whether the loaded module reports IXMOD_FEAT_TCP (bit 3).
has_tcp() {
	local f
	f=$("$IXU_INFO" 2>/dev/null | awk '$1 == "features" { print $2 }')
	[ -n "$f" ] && (( f & 8 ))
}

# tcp_stat NAME: the sum of dataplane/cpu*/stats/tcp_NAME over the cores
tcp_stat() {
	local f sum=0
	for f in "$IXMOD_SYSFS"/dataplane/cpu*/stats/tcp_"$1"; do
		[ -r "$f" ] && sum=$((sum + $(cat "$f")))
	done
	echo "$sum"
}

# tcp_stats_dump: every tcp_* counter summed over the cores, as a comment
tcp_stats_dump() {
	local f line=""
	for f in "$IXMOD_SYSFS"/dataplane/cpu1/stats/tcp_*; do
		[ -e "$f" ] || continue
		f=${f##*/tcp_}
		line+=" $f=$(tcp_stat "$f")"
	done
	echo "# tcp:$line"
}

# tcp_stats_zero: the levels tcp_conns and tcp_established are 0 everywhere
tcp_stats_zero() { [ "$(tcp_stat conns)" -eq 0 ] && [ "$(tcp_stat established)" -eq 0 ]; }

# bufs_held_zero: no receive buffer of the port is held (a function, so
# that busywait reads the counter again on every try)
bufs_held_zero() { [ "$(port_stat stats/bufs_held)" -eq 0 ]; }

# port_test_begin N: the plan of a test of the ports, its dmesg mark and
# the ports; if they cannot be set up, N failures, and the test ends there
port_test_begin() {
	local n=$1
	tap_plan "$n"
	dmesg_mark
	if ! ports_setup; then
		for _ in $(seq "$n"); do tap_fail "port setup" "setup failed (# lines above)"; done
		ports_teardown
		tap_done
	fi
}

# tcp_test_begin N: port_test_begin, and if the module has no TCP, N
# skips, and the test ends there
tcp_test_begin() {
	local n=$1
	port_test_begin "$n"
	if ! has_tcp; then
		for _ in $(seq "$n"); do tap_skip "TCP" "the module lacks IXMOD_FEAT_TCP"; done
		ports_teardown
		tap_done
	fi
}

# start_tcp_echo LOG ARGS...: tcp-echo in the background (in this shell, so
# that TCP_ECHO_PID stays set), the helper for a test mode; tcp_echo_ready
# LOG: wait for its verdict
start_tcp_echo() {
	local log=$1 bin=$TCP_ECHO
	shift
	case " $* " in
	*" --sink "* | *" --source "* | *" --hold "* | *" --connect "*) bin=$TCP_ECHO_HELPER ;;
	esac
	"$bin" "$@" > "$log" 2>&1 &
	TCP_ECHO_PID=$!
}
tcp_echo_ready() {
	busywait 10000 grep -q 'ready\|tcp-echo: cpu' "$1"
	grep -q ready "$1"
}
# stop_tcp_echo LOG: SIGINT, wait, and copy its output into the TAP as comments
stop_tcp_echo() {
	kill -INT "$TCP_ECHO_PID" 2>/dev/null
	wait "$TCP_ECHO_PID"
	sed 's/^/# /' "$1"
}
