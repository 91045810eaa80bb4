#!/bin/bash
# SPDX-License-Identifier: MIT
#
# sockcheck.sh - make check: sockcheck's cases on loopback, on Linux's own
# TCP/IP, as TAP.  Starts sockpeer.py on 127.0.0.1 (a free control port)
# and runs each case in a sockcheck process of its own; a case fails if it
# printed UNEXPECTED, exited non-zero or hung (killed after 45 s).
#
#   sockcheck.sh [-v] [-p PRELOAD] [CASE...]
#
# Without CASEs, every case sockcheck --list names.  -v prints every
# case's observations as TAP comments, not only a failed case's.  -p runs
# sockcheck with LD_PRELOAD=PRELOAD: make check gives it libixu-posix.so,
# which on a machine without ixmod must pass every socket to libc
# untouched (the cases' sockets are on loopback).  Exit status: 1 if any
# case failed.
set -u
cd "$(dirname "$0")" || exit 1
ADDR=127.0.0.1
verbose=0
preload=
while [ $# -gt 0 ]; do
	case $1 in
	-v) verbose=1 ;;
	-p) preload=$(realpath "$2"); shift ;;
	*) break ;;
	esac
	shift
done
if [ ! -x ./sockcheck ]; then
	echo "Bail out! no sockcheck: run make -C libixu/posix/tests"
	exit 1
fi

tmp=$(mktemp -d) || exit 1
peer=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -n "$peer" ] && kill "$peer" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

: > "$tmp/peer"
python3 ./sockpeer.py "$ADDR" 0 > "$tmp/peer" 2> "$tmp/peer.err" &
peer=$!
port=
for _ in $(seq 50); do
	read -r _ port < "$tmp/peer"	# "port N" once it listens
	[ -n "$port" ] && break
	sleep 0.1
done
if [ -z "$port" ]; then
	echo "Bail out! sockpeer.py did not start"
	sed 's/^/# /' "$tmp/peer.err"
	exit 1
fi

if [ $# -gt 0 ]; then
	cases=("$@")
else
	mapfile -t cases < <(./sockcheck --list)
fi
echo "TAP version 13"
echo "1..${#cases[@]}"
n=0
failed=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	out=$(LD_PRELOAD=$preload timeout 45 ./sockcheck "$ADDR" "$ADDR" "$port" "$c" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ -n "$out" ] && ! grep -q UNEXPECTED <<< "$out"; then
		[ "$verbose" -eq 1 ] && printf '%s\n' "$out" | sed 's/^/# /'
		echo "ok $n $c"
		continue
	fi
	printf '%s\n' "$out" | sed 's/^/# /'
	case $rc in
	0) why="UNEXPECTED" ;;
	124) why="hung" ;;
	*) why="exit $rc" ;;
	esac
	echo "not ok $n $c ($why)"
	failed=1
done
if [ -s "$tmp/peer.err" ]; then
	echo "# sockpeer.py:"
	sed 's/^/#   /' "$tmp/peer.err"
fi
exit "$failed"
