#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tap-run.sh - run unit test programs and merge their TAP into one stream
#
# Usage: tap-run.sh [-t NAME] PROGRAM...
#
# The programs are kselftest_harness.h programs.  Test lines are
# renumbered and prefixed with the program's name; anything else a
# program prints becomes a "#" comment.  A program that dies early,
# reports fewer tests than it planned, or exits non-zero without reporting
# a failure gets one extra "not ok" line, so nothing is lost silently.
#
# -t NAME runs only what NAME names, in whichever program has it: a test,
# a fixture or a variant (the harness's -t, -f and -v), or with a dot
# FIXTURE.TEST or FIXTURE.VARIANT.TEST (-r; a TEST()'s fixture is
# "global").  PROGRAM:NAME asks that program only, and PROGRAM (or
# PROGRAM:) runs all of it.  Programs with nothing of that name are left
# out; if none has it, that is a failure.
#
# Exits 0 only if every test passed.

set -u

only=
if [ "${1-}" = "-t" ]; then
	only=${2:?"-t needs a NAME"}
	shift 2
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/body"
n=0
failed=0
matched=0

want=$only
want_prog=
case $only in
*:*)	want_prog=${only%%:*}; want=${only#*:} ;;
*)	for prog in "$@"; do
		[ "${prog##*/}" = "$only" ] && want_prog=$only && want=
	done ;;
esac
case $want in
'')	filter= ;;
*.*)	filter="-r $want" ;;
*)	filter="-t $want -f $want -v $want" ;;
esac

for prog in "$@"; do
	name=${prog##*/}
	[ -n "$only" ] && [ -n "$want_prog" ] && [ "$name" != "$want_prog" ] && continue
	# shellcheck disable=SC2086 # $filter is options, split on purpose
	"$prog" $filter >"$tmp/out" 2>&1
	rc=$?
	if [ -n "$only" ] && [ "$rc" -eq 0 ] && grep -qx '1\.\.0' "$tmp/out"; then
		continue	# no test of that name here
	fi
	matched=$((matched + 1))
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
			sub(/^(not )?ok [0-9]+ *(- )?/, "", desc)
			sub(/^global\./, "", desc)	# a TEST(): its name alone
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

if [ -n "$only" ] && [ "$matched" -eq 0 ]; then
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - T=$only: no test, fixture or variant of that name in" \
	     "${want_prog:-any program}" >>"$tmp/body"
fi

echo "TAP version 13"
echo "1..$n"
cat "$tmp/body"
[ "$failed" -eq 0 ]
