#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages of `make deb` (build/deb/, or IXMOD_DEB_DIR)
# installed and used as an operator would: dpkg -i of ixmod-dkms, libixu0,
# libixu-dev and ixmod-tools has the package's postinst hand the module
# to DKMS, which installs it for the running kernel in updates/dkms;
# modprobe ixmod loads that module; tcp-echo compiles against the
# installed libixu with pkg-config alone, runs on the installed
# libixu.so.0 and echoes through a software port; ixmod-bind and
# ixmod-stat run from PATH; dpkg -r takes it all away again.
#
# DKMS does not compile here: under QEMU's emulation that takes more than
# 10 minutes (measured: dpkg -i still compiling after 590 s).  The host
# compiles (tools/testing/scripts/test_deb.sh: DKMS builds the same
# sources with the same dkms.conf for this kernel, in scratch trees) and
# leaves DKMS's binaries-only tarball (dkms mktarball) in
# build/deb/prebuilt/; this test puts it where the package's postinst
# looks for one (/usr/share/ixmod-dkms/), and the postinst loads it (dkms
# ldtarball) instead of compiling, then installs it as its own build.
#
# The guest's root is the host's, read-only.  The test checks that it is,
# then runs in a mount namespace of its own with tmpfs overlays on /usr
# (and so /lib/modules), /etc and /var, and checks that files written
# where the packages, DKMS and depmod write land in them: everything
# stays in the guest's memory and goes with the namespace (scripts/check
# also checks the host after the VM).  At the end the tree's module
# (IXMOD_KO) is loaded again for the tests after this one.

# shellcheck source-path=SCRIPTDIR source=test_common.sh
. "$(dirname "$0")/test_common.sh"

# a mount namespace of its own first (unshare: the mounts below are this
# process's and its children's only, and end with them)
if [ -z "${IXMOD_PKG_NS:-}" ]; then
	IXMOD_PKG_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

IXMOD_TEST_NIC=softport
DEB_DIR=${IXMOD_DEB_DIR:-$_here/../../../../build/deb}
KVER=$(uname -r)
NTESTS=19
WORK=""
OVL=""

cleanup() {
	[ -n "${TCP_ECHO_PID:-}" ] && kill -9 "$TCP_ECHO_PID" 2>/dev/null
	[ -n "$WORK" ] && rm -rf "$WORK"
}
trap cleanup EXIT

tap_plan $NTESTS
dmesg_mark

# fail_rest WHY: every test not yet run fails, and the tree's module is
# loaded again
fail_rest() {
	while [ "$_tap_n" -lt "$NTESTS" ]; do tap_fail "not run: $1"; done
	ixmod_unload
	ixmod_load
	tap_done
}

# deb NAME: the one NAME_*.deb of DEB_DIR
deb() {
	local f
	f=$(find "$DEB_DIR" -maxdepth 1 -name "$1_*.deb" 2>/dev/null)
	[ -n "$f" ] && [ "$(printf '%s\n' "$f" | wc -l)" -eq 1 ] && echo "$f"
}
DEBS=()
for p in ixmod-dkms libixu0 libixu-dev ixmod-tools; do
	f=$(deb "$p") || { echo "# no $DEB_DIR/${p}_*.deb (make deb)"; break; }
	DEBS+=("$f")
done
if [ "${#DEBS[@]}" -ne 4 ]; then
	tap_fail "the four packages are in $DEB_DIR" "make deb builds them"
	fail_rest "no packages"
fi
VER=$(dpkg-deb -f "${DEBS[0]}" Version)
tap_ok "the four packages are in $DEB_DIR (version $VER)"

# --- the host's files stay the host's ---------------------------------
# The guest's root is the host's, mounted read-only (vm-run never gives
# vng --rw); vng lays tmpfs overlays on /usr, /etc, /var and the like.
# This test lays its own on those, in its own mount namespace, so that
# even what a failed run leaves installed goes when it ends, and checks
# that every directory the packages and DKMS write to is on one of them
# before it installs anything.
root_ro() { findmnt -n -o OPTIONS / | grep -E '(^|,)ro(,|$)'; }
# check_or_stop DESCRIPTION WHY COMMAND...: check, and when it fails,
# fail every test after it (WHY) and stop
check_or_stop() {
	local desc=$1 why=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		tap_ok "$desc"
	else
		tap_fail "$desc" "$out"
		fail_rest "$why"
	fi
}
check_or_stop "the guest's root, the host's, is mounted read-only" \
	"the root is writable: not installing anything" root_ro

