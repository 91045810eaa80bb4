#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libixu-posix with a second unmodified server and another event loop:
# Debian's redis-server (its own ae loop on epoll, one thread) on ixmod's
# port through the layer.  redis-cli in the peer namespace runs the same
# commands against it and against redis-server on Linux (in the peer
# namespace), and their answers must be the same, a 1 MB value included;
# redis-benchmark's SET, GET, INCR, LPUSH and LPOP with 20 clients, and
# with 16 commands pipelined, must complete with every request answered.
# Afterwards no connection is left and the kernel logged no error.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

TOP=$_here/../../../..
PRELOAD=$TOP/libixu/libixu-posix.so
TMP=$(mktemp -d)
rs=
ref=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -n "$rs" ] && kill "$rs" 2>/dev/null
	[ -n "$ref" ] && kill "$ref" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
NTESTS=7
REF_PORT=6380
REDIS_ARGS=(--save "" --appendonly no --protected-mode no --daemonize no --dir "$TMP")

# redis_ready HOST PORT: it answers PING
redis_ready() { busywait 20000 peer sh -c "redis-cli -h $1 -p $2 ping | grep -q PONG"; }

# the commands, one per line, as redis-cli reads them
commands() {
	local big
	big=$(head -c 1000000 /dev/zero | tr '\0' x)
	cat <<-EOC
	FLUSHALL
	SET k1 hello
	GET k1
	APPEND k1 " world"
	GET k1
	INCR n
	INCRBY n 41
	DECR n
	GET missing
	DEL k1 n missing
	LPUSH l a b c
	LRANGE l 0 -1
	LPOP l
	RPOP l
	HSET h f1 v1 f2 v2
	HGETALL h
	SADD s x y z x
	SCARD s
	EXPIRE h 100
	TTL h
	NOSUCHCOMMAND
	SET big $big
	STRLEN big
	GETRANGE big 999990 -1
	DBSIZE
	EOC
}

tcp_test_begin "$NTESTS"
if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null ||
   [ ! -f "$PRELOAD" ]; then
	for _ in $(seq "$NTESTS"); do
		tap_fail "libixu-posix" "redis-server, redis-tools or libixu-posix.so missing; run scripts/bootstrap and make -C libixu"
	done
	ports_teardown
	tap_done
fi

LD_PRELOAD=$PRELOAD redis-server --port 6379 --bind $DUT_IP "${REDIS_ARGS[@]}" \
	> "$TMP/redis.log" 2>&1 &
rs=$!
check "redis-server with the layer answers PING on the port's address" redis_ready $DUT_IP 6379
peer redis-server --port $REF_PORT --bind 127.0.0.1 "${REDIS_ARGS[@]}" > "$TMP/ref.log" 2>&1 &
ref=$!
redis_ready 127.0.0.1 $REF_PORT || echo "# redis-server did not start in the peer namespace"
commands > "$TMP/cmds"
peer redis-cli -h $DUT_IP -p 6379 < "$TMP/cmds" > "$TMP/ixm.out" 2>&1
peer redis-cli -h 127.0.0.1 -p $REF_PORT < "$TMP/cmds" > "$TMP/ref.out" 2>&1
if [ -s "$TMP/ref.out" ] && cmp -s "$TMP/ref.out" "$TMP/ixm.out"; then
	tap_ok "redis-cli: $(wc -l < "$TMP/cmds") commands answer as redis-server on Linux does (a 1 MB value too)"
else
	tap_fail "redis-cli: $(wc -l < "$TMP/cmds") commands answer as redis-server on Linux does (a 1 MB value too)" \
		"$(diff "$TMP/ref.out" "$TMP/ixm.out" | cut -c 1-120 | head -20)"
fi
# redis-benchmark -q prints "SET: N requests per second..." per test;
# every test must complete (its line), and nothing may be an error
bench() {
	peer timeout 300 redis-benchmark -h $DUT_IP -p 6379 -c 20 -n 2000 -t set,get,incr,lpush,lpop \
		-q "$@" > "$TMP/bench" 2>&1
	local rc=$?
	tr '\r' '\n' < "$TMP/bench" | grep 'requests per second' | sed 's/^/# /'
	[ "$rc" -eq 0 ] && [ "$(grep -c 'requests per second' "$TMP/bench")" -eq 5 ] &&
		! grep -qi 'error' "$TMP/bench"
}
check "redis-benchmark: SET GET INCR LPUSH LPOP, 20 clients, 2000 requests each" bench
check "redis-benchmark, 16 commands pipelined (-P 16)" bench -P 16
check "redis-server answers after the benchmarks (DBSIZE)" \
	peer sh -c "redis-cli -h $DUT_IP -p 6379 dbsize | grep -q '^[0-9]'"
peer redis-cli -h $DUT_IP -p 6379 shutdown nosave > /dev/null 2>&1
busywait 10000 bash -c "! kill -0 $rs 2>/dev/null"
wait "$rs" 2>/dev/null
rs=
kill "$ref" 2>/dev/null
wait "$ref" 2>/dev/null
ref=
tail -n 5 "$TMP/redis.log" | sed 's/^/# /'

tcp_stats_dump
check "no connection left (tcp_conns, tcp_established)" busywait 15000 tcp_stats_zero
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
