#!/bin/sh
# Host-side test of make bench's report (scripts/bench/report.py) on a
# made-up run: the bandwidth ratios, the CPU cost per GiB it derives from
# both VMs' "CPUs busy" (BENCH cpu_busy on the client, BENCH-PEER
# cpu_busy on the server), the CPU target, the profile tables of
# BENCH-PROF lines, every target row, a run without CPU figures (n/a, no
# table rows), one whose MetaRoCE measurement failed, and a scaling run
# (BENCH_SCALING=1: the scaling target, per-CPU and per-queue figures).
# Prints "bench-report: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
report="$here/../../../scripts/bench/report.py"
# shellcheck disable=SC2034
name=bench-report
# shellcheck source=tests/vm/selftest/report-lib.sh
. "$here/report-lib.sh"

# has NAME FILE TEXT: FILE contains the line fragment TEXT.
has() {
	if grep -qF -- "$3" "$2"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "not ok - $name: $1: no '$3' in ${2##*/}"
	fi
}

# run DIR: a made-up run of tcp, rxe and MetaRoCE, 64 KiB write at 0%.
# 171.79869184 Mbit/s is 0.02 GiB/s, 85.89934592 is 0.01 GiB/s.
mkrun() {
	mkdir -p "$1/vm"
	{
		echo "mode=quick"
		echo "commit=abc1234"
		echo "vm_rc=0"
		echo "BENCH_TRANSPORTS=tcp rxe metaroce"
		echo "BENCH_BW_TESTS=write"
		echo "BENCH_LAT_TESTS="
		echo "BENCH_SIZES=65536"
		echo "BENCH_LOSS=0"
		echo "BENCH_SECONDS=10"
	} >"$1/meta.env"
	{
		echo "BENCH,tcp,iperf3,stream,0,bw_mbps,343.59738368,ok,"
		echo "BENCH,rxe,write_bw,65536,0,bw_mbps,171.79869184,ok,5 messages"
		if [ "$2" = fail ]; then
			echo "BENCH,metaroce,write_bw,65536,0,bw_mbps,,fail,exit status 1"
		else
			echo "BENCH,metaroce,write_bw,65536,0,bw_mbps,85.89934592,ok,5 messages"
		fi
		if [ "$2" = cpu ]; then
			echo "BENCH,tcp,iperf3,stream,0,cpu_busy,0.50,ok,window"
			echo "BENCH,rxe,write_bw,65536,0,cpu_busy,1.00,ok,window"
			# A kernel message in front of the tag (serial console).
			echo "[   12.3] virtio_net: hiccupBENCH,metaroce,write_bw,65536,0,cpu_busy,0.90,ok,window"
			echo "BENCH-PROF,client,metaroce,write_bw,65536,0,samples,2495,"
			echo "BENCH-PROF,client,metaroce,write_bw,65536,0,self,12.50%,mroce_icrc"
			echo "BENCH-PROF,client,metaroce,write_bw,65536,0,total,61.20%,mroce_req_run"
			echo "BENCH-PROF,client,metaroce,write_bw,65536,0,total,40.00%,mroce_xmit"
		fi
		echo "BENCH-END,client"
	} >"$1/vm/client.console.log"
	{
		if [ "$2" = cpu ]; then
			echo "BENCH-PEER,tcp,iperf3,stream,0,cpu_busy,0.50"
			echo "BENCH-PEER,rxe,write_bw,65536,0,cpu_busy,1.00"
			echo "BENCH-PEER,metaroce,write_bw,65536,0,cpu_busy,1.00"
			echo "BENCH-PEER,metaroce,write_bw,65536,0,acks_sent,1200"
			echo "BENCH-PROF,server,metaroce,write_bw,65536,0,samples,2490,"
			echo "BENCH-PROF,server,metaroce,write_bw,65536,0,self,9.00%,mroce_rcv"
		fi
		echo "BENCH-END,server"
	} >"$1/vm/server.console.log"
	: >"$1/run.log"
}

# csv DIR TRANSPORT METRIC: the value of that row (64 KiB write or iperf3).
csv() {
	awk -F, -v t="$2" -v m="$3" '$1 == t && $5 == m { print $6 }' "$1/bench.csv"
}

# target DIR TEXT: "measured verdict" of the rst target row starting so.
target() {
	grep -F -- "$2" "$1/bench.rst" | awk '{ print $(NF - 1), $NF }'
}

