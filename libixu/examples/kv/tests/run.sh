#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run.sh - make check: the unit test, the differential test against
# Debian's memcached, memccapable's ASCII tests and the front-end tests
# (hostile clients), against kv-epoll and kv-uring, as one TAP stream.  Exits 0 only if every test passed.
#
#   DIFF_OPS=N (default 5000), DIFF_SEED=S (default: random, printed)

cd "$(dirname "$0")/.." || exit 1
PY=${PYTHON:-/usr/bin/python3}
TMP=$(mktemp -d) || exit 1
n=0
failed=0
pids=

cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

# Renumber the TAP lines of $1 into the stream; a missing result fails,
# and so does a non-zero exit status $3 that no failed test explains (a
# crash, a sanitizer report).
collect() {
	seen=0
	bad=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*)
			n=$((n + 1)); seen=1
			printf "ok %d %s\n" "$n" "${line#ok [0-9]* }" ;;
		"not ok "*)
			n=$((n + 1)); seen=1; bad=1; failed=$((failed + 1))
			printf "not ok %d %s\n" "$n" "${line#not ok [0-9]* }" ;;
		"1.."*) ;;
		*)
			printf "%s\n" "$line" ;;
		esac
	done < "$1"
	if [ "$seen" = 0 ]; then
		n=$((n + 1)); failed=$((failed + 1))
		echo "not ok $n - $2 reported nothing"
	fi
	if [ "${3:-0}" != 0 ] && [ "$bad" = 0 ]; then
		n=$((n + 1)); failed=$((failed + 1))
		echo "not ok $n - $2 exited with status $3"
		grep -E "ERROR|WARNING|SUMMARY" "$1" | head -n 5 | sed 's/^/# /'
	fi
}

# Start server $1 on a free port; sets $port and appends its pid to $pids.
start() {
	# emptied here first: the child's redirection may come after the read
	# below, which would then find the previous server's port
	: > "$TMP/ready"
	"$1" -p 0 -t 2 -l 127.0.0.1 > "$TMP/ready" 2>&1 &
	pid=$!
	pids="$pids $pid"
	i=0
	port=
	while [ $i -lt 100 ] && [ -z "$port" ]; do
		port=$(sed -n 's/.*ready on port \([0-9]*\),.*/\1/p' "$TMP/ready")
		[ -n "$port" ] || sleep 0.05
		i=$((i + 1))
	done
}

stop() {
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

t0=$(date +%s)
echo "# unit"
./tests/unit > "$TMP/out" 2>&1
collect "$TMP/out" unit $?

echo "# unit, concurrency tests under ThreadSanitizer"
./tests/unit-tsan concurrency > "$TMP/out" 2>&1
collect "$TMP/out" unit-tsan $?

echo "# diff_memcached"
seed=${DIFF_SEED:+--seed $DIFF_SEED}
# shellcheck disable=SC2086
$PY tests/diff_memcached.py --ops "${DIFF_OPS:-5000}" $seed ./kv-epoll ./kv-uring \
	> "$TMP/out" 2>&1
collect "$TMP/out" diff_memcached $?

for prog in kv-epoll kv-uring; do
	echo "# memccapable -a against $prog"
	start "./$prog"
	if [ -z "$port" ]; then
		echo "not ok 0 - $prog did not start" > "$TMP/out"
	else
		timeout 60 memccapable -h 127.0.0.1 -p "$port" -a > "$TMP/mc" 2>&1
		rc=$?
		sed -n -e "s/^\(ascii .*[^ ]\) *\[pass\]$/ok 0 - $prog: memccapable \1/p" \
		       -e "s/^\(ascii .*[^ ]\) *\[FAIL\]$/not ok - $prog: memccapable \1/p" \
		       -e "s/^\(ascii .*[^ ]\) *\[skip\]$/not ok 0 - $prog: memccapable \1 skip/p" \
		       "$TMP/mc" > "$TMP/out"
		[ $rc = 0 ] || echo "not ok 0 - $prog: memccapable exited $rc" >> "$TMP/out"
	fi
	stop
	collect "$TMP/out" "memccapable $prog"
done

echo "# frontend"
timeout 150 "$PY" tests/frontend.py ./kv-epoll ./kv-uring ./kv-ixev > "$TMP/out" 2>&1
collect "$TMP/out" frontend $?

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed ($(($(date +%s) - t0)) s)"
[ "$failed" = 0 ]
