#!/bin/bash
# SPDX-License-Identifier: MIT
#
# install.sh - libixu installs where it is told and builds a program from
# there: `make install PREFIX=<scratch>` (after the build used the default
# PREFIX), then tcp-echo compiled with nothing but pkg-config's flags, its
# libixu.so.0 found in the scratch PREFIX, the man pages found by man -M.
# TAP, from libixu/ (make install-check).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
ok() {	# ok DESCRIPTION COMMAND...
	local d=$1
	shift
	n=$((n + 1))
	if "$@" > "$tmp/out" 2>&1; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		sed 's/^/# /' "$tmp/out"
		bad=$((bad + 1))
	fi
}
echo "TAP version 13"
echo "1..5"
pre=$tmp/prefix
ok "make install PREFIX=$pre" make -s install PREFIX="$pre"
export PKG_CONFIG_PATH=$pre/lib/pkgconfig
ok "pkg-config names the scratch prefix" \
	bash -c "pkg-config --cflags --libs libixu | grep -F -- '-I$pre/include' > /dev/null &&
		 pkg-config --libs libixu | grep -F -- '-L$pre/lib' > /dev/null"
# shellcheck disable=SC2046 # pkg-config's flags are words
ok "tcp-echo builds with pkg-config's flags alone" \
	cc -o "$tmp/tcp-echo" examples/tcp-echo.c -pthread $(pkg-config --cflags --libs libixu)
ok "it loads libixu.so.0 from the prefix" \
	bash -c "LD_LIBRARY_PATH='$pre/lib' ldd '$tmp/tcp-echo' | grep -F '$pre/lib/libixu.so.0' > /dev/null &&
		 { LD_LIBRARY_PATH='$pre/lib' '$tmp/tcp-echo' -h 2>&1 | grep -i usage > /dev/null; }"
ok "man -M finds ixev_create(3)" \
	bash -c "MANWIDTH=80 man -M '$pre/share/man' 3 ixev_create | grep ixev_create > /dev/null"
echo "# $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
