#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_bootstrap.sh - scripts/bootstrap's decisions, on fake machines,
# without installing anything and without root (issue 16).
#
# Usage: tools/testing/scripts/test_bootstrap.sh   (TAP on stdout, exit 1
# on any failure)
#
# Each case builds a machine under a temporary directory: a root given to
# bootstrap as IXMOD_BOOTSTRAP_ROOT (etc/apt, boot, usr/src, opt, and
# usr/bin/python3, a stub), and a state directory ($FAKE) the stubs read
# and write: dpkg/NAME holds an installed package's version, madison/PKG
# and show/PKG=VERSION hold what apt-cache prints, qemu-igb says QEMU has
# the igb model.  Stub apt-get, apt-cache, dpkg-query and
# qemu-system-x86_64, first on PATH, log every call to $FAKE/log; apt-get
# install has the effects the real packages have on the paths bootstrap
# looks at.  $FAKE/apt-fail names a package whose install fails, and
# $FAKE/apt-noop one whose install "succeeds" without effect.  KEEP=1
# keeps the machines (the first line says where).

set -uo pipefail

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
BOOTSTRAP=$TOP/scripts/bootstrap
WORK=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then	# KEEP=1: keep the machines to look at
	echo "# machines in $WORK"
else
	trap 'rm -rf "$WORK"' EXIT
fi

# What the archive says in these cases: bookworm-backports' 6.12 first,
# then bookworm's 6.1, security first (madison lists the newest first).
IMG612_VER=6.12.57-1~bpo12+1
IMG612_REL=6.12.57+deb12-amd64
K61_VER=6.1.158-1
K61_REL=6.1.0-41-amd64

mkdir -p "$WORK/bin"

cat > "$WORK/bin/apt-get" <<'EOF'
#!/bin/bash
# stub: log, then act on $FAKE (see test_bootstrap.sh)
echo "apt-get $*" >> "$FAKE/log"
root=$IXMOD_BOOTSTRAP_ROOT
[ "$1" = update ] && exit 0
[ "$1" = install ] || { echo "apt-get stub: $1?" >&2; exit 100; }
shift
pkgs=()
while [ $# -gt 0 ]; do
	case $1 in
	-t) shift 2 ;;
	-*) shift ;;
	*) pkgs+=("$1"); shift ;;
	esac
done
for p in "${pkgs[@]}"; do
	name=${p%%=*}
	if [ -f "$FAKE/apt-fail" ] && [ "$(cat "$FAKE/apt-fail")" = "$name" ]; then
		echo "E: Unable to locate package $name" >&2
		exit 100
	fi
done
for p in "${pkgs[@]}"; do
	name=${p%%=*}
	[ -f "$FAKE/apt-noop" ] && [ "$(cat "$FAKE/apt-noop")" = "$name" ] && continue
	ver=1.0
	case $name in
	linux-image-amd64)
		touch "$root/boot/vmlinuz-$IMG612_REL"
		name=linux-image-$IMG612_REL ver=$IMG612_VER ;;
	linux-headers-amd64)
		mkdir -p "$root/usr/src/linux-headers-$IMG612_REL" ;;
	linux-image-6.1.*)
		touch "$root/boot/vmlinuz-${name#linux-image-}" ;;
	linux-headers-6.1.*)
		mkdir -p "$root/usr/src/$name" ;;
	qemu-system-x86)
		touch "$FAKE/qemu-igb" ;;
	linux-source-6.12)
		d=$(mktemp -d)
		mkdir -p "$d/linux-source-6.12/tools/testing/selftests"
		touch "$d/linux-source-6.12/tools/testing/selftests/kselftest_harness.h"
		tar -cJf "$root/usr/src/linux-source-6.12.tar.xz" -C "$d" linux-source-6.12
		rm -rf "$d" ;;
	esac
	echo "$ver" > "$FAKE/dpkg/$name"
done
EOF

cat > "$WORK/bin/apt-cache" <<'EOF'
#!/bin/bash
# stub: what the fake archive holds; cat dies of SIGPIPE like apt-cache
echo "apt-cache $*" >> "$FAKE/log"
case $1 in
madison) f=$FAKE/madison/$2 ;;
show) f=$FAKE/show/$2 ;;
*) echo "apt-cache stub: $1?" >&2; exit 100 ;;
esac
[ -f "$f" ] || exit 0
exec cat "$f"
EOF

