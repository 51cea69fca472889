#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Instruction counts of the portable protocol core's per-packet work, on
# the host, under valgrind's callgrind: where the time of one packet goes.
# Builds scripts/bench/coreprof.c with kernel/proto/*.c at -O2 (as
# the module builds them; no sibling-call optimisation, so that callgrind
# attributes every call to its caller) outside the sources, runs it under
# callgrind at each loss level and prints, per stage, the instructions per
# call and per data packet, plus what the congestion control did in the
# simulation.
#
#   scripts/bench/coreprof.sh [OUT_DIR]     (default: $RESULTS/coreprof)
#
# Environment: COREPROF_PROTO (the core's sources, default kernel/proto;
# e.g. the snapshot a make bench run measured, RUN_DIR/build/kernel/proto),
# COREPROF_LOSS (default "0 1 5", percent), COREPROF_MSGS
# (64 KiB WRITE messages per run, default 100), COREPROF_ARGS (more
# coreprof options, e.g. "-f" for the fixed window, "-r 2000" for the RTT
# in microseconds). Writes OUT_DIR/coreprof.txt (the tables) and the
# callgrind.out.* files (callgrind_annotate --inclusive=yes FILE).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-${RESULTS:-$top/results}/coreprof}
loss=${COREPROF_LOSS:-0 1 5}
msgs=${COREPROF_MSGS:-100}
args=${COREPROF_ARGS:-}
proto=${COREPROF_PROTO:-$top/kernel/proto}

command -v valgrind >/dev/null || { echo "coreprof: valgrind is not installed"; exit 1; }
mkdir -p "$out"
bin=$out/coreprof
${CC:-cc} -std=gnu11 -O2 -fno-optimize-sibling-calls -g -Wall -Wextra -Werror -I "$proto" \
	-o "$bin" "$here/coreprof.c" "$proto"/*.c

# stage FILE: "name inclusive_Ir" for the stages and ICRC variants.
stages() {
	# The function list: "Ir (pct) file:function [object]" lines only.
	# From /: below the sources' directory callgrind_annotate splits a
	# function by the spelling (relative or absolute) of its file name.
	(cd / && callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null) |
		awk '/ \[[^]]*\]$/ { for (i = 2; i <= NF; i++) if ($i ~ /:(stage_|icrc_|mr_icrc_|mr_crc32c_update|mr_pkt_|mr_sender_on_|mr_txsb_on_|rack_detect|mr_rxwin_|mr_rxmsg_|mr_cc_on_|mr_path_)/) {
			n = $i; sub(/.*:/, "", n); sub(/\..*/, "", n); v = $1; gsub(/,/, "", v); print n, v } }'
}

report() {
	# $1: callgrind file, $2: program output
	stages "$1" >"$1.stages"
	awk '
	FILENAME == ARGV[1] { if ($1 == "COUNT") cnt[$2] = $3; next }
	# a function listed once per source file of its inlined parts: the
	# largest inclusive count is the whole function
	$2 + 0 > ir[$1] + 0 { ir[$1] = $2 }
	END {
		pk = cnt["stage_tx_data"] + 0
		printf "  %-16s %9s %12s %9s %10s\n", "stage", "calls", "Ir", "Ir/call", "Ir/datapkt"
		# stage_tx_run includes its stage_tx_data calls (listed below)
		n = split("stage_tx_run stage_rx_data stage_tx_ack stage_rx_ack", s, " ")
		for (i = 1; i <= n; i++) {
			c = cnt[s[i]] + 0; v = ir[s[i]] + 0
			tot += v
			printf "  %-16s %9d %12d %9.0f %10.0f\n", s[i], c, v, c ? v / c : 0, pk ? v / pk : 0
		}
		printf "  %-16s %9s %12d %9s %10.0f\n", "all stages", "", tot, "", pk ? tot / pk : 0
		printf "  of which:\n"
		n = split("stage_tx_data mr_icrc_put mr_icrc_check mr_crc32c_update mr_pkt_encode_hdr mr_pkt_encode mr_pkt_decode mr_txsb_on_send mr_txsb_on_ack rack_detect mr_txsb_on_timer mr_rxwin_note mr_rxmsg_add mr_rxmsg_pop_completed mr_cc_on_ack mr_path_on_ack mr_path_on_delivery", s, " ")
		for (i = 1; i <= n; i++)
			if (s[i] in ir)
				printf "  %-24s %12d Ir  %8.0f per data packet\n", s[i], ir[s[i]], pk ? ir[s[i]] / pk : 0
	}' "$2" "$1.stages"
}

{
	echo "coreprof: portable core per-packet instruction counts (callgrind)"
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); core: $proto; commit: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "compiler: $(${CC:-cc} --version | head -1), -O2 -fno-optimize-sibling-calls (so that callgrind attributes tail calls); $(valgrind --version)"
	echo
	for l in $loss; do
		f=$out/callgrind.out.loss$l
		# shellcheck disable=SC2086
		valgrind --tool=callgrind --callgrind-out-file="$f" \
			"$bin" -l "$l" -n "$msgs" $args >"$f.txt" 2>"$f.log"
		echo "== loss $l% ($msgs x 64 KiB WRITE, MTU 1024) =="
		grep '^SIM' "$f.txt" | sed 's/^SIM /  /'
		report "$f" "$f.txt"
		echo
	done
	for b in 1100 4200; do
		f=$out/callgrind.out.icrc$b
		valgrind --tool=callgrind --callgrind-out-file="$f" \
			"$bin" -c $b -n 1000 >"$f.txt" 2>"$f.log"
		stages "$f" >"$f.stages"
		awk -v b=$b 'FILENAME == ARGV[1] { if ($1 == "COUNT") cnt[$2] = $3; next }
			$1 == "icrc_portable" || $1 == "icrc_sse42" {
				printf "  ICRC over %d bytes, %-13s %7.0f Ir (%.2f per byte)\n", b, $1 ":", $2 / cnt[$1], $2 / cnt[$1] / b }' \
			"$f.txt" "$f.stages"
	done
} | tee "$out/coreprof.txt"
