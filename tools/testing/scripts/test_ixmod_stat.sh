#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ixmod_stat.sh - scripts/ixmod-stat on a fake /sys/kernel/ixmod,
# without ixmod and without root (TAP on stdout, exit 1 on any failure).
#
# The fake tree, under a temporary --root, has two cores: cpu1 with every
# file of today's module, cpu2 like an older module (no mode, no
# rx_batch_hist, no app_* or tcp_* files), and one port 0000:01:01.0
# with stats/ (no rx_csum_hw) and drops/.  The rates are checked without
# timing races: `ixmod-stat --snapshot FILE` saves the counters and the
# time, the test changes the files by known amounts, and the second
# --snapshot run reports the rates since the first.  The live mode
# (-i 0.2 -c 2) then runs on the unchanging tree, where every rate is 0.
# KEEP=1 keeps the tree (the first line says where).

set -uo pipefail

STAT=$(cd "$(dirname "$0")/../../.." && pwd)/scripts/ixmod-stat
WORK=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then
	echo "# tree in $WORK"
else
	trap 'rm -rf "$WORK"' EXIT
fi
R=$WORK/root
SYS=$R/sys/kernel/ixmod
C1=$SYS/dataplane/cpu1
C2=$SYS/dataplane/cpu2
P=$SYS/ports/0000:01:01.0
mkdir -p "$C1/stats" "$C2/stats" "$P/stats" "$P/drops"

# put DIR NAME=VALUE...: write each VALUE into DIR/NAME, as sysfs shows it
put() {
	local d=$1 kv
	shift
	for kv in "$@"; do echo "${kv#*=}" > "$d/${kv%%=*}"; done
}

# The counters before
put "$C1" pid=100 state=polling isolated=1 owner=1234 contexts=1 \
	"mode=application 1234 inside"
put "$C1/stats" iterations=10000 busy=5000 idle=5000 sleeps=3 wakeups=3 runs=1 takeovers=0 \
	rx_packets=1000 rx_bytes=64000 tx_packets=900 tx_bytes=57600 \
	app_calls=400 app_call_errors=0 app_events=300 app_rx_bufs=12 \
	tcp_segs_in=2000 tcp_segs_out=1800 tcp_retrans=5 tcp_timeouts=1 tcp_rcv_drops=0 \
	tcp_established=7 tcp_conns=9 tcp_ooo=10 tcp_dup_data=4 \
	"rx_batch_hist=100 50 20 10 0 0 0 0"
put "$C2" pid=101 state=sleeping isolated=0 owner=0 contexts=0
put "$C2/stats" iterations=500 busy=100 idle=400 sleeps=10 wakeups=9 \
	rx_packets=50 rx_bytes=3200 tx_packets=40 tx_bytes=2560
put "$P" mac=52:54:00:12:34:56 "link=up 1000" up=1 queues="0:1 1:2" ipv4=10.0.0.1/24
put "$P/stats" rx_packets=5000 rx_bytes=640000 tx_packets=4000 tx_bytes=512000 \
	tx_csum_hw=3000 tx_csum_sw=0 bufs_free=2000 bufs_held=0 arp_entries=1
put "$P/drops" ip_csum=2 udp_no_sock=7 eth_dst=0

n=0
failed=0
last=
# t DESCRIPTION COMMAND...: ok when COMMAND succeeds; else show the last run
t() {
	n=$((n + 1))
	if "${@:2}"; then
		echo "ok $n - $1"
		return
	fi
	echo "not ok $n - $1"
	failed=1
	[ -n "$last" ] || return
	{
		echo "exit status: $rc"
		tail -n 20 "$WORK/$last.out" "$WORK/$last.err"
	} | sed 's/^/# /'
}

# run NAME ARG...: ixmod-stat ARG...; its output in $WORK/NAME.out and
# NAME.err, its status in $rc
run() {
	last=$1
	shift
	"$STAT" "$@" > "$WORK/$last.out" 2> "$WORK/$last.err"
	rc=$?
}

# py NAME EXPR: the Python expression EXPR is true, with rs the JSON reports
# NAME printed (one a line), r the last one, c1, c2 and port its cpu1, cpu2
# and 0000:01:01.0, and near(rate, delta): rate is delta / r's interval
# within 10 %
py() {
	python3 -c '
import json, sys
rs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
r = rs[-1] if rs else None
c1, c2 = r and r["cores"].get("cpu1"), r and r["cores"].get("cpu2")
port = r and r["ports"].get("0000:01:01.0")
def near(rate, delta):
    return abs(rate - delta / r["interval"]) <= 0.1 * delta / r["interval"]
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$WORK/$1.out" "$2"
}

