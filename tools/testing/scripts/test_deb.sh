#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_deb.sh - the Debian packages and DKMS on the host, installing
# nothing there (issue 38): `make deb` builds ixmod-dkms, libixu0,
# libixu-dev and ixmod-tools into build/deb/ and leaves nothing in the
# source tree; lintian finds no error or warning; each package holds what
# it must (dpkg-deb -c): the dkms package the module's sources, exactly,
# and dkms.conf, never a built module; libixu0 the library its SONAME
# names; libixu-dev the headers, the static library, the .so link,
# libixu.pc and every man page; ixmod-tools the two scripts and their man
# pages; a VERSION that debian/changelog does not repeat fails the build;
# and `make dkms-install` / `dkms-uninstall` into scratch DKMS trees
# (--dkmstree, --sourcetree, --installtree, --no-depmod, the signing key
# in scratch too) build ixmod.ko for the newest Debian 6.12 headers and
# take it away again.  The packages are installed and used in a VM by
# tools/testing/selftests/ixmod/test_pkg_01.sh, which needs build/deb/
# from here, and that DKMS build as DKMS's binaries-only tarball
# (build/deb/prebuilt/): compiling in the emulated VM would take more
# than 10 minutes.  TAP on stdout, exit 1 on any failure.

set -uo pipefail
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
DEB=$TOP/build/deb
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
n=0 bad=0
ok() {	# ok DESCRIPTION COMMAND...
	local d=$1
	shift
	n=$((n + 1))
	if "$@" > "$WORK/out" 2>&1; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		tail -n 30 "$WORK/out" | sed 's/^/# /'
		bad=$((bad + 1))
	fi
}
skip() {	# skip DESCRIPTION REASON
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}
echo "TAP version 13"
echo "1..14"

VER=$(cat "$TOP/VERSION")
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)

# contents PACKAGE: the package's paths, one a line, without ./ and
# without directories (symlinks as "PATH -> TARGET")
contents() {
	dpkg-deb -c "$DEB/$1_${VER}_$2.deb" |
		awk '$1 !~ /^d/ { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ *\.\//, ""); print }'
}

t0=$SECONDS
ok "make deb builds ixmod-dkms, libixu0, libixu-dev and ixmod-tools into build/deb/" \
	bash -c "make -s -C '$TOP' deb >'$WORK/deb.log' 2>&1 || { tail -n 40 '$WORK/deb.log'; exit 1; }
		 for p in ixmod-dkms_${VER}_all libixu0_${VER}_$ARCH libixu-dev_${VER}_$ARCH \
			  ixmod-tools_${VER}_all; do test -f '$DEB'/\$p.deb || exit 1; done &&
		 test -f '$DEB/ixmod_${VER}_$ARCH.changes'"
echo "# make deb took $((SECONDS - t0)) s"

