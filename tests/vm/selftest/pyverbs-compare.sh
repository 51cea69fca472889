#!/bin/sh
# Host-side test of the metaroce-pyverbs judge (tests/e2e/lib/
# pyverbs-compare.py) on made-up run_tests.py -v logs: parity passes; a
# failure, an error, fewer ok, an unjustified skip and a truncated log do
# not; a skip listed in the justification file and one shared with the
# baseline (device name aside) pass. Prints "pyverbs-judge: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
judge="$here/../../e2e/lib/pyverbs-compare.py"
py=/usr/bin/python3.11
[ -x "$py" ] || py=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

cat >"$tmp/just.rst" <<'RST'
Text.

.. pyverbs-skips-begin
- ``tests.test_x.XTest.test_t5: XRC * not supported``: not offered.
.. pyverbs-skips-end
RST

# log FILE DEV VERDICT...: a run of tests t1..tN with these verdicts.
log() {
	f=$1
	dev=$2
	shift 2
	i=0
	: >"$f"
	for v in "$@"; do
		i=$((i + 1))
		case "$v" in
		ok) echo "test_t$i (tests.test_x.XTest.test_t$i) ... ok" ;;
		doc-ok) printf '%s\n%s\n%s\n' "test_t$i (tests.test_x.XTest.test_t$i)" \
			"Docstring. ... libibverbs: Warning: couldn't load driver 'x'" ok ;;
		netskip) echo "test_t$i (tests.test_x.XTest.test_t$i) ... skipped \"Device $dev doesn't have net interface\"" ;;
		xrcskip) echo "test_t$i (tests.test_x.XTest.test_t$i) ... skipped 'XRC QP is not supported'" ;;
		mwskip) echo "test_t$i (tests.test_x.XTest.test_t$i) ... skipped 'MW is not supported'" ;;
		FAIL | ERROR) echo "test_t$i (tests.test_x.XTest.test_t$i) ... $v" ;;
		esac
	done >>"$f"
	echo "----------------------------------------------------------------------" >>"$f"
	echo "Ran $i tests in 1.0s" >>"$f"
}

# check NAME EXPECTED-STATUS: judge $tmp/ours against $tmp/base.
check() {
	"$py" "$judge" "$tmp/ours" mr0 "$tmp/base" rx0 "$tmp/just.rst" >"$tmp/out" 2>&1
	st=$?
	if [ "$st" = "$2" ]; then
		pass=$((pass + 1))
	else
		echo "not ok - pyverbs-judge: $1: exit $st, expected $2"
		sed 's/^/    /' "$tmp/out"
		fail=$((fail + 1))
	fi
}

log "$tmp/base" rx0 ok doc-ok netskip mwskip ok
log "$tmp/ours" mr0 ok doc-ok netskip ok ok
check "parity, a shared skip naming the device" 0
log "$tmp/ours" mr0 ok doc-ok netskip ok xrcskip
check "a skip the baseline lacks, justified" 0
log "$tmp/ours" mr0 ok doc-ok netskip mwskip mwskip
check "a skip the baseline lacks, unjustified" 1
log "$tmp/base" rx0 ok doc-ok netskip mwskip ok ok
log "$tmp/ours" mr0 ok doc-ok netskip ok ok xrcskip
check "a justified message on a test the pattern does not name" 1
log "$tmp/base" rx0 ok doc-ok netskip mwskip ok
log "$tmp/ours" mr0 ok doc-ok netskip ok FAIL
check "a failure" 1
log "$tmp/ours" mr0 ok ERROR netskip ok ok
check "an error" 1
log "$tmp/base" rx0 ok ok ok ok ok
log "$tmp/ours" mr0 ok ok xrcskip ok ok
check "fewer ok than the baseline" 1
log "$tmp/ours" mr0 ok ok ok ok ok
sed -i '$d' "$tmp/ours"
check "a run that did not finish" 2
log "$tmp/ours" mr0 ok ok ok ok ok
sed -i '1d' "$tmp/ours"
check "a verdict missing" 2
sed -i '/pyverbs-skips-end/d' "$tmp/just.rst"
log "$tmp/ours" mr0 ok ok ok ok ok
check "no justification list" 2

echo "pyverbs-judge: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