r=$tmp/cpu
mkrun "$r" cpu
"$py" "$report" "$r" --quiet >"$tmp/out" 2>&1
check "exit status" "$?" 0
check "client CPUs busy behind a console message" "$(csv "$r" metaroce cpu_busy)" 0.90
check "server CPUs busy" "$(csv "$r" metaroce peer_cpu_busy)" 1.00
check "server counter kept" "$(csv "$r" metaroce peer_ctr_acks_sent)" 1200
check "bandwidth target" "$(target "$r" 'lossless 64 KiB ib_write_bw ≥ 2× rxe')" "0.50× missed"
# (0.90 + 1.00) / 0.01 GiB/s = 190 s/GiB against (1 + 1) / 0.02 = 100.
check "CPU target" "$(target "$r" 'CPU per GiB')" "1.90× missed"
has "rst CPU row" "$r/bench.rst" "0.90 / 1.00"
has "rst CPU s/GiB" "$r/bench.rst" "190"
# TCP: (0.5 + 0.5) / 0.04 GiB/s = 25 s/GiB.
has "TCP CPU s/GiB" "$r/bench.md" "| iperf3 | stream | 0% | 0.50 / 0.50 | 25.0 |"
has "profile heading" "$r/bench.md" "### MetaRoCE write_bw 64 KiB, 0% loss: client (2495 samples)"
has "profile rows" "$r/bench.md" "| 12.50% | \`mroce_icrc\` | 61.20% | \`mroce_req_run\` |"
has "profile server" "$r/bench.md" "| 9.00% | \`mroce_rcv\` |"
# Every target of the issue has its row; those the run has no figure
# for say n/a.
has "TCP target" "$r/bench.md" "| 64 KiB ib_write_bw ≥ 90% of iperf3 TCP goodput (0% loss) | 25% | missed |"
has "size target without figures" "$r/bench.md" "| lossless 4 KiB ib_write_bw ≥ 1.5× rxe | n/a | n/a |"
has "scaling target" "$r/bench.md" "| -q 8 on 2 vCPUs ≥ 1.6× one QP on one vCPU | not run (make bench-scaling) | n/a |"
check "no scaling table" "$(grep -c 'Scaling' "$r/bench.md")" 0
has "completion target" "$r/bench.md" "| every MetaRoCE measurement completes | 0 of 1 failed | met |"

r=$tmp/nocpu
mkrun "$r" none
"$py" "$report" "$r" --quiet >"$tmp/out" 2>&1
check "exit status without CPU figures" "$?" 0
check "CPU target without figures" "$(target "$r" 'CPU per GiB')" "n/a n/a"
check "no CPU table" "$(grep -c 'CPU cost' "$r/bench.rst")" 0
check "no profiles" "$(grep -c 'Profiles' "$r/bench.md")" 0

r=$tmp/fail
mkrun "$r" fail
"$py" "$report" "$r" --quiet >"$tmp/out" 2>&1
check "exit status with a failed measurement" "$?" 0
has "completion target missed" "$r/bench.md" "| every MetaRoCE measurement completes | 1 of 1 failed | missed |"
check "bandwidth target without the figure" "$(target "$r" 'lossless 64 KiB ib_write_bw ≥ 2× rxe')" "n/a n/a"

# A scaling run: one QP on one vCPU and one queue, eight on two vCPUs.
r=$tmp/scaling
mkdir -p "$r/vm"
{
	echo "mode=full scaling"
	echo "vm_rc=0"
	echo "BENCH_SCALING=1"
	echo "BENCH_TRANSPORTS=rxe metaroce"
	echo "BENCH_BW_TESTS=write_q1_1cpu_1rxq write_q8_2cpu"
	echo "BENCH_LAT_TESTS="
	echo "BENCH_SIZES=65536"
	echo "BENCH_LOSS=0"
} >"$r/meta.env"
{
	echo "BENCH,rxe,write_q1_1cpu_1rxq_bw,65536,0,bw_mbps,40,ok,"
	echo "BENCH,rxe,write_q8_2cpu_bw,65536,0,bw_mbps,100,ok,"
	echo "BENCH,metaroce,write_q1_1cpu_1rxq_bw,65536,0,bw_mbps,30,ok,"
	echo "BENCH,metaroce,write_q8_2cpu_bw,65536,0,bw_mbps,12,ok,"
	echo "BENCH,metaroce,write_q8_2cpu_bw,65536,0,cpu_busy_0,0.97,ok,"
	echo "BENCH,metaroce,write_q8_2cpu_bw,65536,0,cpu_busy_1,0.88,ok,"
	echo "BENCH,metaroce,write_q8_2cpu_bw,65536,0,ctr_nic_rxq0_packets,700,ok,"
	echo "BENCH,metaroce,write_q8_2cpu_bw,65536,0,ctr_nic_rxq1_packets,600,ok,"
	echo "BENCH-END,client"
} >"$r/vm/client.console.log"
{
	echo "BENCH-PEER,metaroce,write_q8_2cpu_bw,65536,0,cpu_busy_0,0.50"
	echo "BENCH-PEER,metaroce,write_q8_2cpu_bw,65536,0,cpu_busy_1,0.45"
	echo "BENCH-PEER,metaroce,write_q8_2cpu_bw,65536,0,nic_rxq0_packets,9558"
	echo "BENCH-PEER,metaroce,write_q8_2cpu_bw,65536,0,nic_rxq1_packets,10588"
	echo "BENCH-END,server"
} >"$r/vm/server.console.log"
: >"$r/run.log"
"$py" "$report" "$r" --quiet >"$tmp/out" 2>&1
check "exit status of a scaling run" "$?" 0
check "scaling target" "$(target "$r" '-q 8 on 2 vCPUs')" "0.40× missed"
has "scaling row" "$r/bench.md" "| MetaRoCE | ib_write_bw -q 8, 2 vCPU, 2 queues | 12.0 | 0.40× | 0.97 / 0.88 | 0.50 / 0.45 | 9558 / 10588 | 700 / 600 |"
has "scaling baseline row" "$r/bench.md" "| rxe | ib_write_bw -q 1, 1 vCPU, 1 queue | 40.0 | 1.00× | n/a | n/a | n/a | n/a |"
has "scaling rst" "$r/bench.rst" "Scaling (two vCPUs per VM"
check "no CPU per GiB target without write_bw" "$(grep -c 'CPU per GiB' "$r/bench.md")" 0

finish
