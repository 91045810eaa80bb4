#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_install.sh - `make install` into a staging root (DESTDIR), as a
# package build does, for the newest Debian 6.12 kernel's headers: the
# module under /lib/modules/RELEASE/updates with depmod's files, so that
# modprobe (pointed at the root) resolves ixmod to it; libixu's library,
# headers and libixu.pc; ixmod-bind and ixmod-stat in PREFIX/sbin.  Needs
# no root and loads nothing (TAP on stdout, exit 1 on any failure).

set -uo pipefail
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
KDIR=$(find /usr/src -maxdepth 1 -name 'linux-headers-6.12*-amd64' | sort | tail -n1)
n=0 bad=0
ok() {	# ok DESCRIPTION COMMAND...
	local d=$1
	shift
	n=$((n + 1))
	if "$@" > "$WORK/out" 2>&1; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		tail -n 20 "$WORK/out" | sed 's/^/# /'
		bad=$((bad + 1))
	fi
}
echo "TAP version 13"
echo "1..5"
[ -n "$KDIR" ] || { echo "Bail out! no linux-headers-6.12*-amd64 (scripts/bootstrap installs them)"; exit 1; }
rel=$(cat "$KDIR/include/config/kernel.release")
root=$WORK/root
ok "make install DESTDIR=<root> KDIR=$(basename "$KDIR")" \
	make -s -C "$TOP" install DESTDIR="$root" KDIR="$KDIR" PREFIX=/usr/local
# kbuild names it after the tree (updates/ixmod/) and compresses it as
# the kernel's modules are (ixmod.ko.xz on Debian)
ko=$(find "$root/lib/modules/$rel/updates" -name 'ixmod.ko*' -print -quit 2>/dev/null)
ok "the module is under lib/modules/$rel/updates/ (${ko#"$root"}), its modinfo says ixmod" \
	bash -c "[ -n '$ko' ] && modinfo -F name '$ko' | grep -x ixmod"
ok "modprobe, pointed at the root, resolves ixmod to it (depmod ran)" \
	bash -c "[ -n '$ko' ] && modprobe -d '$root' -S '$rel' --show-depends ixmod | grep -F 'insmod $ko'"
ok "libixu: the library, ixev.h and a libixu.pc for /usr/local" \
	bash -c "test -e '$root/usr/local/lib/libixu.so.0' -a -e '$root/usr/local/include/ixev.h' &&
		 grep -x 'prefix=/usr/local' '$root/usr/local/lib/pkgconfig/libixu.pc'"
ok "ixmod-bind and ixmod-stat in sbin, executable, and they run" \
	bash -c "test -x '$root/usr/local/sbin/ixmod-bind' -a -x '$root/usr/local/sbin/ixmod-stat' &&
		 '$root/usr/local/sbin/ixmod-stat' --help | grep -i usage > /dev/null"
echo "# $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
