# SPDX-License-Identifier: GPL-2.0
#
# lib.sh - shared shell helpers for ixmod's scripts (sourced, not run)

IXMOD_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IXMOD_VENV=${IXMOD_VENV:-/opt/ixmod/venv}
export PATH="$IXMOD_VENV/bin:$PATH"

ixm_die() { printf '%s: error: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }
ixm_say() { printf '%s: %s\n' "$(basename "$0")" "$*"; }

# ixm_trap_err "$@": for scripts under set -e, which would otherwise end
# without a word when a command fails.  Names the file, line, status and
# command that failed and the command line to run again.  Call it once,
# right after set -e, with the script's own arguments.  inherit_errexit
# makes a failure inside $(...) end the substitution there too, instead of
# being ignored when a later command in it succeeds.
ixm_trap_err() {
	set -E
	shopt -s inherit_errexit
	_ixm_rerun=$(printf ' %q' "$0" "$@")
	trap '_ixm_err_report "$?" "$LINENO" "$BASH_COMMAND"' ERR
}

_ixm_err_report() {	# status line command; runs in the ERR trap
	printf '%s: error: %s:%d failed (status %d): %s; fix that and run%s again\n' \
		"$(basename "$0")" "${BASH_SOURCE[1]#"$IXMOD_TOP"/}" "$2" "$1" "$3" \
		"$_ixm_rerun" >&2
}

# ixm_kernel_release SERIES|RELEASE -> newest installed Debian release of
# that series with both an image and headers, e.g. 6.12 -> 6.12.95+deb12-amd64
ixm_kernel_release() {
	local want=$1 rel best=
	# "debug": scripts/build-debug-kernel's kernel
	if [ "$want" = debug ] || [[ $want == *-ixmod-debug ]]; then
		rel=$(cat "$(ixm_debug_kernel_dir)/obj/include/config/kernel.release" 2>/dev/null) ||
			return 1
		[ -f "$(ixm_debug_kernel_dir)/obj/arch/x86/boot/bzImage" ] || return 1
		echo "$rel"
		return 0
	fi
	for img in /boot/vmlinuz-*; do
		rel=${img#/boot/vmlinuz-}
		[ -d "/usr/src/linux-headers-$rel" ] || [ -d "/lib/modules/$rel/build" ] || continue
		case "$rel" in
		"$want"|"$want".*|"$want"-*) ;;
		*) continue ;;
		esac
		best=$(printf '%s\n%s\n' "$best" "$rel" | sed '/^$/d' | sort -V | tail -n1)
	done
	[ -n "$best" ] || return 1
	echo "$best"
}

# The kernel series make check and the demo use.
IXMOD_KERNELS=${IXMOD_KERNELS:-"6.12 6.1"}

ixm_kdir() {	# release -> build tree
	if [[ $1 == *-ixmod-debug ]]; then
		echo "$(ixm_debug_kernel_dir)/obj"
	elif [ -d "/lib/modules/$1/build" ]; then
		echo "/lib/modules/$1/build"
	else
		echo "/usr/src/linux-headers-$1"
	fi
}

# ixm_kernel_image RELEASE -> the kernel image vm-run boots
ixm_kernel_image() {
	if [[ $1 == *-ixmod-debug ]]; then
		echo "$(ixm_debug_kernel_dir)/obj/arch/x86/boot/bzImage"
	else
		echo "/boot/vmlinuz-$1"
	fi
}

# Where scripts/build-debug-kernel keeps its sources, objects and config
# (outside the checkout, shared by every clone on the machine).
ixm_debug_kernel_dir() {
	echo "${IXMOD_DEBUG_KERNEL_DIR:-/var/cache/ixmod/debug-kernel}"
}
