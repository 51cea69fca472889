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
check "kernel GPF" flag "[    3.1] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP"
check "user-space GPF is the process's" clean "[   11.2] traps: ib_send_bw[413] general protection fault ip:7f035f13d472 sp:7ffe879bb260 error:0 in librdmacm.so.1[7f035f137000+15000]"
check "user-space GPF beside a kernel one" flag "[   11.2] traps: a[4] general protection fault ip:7f03 sp:7ffe error:0 in b.so[7f+15]" "[   11.3] general protection fault, probably for non-canonical address 0x1: 0000 [#1] SMP"
check "scenario text is not kernel output" clean "[server] FAIL: WARNING: bandwidth low" "BUG: in scenario text"
check "kunit output mentioning BUG" clean "[    5.0]     # mr_test: expected BUG_ON not hit" "[    5.0]     ok 1 mr_test"

# KTAP extraction: suites of two modules (each numbering from 1) after the
# boot-time "1..0" must parse as one document; a failing or crashed case
# must make kunit.py report failure, and an all-pass log must not.
kunit_py="${KSRC:-/usr/src/linux-source-6.1}/tools/testing/kunit/kunit.py"
ktap() {
	name=$1
	want=$2
	count=$3
	shift 3
	{
		echo "[    9.8] KTAP version 1"
		echo "[    9.9] 1..0"
		echo "MR-BEGIN role=single"
		printf '%s\n' "$@"
		echo "MR-SCENARIO-END rc=0"
		echo "[   30.0]     ok 9 after-the-end-is-ignored"
	} >"$tmp/console"
	python3 "$here/../ktap-extract.py" "$tmp/console" >"$tmp/ktap"
	if python3 "$kunit_py" parse "$tmp/ktap" >"$tmp/parse" 2>&1; then
		got=pass
	else
		got=fail
	fi
	if [ "$got" = "$want" ] && grep -q "Ran $count tests" "$tmp/parse"; then
		pass=$((pass + 1))
	else
		echo "not ok - vm-judge: ktap $name: expected $want, got $got"
		sed 's/^/    /' "$tmp/parse" | tail -5
		fail=$((fail + 1))
	fi
}
suite() {
	# suite NAME RESULT(ok|not ok) : one module's KTAP with a single case.
	printf '%s\n' "[   10.0]     KTAP version 1" "[   10.0]     # Subtest: $1" \
		"[   10.0]     1..1" "[   10.1]     $2 1 $1_case" "[   10.1] $2 1 $1"
}
if [ -f "$kunit_py" ]; then
	ktap "two modules pass" pass 2 "$(suite a ok)" "$(suite b ok)"
	ktap "second module fails" fail 2 "$(suite a ok)" "$(suite b 'not ok')"
	ktap "suite crashed mid-way" fail 4 "$(suite a ok)" \
		"[   11.0]     KTAP version 1" "[   11.0]     # Subtest: crashed" "[   11.0]     1..3"
else
	echo "not ok - vm-judge: $kunit_py missing (run scripts/install-deps.sh)"
	fail=$((fail + 1))
fi

# run.sh with a pair whose server scenario fails at once and whose client
# would wait until the scenario timeout (a QEMU stand-in writes the
# console logs): the client must be stopped MR_PEER_GRACE seconds later,
# not at the 300 s timeout, and the run must fail naming why.
mkdir -p "$tmp/bin" "$tmp/pair"
cat >"$tmp/bin/qemu-system-x86_64" <<'FAKE'
#!/bin/sh
while [ $# -gt 0 ]; do
	case "$1" in
	-serial) log=${2#file:}; shift 2 ;;
	*) shift ;;
	esac
done
case "$log" in
*/server.console.log)
	printf 'MR-BEGIN role=server\n[server] FAIL: x\nMR-SCENARIO-END rc=1\nMR-RESULT rc=1\n' >"$log"
	exit 0 ;;
*)
	printf 'MR-BEGIN role=client\n' >"$log"
	exec sleep 300 ;;
esac
FAKE
chmod +x "$tmp/bin/qemu-system-x86_64"
: >"$tmp/pair/kernel"
: >"$tmp/pair/initrd"
echo true >"$tmp/pair/scenario.sh"
t0=$(date +%s)
out=$(PATH="$tmp/bin:$PATH" MR_ACCEL=tcg MR_PEER_GRACE=2 sh "$here/../run.sh" \
	--kernel "$tmp/pair/kernel" --initrd "$tmp/pair/initrd" \
	--scenario "$tmp/pair/scenario.sh" --results "$tmp/pair/res" \
	--timeout 300 2>&1) && rc=0 || rc=$?
secs=$(($(date +%s) - t0))
if [ "$rc" -ne 0 ] && [ "$secs" -lt 60 ] &&
	echo "$out" | grep -q "FAIL \[client\]: stopped 2s after the server guest's scenario failed" &&
	echo "$out" | grep -q "FAIL \[server\]: scenario exited with status 1"; then
	pass=$((pass + 1))
else
	echo "not ok - vm-judge: a failed guest stops its peer (rc $rc, ${secs}s)"
	echo "$out" | sed 's/^/    /' | tail -8
	fail=$((fail + 1))
fi

echo "vm-judge: $pass passed, $fail failed"
[ $fail -eq 0 ]