# row NAME FIRST WORD...: NAME's text output has a line whose words are FIRST WORD...
row() {
	local f=$WORK/$1.out
	shift
	awk -v k="$1" '$1 == k { $1 = $1; print }' "$f" | grep -Fx -- "$*" > /dev/null
}
said() { [ "$(cat "$WORK/$last.err")" = "$1" ]; }	# stderr is exactly this
status() { [ "$rc" = "$1" ]; }

echo "TAP version 13"

# --- no ixmod -------------------------------------------------------------
run noroot --root "$WORK/nothing"
t "no /sys/kernel/ixmod: exit 1 and one line naming it, nothing on stdout" \
	eval 'status 1 && [ ! -s "$WORK/noroot.out" ] &&
	said "ixmod-stat: $WORK/nothing/sys/kernel/ixmod not found: is ixmod loaded? (insmod ixmod.ko)"'
run badi --root "$R" -i 0
t "-i 0 is refused (usage, exit 2)" eval 'status 2 && grep -F "usage:" "$WORK/badi.err" > /dev/null'

# --- --once: the counters themselves --------------------------------------
run once --root "$R" --once --json
t "--once --json: the absolute counters, levels and the non-zero drops, no interval" \
	py once 'len(rs) == 1 and r["interval"] is None and
	c1["iterations"] == 10000 and c1["busy_pct"] == 50 and c1["tcp_established"] == 7 and
	c1["mode"] == "application" and c1["rx_batch_hist"] == [100, 50, 20, 10, 0, 0, 0, 0] and
	port["rx_bytes"] == 640000 and port["drops"] == {"ip_csum": 2, "udp_no_sock": 7}'
run once-text --root "$R" -1
t "--once text: the port row holds its counters, '-' for the missing rx_csum_hw" \
	eval 'status 0 && row once-text 0000:01:01.0 up up 1000 5000 640.0k 4000 512.0k 3000 0 -'
t "--once text: the core table's header and rows line up (one width)" \
	eval '[ "$(sed -n "/^core /,/^cpu2 /p" "$WORK/once-text.out" | awk "{print length}" | sort -u | wc -l)" = 1 ]'

# --- rates between two --snapshot runs --------------------------------------
t_0=$(date +%s.%N)
run snap1 --root "$R" --json --snapshot "$WORK/snap"
t "--snapshot, first run: the absolute counters, and the snapshot saved" \
	eval 'status 0 && [ -s "$WORK/snap" ] && py snap1 "r[\"interval\"] is None and c1[\"iterations\"] == 10000"'
t_a=$(date +%s.%N)
put "$C1/stats" iterations=14000 busy=6000 idle=8000 sleeps=5 wakeups=5 \
	rx_packets=3000 tx_packets=2700 app_calls=1000 app_events=800 \
	tcp_segs_in=5000 tcp_segs_out=4300 tcp_timeouts=3 tcp_established=12 tcp_conns=11 \
	tcp_ooo=16 "rx_batch_hist=110 50 20 10 0 0 40 0"
put "$C2/stats" iterations=1500 busy=600 idle=900 rx_packets=30
put "$P/stats" rx_packets=15000 rx_bytes=1920000 tx_packets=12000 tx_bytes=1536000 tx_csum_hw=11000
put "$P/drops" ip_csum=7
sleep 0.5
t_b=$(date +%s.%N)
run snap2 --root "$R" --json --snapshot "$WORK/snap"
t_c=$(date +%s.%N)
t "--snapshot, second run: the interval is the time between the two runs" \
	py snap2 "$t_b - $t_a <= r['interval'] <= $t_c - $t_0"
t "rates: core counters are their deltas / the interval" \
	py snap2 'near(c1["iterations"], 4000) and near(c1["rx_packets"], 2000) and
	near(c1["tx_packets"], 1800) and near(c1["app_calls"], 600) and near(c1["app_events"], 500) and
	near(c1["sleeps"], 2) and near(c1["wakeups"], 2) and near(c2["iterations"], 1000)'
t "rates: busy and idle shares are of the interval's iterations (25/75 %, 50 %)" \
	py snap2 'abs(c1["busy_pct"] - 25) < 0.1 and abs(c1["idle_pct"] - 75) < 0.1 and
	abs(c2["busy_pct"] - 50) < 0.1'
t "rates: TCP segments and timeouts; established and conns are levels, not deltas" \
	py snap2 'near(c1["tcp_segs_in"], 3000) and near(c1["tcp_segs_out"], 2500) and
	near(c1["tcp_timeouts"], 2) and c1["tcp_retrans"] == 0 and
	c1["tcp_established"] == 12 and c1["tcp_conns"] == 11'
