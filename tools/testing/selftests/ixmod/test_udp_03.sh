#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No page of a core's receive pool outlives its owner's claim on it.  A
# hostile owner (pin_keeper.c, raw ABI) maps its receive region,
# vmsplice()s all of it into pipes, hands the pipes to a child and exits.
# Then udp-echo becomes the owner and echoes datagrams that carry a
# marker.  The child, reading its pipes, must find the marker 0 times:
# the splice itself must have failed (EFAULT), since a pinned page would
# be reused for the next owner's frames.  Then the same with the keeper
# alive while the port goes down, is unbound and the cores are removed:
# everything goes back to zero and the module unloads.  rings.c (in
# test_udp_02.sh) tries every other way of pinning every region.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

ECHO=$_here/../../../../libixu/examples/udp-echo
KEEPER=$_here/pin_keeper
RES=$(mktemp)
LOG=$(mktemp)
MARKER=IXMOD-PIN-MARKER-$RANDOM$RANDOM
trap 'rm -f "$RES" "$RES.pinned" "$LOG"; [ -n "${KPID:-}" ] && kill -9 "$KPID" 2>/dev/null' EXIT

ctx_vmallocs() { grep -c 'ixm_ctx_setup' /proc/vmallocinfo; }
owner1() { cat "$IXMOD_SYSFS/dataplane/cpu1/owner"; }

# send_markers N: N datagrams carrying $MARKER from the peer; prints
# how many came back
send_markers() {
	peer "$PY" - "$DUT_IP" "$1" "$MARKER" <<'EOF'
import socket, sys
host, n, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
got = 0
for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(1.0)
    msg = marker + b"-%04d-" % i + b"x" * 200
    s.sendto(msg, (host, 7))
    try:
        data, _ = s.recvfrom(4096)
        got += data == msg
    except socket.timeout:
        pass
    s.close()
print(got)
EOF
}

tap_plan 11
dmesg_mark
if ! ports_setup; then
	for _ in $(seq 11); do tap_fail "port setup" "setup failed (# lines above)"; done
	ports_teardown
	tap_done
fi
vm0=$(ctx_vmallocs)

KPID=$("$KEEPER" 1 "$MARKER" "$RES")
echo "# keeper $KPID: $(cat "$RES.pinned" 2>/dev/null)"
check "the owner could not splice its receive region (EFAULT, 0 bytes)" \
	grep -qx 'spliced 0 errno 14' "$RES.pinned"
check "the owner is gone and the core free (owner 0)" busywait 5000 holds -eq 0 owner1

"$ECHO" -p 7 > "$LOG" 2>&1 &
epid=$!
busywait 10000 grep -q 'ready\|udp-echo: cpu' "$LOG"
got=$(send_markers 40)
echo "# $got of 40 marked datagrams echoed"
check "the next owner received and echoed marked datagrams ($got of 40)" test "${got:-0}" -gt 20
kill -INT "$epid"
wait "$epid"

kill -USR1 "$KPID"
busywait 10000 test -s "$RES"
echo "# keeper: $(cat "$RES")"
check "the previous owner's pipes hold none of them (markers 0)" grep -qx 'markers 0' "$RES"
KPID=""

# a keeper alive while the port goes down, leaves ixmod and the cores go
rm -f "$RES" "$RES.pinned"
KPID=$("$KEEPER" 1 "$MARKER" "$RES")
busywait 5000 holds -eq 0 owner1
check "port down with a keeper alive" sh -c "echo 0 > $(port_dir)/up"
check "unbound with a keeper alive" "$IXMOD_BIND" unbind "$DUT"
check "cores removed with a keeper alive" sh -c "echo > $IXMOD_SYSFS/cores"
check "no context region left ($vm0 context vmallocs)" busywait 5000 holds -eq "$vm0" ctx_vmallocs
check "rmmod with a keeper alive" rmmod ixmod
kill -USR1 "$KPID"
busywait 10000 test -s "$RES"
check "its pipes hold no marker (markers 0)" grep -qx 'markers 0' "$RES"
KPID=""
check "no kernel error reported" dmesg_clean
ports_teardown
tap_done
