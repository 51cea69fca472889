#!/bin/sh
# End-to-end tier: every scenario tests/e2e/*.sh in VMs booting the stock
# Debian kernel the module is built against, with the module and the
# userspace provider installed in the guests.
#
# A scenario's header says how to run it:
#   # topology: pair|single     (default pair)
#   # timeout: SECONDS          (default 300; the guest-side limit)
#   # default: no REASON        (run only when E2E_FILTER selects it)
# E2E_FILTER=REGEX runs only the scenarios whose name matches.
# E2E_TIMEOUT_ADD=SECONDS lengthens every scenario's timeout (make soak adds
# SOAK_SECONDS); MR_GUEST_ENV (tests/vm/run.sh) passes variables to guests.
# Prints "ok/not ok" per scenario and "e2e: N passed, N failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"
RESULTS=${RESULTS:-$top/results}
out="$RESULTS/e2e"
rm -rf "$out"
mkdir -p "$out"

KDIR=${KDIR:-$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1)}
kver=$(basename "$KDIR" | sed 's/^linux-headers-//')
bzimage=/boot/vmlinuz-$kver
if [ ! -f "$bzimage" ] || [ ! -d "/lib/modules/$kver/kernel" ]; then
	echo "e2e: no stock kernel image/modules for $kver (run scripts/install-deps.sh)"
	echo "e2e: 0 passed, 1 failed"
	exit 1
fi

if ! make -C "$top" KDIR="$KDIR" all >"$out/build.log" 2>&1; then
	tail -30 "$out/build.log"
	echo "e2e: build failed ($out/build.log)"
	echo "e2e: 0 passed, 1 failed"
	exit 1
fi
kos=$(find "$top/kernel" -maxdepth 1 -name '*.ko')
# shellcheck disable=SC2086
"$here/mkinitramfs.sh" "$out/initrd.gz" "$kver" / $kos || {
	echo "e2e: 0 passed, 1 failed"
	exit 1
}

pass=0
fail=0
n=0
for scen in "$top"/tests/e2e/*.sh; do
	name=$(basename "$scen" .sh)
	if [ -n "${E2E_FILTER:-}" ] && ! echo "$name" | grep -Eq "$E2E_FILTER"; then
		continue
	fi
	# "# default: no REASON": only when E2E_FILTER names it (make soak).
	why=$(sed -n 's/^# default: no *//p' "$scen" | head -1)
	if [ -z "${E2E_FILTER:-}" ] && grep -q '^# default: no' "$scen"; then
		echo "skip - $name: not in the default run: $why"
		continue
	fi
	n=$((n + 1))
	topo=$(sed -n 's/^# topology: *\([a-z]*\).*/\1/p' "$scen" | head -1)
	tmo=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$scen" | head -1)
	start=$(date +%s)
	v=$("$here/run.sh" --kernel "$bzimage" --initrd "$out/initrd.gz" \
		--topology "${topo:-pair}" --timeout "$((${tmo:-300} + ${E2E_TIMEOUT_ADD:-0}))" \
		--scenario "$scen" --results "$out/$name" 2>&1)
	st=$?
	secs=$(($(date +%s) - start))
	if [ $st -eq 0 ]; then
		echo "ok $n - $name (${secs}s)"
		pass=$((pass + 1))
	else
		echo "not ok $n - $name (${secs}s)"
		echo "$v" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
done
echo "e2e: $pass passed, $fail failed"
[ $fail -eq 0 ]
