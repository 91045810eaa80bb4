#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Port configuration: every bad value written to a port's sysfs files is
# refused with EINVAL or EBUSY and one dmesg line, and changes nothing.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

bad_ipv4=("1.2.3.4" "1.2.3.4/33" "1.2.3.4/0" "0.1.2.3/8" "127.0.0.1/8"
	  "224.0.0.1/4" "255.255.255.255/32" "198.18.0.0/24" "198.18.0.255/24"
	  "banana" "1.2.3/24" "198.18.0.1/24x" "198.18.0.1/")
bad_up=("2" "banana" "-1")
bad_reflect=("2" "maybe")
bad_cc=("reno" "CUBIC" "cubic2" "")
bad_key=("$(printf '6d5a%.0s' $(seq 1 19))6d5"
	 "$(printf '6d5a%.0s' $(seq 1 19))6d5x"
	 "$(printf '6d5a%.0s' $(seq 1 21))")
n=$((${#bad_ipv4[@]} + ${#bad_up[@]} + ${#bad_reflect[@]} + ${#bad_cc[@]} + ${#bad_key[@]} + 8))
tap_plan $n
if ! ports_setup; then
	for _ in $(seq 1 $n); do tap_fail "port setup" "setup failed (# lines above)"; done
	ports_teardown
	tap_done
fi
P=$(port_dir)

# refused FILE VALUE ERRNO-TEXT: the write fails with that error, logs
# exactly one line, and the file reads back as before
refused() {
	local file=$P/$1 val=$2 want=$3 before after err lines
	before=$(cat "$file")
	dmesg_mark
	err=$( (printf '%s\n' "$val" > "$file") 2>&1)
	after=$(cat "$file")
	lines=$(dmesg_since | grep -c 'ixmod')
	[[ "$err" == *"$want"* ]] || { echo "write gave '$err', not $want"; return 1; }
	[ "$before" = "$after" ] || { echo "changed: '$before' -> '$after'"; return 1; }
	[ "$lines" -eq 1 ] || { echo "$lines dmesg lines, not 1"; return 1; }
}

for v in "${bad_ipv4[@]}"; do
	check "ipv4 '$v' refused, unchanged" refused ipv4 "$v" "Invalid argument"
done
for v in "${bad_up[@]}"; do
	check "up '$v' refused, unchanged" refused up "$v" "Invalid argument"
done
for v in "${bad_reflect[@]}"; do
	check "udp_reflect '$v' refused, unchanged" refused udp_reflect "$v" "Invalid argument"
done
for v in "${bad_cc[@]}"; do
	check "congestion '$v' refused, unchanged" refused congestion "$v" "Invalid argument"
done
# cc_each: each algorithm is taken and reads back, then newreno again
cc_each() {
	local v got
	for v in cubic dctcp newreno; do
		echo "$v" > "$P/congestion" || return 1
		got=$(cat "$P/congestion")
		[ "$got" = "$v" ] || { echo "$v reads $got"; return 1; }
	done
}
check "congestion takes cubic, dctcp and newreno" cc_each
# a new address keeps the flag and the algorithm (the configuration is
# replaced whole)
echo 1 > "$P/udp_reflect"
echo cubic > "$P/congestion"
echo "$DUT_IP/24" > "$P/ipv4"
check "udp_reflect and congestion survive an ipv4 write" \
	test "$(cat "$P/udp_reflect") $(cat "$P/congestion")" = "1 cubic"
echo 0 > "$P/udp_reflect"
echo newreno > "$P/congestion"
check "rss_key refused while up" refused rss_key "$(printf '6d5a%.0s' $(seq 1 20))" \
	"Device or resource busy"
check "the port still answers" peer ping -c 2 -W 2 $DUT_IP

echo 0 > "$P/up"
for v in "${bad_key[@]}"; do
	check "rss_key '${v:0:12}...' (${#v} chars) refused, unchanged" refused rss_key "$v" \
		"Invalid argument"
done
key=$(printf '0123456789abcdef%.0s' 1 2 3 4 5)
echo "$key" > "$P/rss_key"
check "a good rss_key is taken while down" test "$(cat "$P/rss_key")" = "$key"
echo "" > $IXMOD_SYSFS/cores
check "up without dataplane cores refused, port stays down" \
	bash -c "! echo 1 > $P/up 2>/dev/null && [ \"\$(cat $P/up)\" = 0 ] && [ -z \"\$(cat $P/queues)\" ]"
echo 1-2 > $IXMOD_SYSFS/cores
echo 1 > "$P/up"
check "up again with the new key answers" busywait 10000 peer ping -c 1 -W 1 $DUT_IP
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
