# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # out, round, mark_bin and CALIB_S are the caller's
#
# bench-guest-lib.sh - what the guest halves of the echo benchmarks share,
# sourced inside the VM after tools/testing/selftests/ixmod/test_common.sh:
# the three-NIC layout, interrupt placement, a server in the background
# with its scheduler figures, ixmod's port up and down, and the end of run.
#
# The VM has 2 vCPUs and 3 NICs of one model: igb on one QEMU hub
# (scripts/vm-run -n 3), or, with IXMOD_TEST_NIC=virtio, virtio-net on
# one bridge (vm-run --virtio N --virtio-nics 3, told apart by their
# MACs).  The first is ixmod's ($DUT_IP), the second Linux's
# ($BENCH_LIN_IP, root namespace, under igb or virtio_net), the third the
# peer's ($PEER_IP, namespace $PEER_NS).  The client and the peer NIC's
# interrupts have $BENCH_CLI_CPU; every server's kernel work has
# $BENCH_SRV_CPU: ixmod's dataplane thread, or the interrupts (hence the
# softirq work) of every queue of Linux's NIC.
#
# With IXMOD_TEST_NIC=softport, no NIC (vm-run -n 0): ixmod's port is the
# software port ixsw0, its netdev the peer's interface in $PEER_NS, and
# the Linux servers listen in $PEER_NS too, reached on loopback
# ($BENCH_LIN_IP 127.0.0.1; start them with "${BENCH_LIN_RUN[@]}").  The
# netdev's transmit runs on the sender's CPU and its NAPI threads are
# put on $BENCH_CLI_CPU: both stacks' Linux work shares the client's CPU.
#
# The caller sets BENCH (its name, prefixing progress lines), out (the
# results directory) and, before each server, round (the round number).

BENCH_LIN_IP=198.18.0.3
BENCH_LIN_RUN=()
# the third virtio-net NIC of scripts/vm-run --virtio-nics 3 (the other
# two are test_common.sh's VNET_DUT_MAC and VNET_PEER_MAC)
VNET_LIN_MAC=52:54:00:49:58:03
BENCH_SRV_CPU=1
BENCH_CLI_CPU=0

say() { echo "$BENCH: $*"; }

# the NIC model, for progress lines and params.txt
case "$IXMOD_TEST_NIC" in
virtio) BENCH_NIC=virtio-net ;;
softport) BENCH_NIC=softport
	BENCH_LIN_IP=127.0.0.1
	BENCH_LIN_RUN=(ip netns exec "$PEER_NS") ;;
*) BENCH_NIC=$IXMOD_TEST_NIC ;;
esac

# bench_devices: ixmod's NIC, Linux's and the peer's: the igbs in PCI
# order, or the virtio-net NICs by their MACs (test_common.sh's VNET_*)
bench_devices() {
	local d mac dut="" lin="" peer=""
	if [ "$IXMOD_TEST_NIC" != virtio ]; then
		igb_devices
		return
	fi
	for d in $(virtio_net_functions); do
		mac=$(virtio_net_mac "$d") || continue
		case $mac in
		"$VNET_DUT_MAC") dut=$d ;;
		"$VNET_LIN_MAC") lin=$d ;;
		"$VNET_PEER_MAC") peer=$d ;;
		esac
	done
	[ -n "$dut" ] && [ -n "$lin" ] && [ -n "$peer" ] || return 1
	printf '%s\n' "$dut" "$lin" "$peer"
}

# irqs_to DEV CPU: every MSI-X vector of the PCI device DEV to CPU (the
# driver must have requested them: /proc/irq/N exists only then)
irqs_to() {
	local i
	for i in /sys/bus/pci/devices/"$1"/msi_irqs/*; do
		echo "$2" > "/proc/irq/${i##*/}/smp_affinity_list" ||
			{ say "cannot move irq ${i##*/} of $1 to cpu $2"; return 1; }
	done
}