cat > "$WORK/bin/dpkg-query" <<'EOF'
#!/bin/bash
# stub: dpkg-query -W -f=FORMAT PATTERN over $FAKE/dpkg
echo "dpkg-query $*" >> "$FAKE/log"
fmt=${2#-f=} pat=$3 hit=0
for f in "$FAKE"/dpkg/$pat; do
	[ -f "$f" ] || continue
	hit=1
	case $fmt in
	'${Status}') printf 'install ok installed' ;;
	'${Package} ${Version}\n') printf '%s %s\n' "${f##*/}" "$(cat "$f")" ;;
	esac
done
[ "$hit" = 1 ] && exit 0
echo "dpkg-query: no packages found matching $pat" >&2
exit 1
EOF

cat > "$WORK/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
echo "qemu-system-x86_64 $*" >> "$FAKE/log"
echo 'name "e1000", bus PCI, alias "e1000-82540em", desc "Intel Gigabit Ethernet"'
[ -f "$FAKE/qemu-igb" ] && echo 'name "igb", bus PCI, desc "Intel 82576 Gigabit Ethernet Controller"'
exit 0
EOF

# usr/bin/python3 in each fake root: -m venv DIR makes DIR/bin/pip, whose
# install makes DIR/bin/vng
cat > "$WORK/python3" <<'EOF'
#!/bin/bash
echo "python3 $*" >> "$FAKE/log"
[ "$1 $2" = "-m venv" ] || exit 1
mkdir -p "$3/bin"
cat > "$3/bin/pip" <<EOP
#!/bin/bash
echo "pip \$*" >> "\$FAKE/log"
touch "$3/bin/vng"
chmod +x "$3/bin/vng"
EOP
chmod +x "$3/bin/pip"
EOF
chmod +x "$WORK"/bin/* "$WORK/python3"

# bootstrap's Debian packages, read from the script itself
mapfile -t BASE_PKGS < <(bash -c '. "$1"; printf "%s\n" "${BASE_PKGS[@]}"' _ "$BOOTSTRAP")

# machine NAME: an empty machine: $M is its state dir, $M/root its root
machine() {
	M=$WORK/$1
	mkdir -p "$M"/{dpkg,madison,show} "$M"/root/{boot,usr/src,usr/bin,etc/apt/sources.list.d}
	touch "$M/log"
	cp "$WORK/python3" "$M/root/usr/bin/python3"
	echo 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"' > "$M/root/etc/os-release"
	echo 'deb http://deb.debian.org/debian bookworm main' > "$M/root/etc/apt/sources.list"
	cat > "$M/madison/linux-headers-amd64" <<-EOF
	linux-headers-amd64 | 6.12.57-1~bpo12+1 | http://deb.debian.org/debian bookworm-backports/main amd64 Packages
	linux-headers-amd64 | 6.12.48-1~bpo12+1 | http://deb.debian.org/debian bookworm-backports/main amd64 Packages
	linux-headers-amd64 | $K61_VER | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
	linux-headers-amd64 | 6.1.153-1 | http://deb.debian.org/debian bookworm/main amd64 Packages
	EOF
	printf 'Package: linux-headers-amd64\nVersion: %s\nDepends: linux-headers-%s (= %s)\n\n' \
		"$K61_VER" "$K61_REL" "$K61_VER" > "$M/show/linux-headers-amd64=$K61_VER"
	printf 'linux-source-6.12 | %s | http://deb.debian.org/debian bookworm-backports/main amd64 Packages\n' \
		"$IMG612_VER" > "$M/madison/linux-source-6.12"
}

# installed: make the machine $M complete
installed() {
	local p
	echo 'deb http://deb.debian.org/debian bookworm-backports main' \
		> "$M/root/etc/apt/sources.list.d/bookworm-backports.list"
	for p in "${BASE_PKGS[@]}"; do echo 1.0 > "$M/dpkg/$p"; done
	touch "$M/qemu-igb" "$M/root/boot/vmlinuz-$IMG612_REL" "$M/root/boot/vmlinuz-$K61_REL"
	mkdir -p "$M/root/usr/src/linux-headers-$IMG612_REL" "$M/root/usr/src/linux-headers-$K61_REL" \
		"$M/root/usr/src/linux-source-6.12/tools/testing/selftests" "$M/root/opt/ixmod/venv/bin"
	touch "$M/root/usr/src/linux-source-6.12/tools/testing/selftests/kselftest_harness.h"
	install -m 755 /dev/null "$M/root/opt/ixmod/venv/bin/vng"
}

# run [ARG...]: scripts/bootstrap on $M; its status in $rc, output in
# $M/out and $M/err
run() {
	env -u IXMOD_VENV FAKE="$M" IXMOD_BOOTSTRAP_ROOT="$M/root" \
		IMG612_REL="$IMG612_REL" IMG612_VER="$IMG612_VER" PATH="$WORK/bin:$PATH" \
		"$BOOTSTRAP" "$@" >"$M/out" 2>"$M/err"
	rc=$?
}

# in_bootstrap CODE: bash CODE after sourcing scripts/bootstrap, on $M
in_bootstrap() {
	env -u IXMOD_VENV FAKE="$M" IXMOD_BOOTSTRAP_ROOT="$M/root" \
		IMG612_REL="$IMG612_REL" IMG612_VER="$IMG612_VER" PATH="$WORK/bin:$PATH" \
		bash -c ". \"\$1\"; $1" _ "$BOOTSTRAP"
}

n=0
failed=0
# t DESCRIPTION COMMAND...: ok when COMMAND succeeds; else show $M's run
t() {
	n=$((n + 1))
	if "${@:2}"; then
		echo "ok $n - $1"
		return
	fi
	echo "not ok $n - $1"
	failed=1
	{
		echo "exit status: ${rc:-}"
		tail -n 5 "$M/out" "$M/err" "$M/log" 2>/dev/null
	} | sed 's/^/# /'
}

has_line() { grep -Fx -- "$2" "$1" >/dev/null; }	# FILE has exactly LINE
logged() { has_line "$M/log" "$1"; }	# the stubs were asked exactly LINE
said() { grep -F -- "$1" "$M/out" "$M/err" >/dev/null; }
apt_calls() { grep -c '^apt-get ' "$M/log"; }
status() { [ "$rc" = "$1" ]; }

echo "TAP version 13"

# --- decisions as functions ---------------------------------------------
machine units
t "madison_newest_stable picks the newest non-backports version" \
	test "$(in_bootstrap 'madison_newest_stable' < "$M/madison/linux-headers-amd64")" = "$K61_VER"
t "madison_newest_stable prints nothing when only backports lists it" \
	test -z "$(grep bpo "$M/madison/linux-headers-amd64" | in_bootstrap 'madison_newest_stable')"
t "show_depends finds the metapackage's headers package" \
	test "$(in_bootstrap 'show_depends' < "$M/show/linux-headers-amd64=$K61_VER")" = "linux-headers-$K61_REL"
t "src_pin pins linux-source-6.12 to a version madison lists" \
	test "$(in_bootstrap "src_pin '$IMG612_VER'")" = "$IMG612_VER"
t "src_pin leaves it unpinned when madison does not list the version" \
	test -z "$(in_bootstrap "src_pin 6.12.12-1~bpo12+1")"
t "src_pin leaves it unpinned when no 6.12 image is installed" \
	test -z "$(in_bootstrap "src_pin \"\$(image_612_version)\"")"

# --- a fresh machine ------------------------------------------------------
machine fresh
run
t "fresh machine: bootstrap succeeds" status 0
t "fresh machine: the backports source is written" \
	has_line "$M/root/etc/apt/sources.list.d/bookworm-backports.list" \
	'deb http://deb.debian.org/debian bookworm-backports main'
t "fresh machine: apt-get update runs once" test "$(grep -c '^apt-get update' "$M/log")" = 1
t "fresh machine: the Debian packages are asked for in one install" \
	logged "apt-get install -y -qq ${BASE_PKGS[*]}"
t "fresh machine: QEMU from backports" \
	logged "apt-get install -y -qq -t bookworm-backports qemu-system-x86"
t "fresh machine: 6.12 image and headers from backports" \
	logged "apt-get install -y -qq -t bookworm-backports linux-image-amd64 linux-headers-amd64"
t "fresh machine: 6.1 resolved from madison's newest non-bpo line" \
	logged "apt-get install -y -qq linux-image-$K61_REL linux-headers-$K61_REL"
t "fresh machine: linux-source-6.12 pinned to the 6.12 image's version" \
	logged "apt-get install -y -qq linux-source-6.12=$IMG612_VER"
t "fresh machine: linux-source-6.12 unpacked" \
	test -f "$M/root/usr/src/linux-source-6.12/tools/testing/selftests/kselftest_harness.h"
t "fresh machine: virtme-ng installed in the venv" \
	logged "pip install -q virtme-ng>=1.30"
t "fresh machine: the venv is under the fake root" \
	logged "python3 -m venv $M/root/opt/ixmod/venv"
: > "$M/log"
run
t "fresh machine, second run: nothing to do" said "nothing to do"
t "fresh machine, second run: exit 0, no apt-get call" \
	eval 'status 0 && [ "$(apt_calls)" = 0 ]'

machine nopin
echo 'linux-source-6.12 | 6.12.60-1~bpo12+1 | http://deb.debian.org/debian bookworm-backports/main amd64 Packages' \
	> "$M/madison/linux-source-6.12"
run
t "image version not in the archive: bootstrap succeeds" status 0
t "image version not in the archive: linux-source-6.12 unpinned" \
	logged "apt-get install -y -qq linux-source-6.12"

# --- everything present ---------------------------------------------------
machine present
installed
run
t "everything present: exit 0" status 0
t "everything present: says nothing to do" said "everything is installed; nothing to do"
t "everything present: no apt-get call" test "$(apt_calls)" = 0

# --- --check ----------------------------------------------------------------
machine check
installed
rm -r "$M/root/boot/vmlinuz-$K61_REL" "$M/root/opt/ixmod/venv" "$M/dpkg/sparse"
before=$(find "$M/root" | sort)
run --check
t "--check with things missing: exit 1" status 1
t "--check: lists the missing 6.1 kernel, package and venv" \
	said 'missing: sparse linux-image/headers 6.1 (bookworm) virtme-ng'
t "--check: no apt-get call" test "$(apt_calls)" = 0
t "--check: the root is untouched" test "$(find "$M/root" | sort)" = "$before"
machine check-ok
installed
run --check
t "--check with nothing missing: exit 0" status 0
# the packaging tools (issue 38: make deb, make dkms-install)
machine check-pkg
installed
rm "$M/dpkg/dkms" "$M/dpkg/dh-dkms" "$M/dpkg/lintian"
run --check
t "--check: dkms, dh-dkms and lintian missing: exit 1, all three named" \
	eval 'status 1 && said "missing: dkms dh-dkms lintian"'
t "the Debian packages include dkms, dh-dkms, debhelper and lintian" \
	eval '(for p in dkms dh-dkms debhelper lintian; do [[ " ${BASE_PKGS[*]} " == *" $p "* ]] || exit 1; done)'

# --- failures say which step and how to retry -------------------------------
machine aptfail
echo qemu-system-x86 > "$M/apt-fail"
run
t "apt-get fails: non-zero exit" test "$rc" -ne 0
t "apt-get fails: the message names the step" \
	said 'error: step "qemu-system-x86 (backports, with igb)": line'
t "apt-get fails: the message says to run scripts/bootstrap again" \
	said "run scripts/bootstrap again"
t "apt-get fails: no later step runs" \
	eval '! grep -F linux-image "$M/log" >/dev/null'

machine noop
echo linux-headers-amd64 > "$M/apt-noop"
run
t "install without effect: non-zero exit" test "$rc" -ne 0
t "install without effect: says the step is still missing" \
	said 'step "linux-image/headers 6.12 (backports)": still missing after installing it'

machine args
run --frobnicate
t "unknown argument: usage, exit 1" eval 'status 1 && said "usage: scripts/bootstrap [--check]"'
IXMOD_BOOTSTRAP_ROOT=/ "$BOOTSTRAP" --check >"$M/out" 2>"$M/err"
rc=$?
t "IXMOD_BOOTSTRAP_ROOT=/ is refused (the uid check is lifted for fake roots only)" \
	eval 'status 1 && said "not a directory other than /"'

# --- many madison lines: the reader must read them all ----------------------
# Far more than a pipe holds, so a reader that leaves early makes cat, the
# writer, die of SIGPIPE (the issue's silent stop after the 6.12 kernel).
machine many
for ((i = 0; i < 30000; i++)); do
	echo "linux-headers-amd64 | 4.19+105+deb10u$i | http://archive.debian.org/debian buster/main amd64 Packages"
done >> "$M/madison/linux-headers-amd64"
run
t "madison with 30000 lines: bootstrap succeeds" status 0
t "madison with 30000 lines: 6.1 installed" \
	logged "apt-get install -y -qq linux-image-$K61_REL linux-headers-$K61_REL"
# the same machine with the old reader (awk ... exit) fails: this test
# catches the bug
machine many-old
cp "$WORK/many/madison/linux-headers-amd64" "$M/madison/"
in_bootstrap "madison_newest_stable() { awk '\$3 !~ /bpo/ {print \$3; exit}'; }; main" \
	>"$M/out" 2>"$M/err"
rc=$?
t "old reader (awk exit) on the same output: bootstrap fails" test "$rc" -ne 0
t "old reader: it was SIGPIPE (status 141)" said "(status 141)"
t "old reader: 6.1 never installed" \
	eval '! grep -F "linux-image-$K61_REL" "$M/log" >/dev/null'

echo "1..$n"
exit "$failed"