# overlay DIR: DIR writable, its writes in this namespace's tmpfs $OVL
overlay() {
	local d=$1 n
	n=$(echo "$d" | tr / _)
	mkdir -p "$OVL/$n/upper" "$OVL/$n/work" &&
		mount -t overlay ixmod-pkg -o "lowerdir=$d,upperdir=$OVL/$n/upper,workdir=$OVL/$n/work" "$d"
}
# on_overlay DIR...: a file written in each DIR lands in this test's
# tmpfs (findmnt cannot tell: it still lists the mounts this test's
# overlays hide, vng's /usr/lib among them)
on_overlay() {
	local d real top f
	for d in "$@"; do
		real=$(realpath "$d")
		top=/$(echo "$real" | cut -d/ -f2)	# /usr, /etc or /var
		f=.ixmod-pkg-probe-$$
		touch "$real/$f" 2>/dev/null && test -e "$OVL/_${top#/}/upper${real#"$top"}/$f" ||
			{ echo "$d ($real): a file written there is not in $OVL/_${top#/}/upper"; return 1; }
		rm -f "$real/$f"
	done
}
mkdir -p /run/ixmod-pkg
OVL=$(mktemp -d /run/ixmod-pkg/ovl.XXXXXX)
mount -t tmpfs ixmod-pkg "$OVL" && overlay /usr && overlay /etc && overlay /var
# /lib/modules is /usr/lib/modules (merged /usr: /lib is a link)
check_or_stop "/usr/src, /lib/modules/$KVER, /usr/sbin, /usr/include, /etc, /var/lib/dpkg, /var/lib/dkms: on overlays in the guest's memory" \
	"no overlays: not installing anything" \
	on_overlay /usr/src "/lib/modules/$KVER/" /usr/sbin /usr/include /usr/share /etc /var/lib/dpkg /var/lib/dkms

WORK=$(mktemp -d)
# man-db's trigger would index every man page again (its cache is the
# guest's empty tmpfs): minutes under emulation, for nothing tested here
rm -f /var/lib/man-db/auto-update

# --- install: DKMS builds the module ------------------------------------
# dpkg_ok LOG STATUS: dpkg succeeded, else the end of its log
dpkg_ok() { [ "$2" -eq 0 ] || { tail -n 40 "$1"; return 1; }; }
installed() {
	local p
	for p in ixmod-dkms libixu0 libixu-dev ixmod-tools; do
		dpkg-query -W -f='${Status}\n' "$p" | grep -qx 'install ok installed' || return 1
	done
}
dkms_installed() {
	dkms status -m ixmod -v "$VER" -k "$KVER" | grep -E ': installed$' || { dkms status; return 1; }
}
in_updates_dkms() {
	case "$modfile" in "/lib/modules/$KVER/updates/dkms/ixmod.ko"*) ;; *) return 1 ;; esac
	test -f "$modfile"
}

# The module DKMS builds: compiled on the host (test_deb.sh), for this
# kernel, from the package's sources and dkms.conf; here the compiler
# would run under emulation for more than 10 minutes.  DKMS's own way to
# ship a build: a binaries-only tarball (dkms mktarball), which the
# package's postinst loads (dkms ldtarball) from /usr/share/ixmod-dkms/
# instead of compiling, then installs as it would its own build.
TARBALL=${IXMOD_DKMS_TARBALL:-$DEB_DIR/prebuilt/ixmod-$VER.dkms.tar.gz}
prebuilt_for_kver() {
	tar -tzf "$TARBALL" | grep -x "./dkms_main_tree/$KVER/x86_64/module/ixmod.ko.*" &&
		mkdir -p /usr/share/ixmod-dkms && cp "$TARBALL" "/usr/share/ixmod-dkms/ixmod-$VER.dkms.tar.gz"
}
check_or_stop "DKMS's build for $KVER is in $TARBALL (tools/testing/scripts/test_deb.sh)" \
	"no DKMS build for $KVER: compiling here would take too long" prebuilt_for_kver
# the postinst loaded the build and did not compile
postinst_loaded() {
	grep -F "Loading tarball for ixmod-$VER" "$WORK/dpkg.log" &&
		! grep -F "Building initial module" "$WORK/dpkg.log"
}

t0=$SECONDS
DEBIAN_FRONTEND=noninteractive dpkg -i "${DEBS[@]}" > "$WORK/dpkg.log" 2>&1
rc=$?
echo "# dpkg -i took $((SECONDS - t0)) s"
sed -n '/ixmod-dkms/,$p' "$WORK/dpkg.log" | grep -iE 'dkms|tarball|install|depmod' | sed 's/^/# /'
check "dpkg -i installs ixmod-dkms, libixu0, libixu-dev and ixmod-tools; the postinst loads DKMS's build" \
	eval 'dpkg_ok "$WORK/dpkg.log" "$rc" && installed && postinst_loaded'
check "dkms status: ixmod/$VER installed for $KVER" dkms_installed
modfile=$(modinfo -F filename ixmod 2>/dev/null)
check "modinfo finds ixmod in /lib/modules/$KVER/updates/dkms ($modfile)" in_updates_dkms

