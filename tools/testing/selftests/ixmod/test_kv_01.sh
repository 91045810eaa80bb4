#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The memcached-protocol server on ixmod (libixu/examples/kv/kv-ixev, on
# the event layer) against real, independently written clients in the
# peer namespace: libmemcached's memccapable (its ASCII protocol tests),
# and pymemcache driving random operations against kv-ixev and, in the
# same run, against Debian's memcached (started in the peer namespace)
# with identical answers required, then malformed requests on raw
# sockets (diff_memcached.py).  Then 100 clients that never read their
# 1 MB replies must stall only themselves: each connection has its share
# of ixev's transmit arena (slow_readers.py; issue 35).  Last, -n 2
# refuses a third connection as memcached's -c does.  Afterwards no
# connection is left, no receive buffer is held, and the kernel logged no
# error.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

KV=$_here/../../../../libixu/examples/kv
LOG=$(mktemp)
trap 'rm -f "$LOG"; [ -n "${mcd:-}" ] && kill "$mcd" 2>/dev/null' EXIT
NTESTS=10
REF_PORT=11311

kv_ready() {
	busywait 10000 grep -q 'ready\|kv-ixev: cpu\|usage' "$LOG"
	grep -q ready "$LOG"
}

tcp_test_begin "$NTESTS"
# Debian's libmemcached-tools names it memccapable (libmemcached-awesome)
MEMCAPABLE=$(command -v memccapable || command -v memcapable)
if [ -z "$MEMCAPABLE" ] || ! command -v memcached >/dev/null ||
   ! /usr/bin/python3 -c 'import pymemcache' 2>/dev/null; then
	# scripts/bootstrap installs them: missing is a failure, not a skip
	for _ in $(seq "$NTESTS"); do
		tap_fail "key-value" "memccapable, memcached or pymemcache missing; run scripts/bootstrap"
	done
	ports_teardown
	tap_done
fi

"$KV/kv-ixev" -p 11211 -m 64 > "$LOG" 2>&1 &
kv=$!
check "kv-ixev listens on cores 1 and 2" kv_ready
check "memccapable -a (libmemcached's ASCII protocol tests) passes against kv-ixev" \
	peer timeout 300 "$MEMCAPABLE" -h $DUT_IP -p 11211 -a
# the reference: Debian's memcached on the peer's loopback
ip netns exec $PEER_NS memcached -u nobody -U 0 -l 127.0.0.1 -p $REF_PORT -m 64 \
	> /dev/null 2>&1 &
mcd=$!
busywait 10000 peer bash -c "exec 3<>/dev/tcp/127.0.0.1/$REF_PORT" ||
	echo "# memcached did not start in the peer namespace"
check "pymemcache: 3000 random operations and malformed requests answer as memcached does" \
	peer timeout 600 "$PY" "$KV/tests/diff_memcached.py" --ops 3000 --seed 18 \
		--ref 127.0.0.1:$REF_PORT --server $DUT_IP:11211
kill "$mcd" 2>/dev/null
wait "$mcd" 2>/dev/null
mcd=
check "100 clients never reading 1 MB replies stall only themselves (the arena share)" \
	peer timeout 120 "$PY" "$KV/tests/slow_readers.py" $DUT_IP:11211
kill -INT "$kv" 2>/dev/null
wait "$kv"
check "kv-ixev stops cleanly on SIGINT (status $?)" test "$?" -eq 0
sed 's/^/# /' "$LOG"

"$KV/kv-ixev" -p 11211 -m 8 -n 2 > "$LOG" 2>&1 &
kv=$!
check "kv-ixev -n 2 listens again" kv_ready
check "-n 2: a third connection is answered \"ERROR Too many open connections\"" \
	peer timeout 60 "$PY" "$KV/tests/maxconns.py" $DUT_IP:11211 2
kill -INT "$kv" 2>/dev/null
wait "$kv"
sed 's/^/# /' "$LOG"

tcp_stats_dump
check "no connection left (tcp_conns, tcp_established)" busywait 10000 tcp_stats_zero
check "every receive buffer came back (bufs_held 0)" busywait 5000 bufs_held_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
