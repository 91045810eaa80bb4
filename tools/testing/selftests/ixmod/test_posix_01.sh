#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libixu-posix, the LD_PRELOAD sockets layer: Debian's unmodified
# memcached runs on ixmod's port with the layer, its two worker threads
# on the dataplane cores, against clients that nobody here wrote, in the
# peer namespace: libmemcached's memccapable -a (its ASCII protocol
# tests), and pymemcache driving random operations against it and, in
# the same run, against memcached on Linux in the peer namespace, with
# identical answers required (libixu/examples/kv/tests/diff_memcached.py).
# The layer must have served it: the port counted the connections.
# Afterwards no connection is left, no receive buffer is held, and the
# kernel logged no error.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

TOP=$_here/../../../..
PRELOAD=$TOP/libixu/libixu-posix.so
KV=$TOP/libixu/examples/kv
LOG=$(mktemp)
trap 'rm -f "$LOG"; [ -n "${mcd:-}" ] && kill "$mcd" 2>/dev/null; [ -n "${ref:-}" ] && kill "$ref" 2>/dev/null' EXIT
NTESTS=7
REF_PORT=11311

mc_ready() { busywait 20000 peer bash -c "exec 3<>/dev/tcp/$DUT_IP/11211"; }

tcp_test_begin "$NTESTS"
MEMCAPABLE=$(command -v memccapable || command -v memcapable)
if [ -z "$MEMCAPABLE" ] || ! command -v memcached >/dev/null ||
   ! /usr/bin/python3 -c 'import pymemcache' 2>/dev/null || [ ! -f "$PRELOAD" ]; then
	for _ in $(seq "$NTESTS"); do
		tap_fail "libixu-posix" "memccapable, memcached, pymemcache or libixu-posix.so missing; run scripts/bootstrap and make -C libixu"
	done
	ports_teardown
	tap_done
fi

opens0=$(tcp_stat passive_opens)
LD_PRELOAD=$PRELOAD IXU_POSIX_DEBUG=1 memcached -u root -l $DUT_IP -p 11211 -U 0 -t 2 -m 64 \
	> "$LOG" 2>&1 &
mcd=$!
check "memcached with the layer listens on the port's address" mc_ready
check "memccapable -a (libmemcached's ASCII protocol tests) passes against memcached on ixmod" \
	peer timeout 300 "$MEMCAPABLE" -h $DUT_IP -p 11211 -a
ip netns exec $PEER_NS memcached -u nobody -U 0 -l 127.0.0.1 -p $REF_PORT -m 64 \
	> /dev/null 2>&1 &
ref=$!
busywait 10000 peer bash -c "exec 3<>/dev/tcp/127.0.0.1/$REF_PORT" ||
	echo "# memcached did not start in the peer namespace"
check "pymemcache: 2000 random operations and malformed requests answer as memcached on Linux does" \
	peer timeout 600 "$PY" "$KV/tests/diff_memcached.py" --ops 2000 --seed 38 --segmented \
		--ref 127.0.0.1:$REF_PORT --server $DUT_IP:11211
kill "$ref" 2>/dev/null
wait "$ref" 2>/dev/null
ref=
opens=$(($(tcp_stat passive_opens) - opens0))
check "ixmod's TCP accepted the clients' connections ($opens)" test "$opens" -ge 3
kill -TERM "$mcd" 2>/dev/null
wait "$mcd"
rc=$?
mcd=
# memcached exits 0 on SIGTERM (its handler), or by the signal
check "memcached stops on SIGTERM (status $rc)" test "$rc" -eq 0 -o "$rc" -eq 143
sed 's/^/# /' "$LOG" | tail -n 40

tcp_stats_dump
check "no connection left (tcp_conns, tcp_established)" busywait 10000 tcp_stats_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