# nothing of the build in the tree: the copy is gone, and debhelper's
# files, dpkg-buildpackage's outputs are neither in the tree nor above it
no_leftovers() {
	local f
	test ! -e "$DEB/ixmod-$VER" || { echo "the copy $DEB/ixmod-$VER is still there"; return 1; }
	for f in "$TOP"/debian/{files,tmp,.debhelper,debhelper-build-stamp,ixmod-dkms,libixu0,libixu-dev,ixmod-tools} \
		 "$TOP"/debian/*.substvars "$TOP"/*.deb "$TOP"/*.changes "$TOP"/../*.deb \
		 "$TOP"/../ixmod_*.changes "$TOP"/../ixmod_*.buildinfo; do
		[ ! -e "$f" ] || { echo "left behind: $f"; return 1; }
	done
}
ok "make deb leaves nothing in the source tree or above it" no_leftovers

lintian_clean() {
	local out
	out=$(lintian --tag-display-limit 0 "$DEB/ixmod_${VER}_$ARCH.changes" 2>&1 |
		grep -v '^running with root privileges is not recommended!$')
	[ -z "$out" ] || printf '%s\n' "$out"
	! printf '%s\n' "$out" | grep -E '^[EW]: '
}
ok "lintian: no error and no warning on the four packages" lintian_clean

# module_sources: the module's sources, as make deb copies them (the
# files git has or would add) and as kbuild reads them: Kbuild files and
# C sources and headers under ixmod/ and uapi/
module_sources() {
	(cd "$TOP" && git ls-files -co --exclude-standard Kbuild ixmod uapi) |
		grep -E '(^|/)Kbuild$|\.[ch]$' | sort
}
# ixmod-dkms: the module's sources exactly, dkms.conf with the version,
# no object, no module
dkms_sources() {
	local src=usr/src/ixmod-$VER
	diff <(contents ixmod-dkms all | sed -n "s|^$src/||p" | grep -vx dkms.conf | sort) \
	     <(module_sources)
}
ok "ixmod-dkms: /usr/src/ixmod-$VER holds the module's sources, exactly those of Kbuild, ixmod/, uapi/" \
	dkms_sources
dkms_conf() {
	contents ixmod-dkms all | grep -x "usr/src/ixmod-$VER/dkms.conf" &&
		! contents ixmod-dkms all | grep -E '\.(ko|o|mod|mod\.c|ko\.xz)$' &&
		dpkg-deb --fsys-tarfile "$DEB/ixmod-dkms_${VER}_all.deb" |
			tar -xO "./usr/src/ixmod-$VER/dkms.conf" > "$WORK/dkms.conf" &&
		grep -x "PACKAGE_VERSION=\"$VER\"" "$WORK/dkms.conf" &&
		grep -x 'AUTOINSTALL="yes"' "$WORK/dkms.conf" &&
		dpkg-deb -f "$DEB/ixmod-dkms_${VER}_all.deb" Depends | grep -E '(^|, )dkms( |,|$)' &&
		dpkg-deb -I "$DEB/ixmod-dkms_${VER}_all.deb" postinst > "$WORK/postinst" &&
		grep -x 'DKMS_NAME=ixmod' "$WORK/postinst" && grep -x "DKMS_VERSION=$VER" "$WORK/postinst" &&
		grep -F /usr/lib/dkms/common.postinst "$WORK/postinst"
}
ok "ixmod-dkms: dkms.conf (PACKAGE_VERSION=\"$VER\", AUTOINSTALL), no built module, depends on dkms, its postinst runs DKMS" \
	dkms_conf

# libixu0: named for the SONAME of the library it holds
libixu0_soname() {
	local so
	contents libixu0 "$ARCH" | grep -x "usr/lib/$MA/libixu.so.0 -> libixu.so.$VER" || return 1
	dpkg-deb -x "$DEB/libixu0_${VER}_$ARCH.deb" "$WORK/libixu0"
	so=$(objdump -p "$WORK/libixu0/usr/lib/$MA/libixu.so.$VER" | awk '$1 == "SONAME" {print $2}')
	echo "SONAME $so"
	[ "$so" = libixu.so.0 ]
}
ok "libixu0: usr/lib/$MA/libixu.so.0, whose SONAME is libixu.so.0" libixu0_soname

# libixu0 also carries the sockets layer, a preload object exporting libc's names
libixu0_posix() {
	local f=$WORK/libixu0/usr/lib/$MA/ixmod/libixu-posix.so
	[ -f "$f" ] || { echo "no usr/lib/$MA/ixmod/libixu-posix.so"; return 1; }
	nm -D --defined-only "$f" > "$WORK/posix.syms" || return 1
	awk '$3 == "socket" || $3 == "epoll_wait" || $3 == "accept4" {n++} END {exit n != 3}' \
		"$WORK/posix.syms"
}
ok "libixu0: usr/lib/$MA/ixmod/libixu-posix.so, which defines socket, accept4, epoll_wait" libixu0_posix

libixu_dev() {
	local f
	for f in usr/include/ixu.h usr/include/ixev.h usr/include/linux/ixmod.h \
		 "usr/lib/$MA/libixu.a" "usr/lib/$MA/libixu.so -> libixu.so.$VER" \
		 "usr/lib/$MA/pkgconfig/libixu.pc"; do
		contents libixu-dev "$ARCH" | grep -Fx "$f" >/dev/null || { echo "no $f"; return 1; }
	done
	for f in "$TOP"/libixu/man/man3/*.3; do
		f=usr/share/man/man3/${f##*/}.gz
		contents libixu-dev "$ARCH" | grep -Fx "$f" >/dev/null || { echo "no $f"; return 1; }
	done
	dpkg-deb -f "$DEB/libixu-dev_${VER}_$ARCH.deb" Depends | grep -F "libixu0 (= $VER)"
}
ok "libixu-dev: ixu.h, ixev.h, linux/ixmod.h, libixu.a, the libixu.so link, libixu.pc, every man page; depends on libixu0 (= $VER)" \
	libixu_dev
libixu_pc() {
	dpkg-deb -x "$DEB/libixu-dev_${VER}_$ARCH.deb" "$WORK/dev" &&
		grep -x 'prefix=/usr' "$WORK/dev/usr/lib/$MA/pkgconfig/libixu.pc" &&
		grep -x "libdir=/usr/lib/$MA" "$WORK/dev/usr/lib/$MA/pkgconfig/libixu.pc"
}
ok "libixu-dev: libixu.pc says prefix=/usr, libdir=/usr/lib/$MA" libixu_pc

