#!/bin/sh
# Print QEMU accelerator arguments: KVM when it really works here, else TCG.
#
# /dev/kvm can exist and still be unusable (nested virtualisation that
# rejects MSRs, or guests that never run), so the probe boots the stock
# kernel briefly and asks for its first console line. The answer is cached
# per host boot. MR_ACCEL=tcg or MR_ACCEL=kvm skips the probe.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

# la57=off: with 5-level paging the KASAN test kernel sometimes reports a
# wild-memory-access on a direct-map address (ff11...) in an early
# interrupt, about one boot in eight; 4-level paging is what the tests need.
tcg="-accel tcg,thread=multi -cpu max,la57=off"
kvm="-accel kvm -cpu host"

case "${MR_ACCEL:-}" in
tcg) echo "$tcg"; exit 0 ;;
kvm) echo "$kvm"; exit 0 ;;
esac

if [ ! -w /dev/kvm ]; then
	echo "$tcg"
	exit 0
fi

boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo none)
cache="$MR_CACHE/accel-$boot"
if [ -f "$cache" ]; then
	cat "$cache"
	exit 0
fi

kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
result=$tcg
if [ -n "$kernel" ] &&
	timeout 20 qemu-system-x86_64 $kvm -machine q35 -m 256 -nodefaults \
		-display none -no-reboot -monitor none -kernel "$kernel" \
		-append "console=ttyS0 panic=-1" -serial stdio 2>/dev/null |
	grep -q -m1 'Linux version'; then
	result=$kvm
fi
mkdir -p "$MR_CACHE"
echo "$result" >"$cache"
echo "$result"
