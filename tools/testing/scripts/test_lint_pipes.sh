#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_lint_pipes.sh - scripts/lint-pipes flags each early-closing reader
# under pipefail, and nothing else (TAP on stdout, exit 1 on a failure).
#
# Each row is a line put into a script that enables pipefail: "bad" rows
# must be reported, "fine" rows must not.  Then: the same bad line passes
# without pipefail, fails in a file such a script sources, and passes
# with a "# pipefail-ok:" mark.

# No pipefail here: the rows are test data lint-pipes must not read.
set -u

LINT=$(cd "$(dirname "$0")/../../.." && pwd)/scripts/lint-pipes
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "TAP version 13"
n=0
failed=0
result() {	# result DESCRIPTION: ok when the last check set pass=1
	n=$((n + 1))
	if [ "$pass" = 1 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		sed 's/^/# /' "$WORK/out"
		failed=1
	fi
}

# lint_line HEADER LINE: lint-pipes on a script of HEADER then LINE;
# its status in $rc
lint_line() {
	printf '#!/bin/bash\n%s\n%s\n' "$1" "$2" > "$WORK/s"
	"$LINT" "$WORK/s" > "$WORK/out" 2>&1
	rc=$?
}

bad=(
	"v=\$(apt-cache madison linux-headers-amd64 | awk '\$3 !~ /bpo/ {print \$3; exit}')"
	'x=$(ls /boot | head -n1)'
	'if dpkg -l | grep -q foo; then :; fi'
	'dpkg -l | grep -Fxm1 foo >/dev/null'
	'dpkg -l | grep --max-count=1 foo'
	'dpkg -l | grep -l foo'
	'dpkg -l |& LC_ALL=C grep --quiet foo'
	"seq 10 | sed -n '3{p;q}'"
	'seq 10 | sed 5q'
	'n=$(seq 10 | sed 1q)'
	'seq 10 | IFS=: read -r a'
	"seq 10 |"$'\n'"	head -c 5"
)
fine=(
	'seq 10 | grep -c x'
	'seq 10 | grep --line-buffered x'
	"seq 10 | awk '{print \$1}' || exit 1"
	"seq 10 | awk '\$1 == 3 && v == \"\" {v = \$1} END {print v}'"
	"seq 10 | sed 's/q/x/'"
	'seq 10 | tail -n1'
	'a || head -n1 b'
	'case $x in head|grep) ;; esac'
	'-h|--help) sed -n 3,27p "$0" ;;'
	'grep -q foo /etc/os-release'
)

for l in "${bad[@]}"; do
	lint_line 'set -euo pipefail' "$l"
	pass=0
	[ "$rc" -ne 0 ] && grep -F "$WORK/s:" "$WORK/out" >/dev/null && pass=1
	result "flagged: ${l//$'\n'/ }"
done
for l in "${fine[@]}"; do
	lint_line 'set -euo pipefail' "$l"
	pass=0
	[ "$rc" -eq 0 ] && pass=1
	result "not flagged: $l"
done

lint_line 'set -eu' 'x=$(ls /boot | head -n1)'
pass=0
[ "$rc" -eq 0 ] && pass=1
result "without pipefail, head is fine"

lint_line 'set -euo pipefail' 'x=$(ls /boot | head -n1)	# pipefail-ok: ls of a short directory'
pass=0
[ "$rc" -eq 0 ] && pass=1
result "a reviewed line marked pipefail-ok passes"

printf 'f() { dmesg | grep -qi foo; }\n' > "$WORK/lib.sh"
printf '#!/bin/bash\n. "$(dirname "$0")/lib.sh"\nset -euo pipefail\n' > "$WORK/main"
"$LINT" "$WORK/main" > "$WORK/out" 2>&1
rc=$?
pass=0
[ "$rc" -ne 0 ] && grep -F "lib.sh:1:" "$WORK/out" >/dev/null && pass=1
result "a file sourced by a pipefail script is checked too"

echo "1..$n"
exit "$failed"
