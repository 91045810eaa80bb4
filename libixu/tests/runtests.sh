#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Run libixu test programs and print TAP.  Each program exits 0 (pass),
# 77 (skip, with its reason on stdout) or anything else (fail), as
# liburing's tests do.  Exit status: 1 if any test failed.
set -u
T_EXIT_SKIP=77
n=0
failed=0
echo "TAP version 13"
echo "1..$#"
for t in "$@"; do
	n=$((n + 1))
	name=libixu/$(basename "$t")
	out=$("$t" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
	if [ "$rc" -eq 0 ]; then
		echo "ok $n $name"
	elif [ "$rc" -eq "$T_EXIT_SKIP" ]; then
		echo "ok $n $name # SKIP $(printf '%s' "$out" | tail -n1)"
	else
		echo "not ok $n $name (exit $rc)"
		failed=1
	fi
done
exit "$failed"
