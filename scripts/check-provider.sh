#!/bin/sh
# Build the rdma-core provider against the newer libibverbs of the Debian
# archive and check its private-ABI imports (provider.rst, "Supported
# rdma-core versions"). Debian 12's rdma-core 44 is the installed one,
# checked by `make -C userspace check`; this adds trixie's (rdma-core 56),
# whose libibverbs-dev and libibverbs1 are unpacked from the archive with
# dpkg -x into the cache of scripts/kernel-archive.sh, never installed.
# Prints one "ok"/"not ok" line per check and "provider-rdma-core: N passed, N
# failed". The archive unreachable with nothing cached fails.
#
#   scripts/check-provider.sh             trixie (the host tier)
#   scripts/check-provider.sh SUITE...    these suites, e.g. trixie sid
#
# A suite whose libibverbs exports no IBVERBS_PRIVATE_34 (sid's rdma-core
# 65 in 2026 has IBVERBS_PRIVATE_65) is outside the supported range: the
# check is then that the provider refuses to link against it, so a
# mismatched provider can never be built (-z defs, userspace/Makefile).
# sid is not in the host tier: its headers move under us.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
RESULTS=${RESULTS:-$top/results}
. "$top/scripts/kernel-archive.sh"
CACHE=$MR_KHEADERS/rdma-core
pass=0
fail=0
mkdir -p "$RESULTS" "$CACHE"

ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1"; fail=$((fail + 1)); }

# rdma_core SUITE: the libibverbs-dev version of SUITE, unpacked into
# $CACHE/VERSION (printed); the one last unpacked if the archive is down.
rdma_core() {
	if apt_setup; then
		# shellcheck disable=SC2046
		v=$(apt-cache $(apt_opts) show "libibverbs-dev/$1" 2>/dev/null |
			sed -n 's/^Version: //p' | head -1)
		[ -n "$v" ] && echo "$v" >"$CACHE/$1.version"
	fi
	v=$(cat "$CACHE/$1.version" 2>/dev/null) || return 1
	[ -f "$CACHE/$v/.mr-complete" ] && { echo "$v"; return 0; }
	apt_setup || return 1
	dl=$CACHE/debs-$v
	rm -rf "$dl" "$CACHE/$v" && mkdir -p "$dl" || return 1
	# shellcheck disable=SC2046
	(cd "$dl" && apt-get $(apt_opts) -q download "libibverbs-dev=$v" \
		"libibverbs1=$v") >"$dl.log" 2>&1 || return 1
	for d in "$dl"/*.deb; do
		dpkg -x "$d" "$CACHE/$v" || return 1
	done
	rm -rf "$dl"
	touch "$CACHE/$v/.mr-complete"
	echo "$v"
}

check() {
	suite=$1
	if ! v=$(rdma_core "$suite"); then
		notok "$suite: libibverbs not obtained (archive: $MR_KHEADERS/apt/update.log)"
		return
	fi
	root=$CACHE/$v
	lib=$root/usr/lib/x86_64-linux-gnu
	abi=$(objdump -T "$lib/libibverbs.so.1" | grep -o 'IBVERBS_PRIVATE_[0-9]*' | sort -u | head -1)
	# A copy: the tree's own provider (built for the installed
	# libibverbs) is left alone.
	b=$(mktemp -d)
	mkdir -p "$b/kernel" "$b/scripts"
	cp -a "$top/userspace" "$b/"
	cp -a "$top/kernel/uapi" "$b/kernel/"
	cp -a "$top/scripts/rmdir-staged.sh" "$b/scripts/"
	for cc in gcc clang; do
		log=$RESULTS/provider-rdma-core-$v-$cc.log
		: >"$log"
		command -v $cc >/dev/null || { notok "$suite rdma-core $v: $cc not installed"; continue; }
		rm -f "$b/userspace/provider/"*.so
		if ! make -C "$b/userspace" provider CC=$cc \
			CPPFLAGS="-I$root/usr/include" LDFLAGS="-L$lib" >>"$log" 2>&1; then
			if [ "$abi" != IBVERBS_PRIVATE_34 ] &&
				grep -q 'undefined reference to .verbs_register_driver_34' "$log"; then
				ok "$suite rdma-core $v ($abi, outside the supported range): $cc refuses to link the provider"
			else
				notok "$suite rdma-core $v ($abi): $cc build failed (log: $log)"
			fi
			continue
		fi
		if [ "$abi" != IBVERBS_PRIVATE_34 ]; then
			notok "$suite rdma-core $v ($abi): $cc linked a provider against another private ABI"
		elif LIBIBVERBS=$lib/libibverbs.so.1 sh "$b/userspace/provider/check-so.sh" \
			"$b/userspace/provider/libmetaroce-rdmav34.so" >>"$log" 2>&1; then
			ok "$suite rdma-core $v ($abi): $cc builds the provider, every private import present"
		else
			notok "$suite rdma-core $v: $cc: $(grep 'check-so: FAIL' "$log" | tail -1)"
		fi
	done
	rm -rf "$b"
}

apt_setup || true
[ $# -gt 0 ] || set -- trixie
for suite in "$@"; do
	check "$suite" </dev/null
done
[ $((pass + fail)) -gt 0 ] || notok "no suite checked"
echo "provider-rdma-core: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
