#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fuzz-run.sh SECONDS - run the protocol fuzzer from the committed seed
# corpus (fuzz/corpus, left untouched: new inputs go to fuzz/work) and
# print one TAP line.

cd "$(dirname "$0")/.." || exit 1
secs=${1:-20}
mkdir -p fuzz/work
log=fuzz/work/log
if ./fuzz/proto-fuzz -max_total_time="$secs" -max_len=8192 -timeout=10 \
	-rss_limit_mb=2048 -artifact_prefix=fuzz/ -print_final_stats=1 \
	fuzz/work fuzz/corpus > "$log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
	echo "1..1"
	echo "ok 1 - fuzz: ${secs} s, ${runs:-?} inputs, coverage ${cov:-?}, invariants held"
else
	echo "1..1"
	echo "not ok 1 - fuzz: the fuzzer failed (see $log and fuzz/crash-*)"
	grep -E "ERROR|SUMMARY|malformed|abort" "$log" | head -n 20 | sed 's/^/# /'
	exit 1
fi
