#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every failure path of setting ixmod up, made to happen on purpose
# (Documentation/fault-injection/fault-injection.rst); needs a kernel
# with fault injection (scripts/build-debug-kernel), else it skips.
#
# 1. Kernel allocators (failslab, fail_page_alloc) with a stack filter
#    that admits only allocations with ixmod's code among the 12
#    innermost frames (ixmod's own, and its helpers'), walked with
#    /proc/thread-self/fail-nth over each operation: assigning cores,
#    binding the port, bringing it up, attaching a context, mapping and
#    touching its regions, taking the port down.  Fail-nth N makes the
#    Nth such allocation of the operation fail: N = 1, 2, ... 24, then
#    every half-again-larger N (the sites past the first tens are the
#    same page loops: a core's tables, a queue pair's buffer pages),
#    until an operation reaches no Nth site and succeeds.
# 2. Each function ixmod marks with ALLOW_ERROR_INJECTION
#    (/sys/kernel/debug/fail_function/injectable), failed once by
#    fail_function during the operation that calls it.
#
# After every injected failure: the caller got an errno, ixmod logged
# exactly one line, the kernel reported no bug, and the state under
# /sys/kernel/ixmod (cores, threads, ports, queues, contexts, buffers
# held, TCP connections, kept arenas) reads back as before the attempt.
# The same operation without injection then succeeds.  A context whose
# NIC keeps reading its arena past the one-second bound keeps the arena
# (arenas_kept) until the port's device is reset, which frees it.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

FAULT_OP=$_here/fault_op
DBG=/sys/kernel/debug
FF=$DBG/fail_function

mountpoint -q $DBG || mount -t debugfs none $DBG 2>/dev/null
if [ ! -d $FF ] || [ ! -d $DBG/failslab ] || [ ! -d $DBG/fail_page_alloc ]; then
	echo "TAP version 13"
	echo "1..0 # SKIP no fault injection in this kernel (CONFIG_FAIL_FUNCTION, FAILSLAB, FAIL_PAGE_ALLOC; scripts/build-debug-kernel)"
	exit "$ksft_skip"
fi

# the functions ixmod marks; every one must be failed below at least once
MARKED=(ixm_core_create ixm_dp_thread_create igb_wait_reg ixm_qpair_alloc
	ixm_qpair_map_pool ixm_adv_queue_alloc ixm_core_work_alloc ixm_ctx_alloc ixm_ctx_grab_rx
	ixm_ctx_map_arena ixm_ctx_map_slice ixm_ctx_drain_arena
	ixm_tcp_conn_alloc)
tap_plan 24

# ---- the state an injected failure must leave as it found it ----

# (fault_op reads it: the walk runs there, in one process)
state() { "$FAULT_OP" -d "$DUT" state; }

# The kernel log as it comes, from /dev/kmsg into a file: a step reads
# only what it added (reading the whole log each time grows slow).
KLOG=$(mktemp)
cat /dev/kmsg > "$KLOG" 2>/dev/null &
klog_pid=$!
klog_n=0
klog_mark() { klog_off=$(stat -c %s "$KLOG"); }
# klog_since: the records logged since klog_mark, once they are in the file
klog_since() {
	local tag="test_fault_01 sync $$ $((klog_n += 1))"
	echo "$tag" > /dev/kmsg
	for _ in $(seq 500); do
		SINCE=$(tail -c +$((klog_off + 1)) "$KLOG")
		[[ $SINCE == *"$tag"* ]] && return 0
		sleep 0.02
	done
	echo "# the kernel log did not come through /dev/kmsg"
	return 1
}

# ixmod's lines in $SINCE (the driver core's "probe of DEV failed with
# error" on 6.1, "probe with driver ixmod failed with error" on 6.12, after
# ixmod's own line, is not ixmod's)
ixmod_lines() { printf '%s\n' "$SINCE" | grep -E ';ixmod[: ]' | grep -v 'failed with error' | sed 's/^[^;]*;//'; }

# a kernel report in $SINCE (./kernel_reports: an allocation failure's
# own warning, with its stack, is not one: it is what was injected)
kernel_report() { printf '%s\n' "$SINCE" | grep -E -f <(kernel_reports); }

# ---- fault injection set-up ----