tools() {
	local f
	for f in usr/sbin/ixmod-bind usr/sbin/ixmod-stat usr/share/man/man8/ixmod-bind.8.gz \
		 usr/share/man/man8/ixmod-stat.8.gz; do
		contents ixmod-tools all | grep -Fx "$f" >/dev/null || { echo "no $f"; return 1; }
	done
	dpkg-deb -x "$DEB/ixmod-tools_${VER}_all.deb" "$WORK/tools" &&
		test -x "$WORK/tools/usr/sbin/ixmod-bind" && test -x "$WORK/tools/usr/sbin/ixmod-stat" &&
		head -n1 "$WORK/tools/usr/sbin/ixmod-stat" | grep -x '#!/usr/bin/python3' &&
		"$WORK/tools/usr/sbin/ixmod-stat" --help | grep usage
}
ok "ixmod-tools: ixmod-bind and ixmod-stat in /usr/sbin (executable, Debian's python3), their man pages" tools

# debian/rules refuses a VERSION that debian/changelog does not repeat
version_mismatch() {
	local out
	mkdir -p "$WORK/v" && cp -r "$TOP/debian" "$WORK/v/" && echo 9.9.9 > "$WORK/v/VERSION" || return 1
	out=$(cd "$WORK/v" && make -f debian/rules -n clean 2>&1) && { echo "it did not: $out"; return 1; }
	printf '%s\n' "$out" | grep -F "VERSION says 9.9.9 but debian/changelog $VER"
}
ok "a VERSION that debian/changelog does not repeat fails the package build" version_mismatch

# --- make dkms-install into scratch DKMS trees ---------------------------
KDIR=$(find /usr/src -maxdepth 1 -name 'linux-headers-6.12*-amd64' | sort | tail -n1)
if [ "$(id -u)" -ne 0 ]; then
	for d in "make dkms-install builds and installs ixmod.ko" "dkms mktarball: the binaries for the VM test" \
		 "make dkms-uninstall removes it"; do
		skip "$d" "dkms install and remove need root"
	done
elif [ -z "$KDIR" ]; then
	echo "Bail out! no linux-headers-6.12*-amd64 (scripts/bootstrap installs them)"
	exit 1
else
	rel=$(cat "$KDIR/include/config/kernel.release")
	S=$WORK/dkms
	mkdir -p "$S/src" "$S/tree" "$S/lib/$rel"
	# dkms signs what it builds with a key it makes if missing: in
	# scratch too, not in /var/lib/dkms
	dkms_make() {
		mok_signing_key=$S/mok.key mok_certificate=$S/mok.pub \
			make -s -C "$TOP" "$@" DKMS_SOURCETREE="$S/src" KVER="$rel" \
			DKMS_FLAGS="--dkmstree $S/tree --installtree $S/lib --no-depmod"
	}
	installed_ko() {
		local ko
		dkms_make dkms-install || return 1
		ko=$(find "$S/lib/$rel/updates/dkms" -name 'ixmod.ko*' -print -quit 2>/dev/null)
		[ -n "$ko" ] || { echo "nothing in $S/lib/$rel/updates/dkms"; return 1; }
		modinfo -F vermagic "$ko" > "$WORK/vermagic" && grep "^$rel " "$WORK/vermagic" &&
			diff <(cd "$S/src/ixmod-$VER" && find . -type f ! -name dkms.conf | sed 's|^\./||' | sort) \
			     <(module_sources)
	}
	t0=$SECONDS
	ok "make dkms-install (scratch trees, KVER=$rel): ixmod.ko built for $rel in updates/dkms, the sources in SOURCETREE/ixmod-$VER" \
		installed_ko
	echo "# make dkms-install took $((SECONDS - t0)) s"
	# test_pkg_01 installs the packages in a VM, whose emulated CPUs
	# would take more than 10 minutes to compile the module: it gets
	# this build as DKMS's binaries-only tarball, which the package's
	# postinst loads (dkms ldtarball) instead of compiling.  The same
	# sources (checked above) and dkms.conf as the package's.
	prebuilt() {
		local tgz=$DEB/prebuilt/ixmod-$VER.dkms.tar.gz
		cmp "$S/src/ixmod-$VER/dkms.conf" "$WORK/dkms.conf" || return 1
		mkdir -p "$DEB/prebuilt" &&
			dkms mktarball -m ixmod -v "$VER" -k "$rel" --binaries-only --archive "$tgz" \
				--dkmstree "$S/tree" --sourcetree "$S/src" &&
			tar -tzf "$tgz" | grep -x "./dkms_main_tree/$rel/x86_64/module/ixmod.ko.*"
	}
	ok "dkms mktarball --binaries-only: that build of the package's sources and dkms.conf for $rel, in build/deb/prebuilt/ (test_pkg_01's)" \
		prebuilt
	uninstalled() {
		dkms_make dkms-uninstall || return 1
		test ! -e "$S/src/ixmod-$VER" && test ! -e "$S/tree/ixmod" &&
			[ -z "$(find "$S/lib/$rel" -name 'ixmod.ko*')" ]
	}
	ok "make dkms-uninstall: the module, the DKMS tree's entry and the sources are gone" uninstalled
fi

echo "# $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
