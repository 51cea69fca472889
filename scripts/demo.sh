#!/bin/sh
# make demo: boot two VMs joined by a virtual link, create RDMA links on
# their NICs and run ib_write_bw over them, showing perftest's own output.
# Uses MetaRoCE when the module provides a working datapath and provider;
# until then it shows the Soft-RoCE (rxe) baseline the tests compare with.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
RESULTS=${RESULTS:-$top/results}
export RESULTS

scenario=tests/e2e/rxe-baseline.sh
[ -f tests/e2e/metaroce-perftest.sh ] && scenario=tests/e2e/metaroce-perftest.sh
echo "demo: running $(basename "$scenario" .sh) in two VMs (takes a minute or two under emulation)"
E2E_FILTER="^$(basename "$scenario" .sh)\$" tests/vm/e2e.sh
rc=$?
log="$RESULTS/e2e/$(basename "$scenario" .sh)/client.console.log"
if [ -f "$log" ]; then
	echo
	echo "--- client VM: ib_write_bw output ---"
	grep -E '^ *(#bytes|[0-9]+ +[0-9]+ )|RDMA_Write|Device|Link type|GID' "$log" | grep -v '^\[' | head -40
fi
exit $rc