# bench_setup IDLE_US: ixmod loaded with no core, its port bound; Linux's
# NIC up at $BENCH_LIN_IP, the peer's in its namespace; interrupts placed.
# Sets DUT, LIN, PEER, LINIF, PEERIF.
bench_setup() {
	local devs
	if [ "$IXMOD_TEST_NIC" = softport ]; then
		bench_setup_softport "$1"
		return
	fi
	mapfile -t devs < <(bench_devices)
	[ "${#devs[@]}" -ge 3 ] || { say "needs three $BENCH_NIC NICs, found ${#devs[@]}"; return 1; }
	DUT=${devs[0]}
	LIN=${devs[1]}
	PEER=${devs[2]}
	modprobe "$NIC_DRIVER" 2>/dev/null
	ixmod_load || return 1
	echo "" > "$IXMOD_SYSFS"/cores
	echo "$1" > "$IXMOD_SYSFS"/idle_us
	"$IXMOD_BIND" bind "$DUT" >/dev/null || return 1
	busywait 5000 peer_netdev_back || { say "no netdev for $PEER"; return 1; }
	busywait 5000 ls "$(nic_netdev_dir "$LIN")" || { say "no netdev for $LIN"; return 1; }
	PEERIF=$(ls "$(nic_netdev_dir "$PEER")")
	LINIF=$(ls "$(nic_netdev_dir "$LIN")")
	peer_ns_with "$PEERIF"
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip addr add $BENCH_LIN_IP/24 dev "$LINIF"
	ip link set "$LINIF" up
	# igb requests its vectors when the link goes up (virtio_net at
	# probe, and sets their affinity then): place them now
	irqs_to "$PEER" $BENCH_CLI_CPU || return 1
	irqs_to "$LIN" $BENCH_SRV_CPU || return 1
	echo "$DUT_IP/24" > "$(port_dir)/ipv4" || return 1
	busywait 15000 peer ping -c1 -W1 $BENCH_LIN_IP ||
		{ say "Linux $NIC_DRIVER port never answered ping"; return 1; }
}

# peer_ns_with IF: a new $PEER_NS (the client's) with IF in it at
# $PEER_IP, loopback up, no IPv6
peer_ns_with() {
	ip netns del "$PEER_NS" 2>/dev/null
	ip netns add "$PEER_NS"
	ip link set "$1" netns "$PEER_NS"
	ip -n "$PEER_NS" link set lo up
	ip netns exec "$PEER_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$PEER_NS" addr add "$PEER_IP/24" dev "$1"
	ip -n "$PEER_NS" link set "$1" up
}

# bench_setup_softport IDLE_US: ixmod loaded with no core, its software
# port ixsw0 made and its netdev in $PEER_NS at $PEER_IP, loopback up
# there (LIN and LINIF name it; PEER is empty: no PCI function)
bench_setup_softport() {
	ixmod_load || return 1
	[ -e "$IXMOD_SYSFS"/softports/new ] || { say "needs $NIC_NEEDS"; return 1; }
	echo "" > "$IXMOD_SYSFS"/cores
	echo "$1" > "$IXMOD_SYSFS"/idle_us
	echo 0 > "$IXMOD_SYSFS"/softports/new || return 1
	DUT=ixsw0 PEER="" PEERIF=ixsw0 LIN=loopback LINIF=lo
	peer_ns_with "$PEERIF"
	echo "$DUT_IP/24" > "$(port_dir)/ipv4" || return 1
}

# napi_to_client: the software port's NAPI threads (napi/ixsw0-N, made
# when its queues start) on the client's CPU, beside the netdev's
# transmit; nothing to do for a NIC
napi_to_client() {
	local pid
	[ "$IXMOD_TEST_NIC" = softport ] || return 0
	for pid in $(pgrep '^napi/ixsw0'); do
		taskset -pc $BENCH_CLI_CPU "$pid" > /dev/null ||
			{ say "cannot move NAPI thread $pid to cpu $BENCH_CLI_CPU"; return 1; }
	done
}

# bench_env IDLE_US APP_CPU: where everything runs, into $out/env.txt
bench_env() {
	local d i
	{
		echo "kernel $(uname -r), $(nproc --all) vCPUs, $(grep -o 'isolcpus=[^ ]*\|nohz_full=[^ ]*' /proc/cmdline | xargs)"
		echo "NICs: $BENCH_NIC$(vnet_backend | sed 's/^/, backend /')"
		echo "ixmod $DUT on core $BENCH_SRV_CPU, idle_us=$1; Linux $LIN ($LINIF); peer $PEER ($PEERIF)"
		echo "server threads on cpu $2, their kernel work on cpu $BENCH_SRV_CPU, client on cpu $BENCH_CLI_CPU"
		[ "$IXMOD_TEST_NIC" = softport ] &&
			echo "software port: netdev $PEERIF in $PEER_NS, its NAPI threads on cpu $BENCH_CLI_CPU; Linux servers in $PEER_NS on $BENCH_LIN_IP"
		for d in $LIN $PEER; do
			[ -d "/sys/bus/pci/devices/$d" ] || continue
			for i in /sys/bus/pci/devices/"$d"/msi_irqs/*; do
				echo "$d irq ${i##*/} cpus $(cat "/proc/irq/${i##*/}/smp_affinity_list")"
			done
		done
	} > "$out/env.txt"
}

# serve NAME COMMAND...: start a server in the background (SRV_PID), its
# output in $out/server-NAME-rROUND.log (SRV_LOG)
serve() {
	local name=$1
	shift
	SRV_LOG=$out/server-$name-r$round.log
	"$@" > "$SRV_LOG" 2>&1 &
	SRV_PID=$!
	say "[$name $round] server: $* (pid $SRV_PID)"
}

