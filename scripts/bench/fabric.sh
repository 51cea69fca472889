#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-fabric (and the second half of make bench): the multipath
# scenarios of the e2e tier on the one-VM leaf-spine fabric
# (tests/e2e/lib/fabric.sh), in their long variants: metaroce-fabric with
# every case BENCH_FABRIC_SCALE times as long (FX_SCALE) and
# metaroce-incast likewise (INCAST_SCALE). The scenarios judge as in make
# test; here their verdicts are reported next to the figures, and only a
# harness failure (nothing ran) makes the exit status non-zero.
#
# scripts/bench/fabric-report.py turns the consoles into
#   $RESULTS/bench/fabric-<date>/fabric.csv, fabric.rst, fabric.png
#
# Environment:
#   BENCH_FABRIC_SCALE   3 (each case three times as long as in make
#                        test; 1 with BENCH_QUICK=1)
#   BENCH_FABRIC_FILTER  '^metaroce-(fabric|incast|fabric-compare)$'
#   BENCH_FABRIC_CASES   metaroce-fabric's cases (its FX_CASES; default
#                        all: spray blackhole reverse slow)
#   BENCH_MR_ATTRS       device attributes written on every host's device
#                        once it exists (ack_reorder=1), as in bench.sh
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
RESULTS=${RESULTS:-$top/results}
dflt=3
[ "${BENCH_QUICK:-0}" = 1 ] && dflt=1
scale=${BENCH_FABRIC_SCALE:-$dflt}
filter=${BENCH_FABRIC_FILTER:-'^metaroce-(fabric|incast|fabric-compare)$'}
case "$scale" in '' | *[!0-9]* | 0)
	echo "bench-fabric: BENCH_FABRIC_SCALE=$scale: a whole number >= 1"
	exit 1 ;;
esac
FAB_MR_ATTRS=${BENCH_MR_ATTRS:-}
# shellcheck source=attrs.sh
. "$here/attrs.sh"
why=$(bench_attrs_check "$FAB_MR_ATTRS") || {
	echo "bench-fabric: $why"
	exit 1
}
FX_CASES=${BENCH_FABRIC_CASES:-}
case "$FX_CASES" in *[!a-z0-9\ ]*)
	echo "bench-fabric: BENCH_FABRIC_CASES: case names only"
	exit 1 ;;
esac
export FAB_MR_ATTRS FX_CASES

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=$RESULTS/bench/fabric-$stamp
mkdir -p "$out" || exit 1
ln -sfn "fabric-$stamp" "$RESULTS/bench/fabric-latest" 2>/dev/null
echo "bench-fabric: scale $scale, results in $out"
{
	echo "commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "dirty=$(git -C "$top" status --porcelain 2>/dev/null | grep -c .)"
	echo "scale=$scale"
	echo "mr_attrs=$FAB_MR_ATTRS"
	echo "cases=${FX_CASES:-all}"
	echo "date=$stamp"
	echo "host_cpus=$(nproc)"
} >"$out/meta.env"

# A case of metaroce-fabric takes up to ~50 s at scale 1; incast less.
add=$((300 * scale))
FX_SCALE=$scale INCAST_SCALE=$scale E2E_TIMEOUT_ADD=$add \
	MR_GUEST_ENV="FX_SCALE INCAST_SCALE FAB_MR_ATTRS FX_CASES ${MR_GUEST_ENV:-}" \
	E2E_FILTER=$filter RESULTS=$out sh "$top/tests/vm/e2e.sh" | tee "$out/e2e.log"

py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" "$here/fabric-report.py" "$out"