t "rates: another TCP counter that moved is listed (tcp_ooo), one that did not is not" \
	py snap2 'list(c1["tcp_other"]) == ["tcp_ooo"] and near(c1["tcp_other"]["tcp_ooo"], 6)'
t "rates: the RX batch histogram's delta and its mean from the bucket midpoints" \
	py snap2 'c1["rx_batch_hist"] == [10, 0, 0, 0, 0, 0, 40, 0] and
	abs(c1["rx_batch_mean"] - 76.6) < 0.01'
t "rates: port packets, bytes and checksums" \
	py snap2 'near(port["rx_packets"], 10000) and near(port["rx_bytes"], 1280000) and
	near(port["tx_packets"], 8000) and near(port["tx_bytes"], 1024000) and near(port["tx_csum_hw"], 8000) and
	port["tx_csum_sw"] == 0 and port["state"] == "up" and port["link"] == "up 1000"'
t "rates: the drop that moved is listed with its count, the ones that did not are not" \
	py snap2 'port["drops"] == {"ip_csum": 5}'
t "rates: a counter that went back (cpu2 rx_packets 50 -> 30) counts from 0" \
	py snap2 'near(c2["rx_packets"], 30)'
t "missing files are skipped: cpu2 has no mode, histogram, app or tcp keys; no rx_csum_hw" \
	py snap2 'c2["state"] == "sleeping" and
	not {"mode", "rx_batch_hist", "rx_batch_mean", "app_calls", "tcp_segs_in", "tcp_established"} & set(c2) and
	c2["tcp_other"] == {} and "rx_csum_hw" not in port'

# a third run, in text, after one more drop since the second
put "$P/drops" ip_csum=9
run text --root "$R" --snapshot "$WORK/snap"
t "text: a header line with the time, the drop that moved under its port, not the others" \
	eval 'status 0 && [ ! -s "$WORK/text.err" ] &&
	grep -E "^ixmod-stat [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}  per second over" "$WORK/text.out" > /dev/null &&
	grep -Fx "  drops: ip_csum 2" "$WORK/text.out" > /dev/null && ! grep -F udp_no_sock "$WORK/text.out" > /dev/null'
t "text: the columns are headed by the sysfs files' names, /s for rates" \
	eval 'row text core state mode iterations/s busy% idle% sleeps/s wakeups/s rx_packets/s tx_packets/s app_calls/s app_events/s &&
	row text tcp tcp_segs_in/s tcp_segs_out/s tcp_retrans/s tcp_timeouts/s tcp_rcv_drops/s tcp_established tcp_conns &&
	row text port state link rx_packets/s rx_bytes/s tx_packets/s tx_bytes/s tx_csum_hw/s tx_csum_sw/s rx_csum_hw/s'

# --- live: -i 0.2 -c 2 on a tree that does not change -----------------------
t_0=$(date +%s.%N)
run live --root "$R" --json -i 0.2 -c 2
t_c=$(date +%s.%N)
t "live -i 0.2 -c 2: two reports, each over 0.2 s or more, within the run's time; exit 0" \
	eval 'status 0 && py live "len(rs) == 2 and all(x[\"interval\"] >= 0.19 for x in rs) and
	sum(x[\"interval\"] for x in rs) <= $t_c - $t_0"'
t "live on an unchanging tree: rates 0, no drop, levels kept" \
	py live 'all(x["cores"]["cpu1"]["iterations"] == 0 and x["ports"]["0000:01:01.0"]["rx_packets"] == 0 and
	x["ports"]["0000:01:01.0"]["drops"] == {} and x["cores"]["cpu1"]["tcp_established"] == 12 and
	x["cores"]["cpu1"]["rx_batch_hist"] == [0] * 8 for x in rs)'

# --- Ctrl-C -------------------------------------------------------------------
# Started in the background of a script, it gets SIGINT ignored: it must
# take it back.  Wait for its first report, then interrupt it.
last=sigint
"$STAT" --root "$R" -i 0.2 > "$WORK/sigint.out" 2> "$WORK/sigint.err" &
pid=$!
for _ in $(seq 50); do
	grep -F "ixmod-stat " "$WORK/sigint.out" > /dev/null && break
	sleep 0.1
done
kill -INT "$pid"
for _ in $(seq 50); do
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.1
done
kill -KILL "$pid" 2> /dev/null
wait "$pid"
rc=$?
t "SIGINT (Ctrl-C): exit 0, nothing on stderr" eval 'status 0 && [ ! -s "$WORK/sigint.err" ]'

echo "1..$n"
exit "$failed"
