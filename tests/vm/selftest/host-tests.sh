#!/bin/sh
# Host-side tests of the VM harness's judges: the kernel-report detector
# must flag each kind of report and must not flag clean logs or scenario
# output that merely mentions the words. Prints "vm-judge: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
reports="$here/../kernel-reports.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# check NAME EXPECT(flag|clean) LOG-LINE...
check() {
	name=$1
	want=$2
	shift 2
	printf '%s\n' "$@" >"$tmp/log"
	if sh "$reports" "$tmp/log" >/dev/null; then got=clean; else got=flag; fi
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		echo "not ok - vm-judge: $name: expected $want, got $got"
		fail=$((fail + 1))
	fi
}

clean="[    0.000000] Linux version 6.1.0-57-amd64"
check "clean boot" clean "$clean" "[    1.5] virtio_net virtio0 eth0: renamed" "MR-RESULT rc=0"
check "WARNING" flag "$clean" "[   12.345678] WARNING: CPU: 0 PID: 77 at mod.c:10 f+0x1/0x2"
check "BUG" flag "[    3.1] BUG: kernel NULL pointer dereference, address: 0000000000000008"
check "Oops" flag "[    3.1] Oops: 0002 [#1] PREEMPT SMP KASAN"
check "KASAN" flag "[    3.1] BUG: KASAN: slab-out-of-bounds in mr_rx+0x10/0x20"
check "UBSAN" flag "[    3.1] UBSAN: shift-out-of-bounds in kernel/x.c:5:3"
check "lockdep circular" flag "[    3.1] WARNING: possible circular locking dependency detected"
check "lockdep inconsistent" flag "[    3.1] WARNING: inconsistent lock state"
check "hung task" flag "[  125.0] INFO: task kworker/0:1:12 blocked for more than 60 seconds."
check "soft lockup" flag "[   50.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a:1]"
check "panic" flag "[    9.0] Kernel panic - not syncing: Fatal exception"
check "kmemleak printk" flag "[   70.0] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
check "kmemleak debugfs" flag "unreferenced object 0xffff888003a1b200 (size 64):"
check "bare trace" flag "[    3.1] Call Trace:"
check "scenario text is not kernel output" clean "[server] FAIL: WARNING: bandwidth low" "BUG: in scenario text"
check "kunit output mentioning BUG" clean "[    5.0]     # mr_test: expected BUG_ON not hit" "[    5.0]     ok 1 mr_test"

echo "vm-judge: $pass passed, $fail failed"
[ $fail -eq 0 ]