# schedstat PID: "run_ms wait_ms switches" summed over PID's threads:
# time on a CPU, time runnable but waiting for one, times scheduled in
schedstat() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null |
		awk '{r += $1; w += $2; n += $3} END {printf "run_ms=%d wait_ms=%d switches=%d", r / 1e6, w / 1e6, n}'
}

# stop_server NAME: the scheduler figures, SIGINT, then the server's totals
stop_server() {
	local dp
	echo "schedstat $(schedstat "$SRV_PID")" >> "$out/sched-$1-r$round.txt"
	if [ -e "$IXMOD_SYSFS/dataplane/cpu$BENCH_SRV_CPU/pid" ]; then
		dp=$(cat "$IXMOD_SYSFS/dataplane/cpu$BENCH_SRV_CPU/pid")
		echo "dataplane $(schedstat "$dp")" >> "$out/sched-$1-r$round.txt"
	fi
	say "[$1 $round] $(xargs < "$out/sched-$1-r$round.txt")"
	kill -INT "$SRV_PID" 2>/dev/null
	# a hung server must not hang the run
	if ! busywait 10000 sh -c "! kill -0 $SRV_PID"; then
		say "[$1 $round] server pid $SRV_PID ignored SIGINT; killing it"
		kill -KILL "$SRV_PID"
	fi
	wait "$SRV_PID" 2>/dev/null
	say "[$1 $round] $(tail -n1 "$SRV_LOG")"
}

# The dataplane thread polls whenever cores are assigned, so ixmod holds
# core $BENCH_SRV_CPU only during its own turn: the Linux servers get it idle.
ixmod_up() {
	echo $BENCH_SRV_CPU > "$IXMOD_SYSFS"/cores || return 1
	echo 1 > "$(port_dir)/up" || return 1
	busywait 10000 grep -q '^up' "$(port_dir)/link" || { say "ixmod link stays down"; return 1; }
	napi_to_client || return 1
	busywait 10000 peer ping -c1 -W1 "$DUT_IP" || { say "ixmod port never answered ping"; return 1; }
	# Down emptied ixmod's ARP table, but the peer still knows ixmod's
	# MAC and would not ask: ixmod's first reply would find no
	# translation.  Make the peer ask, so that ixmod learns its MAC
	# before the measurement.
	ip -n "$PEER_NS" neigh flush to "$DUT_IP"
	busywait 10000 peer ping -c1 -W1 "$DUT_IP"
}

ixmod_down() {
	echo 0 > "$(port_dir)/up"
	echo "" > "$IXMOD_SYSFS"/cores
}

# The icount plugin's windows (the caller sets mark_bin, the mark program
# or empty without the plugin, and CALIB_S).
#
# ixmod's idle iterations on the server core, or nothing (a Linux server)
IDLE_STAT=$IXMOD_SYSFS/dataplane/cpu$BENCH_SRV_CPU/stats/idle
idle_stat() {
	[ "${1%%-*}" = ixmod ] && [ -r "$IDLE_STAT" ] && echo "$IDLE_STAT"
}

# calibrate NAME: with the plugin, CALIB_S seconds of the server unloaded
# between two marks, on the client's CPU (the server's vCPU is counted)
calibrate() {
	local name=$1 f idle=""
	[ -n "$mark_bin" ] || return 0
	f=$(idle_stat "$name")
	[ -n "$f" ] && idle=" idle=$(cat "$f")"
	echo "calib $name-r$round start$idle" >> "$out/marks.txt"
	taskset -c $BENCH_CLI_CPU "$mark_bin"
	sleep "$CALIB_S"
	idle=""
	[ -n "$f" ] && idle=" idle=$(cat "$f")"
	echo "calib $name-r$round end$idle" >> "$out/marks.txt"
	taskset -c $BENCH_CLI_CPU "$mark_bin"
}

# bench_finish: the port's counters, the interrupt counts, everything
# back as it was, and the kernel log of the run checked
bench_finish() {
	grep . "$(port_dir)"/stats/* "$(port_dir)"/drops/* 2>/dev/null |
		sed "s|$(port_dir)/||" > "$out/ixmod-stats.txt"
	grep -E 'CPU|enp|virtio' /proc/interrupts >> "$out/env.txt"
	if [ "$LINIF" != lo ]; then
		ip link set "$LINIF" down
		ip addr flush dev "$LINIF"
	fi
	ports_teardown
	rmmod ixmod
	dmesg_since > "$out/dmesg.txt"
	if dmesg_clean > /dev/null; then
		say "kernel log clean"
	else
		say "kernel log reports errors: see $out/dmesg.txt"
	fi
}
