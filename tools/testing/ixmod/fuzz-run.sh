#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fuzz-run.sh - run each libFuzzer target for a while, as TAP
#
# Usage: fuzz-run.sh BUILD_DIR SECONDS FUZZER...
#
# FUZZER is BUILD_DIR/fuzz_<name>; it starts from the committed seeds in
# fuzz/corpus/<name>/ and writes what it finds to a temporary directory, so
# the committed corpus only changes when someone copies a useful input
# there on purpose.  A crash leaves its input in BUILD_DIR/artifacts/ and
# the fuzzer's log in BUILD_DIR/<fuzzer>.log.  Exits 0 only if every
# fuzzer ran clean.

set -u

out=$1
secs=$2
shift 2
mkdir -p "$out/artifacts" || exit 1

echo "TAP version 13"
echo "1..$#"
n=0
failed=0
for bin in "$@"; do
	n=$((n + 1))
	name=${bin##*/}
	seeds=fuzz/corpus/${name#fuzz_}
	log=$out/$name.log
	new=$(mktemp -d) || exit 1
	"$bin" -max_total_time="$secs" -max_len=2048 -print_final_stats=1 \
		-artifact_prefix="$out/artifacts/$name-" "$new" "$seeds" >"$log" 2>&1
	rc=$?
	rm -rf "$new"
	runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
		echo "ok $n - $name ($runs runs)"
	else
		echo "not ok $n - $name (exit status $rc; log $log)"
		tail -n 30 "$log" | sed 's/^/# /'
		failed=1
	fi
done
exit "$failed"