fi_reset() {
	local a
	for a in failslab fail_page_alloc $FF; do
		a=${a#"$DBG"/}
		echo 0 > "$DBG/$a/probability"
		echo 0 > "$DBG/$a/times" 2>/dev/null
	done
	echo > $FF/inject 2>/dev/null
}

# allocations count only when ixmod's code is on the stack
fi_filter_setup() {
	local lo hi klo khi a
	echo 0 > /proc/sys/kernel/kptr_restrict
	read -r lo hi < <(awk '$4 == "[ixmod]" && ($2 == "t" || $2 == "T") {
		a = strtonum("0x" $1); if (lo == "" || a < lo) lo = a; if (a > hi) hi = a }
		END { printf "%d %d\n", lo, hi + 65536 }' /proc/kallsyms)
	[ -n "$lo" ] && [ "$lo" != 0 ] || return 1
	# kmemleak's own allocations, made inside every allocation ixmod
	# makes, are not ixmod's (they fall back to kmemleak's pool): the
	# range of kmemleak's entry points on the stack rejects them
	read -r klo khi < <(awk '$3 == "kmemleak_alloc" { lo = strtonum("0x" $1) }
		$3 == "kmemleak_no_scan" { hi = strtonum("0x" $1) }
		END { if (lo && hi > lo) printf "%d %d\n", lo, hi; else print "0 0" }' /proc/kallsyms)
	for a in failslab fail_page_alloc; do
		printf '%#x\n' "$klo" > "$DBG/$a/reject-start"
		printf '%#x\n' "$khi" > "$DBG/$a/reject-end"
		echo N > "$DBG/$a/ignore-gfp-wait"
		echo 1 > "$DBG/$a/verbose"
		echo 0 > "$DBG/$a/space"
		# ixmod within the 12 innermost frames: its own allocations and
		# those of the helpers it calls (request_irq, kobject_add,
		# kthread_create), not the ACPI interpreter's under
		# pci_enable_device (20 frames down), whose error paths are not
		# ixmod's: with 32, a failed _PRT evaluation left ACPICA's state
		# freed and KASAN caught its use at the next unbind
		echo 12 > "$DBG/$a/stacktrace-depth"
		printf '%#x\n' "$lo" > "$DBG/$a/require-start"
		printf '%#x\n' "$hi" > "$DBG/$a/require-end"
	done
	echo N > $DBG/fail_page_alloc/ignore-gfp-highmem
	echo 0 > $DBG/fail_page_alloc/min-order
}

# ---- 1. the walk ----

# walk_ok NAME [-u PATH VALUE] OP...: fault_op's fail-nth walk over OP
# (echo VALUE > PATH undoes a successful OP); one TAP line, each step a
# comment
walk_ok() {
	local name=$1 out rc
	shift
	out=$("$FAULT_OP" -d "$DUT" walk "$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		printf '%s\n' "$out"
		tap_ok "fail-nth walk: $name (${out##*# })"
	else
		tap_fail "fail-nth walk: $name" "$(printf '%s\n' "$out" | sed 's/^# //')"
	fi
}

undo_cores() { echo "" > $IXMOD_SYSFS/cores; }
undo_bind() { echo "$DUT" > /sys/bus/pci/drivers/ixmod/unbind; }
undo_up() { echo 0 > "$(port_dir)/up"; }
nothing() { :; }

# an injected page allocation failure logs the whole memory state: to
# the log, not to the (emulated, slow) serial console
read -r console_level _ < /proc/sys/kernel/printk
echo 4 > /proc/sys/kernel/printk
dmesg_mark
mark0=$_dmesg_mark
if ! ports_setup; then
	for _ in $(seq 23); do tap_fail "port setup" "setup failed (# lines above)"; done
	ports_teardown
	tap_done
fi
check "fault injection: the stack filter covers ixmod's code" fi_filter_setup
fi_reset

# from nothing: the port back with Linux, no cores
echo 0 > "$(port_dir)/up"
"$IXMOD_BIND" unbind "$DUT" >/dev/null
echo "" > $IXMOD_SYSFS/cores
# cores
walk_ok "assigning cores 1-2" -u $IXMOD_SYSFS/cores "" write $IXMOD_SYSFS/cores 1-2
echo 1-2 > $IXMOD_SYSFS/cores
# bind: the driver_override that ixmod-bind sets, then the bind itself
echo "$DUT" > "/sys/bus/pci/devices/$DUT/driver/unbind" 2>/dev/null
echo ixmod > "/sys/bus/pci/devices/$DUT/driver_override"
walk_ok "binding the port (probe)" -u /sys/bus/pci/drivers/ixmod/unbind "$DUT" \
	write /sys/bus/pci/drivers/ixmod/bind "$DUT"
echo "$DUT" > /sys/bus/pci/drivers/ixmod/bind
echo $DUT_IP/24 > "$(port_dir)/ipv4"
# up, and down (which must not fail at all)
walk_ok "bringing the port up" -u "$(port_dir)/up" 0 write "$(port_dir)/up" 1
echo 1 > "$(port_dir)/up"
walk_ok "taking the port down" -u "$(port_dir)/up" 1 write "$(port_dir)/up" 0
check "the port is up again after the walks" bash -c "echo 1 > '$(port_dir)/up' 2>/dev/null; grep -qx 1 '$(port_dir)/up'"
busywait 10000 grep -q '^up' "$(port_dir)/link"
# contexts
walk_ok "attaching a context (IXMOD_IOC_SETUP)" setup 1
walk_ok "mapping and touching a context's regions" mmap 1
check "a context attaches without injection" "$FAULT_OP" mmap 1
check "no kernel report since the walks began" \
	bash -c "! dmesg | sed -n '/$mark0/,\$p' | grep -E -f <(grep -v -E '^(#|\$)' '$_here/kernel_reports')"

# ---- 2. each marked function once ----

# inject FUNC RETVAL: fail the next call of FUNC (anyone's) with RETVAL
inject() {
	fi_reset
	echo "$1" > $FF/inject || return 1
	printf '%#x\n' "$2" > "$FF/$1/retval" 2>/dev/null ||
		printf '%d\n' "$2" > "$FF/$1/retval"
	echo 100 > $FF/probability
	echo 1 > $FF/interval
	echo 1 > $FF/times
	echo 0 > $FF/space
	echo 1 > $FF/verbose
}

# fails_once FUNC RETVAL EXPECT UNDO OP...: OP fails with EXPECT (an errno
# name, or "ok" for a failure OP survives), one ixmod line, state as
# before; then without injection OP succeeds (undone by UNDO)
# the functions failed so far, one per line (check runs each step in a
# subshell: a variable would not outlive it)
COVERED=$(mktemp)
fails_once() {
	local f=$1 ret=$2 want=$3 undo=$4 before after out lines
	shift 4
	before=$(state)
	klog_mark
	inject "$f" "$ret" || { echo "# $f is not injectable"; return 1; }
	out=$("$FAULT_OP" "$@" 2>&1)
	fi_reset
	klog_since || return 1
	after=$(state)
	lines=$(ixmod_lines | wc -l)
	echo "# $f: $out; $lines ixmod line(s): $(ixmod_lines | tr '\n' ' ')"
	grep -q "^$f$" <(cat /sys/kernel/debug/fail_function/injectable | awk '{print $1}') ||
		{ echo "# $f is not in fail_function/injectable"; return 1; }
	if [ "$want" = ok ]; then
		[[ $out == "rc=0"* ]] || return 1
		$undo
	else
		[[ $out == "rc=-$want"* ]] || return 1
		[ "$after" = "$before" ] || { diff <(echo "$before") <(echo "$after") | sed 's/^/# /'; return 1; }
	fi
	[ "$lines" -eq 1 ] || return 1
	[ -z "$(kernel_report)" ] || { kernel_report | sed 's/^/# /'; return 1; }
	out=$("$FAULT_OP" "$@" 2>&1) || { echo "# without injection: $out"; return 1; }
	$undo
	echo "$f" >> "$COVERED"
}

ENOMEM=-12
ETIMEDOUT=-110
# cores change only while no port is up
echo 0 > "$(port_dir)/up"
echo "" > $IXMOD_SYSFS/cores
check "cores: a core's creation fails (ENOMEM); nothing changes; then it works" \
	fails_once ixm_core_create $ENOMEM ENOMEM undo_cores write $IXMOD_SYSFS/cores 1-2
check "cores: the thread's creation fails (ENOMEM); nothing changes; then it works" \
	fails_once ixm_dp_thread_create $ENOMEM ENOMEM undo_cores write $IXMOD_SYSFS/cores 1-2
echo 1-2 > $IXMOD_SYSFS/cores
echo "$DUT" > /sys/bus/pci/drivers/ixmod/unbind
check "bind: the reset's register poll times out (ETIMEDOUT); then it binds" \
	fails_once igb_wait_reg $ETIMEDOUT ETIMEDOUT undo_bind write /sys/bus/pci/drivers/ixmod/bind "$DUT"
echo "$DUT" > /sys/bus/pci/drivers/ixmod/bind
echo $DUT_IP/24 > "$(port_dir)/ipv4"
check "up: a queue pair's allocation fails (ENOMEM); the port stays down; then it comes up" \
	fails_once ixm_qpair_alloc $ENOMEM ENOMEM undo_up write "$(port_dir)/up" 1
check "up: a buffer page's DMA mapping fails (ENOMEM); the port stays down; then it comes up" \
	fails_once ixm_qpair_map_pool $ENOMEM ENOMEM undo_up write "$(port_dir)/up" 1
check "up: a queue pair's descriptor rings fail (ENOMEM); the port stays down; then it comes up" \
	fails_once ixm_adv_queue_alloc $ENOMEM ENOMEM undo_up write "$(port_dir)/up" 1
check "up: a core's new work list fails (ENOMEM); the port stays down; then it comes up" \
	fails_once ixm_core_work_alloc $ENOMEM ENOMEM undo_up write "$(port_dir)/up" 1
echo 1 > "$(port_dir)/up"
busywait 10000 grep -q '^up' "$(port_dir)/link"
check "setup: the context's regions fail (ENOMEM); nothing attached; then it attaches" \
	fails_once ixm_ctx_alloc $ENOMEM ENOMEM nothing mmap 1
check "setup: taking the receive pages fails (ENOMEM); nothing attached; then it attaches" \
	fails_once ixm_ctx_grab_rx $ENOMEM ENOMEM nothing mmap 1
check "setup: mapping the arena fails (ENOMEM); nothing attached; then it attaches" \
	fails_once ixm_ctx_map_arena $ENOMEM ENOMEM nothing mmap 1
check "setup: one port cannot map the arena: setup succeeds, TCP will copy, one line" \
	fails_once ixm_ctx_map_slice $ENOMEM ok nothing mmap 1

# release: the NIC keeps reading the arena past the one-second bound
kept_then_freed() {
	local out
	klog_mark
	inject ixm_ctx_drain_arena $ETIMEDOUT
	out=$("$FAULT_OP" setup 1 2>&1)
	fi_reset
	klog_since || return 1
	echo "# $out; $(ixmod_lines | tr '\n' ' ')"
	[[ $out == "rc=0"* ]] || return 1
	ixmod_lines | grep -q 'release: the NIC still reads' || return 1
	[ "$(cat $IXMOD_SYSFS/arenas_kept)" = 1 ] || { echo "# arenas_kept $(cat $IXMOD_SYSFS/arenas_kept)"; return 1; }
	# the port goes down and up again: the device is not reset, the arena stays
	echo 0 > "$(port_dir)/up" && echo 1 > "$(port_dir)/up" || return 1
	[ "$(cat $IXMOD_SYSFS/arenas_kept)" = 1 ] || { echo "# freed while the device was never reset"; return 1; }
	# unbinding resets the device: then the arena is unmapped and freed
	echo 0 > "$(port_dir)/up"
	echo "$DUT" > /sys/bus/pci/drivers/ixmod/unbind
	[ "$(cat $IXMOD_SYSFS/arenas_kept)" = 0 ] || { echo "# still kept after the reset"; return 1; }
	klog_since || return 1
	ixmod_lines | grep -q 'kept .* transmit arena is freed' || return 1
	[ -z "$(kernel_report)" ] || { kernel_report | sed 's/^/# /'; return 1; }
	echo ixm_ctx_drain_arena >> "$COVERED"
}
check "release: an arena the NIC still reads after 1 s is kept (arenas_kept 1) until the device's reset frees it" \
	kept_then_freed
echo "$DUT" > /sys/bus/pci/drivers/ixmod/bind
echo $DUT_IP/24 > "$(port_dir)/ipv4"
echo 1 > "$(port_dir)/up"
busywait 10000 grep -q '^up' "$(port_dir)/link"

# TCP: the connection for a peer's SYN cannot be created; the peer's SYN
# retransmission then gets one, and nothing is left afterwards
syn_dropped_then_served() {
	local log out
	log=$(mktemp)
	start_tcp_echo "$log" -p 7
	tcp_echo_ready "$log" || { stop_tcp_echo "$log"; return 1; }
	inject ixm_tcp_conn_alloc 0
	out=$(peer timeout 60 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --sizes 1000 2>&1)
	local rc=$? left
	left=$(cat $FF/times)
	fi_reset
	echo "# client: $(echo "$out" | tail -n1); injections left: $left"
	busywait 10000 tcp_stats_zero
	stop_tcp_echo "$log" > /dev/null
	rm -f "$log"
	[ "$rc" -eq 0 ] && [ "$left" = 0 ] && tcp_stats_zero || return 1
	echo ixm_tcp_conn_alloc >> "$COVERED"
}
if has_tcp; then
	check "TCP: a connection that cannot be created drops the SYN; the retransmitted SYN is served" \
		syn_dropped_then_served
else
	tap_skip "TCP: connection creation" "the module lacks IXMOD_FEAT_TCP"
fi

missing=""
for f in "${MARKED[@]}"; do
	grep -qx "$f" "$COVERED" || missing+="$f "
done
marked=$(awk '$2 == "[ixmod]" {print $1}' $FF/injectable | sort | tr '\n' ' ')
check "every function ixmod marks ($marked) was failed at least once" \
	bash -c "[ -z '$missing' ] && [ '$marked' = '$(printf '%s\n' "${MARKED[@]}" | sort | tr '\n' ' ')' ] || { echo 'not covered: $missing'; false; }"

fi_reset
ports_teardown
echo "$console_level" > /proc/sys/kernel/printk
kill "$klog_pid" 2>/dev/null
rm -f "$KLOG" "$COVERED"
tap_done
