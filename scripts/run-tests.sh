#!/bin/sh
# Run test tiers and sum their results.
#
#   run-tests.sh TIER...     TIER: host, kunit, e2e, e2e-debug, e2e-bpo
#
# e2e-debug: the hostile-input end-to-end scenarios in VMs booting the
# KUnit test kernel (KASAN, lockdep, kmemleak, PREEMPT+DEBUG_PREEMPT)
# instead of the stock one (tests/vm/e2e.sh, MR_E2E_KERNEL=test).
# e2e-bpo: device lifecycle, perftest and rdma_cm in VMs booting
# bookworm-backports' stock kernel (MR_E2E_KERNEL=backports).
#
# Each tier prints one or more summary lines "NAME: N passed, N failed";
# this script adds them up and ends with the plain line "N passed, N failed".
# A tier that ends without any summary line counts as one failure. Exit
# status is non-zero when anything failed.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
RESULTS=${RESULTS:-$top/results}
mkdir -p "$RESULTS"

total_pass=0
total_fail=0
summary=""
failures=""

run_tier() {
	name=$1
	shift
	out="$RESULTS/tier-$name.log"
	echo "=== tier $name: $*"
	start=$(date +%s)
	"$@" 2>&1 | tee "$out"
	rc=$(cat "$RESULTS/.rc" 2>/dev/null || echo 1)
	elapsed=$(($(date +%s) - start))
	lines=$(grep -E '^[A-Za-z0-9_-]+: [0-9]+ passed, [0-9]+ failed' "$out")
	if [ -z "$lines" ]; then
		lines="$name: 0 passed, 1 failed"
		echo "$name: no result line (tier crashed?)"
	fi
	p=0
	f=0
	for n in $(echo "$lines" | sed -E 's/^[^:]+: ([0-9]+) passed, ([0-9]+) failed.*/\1:\2/'); do
		p=$((p + ${n%%:*}))
		f=$((f + ${n##*:}))
	done
	# A tier whose command failed while all its summaries say "0 failed"
	# still failed.
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	# What failed, by name, repeated at the end: CI keeps only the tail
	# of the output.
	if [ "$f" -ne 0 ]; then
		named=$(grep -a -E '^not ok|^failed: |\[  FAILED  \]|guest run failed|outside any test case|^[A-Za-z0-9_-]+: [0-9]+ passed, [1-9][0-9]* failed' "$out" |
			grep -v -E "^$name: " | head -12)
		failures="$failures
  $name:
$(echo "${named:-(no failure named; see $out)}" | sed 's/^/    /')"
	fi
	summary="$summary
  $name: $p passed, $f failed (${elapsed}s)"
}

# Run a command and leave its exit status where run_tier finds it (the
# pipeline through tee would hide it).
status_of() {
	"$@"
	echo $? >"$RESULTS/.rc"
}

for tier in "$@"; do
	case "$tier" in
	host) run_tier host status_of scripts/test-host.sh ;;
	kunit) run_tier kunit status_of tests/vm/kunit.sh ;;
	e2e) run_tier e2e status_of tests/vm/e2e.sh ;;
	e2e-debug) run_tier e2e-debug status_of env MR_E2E_KERNEL=test tests/vm/e2e.sh ;;
	e2e-bpo) run_tier e2e-bpo status_of env MR_E2E_KERNEL=backports tests/vm/e2e.sh ;;
	*) echo "run-tests.sh: unknown tier $tier"; total_fail=$((total_fail + 1)) ;;
	esac
done
rm -f "$RESULTS/.rc"

echo
[ -z "$failures" ] || echo "=== failed, by tier:$failures"
echo "=== results by tier:$summary"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
