#!/bin/sh
# Host-side test of make bench-fabric's report (scripts/bench/
# fabric-report.py) on a made-up run: the figures it derives from
# FX-SAMPLE, FX-EVENT, FABRIC-CASE, INCAST-CASE and COMPARE-CASE lines
# (per-spine spread, goodput before and during a black hole and the
# scenario's judged figure for it, incast and
# comparison key=value figures, the tables of fabric.rst) are the ones
# the lines imply, and a run without figures is refused (exit 3). Prints "fabric-report: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
report="$here/../../../scripts/bench/fabric-report.py"
# shellcheck disable=SC2034
name=fabric-report
# shellcheck source=tests/vm/selftest/report-lib.sh
. "$here/report-lib.sh"

# metric CASE NAME [SCENARIO]: its value in fabric.csv (SCENARIO:
# metaroce-fabric).
metric() {
	awk -F, -v s="${3:-metaroce-fabric}" -v c="$1" -v m="$2" '{ sub(/\r$/, "") }
		$1 == s && $2 == c && $3 == m { print $4 }' "$tmp/run/fabric.csv"
}

mkdir -p "$tmp/run/e2e/metaroce-fabric" "$tmp/run/e2e/metaroce-incast" \
	"$tmp/run/e2e/metaroce-fabric-compare"
echo "commit=abc1234" >"$tmp/run/meta.env"
# spray: 10 s, spines 100/100/100/140 forward (mean 110, worst +27%),
# 100 each reverse. blackhole: a ramp-up of 200 B in the first second,
# then 1000 B/s until 6 s, then 500 B/s while spine 2 is black-holed from
# 6 s to 12 s (the reference "before" starts past the ramp-up: a fifth of
# the time before the hole).
{
	echo "[single] noise"
	echo "FX-SAMPLE spray 0.0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
	echo "FX-SAMPLE spray 10.0 5000 100 100 100 140 5000 100 100 100 100 0 0 0 0 0"
	t=0
	b=0
	while [ $t -le 16 ]; do
		echo "FX-SAMPLE blackhole $t.0 $b 0 0 0 0 0 0 0 0 0 1 1 2 1 3"
		if [ $t -eq 0 ]; then
			b=200
		elif [ $t -lt 6 ] || [ $t -ge 12 ]; then
			b=$((b + 1000))
		else
			b=$((b + 500))
		fi
		t=$((t + 1))
	done
	echo "FX-EVENT blackhole 6.0 hole-on fwd"
	echo "FX-EVENT blackhole 12.0 hole-off fwd"
	echo "[single] blackhole: mr-verify's phases in the black hole ran at 47% of the same kinds of phases before it (9 of 9 bytes in 3 phases judged)"
	echo "FABRIC-CASE spray ok"
	echo "FABRIC-CASE blackhole FAIL"
} >"$tmp/run/e2e/metaroce-fabric/single.console.log"
{
	echo "[single] calibration: 2000000 B/s unshaped; bottleneck 4mbit = 500000 B/s"
	echo "[single] ecn: window 12.00 s (reads 0.44 s, 0.51 s), goodput per sender (B/s)110000 120000, together 230000 B/s = 0.460 of the bottleneck, Jain 0.998"
	echo "INCAST-CASE ecn ok goodput=0.91 jain=0.99 rtos=ha:3/2 h1:4/4"
} >"$tmp/run/e2e/metaroce-incast/single.console.log"

{
	echo "COMPARE-CASE spray ok paths=8 total=240000 slowest=47000 slowest2=95000 spines=1,2,3,4"
	echo "COMPARE-CASE single ok paths=1 total=230000 slowest=24000 slowest2=48000 spines=9,0,5,5"
	echo "COMPARE-CASE spray/single ok pair_ratio=1.98 slowest_ratio=1.96 total_ratio=1.04"
} >"$tmp/run/e2e/metaroce-fabric-compare/single.console.log"

"$py" "$report" "$tmp/run" >"$tmp/out" 2>&1
check "exit status with figures" $? 0
check "spray verdict" "$(metric spray verdict)" ok
check "spray forward spread" "$(metric spray fwd_worst_dev_pct)" 27
check "spray reverse spread" "$(metric spray rev_worst_dev_pct)" 0
check "spray spine 4 bytes" "$(metric spray fwd_s4_bytes)" 140
check "blackhole verdict" "$(metric blackhole verdict)" FAIL
check "goodput before the hole" "$(metric blackhole goodput_before_Bps)" 1000
check "goodput during the hole" "$(metric blackhole goodput_during_Bps)" 500
check "during vs before" "$(metric blackhole during_vs_before_pct)" 50
check "the judged figure" "$(metric blackhole phases_vs_before_pct)" 47
check "incast goodput" "$(metric ecn goodput metaroce-incast)" 0.91
check "incast jain" "$(metric ecn jain metaroce-incast)" 0.99
check "incast RTOs of every sender" "$(metric ecn rtos metaroce-incast)" "ha:3/2 h1:4/4"
# the plot's per-sender bars, from the window line as the scenario prints it
check "incast goodput per sender" "$("$py" -c 'import importlib.util, sys
s = importlib.util.spec_from_file_location("fr", sys.argv[1])
m = importlib.util.module_from_spec(s)
s.loader.exec_module(m)
print(m.parse_per_flow(open(sys.argv[2]).read().splitlines()).get("ecn"))' \
	"$report" "$tmp/run/e2e/metaroce-incast/single.console.log")" "[110000, 120000]"
cmp=metaroce-fabric-compare
check "compare spray slowest" "$(metric spray slowest $cmp)" 47000
check "compare ratio verdict" "$(metric spray/single verdict $cmp)" ok
check "compare slowest ratio" "$(metric spray/single slowest_ratio $cmp)" 1.96
check "compare two slowest" "$(metric single slowest2 $cmp)" 48000
check "compare pair ratio" "$(metric spray/single pair_ratio $cmp)" 1.98
# fabric.rst: a table per scenario, a row per case
check "rst tables" "$(grep -c '^\.\. list-table:: metaroce-' "$tmp/run/fabric.rst")" 3
check "rst blackhole row" "$(grep -A11 '^   \* - blackhole$' "$tmp/run/fabric.rst" | sed -n 10,11p | tr -s ' \n' ' ')" " - 50 - 47 "
check "rst incast RTOs" "$(grep -c '^     - ha:3/2 h1:4/4$' "$tmp/run/fabric.rst")" 1

mkdir -p "$tmp/empty/e2e"
"$py" "$report" "$tmp/empty" >/dev/null 2>&1
check "a run without figures" $? 3

finish
