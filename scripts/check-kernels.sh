#!/bin/sh
# Compile-check the module (W=1, warnings are failures) against the kernel
# header trees of README.md's "Supported kernels", each unpacked from the
# Debian archive's .debs into $MR_KHEADERS/<version>/ (never installed:
# the VM harness takes the newest /usr/src/linux-headers-*-amd64). Prints
# one "ok"/"not ok" line per tree and "kernels: N passed, N failed".
#
#   scripts/check-kernels.sh                  every suite in SUITES below
#   scripts/check-kernels.sh sid trixie-backports   only these
#
# Each suite's tree is the one its linux-headers-amd64 depends on today
# (the archive moves on: the newest headers are checked, not a pinned
# version that sid drops); apt-get with a private sources list and state
# under $MR_KHEADERS/apt, nothing installed. A tree missing from the
# cache is downloaded. When the archive cannot be reached, the tree last
# fetched for the suite is checked and the line says so; with none
# cached the suite fails ("not checked"), it is never skipped.
#
# A tree whose kernel was configured with a newer gcc than this host's
# (CONFIG_CC_VERSION_TEXT) is compiled with the host's gcc after turning
# off, in the cached copy, the compiler-capability options this gcc lacks
# (probed one by one, listed in <tree>/MR-CC-ADJUSTED and in the output).
# That checks the API the module compiles against, not a loadable object.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
MR_KHEADERS=${MR_KHEADERS:-/var/cache/metaroce/kheaders}
RESULTS=${RESULTS:-$top/results}
CC_HOST=${CC_HOST:-gcc}
# apt_setup, resolve and fetch: the Debian archive's kernel packages,
# shared with the VM harness (tests/vm/e2e.sh boots bookworm-backports).
. "$top/scripts/kernel-archive.sh"

# The Debian 12 kernel is the installed linux-headers package
# (scripts/install-deps.sh, scripts/check-kernel.sh); these come from the
# archive. On 2026-12-02: 6.12.95+deb12, 7.2.13+deb14, 7.3.4+deb13.
SUITES="bookworm-backports sid trixie-backports"

pass=0
fail=0
mkdir -p "$RESULTS" "$MR_KHEADERS"

ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1"; fail=$((fail + 1)); }

# Compiler-capability options a newer gcc set: each is kept only if the
# host's gcc passes its probe.
probe() {
	case $1 in
	CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT) flags=-fmin-function-alignment=16 src='int x;' ;;
	CONFIG_CC_OPT_INLINE_MEMSET) flags=-finline-stringops=memset src='int x;' ;;
	CONFIG_CC_HAS_COUNTED_BY | CONFIG_CC_HAS_COUNTED_BY_PTR)
		flags='' src='struct s { int n; int a[] __attribute__((counted_by(n))); };' ;;
	CONFIG_CC_HAS_MULTIDIMENSIONAL_NONSTRING)
		flags='' src='char a[2][4] __attribute__((nonstring));' ;;
	CONFIG_CC_HAS_ASSUME) flags='' src='void f(int x) { __attribute__((assume(x > 0))); }' ;;
	*) return 0 ;;
	esac
	# shellcheck disable=SC2086
	echo "$src" | $CC_HOST -Werror $flags -x c -c -o /dev/null - 2>/dev/null
}

adjust_cc() {
	tree=$1
	tree_cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$tree/.config")
	command -v "$tree_cc" >/dev/null && return 0
	[ -f "$tree/MR-CC-ADJUSTED" ] && return 0
	off=
	for sym in $(grep -oE '^CONFIG_CC_(HAS|OPT)_[A-Z0-9_]+' "$tree/include/config/auto.conf"); do
		probe "$sym" && continue
		off="$off $sym"
		sed -i "/^$sym=/d" "$tree/include/config/auto.conf" "$tree/.config"
		sed -i "/^#define $sym /d" "$tree/include/generated/autoconf.h"
	done
	echo "configured with $tree_cc, compiled with $($CC_HOST -dumpfullversion); off:${off:- none}" \
		>"$tree/MR-CC-ADJUSTED"
}

check() {
	suite=$1
	if ! v=$(resolve "$suite") || [ -z "$v" ]; then
		if [ -n "$apt_failed" ]; then
			notok "$suite: not checked, Debian archive unreachable and no tree cached ($MR_KHEADERS/apt/update.log)"
		else
			notok "$suite: no linux-headers-amd64 found in the suite"
		fi
		return
	fi
	root=$MR_KHEADERS/$v
	tree=$root/usr/src/linux-headers-$v-amd64
	if ! fetch "$v"; then
		notok "$v ($suite): header packages not obtained (logs in $MR_KHEADERS/apt)"
		return
	fi
	pkg=$(sed -n "s/^linux-headers-$v-amd64_\(.*\)_amd64\.deb$/\1/p" "$root/MR-DEBS" |
		sed 's/%3a/:/')
	suite="$suite $pkg${apt_failed:+, archive unreachable: the tree last fetched}"
	adjust_cc "$tree"
	extra=
	note=
	targets=modules
	# Out of the worktree: a copy, so the source tree's objects (built
	# for the default kernel) are left alone.
	b=$(mktemp -d)
	cp -a "$top/Kbuild" "$top/kernel" "$top/VERSION" "$b/"
	find "$b" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod*' \) \
		-exec rm -f {} +
	if [ -f "$tree/MR-CC-ADJUSTED" ]; then
		# The tree's compiler, pahole and its kbuild's objtool/modpost
		# (built against a newer glibc) are not this host's: every
		# object of the module compiled with W=1, no link, no BTF.
		extra="CC=$CC_HOST CONFIG_DEBUG_INFO_BTF_MODULES= objtool=/bin/true"
		targets=$(cd "$b" && ls kernel/*.c kernel/proto/*.c | sed 's/\.c$/.o/')
		note=", compile-only (objects, not linked): $(cat "$tree/MR-CC-ADJUSTED")"
	fi
	log=$RESULTS/kernel-$v.log
	# shellcheck disable=SC2086
	make -C "$tree" M="$b" W=1 $extra $targets >"$log" 2>&1
	st=$?
	rm -rf "$b"
	# The tree's own notice that the host's pahole is not the one it
	# was built with (an adjusted tree builds no BTF) is no diagnostic
	# of the module; every other warning is.
	diag=$(grep -E '(warning|error):' "$log" |
		grep -v '^warning: pahole version differs from the one used to build the kernel$')
	if [ $st -eq 0 ] && [ -z "$diag" ]; then
		ok "$v ($suite): W=1, no warnings$note"
	else
		notok "$v ($suite): W=1 build (log: $log)$note"
		{ [ -n "$diag" ] && echo "$diag" || tail -3 "$log"; } |
			sort -u | head -10 | sed 's/^/    /'
	fi
}

# Once, here: resolve runs in a subshell and reads the outcome.
apt_setup || true
# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- $SUITES
for suite in "$@"; do
	check "$suite" </dev/null
done
[ $((pass + fail)) -gt 0 ] || notok "no suite checked"
echo "kernels: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
