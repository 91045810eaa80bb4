#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tap-run.sh - run unit test programs and merge their TAP into one stream
#
# Usage: tap-run.sh PROGRAM...
#
# Test lines are renumbered and prefixed with the program's name; anything
# else a program prints becomes a "#" comment.  A program that dies early,
# reports fewer tests than it planned, or exits non-zero without reporting
# a failure gets one extra "not ok" line, so nothing is lost silently.
# Exits 0 only if every test passed.

set -u

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/body"
n=0
failed=0

for prog in "$@"; do
	name=${prog##*/}
	"$prog" >"$tmp/out" 2>&1
	rc=$?
	awk -v name="$name" -v n="$n" -v rc="$rc" -v counts="$tmp/counts" '
		/^TAP version/ { next }
		/^1\.\.[0-9]+/ {
			if (plan == "")
				plan = substr($1, 4) + 0
			next
		}
		/^(not )?ok [0-9]+/ {
			notok = ($1 == "not")
			desc = $0
			sub(/^(not )?ok [0-9]+( - )?/, "", desc)
			n++
			seen++
			if (notok)
				bad++
			printf "%sok %d - %s: %s\n", notok ? "not " : "", n, name, desc
			next
		}
		/^#/ { print; next }
		{ print "# " $0 }
		END {
			if (plan == "" || seen != plan || (rc != 0 && !bad)) {
				n++
				bad++
				printf "not ok %d - %s: planned %s, reported %d, exit status %d\n",
				       n, name, plan == "" ? "nothing" : plan, seen + 0, rc
			}
			print n, bad + 0 > counts
		}' "$tmp/out" >>"$tmp/body"
	read -r n bad <"$tmp/counts"
	failed=$((failed + bad))
done

echo "TAP version 13"
echo "1..$n"
cat "$tmp/body"
[ "$failed" -eq 0 ]