# --- modprobe loads the module DKMS built --------------------------------
# modprobe -v prints the insmod it runs: the file it loaded
modprobe_dkms() {
	local out
	out=$(modprobe -v ixmod 2>&1) || { echo "$out"; return 1; }
	echo "# modprobe -v ixmod: $out"
	printf '%s\n' "$out" | grep -F "insmod /lib/modules/$KVER/updates/dkms/ixmod.ko" >/dev/null &&
		test -d /sys/module/ixmod && test -d "$IXMOD_SYSFS"
}
ixmod_unload		# the tree's, loaded by run_in_vm.sh
check "modprobe ixmod loads the module in /lib/modules/$KVER/updates/dkms" modprobe_dkms

# --- tcp-echo against the installed libixu -------------------------------
# alone in a directory: nothing of the tree's next to it
cp "$_here/../../../../libixu/examples/tcp-echo.c" "$WORK/"
multiarch=$(gcc -print-multiarch)
build_echo() {
	# shellcheck disable=SC2046  # pkg-config's words are the flags
	(cd "$WORK" && cc -O2 -Wall -o tcp-echo tcp-echo.c $(pkg-config --cflags --libs libixu))
}
# the libixu.so.0 the loader picks is the package's (by its real path:
# the loader may name it through /lib, a link to usr/lib)
runs_on_installed() {
	local so
	so=$(ldd "$WORK/tcp-echo" | awk '$1 == "libixu.so.0" { print $3 }')
	echo "libixu.so.0 => $so"
	[ -n "$so" ] && [ "$(realpath "$so")" = "$(realpath "/usr/lib/$multiarch/libixu.so.0")" ] &&
		dpkg -S "/usr/lib/$multiarch/libixu.so.0" | grep '^libixu0:' &&
		{ "$WORK/tcp-echo" -h 2>&1; true; } | grep usage
}
check "tcp-echo compiles with cc \$(pkg-config --cflags --libs libixu) alone" build_echo
check "tcp-echo runs on the installed /usr/lib/$multiarch/libixu.so.0" runs_on_installed

if ! ports_setup; then
	ports_teardown
	fail_rest "software port setup failed (# lines above)"
fi
TCP_ECHO=$WORK/tcp-echo
start_tcp_echo "$WORK/echo.log" -p 7
check "the installed tcp-echo listens on the software port" tcp_echo_ready "$WORK/echo.log"
check "it echoes 1, 1460 and 65536 bytes back byte for byte" \
	peer timeout 120 "$PY" "$TCP_CHECK" echo $DUT_IP 7 --sizes 1,1460,65536

# --- the operator's tools from PATH --------------------------------------
# from_path NAME: NAME is found on PATH and is the package's file (/sbin
# may come first on PATH: a link to usr/sbin)
from_path() {
	local f
	f=$(command -v "$1") || { echo "no $1 on PATH ($PATH)"; return 1; }
	echo "$1: $f"
	[ "$(realpath "$f")" = "/usr/sbin/$1" ] && dpkg -S "/usr/sbin/$1" | grep '^ixmod-tools:'
}
bind_from_path() { from_path ixmod-bind && ixmod-bind list; }
stat_from_path() { from_path ixmod-stat && ixmod-stat -1 | grep ixsw0; }
check "ixmod-bind list runs from PATH (/usr/sbin/ixmod-bind)" bind_from_path
check "ixmod-stat runs from PATH (/usr/sbin/ixmod-stat) and shows the port ixsw0" stat_from_path
stop_tcp_echo "$WORK/echo.log"
TCP_ECHO_PID=""
ports_teardown

# --- and away again -----------------------------------------------------
module_gone() {
	dpkg_ok "$WORK/dpkg-r.log" "$rc" || return 1
	! modinfo ixmod 2>/dev/null && test ! -e "$modfile"
}
sources_gone() { test ! -e "/usr/src/ixmod-$VER" && test -z "$(dkms status -m ixmod)"; }
rest_gone() {
	DEBIAN_FRONTEND=noninteractive dpkg -r libixu-dev ixmod-tools libixu0 &&
		test ! -e "/usr/lib/$multiarch/libixu.so.0" && test ! -e /usr/sbin/ixmod-bind
}
check "rmmod ixmod" rmmod ixmod
DEBIAN_FRONTEND=noninteractive dpkg -r ixmod-dkms > "$WORK/dpkg-r.log" 2>&1
rc=$?
check "dpkg -r ixmod-dkms: DKMS removes the module (modinfo no longer finds it)" module_gone
check "dpkg -r ixmod-dkms: its sources and DKMS's tree are gone" sources_gone
check "dpkg -r libixu-dev ixmod-tools libixu0 removes the rest" rest_gone
check "no kernel error reported" dmesg_clean

# the tree's module for the tests after this one
ixmod_load
tap_done
