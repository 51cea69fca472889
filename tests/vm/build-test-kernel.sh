#!/bin/sh
# Build (once) the KUnit test kernel from Debian's linux-source-6.1 with the
# committed config fragment, and print the build directory.
#
# The result is cached outside the tree, keyed by the fragment's hash and the
# linux-source package version, so later runs (and CI on the same machine)
# reuse it. Usage: build-test-kernel.sh [--print-dir]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

src=${MR_KERNEL_SRC:-/usr/src/linux-source-6.1}
frag="$here/test-kernel.config"

[ -f "$src/Makefile" ] || die "no kernel source at $src (run scripts/install-deps.sh)"

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
key=$(printf '%s\n%s\n' "$srcver" "$(cat "$frag")" | sha256sum | cut -c1-16)
out="$MR_CACHE/test-kernel-$key"

if [ "${1:-}" = "--print-dir" ]; then
	echo "$out"
	exit 0
fi

if [ -f "$out/.mr-complete" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$MR_CACHE"
lock="$MR_CACHE/test-kernel.lock"
exec 9>"$lock"
flock 9
# Another run may have finished it while we waited.
if [ -f "$out/.mr-complete" ]; then
	echo "$out"
	exit 0
fi

log "building KUnit test kernel in $out (first time: 15-30 min on 2 cores)"
rm -rf "$out"
mkdir -p "$out"
jobs=${MR_JOBS:-$(nproc)}
{
	make -s -C "$src" O="$out" allnoconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag"
	make -s -C "$src" O="$out" olddefconfig
	# Every line of the fragment must have survived olddefconfig, or the
	# kernel would silently lack what the tests rely on.
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while IFS= read -r line; do
		opt=${line%%=*}
		val=${line#*=}
		case "$val" in
		n) grep -q "^$opt=" "$out/.config" && echo "$line" ;;
		*) grep -qx "$line" "$out/.config" || echo "$line" ;;
		esac
	done)
	if [ -n "$missing" ]; then
		echo "test-kernel config: not applied: $missing" >&2
		exit 1
	fi
	make -C "$src" O="$out" -j"$jobs" bzImage modules
	make -C "$src" O="$out" -j"$jobs" modules_prepare
	make -s -C "$src" O="$out" INSTALL_MOD_PATH="$out/modroot" modules_install
} >"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	die "test kernel build failed; log: $out/build.log"
}
touch "$out/.mr-complete"
echo "$out"
